"""The Hugging Face stack at run time (kb-hf's second module): attention kernels (flash-attn), bitsandbytes
models after loading, and the files the tokenizers library reads.

Every pattern quotes the line it was written for; the texts were read from the released artifacts named in each
entry's ``affected.software`` (flash-attn 2.5.8 and 2.8.3 sources, transformers 4.36.2 to 5.24.0, tokenizers
0.15.2 to 0.23.3) or captured by running the failing program on CPU.
"""

from __future__ import annotations

from service.facts.rules.base import Boost, Rule

RULES: tuple[Rule, ...] = (
    # --- flash-attn ---
    Rule(
        "flash-attn-refused-at-load",
        "flash-attn-not-available",
        (
            # transformers 4.36-5.x: "ImportError: FlashAttention2 has been toggled on, but it cannot be used due to the
            #  following error: the package flash_attn seems to be not installed. Please refer to the documentation of
            #  https://huggingface.co/docs/transformers/perf_infer_gpu_one#flashattention-2 to install Flash Attention 2."
            # 5.24: "... the following error: the package for FlashAttention2 doesn't seem to be installed."
            # FlashAttention 3 (5.0): "FlashAttention3 has been toggled on, but it cannot be used due to the following error:
            #  the package flash_attn_3 seems to be not installed."
            r"FlashAttention[234] has been toggled on, but it cannot be used due to the following error",
        ),
        0.95,
    ),
    Rule(
        "flash-attn-kernel-refuses-gpu",
        "flash-attn-unsupported-gpu",
        (
            # flash_api.cpp (2.5.8, 2.8.3) TORCH_CHECK: "RuntimeError: FlashAttention only supports Ampere GPUs or newer."
            r"FlashAttention only supports Ampere GPUs or newer",
            # "RuntimeError: FlashAttention forward only supports head dimension at most 256" (and the backward twin)
            r"FlashAttention (?:forward|backward) only supports head dimension at most 256",
            # 2.5.8 mha_bwd: "RuntimeError: FlashAttention backward for head dim 256 with dropout, or head dim 224
            #  with/without dropout requires A100/A800 or H100/H800"
            r"FlashAttention backward for head dim \d+ with dropout, or head dim \d+ with/without dropout requires A100",
        ),
        0.93,
    ),
    Rule(
        "flash-attn-fp32-inputs",
        "flash-attn-fp32-inputs",
        # flash_api.cpp (2.5.8, 2.8.3) TORCH_CHECK: "RuntimeError: FlashAttention only support fp16 and bf16 data type"
        (r"FlashAttention only support fp16 and bf16 data type",),
        0.93,
    ),
    # --- bitsandbytes models after from_pretrained ---
    Rule(
        "bnb-model-moved-or-cast",
        "bnb-quantized-model-move",
        (
            # 4.45+: "ValueError: You cannot cast a bitsandbytes model in a new `dtype`. Make sure to load the model using
            #  `from_pretrained` using the desired `dtype` by passing the correct `dtype` argument."
            r"You cannot cast a bitsandbytes model in a new `dtype`",
            # 4.36-4.44: "ValueError: `.to` is not supported for `4-bit` or `8-bit` bitsandbytes models. Please use the
            #  model as it is, since the model has already been set to the correct devices and casted to the correct `dtype`."
            # 4.45-4.57: "ValueError: `.to` is not supported for `8-bit` bitsandbytes models. ..."
            r"`\.to` is not supported for `(?:4-bit` or `)?8-bit` bitsandbytes models",
            # "ValueError: Calling `cuda()` is not supported for `4-bit` or `8-bit` quantized models. Please use the model
            #  as it is, ..." (4.36-4.44); "Calling `cuda()` is not supported for `8-bit` quantized models." (4.45+)
            r"Calling `cuda\(\)` is not supported for `(?:4-bit` or `)?8-bit` quantized models",
            # 4.45-4.57 with bitsandbytes < 0.43.2: "ValueError: Calling `to()` is not supported for `4-bit` quantized
            #  models with the installed version of bitsandbytes. The current device is `cuda:0`. ..."
            r"Calling `(?:to|cuda)\(\)` is not supported for `4-bit` quantized models with the installed version of bitsandbytes",
            # 5.x with bitsandbytes < 0.48: "ValueError: You need to install `pip install bitsandbytes>=0.48.0` if you want
            #  to move a 8-bit model across devices using to()."
            r"if you want to move a 8-bit model across devices using to\(\)",
        ),
        0.93,
    ),
    Rule(
        "quantized-model-half-float",
        "bnb-quantized-model-move",
        # PreTrainedModel.half/.float on any quantized model (4.36-5.24): "ValueError: `.half()` is not supported for
        #  quantized model. Please use the model as it is, since the model has already been casted to the correct `dtype`."
        (r"`\.(?:half|float)\(\)` is not supported for quantized model",),
        0.85,
    ),
    # --- accelerate ---
    Rule(
        "accelerate-device-map-ddp",
        "accelerate-device-map-distributed",
        (
            # Accelerator.prepare_model (0.34.2, 1.15.0): "ValueError: You can't train a model that has been loaded with
            #  `device_map='auto'` in any distributed mode. Please rerun your script specifying `--num_processes=1` or by
            #  launching with `python {{myscript.py}}`."
            r"You can't train a model that has been loaded with `device_map='auto'` in any distributed mode",
            # 1.15.0: "ValueError: You can't train a model that has been loaded in 8-bit or 4-bit precision on a different
            #  device than the one you're training on. Make sure you loaded the model on the correct device using for
            #  example `device_map={'':torch.cuda.current_device()}` ..." (0.34.2: "in 8-bit precision on a different ...")
            r"You can't train a model that has been loaded in 8-bit (?:or 4-bit )?precision on a different device than the one",
            # "ValueError: You can't train a model that has been loaded in 8-bit or 4-bit precision on multiple devices in
            #  any distributed mode. In order to use 8-bit or 4-bit models that have been loaded across multiple GPUs ..."
            r"You can't train a model that has been loaded in 8-bit (?:or 4-bit )?precision on multiple devices in any distributed mode",
        ),
        0.93,
    ),
    Rule(
        "transformers-needs-accelerate",
        "transformers-accelerate-missing",
        (
            # TrainingArguments._setup_devices (4.44-5.24): "ImportError: Using the `Trainer` with `PyTorch` requires
            #  `accelerate>=0.26.0`: Please run `pip install transformers[torch]` or `pip install 'accelerate>=0.26.0'`"
            #  (4.36: "... requires `accelerate>=0.20.1`: Please run `pip install transformers[torch]` or `pip install accelerate -U`")
            r"Using the `Trainer` with `PyTorch` requires `accelerate>=[\d.]+`",
            # from_pretrained 4.36-4.44: "ImportError: Using `low_cpu_mem_usage=True` or a `device_map` requires Accelerate:
            #  `pip install accelerate`"
            r"Using `low_cpu_mem_usage=True` or a `device_map` requires Accelerate",
            # 4.57: "ValueError: Using a `device_map`, `tp_plan`, `torch.device` context manager or setting
            #  `torch.set_default_device(device)` requires `accelerate`. You can install it with `pip install accelerate`"
            r"requires `accelerate`\. You can install it with `pip install accelerate`",
            # quantizer_bnb_4bit/8bit.validate_environment (4.57): "ImportError: Using `bitsandbytes` 4-bit quantization
            #  requires Accelerate: `pip install 'accelerate>=0.26.0'`"; 4.36: "Using `load_in_8bit=True` requires
            #  Accelerate: `pip install accelerate` and the latest version of bitsandbytes ..."
            r"Using `bitsandbytes` [48]-bit quantization requires Accelerate: `pip install",
            r"Using `load_in_8bit=True` requires Accelerate: `pip install accelerate`",
        ),
        0.92,
    ),
    # --- safetensors ---
    Rule(
        "safetensors-non-contiguous",
        "safetensors-non-contiguous-tensor",
        # safetensors.torch save_file (0.5.3 _tobytes, 0.8.0 _flatten_as_ptr; captured with 0.8.0): "ValueError: You are
        #  trying to save a non contiguous tensor: `encoder.proj.weight` which is not allowed. It either means you are ..."
        (r"You are trying to save a non contiguous tensor: `[^`]*` which is not allowed",),
        0.94,
    ),
    # --- PEFT adapters ---
    Rule(
        "peft-config-unknown-field",
        "peft-adapter-config-newer",
        # peft <= 0.13.2 from_peft_type `config_cls(**kwargs)` on an adapter_config.json saved by 0.21.2 (captured):
        #  "TypeError: LoraConfig.__init__() got an unexpected keyword argument 'alora_invocation_tokens'"
        (r"\b(?:Lora|LoHa|LoKr|AdaLora|IA3|OFT|BOFT|Vera|VBLoRA|FourierFT|HRA|LNTuning|Poly|PromptTuning|MultitaskPromptTuning|PrefixTuning|PromptEncoder|AdaptionPrompt|XLora)Config\.__init__\(\) got an unexpected keyword argument",),
        0.85,
        boosts=(Boost(0.1, "the config is rebuilt from adapter_config.json by peft", line=r"peft/config\.py.*in from_peft_type"),),
    ),
    # --- tokenizers ---
    Rule(
        "tokenizers-json-model-unreadable",
        "tokenizers-json-too-new",
        (
            # tokenizers <= 0.19 reading a BPE tokenizer.json saved by >= 0.20 (merges as pairs):
            #  "Exception: data did not match any variant of untagged enum ModelWrapper at line 336 column 3"
            #  (captured: saved with tokenizers 0.20.0, loaded with 0.19.1); 0.20+ names its ModelHelper
            r"data did not match any variant of untagged enum Model(?:Wrapper|Helper)\b",
        ),
        0.92,
    ),
    Rule(
        "tokenizers-json-part-unreadable",
        "tokenizers-json-too-new",
        (
            # the same serde message for another part of tokenizer.json (0.15.2-0.23.3 binaries):
            #  "Exception: data did not match any variant of untagged enum PreTokenizerWrapper at line 61 column 3"
            r"data did not match any variant of untagged enum (?:PreTokenizer|Normalizer|Decoder)(?:Wrapper|Helper)\b",
        ),
        0.8,
    ),
)
