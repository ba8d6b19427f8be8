"""Stage 6, chat: follow-up questions on a stored diagnosis, grounded in the same material."""

from __future__ import annotations

from retrieval.kb import KnowledgeBase
from service.chat.deterministic import answer_deterministic
from service.chat.models import Citation, Message, Reply
from service.models import Diagnosis, Evidence
from service.settings import Settings

__all__ = ["Citation", "Message", "Reply", "answer"]


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
