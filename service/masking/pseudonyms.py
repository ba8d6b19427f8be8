"""Per-run pseudonyms: the same host, IP or user becomes the same placeholder in every line of ONE run.

The table lives in memory for one mask() call and is dropped with it: placeholders are numbered by
first appearance, so nothing stored (the masked log, the diagnosis) can be mapped back to a value.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable

from service.masking.kinds import KINDS, Kind


def _normalise(kind: Kind, value: str) -> str:
    v = value.strip().rstrip(".").lower()
    if kind.entity == "IP_ADDRESS":
        try:
            ip = ipaddress.ip_interface(v.split("%")[0]).ip
        except ValueError:
            return v
        mapped = getattr(ip, "ipv4_mapped", None)  # ::ffff:10.44.1.17 is 10.44.1.17 (NCCL's RoCE GIDs)
        return str(mapped or ip)
    if kind.entity == "MAC_ADDRESS":
        return "".join(c for c in v if c.isalnum())
    return v


class Pseudonyms:
    """Maps (kind, value) to a placeholder: ``<HOST_1>`` for identities, ``<HF_TOKEN>`` for credentials."""

    def __init__(self) -> None:
        self._table: dict[str, dict[str, str]] = {}

    def placeholder(self, entity: str, value: str) -> str:
        kind = KINDS[entity]
        if not kind.numbered:
            return f"<{kind.tag}>"
        table = self._table.setdefault(kind.tag, {})
        key = _normalise(kind, value)
        found = table.get(key)
        if found is None:
            found = f"<{kind.tag}_{len(table) + 1}>"
            table[key] = found
        return found

    def keyed(self, tag: str, key: Callable[[str], str]) -> dict[str, str]:
        """Each ``tag`` placeholder of this run -> ``key(normalised value)`` (a keyed hash: service/fleet/nodes.py),
        made before the table is dropped, so a value is never kept, only what it keys to."""
        return {placeholder: key(value) for value, placeholder in self._table.get(tag, {}).items()}

    def __len__(self) -> int:
        return sum(len(t) for t in self._table.values())
