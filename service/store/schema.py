"""Tables. Only masked text and diagnoses are stored: never a raw log."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, Float, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    pass


class DiagnosisRow(Base):
    __tablename__ = "diagnoses"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    workspace_id: Mapped[str | None] = mapped_column(String(32), nullable=True, index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
    entry_id: Mapped[str | None] = mapped_column(String(80), nullable=True)
    confidence: Mapped[float] = mapped_column(Float)
    composer: Mapped[str] = mapped_column(String(120))
    body: Mapped[str] = mapped_column(Text)  # the Diagnosis JSON
    excerpt: Mapped[str] = mapped_column(Text)  # masked excerpt (JSON list of {file, line, rank, text})


class MessageRow(Base):
    __tablename__ = "messages"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    diagnosis_id: Mapped[str] = mapped_column(ForeignKey("diagnoses.id", ondelete="CASCADE"))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    role: Mapped[str] = mapped_column(String(16))  # "user" | "assistant"
    body: Mapped[str] = mapped_column(Text)  # masked question, or the answer JSON

    __table_args__ = (Index("ix_messages_diagnosis", "diagnosis_id", "id"),)
