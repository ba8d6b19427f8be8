"""Eval cases: ``evals/cases/<case-id>/case.yaml`` plus the log files of one run, validated strictly."""

from __future__ import annotations

from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from service.errors import InputError
from service.ingest import sources_in
from service.models import Source

# The label of an out-of-catalogue case (evals/unknown/): no entry explains it, and the right answer is "unknown".
UNKNOWN = "unknown"


class Case(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    schema_version: int = Field(ge=1, le=1)
    label: str  # a catalogue id, or "unknown" for a failure no entry describes
    kind: str | None = None  # with label "unknown": its failure kind, a line of evals/unknown/KINDS.md
    also: list[str] = Field(default_factory=list)
    difficulty: str = Field(pattern=r"^(easy|medium|hard)$")
    description: str = ""
    initiating_rank: int | list[int] | None = None  # a list when several ranks fail at once on the same bug
    facts: dict[str, str] = Field(default_factory=dict)
    must_mention: list[str] = Field(default_factory=list)
    secrets: list[str] = Field(default_factory=list)

    @field_validator("facts", mode="before")
    @classmethod
    def _stringify(cls, v: object) -> object:
        return {str(k): str(val) for k, val in v.items()} if isinstance(v, dict) else v

    @model_validator(mode="after")
    def _kind_iff_unknown(self) -> Case:
        if (self.label == UNKNOWN) != (self.kind is not None):
            raise ValueError("a case labelled 'unknown' names its failure kind (kind: ...), and only such a case does")
        return self

    @property
    def out_of_catalogue(self) -> bool:
        return self.label == UNKNOWN

    @property
    def acceptable(self) -> set[str]:
        """The answers counted right: the label (``unknown`` meaning no entry named) and the honest alternatives."""
        return {self.label, *self.also}


class LoadedCase(BaseModel):
    id: str
    case: Case
    folder: str
    split: str = "cases"  # the directory it came from: cases, reworded, holdout

    def sources(self) -> list[Source]:
        """The case's log files, as the CLI would read its folder (the same reader, the same files count)."""
        return sources_in(Path(self.folder))


def load_cases(cases_dir: Path, catalog_ids: set[str] | None = None) -> list[LoadedCase]:
    if not cases_dir.is_dir():
        raise InputError(f"{cases_dir}: no such directory of eval cases.")
    out: list[LoadedCase] = []
    for case_yaml in sorted(cases_dir.glob("*/case.yaml")):
        try:
            case = Case.model_validate(yaml.safe_load(case_yaml.read_text(encoding="utf-8")))
        except (yaml.YAMLError, ValidationError) as exc:
            raise InputError(f"{case_yaml}: invalid case: {exc}") from exc
        if catalog_ids is not None:
            unknown = case.acceptable - catalog_ids - {UNKNOWN}
            if unknown:
                raise InputError(f"{case_yaml}: ids that are not kb entries: {sorted(unknown)}")
        out.append(LoadedCase(id=case_yaml.parent.name, case=case, folder=str(case_yaml.parent), split=cases_dir.name))
    return out
