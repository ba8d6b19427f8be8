"""Diagnostic tokens that identity recognizers must never eat: timestamps, versions, PCI ids, addresses.

Applied to identity and personal-data matches only (hosts, IPs, MACs, cards, IBANs): a credential is
masked even inside one of these. Each pattern names the log line it protects.
"""

from __future__ import annotations

import re

from service import linear_regex

# RE2 (linear time): where a look-around tested a neighbour, the pattern consumes it and the token is group v
PROTECTED: list[linear_regex.Regex] = [
    linear_regex.compile(p, re.MULTILINE)
    for p in (
        # [2024-05-01 12:00:03,123] / 2024-05-01T12:00:03.123456+00:00 (ISO 8601, never a date to mask)
        r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?",
        # I0501 12:00:03.123456 glog prefix (not inside a colon-separated MAC or IPv6 address)
        r"(?:^|[^:\w])(?P<v>\d{2}:\d{2}:\d{2}(?:[.,]\d+)?)(?:$|[^:\w])",
        # nvidia-smi / Xid: PCI bus id 00000000:3B:00.0
        r"\b[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7]\b",
        # frame #3: ... + 0x7f3a2c000000
        r"\b0x[0-9A-Fa-f]+\b",
        # cuDNN version 8.9.2.26 | TensorRT 8.6.1.6 | driver 535.104.05 (four-part versions look like IPv4)
        r"(?i:\b(?:cudnn|cuda|nccl|driver|torch|pytorch|python|tensorrt|trt|triton|transformers|deepspeed|apex"
        r"|jax|jaxlib|numpy|cublas|cufft|version|ver|release|build)\b[\s:=v]*\d+(?:\.\d+)+(?:[+~-][\w.]+)?)",
        # Docker images' env: NV_LIBCUBLAS_VERSION=12.4.5.8-1, CUDNN_VERSION=9.1.0.70 (four-part versions look like IPv4)
        r"[A-Z0-9_]*VERSION\s*[=:]\s*(?P<v>v?\d+(?:\.\d+)+[\w.+~-]*)",
        # pip list / conda list rows: "nvidia-cudnn-cu12        8.9.2.26", "ninja  1.11.1.1"
        r"^\s*[A-Za-z0-9][\w.-]*\s{2,}v?\d+(?:\.\d+)+\S*",
        # pins and glued versions: nvidia-cudnn-cu12==8.9.2.26, /opt/TensorRT-8.5.3.1/lib, cudnn_8.9.2.26
        r"[=<>~!]=(?P<v>\s*v?\d+(?:\.\d+)+)",
        r"[A-Za-z][-_](?P<v>v?\d+(?:\.\d+){2,})",
        # apt and wheel versions with a build suffix: 11.7.4.6~11.5.1-1ubuntu1, 2.1.2.1+cu121
        r"(?P<v>\b\d+(?:\.\d+){2,})[~+]\w",
        # v1.2.3.4 and long dotted numbers 1.2.3.4.5
        r"(?:^|[^\w.])(?P<v>v\d+(?:\.\d+){2,})",
        r"(?:^|[^\w.])(?P<v>\d+(?:\.\d+){4,})",
        # memory figures and byte counts: 79.15 GiB, 1099511627776 bytes
        r"\b\d[\d,.]*\s?(?:bytes|[KMGTP]i?B)\b",
    )
]


def protected_spans(text: str) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    for rx in PROTECTED:
        group = "v" if "v" in rx.groupindex else 0
        spans.extend(m.span(group) for m in rx.finditer(text, resume=group))
    return spans


def overlaps(start: int, end: int, spans: list[tuple[int, int]]) -> bool:
    return any(s < end and start < e for s, e in spans)
