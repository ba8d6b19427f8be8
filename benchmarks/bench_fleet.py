"""Load across 2 replicas on one PostgreSQL, with a worker: figures, never assertions.

    .venv/bin/python benchmarks/bench_fleet.py --database-url postgresql+psycopg://USER:PW@127.0.0.1:5432/DB \
        [--clients 16] [--requests 160] [--kb 50]

The role must be allowed to create databases: a fresh one is made for the run and dropped after. Starts two
`crashdoc serve` replicas (bench_api.serve, each its own data dir, the index cache shared) and one `crashdoc
worker` (4 job threads), then:

1. sync: ``--clients`` threads POST a ``--kb`` KB log to /v1/diagnoses, to one replica, then to both in turn;
   throughput and client latency p50/p95;
2. async: the same with ``Prefer: respond-async``: the time to the 202 (p50/p95), then the time until every job
   is done (the worker's diagnoses per second).

Writes benchmarks/results/fleet.md.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_api import REPO, index_cache, machine, percentile, serve, training_log

RESULTS = REPO / "benchmarks" / "results" / "fleet.md"
TEXT = {"Content-Type": "text/plain"}


@contextmanager
def fresh_database(server_url: str) -> Iterator[str]:
    import psycopg

    plain = server_url.replace("postgresql+psycopg://", "postgresql://", 1)
    name = f"crashdoc_bench_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(plain, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield f"{server_url.rpartition('/')[0]}/{name}"
    finally:
        with psycopg.connect(plain, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextmanager
def worker(env: dict[str, str]) -> Iterator[subprocess.Popen[bytes]]:
    with tempfile.TemporaryDirectory(prefix="crashdoc-bench-worker-") as tmp:
        (Path(tmp) / "index").symlink_to(index_cache())
        with open(Path(tmp) / "worker.log", "wb") as log:
            proc = subprocess.Popen([sys.executable, "-m", "service.cli", "worker"], cwd=REPO, stdout=log,
                                    stderr=subprocess.STDOUT, env={**os.environ, **env, "CRASHDOC_DATA_DIR": tmp})
        try:
            yield proc
        finally:
            proc.terminate()
            proc.wait(timeout=30)


def drive(urls: list[str], key: str, body: bytes, clients: int, requests: int, extra: dict[str, str]) -> dict[str, object]:
    """``requests`` POSTs from ``clients`` threads, request i to urls[i % len(urls)]."""
    latencies: list[float] = []
    statuses: Counter[str] = Counter()
    jobs: list[str] = []
    lock = threading.Lock()
    counter = iter(range(requests))

    def run() -> None:
        with httpx.Client(timeout=300, headers={"Authorization": f"Bearer {key}"}) as c:
            while True:
                with lock:
                    i = next(counter, None)
                if i is None:
                    return
                t0 = time.perf_counter()
                try:
                    r = c.post(f"{urls[i % len(urls)]}/v1/diagnoses", content=body, headers={**TEXT, **extra})
                    status = str(r.status_code)
                except httpx.HTTPError as exc:
                    r, status = None, type(exc).__name__
                with lock:
                    latencies.append(time.perf_counter() - t0)
                    statuses[status] += 1
                    if r is not None and r.status_code == 202:
                        jobs.append(r.json()["id"])

    t0 = time.perf_counter()
    threads = [threading.Thread(target=run) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    return {"wall": wall, "latencies": latencies, "statuses": dict(statuses), "jobs": jobs}


def wait_jobs(url: str, key: str, jobs: list[str], timeout: float = 1800) -> tuple[float, Counter[str]]:
    t0 = time.perf_counter()
    left = set(jobs)
    outcome: Counter[str] = Counter()
    with httpx.Client(base_url=url, timeout=60, headers={"Authorization": f"Bearer {key}"}) as c:
        while left and time.perf_counter() - t0 < timeout:
            for j in list(left):
                status = c.get(f"/v1/jobs/{j}").json()["status"]
                if status in ("done", "failed"):
                    outcome[status] += 1
                    left.discard(j)
            time.sleep(0.5)
    outcome["unfinished"] = len(left)
    return time.perf_counter() - t0, outcome


def row(name: str, res: dict[str, object], n: int) -> str:
    lat = sorted(res["latencies"])  # type: ignore[arg-type]
    wall = float(res["wall"])  # type: ignore[arg-type]
    return (f"| {name} | {n} | {res['statuses']} | {n / wall:.2f} | {percentile(lat, 50) * 1000:.0f} | "
            f"{percentile(lat, 95) * 1000:.0f} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--database-url", default=os.environ.get("TEST_POSTGRES_URL"), required=not os.environ.get("TEST_POSTGRES_URL"))
    ap.add_argument("--clients", type=int, default=16)
    ap.add_argument("--requests", type=int, default=160)
    ap.add_argument("--kb", type=int, default=50)
    args = ap.parse_args()
    body = training_log(args.kb)
    with ExitStack() as stack:
        url = stack.enter_context(fresh_database(args.database_url))
        from service.store import Store
        from service.store.accounts import Accounts

        accounts = Accounts(Store(url))  # migrated here, once
        accounts.create_workspace("bench", "scale")
        key = accounts.create_key("bench")[1]
        env = {"CRASHDOC_DATABASE_URL": url, "CRASHDOC_PLAN_SCALE_DAILY": "1000000", "CRASHDOC_JOBS_WORKERS": "4"}
        replicas = [stack.enter_context(serve(env)) for _ in range(2)]
        stack.enter_context(worker(env))
        urls = [r.url for r in replicas]
        drive(urls, key, body, 2, 4, {})  # warm both
        one = drive(urls[:1], key, body, args.clients, args.requests, {})
        two = drive(urls, key, body, args.clients, args.requests, {})
        accepted = drive(urls, key, body, args.clients, args.requests, {"Prefer": "respond-async"})
        done_s, outcome = wait_jobs(urls[0], key, accepted["jobs"])  # type: ignore[arg-type]
    n = args.requests
    end_to_end = float(accepted["wall"]) + done_s  # type: ignore[arg-type]
    lines = [
        "# Load across two replicas (benchmarks/bench_fleet.py)",
        "",
        f"{machine()}. PostgreSQL on loopback; {args.clients} clients, {n} requests of a {args.kb} KB log per row; "
        "each replica is one `crashdoc serve` process, the worker one `crashdoc worker` with 4 job threads. "
        "Figures, not assertions; on a shared machine they move from run to run.",
        "",
        "| run | requests | statuses | requests/s | p50 ms | p95 ms |",
        "| --- | --- | --- | --- | --- | --- |",
        row("sync, one replica", one, n),
        row("sync, two replicas", two, n),
        row("async accept (202), two replicas", accepted, n),
        "",
        f"Async end to end: {n} accepted and diagnosed by the worker in {end_to_end:.1f} s "
        f"({n / end_to_end:.2f} diagnoses/s); outcomes {dict(outcome)}.",
        "",
    ]
    RESULTS.write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
