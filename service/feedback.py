"""Users' verdicts on diagnoses ("right cause" / "wrong cause, it was ..."), and their way into the eval suite.

    page, Slack, POST /v1/diagnoses/{id}/feedback -> record() -> the store (per workspace)
    crashdoc feedback export DIR -> export() -> one eval case skeleton per wrong-cause report, for a maintainer

A skeleton is never an eval case by itself: its log is only the stored masked excerpt (the lines around the
evidence), its label is the user's word, and its README says what a maintainer checks before moving it into
``evals/`` (the label against the log, the full log if the excerpt is too thin, facts and must-mention terms).

"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, Field

from service.errors import BadRequest
from service.masking import mask_text
from service.pipeline import Engine

Verdict = Literal["right", "wrong"]
SOURCES = ("web", "api", "slack")
MAX_NOTE = 2_000
_ID = re.compile(r"^[a-z0-9][a-z0-9-]{1,79}$")


class FeedbackIn(BaseModel):
    """What a user says about a diagnosis."""

    verdict: Verdict = Field(description="`right`: the named cause is right; `wrong`: it is not")
    label: str | None = Field(default=None, max_length=80, description="for `wrong`: the encyclopedia entry id it really was, if known")
    note: str | None = Field(default=None, max_length=MAX_NOTE, description="for `wrong`: what it was, in words (masked before it is stored)")


class Feedback(BaseModel):
    diagnosis_id: str
    verdict: Verdict
    label: str | None = None
    note: str | None = None  # masked
    source: str
    created_at: str


def record(engine: Engine, diagnosis_id: str, given: FeedbackIn, *, source: str, workspace_id: str | None = None) -> Feedback:
    """Check and store a verdict; the note is masked like a question, and a label must be an entry id."""
    label = (given.label or "").strip().lower() or None
    if label is not None and (not _ID.match(label) or engine.kb.get(label) is None):
        raise BadRequest(f"'{given.label}' is not an encyclopedia entry id.",
                         hint="Name the entry (GET /v1/kb lists them), or say what it was in `note`.")
    if given.verdict == "right" and (label or given.note):
        label = None  # "right" names nothing else
    note = None
    if given.note and given.note.strip() and given.verdict == "wrong":
        note, _ = mask_text(given.note.strip()[:MAX_NOTE], engine.masker)
    when = engine.store.add_feedback(diagnosis_id, verdict=given.verdict, label=label, note=note, source=source,
                                     workspace_id=workspace_id)
    return Feedback(diagnosis_id=diagnosis_id, verdict=given.verdict, label=label, note=note, source=source,
                    created_at=when.isoformat(timespec="seconds"))


_REVIEW = """# Review before this becomes an eval case

A user said crashdoc's diagnosis `{diagnosis_id}` ({predicted}) was wrong{said}.

- Check the label against the log. The log file(s) here are only the masked excerpt crashdoc stored (the
  lines around its evidence); ask for the full log if the excerpt does not show the cause.
- Fill in `facts`, `must_mention` and `initiating_rank`, and set `difficulty`.
- Write its description from the log, not from this note; then move the folder into `evals/cases/`
  (or `evals/reworded/`) and run `crashdoc eval`.
"""


def export(engine: Engine, out: Path, *, workspace_id: str | None = None, every_workspace: bool = False) -> list[Path]:
    """One eval case skeleton per wrong-cause report: ``case.yaml`` (the user's label), ``train.log`` (the masked
    excerpt) and ``REVIEW.md``. Reports already exported (same folder name) are left as they are."""
    written: list[Path] = []
    for fb, d, excerpt in engine.store.feedback(workspace_id, every_workspace=every_workspace, verdict="wrong"):
        folder = out / f"feedback-{fb.label or 'unlabelled'}-{d.id.removeprefix('d_').lower()}-{fb.id}"
        if folder.exists():
            continue
        folder.mkdir(parents=True)
        case = {
            "schema_version": 1,
            "label": fb.label or "unknown",
            "also": [],
            "difficulty": "medium",
            "description": f"from user feedback on {d.id}: crashdoc said {d.entry_id or 'unknown'}"
                           + (f"; the user: {fb.note}" if fb.note else ""),
            "initiating_rank": d.initiating_rank,
            "facts": {},
            "must_mention": [],
            "secrets": [],
        }
        (folder / "case.yaml").write_text(yaml.safe_dump(case, sort_keys=False, allow_unicode=True), encoding="utf-8")
        by_file: dict[str, list[str]] = {}
        for e in excerpt:
            by_file.setdefault(e.file, []).append(e.text)
        for name, texts in by_file.items():  # each file of the run under its own (masked) name
            safe = re.sub(r"[^A-Za-z0-9_.-]", "_", Path(name).name) if len(by_file) > 1 else "train.log"
            (folder / (safe if safe.endswith((".log", ".txt", ".out", ".err")) else safe + ".log")).write_text(
                "\n".join(texts) + "\n", encoding="utf-8")
        said = f": it was `{fb.label}`" if fb.label else ""
        said += f' ("{fb.note}")' if fb.note else ""
        (folder / "REVIEW.md").write_text(_REVIEW.format(diagnosis_id=d.id, predicted=d.entry_id or "unknown", said=said),
                                          encoding="utf-8")
        written.append(folder)
    return written
