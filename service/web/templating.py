"""The pages' Jinja environment (autoescaped, strict), their static assets, and the filters the templates use."""

from __future__ import annotations

import hashlib
import re
import textwrap
from collections.abc import Container
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape
from markupsafe import Markup
from starlette.responses import HTMLResponse

from retrieval.kb import CITABLE_SECTIONS, SECTIONS
from service.chat.models import Citation
from service.masking.kinds import KINDS
from service.web.encyclopedia import category_title
from service.web.markdown import render_inline, render_markdown

HERE = Path(__file__).resolve().parent
SECTION_TITLES = dict(SECTIONS)
_CITABLE_TITLES = dict(CITABLE_SECTIONS)


# ---------------------------------------------------------------- static assets


@dataclass(frozen=True)
class Asset:
    body: bytes
    media_type: str
    version: str  # content hash: the URL changes when the file does, so it can be cached for good


_MEDIA = {".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".svg": "image/svg+xml"}


@lru_cache(maxsize=1)
def assets() -> dict[str, Asset]:
    """Every file of ``static/``, read once; nothing else is served under ``/static``."""
    out: dict[str, Asset] = {}
    for p in sorted((HERE / "static").iterdir()):
        if p.is_file() and p.suffix in _MEDIA:
            body = p.read_bytes()
            out[p.name] = Asset(body, _MEDIA[p.suffix], hashlib.sha256(body).hexdigest()[:10])
    return out


def static_url(name: str) -> str:
    return f"/static/{name}?v={assets()[name].version}"


# ---------------------------------------------------------------- filters


def percent(value: float) -> str:
    return f"{value:.0%}"


def confidence_label(value: float, threshold: float) -> str:
    if value < threshold:
        return "low"
    return "high" if value >= 0.7 else "medium"


_ACRONYMS = {"gpu": "GPU", "cuda": "CUDA", "nccl": "NCCL", "oom": "OOM", "xid": "Xid", "cpu": "CPU", "id": "id", "hf": "HF"}


def humanize(name: str) -> str:
    """``gpu_model`` -> ``GPU model``; ``deepspeed_version`` -> ``Deepspeed version``."""
    words = [_ACRONYMS.get(w, w) for w in name.replace("-", "_").split("_") if w]
    if words and words[0] == words[0].lower():
        words[0] = words[0].capitalize()
    return " ".join(words)


def step_markdown(step: str) -> Markup:
    """A fix or verify step: its first line, then its continuation lines dedented, as markdown."""
    first, _, rest = step.partition("\n")
    return render_markdown(first + ("\n" + textwrap.dedent(rest) if rest else ""), demote=3)


def highlight(text: str, values: list[str]) -> Markup:
    """A log line, escaped, with the figures that decided the cause (facts' values found in it) marked."""
    needles = sorted({v for v in values if len(v) >= 2 and v in text}, key=len, reverse=True)
    if not needles:
        return Markup.escape(text)
    pattern = re.compile("|".join(re.escape(n) for n in needles))
    out: list[Markup] = []
    at = 0
    for m in pattern.finditer(text):
        out += [Markup.escape(text[at:m.start()]), Markup("<mark>"), Markup.escape(m.group(0)), Markup("</mark>")]
        at = m.end()
    out.append(Markup.escape(text[at:]))
    return Markup("").join(out)


def card_summary(text: str, limit: int) -> Markup:
    """An entry's summary on a card: its inline markdown rendered (`code`, **bold**), cut at a sentence or word
    boundary that leaves no code span open."""
    if len(text) > limit:
        cut = text[:limit]
        end = cut.rfind(". ")
        cut = cut[: end + 1] if end > limit // 2 else cut[: cut.rfind(" ")] + " …"
        if cut.count("`") % 2:  # the cut fell inside a code span: end before it
            cut = cut[: cut.rfind("`")].rstrip() + " …"
        text = cut
    return render_inline(text)


def line_anchor(file: str, line: int) -> str:
    return "L-" + re.sub(r"[^A-Za-z0-9_.-]", "_", file) + f"-{line}"


def citation_link(c: Citation, anchors: set[str]) -> tuple[str, str | None]:
    """(label, href) for a chat citation: sections link to the entry page, lines and facts into the page."""
    if c.kind == "section":
        eid, _, sec = c.ref.partition("#")
        label = f"{eid} · {_CITABLE_TITLES.get(sec, sec)}"
        return label, f"/kb/{eid}#{sec}" if eid else None
    if c.kind == "line":
        file, _, line = c.ref.rpartition(":")
        anchor = line_anchor(file, int(line)) if line.isdigit() else ""
        return f"line {c.ref}", f"#{anchor}" if anchor in anchors else None
    if c.kind == "fact":
        return f"fact {humanize(c.ref)}", f"#fact-{c.ref}"
    return c.ref, None


_CODE_ID = re.compile(r"<code>([a-z0-9][a-z0-9-]+)</code>")


def link_entries(html: Markup, ids: Container[str], current: str = "") -> Markup:
    """Inline code naming another entry (`` `cuda-oom` ``) becomes a link to its page."""

    def link(m: re.Match[str]) -> str:
        eid = m.group(1)  # [a-z0-9-] only: safe in a URL and in HTML
        return f'<a href="/kb/{eid}"><code>{eid}</code></a>' if eid in ids and eid != current else m.group(0)

    return Markup(_CODE_ID.sub(link, str(html)))


def masked_kinds() -> dict[str, list[str]]:
    """What masking replaces, for the note on ``/``: credentials, then personal data and identities."""
    secrets = [k.tag.replace("_", " ").lower() for k in KINDS.values() if k.secret]
    other = [k.tag.replace("_", " ").lower() for k in KINDS.values() if not k.secret]
    return {"secrets": secrets, "identities": other}


# ---------------------------------------------------------------- environment


@lru_cache(maxsize=1)
def environment() -> Environment:
    env = Environment(
        loader=FileSystemLoader(str(HERE / "templates")),
        autoescape=select_autoescape(["html"]),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(markdown=render_markdown, percent=percent, humanize=humanize, step=step_markdown,
                       link_entries=link_entries, category=category_title)
    env.globals.update(static_url=static_url, line_anchor=line_anchor, highlight=highlight, card_summary=card_summary, citation_link=citation_link,
                       confidence_label=confidence_label, section_titles=SECTION_TITLES)
    return env


def page(template: str, *, status: int = 200, headers: dict[str, str] | None = None, **context: Any) -> HTMLResponse:
    html = environment().get_template(template).render(**context)
    return HTMLResponse(html, status_code=status, headers=headers)
