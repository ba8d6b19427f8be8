"""Autograd: tensors changed in place, graphs backpropagated twice, losses without a graph."""

from __future__ import annotations

from service.facts.rules.base import Boost, Rule

RULES: tuple[Rule, ...] = (
    Rule(
        "inplace-modified",
        "autograd-inplace-modified",
        (
            # "RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation:
            #  [torch.cuda.FloatTensor [1024, 1]], which is output 0 of AsStridedBackward0, is at version 2; expected version 1 instead."
            r"one of the variables needed for gradient computation has been modified by an inplace operation",
        ),
        0.95,
    ),
    Rule(
        "inplace-view",
        "autograd-inplace-modified",
        (
            # "RuntimeError: Output 0 of SplitBackward0 is a view and is being modified inplace. This view is the output of a
            #  function that returns multiple views."
            r"is a view and is being modified inplace",
            # "RuntimeError: a leaf Variable that requires grad is being used in an in-place operation."
            r"a leaf Variable that requires grad is being used in an in-place operation",
        ),
        0.6,
    ),
    Rule(
        "backward-twice",
        "autograd-backward-twice",
        (
            # "RuntimeError: Trying to backward through the graph a second time (or directly access saved tensors after they have
            #  already been freed). Saved intermediate values of the graph are freed when you call .backward() or autograd.grad().
            #  Specify retain_graph=True if you need to backward through the graph a second time ..."
            r"Trying to backward through the graph a second time",
            # torch < 1.8: "... but the saved intermediate results have already been freed. Specify retain_graph=True when calling
            #  backward the first time."
            r"but the saved intermediate results have already been freed",
        ),
        0.95,
        boosts=(Boost(-0.4, "ZeRO reports the gradient reduced twice (see the DeepSpeed entry)", line=r"Gradient computed twice for this partition"),),
    ),
    Rule(
        "no-grad-fn",
        "autograd-no-grad-fn",
        (
            # "RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn"
            r"does not require grad and does not have a grad_fn",
            # autograd.grad: "RuntimeError: One of the differentiated Tensors does not require grad"
            r"One of the differentiated Tensors does not require grad",
            # "RuntimeError: DistributedDataParallel is not needed when a module doesn't have any parameter that requires a gradient."
            r"DistributedDataParallel is not needed when a module doesn't have any parameter that requires a gradient",
        ),
        0.92,
        boosts=(
            # PEFT: "trainable params: 0 || all params: 6,738,415,616 || trainable%: 0.0"
            Boost(0.03, "nothing is trainable", line=r"trainable params: 0 \|\|"),
        ),
    ),
    Rule(
        "no-grad-fn-reentrant-warning",
        "autograd-no-grad-fn",
        # checkpoint(use_reentrant=True) with frozen inputs: "UserWarning: None of the inputs have requires_grad=True. Gradients will be None"
        (r"None of the inputs have requires_grad=True\. Gradients will be None",),
        0.35,
    ),
)
