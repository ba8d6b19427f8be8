"""The CI gate: thresholds from ``evals/thresholds.yaml``; raising them is welcome, lowering needs a reason."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml


def _ranking(name: str, figures: dict[str, Any], t: dict[str, Any]) -> list[str]:
    failures = []
    if figures["n"] < t.get("min_cases", 0):
        failures.append(f"{name}: only {figures['n']} cases, it needs at least {t['min_cases']}")
    for metric in ("top1", "top3"):
        if metric in t and figures[metric] < t[metric]:
            failures.append(f"{name}: {metric[:3]}-{metric[3:]} {figures[metric]:.3f} is under {t[metric]}")
    return failures


def check(summary: dict[str, Any], thresholds_path: Path) -> list[str]:
    """The reasons the gate fails; empty when it passes.

    The top-level ranking thresholds apply to the ``cases`` directory (to all cases when it was not run);
    ``splits`` holds thresholds for other directories, which must then have been evaluated.
    """
    t = yaml.safe_load(thresholds_path.read_text(encoding="utf-8"))
    by_split = summary.get("by_split", {})
    main = by_split.get("cases") or {"n": summary["n"], "top1": summary["top1"], "top3": summary["top3"]}
    failures = _ranking("cases" if "cases" in by_split else "all cases", main, t)
    for split, limits in (t.get("splits") or {}).items():
        if split not in by_split:
            failures.append(f"{split}: not evaluated (add --cases evals/{split})")
            continue
        failures += _ranking(split, by_split[split], limits)
    if t.get("fused_beats_each_source"):
        fused = summary["by_source"]["fused"]["top1"]
        for source in ("rule", "dense", "lexical", "rrf"):
            alone = summary["by_source"][source]["top1"]
            if fused <= alone:
                failures.append(f"the fused ranking's top-1 {fused:.3f} does not beat {source} alone ({alone:.3f})")
    if t.get("easy_must_pass", True) and summary["easy_failures"]:
        failures.append(f"easy cases failed: {', '.join(summary['easy_failures'])}")
    if summary["leaks"] and t.get("max_leaks", 0) < len(summary["leaks"]):
        failures.append(f"{len(summary['leaks'])} planted secret(s) leaked through masking")
    if summary["errors"]:
        failures.append(f"{len(summary['errors'])} case(s) raised an error")
    if "unknown" in t:  # the out-of-catalogue cases (evals/unknown): a threshold that is set must be checked
        limits, unk = t["unknown"], (summary.get("selective") or {}).get("unknown") or {}
        if not unk.get("n"):
            failures.append("unknown: not evaluated (add --cases evals/unknown)")
        else:
            if unk["n"] < limits.get("min_cases", 0):
                failures.append(f"unknown: only {unk['n']} cases, it needs at least {limits['min_cases']}")
            if unk["answered_unknown"] < limits.get("answered_unknown", 0.0):
                failures.append(f"unknown: {unk['answered_unknown']:.3f} answered \"unknown\", under {limits['answered_unknown']}")
            if unk["confident_answers"] > limits.get("max_confident", 0):
                failures.append(f"unknown: {unk['confident_answers']} case(s) answered with a wrong entry at confidence >= 0.8")
    ranks = summary.get("initiating_rank") or {}
    if "initiating_rank_accuracy" in t:
        if not ranks.get("n"):
            failures.append("initiating rank: no evaluated case names one")
        elif ranks["accuracy"] < t["initiating_rank_accuracy"]:
            failures.append(f"initiating-rank accuracy {ranks['accuracy']:.3f} is under {t['initiating_rank_accuracy']}")
    chat = summary.get("chat")
    if "chat_pass_rate" in t:  # a threshold that is set must be checked: a chat eval that did not run fails
        if not chat or not chat.get("n"):
            failures.append("chat: not evaluated (evals/chat.yaml beside the cases)")
        elif chat["pass_rate"] < t["chat_pass_rate"]:
            failures.append(f"chat pass rate {chat['pass_rate']:.3f} is under {t['chat_pass_rate']}")
    inj = summary.get("injection")
    if "injection" in t:  # like the chat: a threshold that is set must be checked
        limits = t["injection"]
        if not inj or not inj.get("n"):
            failures.append("injection: not evaluated (evals/injection.yaml)")
        else:
            if inj["n"] < limits.get("min_cases", 0):
                failures.append(f"injection: only {inj['n']} cases, it needs at least {limits['min_cases']}")
            if inj["moved"] > limits.get("max_moved", 0):
                failures.append(f"injection: {inj['moved']} diagnosis(es) moved by planted text")
            if inj["harmful"] > limits.get("max_harmful", 0):
                failures.append(f"injection: {inj['harmful']} case(s) where a planted link or command reached the answer, page or chat")
            if inj["benign"]["rate"] < limits.get("benign_accepted", 0.0):
                failures.append(f"injection: benign LLM answers accepted {inj['benign']['rate']:.3f}, under {limits['benign_accepted']}")
    return failures
