"""What each command does. No pipeline logic here: the same ``diagnose()``, ``ask()`` and index as the API."""

from __future__ import annotations

from retrieval.index import lexical_search
from retrieval.kb import Entry
from service.errors import InputError
from service.feedback import FeedbackIn, record
from service.masking import mask_text
from service.pipeline import Engine, Masked, ask, diagnose_masked, read_and_mask
from service.slack import blocks
from service.slack.blocks import SlackMessage
from service.slack.webapi import SlackApi

PASTED_LOG_NAME = "slack-paste.log"
MESSAGE_LOG_NAME = "slack-message.log"
KB_RESULTS = 5


def diagnose_shortcut(engine: Engine, api: SlackApi | None, file_ids: list[str], text: Masked | None,
                      diagnosis_id: str, public_url: str | None) -> SlackMessage:
    """The message shortcut, on a worker: the message's files and snippets (read with files:read) are the run;
    without files, its text (masked when the shortcut was accepted). Stored once under ``diagnosis_id``."""
    if file_ids and api is None:
        raise InputError("crashdoc cannot read Slack files on this server.",
                         hint="Set CRASHDOC_SLACK_BOT_TOKEN (scopes chat:write, files:read), or paste the log's end after /crashdoc.")
    if file_ids and api is not None:
        limit = engine.limits.max_upload_bytes
        masked = read_and_mask(engine, [api.file_source(f, limit) for f in file_ids])
    elif text is not None:
        masked = text
    else:
        raise InputError("This message has no log to diagnose.",
                         hint="Run the shortcut on a message with the log as a file or snippet, or its text pasted in.")
    return blocks.diagnosis_message(diagnose_masked(engine, masked, diagnosis_id=diagnosis_id), public_url)


def diagnose_masked_paste(engine: Engine, masked: Masked, diagnosis_id: str, public_url: str | None) -> SlackMessage:
    """A pasted log already masked when the command was accepted (a job's), diagnosed and stored once under its id."""
    return blocks.diagnosis_message(diagnose_masked(engine, masked, diagnosis_id=diagnosis_id), public_url)


def mask_question(engine: Engine, question: str) -> str:
    """A question masked before it is kept in a job (``ask()`` masks it again: masking is idempotent)."""
    return mask_text(question, engine.masker)[0]


def feedback(engine: Engine, diagnosis_id: str, verdict: str, label: str | None, note: str | None,
             public_url: str | None) -> SlackMessage:
    """A verdict from the card's buttons or the wrong-cause modal, stored like the page's and the API's."""
    given = FeedbackIn(verdict="wrong" if verdict == "wrong" else "right", label=label or None, note=note or None)
    record(engine, diagnosis_id, given, source="slack")
    return blocks.feedback_thanks(diagnosis_id, given.verdict, public_url)


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
