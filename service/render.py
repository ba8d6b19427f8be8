"""A diagnosis as text for a person, or markdown for a PR comment. JSON is ``Diagnosis.model_dump_json``."""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable

from service.facts.vocabulary import in_display_order
from service.models import Diagnosis, Evidence, TimelineEvent


def _facts_in_order(d: Diagnosis) -> list[tuple[str, str]]:
    return [(n, d.facts[n].value) for n in in_display_order(d.facts)]


def _rank(r: int | None) -> str:
    return f"rank {r}" if r is not None else "-"


def _headline(d: Diagnosis) -> str:
    if d.entry_id:
        return f"{d.title}  [{d.entry_id}]  confidence {d.confidence:.0%}"
    return f"{d.title}  (confidence below threshold)"


_BOLD = re.compile(r"\*\*(.+?)\*\*|__(.+?)__")
_CODE = re.compile(r"(`+)(.+?)\1")
_LINK = re.compile(r"\[([^\]]+)\]\((\S+?)\)")
_ITALIC = re.compile(r"(?<![\w*])\*(\S[^*\n]*?)\*(?![\w*])")
# sentinels that stand one character wide while textwrap measures a line, then become ANSI codes or nothing
_B_ON, _B_OFF, _C_ON, _C_OFF = "\x01", "\x02", "\x03", "\x04"


def _inline(text: str) -> str:
    text = _CODE.sub(lambda m: _C_ON + m.group(2).strip() + _C_OFF, text)
    text = _BOLD.sub(lambda m: _B_ON + (m.group(1) or m.group(2)) + _B_OFF, text)
    text = _ITALIC.sub(lambda m: m.group(1), text)
    return _LINK.sub(lambda m: f"{m.group(1)} ({m.group(2)})", text)


def _styled(text: str, color: bool) -> str:
    codes = {_B_ON: "\x1b[1m", _B_OFF: "\x1b[0m", _C_ON: "\x1b[36m", _C_OFF: "\x1b[0m"} if color else {}
    for sentinel in (_B_ON, _B_OFF, _C_ON, _C_OFF):
        text = text.replace(sentinel, codes.get(sentinel, ""))
    return text


def _terminal(markdown: str, bullet: str, indent: str, width: int, color: bool) -> list[str]:
    """KB markdown (a fix or verify step) for a terminal: bold and code as styles (or plain), links spelled out,
    paragraphs wrapped to the width under the bullet, code blocks indented without their fences."""
    out: list[str] = []
    fence: str | None = None
    pad = indent + " " * len(bullet)
    for i, line in enumerate(_unwrap(markdown)):
        m = _FENCE.match(line)
        if fence is not None:
            if m and line.strip().startswith(fence):
                fence = None
            else:
                out.append(_styled(f"{pad}  {_C_ON}{line}{_C_OFF}", color))
            continue
        if m:
            fence = m.group(1)
            if i == 0:
                out.append((indent + bullet).rstrip())
            continue
        if not line.strip():
            continue
        nested = _LIST_START.match(line)
        first = indent + bullet if i == 0 else pad + (line[: nested.end()].strip() + " " if nested else "")
        rest = " " * len(first) if nested and i else pad
        text = line[nested.end():] if nested and i else line
        wrapped = textwrap.wrap(_inline(text.strip()), width=max(width, 40), initial_indent=first,
                                subsequent_indent=rest, break_on_hyphens=False, break_long_words=False)
        out += [_styled(w, color) for w in wrapped] or [first.rstrip()]
    return out


def _answer_first(d: Diagnosis, bold: Callable[[str], str], width: int = 100, color: bool = False) -> list[str]:
    """This run's sentence, the decisive line (wrapped, never cut), the first fix step and why: before the rest."""
    if d.answer is None:
        return []
    out = [*textwrap.wrap(bold(d.answer.sentence), width), ""]
    if d.evidence:
        e = d.evidence[0]
        out.append(bold("Decisive line: ") + f"{e.file}:{e.line} ({_rank(e.rank)})")
        out += textwrap.wrap(e.text, width, initial_indent="  > ", subsequent_indent="    ", break_on_hyphens=False)
        out.append("")
    if d.fix:
        out.append(bold("First fix:"))
        out += _terminal(d.fix[0], "", "  ", width, color)
        out.append("")
    if d.answer.why:
        out.append(bold("Why crashdoc thinks so:"))
        out += [line for reason in d.answer.why for line in textwrap.wrap(reason, width, initial_indent="  - ", subsequent_indent="    ")]
        out.append("")
    return out


def to_text(d: Diagnosis, *, color: bool = False, width: int | None = None) -> str:
    """The diagnosis for a person at a terminal; ``width`` is the terminal's (100 when not a terminal)."""
    width = min(width or 100, 120)
    bold = (lambda s: f"\x1b[1m{s}\x1b[0m") if color else (lambda s: s)
    out: list[str] = [bold("Root cause: ") + _headline(d), ""]
    out += _answer_first(d, bold, width, color)
    out += [*textwrap.wrap(d.summary, width), ""]
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
            out += _terminal(step, f"{i}. ", "  ", width, color)
        out.append("")
    if d.verify:
        out.append(bold("Verify:"))
        for step in d.verify:
            out += _terminal(step, "- ", "  ", width, color)
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
    link = d.url
    if link:
        out.append(f"Page: {link}")
    out.append(f"Diagnosis {d.id} · composer {d.composer} · kb {d.kb_version} · {d.timings_ms.get('total', 0):.0f} ms")
    return "\n".join(out).rstrip() + "\n"


# The hidden first line of a PR/MR comment: a bot finds its own comment by it and edits it on a rerun. ``key``
# tells apart the comments of several jobs on one PR; it stays the same across reruns (the diagnosis id does not).
MARKER_PREFIX = "<!-- crashdoc:comment key="
_KEY = re.compile(r"[A-Za-z0-9_.:/-]{1,100}")
_LIST_START = re.compile(r"^\s*(?:[-*+]|\d{1,3}[.)])\s+")  # a nested item inside a step: "   - `pip install x`"
_FENCE = re.compile(r"^\s*(```|~~~)")


def comment_marker(key: str = "crashdoc") -> str:
    """The hidden marker a PR comment starts with (an HTML comment GitHub and GitLab do not show)."""
    if not _KEY.fullmatch(key):
        raise ValueError(f"comment key {key!r}: letters, digits and _.:/- only, at most 100")
    return f"{MARKER_PREFIX}{key} -->"


def _code_span(text: str) -> str:
    """Inline code that a backtick inside the text cannot close."""
    text = " ".join(text.split())
    run = max((len(m) for m in re.findall(r"`+", text)), default=0)
    tick = "`" * (run + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{tick}{pad}{text}{pad}{tick}"


def _fenced(lines: list[str]) -> list[str]:
    """A code block whose fence is longer than any backtick run in the lines (a log line cannot end it)."""
    run = max((len(m) for line in lines for m in re.findall(r"`{3,}", line)), default=0)
    fence = "`" * max(3, run + 1)
    return [fence, *lines, fence]


def _unwrap(text: str) -> list[str]:
    """Markdown from the KB with its hard wraps joined: one line per paragraph or nested item; code kept as is.

    GitHub turns each newline of a comment into a line break, so a wrapped sentence would break mid-line.
    Returns the blocks' lines, unindented (the caller indents them under a list item)."""
    raw = text.splitlines()
    body = [line for line in raw[1:] if line.strip()]
    indent = min((len(line) - len(line.lstrip()) for line in body), default=0)
    lines = [raw[0].strip(), *(line[indent:] if not line[:indent].strip() else line.lstrip() for line in raw[1:])] if raw else []
    out: list[str] = []
    fence: str | None = None
    joinable = False  # the last output line is prose a continuation line belongs to
    for line in lines:
        m = _FENCE.match(line)
        if fence is not None:
            out.append(line)
            if m and line.strip().startswith(fence):
                fence = None
            continue
        if m:
            fence = m.group(1)
            out.append(line)
            joinable = False
        elif not line.strip():
            if out and out[-1]:
                out.append("")
            joinable = False
        elif _LIST_START.match(line) or line.lstrip().startswith(("|", "#", ">", "<")):
            out.append(line.rstrip())
            joinable = not line.lstrip().startswith(("|", "#", "<"))
        elif joinable:
            out[-1] = out[-1].rstrip() + " " + line.strip()
        else:
            out.append(line.rstrip())
            joinable = True
    while out and not out[-1]:
        out.pop()
    return out


def _item(bullet: str, step: str) -> list[str]:
    """One list item: its first block on the bullet's line, the rest indented under it (blank lines kept)."""
    first, *rest = _unwrap(step) or [""]
    pad = " " * len(bullet)
    return [f"{bullet}{first}", *(f"{pad}{line}" if line else "" for line in rest)]


def _run_line(d: Diagnosis) -> str:
    """What is particular to this run, before anything generic: the run's sentence (``answer``, the one story the
    page and the text tell) and the decisive line (``evidence[0]``); for a diagnosis stored before answers existed,
    who failed first, when, and the first failure's line."""
    if d.answer is not None:
        decisive = f" {_code_span(d.evidence[0].text[:300])} ({_code_span(f'{d.evidence[0].file}:{d.evidence[0].line}')})" if d.evidence else ""
        return f"**{' '.join(d.answer.sentence.split())}**{decisive}"
    first = next((t for t in d.timeline if t.first), None)
    line: Evidence | TimelineEvent | None = first or (d.evidence[0] if d.evidence else None)
    step = d.facts["failure_step"].value if "failure_step" in d.facts else None
    rank = d.initiating_rank if d.initiating_rank is not None else (line.rank if line else None)
    who = f"Rank {rank} failed first" if rank is not None else "The run failed"
    when = f" around step {step}" if step else ""
    if line is None:
        return f"**{who}{when}.**" if (rank is not None or step) else "**No error line was found in the log.**"
    where = f"{line.file}:{line.line}"
    return f"**{who}{when}:** {_code_span(line.text[:300])} ({_code_span(where)})"


def to_markdown(d: Diagnosis, *, key: str = "crashdoc", url: str | None = None) -> str:
    """The diagnosis as a PR/MR comment (GitHub and GitLab flavoured markdown), also ``Accept: text/markdown``.

    The hidden marker first (``comment_marker(key)``), then the run-specific line, the root cause and summary, the
    fix and verify steps with no hard wraps, evidence, facts and collateral in collapsed ``<details>``, and the
    link to the page: ``url``, else the diagnosis' own ``url`` (a share link) when it has one."""
    link = url or d.url
    out: list[str] = [comment_marker(key), _run_line(d), ""]
    if d.entry_id:
        out.append(f"**Root cause: {' '.join(d.title.split())}** · `{d.entry_id}` · confidence {d.confidence:.0%}")
    else:
        out.append("**Root cause: unknown.** No failure of the catalogue matched with enough confidence.")
    out += ["", *_unwrap(d.summary), ""]
    if d.fix:
        out += ["**Fix**", ""]
        for i, step in enumerate(d.fix, 1):
            out += _item(f"{i}. ", step)
        out.append("")
    if d.verify:
        out += ["**Verify**", ""]
        for step in d.verify:
            out += _item("- ", step)
        out.append("")
    if d.evidence:
        out += [f"<details><summary>Evidence ({len(d.evidence)} line{'s' if len(d.evidence) != 1 else ''})</summary>", ""]
        out += _fenced([f"{e.file}:{e.line} [{_rank(e.rank)}] {e.text[:300]}" for e in d.evidence])
        out += ["", "</details>", ""]
    facts = _facts_in_order(d)
    if facts:
        out += ["<details><summary>Facts</summary>", "", "| fact | value |", "| --- | --- |"]
        out += [f"| {n} | {_code_span(v).replace('|', chr(92) + '|')} |" for n, v in facts]
        out += ["", "</details>", ""]
    if d.collateral:
        ranks = sorted({c.rank for c in d.collateral if c.rank is not None})
        on = f" on rank{'s' if len(ranks) != 1 else ''} {', '.join(map(str, ranks[:8]))}{' …' if len(ranks) > 8 else ''}" if ranks else ""
        out += [f"<details><summary>Collateral: {len(d.collateral)} error line(s){on}, consequences, not causes</summary>", ""]
        out += _fenced([f"{c.file}:{c.line} [{_rank(c.rank)}] {c.text[:200]}" for c in d.collateral[:20]])
        if len(d.collateral) > 20:
            out += ["", f"… and {len(d.collateral) - 20} more"]
        out += ["", "</details>", ""]
    alts = [c for c in d.candidates if c.entry_id != d.entry_id][:4]
    if alts:
        out += ["Alternatives: " + ", ".join(f"`{c.entry_id}` ({c.score:.2f})" for c in alts), ""]
    if d.masked:
        out += ["Masked before analysis: " + ", ".join(f"{k} {v}" for k, v in sorted(d.masked.items())), ""]
    page = f"[Open the diagnosis]({link}) · " if link else ""
    out.append(f"<sub>{page}diagnosis `{d.id}` · {d.composer} · kb {d.kb_version}</sub>")
    return "\n".join(out) + "\n"
