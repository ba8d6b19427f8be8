"""Stage 6, chat: follow-up questions on a stored diagnosis, grounded in the same material."""

from __future__ import annotations

from collections.abc import Generator

from retrieval.kb import KnowledgeBase
from service.chat.deterministic import answer_deterministic
from service.chat.models import ChatEvent, Citation, Message, Reply
from service.errors import LLMError
from service.models import Diagnosis, Evidence
from service.settings import Settings

__all__ = ["ChatEvent", "Citation", "Message", "Reply", "answer", "answer_stream"]


def answer(d: Diagnosis, question: str, excerpt: list[Evidence], kb: KnowledgeBase, history: list[Message],
           settings: Settings) -> Reply:
    """Stage entry point. ``question`` is already masked. The LLM answers when configured and valid."""
    if settings.llm_model:
        from service.chat.llm import answer_llm

        reply, reason = answer_llm(d, question, excerpt, kb, history, settings)
        if reply is not None:
            return reply
        fallback = answer_deterministic(d, question, excerpt, kb)
        fallback.notes.append(f"LLM answer not used ({settings.llm_model}): {reason}")
        return fallback
    return answer_deterministic(d, question, excerpt, kb)


def answer_stream(d: Diagnosis, question: str, excerpt: list[Evidence], kb: KnowledgeBase, history: list[Message],
                  settings: Settings) -> Generator[str, None, Reply]:
    """``answer()`` for a page: yields the LLM's raw text deltas, then returns the validated reply.

    The whole streamed text is validated once it ends (no repair round: the reader has seen it); an
    invalid or failed stream returns the deterministic answer, noting why. Without an LLM nothing is
    yielded and the deterministic answer is returned.
    """
    if not settings.llm_model:
        return answer_deterministic(d, question, excerpt, kb)
    from service.chat.llm import parse_and_validate, stream_llm
    from service.llm import prepare

    prepare()  # import litellm outside the time budget
    parts: list[str] = []
    try:
        for delta in stream_llm(d, question, excerpt, kb, history, settings):
            parts.append(delta)
            yield delta
    except LLMError as exc:
        return _fallback(d, question, excerpt, kb, settings, exc.message)
    reply, errors = parse_and_validate("".join(parts), d, excerpt, kb)
    if errors:
        return _fallback(d, question, excerpt, kb, settings, "invalid answer: " + "; ".join(errors)[:400])
    reply.composer = settings.llm_model
    return reply


def _fallback(d: Diagnosis, question: str, excerpt: list[Evidence], kb: KnowledgeBase, settings: Settings,
              reason: str) -> Reply:
    reply = answer_deterministic(d, question, excerpt, kb)
    reply.notes.append(f"LLM answer not used ({settings.llm_model}): {reason}")
    return reply
