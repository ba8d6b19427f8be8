"""Load: 32 concurrent clients drive a running `crashdoc serve` from this (another) process on loopback.

    .venv/bin/python benchmarks/bench_load.py [--clients 32] [--requests 320] [--max-seconds 240] [--kb 50]

Starts `crashdoc serve` (one worker, its own data dir, the index cache reused; see bench_api.py), warms it,
then ``--clients`` threads, each with its own keep-alive httpx client, POST a ``--kb`` KB log to
/v1/diagnoses until ``--requests`` were sent or ``--max-seconds`` passed (bounded count and time). The
server's RSS is read from /proc/<pid>/status (VmRSS) four times a second, and VmHWM at the end.

Reports errors (anything but 201, and transport errors), throughput in diagnoses per second, client
latency p50/p95/p99/max, and RSS idle/peak/end; writes benchmarks/results/load.md. Figures, never
assertions.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_api import REPO, machine, percentile, serve, training_log

RESULTS = REPO / "benchmarks" / "results" / "load.md"


def rss_mb(pid: int, field_name: str = "VmRSS") -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field_name + ":"):
            return int(line.split()[1]) / 1024
    return 0.0


@dataclass
class Sampler:
    """The server's RSS, sampled in a thread while the load runs."""

    pid: int
    samples: list[float] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            self.samples.append(rss_mb(self.pid))
            self._stop.wait(0.25)

    def __enter__(self) -> Sampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


@dataclass
class Outcome:
    latencies_ms: list[float] = field(default_factory=list)
    statuses: Counter[str] = field(default_factory=Counter)
    lock: threading.Lock = field(default_factory=threading.Lock)


def drive(url: str, body: bytes, clients: int, total: int, max_seconds: float) -> tuple[Outcome, float]:
    out = Outcome()
    sent = iter(range(total))
    take = threading.Lock()
    deadline = time.monotonic() + max_seconds

    def client() -> None:
        with httpx.Client(base_url=url, timeout=max(60.0, max_seconds)) as c:
            while time.monotonic() < deadline:
                with take:
                    if next(sent, None) is None:
                        return
                t0 = time.perf_counter()
                try:
                    r = c.post("/v1/diagnoses", content=body, headers={"Content-Type": "text/plain"})
                    status = str(r.status_code)
                except httpx.HTTPError as exc:
                    status = exc.__class__.__name__
                elapsed = (time.perf_counter() - t0) * 1000
                with out.lock:
                    out.statuses[status] += 1
                    if status == "201":
                        out.latencies_ms.append(elapsed)

    threads = [threading.Thread(target=client) for _ in range(clients)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return out, time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--clients", type=int, default=32)
    ap.add_argument("--requests", type=int, default=320)
    ap.add_argument("--max-seconds", type=float, default=240)
    ap.add_argument("--kb", type=int, default=50)
    args = ap.parse_args()

    body = training_log(args.kb)
    with serve({"CRASHDOC_LOG_LEVEL": "WARNING"}) as server:
        with httpx.Client(base_url=server.url, timeout=120) as c:
            for _ in range(5):
                c.post("/v1/diagnoses", content=body, headers={"Content-Type": "text/plain"}).raise_for_status()
        idle = rss_mb(server.pid)
        with Sampler(server.pid) as sampler:
            out, wall = drive(server.url, body, args.clients, args.requests, args.max_seconds)
        end, hwm = rss_mb(server.pid), rss_mb(server.pid, "VmHWM")
        healthy = httpx.get(server.url + "/healthz", timeout=30).status_code == 200

    ok = out.statuses.get("201", 0)
    half = len(sampler.samples) // 2
    first, second = sampler.samples[:half], sampler.samples[half:]
    errors = {k: v for k, v in out.statuses.items() if k != "201"}
    lat = out.latencies_ms or [0.0]
    lines = [
        "# Load",
        "",
        f"`benchmarks/bench_load.py` on {machine()} (a shared machine: other work runs beside it).",
        "",
        f"`crashdoc serve` (one worker process, deterministic composer, SQLite) driven from another process on "
        f"loopback by {args.clients} concurrent clients (threads, one keep-alive connection each), each POSTing a "
        f"{len(body) / 1024:.0f} KB log to /v1/diagnoses; bounded at {args.requests} requests or {args.max_seconds:.0f} s.",
        "",
        "| requests | 201 | errors | wall | throughput | p50 | p95 | p99 | max |",
        "|---|---|---|---|---|---|---|---|---|",
        f"| {sum(out.statuses.values())} | {ok} | {sum(errors.values())}{' ' + str(errors) if errors else ''} | {wall:.1f} s | "
        f"{ok / wall:.2f} diagnoses/s | {statistics.median(lat) / 1000:.2f} s | {percentile(lat, 95) / 1000:.2f} s | "
        f"{percentile(lat, 99) / 1000:.2f} s | {max(lat) / 1000:.2f} s |",
        "",
        "Server memory (`/proc/<pid>/status`):",
        "",
        "| idle after warm-up | peak, first half of the run | peak, second half | at the end | VmHWM |",
        "|---|---|---|---|---|",
        f"| {idle:.0f} MB | {max(first or [0]):.0f} MB | {max(second or [0]):.0f} MB | {end:.0f} MB | {hwm:.0f} MB |",
        "",
        "RSS is sampled four times a second; when the second half's peak is within a few MB of the first's, memory "
        "levels off under a steady load instead of growing with the number of requests.",
        "",
        f"Healthy after the run: {'yes' if healthy else 'NO'}. Latency is what a client waits with "
        f"{args.clients} requests in flight: the work is CPU-bound and queues behind the others, so throughput, "
        "not latency, is the figure to compare across machines.",
        "",
    ]
    text = "\n".join(lines)
    print(text)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(text)


if __name__ == "__main__":
    main()
