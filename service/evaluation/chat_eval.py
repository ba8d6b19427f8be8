"""The chat eval: (diagnosed case, question, must-mention) triples from ``evals/chat.yaml``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field

from service import chat
from service.evaluation.cases import LoadedCase, load_cases
from service.pipeline import Engine, masked_excerpt, run_stages


class ChatCase(BaseModel):
    model_config = ConfigDict(extra="forbid")

    case: str  # an eval case id (its logs are diagnosed first)
    question: str
    must_mention: list[str] = Field(default_factory=list)
    out_of_scope: bool = False  # the right answer says the material does not cover the question


def run_chat_eval(engine: Engine, chat_file: Path) -> dict[str, Any]:
    if not chat_file.exists():
        return {"n": 0, "pass_rate": 0.0, "failing": []}
    raw = yaml.safe_load(chat_file.read_text(encoding="utf-8")) or {}
    items = [ChatCase.model_validate(c) for c in raw.get("cases", [])]
    cases: dict[str, LoadedCase] = {c.id: c for c in load_cases(chat_file.parent / "cases")}
    traces: dict[str, Any] = {}
    failing: list[dict[str, Any]] = []
    passed = 0
    for item in items:
        lc = cases.get(item.case)
        if lc is None:
            failing.append({"case": item.case, "question": item.question, "error": "no such eval case"})
            continue
        if item.case not in traces:
            traces[item.case] = run_stages(engine, lc.sources())
        trace = traces[item.case]
        reply = chat.answer(trace.diagnosis, item.question, masked_excerpt(trace.log, trace.diagnosis), engine.kb, [], engine.settings)
        text = reply.answer.lower()
        missing = [m for m in item.must_mention if m.lower() not in text]
        scope_wrong = item.out_of_scope != reply.out_of_scope
        if missing or scope_wrong:
            failing.append({"case": item.case, "question": item.question, "missing": missing, "intent": reply.intent,
                            "out_of_scope": reply.out_of_scope, "expected_out_of_scope": item.out_of_scope})
        else:
            passed += 1
    n = len(items)
    return {"n": n, "pass_rate": round(passed / (n or 1), 4), "failing": failing}
