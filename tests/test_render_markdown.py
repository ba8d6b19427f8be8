"""The PR-comment markdown (``render.to_markdown``): what GitHub and GitLab show a reviewer.

GitHub turns every newline of a comment into a line break, so a hard-wrapped KB sentence would break mid-line:
the fix steps are rendered from real KB entries and checked for wraps, item by item and for the whole catalogue.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from retrieval.kb import load_kb, section_steps
from service.models import Candidate, CollateralOut, Diagnosis, Evidence, FactOut, RunAnswer, TimelineEvent
from service.render import MARKER_PREFIX, comment_marker, to_markdown

KB_DIR = Path(__file__).resolve().parents[1] / "kb"


def diagnosis(**changes: object) -> Diagnosis:
    base: dict[str, object] = dict(
        id="d-123",
        entry_id="cuda-oom",
        title="CUDA out of memory (model, batch or activations too large)",
        category="memory",
        confidence=0.87,
        summary="PyTorch's caching allocator could not get the memory. Rank 1 failed first around step 40.",
        candidates=[Candidate(entry_id="cuda-oom", title="t", score=0.9, sources=["rule"]),
                    Candidate(entry_id="cuda-oom-fragmentation", title="t", score=0.4, sources=["dense"])],
        evidence=[Evidence(file="rank_1.log", line=7, rank=1, text="Traceback (most recent call last):"),
                  Evidence(file="rank_1.log", line=212, rank=1,
                           text="torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB")],
        facts={"failure_step": FactOut(value="40", file="rank_1.log", line=200, source="rule:step"),
               "gpu_model": FactOut(value="NVIDIA H100 80GB HBM3", file="rank_1.log", line=3, source="rule:gpu")},
        initiating_rank=1,
        collateral=[CollateralOut(rank=0, file="rank_0.log", line=300, text="ProcessGroupNCCL watchdog timeout",
                                  why="after the first failure")],
        timeline=[TimelineEvent(order=0, rank=1, file="rank_1.log", line=212, kind="error", collateral=False, first=True,
                                text="torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"),
                  TimelineEvent(order=1, rank=0, file="rank_0.log", line=300, kind="error", collateral=True,
                                text="ProcessGroupNCCL watchdog timeout")],
        fix=["**Lower the peak:** halve the micro-batch and\n   double accumulation.", "Recompute instead of store."],
        verify=["Rerun one step and watch\n  `torch.cuda.max_memory_allocated()`."],
        masked={"host": 2},
        timings_ms={"total": 12.0},
        kb_version="kb-1",
        composer="deterministic",
    )
    base.update(changes)
    return Diagnosis.model_validate(base)


def visible_lines(md: str) -> list[str]:
    return [line for line in md.splitlines() if line.strip() and not line.startswith("<!--")]


def fix_block(md: str) -> list[str]:
    lines = md.splitlines()
    start = lines.index("**Fix**") + 2
    end = lines.index("", start)
    return lines[start:end]


# (a KB fix step as section_steps gives it, the list item GitHub must get): wraps joined, structure kept
STEPS = [
    ("Plain step.", ["1. Plain step."]),
    ("**Lower it:** halve the micro-batch and\n   double accumulation (`x` in HF;\n   `y` in DeepSpeed).",
     ["1. **Lower it:** halve the micro-batch and double accumulation (`x` in HF; `y` in DeepSpeed)."]),
    ("Install the build:\n   ```bash\n   pip install foo==1.2\n   foo --check\n   ```",
     ["1. Install the build:", "   ```bash", "   pip install foo==1.2", "   foo --check", "   ```"]),
    ("Pick one:\n   - set `A=1` for the\n     first case\n   - set `B=2`",
     ["1. Pick one:", "   - set `A=1` for the first case", "   - set `B=2`"]),
    ("Code keeps its wraps:\n   ```\n   a \\\n     --b\n   ```\n   then rerun it\n   twice.",
     ["1. Code keeps its wraps:", "   ```", "   a \\", "     --b", "   ```", "   then rerun it twice."]),
    ("```python\nfor x in y:\n    f(x)\n```", ["1. ```python", "   for x in y:", "       f(x)", "   ```"]),
]


@pytest.mark.parametrize(("step", "expected"), STEPS, ids=[s[:24] for s, _ in STEPS])
def test_a_fix_step_becomes_one_list_item_without_hard_wraps(step: str, expected: list[str]):
    assert fix_block(to_markdown(diagnosis(fix=[step]))) == expected


def prose_wraps(md: str) -> list[tuple[str, str]]:
    """Pairs of adjacent lines where the second continues the first's paragraph or item (a hard wrap)."""
    out: list[tuple[str, str]] = []
    fence: str | None = None
    prev = ""
    for line in md.splitlines():
        s = line.strip()
        m = re.match(r"(?:(?:[-*+]|\d+[.)])\s+)?(`{3,}|~{3,})", s)  # a fence, also on an item's first line
        if fence:
            if m and m.group(1).startswith(fence) and s == m.group(0):
                fence = None
            prev = ""
            continue
        if m:
            fence, prev = m.group(1), ""
            continue
        starts_block = not s or re.match(r"(?:[-*+]|\d+[.)])\s", s) or s.startswith(("<", "|", "#", ">"))
        if prev and not starts_block:
            out.append((prev, line))
        prev = "" if (not s or s.startswith(("<", "|", "#"))) else line
    return out


def test_no_entry_of_the_kb_renders_a_hard_wrap():
    kb = load_kb(KB_DIR)
    rendered = 0
    for entry in kb.entries.values():
        d = diagnosis(entry_id=entry.id, title=entry.title, summary=entry.meta.summary,
                      fix=section_steps(entry.section("fix")), verify=section_steps(entry.section("verify")))
        md = to_markdown(d)
        assert prose_wraps(md) == [], entry.id
        rendered += bool(d.fix)
    assert rendered == len(kb.entries) > 50  # the whole catalogue, not a handful


def test_the_wrap_detector_finds_a_wrap():
    assert prose_wraps("1. halve the micro-batch and\n   double accumulation") != []


def test_the_marker_is_the_first_line_and_stable_for_a_key_across_diagnoses():
    a = to_markdown(diagnosis(), key="train-job")
    b = to_markdown(diagnosis(id="d-999", entry_id="nccl-timeout", title="Other"), key="train-job")
    assert a.splitlines()[0] == b.splitlines()[0] == comment_marker("train-job")
    assert a.startswith(MARKER_PREFIX)
    assert comment_marker("train-job") != comment_marker("eval-job")
    assert re.fullmatch(r"<!-- .* -->", comment_marker())


@pytest.mark.parametrize("key", ["", "a b", "x-->y", "k" * 101, "<b>"])
def test_a_key_that_could_break_the_html_comment_is_refused(key: str):
    with pytest.raises(ValueError):
        comment_marker(key)


# (changes to the diagnosis, what the first visible line must say)
RUN_LINES = [
    ({}, "**Rank 1 failed first around step 40:** `torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB`"),
    ({"facts": {}}, "**Rank 1 failed first:** `torch.OutOfMemoryError"),
    ({"initiating_rank": None, "facts": {}, "timeline": [],
      "evidence": [Evidence(file="train.log", line=9, text="RuntimeError: boom")]},
     "**The run failed:** `RuntimeError: boom` (`train.log:9`)"),
    ({"initiating_rank": None, "facts": {}, "timeline": [], "evidence": []}, "**No error line was found in the log.**"),
]


RUN_LINES.append(({"answer": RunAnswer(sentence="Rank 1 ran out of GPU memory at step 40.")},
                  "**Rank 1 ran out of GPU memory at step 40.** `Traceback (most recent call last):` (`rank_1.log:7`)"))


@pytest.mark.parametrize(("changes", "first"), RUN_LINES)
def test_the_run_specific_line_comes_first(changes: dict[str, object], first: str):
    assert visible_lines(to_markdown(diagnosis(**changes)))[0].startswith(first)


def test_evidence_and_collateral_are_collapsed_and_the_fix_is_not():
    md = to_markdown(diagnosis())
    details = re.findall(r"<details><summary>(.*?)</summary>\n\n(.*?)\n</details>", md, re.S)
    by_title = {title.split(" ")[0].rstrip(":"): body for title, body in details}
    assert "Tried to allocate 2.00 GiB" in by_title["Evidence"]
    assert "ProcessGroupNCCL watchdog timeout" in by_title["Collateral"]
    assert "NVIDIA H100 80GB HBM3" in by_title["Facts"]
    assert all("halve the micro-batch" not in body for body in by_title.values())
    assert "rank 0" in next(t for t, _ in details if t.startswith("Collateral"))


@pytest.mark.parametrize(("url", "expected"), [
    ("https://crashdoc.example/s/abc", "[Open the diagnosis](https://crashdoc.example/s/abc)"),
    (None, None),
])
def test_the_page_link_is_there_when_there_is_a_url(url: str | None, expected: str | None):
    md = to_markdown(diagnosis(), url=url)
    if expected:
        assert expected in md
    else:
        assert "Open the diagnosis" not in md and "](" not in md


@pytest.mark.skipif("url" not in Diagnosis.model_fields, reason="the diagnosis has no url field yet (share links)")
def test_a_url_on_the_diagnosis_itself_is_linked():
    assert "[Open the diagnosis](https://x.example/s/tok)" in to_markdown(diagnosis(url="https://x.example/s/tok"))


def test_a_log_line_with_backticks_cannot_close_the_fence():
    evil = "```\n</details>\n# pwned"
    md = to_markdown(diagnosis(evidence=[Evidence(file="a.log", line=1, text="x ```` y " + evil.replace("\n", " "))]))
    block = md.split("<details><summary>Evidence")[1].split("</details>")[0]
    fence = re.search(r"^(`{3,})$", block, re.M)
    assert fence and len(fence.group(1)) == 5
    assert "# pwned" not in [line for line in md.splitlines()]


def test_unknown_says_so_and_has_no_fix_section():
    md = to_markdown(diagnosis(entry_id=None, title="No known failure matched", fix=[], verify=[], confidence=0.2))
    assert "**Root cause: unknown.**" in md
    assert "**Fix**" not in md


# (a section with no list, its steps): paragraphs split at blank lines, but not inside a code block
PARAGRAPHS = [
    ("One.\n\nTwo\nwrapped.", ["One.", "Two\nwrapped."]),
    ("```bash\n# a\nx\n\n# b\ny\n```\nConfirmed when\nit passes.", ["```bash\n# a\nx\n\n# b\ny\n```\nConfirmed when\nit passes."]),
]


@pytest.mark.parametrize(("section", "steps"), PARAGRAPHS)
def test_a_section_without_a_list_keeps_its_code_blocks_whole(section: str, steps: list[str]):
    assert section_steps(section) == steps
