"""Names learned from their context, masked wherever they recur later in the same run.

``SLURM_JOB_USER=mchen`` teaches ``mchen``; from then on ``/data/mchen/ckpt`` and ``mchen-exp`` are
masked too, with the same pseudonym. Single pass, so whole, chunked and split input agree (a mention
before the teaching line stays). Names a pattern finds by their own shape (``gpu-node-017``,
``db.corp.internal``) are found again anyway and are not learned; nor are short names or common words.
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from collections.abc import Callable

from service import linear_regex
from service.masking.checks import words

_DIGITS_TO_ZERO = bytes.maketrans(b"123456789", b"000000000")
_MAX_SHAPES = 100_000

LEARNABLE = {"USERNAME": 256, "HOSTNAME": 256}  # entity -> most names learned per run
# Patterns whose names need no learning (found again by their shape), or are too weak to teach a name.
SELF_EVIDENT = frozenset({"fqdn", "node name", "node range", "data disk dir"})
_NAME = linear_regex.compile(r"[A-Za-z][\w.-]{2,62}[A-Za-z0-9]")
_NOT_LEARNED = words(
    """user users admin administrator root ubuntu debian centos fedora ec2-user azureuser runner worker
    workers node nodes host server train training model models data dataset test tests work home shared
    scratch project projects code conda python torch cuda nvidia jovyan jupyter docker default guest nobody
    service master main local public team"""
)
# Packages a log names as code (``import mlflow``, ``optuna.exceptions.TrialPruned``, a PostgreSQL role named
# after its app): a pseudonym there breaks the evidence a diagnosis rests on. Never learned as a person or a host.
_PACKAGES = words(
    """optuna mlflow celery wandb ray torch torchvision torchaudio transformers datasets accelerate deepspeed
    megatron nemo peft trl vllm sglang triton xformers apex jax jaxlib flax optax tensorflow keras numpy scipy
    pandas sklearn polars pyarrow arrow lightning pytorch_lightning hydra omegaconf fsspec s3fs gcsfs boto3
    botocore redis postgres postgresql mysql sqlite mongo kafka airflow dask spark pyspark horovod nccl gloo
    openai anthropic litellm langchain tokenizers safetensors bitsandbytes einops timm diffusers evaluate
    tensorboard comet neptune clearml aim sentry grafana prometheus jupyter ipython pytest uvicorn gunicorn
    fastapi flask django requests urllib3 httpx grpc protobuf onnx onnxruntime tensorrt cupy numba"""
) | frozenset(sys.stdlib_module_names)


def shape(text: str) -> bytes:
    """The text with ASCII digits folded to 0: the cache key for verdicts that cannot depend on them."""
    return text.encode("utf-8", "surrogatepass").translate(_DIGITS_TO_ZERO)


class LearnedNames:
    def __init__(self) -> None:
        self.names: dict[str, str] = {}  # value -> entity, in the order learned
        self._per_entity: Counter[str] = Counter()
        self._rx: linear_regex.Regex | None = None
        self._shape_rx: re.Pattern[bytes] | None = None
        self._shapes: dict[bytes, bool] = {}  # line shape -> may hold a learned name (until the next name)

    def __bool__(self) -> bool:
        return bool(self.names)

    def learn(self, entity: str, value: str, pattern: str) -> None:
        if (
            entity in LEARNABLE
            and pattern not in SELF_EVIDENT
            and value not in self.names
            and self._per_entity[entity] < LEARNABLE[entity]
            and _NAME.fullmatch(value)
            and value.lower() not in _NOT_LEARNED
            and value.lower() not in _PACKAGES
        ):
            self.names[value] = entity
            self._per_entity[entity] += 1
            self._rx = self._shape_rx = None
            self._shapes.clear()

    def may_occur(self, line_shape: bytes) -> bool:
        """Cheap, cached per line shape: could a learned name occur in this line?"""
        verdict = self._shapes.get(line_shape)
        if verdict is None:
            if self._shape_rx is None:
                folded = sorted({shape(name) for name in self.names}, key=len, reverse=True)
                self._shape_rx = re.compile(b"|".join(map(re.escape, folded)))
            verdict = self._shape_rx.search(line_shape) is not None
            if len(self._shapes) >= _MAX_SHAPES:
                self._shapes.clear()
            self._shapes[line_shape] = verdict
        return verdict

    def mask(self, text: str, replace: Callable[[str, str], str]) -> str:
        """Replace whole-word mentions of learned names with ``replace(entity, value)``."""
        if self._rx is None:
            names = "|".join(map(re.escape, sorted(self.names, key=len, reverse=True)))
            # a whole word: not inside a longer name, nor a placeholder (<HOST_1>) already made
            self._rx = linear_regex.compile(r"(?:^|[^A-Za-z0-9<])(?P<v>" + names + r")(?:$|[^A-Za-z0-9])")
        pieces: list[str] = []
        last = 0
        for m in self._rx.finditer(text, resume="v"):
            start, end = m.span("v")
            if _as_code(text, start, end):
                continue
            pieces += (text[last:start], replace(self.names[m.group("v")], m.group("v")))
            last = end
        return "".join(pieces) + text[last:] if pieces else text


_ATTRIBUTE = linear_regex.compile(r"\.([A-Za-z_]\w*)")
_FILE_SUFFIXES = words("log txt out err json jsonl yaml yml toml csv tsv pt pth bin ckpt safetensors gz zst tar zip sh py md")
_CODE_BEFORE = linear_regex.compile(r"(?:\bimport\s+|\bfrom\s+|(?:site|dist)-packages/|\w\.)$")


def _as_code(text: str, start: int, end: int) -> bool:
    """The mention is a module, an attribute or a package directory (``mlflow.log_metric``), not the name learned."""
    attribute = _ATTRIBUTE.match(text, end)
    if attribute and attribute.group(1).lower() not in _FILE_SUFFIXES:
        return True  # mlflow.exceptions, not rkowalsk.log
    return _CODE_BEFORE.search(text[max(0, start - 24) : start]) is not None
