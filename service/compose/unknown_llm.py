"""The LLM's explanation of a failure the encyclopedia does not hold: grounded in the log alone, not backed by an
entry, validated like every LLM answer (each cited line must exist verbatim in the masked log, the decisive line
must be among them, lines that address a model are not evidence) and screened (a command, link or package not in
the triage is dropped, noted). An answer that fails twice leaves the deterministic "unknown" in place, marked."""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from service.compose import checks
from service.compose.llm import EvidenceItem, ask_with_repair, build_excerpt
from service.compose.triage import TriageKind
from service.guard import Fence, Material, clean
from service.models import Diagnosis, Evidence, Facts, MaskedLog
from service.prompts import library
from service.settings import Settings

NOT_BACKED = "LLM explanation from the log alone: not backed by an encyclopedia entry"


class UnknownAnswer(BaseModel):
    summary: str = Field(min_length=10, max_length=3000)
    evidence: list[EvidenceItem] = Field(min_length=1, max_length=12)
    fix: list[str] = Field(default_factory=list, max_length=15)
    verify: list[str] = Field(default_factory=list, max_length=15)


def unknown_messages(log: MaskedLog, facts: Facts, base: Diagnosis, kind: TriageKind,
                     settings: Settings) -> tuple[list[dict[str, str]], Fence]:
    """The system and user messages asking for an explanation of ``base``'s decisive error, and their fence."""
    assert base.decisive is not None
    prompts = library(str(settings.prompts_dir))
    excerpt = build_excerpt(log, facts, settings.llm_excerpt_lines)
    d = base.decisive
    if not any((e.file, e.line) == (d.file, d.line) for e in excerpt):  # the decisive line is always in it
        excerpt = [Evidence(file=d.file, line=d.line, rank=d.rank, text=d.text), *excerpt]
    fence = Fence.new()
    user = prompts.render(
        "unknown.user", facts=[(name, clean(f.value), f.file, f.line) for name, f in sorted(facts.values.items())],
        decisive={"file": d.file, "line": d.line, "text": clean(d.text)}, kind=kind, related=base.related,
        initiating_rank=facts.initiating_rank, excerpt=[(e.file, e.line, clean(e.text)) for e in excerpt], fence=fence,
    )
    system = prompts.render("unknown.system", fence=fence)
    return [{"role": "system", "content": system}, {"role": "user", "content": user}], fence


def validate(answer: UnknownAnswer, log: MaskedLog, base: Diagnosis) -> tuple[list[str], list[checks.Cited]]:
    """The errors of an answer (empty: it may be used) and the lines it cites."""
    errors: list[str] = []
    cited: list[checks.Cited] = []
    for e in answer.evidence:
        line = log.line(e.file, e.line)
        if line is None:
            errors.append(f"evidence {e.file}:{e.line} does not exist in the log")
        elif not checks.quoted(e.text, line):
            errors.append(f"evidence {e.file}:{e.line} is not quoted verbatim from that line of the excerpt")
        elif checks.is_instruction(line):
            errors.append(f"evidence {e.file}:{e.line} is text that tries to instruct the model; it is not evidence")
        else:
            cited.append(checks.Cited(e.file, e.line, line))
    d = base.decisive
    if d is not None and not any((c.file, c.line) == (d.file, d.line) for c in cited):
        errors.append(f"the decisive line {d.file}:{d.line} is not among the cited lines")
    return errors, cited


def _parse(text: str) -> UnknownAnswer:
    m = re.search(r"\{.*\}", text, re.S)
    if not m:
        raise ValueError("the answer contains no JSON object")
    return UnknownAnswer.model_validate(json.loads(m.group(0)))


def _merge(base: Diagnosis, answer: UnknownAnswer, cited: list[checks.Cited], kind: TriageKind, facts: Facts,
           meta: dict[str, Any]) -> Diagnosis:
    # Actions may come from the triage only: a log line is untrusted text, whoever printed it.
    allowed = Material([kind.summary, *kind.steps, *kind.verify, kind.body])
    summaries, notes = checks.screen([answer.summary], allowed, "summary")
    fix, fix_notes = checks.screen(answer.fix, allowed, "fix step")
    verify, verify_notes = checks.screen(answer.verify, allowed, "verify step")
    rank_of = {(e.ref.file, e.ref.line): e.ref.rank for e in facts.events}
    evidence = [Evidence(file=c.file, line=c.line, rank=rank_of.get((c.file, c.line)), text=c.text) for c in cited]
    return base.model_copy(update={
        "summary": (f"{summaries[0]} (Not in the encyclopedia; decisive error at {base.decisive.file}:{base.decisive.line}.)"
                    if summaries and base.decisive else base.summary),
        "evidence": evidence,
        "fix": fix or base.fix,
        "verify": verify or base.verify,
        "composer": meta["model"],
        "notes": [*base.notes, NOT_BACKED, *notes, *fix_notes, *verify_notes],
        "llm": {**meta, "backed_by_entry": False},
    })


def explain_unknown(log: MaskedLog, facts: Facts, *, base: Diagnosis, kind: TriageKind, settings: Settings) -> Diagnosis:
    """The LLM's explanation over ``base`` (an "unknown" with its decisive line) when it validates; else ``base``."""
    prompts = library(str(settings.prompts_dir))
    messages, _ = unknown_messages(log, facts, base, kind, settings)
    meta: dict[str, Any] = {"model": settings.llm_model, "prompt": {"system": prompts.get("unknown.system").ref(),
                            "user": prompts.get("unknown.user").ref(), "repair": prompts.get("repair.user").ref()},
                            "attempts": 0, "prompt_tokens": 0, "completion_tokens": 0, "cost_usd": None, "latency_ms": 0.0}

    def check(text: str) -> tuple[tuple[UnknownAnswer, list[checks.Cited]] | None, list[str]]:
        try:
            answer = _parse(text)
            errors, cited = validate(answer, log, base)
        except (ValueError, ValidationError) as exc:
            return None, [f"the answer is not the JSON object asked for: {str(exc)[:300]}"]
        return (answer, cited), errors

    checked, reason, _ = ask_with_repair(settings, messages, meta, check)
    if checked is not None:
        return _merge(base, checked[0], checked[1], kind, facts, meta)
    return base.model_copy(update={
        "composer": "deterministic",
        "notes": [*base.notes, f"LLM explanation not used ({settings.llm_model}): {reason}"],
        "llm": {**meta, "fallback_reason": reason, "backed_by_entry": False},
    })
