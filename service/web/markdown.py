"""Markdown to safe HTML for the pages: KB sections, fix steps and chat answers.

Raw HTML in the source is escaped, never passed through (``html: False``); link targets are
markdown-it's safe set (no ``javascript:``, ``vbscript:``, ``file:``, no ``data:`` but images), and
outbound links get ``rel="nofollow noopener noreferrer"``. Headings are demoted so that a section's
own ``#`` cannot outrank the page's outline.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token
from markupsafe import Markup


def _demote(shift: int) -> Any:
    def heading(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: Any) -> str:
        token = tokens[idx]
        level = min(6, int(token.tag[1]) + shift)
        token.tag = f"h{level}"
        return str(self.renderToken(tokens, idx, options, env))

    return heading


def _link_open(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: Any) -> str:
    href = str(tokens[idx].attrGet("href") or "")
    if href.startswith(("http://", "https://", "//")):
        tokens[idx].attrSet("rel", "nofollow noopener noreferrer")
    return str(self.renderToken(tokens, idx, options, env))


@lru_cache(maxsize=8)
def _parser(shift: int) -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False}).enable("table")
    md.add_render_rule("heading_open", _demote(shift))
    md.add_render_rule("heading_close", _demote(shift))
    md.add_render_rule("link_open", _link_open)
    return md


def render_markdown(text: str, *, demote: int = 2) -> Markup:
    """Safe HTML for ``text``; ``#`` becomes ``h{1 + demote}`` (an ``h3`` under a page's ``h2`` sections)."""
    return Markup(_parser(demote).render(text or ""))


def render_inline(text: str) -> Markup:
    """Safe HTML for one line of inline markdown (code spans, emphasis, links), no paragraph around it."""
    return Markup(_parser(2).renderInline(text or ""))
