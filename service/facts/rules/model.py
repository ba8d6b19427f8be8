"""Model code: shapes that do not fit an op, tensors on different devices."""

from __future__ import annotations

from service.facts.rules.base import Boost, Rule

RULES: tuple[Rule, ...] = (
    Rule(
        "shape-mismatch",
        "shape-mismatch",
        (
            # "RuntimeError: mat1 and mat2 shapes cannot be multiplied (64x2048 and 512x10)"; torch < 1.9 "size mismatch, m1: [64 x 2048], m2: [512 x 10]"
            r"mat1 and mat2 shapes cannot be multiplied|size mismatch, m1: \[",
            # "RuntimeError: The size of tensor a (4096) must match the size of tensor b (2048) at non-singleton dimension 3"
            r"The size of tensor a \([1-9]\d*\) must match the size of tensor b \(\d+\) at non-singleton dimension",
            # "RuntimeError: shape '[8, 128, 32, 128]' is invalid for input of size 2097152"
            r"shape '\[[-\d, ]+\]' is invalid for input of size [1-9]\d*",
            # "RuntimeError: Given groups=1, weight of size [64, 3, 7, 7], expected input[8, 1, 224, 224] to have 3 channels, but got 1 channels instead"
            r"Given groups=\d+, weight of size \[[\d, ]+\], expected input\[[\d, ]+\] to have \d+ channels",
            # "ValueError: Expected input batch_size (512) to match target batch_size (8)."
            r"Expected input batch_size \(\d+\) to match target batch_size \(\d+\)",
            # "RuntimeError: Sizes of tensors must match except in dimension 1. Expected size 64 but got size 32 for tensor number 1 in the list."
            r"Sizes of tensors must match except in dimension \d+",
            # "RuntimeError: Given normalized_shape=[768], expected input with shape [*, 768], but got input of size[8, 128, 1024]"
            r"Given normalized_shape=\[[\d, ]+\], expected input with shape",
            # "ValueError: Target size (torch.Size([8, 1])) must be the same as input size (torch.Size([8, 10]))"; "Expected target size [8, 10], got [8]"
            r"Target size \(torch\.Size\(\[[\d, ]*\]\)\) must be the same as input size|Expected target size \[",
            # "RuntimeError: The shape of the mask [8, 128] at index 1 does not match the shape of the indexed tensor [8, 64]"
            r"The shape of the mask \[[\d, ]+\] at index \d+ does not match the shape of the indexed tensor",
        ),
        0.82,
        boosts=(
            Boost(-0.3, "the failing load is a state_dict (see the checkpoint entries)", line=r"Error\(s\) in loading state_dict"),
            Boost(-0.3, "FP8 GEMM alignment (see the FP8 entry)", line=r"divisible by (?:8|16)"),
        ),
    ),
    Rule(
        "view-stride",
        "shape-mismatch",
        # "RuntimeError: view size is not compatible with input tensor's size and stride (at least one dimension spans across
        #  two contiguous subspaces). Use .reshape(...) instead."
        (r"view size is not compatible with input tensor's size and stride",),
        0.65,
    ),
    Rule(
        "device-mismatch",
        "device-mismatch",
        (
            # "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!
            #  (when checking argument for argument index in method wrapper_CUDA__index_select)"
            r"Expected all tensors to be on the same device",
            # conv with mixed devices: "Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor) should be the same"
            # (\w+ holds no dot, so "torch\.\w+\)" is never torch.cuda.*)
            r"Input type \(torch\.cuda\.\w+\) and weight type \(torch\.\w+\)|Input type \(torch\.\w+\) and weight type \(torch\.cuda\.\w+\)",
            # torch < 1.9: "Expected object of device type cuda but got device type cpu for argument #1 'self'"
            r"Expected object of device type \w+ but got device type \w+",
            # "RuntimeError: Expected tensor for argument #1 'indices' to have the same device as tensor for argument #2 'weight'"
            r"to have the same device as tensor for argument",
            # "RuntimeError: indices should be either on cpu or on the same device as the indexed tensor (cpu)"
            r"indices should be either on cpu or on the same device as the indexed tensor",
            # "ValueError: Tensor ... is on CPU, but expected it to be on GPU"; "Tensors must be CUDA and dense" (NCCL with CPU tensors)
            r"is on CPU, but expected (?:it )?to be on GPU|Tensors must be CUDA and dense",
            # NCCL collective on a CPU tensor: "RuntimeError: No backend type associated with device type cpu"
            r"No backend type associated with device type cpu",
            # "ValueError: DistributedDataParallel device_ids and output_device arguments only work with single-device/multiple-device GPU modules or CPU modules"
            r"DistributedDataParallel device_ids and output_device arguments only work with",
        ),
        0.9,
    ),
)
