"""Rule table rows for service/facts/rules/serving.py (serving engines, DeepSpeed, tracking), joined into
tests/test_rules.py.

FIRES: (rule id, a line or lines of a real log that must fire it). NEAR_MISSES: (rule id, lines it must not fire
on: a look-alike of another entry, or the same words in a harmless line).
"""

FIRES = [
    ("vllm-unsupported-architecture", "ValueError: Model architectures ['Qwen3NextForCausalLM'] are not supported for now. Supported architectures: dict_keys(['AquilaModel', 'AquilaForCausalLM', 'ArceeForCausalLM'])"),
    ("vllm-unsupported-architecture", "(APIServer pid=1)   Value error, Model architectures ['LlavaLlamaForCausalLM'] are not supported for now. Supported architectures: dict_keys(['ApertusForCausalLM', 'AquilaModel']) [type=value_error, input_value=ArgsKwargs((), {'model': ...}), input_type=ArgsKwargs]"),
    ("vllm-unsupported-architecture", "ValueError: Model architecture MPTForCausalLM was supported in vLLM until v0.10.2, and is not supported anymore. Please use an older version of vLLM if you want to use this model architecture."),
    ("vllm-tp-heads-not-divisible", "ValueError: Total number of attention heads (28) must be divisible by tensor parallel size (8)."),
    ("vllm-tp-heads-not-divisible", "(APIServer pid=7)   Value error, Total number of attention heads (40) must be divisible by tensor parallel size (6). [type=value_error, input_value=ArgsKwargs((), {'model_co...transfer_config': None}), input_type=ArgsKwargs]"),
    ("vllm-tp-heads-not-divisible", "ValueError: Step5 attention heads must be divisible by tensor parallel size: num_heads=64, tp_size=6."),
    ("vllm-max-model-len-exceeds-config", "ValueError: User-specified max_model_len (32768) is greater than the derived max_model_len (max_position_embeddings=8192 or model_max_length=None in model's config.json). To allow overriding this maximum, set the env var VLLM_ALLOW_LONG_MAX_MODEL_LEN=1. VLLM_ALLOW_LONG_MAX_MODEL_LEN must be used with extreme caution."),
    ("vllm-max-model-len-exceeds-config", "  Value error, User-specified max_model_len (16384) is greater than the derived max_model_len (max_position_embeddings=4096 or model_max_length=None in model's config.json). To allow overriding this maximum, set the env var VLLM_ALLOW_LONG_MAX_MODEL_LEN=1. [type=value_error, input_value=ArgsKwargs(()), input_type=ArgsKwargs]"),
    ("deepspeed-offload-client-optimizer", "[rank3]: deepspeed.runtime.zero.utils.ZeRORuntimeException: You are using ZeRO-Offload with a client provided optimizer (<class 'torch.optim.adamw.AdamW'>) which in most cases will yield poor performance. Please either use deepspeed.ops.adam.DeepSpeedCPUAdam or set an optimizer in your ds-config (https://www.deepspeed.ai/docs/config-json/#optimizer-parameters). If you really want to use a custom optimizer w. ZeRO-Offload and understand the performance impacts you can also set <\"zero_force_ds_cpu_optimizer\": false> in your configuration file."),
]

NEAR_MISSES = [
    # the registered-but-broken variant names an import error above it, not a missing architecture
    ("vllm-unsupported-architecture", "ValueError: Model architectures ['Qwen2ForCausalLM'] failed to be inspected. Please check the logs for more details."),
    # the later worker-side assertion of a KV-head split is not the config check's line
    ("vllm-tp-heads-not-divisible", "AssertionError: 8 is not divisible by 5"),
    # with VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 the same text is a warning and the engine starts
    ("vllm-max-model-len-exceeds-config", "(APIServer pid=1) WARNING 11-02 10:01:02 [model.py:2178] User-specified max_model_len (32768) is greater than the derived max_model_len (max_position_embeddings=8192 or model_max_length=None in model's config.json). VLLM_ALLOW_LONG_MAX_MODEL_LEN must be used with extreme caution."),
    # the KV-cache limit is memory, another entry
    ("vllm-max-model-len-exceeds-config", "ValueError: The model's max seq len (32768) is larger than the maximum number of tokens that can be stored in KV cache (26208). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine."),
    # the HF Trainer's info line about offload with its own optimizer is not the refusal
    ("deepspeed-offload-client-optimizer", "Detected ZeRO Offload and non-DeepSpeed optimizers: This combination should work as long as the custom optimizer has both CPU and GPU implementation (except LAMB)"),
]

FIRES += [
    ("megatron-parallel-sizes-invalid", "[rank5]: RuntimeError: world_size (12) is not divisible by 8"),
    ("megatron-parallel-sizes-invalid", "AssertionError: world_size: 8 must be divisible by total world_size: (decoder_)tensor_model_parallel_size 4 * (decoder_)pipeline_model_parallel_size 4 * (decoder_)context_parallel_size 1 + encoder_tensor_model_parallel_size 0 * encoder_pipeline_model_parallel_size 0 * context_parallel_size 1"),
    ("megatron-parallel-sizes-invalid", "ValueError: Expected world_size (4) to be greater than/equal to pipeline size (8)"),
    ("megatron-parallel-sizes-invalid", "ValueError: num_attention_heads (28) must be a multiple of tensor_model_parallel_size (8)."),
    ("megatron-parallel-sizes-invalid", "ValueError: num_query_groups (4) must be a multiple or divisor of tensor_model_parallel_size (6)."),
    ("wandb-api-key-missing", "wandb.errors.UsageError: api_key not configured (no-tty). call wandb.login(key=[your_api_key])"),
    ("wandb-api-key-missing", "wandb.errors.errors.UsageError: No API key configured. Use `wandb login` to log in."),
    ("wandb-init-timeout", "wandb.errors.CommError: Run initialization has timed out after 90.0 sec. "),
    ("wandb-init-timeout", "wandb.errors.errors.CommError: Run initialization has timed out after 300.0 sec. "),
    ("mlflow-param-value-changed", "mlflow.exceptions.MlflowException: Changing param values is not allowed. Param with key='lr' was already logged with value='0.001' for run ID='7f3c2a'. Attempted logging new value '0.0003'."),
    ("mlflow-param-value-changed", "mlflow.exceptions.RestException: INVALID_PARAMETER_VALUE: Changing param values is not allowed. Params were already logged='[{'key': 'logging_dir', 'old_value': 'out/runs/Nov14_02-10-03_node7', 'new_value': 'out/runs/Nov15_09-41-52_node3'}]' for run ID='b91e'."),
]

NEAR_MISSES += [
    # an unrelated divisibility message of the user's own sharding code
    ("megatron-parallel-sizes-invalid", "AssertionError: world_size (8) is not divisible by num_shards (3) in shard_dataset"),
    # wandb's normal start-up lines
    ("wandb-api-key-missing", "wandb: Currently logged in as: mchen (mchen-lab). Use `wandb login --relogin` to force relogin"),
    ("wandb-init-timeout", "wandb: Tracking run with wandb version 0.17.9"),
    # MLflow's length limit is another validation
    ("mlflow-param-value-changed", "mlflow.exceptions.MlflowException: Param value 'a very long value' had length 6120, which exceeded length limit of 6000"),
]

FIRES += [
    ("tensorboard-not-installed", "RuntimeError: TensorBoardCallback requires tensorboard to be installed. Either update your PyTorch version or install tensorboardX."),
    ("tensorboard-not-installed", "ModuleNotFoundError: Neither `tensorboard` nor `tensorboardX` is available. Try `pip install`ing either."),
    ("tensorboard-not-installed", "ImportError: TensorBoard logging requires TensorBoard version 1.15 or above"),
    ("tensorboard-not-installed", "[rank0]: ModuleNotFoundError: No module named 'tensorboard'"),
]

NEAR_MISSES += [
    # a submodule of an installed tensorboard, or another package named like it, is not this failure
    ("tensorboard-not-installed", "ModuleNotFoundError: No module named 'tensorboard_plugin_profile'"),
    ("tensorboard-not-installed", "ModuleNotFoundError: No module named 'tensorboard.compat.proto'"),
]
