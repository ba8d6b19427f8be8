"""Stage 5, compose: the diagnosis, from the LLM when one is configured, else deterministic."""

from __future__ import annotations

from retrieval.kb import KnowledgeBase
from service.compose.deterministic import compose_deterministic
from service.compose.triage import load_triage
from service.models import Diagnosis, Facts, Hit, MaskedLog
from service.settings import Settings

__all__ = ["compose"]


def compose(
    log: MaskedLog,
    facts: Facts,
    hits: list[Hit],
    kb: KnowledgeBase,
    *,
    settings: Settings,
    diagnosis_id: str,
) -> Diagnosis:
    """Stage entry point. The deterministic diagnosis is always made: it is the LLM's fallback."""
    kinds = load_triage(settings.kb_dir / "triage")
    base = compose_deterministic(
        log, facts, hits, kb, diagnosis_id=diagnosis_id, unknown_threshold=settings.unknown_threshold, kinds=kinds,
    )
    if not settings.llm_model:
        return base
    if base.entry_id is None and base.decisive is not None:
        # No entry explains the decisive error: the model explains it from the log alone, never picks an entry.
        from service.compose.unknown_llm import explain_unknown

        return explain_unknown(log, facts, base=base, kind=kinds[base.decisive.kind], settings=settings)
    from service.compose.llm import compose_with_llm  # litellm is imported only when a model is set

    return compose_with_llm(log, facts, hits, kb, base=base, settings=settings)
