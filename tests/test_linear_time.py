"""Every masking and signature-rule pattern runs in time linear in the line, and masking never holds the others.

The guarantee is structural: every pattern is compiled by RE2 (``service/linear_regex.py``), which refuses
anything it cannot run in linear time. The tests below check that no pattern escapes it, then feed each
pattern hostile input (long runs of the characters its repetitions accept, then a character that fails)
and check that eight times the input costs about eight times the work, not 64 (quadratic) or 2^n.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator

import pytest

from service import linear_regex
from service.facts.literals import sre_constants, sre_parse
from service.facts.rules import RULES
from service.masking import mask_text
from service.masking.recognizers import REGISTRY

# ---------------------------------------------------------------- every pattern, with where it comes from


def _masking_patterns() -> Iterator[tuple[str, str, int]]:
    for entry in REGISTRY:
        if entry.trigger:
            yield f"{entry.entity} trigger", entry.trigger, 0
        for p in entry.patterns:
            yield f"{entry.entity} {p.name}", p.regex, p.flags


def _rule_patterns() -> Iterator[tuple[str, str, int]]:
    for rule in RULES:
        for i, p in enumerate(rule.match):
            yield f"rule {rule.id} match[{i}]", p, 0
        for kind in ("not_with", "needs", "unless"):
            for i, p in enumerate(getattr(rule, kind)):
                yield f"rule {rule.id} {kind}[{i}]", p, re.MULTILINE
        for i, b in enumerate(rule.boosts):
            for kind in ("value", "line", "not_with"):
                if getattr(b, kind):
                    yield f"rule {rule.id} boost[{i}].{kind}", getattr(b, kind), re.MULTILINE


PATTERNS = [*_masking_patterns(), *_rule_patterns()]


def test_there_are_patterns_to_check() -> None:
    assert sum(1 for name, _, _ in PATTERNS if not name.startswith("rule")) > 80
    assert sum(1 for name, _, _ in PATTERNS if name.startswith("rule")) > 300


@pytest.mark.parametrize(("name", "pattern", "flags"), PATTERNS, ids=[p[0] for p in PATTERNS])
def test_every_pattern_is_run_by_re2(name: str, pattern: str, flags: int) -> None:
    assert isinstance(linear_regex.compile(pattern, flags), linear_regex.Regex)


def test_the_compiled_recognizers_and_rules_are_re2_objects() -> None:
    from service.masking import get_masker

    masker = get_masker()
    compiled = [rx for recs in masker.recognizers.values() for r in recs for _, rx, _, _ in r._compiled]
    assert len(compiled) == sum(len(e.patterns) for e in REGISTRY)
    assert all(isinstance(rx, linear_regex.Regex) for rx in compiled)
    assert all(isinstance(rx, linear_regex.Regex) for rule in RULES for rx in (*rule.compiled, *rule.excluded))
    assert isinstance(masker._triggers, linear_regex.Regex)


@pytest.mark.parametrize(
    "pattern",
    [
        r"(?<![\w.-])host",  # look-behind
        r"host(?![\w-])",  # look-ahead
        r"([\"'])value\1",  # back-reference
        r"(?P<q>a)(?P=q)",  # named back-reference
        r"a*+",  # possessive
    ],
)
def test_what_needs_a_backtracking_engine_is_refused(pattern: str) -> None:
    with pytest.raises(linear_regex.LinearRegexError):
        linear_regex.compile(pattern)


# ---------------------------------------------------------------- hostile input, growing


def _classes(pattern: str, flags: int) -> list[str]:
    """Characters that each repetition of ``pattern`` accepts, a few of each kind (from its parse tree)."""
    found: list[str] = []

    def chars_of(items: object) -> str:
        out = []
        for op, av in items:  # type: ignore[attr-defined]
            if op is sre_constants.LITERAL:
                out.append(chr(av))
            elif op is sre_constants.IN:
                out.append(chars_of(av))
            elif op is sre_constants.RANGE:
                lo, hi = av
                out.append("".join(chr(c) for c in range(lo, min(hi, lo + 40) + 1)))
            elif op is sre_constants.CATEGORY:
                out.append({"CATEGORY_DIGIT": "0189", "CATEGORY_WORD": "aZ_9", "CATEGORY_SPACE": " \t"}.get(str(av), ""))
            elif op is sre_constants.NOT_LITERAL or op is sre_constants.ANY:
                out.append("a-. /")
        return "".join(out)

    def walk(items: object) -> None:
        for op, av in items:  # type: ignore[attr-defined]
            if op in (sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT):
                _, hi, body = av
                accepted = "".join(dict.fromkeys(c for c in chars_of(body) if c.isprintable()))
                if accepted and hi > 8:
                    found.append(accepted)
                walk(body)
            elif op is sre_constants.SUBPATTERN:
                walk(av[-1])
            elif op is sre_constants.BRANCH:
                for branch in av[1]:
                    walk(branch)

    walk(sre_parse.parse(pattern, flags))
    return found


def _literals(pattern: str) -> list[str]:
    """Literal runs of the pattern (``node``, ``password``, ``://``): prefixes that lead into its repetitions."""
    runs = re.findall(r"(?:[A-Za-z0-9_:/@=-]|\\[.\-/\[\]()])+", pattern)
    return [r.replace("\\", "") for r in runs if len(r) >= 2][:6]


def _hostile(pattern: str, flags: int, size: int) -> list[str]:
    inputs: list[str] = []
    prefixes = ["", *_literals(pattern)]
    for accepted in _classes(pattern, flags)[:4]:
        pumps = {accepted[0], accepted[-1], accepted[: 3], "".join(c + "-" for c in accepted[:2]), accepted[0] + "."}
        for pump in pumps:
            for prefix in prefixes[:4]:
                body = (pump * (size // max(1, len(pump))))[:size]
                inputs.append(prefix + body + "\x00")
                inputs.append((prefix + pump) * (size // max(1, len(prefix + pump))) + "!")
    inputs.append("a" * size + "_")
    inputs.append(("node" + "a" * 30 + "_ ") * (size // 36))  # the line that once took 17 s
    return inputs


def _cost(rx: linear_regex.Regex, texts: list[str]) -> float:
    best = float("inf")
    for _ in range(3):
        started = time.thread_time()
        for t in texts:
            for _m in rx.finditer(t):
                pass
        best = min(best, time.thread_time() - started)
    return best


_SMALL, _LARGE = 1_000, 8_000  # 8x the input


@pytest.mark.slow
def test_work_grows_linearly_on_hostile_lines() -> None:
    """8x the input costs well under the 64x of quadratic matching, for every pattern at once and for the worst."""
    ratios: list[tuple[float, str]] = []
    total_small = total_large = 0.0
    for name, pattern, flags in PATTERNS:
        rx = linear_regex.compile(pattern, flags)
        small = _cost(rx, _hostile(pattern, flags, _SMALL))
        large = _cost(rx, _hostile(pattern, flags, _LARGE))
        total_small += small
        total_large += large
        if large > 1e-3:  # under 1 ms in all, the clock's noise is the measure
            ratios.append((large / max(small, 1e-6), name))
    assert total_large / total_small < 16, f"all patterns together: {total_large / total_small:.1f}x for 8x the input"
    worst = sorted(ratios, reverse=True)[:3]
    assert not worst or worst[0][0] < 24, f"super-linear growth: {worst}"


def test_the_line_that_froze_the_server_masks_at_once() -> None:
    """``node`` + 30 x ``a`` + ``_`` took 17 s (each further character doubled it); 100 000 characters of it now."""
    out, _ = mask_text("node" + "a" * 30 + "_")
    assert out == "node" + "a" * 30 + "_"
    started = time.thread_time()
    mask_text("node" + "a" * 100_000 + "_")
    mask_text(("gpu-" + "a" * 60 + "-") * 300 + "_")
    assert time.thread_time() - started < 5  # seconds; the old engine would need longer than the universe


def test_matching_releases_the_interpreter_lock() -> None:
    """While one thread matches a long hostile line, another keeps running (RE2 drops the GIL in C++)."""
    rx = linear_regex.compile(r"(?:[a-z0-9]+-)*(?:node|gpu)(?:-?[a-z0-9]+)*!")
    line = "a-" * 4_000_000
    progress = [0]
    done = threading.Event()

    def spin() -> None:
        while not done.is_set():
            progress[0] += 1

    spinner = threading.Thread(target=spin)
    spinner.start()
    before = progress[0]
    started = time.perf_counter()
    assert rx.search(line) is None
    elapsed = time.perf_counter() - started
    done.set()
    spinner.join()
    # the spinner ran during the search: with the lock held it would not have advanced at all
    assert progress[0] - before > 1000, f"{progress[0] - before} iterations in {elapsed:.3f} s"


# ---------------------------------------------------------------- the adapter behaves like re where we rely on it


@pytest.mark.parametrize(
    ("pattern", "text"),
    [
        (r"(?P<k>[A-Z_]+)=(?P<v>\S+)", "A=1 B_C=two x=3"),
        (r"\bgpu-\d+\b", "gpu-1 gpu-22,gpu-333"),
        (r"x*", "axxb"),
        (r"(a)|(b)", "ab"),
        (r"é+", "aéé bé"),  # non-ASCII text: character offsets, not bytes
        (r"(?m)^\w+$", "one\ntwo\nthree"),
    ],
)
def test_finditer_agrees_with_re(pattern: str, text: str) -> None:
    ours = [(m.span(), m.groups()) for m in linear_regex.compile(pattern).finditer(text)]
    theirs = [(m.span(), m.groups()) for m in re.finditer(pattern, text)]
    assert ours == theirs


def test_case_insensitive_and_sub() -> None:
    rx = linear_regex.compile(r"(?P<w>nccl) (\w+)", re.IGNORECASE)
    assert rx.sub(r"\2 \g<w>", "NCCL WARN and nccl info") == "WARN NCCL and info nccl"
    assert rx.search("x Nccl Info").group("w") == "Nccl"
    assert linear_regex.compile("ab").fullmatch("abc") is None
