"""API latency: a warm `crashdoc serve` answering a 50 KB log on the deterministic path, side by side with a
baseline checkout when given, and a cold `crashdoc diagnose` on a small log.

    .venv/bin/python benchmarks/bench_api.py [--requests 60] [--kb 50] [--cold-runs 3] [--profile 20]
        [--baseline DIR --label COMMIT]

1. Starts `crashdoc serve` on a free loopback port (its own data dir; the FAISS index cache in
   CRASHDOC_DATA_DIR or ~/.crashdoc is reused through a link), warms it with 5 requests, then sends
   ``--requests`` sequential POST /v1/diagnoses of a ``--kb`` KB log, each a different log (another seed's
   step lines): p50/p95/max of the wall latency seen by the client, the server's CPU per request, and the
   medians of the per-stage `timings_ms` the service reports. With ``--baseline DIR`` (a worktree of an
   earlier commit, e.g. ``git worktree add --detach /tmp/base main``) a second server runs that code and
   gets every log too, in alternation: the ratio holds on a loaded machine where absolute figures do not.
2. Runs `crashdoc diagnose examples/fusedadam-h100.log --format json` in a new process ``--cold-runs``
   times (0: skipped): the wall time a person waits, imports and model loading included.
3. With ``--profile N`` (needs pyinstrument), profiles N in-process diagnoses of the same log and keeps
   the heaviest frames.

Prints a table and writes benchmarks/results/api.md. Figures, never assertions: issue 21 asks a warm
p50 <= 15 ms and p95 <= 30 ms; this reports what the machine does.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "benchmarks" / "results" / "api.md"
EXAMPLE = REPO / "examples" / "fusedadam-h100.log"
STAGES = ("ingest", "mask", "facts", "retrieve", "compose", "store", "total")


# ---------------------------------------------------------------- shared with bench_load.py


def training_log(kb: int, seed: int = 7) -> bytes:
    """About ``kb`` KB: a DeepSpeed run's step lines from two ranks, then the bundled FusedAdam crash."""
    rng = random.Random(seed)
    crash = EXAMPLE.read_bytes()
    lines: list[bytes] = []
    size, step = len(crash), 0
    while size < kb * 1024:
        step += 1
        rank = step % 2
        line = (f"[rank{rank}]:[2024-05-01 12:{step // 60 % 60:02d}:{step % 60:02d},{rng.randrange(1000):03d}] [INFO] "
                f"step {step}/200000 | loss {rng.uniform(1.5, 3.5):.4f} | lr {3e-4 * rng.uniform(0.5, 1):.3e} | "
                f"grad_norm {rng.uniform(0.2, 2):.3f} | tokens/s {rng.randint(90000, 130000)}\n").encode()
        lines.append(line)
        size += len(line)
    return b"".join(lines) + crash


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def index_cache() -> Path:
    home = Path(os.environ.get("CRASHDOC_DATA_DIR") or Path.home() / ".crashdoc")
    (home / "index").mkdir(parents=True, exist_ok=True)
    return home / "index"


@dataclass
class Server:
    url: str
    pid: int
    data_dir: Path
    log_path: Path


@contextmanager
def serve(extra_env: dict[str, str] | None = None, timeout: float = 300, tree: Path = REPO) -> Iterator[Server]:
    """`crashdoc serve` in its own process on a free loopback port, with a throwaway data dir; ``tree``: the
    checkout whose code it runs (another one, a baseline, is put first on PYTHONPATH)."""
    with tempfile.TemporaryDirectory(prefix="crashdoc-bench-") as tmp:
        data = Path(tmp)
        (data / "index").symlink_to(index_cache())
        port = free_port()
        env = {**os.environ, "CRASHDOC_DATA_DIR": str(data), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
               **(extra_env or {})}
        if tree != REPO:
            env["PYTHONPATH"] = str(tree)
        log_path = data / "server.log"
        with open(log_path, "wb") as log:
            proc = subprocess.Popen([sys.executable, "-m", "service.cli", "serve", "--port", str(port)], cwd=tree,
                                    env=env, stdout=log, stderr=subprocess.STDOUT)
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + timeout
            while True:
                if proc.poll() is not None:
                    raise RuntimeError(f"the server exited with {proc.returncode}: {log_path.read_text()[-2000:]}")
                try:
                    if httpx.get(url + "/healthz", timeout=2).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if time.monotonic() > deadline:
                    raise TimeoutError("the server did not become healthy")
                time.sleep(0.3)
            yield Server(url, proc.pid, data, log_path)
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()


def percentile(values: list[float], p: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, round(p / 100 * len(ordered) + 0.5) - 1))]


def machine() -> str:
    model = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                  if line.startswith("model name")), platform.processor() or "?")
    load = os.getloadavg()[0]
    return f"{platform.machine()}, {os.cpu_count()} CPUs ({model}), Python {platform.python_version()}, load average {load:.1f}"


# ---------------------------------------------------------------- the measurements


def cpu_seconds(pid: int) -> float:
    """User + system CPU of a process so far (/proc/PID/stat), threads included."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@dataclass
class Warm:
    """One server's answers: client wall latencies (ms), its stages, the entry, its CPU ms per request."""

    wall: list[float]
    stages: dict[str, list[float]]
    entry: str | None = None
    cpu_ms: float = 0.0


def warm_api(n: int, kb: int, trees: list[Path]) -> list[Warm]:
    """``n`` diagnoses of a ``kb`` KB log on a server per tree, side by side: each log is sent to every server
    in turn (the order rotating), so the machine's load falls on all alike. Each log is a different one (the
    step lines of another seed): no request is answered from what an identical earlier one left in a cache.
    The servers' CPU per request (/proc) is steadier than wall time on a shared machine."""
    with ExitStack() as stack:
        servers = [stack.enter_context(serve(tree=tree)) for tree in trees]
        clients = [stack.enter_context(httpx.Client(base_url=s.url, timeout=120)) for s in servers]
        for i in range(5):
            for c in clients:
                c.post("/v1/diagnoses", content=training_log(kb, seed=1000 + i),
                       headers={"Content-Type": "text/plain"}).raise_for_status()
        bodies = [training_log(kb, seed=i) for i in range(n)]
        out = [Warm([], {s: [] for s in STAGES}) for _ in servers]
        cpu = [0.0] * len(servers)
        for i, body in enumerate(bodies):
            for k in (i + j for j in range(len(servers))):
                k %= len(servers)
                c0 = cpu_seconds(servers[k].pid)
                t0 = time.perf_counter()
                r = clients[k].post("/v1/diagnoses", content=body, headers={"Content-Type": "text/plain"})
                out[k].wall.append((time.perf_counter() - t0) * 1000)
                cpu[k] += cpu_seconds(servers[k].pid) - c0
                r.raise_for_status()
                d = r.json()
                out[k].entry = d["entry_id"]
                for s in STAGES:
                    if s in d["timings_ms"]:
                        out[k].stages[s].append(float(d["timings_ms"][s]))
        for k, w in enumerate(out):
            w.cpu_ms = cpu[k] * 1000 / n
        return out


def cold_cli(runs: int) -> list[float]:
    out = []
    with tempfile.TemporaryDirectory(prefix="crashdoc-cold-") as tmp:
        (Path(tmp) / "index").symlink_to(index_cache())
        env = {**os.environ, "CRASHDOC_DATA_DIR": tmp, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
        for _ in range(runs):
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-m", "service.cli", "diagnose", str(EXAMPLE), "--format", "json"], cwd=REPO,
                           env=env, check=True, capture_output=True, timeout=600)
            out.append(time.perf_counter() - t0)
    return out


def profile(n: int, body: bytes) -> str:
    """The heaviest frames of ``n`` in-process diagnoses (pyinstrument), as text."""
    try:
        from pyinstrument import Profiler
    except ImportError:
        return "(pyinstrument is not installed: `.venv/bin/pip install pyinstrument`)"
    sys.path.insert(0, str(REPO))
    from service.models import Source
    from service.pipeline import Engine, diagnose
    from service.settings import Settings

    with tempfile.TemporaryDirectory(prefix="crashdoc-prof-") as tmp:
        (Path(tmp) / "index").symlink_to(index_cache())
        engine = Engine(Settings(data_dir=Path(tmp)))
        engine.warm()
        source = [Source(name="train.log", data=body)]
        for _ in range(3):
            diagnose(engine, source)
        profiler = Profiler(interval=0.001)
        profiler.start()
        for _ in range(n):
            diagnose(engine, source)
        profiler.stop()
        return str(profiler.output_text(unicode=False, color=False, show_all=False))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--requests", type=int, default=60)
    ap.add_argument("--kb", type=int, default=50)
    ap.add_argument("--cold-runs", type=int, default=3)
    ap.add_argument("--baseline", type=Path, metavar="DIR",
                    help="a checkout of an earlier commit: its server answers the same logs side by side (the ratio)")
    ap.add_argument("--label", default="", help="what --baseline is, for the table (a commit)")
    ap.add_argument("--profile", type=int, default=0, metavar="N", help="profile N in-process diagnoses (pyinstrument)")
    args = ap.parse_args()

    body = training_log(args.kb)
    load_before = os.getloadavg()[0]
    trees = [REPO] + ([args.baseline.resolve()] if args.baseline else [])
    runs = warm_api(args.requests, args.kb, trees)
    load_after = os.getloadavg()[0]
    cold = cold_cli(args.cold_runs) if args.cold_runs else []
    prof = profile(args.profile, body) if args.profile else ""

    names = ["this tree"] + [f"baseline {args.label or args.baseline}"] * bool(args.baseline)
    lines = [
        "# API latency",
        "",
        f"`benchmarks/bench_api.py` on {machine()} (a shared machine: other work runs beside it; load average "
        f"{load_before:.1f} before the warm run, {load_after:.1f} after).",
        "",
        f"## Warm API: POST /v1/diagnoses, a {len(body) / 1024:.0f} KB log, deterministic composer",
        "",
        f"{args.requests} sequential requests after 5 warm-up ones, one keep-alive connection per server, each request "
        f"a different log (another seed's step lines, the same crash); diagnosis: `{runs[0].entry}`"
        + (" (the baseline's: `" + str(runs[1].entry) + "`)" if len(runs) > 1 else "") + ".",
        "With a baseline, each log goes to both servers in turn (the order alternating), so the load falls on both alike.",
        "Server CPU: the server process's user + system time over the measured requests (/proc), divided by their "
        "number: steadier than wall time on a shared machine.",
        "",
        "| server | p50 | p95 | max | server CPU / request | issue 21 asks |",
        "|---|---|---|---|---|---|",
    ]
    for name, w in zip(names, runs, strict=True):
        lines.append(f"| {name} | {statistics.median(w.wall):.1f} ms | {percentile(w.wall, 95):.1f} ms | {max(w.wall):.1f} ms "
                     f"| {w.cpu_ms:.1f} ms | p50 <= 15 ms, p95 <= 30 ms |")
    if len(runs) > 1:
        a, b = runs
        lines.append(f"| ratio (this / baseline) | {statistics.median(a.wall) / statistics.median(b.wall):.2f} "
                     f"| {percentile(a.wall, 95) / percentile(b.wall, 95):.2f} | - | {a.cpu_ms / b.cpu_ms:.2f} | |")
    lines += [
        "",
        "Per stage, as the service reports it (`timings_ms`, medians):",
        "",
        "| server | " + " | ".join(STAGES) + " |",
        "|---|" + "---|" * len(STAGES),
    ]
    for name, w in zip(names, runs, strict=True):
        lines.append(f"| {name} | " + " | ".join(f"{statistics.median(w.stages[s]):.1f} ms" if w.stages[s] else "-"
                                                 for s in STAGES) + " |")
    lines.append("")
    if cold:
        lines += [
            "## Cold CLI: `crashdoc diagnose examples/fusedadam-h100.log --format json`",
            "",
            f"A new process each time (imports, masker, embedding model, index from its cache): "
            f"median {statistics.median(cold):.1f} s over {len(cold)} runs (min {min(cold):.1f} s, max {max(cold):.1f} s). "
            "`benchmarks/bench_cold.py` compares it with the Denpex CLI (benchmarks/results/cold.md).",
            "",
        ]
    if prof:
        lines += [f"## Profile: {args.profile} in-process diagnoses (pyinstrument)", "", "```", prof.strip(), "```", ""]
    text = "\n".join(lines)
    print(text)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(text)


if __name__ == "__main__":
    main()
