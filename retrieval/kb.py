"""The knowledge base: one markdown file per failure, front matter validated strictly.

kb/ is the catalogue of record: an entry's id is its file name (kebab-case, never renamed) and its category
is one of ``CATEGORIES``. Every id of the original failure catalogue (``../shared/failure-catalog.yaml``)
keeps its entry, its id and its category (tests/test_kb.py); new ids need no catalogue line.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from retrieval.errors import KBError

SCHEMA_VERSION = 1

SECTIONS: tuple[tuple[str, str], ...] = (
    ("what", "What it is"),
    ("mechanism", "Mechanism"),
    ("observe", "What you will observe"),
    ("confirm", "How to confirm"),
    ("fix", "Fix"),
    ("prevention", "Prevention"),
    ("verify", "Verify"),
)
_SECTION_KEYS = {title.lower(): key for key, title in SECTIONS}
# What an answer may cite as "<entry_id>#<key>": the body sections, and the front matter's ``affected`` block.
CITABLE_SECTIONS: tuple[tuple[str, str], ...] = (*SECTIONS, ("affected", "Affected systems"))


# The vocabulary of two front-matter fields: ``phase`` (where in a run the failure strikes: the moment a
# reader would recognise from their own run) and ``libraries`` (the hub pages, /kb/library/<key>, it is on).
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

# The categories an entry may name (its ``category``): those of the failure catalogue, which kb/ extends.
# A new category is a deliberate edit here, with its title in service/web/encyclopedia.py when it is not
# the capitalised word.
CATEGORIES: tuple[str, ...] = (
    "memory", "data", "infra", "cuda", "hardware", "distributed", "deepspeed", "numerics", "autograd", "model",
    "checkpoint", "environment", "inference",
    "compile",  # torch.compile, Dynamo, Inductor, CUDA graphs, Triton (added with kb/ as the catalogue of record)
)
# An id is kebab-case: lower-case words of letters and digits joined by single hyphens.
ID_PATTERN = r"^[a-z0-9]+(?:-[a-z0-9]+)+$"


@dataclass(frozen=True)
class Library:
    """A hub page: the entries whose front matter lists ``key`` under ``libraries``. ``names`` pick out the
    rows of an entry's affected software that concern the library (shown on the hub)."""

    key: str
    title: str
    names: tuple[str, ...]


LIBRARIES: tuple[Library, ...] = (
    Library("pytorch", "PyTorch", ("pytorch", "torch", "ddp", "fsdp", "torchrun", "autograd", "torchtitan")),
    Library("deepspeed", "DeepSpeed", ("deepspeed",)),
    Library("nccl", "NCCL", ("nccl",)),
    Library("cuda", "CUDA", ("cuda", "cublas", "cudnn", "nvcc", "nvidia-driver")),
    Library("transformers", "Hugging Face Transformers", ("transformers", "hf-trainer", "huggingface_hub")),
    Library("datasets", "Hugging Face Datasets", ("datasets", "fsspec")),
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
    Library("jax", "JAX and XLA", ("jax", "jaxlib", "xla")),
    Library("mpi", "MPI (Open MPI)", ("openmpi", "mpich", "mpi4py")),
    Library("storage", "File systems and object stores", ("botocore", "boto3", "s3fs", "google-auth", "gcsfs", "nfs", "linux-nfs-client")),
    Library("megatron", "Megatron-LM and NeMo", ("megatron-core", "megatron-lm", "nemo")),
    Library("tracking", "Experiment tracking (W&B, MLflow, TensorBoard)", ("wandb", "mlflow", "tensorboard")),
)




class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Signals(_Strict):
    messages: list[str] = Field(min_length=1)
    more_likely_when: list[str] = Field(default_factory=list)
    less_likely_when: list[str] = Field(default_factory=list)
    # fragment -> the releases whose artifacts contain it, as kb/check_signals.py found (it writes this)
    seen_in: dict[str, list[str]] = Field(default_factory=dict)
    # fragment -> what prints it, for a fragment that no artifact the check reads can contain
    # (the kernel, the CUDA driver, the shell, a launcher that is not on PyPI)
    printed_by: dict[str, str] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _keys_are_messages(self) -> Signals:
        unknown = [k for k in (*self.seen_in, *self.printed_by) if k not in self.messages]
        if unknown:
            raise ValueError(f"seen_in/printed_by name fragments that are not in messages: {unknown}")
        return self


class Software(_Strict):
    name: str
    versions: str
    fixed_in: str | None = None
    note: str | None = None
    # the releases whose source or artifacts were read to check this entry's claims about the library
    checked: list[str] = Field(default_factory=list)

    @field_validator("versions", "fixed_in", mode="before")
    @classmethod
    def _as_text(cls, v: object) -> object:
        return None if v is None else str(v)


class Affected(_Strict):
    hardware: list[str] = Field(default_factory=list)
    software: list[Software] = Field(default_factory=list)


class FrontMatter(_Strict):
    id: str = Field(pattern=ID_PATTERN)
    title: str = Field(min_length=5)
    category: str
    phase: str  # a key of PHASES
    libraries: list[str] = Field(default_factory=list)  # keys of LIBRARIES
    summary: str = Field(min_length=20)
    tags: list[str] = Field(default_factory=list)
    schema_version: int
    updated: date
    related: list[str] = Field(default_factory=list)
    signals: Signals
    affected: Affected

    @field_validator("category")
    @classmethod
    def _known_category(cls, v: str) -> str:
        if v not in CATEGORIES:
            raise ValueError(f"unknown category '{v}' (one of {', '.join(CATEGORIES)}: CATEGORIES in retrieval/kb.py)")
        return v

    @field_validator("phase")
    @classmethod
    def _known_phase(cls, v: str) -> str:
        if v not in {p.key for p in PHASES}:
            raise ValueError(f"unknown phase '{v}' (one of {', '.join(p.key for p in PHASES)})")
        return v

    @field_validator("libraries")
    @classmethod
    def _known_libraries(cls, v: list[str]) -> list[str]:
        unknown = [k for k in v if k not in {lib.key for lib in LIBRARIES}]
        if unknown:
            raise ValueError(f"unknown libraries {unknown} (the keys of LIBRARIES in retrieval/kb.py)")
        return v

    @field_validator("schema_version")
    @classmethod
    def _known_version(cls, v: int) -> int:
        if v != SCHEMA_VERSION:
            raise ValueError(f"schema_version {v} is not supported (expected {SCHEMA_VERSION})")
        return v


class Entry(_Strict):
    meta: FrontMatter
    sections: dict[str, str]
    path: str

    @property
    def id(self) -> str:
        return self.meta.id

    @property
    def title(self) -> str:
        return self.meta.title

    def section(self, key: str) -> str:
        return self.sections.get(key, "")


class KnowledgeBase(BaseModel):
    model_config = ConfigDict(frozen=True)

    entries: dict[str, Entry]
    version: str  # content hash of kb/

    def get(self, entry_id: str) -> Entry | None:
        return self.entries.get(entry_id)

    def __len__(self) -> int:
        return len(self.entries)


# libyaml's parser when PyYAML was built with it (the wheels are), the pure-Python one otherwise
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_FRONT = re.compile(r"\A---\s*\n(.*?)\n---\s*\n(.*)\Z", re.S)
_HEADING = re.compile(r"^## +(.+?)\s*$", re.M)


def parse_entry(path: Path) -> Entry:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise KBError(f"{path.name}: not UTF-8 text ({exc.reason} at byte {exc.start})") from exc
    m = _FRONT.match(text)
    if not m:
        raise KBError(f"{path.name}: no YAML front matter between '---' lines")
    try:
        raw = yaml.load(m.group(1), Loader=_YAML_LOADER)
        meta = FrontMatter.model_validate(raw)
    except yaml.YAMLError as exc:
        raise KBError(f"{path.name}: the front matter is not YAML: {' '.join(str(exc).split())}") from exc
    except ValidationError as exc:  # one line: each problem as "field: what is wrong"
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'front matter'}: {e['msg']}" for e in exc.errors())
        raise KBError(f"{path.name}: invalid front matter: {problems}") from exc
    if meta.id != path.stem:
        raise KBError(f"{path.name}: id '{meta.id}' differs from the file name")
    body = m.group(2)
    heads = list(_HEADING.finditer(body))
    sections: dict[str, str] = {}
    order: list[str] = []
    for i, h in enumerate(heads):
        key = _SECTION_KEYS.get(h.group(1).strip().lower())
        if key is None:
            raise KBError(f"{path.name}: unknown section '## {h.group(1)}'")
        end = heads[i + 1].start() if i + 1 < len(heads) else len(body)
        sections[key] = body[h.end() : end].strip()
        order.append(key)
    expected = [key for key, _ in SECTIONS]
    if order != expected:
        raise KBError(f"{path.name}: sections must be, in order: " + ", ".join(t for _, t in SECTIONS))
    return Entry(meta=meta, sections=sections, path=str(path))


# Markdown files of kb/ that are not entries: its guide and the signal check's report.
NOT_ENTRIES = frozenset({"README.md", "signals-report.md"})


def entry_paths(kb_dir: Path) -> list[Path]:
    """The entry files of a kb/ folder, sorted."""
    return [p for p in sorted(kb_dir.glob("*.md")) if p.name not in NOT_ENTRIES]


def content_hash(kb_dir: Path) -> str:
    h = hashlib.sha256()
    for p in entry_paths(kb_dir):
        h.update(p.name.encode())
        h.update(p.read_bytes())
    return h.hexdigest()[:16]


def load_kb(kb_dir: Path) -> KnowledgeBase:
    """Load and validate every entry; cross-checks `related` ids."""
    entries: dict[str, Entry] = {}
    for p in entry_paths(kb_dir):
        entry = parse_entry(p)
        entries[entry.id] = entry
    if not entries:  # an install without its kb/ must not answer "unknown" to everything without a word
        raise KBError(f"No kb/ entries in {kb_dir}.", hint="Reinstall crashdoc, or set CRASHDOC_KB_DIR to the kb/ folder.")
    for entry in entries.values():
        missing = [r for r in entry.meta.related if r not in entries]
        if missing:
            raise KBError(f"{entry.id}.md: related ids not in kb/: {', '.join(missing)}")
    return KnowledgeBase(entries=entries, version=content_hash(kb_dir))


def load_catalog(path: Path) -> dict[str, dict[str, str]]:
    """The failure catalogue: id -> {category, title, signal}."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    return {f["id"]: f for f in data["failures"]}


_LIST_ITEM = re.compile(r"^\s*(?:\d+[.)]|[-*])\s+(.*)$")


def section_steps(markdown: str) -> list[str]:
    """Top-level list items of a section (continuation lines and code blocks folded into their item)."""
    steps: list[str] = []
    in_code = False
    for line in markdown.splitlines():
        if line.strip().startswith("```"):
            in_code = not in_code
            if steps:
                steps[-1] += "\n" + line
            continue
        m = _LIST_ITEM.match(line) if not in_code and not line.startswith(("  ", "\t")) else None
        if m:
            steps.append(m.group(1).strip())
        elif steps and (line.strip() or in_code):
            steps[-1] += "\n" + line
    if not steps and markdown.strip():
        steps = _paragraphs(markdown)
    return [s.strip() for s in steps]


def _paragraphs(markdown: str) -> list[str]:
    """Blocks split at blank lines, a fenced code block kept whole (its blank lines do not end it)."""
    blocks: list[list[str]] = [[]]
    in_code = False
    for line in markdown.splitlines():
        if line.strip().startswith("```"):
            in_code = not in_code
        if not line.strip() and not in_code:
            blocks.append([])
        else:
            blocks[-1].append(line)
    return [text for b in blocks if (text := "\n".join(b).strip())]
