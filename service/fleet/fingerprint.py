"""A stable fingerprint per diagnosis, so that the same failure groups across runs and wording.

    fingerprint(d) -> (fingerprint, template)

A known failure is its catalogue entry plus the facts that tell its variants apart (an Xid code: 79 and 48
are different faults of one entry), not the wording of its line: the same entry printed by another release
or wrapped by another launcher is the same failure. An "unknown" has no entry, so its decisive line decides:
the first evidence line as a template, with what changes between runs replaced (numbers, hex, paths, UUIDs,
masked pseudonyms, timestamps and rank prefixes), plus the same facts.
"""

from __future__ import annotations

import hashlib
import re

from service.models import Diagnosis

VARIANT_FACTS = ("xid",)  # facts that split one entry into distinct failures

# Order matters: the wider shapes first, so a UUID is not read as hex and numbers.
_NORMALISE: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"^\[?(?:rank|default|RANK)\s*\d+\]?\s*:\s*"), ""),  # "[rank3]: ", "[default0]:" (torchrun --tee)
    # "[2024-02-20 11:03:46,538] ", "2024-02-20T11:03:46Z", "Tue Feb 20 11:03:41 2024"
    (re.compile(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?"), "<TIME>"),
    (re.compile(r"\b(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) +\d+ [\d:]+(?: \d{4})?"), "<TIME>"),
    (re.compile(r"<([A-Z_]+?)_\d+>"), r"<\1>"),  # masked pseudonyms: <HOST_3> -> <HOST>
    # GPU-8f4b2c1e-... and plain UUIDs
    (re.compile(r"\b(?:GPU-|MIG-)?[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b"), "<UUID>"),
    (re.compile(r"\b[0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}(?:\.[0-7])?\b"), "<PCI>"),  # 0000:3b:00.0
    (re.compile(r"\b0x[0-9a-fA-F]+\b"), "<HEX>"),  # 0x7f3a2c000000
    (re.compile(r"\b[0-9a-f]{12,}\b"), "<HEX>"),  # hashes, ids
    (re.compile(r"(?:[A-Za-z]:)?(?:/[\w.@+-]+){2,}/?"), "<PATH>"),  # /opt/conda/lib/python3.11/site-packages/x.py
    (re.compile(r"\b\d+(?:\.\d+)*\b"), "<N>"),  # 2.00, 21804, 12.1.3
    (re.compile(r"^(?:\[?(?:rank|RANK)?\s*<N>\]?\s*[:>]\s*)+"), ""),  # "[rank3]: ", "3: " prefixes
    (re.compile(r"^<HOST>\s*:\s*"), ""),  # "gpu-node-17: " launcher prefixes
    (re.compile(r"\s+"), " "),
)
MAX_TEMPLATE = 240


def template(line: str) -> str:
    """A log line with what varies between runs replaced: the same error on another run, rank or host is equal."""
    text = line.strip()
    for pattern, replacement in _NORMALISE:
        text = pattern.sub(replacement, text)
    return text.strip()[:MAX_TEMPLATE]


def fingerprint(d: Diagnosis) -> tuple[str, str]:
    """(fingerprint, template of the decisive line). 16 hex characters of a SHA-256."""
    decisive = template(d.evidence[0].text) if d.evidence else ""
    variant = "|".join(f"{name}={d.facts[name].value}" for name in VARIANT_FACTS if name in d.facts)
    basis = f"entry={d.entry_id}|{variant}" if d.entry_id else f"unknown|{decisive}|{variant}"
    return hashlib.sha256(basis.encode("utf-8")).hexdigest()[:16], decisive
