"""The LLM composer: a grounded diagnosis written by a model, validated on every answer.

Flow: bounded masked excerpt + facts + candidate entries -> prompt files -> ``service.llm.complete`` ->
JSON -> validation (``checks.validate``: entry among the candidates, evidence lines verbatim in the log,
facts among the extracted ones, fix steps from the entry or marked as additions, the cited lines carry the
entry's signals, a strongly supported top candidate kept unless out-supported) -> one repair round with
the errors -> else the deterministic diagnosis, marked, with the reason. A used answer's additions are
screened (``checks.screen``): one carrying a link, command or package from elsewhere is dropped, noted.
The log's lines go into the prompt cleaned (``guard.clean``) between per-request fences (``guard.Fence``).
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, Field, ValidationError

from retrieval.kb import KnowledgeBase, section_steps
from service.compose import checks
from service.compose.answer import answer as run_answer
from service.errors import LLMBusy, LLMError
from service.guard import Fence, clean, safe_note
from service.llm import Reply, complete, prepare
from service.models import Diagnosis, Evidence, Facts, Hit, MaskedLog
from service.prompts import library
from service.settings import Settings

T = TypeVar("T")


class FixStep(BaseModel):
    step: str = Field(min_length=3, max_length=2000)
    from_entry: bool


class EvidenceItem(BaseModel):
    file: str
    line: int
    text: str = Field(min_length=1, max_length=4000)


class LLMAnswer(BaseModel):
    entry_id: str
    summary: str = Field(min_length=10, max_length=3000)
    evidence: list[EvidenceItem] = Field(min_length=1, max_length=12)
    facts_cited: list[str] = Field(default_factory=list, max_length=40)
    fix: list[FixStep] = Field(default_factory=list, max_length=15)
    verify: list[str] = Field(default_factory=list, max_length=15)


def build_excerpt(log: MaskedLog, facts: Facts, budget: int) -> list[Evidence]:
    """The lines sent to the model: the initiating rank's error first, then rule lines, then other errors."""
    wanted: list[tuple[str, int, int]] = []  # (file, centre line, radius), in priority order
    if facts.initiating_event:
        wanted.append((facts.initiating_event.ref.file, facts.initiating_event.ref.line, 12))
    for hit in facts.rule_hits[:4]:
        wanted += [(r.file, r.line, 3) for r in hit.lines[:3]]
    wanted += [(e.ref.file, e.ref.line, 2) for e in facts.events if not e.collateral][:12]
    wanted += [(c.file, c.line, 0) for c in facts.collateral][:6]
    by_name = {f.name: f for f in log.files}
    picked: dict[tuple[str, int], None] = {}
    for file, centre, radius in wanted:
        f = by_name.get(file)
        if f is None:
            continue
        for n in range(max(1, centre - radius), min(len(f.lines), centre + radius) + 1):
            if len(picked) >= budget:
                break
            picked.setdefault((file, n), None)
    rank_lines = {(e.ref.file, e.ref.line): e.ref.rank for e in facts.events}
    order = {f.name: i for i, f in enumerate(log.files)}
    return [
        Evidence(file=file, line=n, rank=rank_lines.get((file, n)), text=by_name[file].lines[n - 1][:600])
        for file, n in sorted(picked, key=lambda k: (order[k[0]], k[1]))
    ]


def validate(answer: LLMAnswer, *, log: MaskedLog, facts: Facts, hits: list[Hit], kb: KnowledgeBase) -> list[str]:
    errors, _ = _checked(answer, log=log, facts=facts, hits=hits, kb=kb)
    return errors


def _checked(answer: LLMAnswer, *, log: MaskedLog, facts: Facts, hits: list[Hit],
             kb: KnowledgeBase) -> tuple[list[str], list[checks.Cited]]:
    return checks.validate(
        answer.entry_id, [(e.file, e.line, e.text) for e in answer.evidence], answer.facts_cited,
        [(s.step, s.from_entry) for s in answer.fix], log=log, facts=facts, hits=hits, kb=kb,
    )


def add_usage(meta: dict[str, Any], reply: Reply) -> None:
    """Add one reply's attempts, tokens, latency and cost to a composition's running totals."""
    meta["attempts"] += reply.attempts
    meta["prompt_tokens"] += reply.prompt_tokens
    meta["completion_tokens"] += reply.completion_tokens
    meta["latency_ms"] = round(meta["latency_ms"] + reply.latency_ms, 1)
    if reply.cost_usd is not None:
        meta["cost_usd"] = round((meta["cost_usd"] or 0.0) + reply.cost_usd, 6)


def ask_with_repair(settings: Settings, messages: list[dict[str, str]], meta: dict[str, Any],
                    check: Callable[[str], tuple[T | None, list[str]]]) -> tuple[T | None, str, LLMError | None]:
    """Ask the model and ``check`` its reply (the value and the errors found); on errors, show it its answer and
    the errors and ask once more. ``meta`` gets the usage and, on success, ``repaired``. Returns the checked value
    (None when none passed), the reason it is missing (masked for a note), and the LLM error that ended the tries."""
    prepare()
    deadline = time.monotonic() + settings.llm_budget_s
    reason = ""
    for round_ in range(2):
        try:
            reply: Reply = complete(settings, messages, deadline=deadline)
        except LLMError as exc:
            return None, safe_note(exc.message), exc
        add_usage(meta, reply)
        value, errors = check(reply.text)
        if not errors:
            meta["repaired"] = round_ == 1
            return value, "", None
        reason = "invalid answer: " + "; ".join(errors)[:500]
        messages += [{"role": "assistant", "content": reply.text[:4000]},
                     {"role": "user", "content": library(str(settings.prompts_dir)).render("repair.user", errors=errors)}]
    return None, safe_note(reason), None


def _parse(text: str) -> LLMAnswer:
    """The JSON object in the reply (a ```json fence or prose around it is tolerated)."""
    m = re.search(r"\{.*\}", text, re.S)
    if not m:
        raise ValueError("the answer contains no JSON object")
    return LLMAnswer.model_validate(json.loads(m.group(0)))


def _cache_path(settings: Settings, key: str) -> Path:
    return settings.data_dir / "llm-cache" / f"{key}.json"


def _merge(base: Diagnosis, answer: LLMAnswer, *, log: MaskedLog, facts: Facts, hits: list[Hit], kb: KnowledgeBase,
           meta: dict[str, Any]) -> Diagnosis:
    """The validated answer over ``base``; additions that carry an action not in the entry are dropped, noted."""
    entry = kb.get(answer.entry_id)
    _, cited = _checked(answer, log=log, facts=facts, hits=hits, kb=kb)
    allowed = checks.material(entry, cited, facts)
    rank_of = {(e.ref.file, e.ref.line): e.ref.rank for e in facts.events}
    evidence = [Evidence(file=c.file, line=c.line, rank=rank_of.get((c.file, c.line)), text=c.text) for c in cited]
    score = next((h.score for h in hits if h.entry_id == answer.entry_id), 0.0)
    top = hits[0].score if hits else 0.0
    confidence = base.confidence if hits and hits[0].entry_id == answer.entry_id else round(min(base.confidence, score / top if top else 0.0) * 0.9, 3)
    summaries, notes = checks.screen([answer.summary], allowed, "summary")
    fix, fix_notes = checks.screen([s.step if s.from_entry else f"(addition for this run) {s.step}" for s in answer.fix],
                                   allowed, "fix step")
    verify, verify_notes = checks.screen(answer.verify, allowed, "verify step")
    return base.model_copy(update={
        "entry_id": entry.id if entry else None,
        "title": entry.title if entry else "No known failure matched",
        "category": entry.meta.category if entry else None,
        "confidence": confidence if entry else 0.0,
        "summary": summaries[0] if summaries else (entry.meta.summary if entry and entry.id != base.entry_id else base.summary),
        "evidence": evidence,
        "fix": fix or (section_steps(entry.section("fix")) if entry else []),
        "verify": verify or (section_steps(entry.section("verify")) if entry else []),
        "composer": meta["model"],
        "explanation": base.explanation,
        # one story: a line the answer cites is evidence, so it leaves the collateral; the answer names its entry
        "collateral": [c for c in base.collateral if (c.file, c.line) not in {(e.file, e.line) for e in evidence}],
        "answer": run_answer(facts, title=entry.title if entry else None, entry_id=entry.id if entry else None,
                             evidence=evidence, candidates=base.candidates, files=len(log.files), lines=log.line_count),
        "notes": [*base.notes, *notes, *fix_notes, *verify_notes],
        "llm": meta,
    })


def diagnose_messages(log: MaskedLog, facts: Facts, hits: list[Hit], kb: KnowledgeBase,
                      settings: Settings) -> tuple[list[dict[str, str]], Fence]:
    """The system and user messages that ask the LLM for a diagnosis (the masked excerpt, facts and candidates),
    and the fence the data is wrapped in."""
    prompts = library(str(settings.prompts_dir))
    excerpt = build_excerpt(log, facts, settings.llm_excerpt_lines)
    candidates = []
    for h in hits[:checks.CANDIDATES]:
        entry = kb.get(h.entry_id)
        if entry is not None:
            candidates.append({"id": entry.id, "title": entry.title, "summary": entry.meta.summary, "score": h.score,
                               "fix": section_steps(entry.section("fix"))[:6]})
    fence = Fence.new()
    user = prompts.render(
        "diagnose.user", facts=[(name, clean(f.value), f.file, f.line) for name, f in sorted(facts.values.items())],
        initiating_rank=facts.initiating_rank, collateral=[(c.rank, clean(c.text)[:160]) for c in facts.collateral[:6]],
        candidates=candidates, excerpt=[(e.file, e.line, clean(e.text)) for e in excerpt], fence=fence,
    )
    system = prompts.render("diagnose.system", fence=fence)
    return [{"role": "system", "content": system}, {"role": "user", "content": user}], fence


def compose_with_llm(log: MaskedLog, facts: Facts, hits: list[Hit], kb: KnowledgeBase, *, base: Diagnosis,
                     settings: Settings) -> Diagnosis:
    """The LLM's diagnosis when it validates; otherwise ``base`` marked with the reason."""
    prompts = library(str(settings.prompts_dir))
    system_p, user_p, repair_p = prompts.get("diagnose.system"), prompts.get("diagnose.user"), prompts.get("repair.user")
    messages, fence = diagnose_messages(log, facts, hits, kb, settings)
    user = messages[1]["content"]
    prompt_ref = {"system": system_p.ref(), "user": user_p.ref(), "repair": repair_p.ref()}
    key = hashlib.sha256(json.dumps([user.replace(fence.nonce, ""), kb.version, settings.llm_model, system_p.sha256,
                                     user_p.sha256]).encode()).hexdigest()[:32]
    meta: dict[str, Any] = {"model": settings.llm_model, "prompt": prompt_ref, "cache_key": key, "cached": False,
                            "attempts": 0, "prompt_tokens": 0, "completion_tokens": 0, "cost_usd": None, "latency_ms": 0.0}
    cache = _cache_path(settings, key)
    if cache.exists():
        try:
            answer = LLMAnswer.model_validate_json(cache.read_text())
            if not validate(answer, log=log, facts=facts, hits=hits, kb=kb):
                return _merge(base, answer, log=log, facts=facts, hits=hits, kb=kb, meta={**meta, "cached": True})
        except (OSError, ValidationError):
            pass

    def check(text: str) -> tuple[LLMAnswer | None, list[str]]:
        try:
            answer = _parse(text)
            return answer, validate(answer, log=log, facts=facts, hits=hits, kb=kb)
        except (ValueError, ValidationError) as exc:
            return None, [f"the answer is not the JSON object asked for: {str(exc)[:300]}"]

    checked, reason, error = ask_with_repair(settings, messages, meta, check)
    if isinstance(error, LLMBusy):
        meta["busy"] = True  # the call was never made: on the service, a job composes it later
    if checked is not None:
        try:
            cache.parent.mkdir(parents=True, exist_ok=True)
            cache.write_text(checked.model_dump_json())
        except OSError:
            pass  # a cache that cannot be written costs a call next time, nothing more
        return _merge(base, checked, log=log, facts=facts, hits=hits, kb=kb, meta=meta)
    meta["fallback_reason"] = reason
    return base.model_copy(update={
        "composer": "deterministic",
        "notes": [*base.notes, f"LLM answer not used ({settings.llm_model}): {reason}"],
        "llm": meta,
    })
