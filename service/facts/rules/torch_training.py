"""PyTorch core training-loop failures added by kb-core: optimizers, autograd.grad, activation checkpointing,
DDP set-up, the dispatcher's missing kernels, and the Python versions torch.compile accepts."""

from __future__ import annotations

from service.facts.rules.base import Rule

RULES: tuple[Rule, ...] = (
    Rule(
        "optimizer-non-leaf-tensor",
        "optimizer-non-leaf-tensor",
        (
            # "ValueError: can't optimize a non-leaf Tensor" (torch/optim/optimizer.py add_param_group, 2.1-2.13)
            r"can't optimize a non-leaf Tensor",
        ),
        0.96,
    ),
    Rule(
        "torch-compile-python-unsupported",
        "torch-compile-python-unsupported",
        (
            # torch 2.1: "RuntimeError: Python 3.12+ not yet supported for torch.compile" / "Windows not yet supported for torch.compile"
            # torch 2.13: "RuntimeError: Python 3.15+ not yet supported for torch.compile" (torch/_dynamo/eval_frame.py)
            r"(?:Python 3\.\d+\+|Windows) not yet supported for torch\.compile",
            # torch 2.1: "RuntimeError: Dynamo is not supported on Python 3.12+"; 2.13: "torch.compile is not supported on Python 3.15+"
            r"(?:Dynamo|torch\.compile) is not supported on Python 3\.\d+\+",
            # torch 2.13: "RuntimeError: torch.compile is not supported on Python < 3.13.3 built with GIL disabled. Please use Python 3.13.3+."
            r"torch\.compile is not supported on Python < [\d.]+ built with GIL disabled",
        ),
        0.96,
    ),
    Rule(
        "autograd-grad-unused-input",
        "autograd-grad-unused-input",
        (
            # torch 2.13: "RuntimeError: The differentiated Tensor at index 1 appears to not have been used in the graph.
            #  Set allow_unused=True if this is the desired behavior."; 2.1: "One of the differentiated Tensors appears to ..."
            r"differentiated Tensors? (?:at index \d+ )?appears to not have been used in the graph",
            # "RuntimeError: One of the differentiated Tensors does not require grad"
            r"One of the differentiated Tensors does not require grad",
        ),
        0.95,
    ),
    Rule(
        "activation-checkpoint-recompute-mismatch",
        "activation-checkpoint-recompute-mismatch",
        (
            # "torch.utils.checkpoint.CheckpointError: torch.utils.checkpoint: Recomputed values for the following tensors
            #  have different metadata than during the forward pass."
            r"Recomputed values for the following tensors have different metadata than during the forward pass",
            # "torch.utils.checkpoint: A different number of tensors was saved during the original forward and recomputation."
            r"A different number of tensors was saved during the original forward and recomputation",
            # "torch.utils.checkpoint: trying to save more tensors during recomputation than during the original forward pass."
            r"trying to save more tensors during recomputation than during the original forward pass",
        ),
        0.95,
    ),
    Rule(
        "ddp-no-trainable-parameters",
        "ddp-no-trainable-parameters",
        (
            # "RuntimeError: DistributedDataParallel is not needed when a module doesn't have any parameter that requires a gradient."
            r"DistributedDataParallel is not needed when a module doesn't have any parameter that requires a gradient",
        ),
        0.96,
    ),
    Rule(
        "torch-op-missing-backend-kernel",
        "torch-op-missing-backend-kernel",
        (
            # "NotImplementedError: Could not run 'quantized::conv2d.new' with arguments from the 'CPU' backend. This could be
            #  because the operator doesn't exist for this backend, or was omitted during the selective/custom build process"
            # "NotImplementedError: Could not run 'torchvision::nms' with arguments from the 'CUDA' backend. ..."
            r"Could not run '[\w:.]+' with arguments from the '\w+' backend",
        ),
        0.88,
    ),
)
