"""Rule table rows for service/facts/rules/torch_training.py (kb-core: PyTorch core training-loop entries),
joined into tests/test_rules.py.

FIRES: (rule id, a line or lines of a real log that must fire it). NEAR_MISSES: (rule id, lines it must not fire
on: a look-alike of another entry, or the same words in a harmless line).
"""

FIRES = [
    ("optimizer-non-leaf-tensor", "ValueError: can't optimize a non-leaf Tensor"),
    ("optimizer-non-leaf-tensor", "[rank1]: ValueError: can't optimize a non-leaf Tensor"),
    ("torch-compile-python-unsupported", "RuntimeError: Python 3.12+ not yet supported for torch.compile"),
    ("torch-compile-python-unsupported", "RuntimeError: Dynamo is not supported on Python 3.12+"),
    ("torch-compile-python-unsupported", "RuntimeError: torch.compile is not supported on Python 3.15+"),
    ("torch-compile-python-unsupported", "RuntimeError: torch.compile is not supported on Python < 3.13.3 built with GIL disabled. Please use Python 3.13.3+."),
    ("torch-compile-python-unsupported", "RuntimeError: Windows not yet supported for torch.compile"),
    ("torch-compile-python-unsupported", "0: RuntimeError: Dynamo is not supported on Python 3.13+"),
    ("autograd-grad-unused-input", "[rank1]: RuntimeError: The differentiated Tensor at index 1 appears to not have been used in the graph. Set allow_unused=True if this is the desired behavior."),
    ("autograd-grad-unused-input", "RuntimeError: One of the differentiated Tensors appears to not have been used in the graph. Set allow_unused=True if this is the desired behavior."),
    ("autograd-grad-unused-input", "RuntimeError: One of the differentiated Tensors does not require grad"),
    ("activation-checkpoint-recompute-mismatch", "torch.utils.checkpoint.CheckpointError: torch.utils.checkpoint: Recomputed values for the following tensors have different metadata than during the forward pass."),
    ("activation-checkpoint-recompute-mismatch", "[rank0]: torch.utils.checkpoint.CheckpointError: torch.utils.checkpoint: A different number of tensors was saved during the original forward and recomputation."),
    ("activation-checkpoint-recompute-mismatch", "torch.utils.checkpoint.CheckpointError: torch.utils.checkpoint: trying to save more tensors during recomputation than during the original forward pass."),
    ("ddp-no-trainable-parameters", "[rank0]: RuntimeError: DistributedDataParallel is not needed when a module doesn't have any parameter that requires a gradient."),
    ("torch-op-missing-backend-kernel", "NotImplementedError: Could not run 'quantized::conv2d.new' with arguments from the 'CPU' backend. This could be because the operator doesn't exist for this backend, or was omitted during the selective/custom build process (if using custom build)."),
    ("torch-op-missing-backend-kernel", "NotImplementedError: Could not run 'aten::add.out' with arguments from the 'QuantizedCPU' backend. This could be because the operator doesn't exist for this backend, or was omitted during the selective/custom build process (if using custom build)."),
    ("torch-op-missing-backend-kernel", "NotImplementedError: Could not run 'torchvision::nms' with arguments from the 'CUDA' backend. This could be because the operator doesn't exist for this backend, or was omitted during the selective/custom build process (if using custom build)."),
]

NEAR_MISSES = [
    # an empty parameter list is another failure (evals/unknown: user-optimizer-empty-params)
    ("optimizer-non-leaf-tensor", "ValueError: optimizer got an empty parameter list"),
    # compilation that started and failed is torch-compile-failure's
    ("torch-compile-python-unsupported", "torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:"),
    # backward() on an output with no graph is autograd-no-grad-fn's
    ("autograd-grad-unused-input", "RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn"),
    # the reentrant checkpoint's own refusal of autograd.grad is not a recomputation mismatch
    ("activation-checkpoint-recompute-mismatch", "RuntimeError: When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() or passing an `inputs` parameter to .backward()."),
    # DDP's unused-parameter error is ddp-unused-parameters'
    ("ddp-no-trainable-parameters", "RuntimeError: Expected to have finished reduction in the prior iteration before starting a new one."),
    # an extension that did not load at all is not a missing backend kernel
    ("torch-op-missing-backend-kernel", "RuntimeError: operator torchvision::nms does not exist"),
]
