"""``/crashdoc`` text -> what the user asked for. The subcommands are listed once, in ``SUBCOMMANDS``."""

from __future__ import annotations

import re
from dataclasses import dataclass

# Slack cuts slash command text at 4,000 characters without saying so; a paste that comes close was
# almost certainly cut, and the end of a log (where the failure is) is what gets lost.
TOO_LONG_AT = 3_900

DIAGNOSIS_ID = re.compile(r"^d_[A-Za-z0-9]{4,64}$")


@dataclass(frozen=True)
class Subcommand:
    word: str  # the first word that selects it ("" for a pasted log)
    args: str
    summary: str


SUBCOMMANDS: tuple[Subcommand, ...] = (
    Subcommand("", "<pasted log>", f"diagnose a pasted log (up to {TOO_LONG_AT:,} characters; a whole log: upload it and use the shortcut Diagnose with crashdoc)"),
    Subcommand("ask", "<diagnosis id> <question>", "ask a follow-up question about a diagnosis"),
    Subcommand("kb", "<search words>", "search the encyclopedia of failures"),
    Subcommand("help", "", "this message"),
)


@dataclass(frozen=True)
class Help:
    pass


@dataclass(frozen=True)
class Diagnose:
    log: str


@dataclass(frozen=True)
class TooLong:
    chars: int


@dataclass(frozen=True)
class Ask:
    diagnosis_id: str
    question: str


@dataclass(frozen=True)
class SearchKb:
    words: str


@dataclass(frozen=True)
class Usage:
    """The text named a subcommand but not the way it is used."""

    problem: str
    subcommand: Subcommand


Command = Help | Diagnose | TooLong | Ask | SearchKb | Usage


def unescape(text: str) -> str:
    """Slack escapes exactly &, < and > in command text (``should_escape: false`` escapes nothing else)."""
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


def _sub(word: str) -> Subcommand:
    return next(s for s in SUBCOMMANDS if s.word == word)


def _split(text: str) -> tuple[str, str]:
    """First word and the rest, both stripped."""
    parts = text.strip().split(None, 1)
    return (parts[0], parts[1].strip()) if len(parts) == 2 else (parts[0] if parts else "", "")


def parse(text: str) -> Command:
    """Parse the (already unescaped) text after ``/crashdoc``."""
    word, rest = _split(text)
    if not word or (word.lower() == "help" and not rest):
        return Help()
    if word.lower() == "ask":
        diagnosis_id, question = _split(rest)
        if not DIAGNOSIS_ID.match(diagnosis_id):
            return Usage("Name the diagnosis: its id starts with `d_`.", _sub("ask"))
        if not question:
            return Usage("Add your question after the diagnosis id.", _sub("ask"))
        return Ask(diagnosis_id, question)
    if word.lower() == "kb":
        if not rest:
            return Usage("Add the words to search for.", _sub("kb"))
        return SearchKb(" ".join(rest.split()))
    if len(text) >= TOO_LONG_AT:
        return TooLong(len(text))
    return Diagnose(text)
