"""Chat values: a reply with its citations."""

from __future__ import annotations

from pydantic import BaseModel, Field


class Citation(BaseModel):
    kind: str  # "section" | "line" | "fact"
    ref: str  # "<entry_id>#<section>" | "<file>:<line>" | "<fact name>"


class Reply(BaseModel):
    answer: str
    citations: list[Citation] = Field(default_factory=list)
    intent: str = ""
    out_of_scope: bool = False
    composer: str = "deterministic"
    notes: list[str] = Field(default_factory=list)


class Message(BaseModel):
    role: str
    text: str
    created_at: str
    citations: list[Citation] = Field(default_factory=list)
    composer: str | None = None
