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
    Rule(
        "lightning-monitor-metric-missing",
        "lightning-monitor-metric-missing",
        (
            # "MisconfigurationException: `ModelCheckpoint(monitor='val_loss')` could not find the monitored key in the
            #  returned metrics: ['train/loss', 'val/loss', 'epoch', 'step']. HINT: Did you call `log('val_loss', value)` ..."
            r"ModelCheckpoint\(monitor=.*\)` could not find the monitored key in the returned metrics",
            # "RuntimeError: Early stopping conditioned on metric `val_acc` which is not available. Pass in or modify your
            #  `EarlyStopping` callback to use any of the following: `train_loss`, `val_accuracy`"
            r"Early stopping conditioned on metric `[^`]*` which is not available",
            # "MisconfigurationException: ReduceLROnPlateau conditioned on metric val_loss which is not available.
            #  Available metrics are: ['train_loss']. Condition can be set using `monitor` key in lr scheduler dict"
            r"ReduceLROnPlateau conditioned on metric \S+ which is not available\. Available metrics are",
            # "MisconfigurationException: The lr scheduler dict must include a monitor when a `ReduceLROnPlateau` scheduler is used."
            r"must include a monitor when a `ReduceLROnPlateau` scheduler is used",
        ),
        0.95,
    ),
    Rule(
        "lightning-mixed-package-imports",
        "lightning-mixed-package-imports",
        (
            # "TypeError: You passed a `pytorch_lightning` object (EarlyStopping) to a `lightning.pytorch` Trainer.
            #  Please switch to a single import style."
            r"You passed a `(?:pytorch_lightning|lightning\.pytorch)` object \(.*\) to a `(?:pytorch_lightning|lightning\.pytorch)` Trainer",
        ),
        0.96,
    ),
    Rule(
        "lightning-model-not-lightningmodule",
        "lightning-mixed-package-imports",
        (
            # "TypeError: `model` must be a `LightningModule` or `torch._dynamo.OptimizedModule`, got `LitClassifier`"
            # (lightning 2.1: also "`model` must be a `LightningModule`, got `X`"); the same message for a plain nn.Module
            r"`model` must be a `LightningModule`(?: or `torch\._dynamo\.OptimizedModule`)?, got `",
        ),
        0.8,
    ),
    Rule(
        "jax-sharding-indivisible",
        "jax-sharding-indivisible",
        (
            # "ValueError: One of device_put args was given the sharding of NamedSharding(mesh=Mesh('data': 8), spec=PartitionSpec('data',)),
            #  which implies that the global size of its dimension 0 should be divisible by 8, but it is equal to 100 (full shape: (100, 64))"
            r"which implies that the global size of its dimension \d+ should be divisible by \d+, but it is equal to \d+",
            # "ValueError: shard_map applied to the function 'step' was given argument arrays with axis sizes that are not
            #  evenly divisible by the corresponding mesh axis sizes:"
            r"was given argument arrays with axis sizes that are not evenly divisible by the corresponding mesh axis sizes",
        ),
        0.95,
    ),
    Rule(
        "dcp-size-mismatch",
        "dcp-size-mismatch",
        (
            # torch 2.13 DCP load planner: "ValueError: Size mismatch between saved torch.Size([32000, 64]) and current:
            #  torch.Size([32008, 64]) for model.embed.weight"
            r"Size mismatch between saved torch\.Size\(\[[\d, ]*\]\) and current: torch\.Size\(",
        ),
        0.95,
    ),
    Rule(
        "sampler-generator-device-mismatch",
        "sampler-generator-device-mismatch",
        (
            # "RuntimeError: Expected a 'cuda' device type for generator but found 'cpu'" (RandomSampler/DistributedSampler's
            #  torch.randperm under torch.set_default_device('cuda')); the reverse: "... a 'cpu' device type ... found 'cuda'"
            r"Expected a '\w+' device type for generator but found '\w+'",
        ),
        0.9,
    ),
    Rule(
        "torch-export-constraints-violated",
        "torch-export-constraints-violated",
        (
            # torch 2.5-2.13: "torch._dynamo.exc.UserError: Constraints violated (batch)! For more information, run with TORCH_LOGS="+dynamic"."
            # torch 2.1: "ConstraintViolationError: Constraints violated!"
            r"Constraints violated(?: \([^)]*\))?!",
            # 2.13: "- You marked batch as dynamic but your code specialized it to be a constant (32)."
            r"You marked \S+ as dynamic but your code specialized it to be a constant",
            # 2.1/2.5: "Not all values of batch = L['x'].size()[0] in the specified range ... are valid because batch was inferred to be a constant (8)."
            r"Not all values of .* (?:are valid because .* was inferred to be a constant|satisfy the generated guard)",
        ),
        0.93,
    ),
)
