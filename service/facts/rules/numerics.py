"""Numerics: NaN losses, fp16 loss-scale collapse, bf16 and FP8 on GPUs without them, FP8 shapes, dtypes."""

from __future__ import annotations

from service.facts.rules.base import Boost, Rule

LOSS_SCALE_FLOOR = r"Current loss scale already at minimum|Minimum loss scale reached"

RULES: tuple[Rule, ...] = (
    Rule(
        "loss-scale-floor",
        "fp16-loss-scale-underflow",
        (
            # DeepSpeed: "Exception: Current loss scale already at minimum - cannot decrease scale anymore. Exiting run."
            r"Current loss scale already at minimum - cannot decrease scale anymore",
            # Megatron / apex: "Minimum loss scale reached"; "Your loss is probably exploding. Try lowering the learning rate,
            #  using gradient clipping or increasing the batch size."
            r"Minimum loss scale reached|Your loss is probably exploding",
        ),
        0.95,
    ),
    Rule(
        "loss-scale-overflow",
        "fp16-loss-scale-underflow",
        (
            # DeepSpeed: "[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 65536, reducing to 32768"
            r"OVERFLOW! Rank \d+ Skipping step",
            # DeepSpeed: "Grad overflow on iteration 1234"; "Reducing dynamic loss scale from 2.0 to 1.0"; "Reducing hysteresis to 1"
            r"Grad overflow on iteration \d+|Reducing dynamic loss scale from",
            # apex: "Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to 0.5";
            # fairseq / older apex: "NOTE: gradient overflow detected, ignoring gradient, setting loss scale to: 0.5"
            r"Gradient overflow\.\s+Skipping step|gradient overflow detected, ignoring gradient",
        ),
        0.5,
        boosts=(
            # the scale already collapsed to 1 or below: "reducing to 1", "loss scale to 0.25", "setting loss scale to: 6.1e-05"
            Boost(0.3, "the loss scale fell to 1 or below", line=r"(?:reducing (?:loss scale )?to|loss scale to:?|to) (?:1(?:\.0)?|0\.\d+|\d(?:\.\d+)?e-\d+)\b(?:$|[^.]|\.(?:$|\D))"),
            Boost(0.05, "fp16 (not bf16) training", fact="precision", value="^fp16$"),
        ),
    ),
    Rule(
        "loss-nan",
        "loss-nan",
        (
            # HF Trainer: "{'loss': nan, 'grad_norm': nan, 'learning_rate': 1.9e-05, 'epoch': 0.42}"
            r"'loss': nan\b",
            # progress lines: "step 1200 | loss: nan", "loss=nan", "train/loss nan"
            r"(?i:(?:^|[^a-z])loss\b['\"]?\s*[:=]?\s*nan\b)",
            # "RuntimeError: Loss is nan, stopping training" (timm and friends); Lightning "... loss is NaN"
            r"(?i:loss (?:is|became|was) nan)",
            # anomaly mode: "RuntimeError: Function 'LogSoftmaxBackward0' returned nan values in its 0th output."
            r"returned nan values in its \d+th output",
            # "RuntimeError: The total norm of order 2.0 for gradients from `parameters` is non-finite, so it cannot be clipped."
            r"is non-finite, so it cannot be clipped",
        ),
        0.8,
        boosts=(Boost(-0.35, "the fp16 loss scale collapsed first", line=LOSS_SCALE_FLOOR),),
    ),
    Rule(
        "nan-downstream",
        "loss-nan",
        (
            # sampling from NaN logits: "RuntimeError: probability tensor contains either `inf`, `nan` or element < 0"
            r"probability tensor contains either `inf`, `nan` or element < 0",
            # "'grad_norm': nan" in HF logs; scikit-learn metrics: "ValueError: Input contains NaN"
            r"'grad_norm': nan\b|Input contains NaN",
        ),
        0.6,
        boosts=(Boost(-0.3, "the fp16 loss scale collapsed first", line=LOSS_SCALE_FLOOR),),
    ),
    Rule(
        "bf16-unsupported",
        "bf16-unsupported",
        (
            # transformers: "ValueError: Your setup doesn't support bf16/gpu. You need torch>=1.10, using Ampere GPU with cuda>=11.0"
            r"Your setup doesn't support bf16/gpu",
            # "RuntimeError: Current CUDA Device does not support bfloat16. Please switch dtype to float16."
            r"Current CUDA Device does not support bfloat16",
            # accelerate: "ValueError: bf16 mixed precision requires PyTorch >= 1.10 and a supported device."
            r"bf16 mixed precision requires PyTorch >= 1\.10 and a supported device",
            # vLLM: "ValueError: Bfloat16 is only supported on GPUs with compute capability of at least 8.0. Your Tesla T4 GPU
            #  has compute capability 7.5. You can use float16 instead by explicitly setting the`dtype` flag in CLI"
            r"Bfloat16 is only supported on GPUs with compute capability of at least 8\.0",
            # Triton on pre-Ampere: "type bf16 not supported in this architecture"
            r"\bbf16 not supported in this architecture",
        ),
        0.92,
    ),
    Rule(
        "bf16-cublas-pre-ampere",
        "bf16-unsupported",
        # "CUBLAS_STATUS_NOT_SUPPORTED when calling `cublasGemmEx( ..., CUDA_R_16BF, ...)`" on a V100 or a T4
        (r"CUBLAS_STATUS_(?:NOT_SUPPORTED|ARCH_MISMATCH)",),
        0.3,
        needs=(r"(?i)bf16|bfloat16|CUDA_R_16BF",),
        boosts=(Boost(0.45, "the GPU is older than Ampere (compute capability below 8.0)", fact="compute_capability", value=r"^[1-7]\."),),
    ),
    Rule(
        "fp8-unsupported",
        "fp8-unsupported-gpu",
        (
            # Transformer Engine: "AssertionError: Device compute capability 8.9 or higher required for FP8 execution."
            r"Device compute capability 8\.9 or higher required for FP8 execution",
            # TE: "... required for FP8 execution on Ada"; "assert fp8_available, reason_for_no_fp8"
            r"required for FP8 execution on Ada|assert fp8_available, reason_for_no_fp8",
            # torch / torchao: "RuntimeError: torch._scaled_mm is only supported on CUDA devices with compute capability >= 9.0 or 8.9, or ROCm MI300+"
            r"_scaled_mm is only supported on",
            # Triton: "type fp8e4nv not supported in this architecture. The supported fp8 dtypes are ('fp8e4b15', 'fp8e5')"
            r"type fp8e4nv not supported in this architecture|The supported fp8 dtypes are \('fp8e4b15', 'fp8e5'\)",
            # vLLM: "ValueError: The quantization method fp8 is not supported for the current GPU. Minimum capability: 89. Current capability: 80."
            r"The quantization method fp8 is not supported for the current GPU",
        ),
        0.92,
        boosts=(Boost(0.03, "the GPU's compute capability is below 8.9", fact="compute_capability", value=r"^(?:[1-7]\.\d|8\.[0-8])$"),),
    ),
    Rule(
        "fp8-alignment",
        "fp8-gemm-shape-alignment",
        (
            # Transformer Engine: "AssertionError: FP8 execution requires 2D input matrices with height divisible by 8 and width
            #  divisible by 16, but got tensor with dims=[4081, 4096]"; "in assert_dim_for_fp8_exec"
            r"FP8 execution requires 2D input matrices with height divisible by 8 and width divisible by 16",
            r"assert_dim_for_fp8_exec",
            # torch._scaled_mm: "RuntimeError: Expected trailing dimension of mat1 to be divisible by 16 but got mat1 shape: (4081x768)."
            r"Expected trailing dimension of mat1 to be divisible by 16",
            # "Expected both dimensions of mat2 to be divisible by 16"; "Expected self.size(1) to be divisible by 16"
            r"Expected both dimensions of mat2 to be divisible by 16|Expected self\.size\(1\) to be divisible by 16",
        ),
        0.92,
    ),
    Rule(
        "fp8-alignment-generic",
        "fp8-gemm-shape-alignment",
        # "RuntimeError: mat2 must be col_major"; "... must be divisible by 16" (the scaled-mm layout and size checks)
        (r"mat2 must be col_major|must be divisible by 16",),
        0.45,
        boosts=(Boost(0.35, "FP8 is enabled", fact="precision", value="^fp8$"),),
    ),
    Rule(
        "dtype-mismatch",
        "dtype-mismatch",
        (
            # "RuntimeError: expected scalar type Half but found Float"; "expected scalar type Long but found Int"
            r"expected scalar type \w+ but found \w+",
            # "RuntimeError: expected mat1 and mat2 to have the same dtype, but got: c10::BFloat16 != float"; older "expected m1 and m2"
            r"expected (?:mat1 and mat2|m1 and m2) to have the same dtype",
            # "RuntimeError: mat1 and mat2 must have the same dtype"; "self and mat2 must have the same dtype, but got Half and Float"
            r"(?:mat1|self) and mat2 must have the same dtype",
            # conv with the same device but different dtypes: "Input type (torch.cuda.HalfTensor) and weight type (torch.cuda.FloatTensor)
            #  should be the same"; "Input type (c10::Half) and bias type (float) should be the same"
            # (\w+ holds no dot: "torch\.\w+" on both sides is CPU and CPU)
            r"Input type \(torch\.cuda\.\w+\) and weight type \(torch\.cuda\.\w+\) should be the same"
            r"|Input type \(torch\.\w+\) and weight type \(torch\.\w+\) should be the same",
            r"Input type \([\w:]+\) and bias type \([\w:]+\) should be the same",
            # SDPA: "Expected query, key, and value to have the same dtype, but got query.dtype: float key.dtype: c10::Half"
            r"Expected query, key, and value to have the same dtype",
            # "Index put requires the source and destination dtypes match, got Float for the destination and Half for the source."
            r"Index put requires the source and destination dtypes match",
            # losses: "RuntimeError: expected target dtype to be Long or Byte"; "Found dtype Long but expected Float"
            r"expected target dtype to be Long|Found dtype \w+ but expected \w+",
            # "RuntimeError: result type Float can't be cast to the desired output type Long"
            r"result type \w+ can't be cast to the desired output type \w+",
        ),
        0.88,
    ),
)
