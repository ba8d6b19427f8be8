"""Chat values: a reply with its citations."""

from __future__ import annotations

from typing import Any, Literal

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
    notes: list[str] = Field(default_factory=list)  # e.g. why an LLM answer was replaced by the deterministic one


class Withdrawn(BaseModel):
    """The text streamed so far is taken back: it did not pass the checks (the final answer replaces it)."""

    reason: str


class ChatEvent(BaseModel):
    """One event of a streamed answer: ``delta`` (LLM text, whole lines checked for actions before they are sent),
    ``withdraw`` (take back the deltas shown: the draft was rejected) or the final ``answer``."""

    kind: Literal["delta", "withdraw", "answer"]
    data: dict[str, Any]
