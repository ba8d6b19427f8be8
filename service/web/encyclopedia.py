"""How the encyclopedia pages slice ``kb/``: where in a run each failure strikes, which library hubs it is on,
and the server-side search. Both come from each entry's front matter (``phase``, ``libraries``), whose
vocabularies are ``PHASES`` and ``LIBRARIES`` in ``retrieval/kb.py``.
"""

from __future__ import annotations

import re
import textwrap

from retrieval.index import Index, lexical_search
from retrieval.kb import LIBRARIES, PHASES, Entry, KnowledgeBase, Library, Phase, Software, section_steps


def phase_of(entry: Entry) -> Phase:
    return next(p for p in PHASES if p.key == entry.meta.phase)


def library(key: str) -> Library | None:
    return next((lib for lib in LIBRARIES if lib.key == key), None)


def _pattern(lib: Library) -> re.Pattern[str]:
    """One of the library's names as a whole word: ``torch`` in "torch" but not in "torchvision"."""
    return re.compile(r"(?<![\w-])(" + "|".join(re.escape(n) for n in lib.names) + r")(?![\w-])", re.I)


def software_for(entry: Entry, lib: Library) -> list[Software]:
    """The entry's affected-software rows that name the library (its versions, fix, note)."""
    words = _pattern(lib)
    return [s for s in entry.meta.affected.software if words.search(s.name)]


_BLOCK_START = re.compile(r"^\s*(```|[-*+] |\d+[.)] )")


_FENCE = re.compile(r"^\s*```")
_FIX_BLOCK_LINES = 8


def first_fix(entry: Entry) -> str:
    """The opening sentence(s) of the entry's first fix step, for a card: up to its first list or code block, and
    that block too (a few lines of it) when the sentence leads into it ("install a build matching the driver:")."""
    steps = section_steps(entry.section("fix"))
    if not steps:
        return ""
    first, *rest = steps[0].splitlines()
    lines = [first]
    block: list[str] = []
    for i, line in enumerate(rest):
        if not line.strip() or _BLOCK_START.match(line):
            if lines[-1].rstrip().endswith(":"):
                block = _lead_in_block(rest[i:] if line.strip() else rest[i + 1:])
            break
        lines.append(line.strip())
    text = " ".join(lines)
    return text + ("\n\n" + "\n".join(block) if block else "")


def _lead_in_block(lines: list[str]) -> list[str]:
    """The code block or list that follows a sentence ending in a colon, dedented, at most a few lines."""
    out: list[str] = []
    fenced = bool(lines) and bool(_FENCE.match(lines[0]))
    for line in lines:
        if not fenced and not line.strip():
            break
        out.append(line)
        if fenced and len(out) > 1 and _FENCE.match(line):
            break
    out = textwrap.dedent("\n".join(out)).splitlines()
    if len(out) > _FIX_BLOCK_LINES:  # the card shows the start; the entry has the rest
        out = [*out[: _FIX_BLOCK_LINES - 2], "…", "```"] if fenced else out[:_FIX_BLOCK_LINES]
    return out


def entries_for_library(kb: KnowledgeBase, lib: Library) -> list[Entry]:
    return [e for e in sorted(kb.entries.values(), key=lambda e: e.title.lower()) if lib.key in e.meta.libraries]


def libraries_of(entry: Entry) -> list[Library]:
    return [lib for lib in LIBRARIES if lib.key in entry.meta.libraries]


def by_phase(entries: list[Entry]) -> list[tuple[Phase, list[Entry]]]:
    """Entries grouped in run order."""
    groups: dict[str, list[Entry]] = {p.key: [] for p in PHASES}
    for e in entries:
        groups[e.meta.phase].append(e)
    return [(p, groups[p.key]) for p in PHASES if groups[p.key]]


def telltale(entry: Entry) -> str:
    """The message that identifies the entry on a card: the first one that reads whole (not a cut-off fragment)."""
    messages = entry.meta.signals.messages
    return next((m for m in messages if len(m) >= 16 and not m.rstrip().endswith(("(", "[", "{"))), messages[0])


# How the catalogue's category names read in a title.
CATEGORY_TITLES = {"cuda": "CUDA", "deepspeed": "DeepSpeed", "infra": "Infrastructure"}


def category_title(name: str) -> str:
    return CATEGORY_TITLES.get(name, name.capitalize())


def categories(kb: KnowledgeBase) -> dict[str, list[Entry]]:
    out: dict[str, list[Entry]] = {}
    for e in sorted(kb.entries.values(), key=lambda e: (e.meta.category, e.title.lower())):
        out.setdefault(e.meta.category, []).append(e)
    return out


_RELATIVE_FLOOR = 0.35  # of the best BM25 score


def search(kb: KnowledgeBase, index: Index, query: str, limit: int = 20) -> list[Entry]:
    """An exact id first, then BM25 over the text retrieval indexes, then substring matches (id, title, summary, tags, messages)."""
    query = query.strip()[:200]
    if not query:
        return []
    needle = query.lower()
    found = [needle] if needle in kb.entries else []
    lexical = lexical_search(index, query, limit)
    top = lexical[0][1] if lexical else 0.0
    # A word shared with many entries ("error", "cuda") gives a long tail of weak matches: keep the strong ones.
    found += [eid for eid, score in lexical if score >= _RELATIVE_FLOOR * top and eid not in found]
    for e in sorted(kb.entries.values(), key=lambda e: e.id):
        hay = " ".join([e.id, e.title, e.meta.summary, *e.meta.tags, *e.meta.signals.messages]).lower()
        if needle in hay and e.id not in found:
            found.append(e.id)
    return [kb.entries[i] for i in found[:limit] if i in kb.entries]
