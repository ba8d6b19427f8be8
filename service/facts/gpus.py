"""GPU model names to compute capability (``sm_XY``)."""

from __future__ import annotations

import re

# Most specific first: "A100" must not swallow "A10", "L40S" before "L4".
_CAPABILITY: tuple[tuple[str, str], ...] = (
    (r"RTX\s*50\d0|RTX\s*PRO\s*\d000 Blackwell", "12.0"),
    (r"\bB200\b|\bB100\b|\bGB200\b", "10.0"),
    (r"\bH100\b|\bH200\b|\bH800\b|\bH20\b|\bGH200\b", "9.0"),
    (r"\bL40S?\b|\bL4\b|RTX\s*40\d0|RTX\s*6000\s*Ada|\bL20\b", "8.9"),
    (r"\bA100\b|\bA800\b|\bA30\b", "8.0"),
    (r"\bA10G?\b|\bA40\b|\bA16\b|\bA2\b|RTX\s*30\d0|RTX\s*A\d000", "8.6"),
    (r"\bT4\b|RTX\s*20\d0|TITAN\s*RTX|Quadro\s*RTX", "7.5"),
    (r"\bV100\b|TITAN\s*V\b", "7.0"),
    (r"\bP100\b", "6.0"),
    (r"\bP40\b|\bP4\b|GTX\s*10\d0", "6.1"),
    (r"\bK80\b", "3.7"),
)
_COMPILED = tuple((re.compile(p, re.I), cap) for p, cap in _CAPABILITY)


def compute_capability(model: str) -> str | None:
    """'H100 80GB HBM3' -> '9.0'; None for an unknown name."""
    for pattern, cap in _COMPILED:
        if pattern.search(model):
            return cap
    return None


def arch(capability: str) -> str:
    """'9.0' -> 'sm_90'."""
    major, _, minor = capability.partition(".")
    return f"sm_{major}{minor or '0'}"


def normalise_model(name: str) -> str:
    """The name as printed, without the vendor and padding: 'NVIDIA H100 80GB HBM3' -> 'H100 80GB HBM3', 'Tesla T4' stays."""
    name = re.sub(r"^\s*NVIDIA\s+", "", name.strip(), flags=re.I)
    return re.sub(r"\s{2,}", " ", name).strip()
