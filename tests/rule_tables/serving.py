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
