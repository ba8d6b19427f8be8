"""Rule table rows for service/facts/rules/hf.py (the Hugging Face stack), joined into tests/test_rules.py.

FIRES: (rule id, a line or lines of a real log that must fire it). NEAR_MISSES: (rule id, lines it must not fire
on: a look-alike of another entry, or the same words in a harmless line).
"""

FIRES = [
    ("hf-missing-pad-token", "ValueError: Asking to pad but the tokenizer does not have a padding token. Please select a token to use as `pad_token` `(tokenizer.pad_token = tokenizer.eos_token e.g.)` or add a new pad token via `tokenizer.add_special_tokens({'pad_token': '[PAD]'})`."),
    ("hf-missing-pad-token", "[rank1]: ValueError: You are attempting to pad samples but the tokenizer you are using (GPT2TokenizerFast) does not have a pad token."),
    ("hf-classifier-no-pad-token", "ValueError: Cannot handle batch sizes > 1 if no padding token is defined."),
    ("hf-chat-template-missing", "ValueError: Cannot use chat template functions because tokenizer.chat_template is not set and no template argument was passed! For information about writing templates and setting the tokenizer.chat_template attribute, please see the documentation at https://huggingface.co/docs/transformers/main/en/chat_templating"),
    ("hf-chat-template-missing", "ValueError: Cannot use apply_chat_template() because tokenizer.chat_template is not set and no template argument was passed!"),
    ("hf-chat-template-missing", "(APIServer pid=311) ERROR 11-02 10:01:02 [serving_chat.py:212] vllm.renderers.hf.ChatTemplateResolutionError: As of transformers v4.44, default chat template is no longer allowed, so you must provide a chat template if the tokenizer does not define one."),
    ("hf-unrecognized-architecture", "ValueError: The checkpoint you are trying to load has model type `gemma3` but Transformers does not recognize this architecture. This could be because of an issue with the checkpoint, or because your version of Transformers is out of date."),
    ("hf-unrecognized-architecture", "ValueError: Tokenizer class Qwen2Tokenizer does not exist or is not currently imported."),
    ("hf-unknown-model-type-keyerror", ('  File "/opt/conda/lib/python3.10/site-packages/transformers/models/auto/configuration_auto.py", line 795, in __getitem__',
                                        "    raise KeyError(key)", "KeyError: 'qwen2'")),
    ("hf-trust-remote-code", "ValueError: The repository for internlm/internlm2-chat-7b contains custom code which must be executed to correctly load the model. You can inspect the repository content at https://hf.co/internlm/internlm2-chat-7b."),
    ("hf-trust-remote-code", "ValueError: Loading THUDM/chatglm3-6b requires you to execute the configuration file in that repo on your local machine. Make sure you have read the code there to avoid malicious use, then set the option `trust_remote_code=True` to remove this error."),
    ("hf-trust-remote-code", "ValueError: Loading this model requires you to execute custom code contained in the model repository on your local machine. Please set the option `trust_remote_code=True` to permit loading of this model."),
    ("hf-trainer-no-loss", "ValueError: The model did not return a loss from the inputs, only the following keys: logits. For reference, the inputs it received are input_ids,attention_mask."),
    ("hf-trainer-no-columns", "ValueError: No columns in the dataset match the model's forward method signature: (input_ids, attention_mask, labels). The following columns have been ignored: [prompt, completion]. Please check the dataset and model."),
    ("hf-trainer-no-columns", "ValueError: The batch received was empty, your model won't be able to train on it. Double-check that your training dataset contains keys expected by the model: input_ids,attention_mask,labels,label,label_ids."),
    ("hf-removed-argument", "TypeError: TrainingArguments.__init__() got an unexpected keyword argument 'evaluation_strategy'"),
    ("hf-removed-argument", "TypeError: Trainer.__init__() got an unexpected keyword argument 'tokenizer'"),
    ("hf-removed-argument", "[rank0]: TypeError: SFTTrainer.__init__() got an unexpected keyword argument 'tokenizer'"),
    ("hf-removed-argument", "TypeError: SFTConfig.__init__() got an unexpected keyword argument 'max_seq_length'"),
    ("hf-removed-argument-unqualified", "TypeError: __init__() got an unexpected keyword argument 'evaluation_strategy'"),
    ("hf-best-model-strategy", "ValueError: --load_best_model_at_end requires the save and eval strategy to match, but found"),
    ("hf-best-model-strategy", 'ValueError: --load_best_model_at_end requires the save and eval strategy to match, except when --save_strategy="best", but found'),
    ("hf-best-model-strategy", "ValueError: --load_best_model_at_end requires the saving steps to be a round multiple of the evaluation steps, but found 500, which is not a round multiple of 200."),
    ("peft-target-modules", "peft.utils.error.NoMatchingPeftModuleError: Target modules {'q_proj', 'o_proj', 'v_proj', 'k_proj'} not found in the base model. Please check the target modules and try again."),
    ("peft-target-modules", "ValueError: Target modules ['query_key_value'] not found in the base model. Please check the target modules and try again."),
    ("peft-target-modules", "ValueError: Please specify `target_modules` in `peft_config`"),
    ("peft-target-module-unsupported", "ValueError: Target module Qwen2RMSNorm((896,), eps=1e-06) is not supported. Currently, only the following modules are supported: `torch.nn.Linear`, `torch.nn.Embedding`, `torch.nn.Conv1d`, `torch.nn.Conv2d`, `torch.nn.Conv3d`, `transformers.pytorch_utils.Conv1D`, `torch.nn.MultiheadAttention.`."),
    ("safetensors-shared-tensors", "            Some tensors share memory, this will lead to duplicate memory on disk and potential differences when loading them again: [{'transformer.wte.weight', 'lm_head.weight'}]."),
    ("safetensors-shared-tensors", "RuntimeError: The weights trying to be saved contained shared tensors [{'lm_head.weight', 'model.embed_tokens.weight'}] that are mismatching the transformers base configuration. Try saving using `safe_serialization=False` or remove this tensor sharing."),
]

NEAR_MISSES = [
    # generation's harmless warning names the pad token but is not a failure
    ("hf-missing-pad-token", "Setting `pad_token_id` to `eos_token_id`:2 for open-end generation."),
    # a KeyError of a batch field is user code, not the config registry
    ("hf-unknown-model-type-keyerror", ('  File "/work/train.py", line 88, in training_step', "KeyError: 'labels'")),
    # the model's forward refusing a batch field is user code (evals/unknown: user-forward-unexpected-kwarg)
    ("hf-removed-argument", "TypeError: LlamaForCausalLM.forward() got an unexpected keyword argument 'label'"),
    ("hf-removed-argument-unqualified", "TypeError: forward() got an unexpected keyword argument 'tokenizer'"),
    # the deprecation warning alone: the run goes on
    ("hf-removed-argument", "FutureWarning: `evaluation_strategy` is deprecated and will be removed in version 4.46 of 🤗 Transformers. Use `eval_strategy` instead"),
    # peft's success line
    ("peft-target-modules", "trainable params: 4,194,304 || all params: 6,742,609,920 || trainable%: 0.0622"),
    # the Trainer's INFO line about dropped columns is not an error
    ("hf-trainer-no-columns", "The following columns in the Training set don't have a corresponding argument in `LlamaForCausalLM.forward` and have been ignored: text."),
]

FIRES += [
    ("datasets-fsspec-skew", "NotImplementedError: Loading a dataset cached in a LocalFileSystem is not supported."),
    ("datasets-fsspec-skew", "ValueError: Invalid pattern: '**' can only be an entire path component"),
    ("datasets-scripts", "RuntimeError: Dataset scripts are no longer supported, but found squad_custom.py"),
    ("bnb-offload-refused", "ValueError: Some modules are dispatched on the CPU or the disk. Make sure you have enough GPU RAM to fit the quantized model. If you want to dispatch the model on the CPU or the disk while keeping these modules in 32-bit, you need to set `llm_int8_enable_fp32_cpu_offload=True` and pass a custom `device_map` to `from_pretrained`."),
    ("bnb-offload-refused", "                        these modules in 32-bit, you need to set `load_in_8bit_fp32_cpu_offload=True` and pass a custom"),
    ("quantized-no-adapters", "ValueError: You cannot perform fine-tuning on purely quantized models. Please attach trainable adapters on top of the quantized model to correctly perform fine-tuning. Please see: https://huggingface.co/docs/transformers/peft for more details"),
]

NEAR_MISSES += [
    # datasets 4's error log about trust_remote_code is not the failure itself
    ("datasets-scripts", "ERROR:datasets.load:`trust_remote_code` is not supported anymore."),
    # the offload advice of accelerate's big-model docs, not a refusal
    ("bnb-offload-refused", "Some weights of the model checkpoint were offloaded to the disk; loading them from offload_folder."),
]
