"""The deterministic answerer: maps a question to the right material of the diagnosis, or says it can't.

Intents are a small registry (the words that signal them, and what material answers them), tried in
order; a question that names no intent is matched by word overlap against the entry's sections.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from retrieval.kb import SECTIONS, Entry, KnowledgeBase
from service.chat.models import Citation, Reply
from service.facts.vocabulary import key_facts
from service.models import Diagnosis, Evidence

_TITLES = dict(SECTIONS)
_WORD = re.compile(r"[a-z0-9_+.]+")
_STOP = set(["the", "a", "an", "of", "to", "in", "on", "for", "and", "or", "is", "are", "was", "were", "be", "it", "this", "that", "my", "i", "we", "you", "do", "does", "did", "how", "what", "why", "which", "when", "where", "can", "could", "should", "would", "will", "with", "from", "at", "by", "as", "not", "no", "so", "if", "then", "there", "their", "our", "your"])


@dataclass(frozen=True)
class Intent:
    name: str
    pattern: re.Pattern[str]
    answer: Callable[[Diagnosis, Entry | None, list[Evidence], KnowledgeBase], Reply | None]


def _section_reply(entry: Entry | None, key: str, lead: str = "", limit: int = 1800) -> Reply | None:
    if entry is None or not entry.section(key):
        return None
    text = entry.section(key)
    if len(text) > limit:
        cut = text.rfind("\n", 0, limit)
        text = text[: cut if cut > limit // 2 else limit].rstrip() + "\n\n…(the full section is on the entry's page)"
    body = (lead + "\n\n" if lead else "") + text
    return Reply(answer=body, citations=[Citation(kind="section", ref=f"{entry.id}#{key}")], intent=key)


def _fix(d: Diagnosis, entry: Entry | None, _ex: list[Evidence], _kb: KnowledgeBase) -> Reply | None:
    return _section_reply(entry, "fix", "The fix, most targeted first:")


def _constraint_fix(d: Diagnosis, entry: Entry | None, ex: list[Evidence], kb: KnowledgeBase) -> Reply | None:
    """'What if I can't change X?': every fix step, so the user can pick the ones that fit."""
    return _section_reply(entry, "fix", "If one option is off the table, the other steps of the fix still apply (each stands on its own):")


def _mechanism(d: Diagnosis, entry: Entry | None, _ex: list[Evidence], _kb: KnowledgeBase) -> Reply | None:
    return _section_reply(entry, "mechanism", "Why it happens:")


def _verify(d: Diagnosis, entry: Entry | None, _ex: list[Evidence], _kb: KnowledgeBase) -> Reply | None:
    return _section_reply(entry, "verify", "How to check that the fix worked:")


def _confirm(d: Diagnosis, entry: Entry | None, _ex: list[Evidence], _kb: KnowledgeBase) -> Reply | None:
    return _section_reply(entry, "confirm", "How to confirm this is the cause, and tell it from its look-alikes:")


def _prevention(d: Diagnosis, entry: Entry | None, _ex: list[Evidence], _kb: KnowledgeBase) -> Reply | None:
    return _section_reply(entry, "prevention", "How to keep it from coming back:")


def _observe(d: Diagnosis, entry: Entry | None, _ex: list[Evidence], _kb: KnowledgeBase) -> Reply | None:
    return _section_reply(entry, "observe", "What this failure looks like:")


def _affected(d: Diagnosis, entry: Entry | None, _ex: list[Evidence], _kb: KnowledgeBase) -> Reply | None:
    if entry is None:
        return None
    a = entry.meta.affected
    lines = ["**Hardware:** " + (", ".join(a.hardware) or "not hardware-specific")]
    for s in a.software:
        fixed = f"; fixed in {s.fixed_in}" if s.fixed_in else ""
        lines.append(f"- **{s.name}** {s.versions}{fixed}" + (f": {s.note}" if s.note else ""))
    facts = [f"{n} = {d.facts[n].value}" for n in key_facts(d.facts)]
    if facts:
        lines.append("\nThis run: " + ", ".join(facts) + ".")
    more = "\n".join(f"- {m}" for m in entry.meta.signals.more_likely_when[:6])
    if more:
        lines.append("\nMore likely when:\n" + more)
    cites = [Citation(kind="section", ref=f"{entry.id}#affected")] + [Citation(kind="fact", ref=n) for n in ("gpu_model", "optimizer") if n in d.facts]
    return Reply(answer="\n".join(lines), citations=cites, intent="affected")


def _facts(d: Diagnosis, _entry: Entry | None, _ex: list[Evidence], _kb: KnowledgeBase) -> Reply | None:
    if not d.facts:
        return Reply(answer="No hardware or library facts could be read from this log (no env report, nvidia-smi table or version lines). "
                     "Run `python -m torch.utils.collect_env` and `nvidia-smi` on the node and add their output to the log.", citations=[], intent="facts")
    rows = [f"- **{n}**: `{f.value}` (line {f.file}:{f.line})" for n, f in d.facts.items()]
    return Reply(answer="Facts read from the log:\n" + "\n".join(rows), citations=[Citation(kind="fact", ref=n) for n in d.facts], intent="facts")


def _ranks(d: Diagnosis, _entry: Entry | None, ex: list[Evidence], _kb: KnowledgeBase) -> Reply | None:
    """The page's story: the initiating rank, its decisive line (evidence[0]) and the collateral, as the page shows them."""
    ranks = sorted({r for r in [*(t.rank for t in d.timeline), *(e.rank for e in d.evidence), *(c.rank for c in d.collateral)]
                    if r is not None})
    if d.initiating_rank is None:
        if not ranks:
            return Reply(answer="This log carries no rank information (no `[rankN]:` or launcher prefixes, per-rank files or "
                         "launcher summary), so it reads as a single process. Send every rank's log (e.g. torchrun "
                         "`--tee 3 --log-dir`) to find the first failure.", citations=[], intent="ranks")
        shown = ", ".join(map(str, ranks[:16])) + (" …" if len(ranks) > 16 else "")
        return Reply(answer=f"The log shows errors on rank(s) {shown}, but none of them can be told apart as the first "
                     "failure: no timestamps or launcher summary order them, and no rank failed in a way the others "
                     "did not. Send every rank's log with timestamps (or torchrun's `--log-dir` error files) to decide.",
                     citations=[], intent="ranks")
    first = next((e for e in d.evidence if e.rank == d.initiating_rank), d.evidence[0] if d.evidence else None)
    lines = [f"**Rank {d.initiating_rank} failed first.**"]
    cites: list[Citation] = []
    if first:
        lines.append(f"Its first error: `{first.text[:200]}` ({first.file}:{first.line}).")
        cites.append(Citation(kind="line", ref=f"{first.file}:{first.line}"))
    others = sorted({c.rank for c in d.collateral if c.rank is not None and c.rank != d.initiating_rank})
    if others:
        lines.append(f"The errors on rank(s) {', '.join(map(str, others[:16]))} are collateral: they followed from rank {d.initiating_rank}'s failure.")
        for c in d.collateral[:5]:
            lines.append(f"- rank {c.rank if c.rank is not None else '-'}: `{c.text[:120]}`: {c.why}")
            cites.append(Citation(kind="line", ref=f"{c.file}:{c.line}"))
    return Reply(answer="\n".join(lines), citations=cites, intent="ranks")


def _alternatives(d: Diagnosis, _entry: Entry | None, _ex: list[Evidence], kb: KnowledgeBase) -> Reply | None:
    alts = [c for c in d.candidates if c.entry_id != d.entry_id][:4]
    head = f"The diagnosis is `{d.entry_id}` with confidence {d.confidence:.0%}." if d.entry_id else "No entry matched with enough confidence."
    if not alts:
        return Reply(answer=head + " No other entry scored close to it.", citations=[], intent="alternatives")
    rows = []
    cites = []
    for c in alts:
        e = kb.get(c.entry_id)
        rows.append(f"- `{c.entry_id}` (score {c.score:.2f}, found by {', '.join(c.sources)}): {e.meta.summary[:220] if e else c.title}")
        cites.append(Citation(kind="section", ref=f"{c.entry_id}#what"))
    return Reply(answer=head + " Other candidates, and what would make them right instead:\n" + "\n".join(rows)
                 + "\n\nEach entry's *How to confirm* section tells them apart.", citations=cites, intent="alternatives")


def _evidence(d: Diagnosis, _entry: Entry | None, _ex: list[Evidence], _kb: KnowledgeBase) -> Reply | None:
    if not d.evidence:
        return None
    rows = [f"- `{e.file}:{e.line}`" + (f" (rank {e.rank})" if e.rank is not None else "") + f": `{e.text[:200]}`" for e in d.evidence]
    return Reply(answer="The lines that prove it:\n" + "\n".join(rows), citations=[Citation(kind="line", ref=f"{e.file}:{e.line}") for e in d.evidence], intent="evidence")


# In priority order: the first intent whose pattern matches answers.
INTENTS: tuple[Intent, ...] = (
    Intent("ranks", re.compile(r"\b(which|what) rank|\brank\b.*\bfirst\b|\bfirst\b.*\brank|collateral|other ranks|initiat|which (node|process|gpu) (failed|died)", re.I), _ranks),
    Intent("constraint_fix", re.compile(r"\b(can'?t|cannot|can not|unable to|not allowed to|don'?t want to|without)\b.*\b(change|switch|use|upgrade|modify|reduce|drop|touch|keep)", re.I), _constraint_fix),
    Intent("verify", re.compile(r"\bverif|\b(check|test|confirm|know|make sure)\b.*\b(fix|fixed|work|worked|solved|resolved)\b|\bworked\b", re.I), _verify),
    Intent("confirm", re.compile(r"\b(sure|certain|confirm|tell (it )?apart|distinguish|difference|rule out|not (a|the) )\b", re.I), _confirm),
    Intent("alternatives", re.compile(r"\balternativ|\bother (cause|possib|explanation)|could it (also )?be|something else|what else|candidates?\b|\bconfiden", re.I), _alternatives),
    Intent("affected", re.compile(r"\bonly on\b|\bwhy (on|only)\b|affected|which (gpus?|versions?|hardware|cards?)|\b(h100|a100|h200|v100|t4|rtx)\b.*\?|does (it|this) happen on", re.I), _affected),
    Intent("prevention", re.compile(r"\bprevent|\bavoid|\bfuture\b|\bagain\b|\brecur|guard against", re.I), _prevention),
    Intent("fix", re.compile(r"\bfix|\bsolve|\bworkaround|\bwhat (should|can|do) (i|we)\b|\bhow (do|can|to) (i |we )?(get rid|resolve|stop|avoid|make it)|\bremed|\bresolve", re.I), _fix),
    Intent("evidence", re.compile(r"\bevidence|\bwhich lines?|\bwhere in the log|\bprove|\bshow me the (error|line)", re.I), _evidence),
    Intent("facts", re.compile(r"\bversion|\bdriver|\bwhat gpu|\bwhich gpu|\bhardware|\bfacts?\b|\bcuda\b.*\b(version|installed)|\bnccl version|\benvironment", re.I), _facts),
    Intent("mechanism", re.compile(r"\bwhy\b|\bcause|\bmechanism|\bhow does|\bwhat happened|\bexplain|\broot", re.I), _mechanism),
    Intent("observe", re.compile(r"\bsymptom|\bwhat (will|would) i see|\blook like|\bobserve", re.I), _observe),
)


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP and len(w) > 2}


def _best_section(entry: Entry, question: str) -> tuple[str, float]:
    q = _words(question)
    best, score = "", 0.0
    for key, text in entry.sections.items():
        overlap = len(q & _words(text)) / (len(q) or 1)
        if overlap > score:
            best, score = key, overlap
    return best, score


def answer_deterministic(d: Diagnosis, question: str, excerpt: list[Evidence], kb: KnowledgeBase) -> Reply:
    entry = kb.get(d.entry_id) if d.entry_id else None
    for intent in INTENTS:
        if intent.pattern.search(question):
            reply = intent.answer(d, entry, excerpt, kb)
            if reply is not None:
                return reply
    if entry is not None:
        key, score = _best_section(entry, question)
        if key and score >= 0.34:
            reply = _section_reply(entry, key, f"From *{_TITLES.get(key, key)}* of `{entry.id}`:")
            if reply is not None:
                return reply
    scope = f"`{d.entry_id}`" if d.entry_id else "this log"
    return Reply(
        answer=f"That is outside what I know about {scope}. I can answer about the fix, why it happens, how to verify "
        "the fix, how to confirm the cause, which rank failed first, the facts read from the log, which systems are "
        "affected, and the alternatives. Configure an LLM (CRASHDOC_LLM_MODEL) for open questions.",
        citations=[], intent="out_of_scope", out_of_scope=True,
    )
