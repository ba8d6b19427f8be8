"""The two types every rule module uses: a rule and a boost."""

from __future__ import annotations

import re
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Boost:
    """Raise a rule's strength by ``delta`` when ``fact`` matches ``value`` (or ``line`` occurs in the log)."""

    delta: float
    reason: str
    fact: str | None = None
    value: str | None = None
    line: str | None = None


@dataclass(frozen=True)
class Rule:
    id: str
    entry: str
    match: tuple[str, ...]
    strength: float
    needs: tuple[str, ...] = ()
    unless: tuple[str, ...] = ()
    boosts: tuple[Boost, ...] = ()
    consequence: bool = False
    summary: bool = False  # the launcher's summary of an exit: steps aside for any other rule that fired
    compiled: tuple[re.Pattern[str], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "compiled", tuple(re.compile(p) for p in self.match))
