"""Triage for a decisive error no entry explains: its kind (hardware, launcher, environment, library, user code) and
what to do about it, from ``kb/triage/<kind>.md`` (data, validated strictly; see kb/triage/README.md)."""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from service import linear_regex
from service.errors import ConfigError

# The order kinds are tried in: a line from the machine or the launcher says so whatever else it holds.
ORDER = ("hardware", "launcher", "environment", "library", "user-code")
_FRAME = re.compile(r'^\s*File "([^"]+)", line \d+')
# An installed package's frame: ".../site-packages/PIL/Image.py", ".../dist-packages/torch/..."; Cython ("pyarrow/error.pxi")
_PACKAGE = re.compile(r"/(?:site|dist)-packages/|\.pyx$|\.pxi$")
# The standard library's frames: "/usr/lib/python3.11/json/decoder.py", "<frozen os>", ".../lib/python3.10/copy.py"
_STDLIB = re.compile(r"^<frozen |/lib/python3\.\d+/(?!(?:site|dist)-packages/)[^/]+(?:/[^/]+)?\.py$")


class TriageKind(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    title: str
    summary: str
    patterns: list[str] = Field(default_factory=list)
    steps: list[str] = Field(min_length=1)
    verify: list[str] = Field(min_length=1)
    body: str = ""

    def compiled(self) -> list[linear_regex.Regex]:
        return [linear_regex.cached(p) for p in self.patterns]


def _parse(path: Path) -> TriageKind:
    text = path.read_text(encoding="utf-8")
    try:
        _, front, body = text.split("---\n", 2)
        return TriageKind.model_validate({**yaml.safe_load(front), "body": body.strip()})
    except (ValueError, yaml.YAMLError, ValidationError) as exc:
        raise ConfigError(f"{path}: invalid triage file: {exc}", hint="Fix the file (kb/triage/README.md says the format).") from exc


@lru_cache(maxsize=4)
def load_triage(folder: Path) -> dict[str, TriageKind]:
    """Every kind of ``ORDER``, from ``<kb>/triage/``; a missing one is an installation error."""
    kinds = {k: _parse(folder / f"{k}.md") for k in ORDER if (folder / f"{k}.md").exists()}
    missing = [k for k in ORDER if k not in kinds]
    if missing:
        raise ConfigError(f"{folder}: triage kinds missing: {', '.join(missing)}", hint="Reinstall crashdoc (kb/triage/ ships with it).")
    for kind in kinds.values():
        kind.compiled()  # a pattern RE2 cannot run is refused here, at load
    return kinds


def matching_kind(text: str, kinds: dict[str, TriageKind]) -> TriageKind | None:
    """The first kind (in ``ORDER``) with a pattern for this line."""
    for k in ORDER:
        if any(p.search(text) for p in kinds[k].compiled()):
            return kinds[k]
    return None


def classify(block: list[str], kinds: dict[str, TriageKind]) -> TriageKind:
    """The kind of a decisive error, from its line (the last of ``block``) and the traceback above it."""
    line = block[-1] if block else ""
    found = matching_kind(line, kinds) or next((k for text in block for k in [matching_kind(text, kinds)] if k), None)
    if found:
        return found
    frames = [m.group(1) for text in block if (m := _FRAME.match(text))]
    own = [f for f in frames if not _STDLIB.search(f)]
    if own and _PACKAGE.search(own[-1]):
        return kinds["library"]
    if frames or re.search(r"(?:Error|Exception)\b", line):
        return kinds["user-code"]
    return kinds["environment"]
