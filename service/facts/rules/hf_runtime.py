"""The Hugging Face stack at run time (kb-hf's second module): attention kernels (flash-attn), bitsandbytes
models after loading, and the files the tokenizers library reads.

Every pattern quotes the line it was written for; the texts were read from the released artifacts named in each
entry's ``affected.software`` (flash-attn 2.5.8 and 2.8.3 sources, transformers 4.36.2 to 5.24.0, tokenizers
0.15.2 to 0.23.3) or captured by running the failing program on CPU.
"""

from __future__ import annotations

from service.facts.rules.base import Rule

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
