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
    ("lightning-monitor-metric-missing", "[rank1]: lightning.fabric.utilities.exceptions.MisconfigurationException: `ModelCheckpoint(monitor='val_loss')` could not find the monitored key in the returned metrics: ['train/loss', 'val/loss', 'epoch', 'step']. HINT: Did you call `log('val_loss', value)` in the `LightningModule`?"),
    ("lightning-monitor-metric-missing", "RuntimeError: Early stopping conditioned on metric `val_acc` which is not available. Pass in or modify your `EarlyStopping` callback to use any of the following: `train_loss`, `val_accuracy`"),
    ("lightning-monitor-metric-missing", "lightning.fabric.utilities.exceptions.MisconfigurationException: ReduceLROnPlateau conditioned on metric val_loss which is not available. Available metrics are: ['train_loss']. Condition can be set using `monitor` key in lr scheduler dict"),
    ("lightning-monitor-metric-missing", 'lightning.fabric.utilities.exceptions.MisconfigurationException: The lr scheduler dict must include a monitor when a `ReduceLROnPlateau` scheduler is used. For example: {"optimizer": optimizer, "lr_scheduler": {"scheduler": scheduler, "monitor": "your_loss"}}'),
    ("lightning-mixed-package-imports", "TypeError: You passed a `pytorch_lightning` object (EarlyStopping) to a `lightning.pytorch` Trainer. Please switch to a single import style."),
    ("lightning-mixed-package-imports", "TypeError: You passed a `lightning.pytorch` object (ModelCheckpoint) to a `pytorch_lightning` Trainer. Please switch to a single import style."),
    ("lightning-model-not-lightningmodule", "TypeError: `model` must be a `LightningModule` or `torch._dynamo.OptimizedModule`, got `LitClassifier`"),
    ("lightning-model-not-lightningmodule", "TypeError: `model` must be a `LightningModule`, got `LitClassifier`"),
    ("jax-sharding-indivisible", "ValueError: One of device_put args was given the sharding of NamedSharding(mesh=Mesh('data': 8), spec=PartitionSpec('data',)), which implies that the global size of its dimension 0 should be divisible by 8, but it is equal to 100 (full shape: (100, 64))"),
    ("jax-sharding-indivisible", "ValueError: One of pjit outputs with pytree key path ['embed'] was given the sharding of NamedSharding(mesh=Mesh('data': 2, 'model': 4), spec=PartitionSpec('model', None)), which implies that the global size of its dimension 0 should be divisible by 4, but it is equal to 50257 (full shape: (50257, 512))"),
    ("jax-sharding-indivisible", "ValueError: shard_map applied to the function 'step' was given argument arrays with axis sizes that are not evenly divisible by the corresponding mesh axis sizes:"),
    ("dcp-size-mismatch", "[rank1]: ValueError: Size mismatch between saved torch.Size([32000, 64]) and current: torch.Size([32008, 64]) for model.embed.weight"),
    ("sampler-generator-device-mismatch", "[rank3]: RuntimeError: Expected a 'cuda' device type for generator but found 'cpu'"),
    ("sampler-generator-device-mismatch", "RuntimeError: Expected a 'cpu' device type for generator but found 'cuda'"),
    ("torch-export-constraints-violated", 'torch._dynamo.exc.UserError: Constraints violated (batch)! For more information, run with TORCH_LOGS="+dynamic".'),
    ("torch-export-constraints-violated", "  - You marked batch as dynamic but your code specialized it to be a constant (32). If you're using mark_dynamic, either remove it or use maybe_mark_dynamic."),
    ("torch-export-constraints-violated", "  - Not all values of frames = L['mels'].size()[1] in the specified range frames <= 3000 satisfy the generated guard (L['mels'].size()[1] // 2) != L['mels'].size()[1]."),
    ("torch-export-constraints-violated", "torch.fx.experimental.symbolic_shapes.ConstraintViolationError: Constraints violated!"),
    ("torch-export-constraints-violated", "  - Not all values of L['x'].size()[0] in the specified range are valid because L['x'].size()[0] was inferred to be a constant (8). For more information about why it is constant, run with TORCH_LOGS=dynamic."),
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
    # strict=False only warns and skips: not the failure
    ("lightning-monitor-metric-missing", "RuntimeWarning: ReduceLROnPlateau conditioned on metric val_loss which is not available but strict is set to `False`. Skipping learning rate update."),
    # shard_map's rank check is another mistake
    ("jax-sharding-indivisible", "ValueError: shard_map applied to the function 'f' was given an out_specs which implies that its rank should be at least 2"),
    # load_state_dict's size mismatch of a torch.save file is checkpoint-size-mismatch's
    ("dcp-size-mismatch", "\tsize mismatch for embed.weight: copying a param with shape torch.Size([32000, 64]) from checkpoint, the shape in current model is torch.Size([32008, 64])."),
    # two operands on two devices are device-mismatch's
    ("sampler-generator-device-mismatch", "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!"),
    # Dynamo's own unsupported constructs are dynamo-fullgraph-graph-break's
    ("torch-export-constraints-violated", "torch._dynamo.exc.Unsupported: Attempted to call function marked as skipped"),
]
