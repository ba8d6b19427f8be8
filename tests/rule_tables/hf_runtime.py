"""Rule table rows for service/facts/rules/hf_runtime.py (flash-attn, bitsandbytes models after loading, tokenizers
files), joined into tests/test_rules.py.

FIRES: (rule id, a line or lines of a real log that must fire it). NEAR_MISSES: (rule id, lines it must not fire
on: a look-alike of another entry, or the same words in a harmless line).
"""

FIRES = [
    ("flash-attn-refused-at-load", "ImportError: FlashAttention2 has been toggled on, but it cannot be used due to the following error: the package flash_attn seems to be not installed. Please refer to the documentation of https://huggingface.co/docs/transformers/perf_infer_gpu_one#flashattention-2 to install Flash Attention 2."),
    ("flash-attn-refused-at-load", "[rank3]: ImportError: FlashAttention2 has been toggled on, but it cannot be used due to the following error: the package for FlashAttention2 doesn't seem to be installed."),
    ("flash-attn-refused-at-load", "ValueError: FlashAttention2 has been toggled on, but it cannot be used due to the following error: Flash Attention 2 is not available on CPU. Please make sure torch can access a CUDA device."),
    ("flash-attn-refused-at-load", "ImportError: FlashAttention3 has been toggled on, but it cannot be used due to the following error: the package flash_attn_3 seems to be not installed."),
    ("flash-attn-kernel-refuses-gpu", "RuntimeError: FlashAttention only supports Ampere GPUs or newer."),
    ("flash-attn-kernel-refuses-gpu", "[rank1]: RuntimeError: FlashAttention forward only supports head dimension at most 256"),
    ("flash-attn-kernel-refuses-gpu", "RuntimeError: FlashAttention backward for head dim 256 with dropout, or head dim 224 with/without dropout requires A100/A800 or H100/H800"),
    ("bnb-model-moved-or-cast", "ValueError: `.to` is not supported for `4-bit` or `8-bit` bitsandbytes models. Please use the model as it is, since the model has already been set to the correct devices and casted to the correct `dtype`."),
    ("bnb-model-moved-or-cast", "ValueError: `.to` is not supported for `8-bit` bitsandbytes models. Please use the model as it is, since the model has already been set to the correct devices and casted to the correct `dtype`."),
    ("bnb-model-moved-or-cast", "ValueError: Calling `cuda()` is not supported for `4-bit` or `8-bit` quantized models. Please use the model as it is, since the model has already been set to the correct devices and casted to the correct `dtype`."),
    ("bnb-model-moved-or-cast", "ValueError: You cannot cast a bitsandbytes model in a new `dtype`. Make sure to load the model using `from_pretrained` using the desired `dtype` by passing the correct `dtype` argument."),
    ("bnb-model-moved-or-cast", "ValueError: Calling `to()` is not supported for `4-bit` quantized models with the installed version of bitsandbytes. The current device is `cuda:0`. If you intended to move the model, please install bitsandbytes >= 0.43.2."),
    ("bnb-model-moved-or-cast", "ValueError: You need to install `pip install bitsandbytes>=0.48.0` if you want to move a 8-bit model across devices using to()."),
    ("quantized-model-half-float", "ValueError: `.half()` is not supported for quantized model. Please use the model as it is, since the model has already been casted to the correct `dtype`."),
    ("tokenizers-json-model-unreadable", "Exception: data did not match any variant of untagged enum ModelWrapper at line 336 column 3"),
    ("tokenizers-json-model-unreadable", "[rank0]: Exception: data did not match any variant of untagged enum ModelWrapper at line 1251003 column 3"),
    ("tokenizers-json-part-unreadable", "Exception: data did not match any variant of untagged enum PreTokenizerWrapper at line 61 column 3"),
    ("flash-attn-fp32-inputs", "RuntimeError: FlashAttention only support fp16 and bf16 data type"),
    ("flash-attn-fp32-inputs", "[rank5]: RuntimeError: FlashAttention only support fp16 and bf16 data type"),
    ("accelerate-device-map-ddp", "ValueError: You can't train a model that has been loaded with `device_map='auto'` in any distributed mode. Please rerun your script specifying `--num_processes=1` or by launching with `python {{myscript.py}}`."),
    ("accelerate-device-map-ddp", "[rank1]: ValueError: You can't train a model that has been loaded in 8-bit or 4-bit precision on a different device than the one you're training on. Make sure you loaded the model on the correct device using for example `device_map={'':torch.cuda.current_device()}` or `device_map={'':torch.xpu.current_device()}`"),
    ("accelerate-device-map-ddp", "ValueError: You can't train a model that has been loaded in 8-bit precision on a different device than the one you're training on. Make sure you loaded the model on the correct device using for example `device_map={'':torch.cuda.current_device()}` or `device_map={'':torch.xpu.current_device()}`"),
    ("accelerate-device-map-ddp", "ValueError: You can't train a model that has been loaded in 8-bit or 4-bit precision on multiple devices in any distributed mode. In order to use 8-bit or 4-bit models that have been loaded across multiple GPUs the solution is to use Naive Pipeline Parallelism."),
    ("transformers-needs-accelerate", "ImportError: Using the `Trainer` with `PyTorch` requires `accelerate>=0.26.0`: Please run `pip install transformers[torch]` or `pip install 'accelerate>=0.26.0'`"),
    ("transformers-needs-accelerate", "ImportError: Using the `Trainer` with `PyTorch` requires `accelerate>=0.20.1`: Please run `pip install transformers[torch]` or `pip install accelerate -U`"),
    ("transformers-needs-accelerate", "ImportError: Using `low_cpu_mem_usage=True` or a `device_map` requires Accelerate: `pip install accelerate`"),
    ("transformers-needs-accelerate", "ValueError: Using a `device_map`, `tp_plan`, `torch.device` context manager or setting `torch.set_default_device(device)` requires `accelerate`. You can install it with `pip install accelerate`"),
    ("transformers-needs-accelerate", "ImportError: Using `bitsandbytes` 4-bit quantization requires Accelerate: `pip install 'accelerate>=0.26.0'`"),
    ("transformers-needs-accelerate", "ImportError: Using `load_in_8bit=True` requires Accelerate: `pip install accelerate` and the latest version of bitsandbytes `pip install -i https://test.pypi.org/simple/ bitsandbytes` or `pip install bitsandbytes`."),
    ("peft-config-unknown-field", "TypeError: LoraConfig.__init__() got an unexpected keyword argument 'alora_invocation_tokens'"),
    ("peft-config-unknown-field", "[rank2]: TypeError: LoraConfig.__init__() got an unexpected keyword argument 'trainable_token_indices'"),
    ("safetensors-non-contiguous", "ValueError: You are trying to save a non contiguous tensor: `encoder.proj.weight` which is not allowed. It either means you are trying to save tensors which are reference of each other in which case it's recommended to save only the full tensors, and reslice at load time, or simply call `.contiguous()` on your tensor to pack it before saving."),
    ("safetensors-non-contiguous", "[rank0]: ValueError: You are trying to save a non contiguous tensor: `model.layers.0.self_attn.q_proj.weight` which is not allowed."),
]

NEAR_MISSES = [
    # transformers' warning about the dtype of a flash-attention model is not the failure
    ("flash-attn-refused-at-load", "Flash Attention 2 only supports torch.float16 and torch.bfloat16 dtypes, but the current dype in LlamaForCausalLM is torch.float32."),
    # the kernel's dtype check is another failure than the GPU check
    ("flash-attn-kernel-refuses-gpu", "RuntimeError: FlashAttention only support fp16 and bf16 data type"),
    # torch's own SDPA refusing (sdpa-no-available-kernel)
    ("flash-attn-kernel-refuses-gpu", "UserWarning: Flash attention only supports gpu architectures in the range [sm80, sm90]. Attempting to run on a sm 7.5 gpu."),
    # a GPTQ model cast is not a bitsandbytes model
    ("bnb-model-moved-or-cast", "ValueError: You cannot cast a GPTQ model in a new `dtype`. Make sure to load the model using `from_pretrained` using the desired `dtype` by passing the correct `dtype` argument."),
    # a tokenizer.json that is not JSON at all (an LFS pointer): serde's other message, checkpoint-corrupt's territory
    ("tokenizers-json-model-unreadable", "Exception: expected value at line 1 column 1"),
    # accelerate's CPU/disk offload refusal for quantized training is bnb-quantized-cpu-offload's side, not the DDP placement
    ("accelerate-device-map-ddp", "ValueError: You can't train a model that has been loaded in 8-bit or 4-bit precision with CPU or disk offload."),
    # the environment banner and the no-module error of another package are not transformers asking for accelerate
    ("transformers-needs-accelerate", "ModuleNotFoundError: No module named 'transformers'"),
    ("transformers-needs-accelerate", "accelerate                1.10.1"),
    # transformers' load-time warning about a float32 flash-attention model is not the kernel's refusal
    ("flash-attn-fp32-inputs", "You are attempting to use Flash Attention 2 without specifying a torch dtype. This might lead to unexpected behaviour"),
    # PEFT 0.21's warning when it drops unknown keys: the load goes on
    ("peft-config-unknown-field", "UserWarning: Unexpected keyword arguments ['future_option'] for class LoraConfig, these are ignored."),
    # TRL's SFTConfig refusing a removed argument is hf-trainer-unexpected-keyword
    ("peft-config-unknown-field", "TypeError: SFTConfig.__init__() got an unexpected keyword argument 'max_seq_length'"),
    # the shared-tensor refusal is safetensors-shared-tensors
    ("safetensors-non-contiguous", "RuntimeError: Some tensors share memory, this will lead to duplicate memory on disk and potential differences when loading them again: [{'lm_head.weight', 'transformer.wte.weight'}]."),
]
