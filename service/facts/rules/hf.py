"""Hugging Face stack: transformers tokenizers and Trainer, PEFT, TRL, safetensors (kb-hf's domain).

Every pattern quotes the line it was written for; the texts were read from the released wheels named in each
entry's ``affected.software`` (transformers 4.36.2 to 5.24.0, peft 0.10.0 to 0.21.2, trl 0.12.0 to 1.16.0,
safetensors 0.4.5 and 0.8.0) or captured by running the failing program on CPU.
"""

from __future__ import annotations

from service.facts.rules.base import Boost, Rule

RULES: tuple[Rule, ...] = (
    # --- tokenizers and chat templates ---
    Rule(
        "hf-missing-pad-token",
        "tokenizer-missing-pad-token",
        (
            # "ValueError: Asking to pad but the tokenizer does not have a padding token. Please select a token to use as
            #  `pad_token` `(tokenizer.pad_token = tokenizer.eos_token e.g.)` or add a new pad token via ..."
            r"Asking to pad but the tokenizer does not have a padding token",
            # data_collator._torch_collate_batch: "ValueError: You are attempting to pad samples but the tokenizer you are
            #  using (GPT2TokenizerFast) does not have a pad token."
            r"You are attempting to pad samples but the tokenizer you are using \(\w+\) does not have a pad token",
        ),
        0.95,
    ),
    Rule(
        "hf-classifier-no-pad-token",
        "tokenizer-missing-pad-token",
        # modeling_layers.py (4.57+) / modeling_llama.py (older): "ValueError: Cannot handle batch sizes > 1 if no padding
        #  token is defined."
        (r"Cannot handle batch sizes > 1 if no padding token is defined",),
        0.9,
    ),
    Rule(
        "hf-chat-template-missing",
        "chat-template-not-set",
        (
            # 4.45+: "ValueError: Cannot use chat template functions because tokenizer.chat_template is not set and no
            #  template argument was passed! For information about writing templates ..."
            # 4.44: "ValueError: Cannot use apply_chat_template() because tokenizer.chat_template is not set and no ..."
            r"Cannot use (?:chat template functions|apply_chat_template\(\)) because tokenizer\.chat_template is not set",
            # vLLM 0.33 chat endpoints: "As of transformers v4.44, default chat template is no longer allowed, so you must
            #  provide a chat template if the tokenizer does not define one."
            r"default chat template is no longer allowed, so you must provide a chat template",
            # "ValueError: This model has multiple chat templates with no default specified! Please either pass a chat
            #  template or the name of the template you wish to use to the `chat_template` argument."
            r"This model has multiple chat templates with no default specified",
        ),
        0.95,
    ),
    # --- loading: architecture registry, remote code ---
    Rule(
        "hf-unrecognized-architecture",
        "transformers-unrecognized-architecture",
        (
            # 4.42+: "ValueError: The checkpoint you are trying to load has model type `gemma3` but Transformers does not
            #  recognize this architecture. This could be because of an issue with the checkpoint, or because your
            #  version of Transformers is out of date."
            r"has model type `[\w.-]+` but Transformers does not recognize this architecture",
            # tokenization_auto.py: "ValueError: Tokenizer class Qwen2Tokenizer does not exist or is not currently imported."
            r"Tokenizer class \w+ does not exist or is not currently imported",
        ),
        0.93,
    ),
    Rule(
        "hf-unknown-model-type-keyerror",
        "transformers-unrecognized-architecture",
        # transformers < 4.42: configuration_auto.py _LazyConfigMapping.__getitem__ "raise KeyError(key)" ends the log in
        #  "KeyError: 'qwen2'", with the traceback through configuration_auto.py
        (r"\bKeyError: '[a-z][a-z0-9_]*'\s*$",),
        0.45,
        needs=(r"models/auto/configuration_auto\.py",),
        boosts=(
            Boost(0.35, "the KeyError is raised by the config registry lookup",
                  line=r"in __getitem__|config_class = CONFIG_MAPPING\[config_dict\[.model_type.\]\]"),
        ),
    ),
    Rule(
        "hf-trust-remote-code",
        "trust-remote-code-required",
        (
            # "ValueError: The repository for internlm/internlm-chat-7b contains custom code which must be executed to
            #  correctly load the model." (4.3x) / "The repository models/x contains custom code which must be executed to
            #  correctly load the model." (4.57+)
            r"contains custom code which must be executed to correctly load the model",
            # "Please pass the argument `trust_remote_code=True` to allow custom code to be run."
            r"Please pass the argument `trust_remote_code=True` to allow custom code to be run",
            # trust_remote_code=False: "ValueError: Loading x requires you to execute the configuration file in that repo on
            #  your local machine. Make sure you have read the code there ..."
            r"requires you to execute the (?:configuration file|dataset script) in that repo on your local machine",
            # the prompt's timeout: "ValueError: Loading this model requires you to execute custom code contained in the
            #  model repository on your local machine. Please set the option `trust_remote_code=True` ..."
            r"requires you to execute custom code contained in the model repository",
            # "references custom code contained in org/other which must be executed to correctly load the model"
            r"references custom code contained in \S+ which must be executed",
        ),
        0.93,
    ),
    # --- the Trainer ---
    Rule(
        "hf-trainer-no-loss",
        "trainer-model-returned-no-loss",
        # trainer.compute_loss: "ValueError: The model did not return a loss from the inputs, only the following keys:
        #  logits. For reference, the inputs it received are input_ids,attention_mask."
        (r"The model did not return a loss from the inputs, only the following keys",),
        0.93,
    ),
    Rule(
        "hf-trainer-no-columns",
        "trainer-no-matching-columns",
        (
            # 4.42+: "ValueError: No columns in the dataset match the model's forward method signature: (input_ids, ...).
            #  The following columns have been ignored: [prompt, completion]. Please check the dataset and model. ..."
            r"No columns in the dataset match the model's forward method signature",
            # < 4.42: "ValueError: The batch received was empty, your model won't be able to train on it. Double-check that
            #  your training dataset contains keys expected by the model: input_ids,attention_mask,..."
            r"The batch received was empty, your model won't be able to train on it",
        ),
        0.93,
    ),
    Rule(
        "hf-removed-argument",
        "hf-trainer-unexpected-keyword",
        (
            # Python 3.10+: "TypeError: TrainingArguments.__init__() got an unexpected keyword argument 'evaluation_strategy'"
            #  "TypeError: Trainer.__init__() got an unexpected keyword argument 'tokenizer'" (transformers 5)
            #  "TypeError: SFTTrainer.__init__() got an unexpected keyword argument 'tokenizer'" (TRL >= 0.16)
            r"\b(?:Seq2Seq)?(?:TrainingArguments|Trainer)\.__init__\(\) got an unexpected keyword argument",
            r"\b(?:SFT|DPO|GRPO|PPO|KTO|ORPO|CPO|Reward|RLOO|OnlineDPO|GKD|BCO|IterativeSFT|XPO|NashMD)(?:Trainer|Config)\.__init__\(\) got an unexpected keyword argument",
        ),
        0.9,
    ),
    Rule(
        "hf-removed-argument-unqualified",
        "hf-trainer-unexpected-keyword",
        # Python <= 3.9 prints no class: "TypeError: __init__() got an unexpected keyword argument 'evaluation_strategy'";
        # the argument names are the ones the releases removed
        (r"^TypeError: __init__\(\) got an unexpected keyword argument '(?:evaluation_strategy|tokenizer|dataset_text_field|max_seq_length|packing|use_auth_token|no_cuda|dataset_kwargs|neftune_noise_alpha)'",),
        0.7,
        boosts=(Boost(0.15, "the call is a Trainer or TrainingArguments constructor",
                      line=r"(?:TrainingArguments|Trainer|SFTConfig)\("),),
    ),
    Rule(
        "hf-best-model-strategy",
        "trainer-best-model-strategy-mismatch",
        (
            # "ValueError: --load_best_model_at_end requires the save and eval strategy to match, but found
            #  - Evaluation strategy: IntervalStrategy.NO  - Save strategy: SaveStrategy.STEPS"
            # 5.24: "... to match, except when --save_strategy="best", but found"
            r"--load_best_model_at_end requires the save and eval strategy to match",
            # "--load_best_model_at_end requires the saving steps to be a round multiple of the evaluation steps, but found
            #  500, which is not a round multiple of 200."
            r"--load_best_model_at_end requires the saving steps to be a (?:round )?multiple of the evaluation steps",
        ),
        0.95,
    ),
    # --- PEFT ---
    Rule(
        "peft-target-modules",
        "peft-target-modules-not-found",
        (
            # "ValueError: Target modules {'q_proj', 'v_proj'} not found in the base model. Please check the target modules
            #  and try again." (peft 0.10/0.13; 0.21: peft.utils.error.NoMatchingPeftModuleError: Target modules ...)
            r"Target modules .{0,400} not found in the base model",
            # peft with target_modules=None on a model type it has no default for: "ValueError: Please specify
            #  `target_modules` in `peft_config`"
            r"Please specify `target_modules` in `peft_config`",
            # peft 0.21: "NoMatchingPeftModuleError: No `target_modules` passed but also no `target_parameters` found."
            r"No `target_modules` passed but also no `target_parameters` found",
        ),
        0.95,
    ),
    Rule(
        "peft-target-module-unsupported",
        "peft-target-modules-not-found",
        # "ValueError: Target module Qwen2RMSNorm() is not supported. Currently, only the following modules are
        #  supported: `torch.nn.Linear`, `torch.nn.Embedding`, ..."
        (r"Target module .{0,200} is not supported\. Currently, only the following modules are supported",),
        0.85,
    ),
    # --- safetensors ---
    Rule(
        "safetensors-shared-tensors",
        "safetensors-shared-tensors",
        (
            # safetensors.torch: "RuntimeError: \n Some tensors share memory, this will lead to duplicate memory on disk and
            #  potential differences when loading them again: [{'transformer.wte.weight', 'lm_head.weight'}]."
            r"Some tensors share memory, this will lead to duplicate memory on disk",
            # transformers save_pretrained: "RuntimeError: The weights trying to be saved contained shared tensors
            #  [{'lm_head.weight', 'model.embed_tokens.weight'}] that are mismatching the transformers base configuration."
            #  (5.x: "... which are not properly defined. We found all the potential target tied weights keys to be: ...")
            r"The weights trying to be saved contained shared tensors",
        ),
        0.93,
    ),
    # --- datasets and fsspec ---
    Rule(
        "datasets-fsspec-skew",
        "datasets-fsspec-incompatible",
        (
            # datasets <= 2.14.4 with fsspec >= 2023.10: "NotImplementedError: Loading a dataset cached in a LocalFileSystem
            #  is not supported."
            r"Loading a dataset cached in a LocalFileSystem is not supported",
            # fsspec >= 2023.12 glob_translate on datasets' split patterns: "ValueError: Invalid pattern: '**' can only be
            #  an entire path component"
            r"Invalid pattern: '\*\*' can only be an entire path component",
        ),
        0.92,
    ),
    Rule(
        "datasets-scripts",
        "datasets-scripts-unsupported",
        (
            # datasets >= 4.0: "RuntimeError: Dataset scripts are no longer supported, but found squad_custom.py"
            r"Dataset scripts are no longer supported, but found \S+\.py",
        ),
        0.95,
    ),
    # --- bitsandbytes quantized models ---
    Rule(
        "bnb-offload-refused",
        "bnb-quantized-cpu-offload",
        (
            # "ValueError: Some modules are dispatched on the CPU or the disk. Make sure you have enough GPU RAM to fit the
            #  quantized model. If you want to dispatch the model on the CPU or the disk while keeping these modules in
            #  32-bit, you need to set `llm_int8_enable_fp32_cpu_offload=True` and pass a custom `device_map` ..."
            r"Some modules are dispatched on the CPU or the disk\. Make sure you have enough GPU RAM to fit",
            r"you need to set `(?:llm_int8_enable_fp32_cpu_offload|load_in_8bit_fp32_cpu_offload)=True` and pass a custom",
        ),
        0.93,
    ),
    Rule(
        "quantized-no-adapters",
        "quantized-model-finetune-without-adapters",
        (
            # "ValueError: You cannot perform fine-tuning on purely quantized models. Please attach trainable adapters on
            #  top of the quantized model to correctly perform fine-tuning. Please see: https://huggingface.co/docs/..."
            r"You cannot perform fine-tuning on purely quantized models",
            # "ValueError: You cannot fine-tune quantized model with `torch.compile()` make sure to pass a non-compiled model"
            r"You cannot fine-tune quantized model with `torch\.compile\(\)`",
        ),
        0.95,
    ),
)
