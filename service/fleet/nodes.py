"""Nodes named by a diagnosis, as a workspace's pseudonyms: no raw hostname or GPU UUID is ever stored.

A host is masked to a per-run placeholder (``<HOST_2>``) like every identity; here that placeholder's value is
also keyed, while the run is masked, with the workspace's secret: ``node-`` and 10 hex characters of an
HMAC-SHA256. The same host is then the same pseudonym in every run of one workspace (what finds a bad node across
jobs), and nothing stored maps back to the name. GPU UUIDs, which masking keeps (they are diagnostic), are keyed
the same way (``gpu-...``) when recorded. PCI bus ids and Xid codes are recorded as printed: they name a slot or
a fault, not a machine.

    keyed(secret, value) -> str                 the pseudonym of a normalised value
    sightings(diagnosis, hosts, secret)         the nodes a diagnosis names, with the line that names each
"""

from __future__ import annotations

import hashlib
import hmac
import re
from dataclasses import dataclass

from service.models import Diagnosis

HARDWARE_CATEGORIES = frozenset({"hardware"})
_HOST = re.compile(r"<HOST_\d+>")
# "GPU-5c3b6a9e-1f2d-4e8a-9b7c-0d1e2f3a4b5c" (nvidia-smi -L, Xid lines, DCGM)
_GPU_UUID = re.compile(r"\bGPU-[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b")
# "NVRM: Xid (PCI:0000:3b:00): 79", "00000000:00:1B.0"
_PCI = re.compile(r"\b(?:PCI:)?([0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}(?:\.[0-7])?)\b")


def keyed(secret: bytes, value: str, prefix: str = "node") -> str:
    return f"{prefix}-" + hmac.new(secret, value.strip().lower().encode("utf-8"), hashlib.sha256).hexdigest()[:10]


def is_hardware(d: Diagnosis) -> bool:
    """A hardware-class failure: the entry's category says so, or the driver reported an Xid."""
    return (d.category or "") in HARDWARE_CATEGORIES or "xid" in d.facts


@dataclass(frozen=True)
class Sighting:
    node: str  # node-<hmac> or gpu-<hmac>
    pci: str | None
    evidence: str  # the masked line, its host placeholders replaced by the pseudonyms


def sightings(d: Diagnosis, hosts: dict[str, str], secret: bytes) -> list[Sighting]:
    """The nodes the diagnosis's evidence names: hosts on its evidence lines (else the run's only host), and GPUs by
    UUID. ``hosts`` maps the run's placeholders to the workspace's pseudonyms."""
    found: dict[str, Sighting] = {}

    def readable(text: str) -> str:
        return _HOST.sub(lambda m: hosts.get(m.group(0), m.group(0)), text)[:500]

    for ev in d.evidence:
        pci = ",".join(sorted(set(_PCI.findall(ev.text)))) or None
        for placeholder in _HOST.findall(ev.text):
            if placeholder in hosts and hosts[placeholder] not in found:
                found[hosts[placeholder]] = Sighting(hosts[placeholder], pci, readable(ev.text))
        for uuid in _GPU_UUID.findall(ev.text):
            node = keyed(secret, uuid, "gpu")
            found.setdefault(node, Sighting(node, pci, readable(_GPU_UUID.sub("<GPU_UUID>", ev.text))))
    if not any(s.node.startswith("node-") for s in found.values()) and len(set(hosts.values())) == 1:
        only = next(iter(hosts.values()))
        line = readable(d.evidence[0].text) if d.evidence else ""
        found[only] = Sighting(only, None, line)
    return list(found.values())
