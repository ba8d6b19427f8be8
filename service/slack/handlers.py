"""What each command does. No pipeline logic here: the same ``diagnose()``, ``ask()`` and index as the API."""

from __future__ import annotations

from retrieval.index import lexical_search
from retrieval.kb import Entry
from service.models import Source
from service.pipeline import Engine, ask, diagnose
from service.slack import blocks
from service.slack.blocks import SlackMessage

PASTED_LOG_NAME = "slack-paste.log"
KB_RESULTS = 5


def diagnose_pasted(engine: Engine, log: str, public_url: str | None) -> SlackMessage:
    """A pasted log through the whole pipeline (masked first, stored like any other diagnosis)."""
    d = diagnose(engine, [Source(name=PASTED_LOG_NAME, data=log.encode("utf-8"))])
    return blocks.diagnosis_message(d, public_url)


def answer_question(engine: Engine, diagnosis_id: str, question: str, public_url: str | None) -> SlackMessage:
    """A follow-up through ``ask()``: the question is masked and both turns are stored with the diagnosis."""
    asked, answered = ask(engine, diagnosis_id, question)
    return blocks.answer_message(diagnosis_id, asked, answered, public_url)


def search_kb(engine: Engine, words: str, limit: int = KB_RESULTS) -> list[Entry]:
    """An entry named by its id first, then BM25 over the entries, then plain title and summary matches."""
    kb = engine.kb
    ids: list[str] = [words.lower()] if kb.get(words.lower()) else []
    ids += [entry_id for entry_id, _ in lexical_search(engine.index, words, limit)]
    needle = words.lower()
    ids += [e.id for e in kb.entries.values() if needle in e.title.lower() or needle in e.meta.summary.lower()]
    seen: list[str] = []
    for entry_id in ids:
        if entry_id not in seen:
            seen.append(entry_id)
    return [kb.entries[i] for i in seen[:limit]]
