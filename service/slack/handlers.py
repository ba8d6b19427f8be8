"""What each command does. No pipeline logic here: the same ``diagnose()``, ``ask()`` and index as the API."""

from __future__ import annotations

from retrieval.index import lexical_search
from retrieval.kb import Entry
from service.errors import InputError
from service.feedback import FeedbackIn, record
from service.masking import mask_text
from service.models import Source
from service.pipeline import Engine, Masked, ask, diagnose, diagnose_masked
from service.slack import blocks
from service.slack.blocks import SlackMessage
from service.slack.webapi import SlackApi

PASTED_LOG_NAME = "slack-paste.log"
MESSAGE_LOG_NAME = "slack-message.log"
KB_RESULTS = 5


def diagnose_message(engine: Engine, api: SlackApi | None, file_ids: list[str], text: str,
                     public_url: str | None) -> SlackMessage:
    """The message shortcut: the message's files and snippets (read with files:read) are the run; without files, its text."""
    if file_ids and api is None:
        raise InputError("crashdoc cannot read Slack files on this server.",
                         hint="Set CRASHDOC_SLACK_BOT_TOKEN (scopes chat:write, files:read), or paste the log's end after /crashdoc.")
    limit = engine.limits.max_upload_bytes
    sources = [api.file_source(f, limit) for f in file_ids] if api is not None else []
    if not sources and text.strip():
        sources = [Source(name=MESSAGE_LOG_NAME, data=text.encode("utf-8"))]
    if not sources:
        raise InputError("This message has no log to diagnose.",
                         hint="Run the shortcut on a message with the log as a file or snippet, or its text pasted in.")
    d = diagnose(engine, sources)
    return blocks.diagnosis_message(d, public_url)


def share(engine: Engine, api: SlackApi, diagnosis_id: str, channel: str, public_url: str | None) -> SlackMessage:
    """The channel's copy, from the stored (masked) diagnosis only: the card, then its details in the thread."""
    d = engine.store.get(diagnosis_id)
    card = blocks.diagnosis_message(d, public_url, shared=True)
    posted = api.call("chat.postMessage", channel=channel, text=card["text"], blocks=card["blocks"], unfurl_links=False)
    details = blocks.details_message(d, public_url)
    api.call("chat.postMessage", channel=channel, thread_ts=posted.get("ts"), text=details["text"], blocks=details["blocks"],
             unfurl_links=False)
    return blocks.ack_message(f":white_check_mark: Shared `{diagnosis_id}` to the channel (the masked diagnosis only; details in its thread).")


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
