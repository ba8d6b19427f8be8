"""The fact rule type and the small value helpers the source modules share."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from service.facts.gpus import normalise_model
from service.facts.literals import required_literals


@dataclass(frozen=True)
class FactRule:
    id: str
    fact: str
    pattern: re.Pattern[str]
    value: Callable[[re.Match[str]], str | None] = lambda m: m.group(1)
    keep: str = "first"  # "first", "last" or "best"
    prefilter: str = ""  # a cheap substring the line must contain
    literals: tuple[str, ...] = ()  # lowercased: a line without any of them cannot match (derived from the pattern)


def rule(
    id: str,
    fact: str,
    pattern: str,
    value: Callable[[re.Match[str]], str | None] | None = None,
    *,
    keep: str = "first",
    prefilter: str = "",
    flags: int = 0,
) -> FactRule:
    compiled = re.compile(pattern, flags)
    return FactRule(id, fact, compiled, value or first_group, keep, prefilter, required_literals(pattern, flags))


def first_group(m: re.Match[str]) -> str | None:
    return next((g for g in m.groups() if g is not None), None)


def gpu_name(m: re.Match[str]) -> str | None:
    """'NVIDIA H100 80GB HBM3' -> 'H100 80GB HBM3'; names nvidia-smi truncated ('V100-SXM2...') are not names."""
    raw = first_group(m) or ""
    if raw.rstrip().endswith("..."):
        return None
    raw = re.sub(r"\s+(?:x\s*\d+|over \d+ nodes?|per node|on \w+|with .*)\s*$", "", raw)
    name = normalise_model(raw)
    return name if re.search(r"\d", name) and len(name) < 60 else None


def cuda_from_tag(m: re.Match[str]) -> str:
    """'cu121' -> '12.1', 'cu118' -> '11.8'."""
    digits = (first_group(m) or "").removeprefix("cu")
    return f"{digits[:-1]}.{digits[-1]}"


def const(value: str) -> Callable[[re.Match[str]], str]:
    return lambda m: value
