"""A hanging model stalls nothing: `/healthz` and a new diagnosis, idle and with 42 diagnoses in flight
while the model hangs.

    .venv/bin/python benchmarks/bench_llm_stall.py [--in-flight 42] [--probes 20] [--hang 90]

Starts a local OpenAI-protocol server whose every completion hangs ``--hang`` seconds, and `crashdoc
serve` in its own process pointed at it (its default LLM pool, CRASHDOC_LLM_CONCURRENCY=4). Measures,
seen by the client:
1. idle: ``--probes`` GET /healthz and ``--probes`` POST /v1/diagnoses of the bundled example, one at a time;
2. stalled: ``--in-flight`` diagnoses posted at once (the first ones take every LLM slot and wait on the
   model), then the same probes while they are in flight.
A diagnosis made while the pool is full is answered deterministically, marked "LLM is busy". Prints a
table and writes benchmarks/results/llm_stall.md. Figures, never assertions (issue 25 asks /healthz under
100 ms and a new diagnosis under 1 s with 42 waiting; tests/test_llm_pool.py checks the behaviour).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench_api import EXAMPLE, machine, percentile, serve  # noqa: E402

from tests.fake_llm import FakeLLMServer, Script  # noqa: E402

RESULTS = REPO / "benchmarks" / "results" / "llm_stall.md"  # one section per --concurrency
HEADERS = {"Content-Type": "text/plain"}


def probe(c: httpx.Client, body: bytes, n: int) -> tuple[list[float], list[float], list[str]]:
    """Latencies (ms) of n /healthz and n new diagnoses, one at a time, and the diagnoses' composers."""
    health, diag, composers = [], [], []
    for _ in range(n):
        t0 = time.perf_counter()
        c.get("/healthz").raise_for_status()
        health.append((time.perf_counter() - t0) * 1000)
        t0 = time.perf_counter()
        r = c.post("/v1/diagnoses", content=body, headers=HEADERS)
        diag.append((time.perf_counter() - t0) * 1000)
        r.raise_for_status()
        d = r.json()
        composers.append(d["composer"] + (" (LLM is busy)" if any("LLM is busy" in n for n in d["notes"]) else ""))
    return health, diag, composers


def row(name: str, values: list[float]) -> str:
    return f"| {name} | {len(values)} | {statistics.median(values):.1f} | {percentile(values, 95):.1f} | {max(values):.1f} |"


def measure(args: argparse.Namespace, concurrency: int, body: bytes) -> list[str]:
    """One server with CRASHDOC_LLM_CONCURRENCY=concurrency: its section of the report."""
    with FakeLLMServer() as fake:
        env = {"CRASHDOC_LLM_MODEL": "openai/hanging", "CRASHDOC_LLM_API_BASE": fake.url, "CRASHDOC_LLM_API_KEY": "sk-local",
               "CRASHDOC_LLM_TIMEOUT_S": str(args.hang), "CRASHDOC_LLM_BUDGET_S": str(args.hang), "CRASHDOC_LLM_MAX_RETRIES": "0",
               "CRASHDOC_LLM_CONCURRENCY": str(concurrency)}
        with serve(env) as server, httpx.Client(base_url=server.url, timeout=args.hang + 60) as c:
            fake.state.default = Script(content="{}", delay=0.0)  # warm-up and idle probes: the model answers at once
            for _ in range(3):
                c.post("/v1/diagnoses", content=body, headers=HEADERS).raise_for_status()
            idle_health, idle_diag, _ = probe(c, body, args.probes)
            fake.state.default = Script(content="{}", delay=args.hang)
            seen = len(fake.state.requests)
            with ThreadPoolExecutor(max_workers=args.in_flight) as pool, \
                    httpx.Client(base_url=server.url, timeout=args.hang + 60) as flood:
                flight = [pool.submit(flood.post, "/v1/diagnoses", content=body, headers=HEADERS) for _ in range(args.in_flight)]
                # settle: the diagnoses the full pool answered at once are done, the rest wait on the model
                deadline = time.monotonic() + 120
                while time.monotonic() < deadline:
                    waiting = len(fake.state.requests) - seen
                    if waiting and sum(not f.done() for f in flight) == waiting:
                        break
                    time.sleep(0.1)
                in_flight_at_probe = sum(not f.done() for f in flight)
                stall_health, stall_diag, composers = probe(c, body, args.probes)
                still = sum(not f.done() for f in flight)
                t_end = time.monotonic()
                for f in flight:
                    f.result()
                drained = time.monotonic() - t_end
    return [
        f"## CRASHDOC_LLM_CONCURRENCY={concurrency}",
        "",
        f"{args.in_flight} diagnoses posted at once; the probes ran once those the full pool answered at once were "
        f"done, with {in_flight_at_probe} waiting on the model ({still} still at the end; they ended {drained:.0f} s "
        f"later, at the model's deadline).",
        "",
        "| request | n | p50 ms | p95 ms | max ms |",
        "| --- | --- | --- | --- | --- |",
        row("GET /healthz, idle", idle_health),
        row(f"GET /healthz, {in_flight_at_probe} waiting on the model", stall_health),
        row("POST /v1/diagnoses, idle (the model answers at once)", idle_diag),
        row(f"POST /v1/diagnoses, {in_flight_at_probe} waiting on the model", stall_diag),
        "",
        f"Composers of the stalled probes: {', '.join(sorted(set(composers)))}.",
        "",
    ]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--in-flight", type=int, default=42)
    ap.add_argument("--probes", type=int, default=20)
    ap.add_argument("--hang", type=float, default=90.0, help="seconds each completion hangs")
    ap.add_argument("--concurrency", type=int, nargs="+", default=[4, 42],
                    help="CRASHDOC_LLM_CONCURRENCY values, one server each: how many calls may wait on the model")
    args = ap.parse_args()
    body = EXAMPLE.read_bytes()
    lines = [
        "# A hanging model stalls nothing",
        "",
        f"`benchmarks/bench_llm_stall.py --in-flight {args.in_flight} --probes {args.probes} --hang {args.hang:g} "
        f"--concurrency {' '.join(map(str, args.concurrency))}` on {machine()}, {time.strftime('%Y-%m-%d')}. "
        f"The model hangs {args.hang:g} s per call.",
        "",
    ]
    for n in args.concurrency:
        lines += measure(args, n, body)
    RESULTS.write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
