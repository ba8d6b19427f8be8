"""The API's request and response bodies, as typed models (pydantic only: the client imports them without FastAPI).

The diagnosis itself is ``service.models.Diagnosis`` (the JSON contract); errors are ``service.api.errors.ErrorOut``.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from retrieval.kb import FrontMatter
from service.chat.models import Message


class Health(BaseModel):
    status: str = Field(description='"ok"')
    kb_version: str = Field(description="content hash of kb/")
    entries: int = Field(description="entries in the encyclopedia")


class EntrySummary(BaseModel):
    id: str
    title: str
    category: str
    summary: str
    tags: list[str]


class EntryIndex(BaseModel):
    kb_version: str
    entries: list[EntrySummary]


class EntryOut(FrontMatter):
    """One encyclopedia entry: its front matter, its sections and the whole markdown file."""

    sections: dict[str, str]
    markdown: str


class Question(BaseModel):
    question: str = Field(min_length=1, max_length=20_000, description="a follow-up question about the diagnosis")


class Exchange(BaseModel):
    """A question and its answer, as stored."""

    question: Message
    answer: Message


class Conversation(BaseModel):
    messages: list[Message]


class ShareLink(BaseModel):
    url: str = Field(description="opens the diagnosis read-only, without an API key; revocable")


# ---------------------------------------------------------------- the workspace


class AllowanceOut(BaseModel):
    diagnoses_per_day: int | None = Field(description="null: no limit")
    questions_per_day: int | None = Field(description="follow-up questions, counted separately; null: no limit")


class UsageOut(BaseModel):
    diagnoses: int
    questions: int


class WorkspaceOut(BaseModel):
    id: str
    name: str
    plan: str = Field(description="the plan in force now (an evaluation plan while it lasts)")
    base_plan: str = Field(description="the plan the workspace falls back to")
    plan_until: str | None = Field(description="when the evaluation plan ends (UTC), or null")
    allowance: AllowanceOut
    used_today: UsageOut = Field(description="this UTC day")
    resets_at: str = Field(description="the next 00:00 UTC")


class RedeemIn(BaseModel):
    code: str = Field(min_length=1, max_length=100, description="an evaluation code, EVAL-XXXX-XXXX-XXXX-XXXX")


class DiagnosisItem(BaseModel):
    id: str
    created_at: str
    entry_id: str | None
    title: str
    category: str | None
    confidence: float
    summary: str
    composer: str


class DiagnosisPage(BaseModel):
    items: list[DiagnosisItem]
    total: int
    limit: int
    offset: int
    next_offset: int | None = Field(description="the offset of the next page, or null on the last one")
