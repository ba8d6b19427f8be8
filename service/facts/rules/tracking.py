"""Experiment tracking (kb-serve's domain): Weights & Biases credentials and start-up, MLflow's immutable params,
TensorBoard logging without the tensorboard package.

Every pattern quotes the line it was written for; the texts were read from the released wheels named in each
entry's ``affected.software`` (wandb 0.17.9 and 0.31.0, mlflow-skinny 2.17.2 and 3.17.2, torch 2.13.0, transformers 4.36.2-5.24.0, lightning 2.5.1).
"""

from __future__ import annotations

from service.facts.rules.base import Rule

RULES: tuple[Rule, ...] = (
    # --- Weights & Biases ---
    Rule(
        "wandb-api-key-missing",
        "wandb-api-key-missing",
        (
            # 0.17 wandb_login.py: "wandb.errors.UsageError: api_key not configured (no-tty). call
            #  wandb.login(key=[your_api_key])" (the CLI: "... call wandb login [your_api_key]")
            r"api_key not configured \(no-tty\)\. call wandb[ .]login",
            # 0.31 wbauth/authenticate.py: "wandb.errors.errors.UsageError: No API key configured. Use `wandb login` to log in."
            r"UsageError: No API key configured\. Use `wandb login` to log in",
        ),
        0.95,
    ),
    Rule(
        "wandb-init-timeout",
        "wandb-init-timeout",
        (
            # 0.17 wandb_init.py: "wandb.errors.CommError: Run initialization has timed out after 90.0 sec. "
            r"Run initialization has timed out after [\d.]+ sec",
            # wandb-core (0.2x-0.3x): "Consider increasing the init_timeout setting:"
            r"Consider increasing the init_timeout setting",
        ),
        0.93,
    ),
    # --- MLflow ---
    Rule(
        "mlflow-param-value-changed",
        "mlflow-param-value-changed",
        (
            # file_store.py / sqlalchemy_store.py log_param: "mlflow.exceptions.MlflowException: Changing param values is not
            #  allowed. Param with key='lr' was already logged with value='0.001' for run ID='7f3c...'. Attempted logging new
            #  value '0.0003'."
            r"Changing param values is not allowed\. Param with key=",
            # sqlalchemy_store.py _log_params (log_batch, via a tracking server as "RestException: INVALID_PARAMETER_VALUE:
            #  ..."): "Changing param values is not allowed. Params were already logged='[{'key': ...}]' for run ID='...'."
            r"Changing param values is not allowed\. Params were already logged=",
        ),
        0.95,
    ),
    # --- TensorBoard ---
    Rule(
        "tensorboard-not-installed",
        "tensorboard-not-installed",
        (
            # transformers TensorBoardCallback: "RuntimeError: TensorBoardCallback requires tensorboard to be installed. Either
            #  update your PyTorch version or install tensorboardX."
            r"TensorBoardCallback requires tensorboard to be installed",
            # lightning TensorBoardLogger: "ModuleNotFoundError: Neither `tensorboard` nor `tensorboardX` is available. Try
            #  `pip install`ing either."
            r"Neither `tensorboard` nor `tensorboardX` is available",
            # torch/utils/tensorboard/__init__.py: "ImportError: TensorBoard logging requires TensorBoard version 1.15 or above"
            r"TensorBoard logging requires TensorBoard version 1\.15 or above",
            # the `import tensorboard` on line 1 of torch/utils/tensorboard/__init__.py:
            #  "ModuleNotFoundError: No module named 'tensorboard'"
            r"ModuleNotFoundError: No module named 'tensorboard(?:X)?'\s*$",
        ),
        0.93,
    ),
)
