"""PyTorch core: autograd and indexing errors the CPU kernels and autograd engine raise with a clear message."""

from __future__ import annotations

from service.facts.rules.base import Boost, Rule

RULES: tuple[Rule, ...] = (
    Rule(
        "backward-non-scalar",
        "backward-non-scalar-output",
        (
            # "RuntimeError: grad can be implicitly created only for scalar outputs"
            # "RuntimeError: grad can be implicitly created only for real scalar outputs but got torch.int64"
            r"grad can be implicitly created only for (?:real )?scalar outputs",
        ),
        0.95,
        boosts=(
            # DataParallel: "UserWarning: Was asked to gather along dimension 0, but all input tensors were scalars; will instead unsqueeze and return a vector."
            Boost(0.03, "DataParallel gathered one loss per GPU into a vector", line=r"all input tensors were scalars; will instead unsqueeze"),
        ),
    ),
    Rule(
        "embedding-index-out-of-range",
        "embedding-index-out-of-range",
        (
            # CPU index_select in F.embedding: "IndexError: index out of range in self"
            r"index out of range in self",
        ),
        0.85,
        boosts=(
            # '  File ".../torch/nn/functional.py", line 2551, in embedding' / "return torch.embedding(weight, input, padding_idx, ..."
            Boost(0.08, "the traceback goes through an embedding lookup", line=r"torch\.embedding\(|in embedding$|_embeddings\(|word_embeddings|position_embeddings"),
            # HF tokenizer: "Token indices sequence length is longer than the specified maximum sequence length for this model (1030 > 512)"
            Boost(0.04, "the tokenizer warned that sequences exceed the model's maximum length", line=r"Token indices sequence length is longer than the specified maximum"),
        ),
    ),
    Rule(
        "loss-target-out-of-bounds",
        "loss-target-out-of-bounds",
        (
            # CPU nll_loss / cross_entropy: "IndexError: Target 5 is out of bounds." / "IndexError: Target -1 is out of bounds."
            r"Target -?\d+ is out of bounds\.",
        ),
        0.92,
    ),
    Rule(
        "inference-tensor-in-autograd",
        "inference-tensor-in-autograd",
        (
            # "RuntimeError: Inference tensors cannot be saved for backward. Please do not use Tensors created in inference mode ..."
            r"Inference tensors cannot be saved for backward",
            # "RuntimeError: Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone ..."
            r"Inplace update to inference tensor outside InferenceMode is not allowed",
        ),
        0.95,
    ),
    Rule(
        "checkpoint-cuda-device-ordinal",
        "checkpoint-cuda-device-ordinal",
        (
            # torch.load without map_location: "RuntimeError: Attempting to deserialize object on CUDA device 3 but
            #  torch.cuda.device_count() is 1. Please use torch.load with map_location to map your storages to an existing device."
            r"Attempting to deserialize object on CUDA device \d+ but torch\.cuda\.device_count\(\) is \d+",
        ),
        0.95,
    ),
    Rule(
        "module-missing-forward",
        "module-missing-forward",
        # nn.Module placeholder: 'NotImplementedError: Module [Net] is missing the required "forward" function'
        (r'Module \[\w+\] is missing the required "forward" function',),
        0.96,
    ),
    Rule(
        "dataloader-timeout",
        "dataloader-timeout",
        # "RuntimeError: DataLoader timed out after 120 seconds"
        (r"DataLoader timed out after \d+ seconds",),
        0.92,
    ),
    Rule(
        "sdpa-no-available-kernel",
        "sdpa-no-available-kernel",
        (
            # F.scaled_dot_product_attention with backends restricted: "RuntimeError: No available kernel.  Aborting execution."
            r"No available kernel\. +Aborting execution",
        ),
        0.9,
        boosts=(
            # "UserWarning: Flash attention kernel not used because: (Triggered internally at .../sdp_utils.cpp:...)"
            Boost(0.05, "SDPA said why each fused kernel was not used", line=r"(?:Flash attention|Memory efficient) kernel not used because"),
        ),
    ),
)
