"""The CI gate: thresholds from ``evals/thresholds.yaml``; raising them is welcome, lowering needs a reason."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml


def check(summary: dict[str, Any], thresholds_path: Path) -> list[str]:
    """The reasons the gate fails; empty when it passes."""
    t = yaml.safe_load(thresholds_path.read_text(encoding="utf-8"))
    failures: list[str] = []
    if summary["n"] < t.get("min_cases", 0):
        failures.append(f"only {summary['n']} cases, the suite needs at least {t['min_cases']}")
    if summary["top1"] < t["top1"]:
        failures.append(f"top-1 {summary['top1']:.3f} is under {t['top1']}")
    if summary["top3"] < t["top3"]:
        failures.append(f"top-3 {summary['top3']:.3f} is under {t['top3']}")
    if t.get("easy_must_pass", True) and summary["easy_failures"]:
        failures.append(f"easy cases failed: {', '.join(summary['easy_failures'])}")
    if summary["leaks"] and t.get("max_leaks", 0) < len(summary["leaks"]):
        failures.append(f"{len(summary['leaks'])} planted secret(s) leaked through masking")
    if summary["errors"]:
        failures.append(f"{len(summary['errors'])} case(s) raised an error")
    if "initiating_rank_accuracy" in t and summary["initiating_rank"]["accuracy"] < t["initiating_rank_accuracy"]:
        failures.append(f"initiating-rank accuracy {summary['initiating_rank']['accuracy']:.3f} is under {t['initiating_rank_accuracy']}")
    chat = summary.get("chat")
    if chat and "chat_pass_rate" in t and chat["pass_rate"] < t["chat_pass_rate"]:
        failures.append(f"chat pass rate {chat['pass_rate']:.3f} is under {t['chat_pass_rate']}")
    return failures
