"""The two types every rule module uses: a rule and a boost.

Every pattern runs on RE2 (``service/linear_regex.py``), in time linear in the line: no look-around.
What a negative look-ahead used to exclude is data: ``not_with`` patterns, which a matched line (or,
for a fact boost, the fact's value) must not match.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from service import linear_regex


@dataclass(frozen=True)
class Boost:
    """Raise a rule's strength by ``delta`` when ``fact`` matches ``value`` (or ``line`` occurs in the log)."""

    delta: float
    reason: str
    fact: str | None = None
    value: str | None = None
    line: str | None = None
    not_with: str | None = None  # the fact's value, or the line that matched ``line``, must not match this


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
    not_with: tuple[str, ...] = ()  # a line that ``match`` found is not this rule's when it matches one of these
    compiled: tuple[linear_regex.Regex, ...] = field(init=False, repr=False, compare=False)
    excluded: tuple[linear_regex.Regex, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "compiled", tuple(linear_regex.compile(p) for p in self.match))
        object.__setattr__(self, "excluded", tuple(linear_regex.compile(p) for p in self.not_with))
        for p in (*self.needs, *self.unless, *(x for b in self.boosts for x in (b.value, b.line, b.not_with) if x)):
            linear_regex.cached(p, re.MULTILINE)  # refused at import, not on the first log; hits.py reuses it
