"""How the encyclopedia pages slice ``kb/``: where in a run each failure strikes, which library hubs exist,
and the server-side search. Both tables are data: a new entry gets a line in ``PHASE_OF`` (a test checks
that every file in ``kb/`` has one), a new hub a line in ``LIBRARIES``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from retrieval.index import Index, lexical_search
from retrieval.kb import Entry, KnowledgeBase, Software, section_steps


@dataclass(frozen=True)
class Phase:
    key: str
    title: str
    blurb: str


PHASES: tuple[Phase, ...] = (
    Phase("start-up", "Start-up", "before the first step: imports, builds, drivers, device set-up, config checks, model loading"),
    Phase("first-step", "First step", "the first forward, backward or optimizer step: shapes, dtypes, kernels, memory peaks"),
    Phase("mid-run", "Mid-run", "after training has been going for a while: growth, numerics, hardware, jobs killed from outside"),
    Phase("checkpoint", "Checkpoint", "saving, loading or resuming a checkpoint"),
    Phase("scale-up", "Scale-up and multi-node", "appears when the run goes to more GPUs or more nodes: transports, rendezvous, launchers"),
)

# Where each failure usually strikes (the catalogue's ids, ../shared/failure-catalog.yaml). One phase per
# entry: the moment a reader would recognise from their own run.
PHASE_OF: dict[str, str] = {
    # memory
    "cuda-oom": "first-step",
    "cuda-oom-fragmentation": "mid-run",
    "cuda-memory-leak-growth": "mid-run",
    "host-oom-killed": "mid-run",
    "dataloader-shm-exhausted": "first-step",
    # data
    "dataloader-worker-crash": "mid-run",
    "collate-unequal-sample-shapes": "first-step",
    # infra
    "too-many-open-files": "mid-run",
    "disk-full": "checkpoint",
    "sighup-session-hangup": "mid-run",
    "process-killed-sigkill": "mid-run",
    "slurm-time-limit": "mid-run",
    # cuda
    "cuda-illegal-memory-access": "first-step",
    "deepspeed-fusedadam-illegal-memory-access": "first-step",
    "cuda-device-side-assert": "first-step",
    "cuda-no-kernel-image": "start-up",
    "cuda-driver-too-old": "start-up",
    "cuda-not-available": "start-up",
    "cuda-reinit-forked-subprocess": "first-step",
    "cublas-failure": "first-step",
    "cudnn-failure": "first-step",
    "cuda-launch-failure": "mid-run",
    # hardware
    "gpu-fell-off-bus": "mid-run",
    "gpu-ecc-error": "mid-run",
    "gpu-p2p-unsupported": "scale-up",
    # distributed
    "nccl-watchdog-timeout": "mid-run",
    "nccl-system-error": "scale-up",
    "nccl-cuda-error": "mid-run",
    "nccl-invalid-usage": "scale-up",
    "nccl-network-error": "scale-up",
    "torchrun-child-failed": "mid-run",
    "dist-rendezvous-timeout": "scale-up",
    "dist-address-in-use": "start-up",
    "ddp-unused-parameters": "first-step",
    "ddp-marked-ready-twice": "first-step",
    "collective-mismatch": "mid-run",
    "fsdp-error": "start-up",
    # deepspeed
    "deepspeed-batch-config-mismatch": "start-up",
    "deepspeed-op-build-failure": "start-up",
    "deepspeed-zero3-shape-mismatch": "start-up",
    "deepspeed-zero-checkpoint-topology-change": "checkpoint",
    "deepspeed-zero-gradient-computed-twice": "first-step",
    "deepspeed-launcher-ssh-unreachable": "scale-up",
    # numerics
    "loss-nan": "mid-run",
    "fp16-loss-scale-underflow": "mid-run",
    "bf16-unsupported": "start-up",
    "fp8-unsupported-gpu": "start-up",
    "fp8-gemm-shape-alignment": "first-step",
    "dtype-mismatch": "first-step",
    # autograd and model
    "autograd-inplace-modified": "first-step",
    "autograd-backward-twice": "first-step",
    "autograd-no-grad-fn": "first-step",
    "shape-mismatch": "first-step",
    "device-mismatch": "first-step",
    # checkpoint
    "checkpoint-key-mismatch": "checkpoint",
    "checkpoint-size-mismatch": "checkpoint",
    "checkpoint-weights-only": "checkpoint",
    "checkpoint-corrupt": "checkpoint",
    # environment
    "extension-undefined-symbol": "start-up",
    "cuda-version-mismatch-build": "start-up",
    "bitsandbytes-setup": "start-up",
    "numpy-abi-mismatch": "start-up",
    "glibcxx-missing": "start-up",
    "torch-compile-failure": "first-step",
    "hf-hub-unreachable": "start-up",
    # inference
    "vllm-kv-cache-too-small": "start-up",
    "vllm-gpu-memory-in-use": "start-up",
}


def phase_of(entry_id: str) -> Phase | None:
    key = PHASE_OF.get(entry_id)
    return next((p for p in PHASES if p.key == key), None)


@dataclass(frozen=True)
class Library:
    """A hub page: an entry belongs when one of ``names`` is one of its tags or a word of a software name."""

    key: str
    title: str
    names: tuple[str, ...]


LIBRARIES: tuple[Library, ...] = (
    Library("pytorch", "PyTorch", ("pytorch", "torch", "ddp", "fsdp", "torchrun", "autograd")),
    Library("deepspeed", "DeepSpeed", ("deepspeed",)),
    Library("nccl", "NCCL", ("nccl",)),
    Library("cuda", "CUDA", ("cuda", "cublas", "cudnn", "nvcc", "nvidia-driver")),
    Library("transformers", "Hugging Face Transformers", ("transformers", "hf-trainer", "huggingface_hub")),
    Library("accelerate", "Accelerate", ("accelerate",)),
    Library("peft", "PEFT", ("peft", "lora")),
    Library("apex", "NVIDIA Apex", ("apex",)),
    Library("flash-attn", "FlashAttention", ("flash-attn", "flash-attention")),
    Library("bitsandbytes", "bitsandbytes", ("bitsandbytes",)),
    Library("triton", "Triton and torch.compile", ("triton", "torch-compile", "inductor")),
    Library("transformer-engine", "Transformer Engine", ("transformer-engine",)),
    Library("vllm", "vLLM and inference engines", ("vllm", "sglang")),
    Library("numpy", "NumPy", ("numpy",)),
    Library("lightning", "Lightning", ("lightning",)),
    Library("slurm", "Slurm", ("slurm",)),
    Library("containers", "Docker and Kubernetes", ("docker", "kubernetes", "nvidia-container-toolkit")),
)


def library(key: str) -> Library | None:
    return next((lib for lib in LIBRARIES if lib.key == key), None)


def _pattern(lib: Library) -> re.Pattern[str]:
    """One of the library's names as a whole word: ``torch`` in "torch" but not in "torchvision"."""
    return re.compile(r"(?<![\w-])(" + "|".join(re.escape(n) for n in lib.names) + r")(?![\w-])", re.I)


def software_for(entry: Entry, lib: Library) -> list[Software]:
    """The entry's affected-software rows that name the library (its versions, fix, note)."""
    words = _pattern(lib)
    return [s for s in entry.meta.affected.software if words.search(s.name)]


def _names_library(entry: Entry, lib: Library) -> bool:
    return any(t.lower() in lib.names for t in entry.meta.tags) or bool(software_for(entry, lib))


_BLOCK_START = re.compile(r"^\s*(```|[-*+] |\d+[.)] )")


def first_fix(entry: Entry) -> str:
    """The opening sentence(s) of the entry's first fix step, up to its first list or code block: for a card."""
    steps = section_steps(entry.section("fix"))
    if not steps:
        return ""
    first, *rest = steps[0].splitlines()
    lines = [first]
    for line in rest:
        if not line.strip() or _BLOCK_START.match(line):
            break
        lines.append(line.strip())
    return " ".join(lines)


def entries_for_library(kb: KnowledgeBase, lib: Library) -> list[Entry]:
    return [e for e in sorted(kb.entries.values(), key=lambda e: e.title.lower()) if _names_library(e, lib)]


def libraries_of(entry: Entry) -> list[Library]:
    return [lib for lib in LIBRARIES if _names_library(entry, lib)]


def by_phase(entries: list[Entry]) -> list[tuple[Phase, list[Entry]]]:
    """Entries grouped in run order; an entry missing from ``PHASE_OF`` is shown under mid-run."""
    groups: dict[str, list[Entry]] = {p.key: [] for p in PHASES}
    for e in entries:
        groups[PHASE_OF.get(e.id, "mid-run")].append(e)
    return [(p, groups[p.key]) for p in PHASES if groups[p.key]]


def telltale(entry: Entry) -> str:
    """The message that identifies the entry on a card: the first one that reads whole (not a cut-off fragment)."""
    messages = entry.meta.signals.messages
    return next((m for m in messages if len(m) >= 16 and not m.rstrip().endswith(("(", "[", "{"))), messages[0])


# How the catalogue's category names read in a title.
CATEGORY_TITLES = {"cuda": "CUDA", "deepspeed": "DeepSpeed", "infra": "Infrastructure"}


def category_title(name: str) -> str:
    return CATEGORY_TITLES.get(name, name.capitalize())


def categories(kb: KnowledgeBase) -> dict[str, list[Entry]]:
    out: dict[str, list[Entry]] = {}
    for e in sorted(kb.entries.values(), key=lambda e: (e.meta.category, e.title.lower())):
        out.setdefault(e.meta.category, []).append(e)
    return out


_RELATIVE_FLOOR = 0.35  # of the best BM25 score


def search(kb: KnowledgeBase, index: Index, query: str, limit: int = 20) -> list[Entry]:
    """An exact id first, then BM25 over the text retrieval indexes, then substring matches (id, title, summary, tags, messages)."""
    query = query.strip()[:200]
    if not query:
        return []
    needle = query.lower()
    found = [needle] if needle in kb.entries else []
    lexical = lexical_search(index, query, limit)
    top = lexical[0][1] if lexical else 0.0
    # A word shared with many entries ("error", "cuda") gives a long tail of weak matches: keep the strong ones.
    found += [eid for eid, score in lexical if score >= _RELATIVE_FLOOR * top and eid not in found]
    for e in sorted(kb.entries.values(), key=lambda e: e.id):
        hay = " ".join([e.id, e.title, e.meta.summary, *e.meta.tags, *e.meta.signals.messages]).lower()
        if needle in hay and e.id not in found:
            found.append(e.id)
    return [kb.entries[i] for i in found[:limit] if i in kb.entries]
