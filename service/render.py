"""A diagnosis as text for a person, or markdown for a PR comment. JSON is ``Diagnosis.model_dump_json``."""

from __future__ import annotations

import textwrap

from service.facts.vocabulary import in_display_order
from service.models import Diagnosis


def _facts_in_order(d: Diagnosis) -> list[tuple[str, str]]:
    return [(n, d.facts[n].value) for n in in_display_order(d.facts)]


def _rank(r: int | None) -> str:
    return f"rank {r}" if r is not None else "-"


def _headline(d: Diagnosis) -> str:
    if d.entry_id:
        return f"{d.title}  [{d.entry_id}]  confidence {d.confidence:.0%}"
    return f"{d.title}  (confidence below threshold)"


def to_text(d: Diagnosis, *, color: bool = False) -> str:
    bold = (lambda s: f"\x1b[1m{s}\x1b[0m") if color else (lambda s: s)
    out: list[str] = [bold("Root cause: ") + _headline(d), ""]
    out += [*textwrap.wrap(d.summary, 100), ""]
    if d.initiating_rank is not None:
        out.append(f"Initiating rank: {d.initiating_rank}   ({len(d.collateral)} collateral error line(s) on other ranks)")
    if d.evidence:
        out.append(bold("Evidence:"))
        for e in d.evidence:
            out.append(f"  {e.file}:{e.line} ({_rank(e.rank)})  {e.text[:160]}")
        out.append("")
    facts = _facts_in_order(d)
    if facts:
        out.append(bold("Facts:"))
        out += [f"  {n:<24} {v}" for n, v in facts]
        out.append("")
    if d.fix:
        out.append(bold("Fix:"))
        for i, step in enumerate(d.fix, 1):
            first, *rest = step.splitlines()
            out.append(f"  {i}. {first}")
            out += [f"     {line}" for line in rest]
        out.append("")
    if d.verify:
        out.append(bold("Verify:"))
        for step in d.verify:
            first, *rest = step.splitlines()
            out.append(f"  - {first}")
            out += [f"    {line}" for line in rest]
        out.append("")
    if d.collateral:
        out.append(bold("Collateral (consequences, not causes):"))
        for c in d.collateral[:8]:
            out.append(f"  {c.file}:{c.line} ({_rank(c.rank)})  {c.text[:120]}")
        if len(d.collateral) > 8:
            out.append(f"  … and {len(d.collateral) - 8} more")
        out.append("")
    alts = [c for c in d.candidates if c.entry_id != d.entry_id][:4]
    if alts:
        out.append(bold("Alternatives:"))
        out += [f"  {c.score:.2f}  {c.entry_id:<44} ({', '.join(c.sources)})" for c in alts]
        out.append("")
    if d.masked:
        out.append("Masked before analysis: " + ", ".join(f"{k} {v}" for k, v in sorted(d.masked.items())))
    for note in d.notes:
        out.append(f"Note: {note}")
    out.append(f"Diagnosis {d.id} · composer {d.composer} · kb {d.kb_version} · {d.timings_ms.get('total', 0):.0f} ms")
    return "\n".join(out).rstrip() + "\n"


def _md_code(text: str) -> str:
    return text.replace("```", "ʼʼʼ")


def to_markdown(d: Diagnosis, *, public_url: str | None = None) -> str:
    out: list[str] = [f"### crashdoc: {d.title}", ""]
    if d.entry_id:
        out.append(f"**Root cause:** `{d.entry_id}` · confidence **{d.confidence:.0%}**")
    else:
        out.append("**Root cause:** no known failure matched with enough confidence")
    if d.initiating_rank is not None:
        out.append(f" · initiating rank **{d.initiating_rank}**")
    out += ["", d.summary, ""]
    if d.evidence:
        out += ["**Evidence**", "", "```"]
        out += [_md_code(f"{e.file}:{e.line} [{_rank(e.rank)}] {e.text[:200]}") for e in d.evidence]
        out += ["```", ""]
    if d.fix:
        out += ["**Fix**", ""]
        for i, step in enumerate(d.fix, 1):
            lines = step.splitlines()
            out.append(f"{i}. {lines[0]}")
            out += [f"   {line}" for line in lines[1:]]
        out.append("")
    if d.verify:
        out += ["**Verify**", ""]
        for step in d.verify:
            lines = step.splitlines()
            out.append(f"- {lines[0]}")
            out += [f"  {line}" for line in lines[1:]]
        out.append("")
    facts = _facts_in_order(d)
    if facts:
        out += ["<details><summary>Facts</summary>", "", "| fact | value |", "| --- | --- |"]
        out += [f"| {n} | `{v}` |" for n, v in facts]
        out += ["", "</details>", ""]
    if d.collateral:
        out += [f"<details><summary>{len(d.collateral)} collateral error line(s)</summary>", "", "```"]
        out += [_md_code(f"{c.file}:{c.line} [{_rank(c.rank)}] {c.text[:160]}") for c in d.collateral[:20]]
        out += ["```", "", "</details>", ""]
    alts = [c for c in d.candidates if c.entry_id != d.entry_id][:4]
    if alts:
        out.append("Alternatives: " + ", ".join(f"`{c.entry_id}` ({c.score:.2f})" for c in alts))
        out.append("")
    link = f" · [open]({public_url.rstrip('/')}/d/{d.id})" if public_url else ""
    out.append(f"<sub>diagnosis `{d.id}` · {d.composer} · kb {d.kb_version}{link}</sub>")
    return "\n".join(out) + "\n"
