"""Cold start side by side: `crashdoc diagnose LOG` against the Denpex CLI's `denpex diagnose-local LOG`.

    .venv/bin/python benchmarks/bench_cold.py [--runs 5] [--log examples/fusedadam-h100.log]
        [--denpex-venv /work/scratch/denpex-venv] [--kb DIR] [--synthetic-kb N] [--out benchmarks/results/cold.md]

1. Creates a separate venv with `pip install denpex==1.1.28` (once; ``--denpex-venv``). Denpex runs offline
   with ``diagnose-local``.
2. Runs each tool once untimed (crashdoc's first run with a KB builds its index and compiled KB; it says so
   on stderr), then alternates them ``--runs`` times each on the same log, each a new process: wall time
   and the child's peak RSS (``wait4``'s ru_maxrss), and CPU time (user + sys) as a steadier figure on a
   shared machine. crashdoc runs as a person runs it: text output, the diagnosis stored in a throwaway
   data dir whose index cache is the usual one (linked).
3. ``python -X importtime`` of one cold run of each: self time summed per top-level package.

``--kb DIR`` diagnoses with another kb/ (CRASHDOC_KB_DIR). ``--synthetic-kb N`` builds a temporary kb/ of at
least N entries by copying the real entries under new ids (``<id>-copy-<n>``): SYNTHETIC, labelled so in the
results; it measures the cost of the number of entries, not a real encyclopedia.

Writes the tables to ``--out`` (appending a section per KB when the file exists and ``--append``). Figures,
never assertions: issue 21 asks crashdoc's median wall <= 0.5x Denpex's, peak RSS no higher.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from benchmarks.bench_api import index_cache, machine  # noqa: E402

DENPEX = "denpex==1.1.28"
DEFAULT_VENV = Path("/work/scratch/denpex-venv")


@dataclass
class Runs:
    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    rss_mb: list[float] = field(default_factory=list)
    answer: str = ""


def denpex_venv(path: Path) -> Path:
    """The venv's denpex command, installing it first when absent."""
    exe = path / "bin" / "denpex"
    if not exe.exists():
        print(f"creating {path} with {DENPEX} (once)", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "venv", str(path)], check=True)
        subprocess.run([str(path / "bin" / "python"), "-m", "pip", "install", "-q", DENPEX], check=True)
    return exe


def measure(cmd: list[str], env: dict[str, str]) -> tuple[float, float, float, str]:
    """(wall s, CPU s, peak RSS MB, stdout) of one new process, its peak RSS from wait4."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=out, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        raise_on_failure(cmd, proc.returncode, err.read())
        return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, out.read().decode(errors="replace")


def raise_on_failure(cmd: list[str], code: int | None, err: bytes) -> None:
    if code != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {code}: {err.decode(errors='replace')[-2000:]}")


def first_line(text: str, pattern: str) -> str:
    return next((line.strip() for line in text.splitlines() if re.search(pattern, line)), text.strip()[:100])


_IMPORT = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)")


def import_totals(stderr: str) -> Counter[str]:
    """Self time (ms) of every module imported, summed per top-level package."""
    totals: Counter[str] = Counter()
    for line in stderr.splitlines():
        m = _IMPORT.match(line)
        if m:
            totals[m.group(4).split(".")[0]] += int(m.group(1)) / 1000
    return totals


def synthetic_kb(source: Path, target: Path, at_least: int) -> int:
    """A kb/ of at least ``at_least`` entries: the real ones, then copies under new ids."""
    from retrieval.kb import entry_paths

    target.mkdir(parents=True)
    paths = entry_paths(source)
    for p in paths:
        shutil.copy(p, target / p.name)
    n, copy = len(paths), 0
    while n < at_least:
        copy += 1
        for p in paths:
            if n >= at_least:
                break
            new_id = f"{p.stem}-copy-{copy}"
            text = p.read_text(encoding="utf-8")
            (target / f"{new_id}.md").write_text(re.sub(r"^id: .*$", f"id: {new_id}", text, count=1, flags=re.M), encoding="utf-8")
            n += 1
    return n


def run(args: argparse.Namespace) -> str:
    from retrieval.kb import entry_paths

    denpex = denpex_venv(args.denpex_venv)
    log = Path(args.log).resolve()
    with tempfile.TemporaryDirectory(prefix="crashdoc-cold-") as tmp:
        data = Path(tmp) / "data"
        data.mkdir()
        (data / "index").symlink_to(index_cache())
        env = {**os.environ, "CRASHDOC_DATA_DIR": str(data), "NO_COLOR": "1"}
        kb_label = "kb/ of this checkout"
        kb_dir = REPO / "kb"
        if args.kb:
            kb_dir = Path(args.kb).resolve()
            kb_label = f"kb/ at {args.kb}"
        if args.synthetic_kb:
            kb_dir = Path(tmp) / "kb"
            made = synthetic_kb(REPO / "kb", kb_dir, args.synthetic_kb)
            kb_label = (f"SYNTHETIC kb/ of {made} entries: the {len(entry_paths(REPO / 'kb'))} real entries and copies of "
                        "them under new ids")
        env["CRASHDOC_KB_DIR"] = str(kb_dir)
        entries = len(entry_paths(kb_dir))
        crashdoc = [str(REPO / ".venv" / "bin" / "crashdoc"), "diagnose", str(log)]
        other = [str(denpex), "diagnose-local", str(log)]

        first = measure(crashdoc, env)  # a new KB: the index and compiled KB are built here, untimed
        measure(other, env)
        print(f"untimed first runs done (crashdoc {first[0]:.1f} s)", file=sys.stderr)
        results = {"crashdoc": Runs(), "denpex": Runs()}
        for i in range(args.runs):
            for name, cmd in (("crashdoc", crashdoc), ("denpex", other)) if i % 2 == 0 else (("denpex", other), ("crashdoc", crashdoc)):
                wall, cpu, rss, out = measure(cmd, env)
                r = results[name]
                r.wall.append(wall)
                r.cpu.append(cpu)
                r.rss_mb.append(rss)
                r.answer = first_line(out, r"Root cause|Unknown|^FAILURE") if name == "crashdoc" else first_line(out, r"^FAILURE")
                print(f"{name:8s} {wall:6.2f} s wall {cpu:6.2f} s CPU {rss:6.0f} MB", file=sys.stderr)

        imports = {
            "crashdoc": import_totals(subprocess.run([str(REPO / ".venv" / "bin" / "python"), "-X", "importtime", "-m",
                                                     "service.cli", *crashdoc[1:]], cwd=REPO, env=env,
                                                    capture_output=True, text=True, check=True).stderr),
            "denpex": import_totals(subprocess.run([str(args.denpex_venv / "bin" / "python"), "-X", "importtime", "-c",
                                                   "import sys; from denpex import main; sys.argv = ['denpex', *sys.argv[1:]]; "
                                                   "sys.exit(main())", *other[1:]], cwd=REPO, env=env,
                                                  capture_output=True, text=True, check=True).stderr),
        }
    return report(args, results, imports, kb_label, entries, log)


def report(args: argparse.Namespace, results: dict[str, Runs], imports: dict[str, Counter[str]], kb_label: str,
           entries: int, log: Path) -> str:
    c, d = results["crashdoc"], results["denpex"]
    med = {name: (statistics.median(r.wall), statistics.median(r.cpu), max(r.rss_mb)) for name, r in results.items()}
    ratio_wall = med["crashdoc"][0] / med["denpex"][0]
    ratio_cpu = med["crashdoc"][1] / med["denpex"][1]
    ratio_rss = med["crashdoc"][2] / med["denpex"][2]
    rel = log.relative_to(REPO) if log.is_relative_to(REPO) else log
    lines = [
        f"## {kb_label} ({entries} entries)", "",
        f"{machine()}. `{rel}` ({log.stat().st_size / 1024:.1f} KB), {args.runs} + {args.runs} runs alternated "
        "(the order swapped every other round), each a new process, after one untimed run of each.", "",
        "| | median wall s | min-max wall s | median CPU s | peak RSS MB (max) | answer |",
        "|---|---|---|---|---|---|",
        f"| `crashdoc diagnose` | {med['crashdoc'][0]:.2f} | {min(c.wall):.2f}-{max(c.wall):.2f} | {med['crashdoc'][1]:.2f} | "
        f"{med['crashdoc'][2]:.0f} | {c.answer} |",
        f"| `denpex diagnose-local` ({DENPEX}) | {med['denpex'][0]:.2f} | {min(d.wall):.2f}-{max(d.wall):.2f} | "
        f"{med['denpex'][1]:.2f} | {med['denpex'][2]:.0f} | {d.answer} |",
        f"| crashdoc / denpex | **{ratio_wall:.2f}x** | | {ratio_cpu:.2f}x | **{ratio_rss:.2f}x** | goal: wall <= 0.5x, RSS <= 1x |",
        "",
        "`python -X importtime`, self time summed per top-level package (ms, one cold run each; the ten largest):", "",
        "| crashdoc | ms | denpex | ms |", "|---|---|---|---|",
    ]
    top_c, top_d = imports["crashdoc"].most_common(10), imports["denpex"].most_common(10)
    for i in range(10):
        a = top_c[i] if i < len(top_c) else ("", 0.0)
        b = top_d[i] if i < len(top_d) else ("", 0.0)
        lines.append(f"| {a[0]} | {a[1]:.0f} | {b[0]} | {b[1]:.0f} |")
    lines.append(f"| **all imports** | **{sum(imports['crashdoc'].values()):.0f}** | **all imports** | "
                 f"**{sum(imports['denpex'].values()):.0f}** |")
    lines.append("")
    return "\n".join(lines)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--log", default=str(REPO / "examples" / "fusedadam-h100.log"))
    p.add_argument("--denpex-venv", type=Path, default=DEFAULT_VENV)
    p.add_argument("--kb", help="another kb/ folder")
    p.add_argument("--synthetic-kb", type=int, default=0, metavar="N", help="a temporary kb/ of N entries (copies)")
    p.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results" / "cold.md")
    p.add_argument("--append", action="store_true", help="add this section to --out instead of replacing it")
    args = p.parse_args()
    section = run(args)
    print(section)
    head = ("# Cold start: crashdoc against the Denpex CLI\n\n`benchmarks/bench_cold.py`: the same small log, "
            "crashdoc's `diagnose` and Denpex's offline `diagnose-local`, alternated in one run. The machine is shared "
            "(see the load average): wall times stretch with it, for both tools alike since they alternate; CPU time "
            "(user + sys of the process) is the steadier figure. Peak RSS is the process's own (wait4).\n\n")
    if args.append and args.out.exists():
        args.out.write_text(args.out.read_text().rstrip("\n") + "\n\n" + section + "\n")
    else:
        args.out.write_text(head + section + "\n")


if __name__ == "__main__":
    main()
