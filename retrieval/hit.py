"""A retrieval candidate: the value retrieval returns (``service.models`` re-exports it for the stages above)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class Hit(BaseModel):
    """A candidate entry with its fused score and what each retrieval source gave it."""

    model_config = ConfigDict(frozen=True)

    entry_id: str
    title: str
    score: float
    sources: dict[str, float] = Field(default_factory=dict)
    ranks: dict[str, int] = Field(default_factory=dict)
