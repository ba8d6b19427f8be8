"""PyTorch distributed (c10d, DDP, FSDP2, DTensor, DCP): errors of the wrappers added since the first catalogue."""

from __future__ import annotations

from service.facts.rules.base import Boost, Rule

RULES: tuple[Rule, ...] = (
    Rule(
        "ddp-params-mismatch",
        "ddp-params-mismatch-across-ranks",
        (
            # "RuntimeError: DDP expects same model across all ranks, but Rank 0 has 6 params, while rank 1 has inconsistent 4 params."
            r"DDP expects same model across all ranks",
            # "RuntimeError: [1]: params[0] in this process with sizes [32008, 16] appears not to match sizes of the same param in process 0."
            r"appears not to match (?:sizes|strides) of the same param in process \d+",
        ),
        0.95,
    ),
    Rule(
        "dcp-missing-key",
        "dcp-missing-key",
        (
            # torch >= 2.2: "RuntimeError: Missing key in checkpoint state_dict: model.layers.0.feed_forward.w3.weight."
            r"Missing key in checkpoint state_dict: \S+",
        ),
        0.93,
        boosts=(
            # the ranks' failures gathered: "torch.distributed.checkpoint.api.CheckpointException: CheckpointException ranks:dict_keys([0, 1])"
            Boost(0.03, "DCP gathered the failure from the ranks", line=r"CheckpointException ranks:"),
        ),
    ),
    Rule(
        "dcp-missing-key-legacy",
        "dcp-missing-key",
        # torch 2.1: the metadata lookup is a dict access, so the rank's traceback ends in a KeyError under
        # "CheckpointException ranks:dict_keys([0])" ... "in create_default_local_load_plan" ... "KeyError: 'model.2.weight'"
        (r"in create_default_local_load_plan",),
        0.7,
        needs=(r"^\s*(?:\[rank\d+\]:\s*)?KeyError: '",),
    ),
    Rule(
        "dtensor-mixed-tensor",
        "dtensor-mixed-tensor",
        (
            # "RuntimeError: aten.mul.Tensor got mixed torch.Tensor and DTensor, need to convert all torch.Tensor to DTensor
            #  before calling distributed operators!" (torch 2.1 prints "aten.mul.Tensor: got mixed ...")
            r"got mixed torch\.Tensor and DTensor",
        ),
        0.95,
    ),
)
