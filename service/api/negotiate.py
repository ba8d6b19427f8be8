"""Content negotiation (RFC 9110 section 12.5.1): which of the media types a route offers the ``Accept`` header
prefers. A range's quality (``q``) applies to the types it matches, the most specific range deciding
(``text/markdown`` over ``text/*`` over ``*/*``); ``q=0`` refuses a type; on a tie the route's own order wins
(JSON first). No ``Accept`` header: the first offered. Nothing acceptable: ``NotAcceptable`` (406).
"""

from __future__ import annotations

from collections.abc import Sequence

from service.errors import NotAcceptable

JSON = "application/json"
MARKDOWN = "text/markdown"
DIAGNOSIS_TYPES = (JSON, MARKDOWN)


def _ranges(accept: str) -> list[tuple[str, str, float]]:
    """(type, subtype, q) for each well-formed range; a malformed one is skipped, as if it were not there."""
    out: list[tuple[str, str, float]] = []
    for item in accept.split(","):
        media, *params = (p.strip() for p in item.split(";"))
        kind, slash, sub = media.lower().partition("/")
        if not slash or not kind or not sub or (kind == "*" and sub != "*"):
            continue
        q = 1.0
        for p in params:
            name, _, value = p.partition("=")
            if name.strip().lower() == "q":
                try:
                    q = float(value.strip())
                except ValueError:
                    q = -1.0
        if 0.0 <= q <= 1.0:
            out.append((kind, sub, q))
    return out


def _quality(offered: str, ranges: list[tuple[str, str, float]]) -> float:
    kind, _, sub = offered.partition("/")
    best, specificity = 0.0, -1
    for r_kind, r_sub, q in ranges:
        if (r_kind, r_sub) == (kind, sub):
            level = 2
        elif r_kind == kind and r_sub == "*":
            level = 1
        elif (r_kind, r_sub) == ("*", "*"):
            level = 0
        else:
            continue
        if level > specificity:
            best, specificity = q, level
    return best


def choose(accept: str | None, offered: Sequence[str] = DIAGNOSIS_TYPES) -> str:
    if accept is None or not accept.strip():
        return offered[0]
    ranges = _ranges(accept)
    if not ranges:  # nothing readable in it: answer as if it were absent
        return offered[0]
    scored = [(_quality(t, ranges), -i, t) for i, t in enumerate(offered)]
    q, _, best = max(scored)
    if q <= 0:
        raise NotAcceptable(f"None of the types this route answers with ({', '.join(offered)}) is acceptable: "
                            f"Accept: {accept[:200]}", hint=f"Accept one of {', '.join(offered)} (or */*).")
    return best
