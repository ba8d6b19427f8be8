"""Stage 6, chat: follow-up questions on a stored diagnosis, grounded in the same material."""

from __future__ import annotations

from collections.abc import Generator

from retrieval.kb import KnowledgeBase
from service.chat.deterministic import answer_deterministic
from service.chat.models import ChatEvent, Citation, Message, Reply, Withdrawn
from service.errors import LLMError
from service.guard import safe_note
from service.models import Diagnosis, Evidence
from service.settings import Settings

__all__ = ["ChatEvent", "Citation", "Message", "Reply", "Withdrawn", "answer", "answer_stream"]


def answer(d: Diagnosis, question: str, excerpt: list[Evidence], kb: KnowledgeBase, history: list[Message],
           settings: Settings) -> Reply:
    """Stage entry point. ``question`` is already masked. The LLM answers when configured and valid."""
    if settings.llm_model:
        from service.chat.llm import answer_llm

        reply, reason = answer_llm(d, question, excerpt, kb, history, settings)
        if reply is not None:
            return reply
        fallback = answer_deterministic(d, question, excerpt, kb)
        fallback.notes.append(f"LLM answer not used ({settings.llm_model}): {safe_note(reason)}")
        return fallback
    return answer_deterministic(d, question, excerpt, kb)


def answer_stream(d: Diagnosis, question: str, excerpt: list[Evidence], kb: KnowledgeBase, history: list[Message],
                  settings: Settings) -> Generator[str | Withdrawn, None, Reply]:
    """``answer()`` for a page: yields the LLM's text as it comes, checked line by line, then returns the reply.

    A line is shown only once it is complete and the text so far carries no link, command or code that is
    not in the material; the first one that does stops the stream, and a ``Withdrawn`` tells the page to
    take back what it showed. The whole text is validated once it ends (no repair round: the reader has
    seen it); an invalid or failed stream returns the deterministic answer, noting why, after a
    ``Withdrawn`` when anything was shown. Without an LLM nothing is yielded.
    """
    if not settings.llm_model:
        return answer_deterministic(d, question, excerpt, kb)
    from service.chat.llm import material_for, parse_and_validate, stream_llm
    from service.guard import foreign_actions
    from service.llm import prepare

    prepare()  # import litellm outside the time budget
    allowed = material_for(d, question, kb)
    text, shown = "", 0
    deltas = stream_llm(d, question, excerpt, kb, history, settings)
    try:
        for delta in deltas:
            text += delta
            complete = text.rfind("\n") + 1
            if complete > shown:
                found = foreign_actions(text[:complete], allowed)
                if found:
                    return (yield from _withdraw(d, question, excerpt, kb, settings, shown,
                                                 "the answer carries " + ", ".join(found)))
                yield text[shown:complete]
                shown = complete
    except LLMError as exc:
        return (yield from _withdraw(d, question, excerpt, kb, settings, shown, exc.message))
    finally:
        deltas.close()  # a stream left open is closed by the garbage collector, at any time, inside httpcore's lock
    reply, errors = parse_and_validate(text, d, excerpt, kb, question)
    if errors:
        return (yield from _withdraw(d, question, excerpt, kb, settings, shown,
                                     "invalid answer: " + "; ".join(errors)[:400]))
    if len(text) > shown:
        yield text[shown:]
    reply.composer = settings.llm_model
    return reply


def _withdraw(d: Diagnosis, question: str, excerpt: list[Evidence], kb: KnowledgeBase, settings: Settings, shown: int,
              reason: str) -> Generator[str | Withdrawn, None, Reply]:
    if shown:
        yield Withdrawn(reason="The streamed draft did not pass crashdoc's checks and was withdrawn.")
    return _fallback(d, question, excerpt, kb, settings, reason)


def _fallback(d: Diagnosis, question: str, excerpt: list[Evidence], kb: KnowledgeBase, settings: Settings,
              reason: str) -> Reply:
    reply = answer_deterministic(d, question, excerpt, kb)
    reply.notes.append(f"LLM answer not used ({settings.llm_model}): {safe_note(reason)}")
    return reply
