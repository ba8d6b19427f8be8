"""Checkpoints: keys and shapes that do not match the model, weights_only refusals, truncated files."""

from __future__ import annotations

from service.facts.rules.base import Boost, Rule

RULES: tuple[Rule, ...] = (
    Rule(
        "state-dict-keys",
        "checkpoint-key-mismatch",
        (
            # "RuntimeError: Error(s) in loading state_dict for GPT:\n\tMissing key(s) in state_dict: "transformer.wte.weight", ...
            #  Unexpected key(s) in state_dict: "_orig_mod.transformer.wte.weight", ..."
            r"Missing key\(s\) in state_dict:",
            r"Unexpected key\(s\) in state_dict:",
        ),
        0.88,
        boosts=(Boost(-0.3, "the model is FSDP-wrapped (see the FSDP entry)", line=r"Error\(s\) in loading state_dict for FullyShardedDataParallel"),),
    ),
    Rule(
        "state-dict-header",
        "checkpoint-key-mismatch",
        # the header alone (the key list cut off): "RuntimeError: Error(s) in loading state_dict for ResNet:"
        (r"Error\(s\) in loading state_dict for \w+",),
        0.5,
        not_with=(r"Error\(s\) in loading state_dict for FullyShardedDataParallel",),  # the FSDP entry's
        unless=(r"size mismatch for \S+: copying a param with shape",),
    ),
    Rule(
        "hf-unused-weights",
        "checkpoint-key-mismatch",
        # transformers (a warning, often harmless): "Some weights of the model checkpoint at bert-base-uncased were not used when
        # initializing BertModel: [...]"; "Some weights of LlamaForCausalLM were not initialized from the model checkpoint at ... and are newly initialized"
        (r"Some weights of the model checkpoint at \S+ were not used when initializing|were not initialized from the model checkpoint at .* newly initialized",),
        0.3,
    ),
    Rule(
        "state-dict-size",
        "checkpoint-size-mismatch",
        (
            # "size mismatch for fc.weight: copying a param with shape torch.Size([1000, 2048]) from checkpoint, the shape in
            #  current model is torch.Size([10, 2048])."
            r"size mismatch for \S+: copying a param with shape",
            # transformers: "You may consider adding `ignore_mismatched_sizes=True` in the model `from_pretrained` method."
            r"You may consider adding `ignore_mismatched_sizes=True`",
            # accelerate/big modeling: "ValueError: Trying to set a tensor of shape torch.Size([32001, 4096]) in "weight"
            #  (which has shape torch.Size([32000, 4096])), this looks incorrect."
            r"Trying to set a tensor of shape torch\.Size\(\[[\d, ]+\]\) in \"\w+\" \(which has shape",
            # transformers: "While copying the parameter named "lm_head.weight", whose dimensions in the model are
            #  torch.Size([32000, 4096]) and whose dimensions in the checkpoint are torch.Size([32001, 4096])"
            r"While copying the parameter named \".+\", whose dimensions in the model are",
        ),
        0.9,
        boosts=(
            Boost(-0.35, "one side is torch.Size([0]) under ZeRO-3 (see the DeepSpeed entry)", line=r"torch\.Size\(\[0\]\)"),
            Boost(-0.3, "the model is FSDP-wrapped (see the FSDP entry)", line=r"Error\(s\) in loading state_dict for FullyShardedDataParallel"),
        ),
    ),
    Rule(
        "weights-only",
        "checkpoint-weights-only",
        (
            # torch >= 2.6: "_pickle.UnpicklingError: Weights only load failed. This file can still be loaded, to do so you have
            #  two options ... WeightsUnpickler error: Unsupported global: GLOBAL argparse.Namespace was not an allowed global by default."
            r"Weights only load failed",
            r"WeightsUnpickler error: Unsupported global",
            r"was not an allowed global by default",
            # "In PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` from `False` to `True`."
            r"In PyTorch 2\.6, we changed the default value of the `weights_only` argument",
        ),
        0.92,
        boosts=(
            # a tiny or non-checkpoint file trips the unpickler on its first byte: "Unsupported operand 118" (see checkpoint-corrupt)
            Boost(-0.4, "the unpickler choked on the file's first bytes: not a checkpoint at all", line=r"Unsupported operand \d+"),
        ),
    ),
    Rule(
        "checkpoint-corrupt",
        "checkpoint-corrupt",
        (
            # "RuntimeError: PytorchStreamReader failed reading zip archive: failed finding central directory"
            r"PytorchStreamReader failed (?:reading zip archive|reading file|locating file)",
            r"failed finding central directory",
            # "RuntimeError: [enforce fail at inline_container.cc:...] . file in archive is not in a subdirectory: ..." / "invalid header or archive is corrupted"
            r"invalid header or archive is corrupted",
            # "_pickle.UnpicklingError: invalid load key, 'v'." (a git-lfs pointer file); "pickle data was truncated"
            r"invalid load key, '.{1,4}'|pickle data was truncated",
            # safetensors: "safetensors_rust.SafetensorError: Error while deserializing header: MetadataIncompleteBuffer" / HeaderTooLarge
            r"Error while deserializing header: (?:MetadataIncompleteBuffer|HeaderTooLarge|InvalidHeader\w*)",
            # torch.load of a truncated stream: "RuntimeError: unexpected EOF, expected 123 more bytes. The file might be corrupted."
            r"unexpected EOF, expected \d+ more bytes",
            # transformers: "OSError: Unable to load weights from pytorch checkpoint file for '...' at '...'. If you tried to load a PyTorch model from a TF 2.0 checkpoint"
            r"Unable to load weights from pytorch checkpoint file",
            # weights_only unpickler on a file that is not a checkpoint (a git-lfs pointer: 118 is the "v" of "version"):
            # "WeightsUnpickler error: Unsupported operand 118"
            r"Unsupported operand \d+",
        ),
        0.88,
    ),
    Rule(
        "pickle-eof",
        "checkpoint-corrupt",
        # an empty or cut pickle: "EOFError: Ran out of input" (raised by torch.load / pickle.load)
        (r"EOFError: Ran out of input",),
        0.5,
        boosts=(Boost(0.25, "raised while loading a checkpoint", line=r"torch/serialization\.py|torch\.load\(|pickle\.load\("),),
    ),
)
