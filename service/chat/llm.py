"""The LLM answerer: grounded in the stored diagnosis, the masked excerpt and the entry; citations checked."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Generator

from retrieval.kb import CITABLE_SECTIONS, KnowledgeBase
from service.chat.models import Citation, Message, Reply
from service.compose.checks import is_instruction
from service.errors import LLMError
from service.guard import Fence, Material, clean, foreign_actions
from service.llm import complete, prepare, stream
from service.models import Diagnosis, Evidence
from service.prompts import library
from service.settings import Settings

_CITATIONS = re.compile(r"^\s*CITATIONS:\s*(\[.*\])\s*$", re.M)
_SECTIONS = {key for key, _ in CITABLE_SECTIONS}


def messages_for(d: Diagnosis, question: str, excerpt: list[Evidence], kb: KnowledgeBase, history: list[Message],
                 settings: Settings) -> list[dict[str, str]]:
    """The prompt: the log's lines, the question and earlier messages cleaned and fenced as data."""
    prompts = library(str(settings.prompts_dir))
    entry = kb.get(d.entry_id) if d.entry_id else None
    sections = list(entry.sections.items()) if entry else []
    fence = Fence.new()
    user = prompts.render("chat.user", diagnosis=d, summary=clean(d.summary), sections=sections,
                          entry_id=d.entry_id or "none", fence=fence,
                          facts=[(name, clean(f.value), f.file, f.line) for name, f in d.facts.items()],
                          excerpt=[(e.file, e.line, clean(e.text)) for e in excerpt],
                          history=[(m.role, clean(m.text)[:600]) for m in history[-6:]], question=clean(question))
    return [{"role": "system", "content": prompts.render("chat.system", fence=fence, sections=[key for key, _ in CITABLE_SECTIONS])}, {"role": "user", "content": user}]


def material_for(d: Diagnosis, question: str, kb: KnowledgeBase) -> Material:
    """What a chat answer may take actions from: the entry, the diagnosis's steps, the question, its evidence."""
    entry = kb.get(d.entry_id) if d.entry_id else None
    trusted = [*(entry.sections.values() if entry else []), *d.fix, *d.verify, question]
    return Material(trusted, [e.text for e in d.evidence if not is_instruction(e.text)])


def parse_and_validate(text: str, d: Diagnosis, excerpt: list[Evidence], kb: KnowledgeBase,
                       question: str) -> tuple[Reply, list[str]]:
    """Split the answer from its CITATIONS line; every citation must point at existing material, and the answer
    may carry no link, command, package or code that is not in the entry, the diagnosis or the question."""
    errors: list[str] = []
    m = _CITATIONS.search(text)
    citations: list[Citation] = []
    body = text
    if m:
        body = text[: m.start()].rstrip()
        try:
            raw = json.loads(m.group(1))
            citations = [Citation.model_validate(c) for c in raw]
        except (ValueError, TypeError) as exc:
            errors.append(f"the CITATIONS line is not a JSON list of citations ({exc})")
    lines = {f"{e.file}:{e.line}" for e in [*excerpt, *d.evidence]}
    for c in citations:
        if c.kind == "section":
            eid, _, sec = c.ref.partition("#")
            if kb.get(eid) is None or sec not in _SECTIONS:
                errors.append(f"citation {c.ref} is not an entry section")
        elif c.kind == "line":
            if c.ref not in lines:
                errors.append(f"citation {c.ref} is not a line of the excerpt")
        elif c.kind == "fact":
            if c.ref not in d.facts:
                errors.append(f"citation {c.ref} is not an extracted fact")
        else:
            errors.append(f"citation kind '{c.kind}' is unknown")
    if not body.strip():
        errors.append("the answer is empty")
    found = foreign_actions(body, material_for(d, question, kb))
    if found:
        errors.append("the answer carries " + ", ".join(found) + "; answer in plain text from the material")
    return Reply(answer=clean(body), citations=citations, composer=str(d.composer)), errors


def answer_llm(d: Diagnosis, question: str, excerpt: list[Evidence], kb: KnowledgeBase, history: list[Message],
               settings: Settings) -> tuple[Reply | None, str]:
    """The validated LLM reply, or None with the reason (the caller falls back)."""
    msgs = messages_for(d, question, excerpt, kb, history, settings)
    prepare()
    deadline = time.monotonic() + settings.llm_budget_s
    reason = ""
    for _ in range(2):
        try:
            reply = complete(settings, msgs, deadline=deadline)
        except LLMError as exc:
            return None, exc.message
        parsed, errors = parse_and_validate(reply.text, d, excerpt, kb, question)
        if not errors:
            parsed.composer = reply.model
            return parsed, ""
        reason = "; ".join(errors)[:400]
        msgs += [{"role": "assistant", "content": reply.text[:4000]},
                 {"role": "user", "content": library(str(settings.prompts_dir)).render("repair.user", errors=errors)}]
    return None, f"invalid answer: {reason}"


def stream_llm(d: Diagnosis, question: str, excerpt: list[Evidence], kb: KnowledgeBase, history: list[Message],
               settings: Settings) -> Generator[str, None, None]:
    """Raw text deltas; the caller validates the whole text when the stream ends."""
    yield from stream(settings, messages_for(d, question, excerpt, kb, history, settings),
                      deadline=time.monotonic() + settings.llm_budget_s)
