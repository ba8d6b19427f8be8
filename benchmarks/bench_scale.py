"""Scale benchmark: real-size runs (100 MB / 64 ranks, 1 GB / 1,024 ranks in one file, 1,024 per-rank files).

    .venv/bin/python benchmarks/bench_scale.py [--runs small,100mb,1gb,1gb-files] [--api] [--keep DIR]
    .venv/bin/python benchmarks/bench_scale.py generate OUT --mb 300 --ranks 256 [--files]   # just the input

Each run is generated here (``generate``): a torchrun job whose ranks all print their progress (step lines
with loss, lr, grad norm and memory), NCCL INFO at start-up, environment banners and warnings that do not
matter, then rank F (a real-format ``torch.OutOfMemoryError`` traceback) dies; every other rank's watchdog
times out in the all-reduce (collateral) and torchrun's summary names rank 0 as the "Root Cause (first
observed failure)", which is misleading. For each run: wall, CPU, peak RSS and MB/s of ``crashdoc diagnose``
(a subprocess, as a user runs it), the ratio to ``grep -c .`` on the same input in the same run, and the
same over the API (a gzip upload to a running server) when ``--api`` is given. The diagnosis (entry and
initiating rank) must equal the one of a small version of the same run (``small``: 2 MB, same ranks).

Writes benchmarks/results/scale.md. Figures, never assertions (the memory bound is a test:
tests/test_scale.py).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import platform
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "benchmarks" / "results" / "scale.md"
CRASHDOC = str(Path(sys.executable).parent / "crashdoc")

# ---------------------------------------------------------------- the generator


def _ts(t: float) -> str:
    s = int(t)
    return f"2024-05-01 {12 + s // 3600 % 12:02d}:{s // 60 % 60:02d}:{s % 60:02d},{int(t * 1000) % 1000:03d}"


def _glog(t: float) -> str:
    s = int(t)
    return f"0501 {12 + s // 3600 % 12:02d}:{s // 60 % 60:02d}:{s % 60:02d}.{int(t * 1e6) % 1000000:06d}"


def _banner(ranks: int, per_node: int) -> list[str]:
    nodes = max(1, ranks // per_node)
    return [
        "W0501 12:00:00.123000 140245 torch/distributed/run.py:779] Setting OMP_NUM_THREADS environment variable for each "
        "process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal "
        "performance in your application as needed.",
        "I0501 12:00:00.456000 140245 torch/distributed/launcher/api.py:188] Starting elastic_operator with launch configs:",
        "I0501 12:00:00.456000 140245 torch/distributed/launcher/api.py:188]   entrypoint       : train.py",
        f"I0501 12:00:00.456000 140245 torch/distributed/launcher/api.py:188]   min_nodes        : {nodes}",
        f"I0501 12:00:00.456000 140245 torch/distributed/launcher/api.py:188]   max_nodes        : {nodes}",
        f"I0501 12:00:00.456000 140245 torch/distributed/launcher/api.py:188]   nproc_per_node   : {per_node}",
        "I0501 12:00:00.456000 140245 torch/distributed/launcher/api.py:188]   run_id           : 88123",
        "I0501 12:00:00.456000 140245 torch/distributed/launcher/api.py:188]   rdzv_backend     : c10d",
        "PyTorch version: 2.3.1+cu121",
        "Is debug build: False",
        "CUDA used to build PyTorch: 12.1",
        "OS: Ubuntu 22.04.4 LTS (x86_64)",
        "Python version: 3.11.9 (main, Apr  6 2024, 17:59:24) [GCC 11.4.0] (64-bit runtime)",
        "Nvidia driver version: 535.161.08",
        *[f"GPU {i}: NVIDIA H100 80GB HBM3" for i in range(per_node)],
        "[pip3] numpy==1.26.4",
        "[pip3] torch==2.3.1",
        "[pip3] triton==2.3.1",
    ]


def _rank_start(rank: int, ranks: int, per_node: int, prefix: str) -> list[str]:
    node, local = divmod(rank, per_node)
    host = f"gpu-node-{node:03d}"
    pid = 41000 + rank
    nccl = f"{host}:{pid}:{pid} [{local}] NCCL INFO"
    return [
        f"{prefix}{nccl} Bootstrap : Using eth0:10.1.{node}.{local + 10}<0>",
        f"{prefix}{nccl} cudaDriverVersion 12020",
        f"{prefix}{nccl} NCCL version 2.20.5+cuda12.4",
        f"{prefix}{nccl} NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB ; OOB eth0:10.1.{node}.{local + 10}<0>",
        f"{prefix}{nccl} Channel 00/08 :    0   1   2   3   4   5   6   7",
        f"{prefix}{nccl} comm 0x55d0c8a0 rank {rank} nranks {ranks} cudaDev {local} nvmlDev {local} busId {0x1b + local:x}000 "
        "commId 0x3b2a9e1f4c - Init COMPLETE",
        f"{prefix}[{_ts(5)}] [INFO] [train.py:88] rank {rank}: model has 6.74B parameters, bf16, FSDP FULL_SHARD",
    ]


_WARNING = ("/usr/local/lib/python3.11/site-packages/torch/utils/checkpoint.py:464: UserWarning: torch.utils.checkpoint: "
            "the use_reentrant parameter should be passed explicitly.")


def _step(rank: int, step: int, rng: random.Random, prefix: str) -> str:
    loss = 2.1 + rng.random() * 0.3
    mem = 61.0 + (step % 97) / 100
    return (f"{prefix}[{_ts(10 + step * 0.9)}] [INFO] [train.py:203] step {step} | loss {loss:.4f} | lr 3.00e-04 | "
            f"grad_norm {0.8 + rng.random() * 0.4:.3f} | tokens/s {118000 + rng.randrange(4000)} | mem {mem:.2f}GiB")


def _oom(rank: int, step: int, prefix: str) -> list[str]:
    t = _ts(10 + step * 0.9)
    return [
        f"{prefix}Traceback (most recent call last):",
        f'{prefix}  File "/workspace/train.py", line 412, in <module>',
        f"{prefix}    main()",
        f'{prefix}  File "/workspace/train.py", line 398, in main',
        f"{prefix}    loss = train_step(model, batch, optimizer)",
        f'{prefix}  File "/workspace/train.py", line 214, in train_step',
        f"{prefix}    logits = model(**batch).logits",
        f'{prefix}  File "/usr/local/lib/python3.11/site-packages/torch/nn/modules/module.py", line 1532, in _wrapped_call_impl',
        f"{prefix}    return self._call_impl(*args, **kwargs)",
        f'{prefix}  File "/usr/local/lib/python3.11/site-packages/transformers/models/llama/modeling_llama.py", line 1174, in forward',
        f"{prefix}    logits = logits.float()",
        f"{prefix}torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.91 GiB. GPU {rank % 8} has a total capacity "
        "of 79.15 GiB of which 1.02 GiB is free. Including non-PyTorch memory, this process has 78.12 GiB memory in use. "
        "Of the allocated memory 74.50 GiB is allocated by PyTorch, and 2.10 GiB is reserved by PyTorch but unallocated. "
        "If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid "
        "fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)",
        f"{prefix}[{t}] [ERROR] [train.py:420] rank {rank} failed at step {step}",
    ]


def _watchdog(rank: int, seq: int, t: float, prefix: str) -> list[str]:
    g = _glog(t)
    return [
        f"{prefix}[E{g} 140245 ProcessGroupNCCL.cpp:616] [Rank {rank}] Watchdog caught collective operation timeout: "
        f"WorkNCCL(SeqNum={seq}, OpType=ALLREDUCE, NumelIn=262144, NumelOut=262144, Timeout(ms)=600000) ran for 600043 "
        "milliseconds before timing out.",
        f"{prefix}[E{g} 140245 ProcessGroupNCCL.cpp:1537] [PG 0 Rank {rank}] Timeout at NCCL work: {seq}, last enqueued NCCL "
        f"work: {seq}, last completed NCCL work: {seq - 1}.",
        f"{prefix}[E{g} 140245 ProcessGroupNCCL.cpp:577] [Rank {rank}] To avoid data inconsistency, we are taking the entire "
        "process down.",
    ]


def _summary(per_node: int, t: float) -> list[str]:
    """torchrun's summary on node 0: it names local rank 0 (a tie it breaks by rank order), not the rank that died."""
    when = _ts(t)[:19].replace(" ", "_")
    out = [
        f"E{_glog(t)} 140245 torch/distributed/elastic/multiprocessing/api.py:826] failed (exitcode: -6) "
        "local_rank: 0 (pid: 41000) of binary: /usr/bin/python3",
        "Traceback (most recent call last):",
        '  File "/usr/local/bin/torchrun", line 8, in <module>',
        "    sys.exit(main())",
        '  File "/usr/local/lib/python3.11/site-packages/torch/distributed/run.py", line 879, in main',
        "    run(args)",
        '  File "/usr/local/lib/python3.11/site-packages/torch/distributed/launcher/api.py", line 263, in launch_agent',
        "    raise ChildFailedError(",
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
        "============================================================",
        "train.py FAILED",
        "------------------------------------------------------------",
        "Failures:",
    ]
    for local in range(1, min(per_node, 4)):
        out += [f"[{local}]:", f"  time      : {when}", "  host      : gpu-node-000",
                f"  rank      : {local} (local_rank: {local})", f"  exitcode  : -6 (pid: {41000 + local})",
                "  error_file: <N/A>", f"  traceback : Signal 6 (SIGABRT) received by PID {41000 + local}"]
    out += ["------------------------------------------------------------", "Root Cause (first observed failure):", "[0]:",
            f"  time      : {when}", "  host      : gpu-node-000", "  rank      : 0 (local_rank: 0)",
            "  exitcode  : -6 (pid: 41000)", "  error_file: <N/A>", "  traceback : Signal 6 (SIGABRT) received by PID 41000",
            "============================================================"]
    return out


def failing_rank(ranks: int) -> int:
    return ranks * 37 // 64  # rank 37 of 64, 592 of 1,024: never rank 0, never the last


def generate(out: Path, mb: float, ranks: int, files: bool = False, per_node: int = 8, seed: int = 0) -> list[Path]:
    """Write one run of about ``mb`` MB: one file (``[rankN]:`` prefixes) or a folder of per-rank files."""
    rng = random.Random(seed)
    target = int(mb * 1e6)
    bad = failing_rank(ranks)
    per_node = min(per_node, ranks)
    line_len = len(_step(0, 1000, rng, "[rank000]:")) + 1
    steps = max(20, target // (line_len * ranks) - 30)
    if files:
        out.mkdir(parents=True, exist_ok=True)
        handles = {r: (out / f"rank{r:04d}.log").open("w", encoding="utf-8") for r in range(ranks)}
        prefix = {r: "" for r in range(ranks)}
    else:
        out.parent.mkdir(parents=True, exist_ok=True)
        one = out.open("w", encoding="utf-8")
        handles = {r: one for r in range(ranks)}
        prefix = {r: f"[rank{r}]:" for r in range(ranks)}
        one.write("\n".join(_banner(ranks, per_node)) + "\n")
    try:
        for r in range(ranks):
            start = _banner(ranks, per_node) if files else []
            handles[r].write("\n".join(start + _rank_start(r, ranks, per_node, prefix[r])) + "\n")
        for step in range(1, steps + 1):
            for r in range(ranks):
                lines = [_step(r, step, rng, prefix[r])]
                if step % 200 == 1:
                    lines.append(f"{prefix[r]}{_WARNING}")
                if r == bad and step == steps:
                    lines += _oom(r, step, prefix[r])
                handles[r].write("\n".join(lines) + "\n")
        t = 10 + steps * 0.9 + 600
        for r in range(ranks):
            if r != bad:
                handles[r].write("\n".join(_watchdog(r, 18234 + steps, t + r * 0.001, prefix[r])) + "\n")
        handles[0].write("\n".join(_summary(per_node, t + 5)) + "\n")
    finally:
        for h in set(handles.values()):
            h.close()
    return sorted(out.glob("*.log")) if files else [out]


# ---------------------------------------------------------------- measuring


def _timed(cmd: list[str], stdin: Path | None = None, env: dict[str, str] | None = None) -> tuple[float, float, float, str]:
    """(wall s, CPU s, peak RSS MB, stdout) of one subprocess (its own rusage, from wait4)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        fin = stdin.open("rb") if stdin else subprocess.DEVNULL
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, stdin=fin, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        if stdin:
            fin.close()  # type: ignore[union-attr]
        out.seek(0)
        err.seek(0)
        if proc.returncode != 0:
            raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}): {err.read().decode()[-2000:]}")
        return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, out.read().decode()


def _size(paths: list[Path]) -> int:
    return sum(p.stat().st_size for p in paths)


def bench_cli(paths: list[Path], target: Path, baseline: Path | None = None) -> dict[str, object]:
    """The CLI on a run; with ``baseline`` (a checkout of an earlier commit) that code runs on it too, right
    after, for the ratio (the same input, the same minute of a shared machine)."""
    grep_wall = _timed(["grep", "-c", ".", *map(str, paths)])[0] if len(paths) < 2000 else float("nan")
    wall, cpu, rss, out = _timed([CRASHDOC, "diagnose", str(target), "--format", "json", "--no-store", "-q"])
    d = json.loads(out)
    mb = _size(paths) / 1e6
    row: dict[str, object] = {"route": "CLI", "mb": mb, "wall": wall, "cpu": cpu, "rss": rss, "mbps": mb / wall, "grep": grep_wall,
                              "entry": d["entry_id"], "rank": d["initiating_rank"], "timings": d["timings_ms"]}
    if baseline is not None:
        b_wall, b_cpu, _, b_out = _timed([sys.executable, "-m", "service.cli", "diagnose", str(target), "--format", "json",
                                          "--no-store", "-q"], env={**os.environ, "PYTHONPATH": str(baseline)})
        b = json.loads(b_out)
        row.update(base_wall=b_wall, base_cpu=b_cpu, base_same=(b["entry_id"], b["initiating_rank"]) == (row["entry"], row["rank"]))
    return row


def _post(url: str, body: bytes, headers: dict[str, str]) -> dict[str, object]:
    import urllib.request

    req = urllib.request.Request(url, data=body, method="POST", headers=headers)
    with urllib.request.urlopen(req, timeout=900) as r:
        return json.loads(r.read())  # type: ignore[no-any-return]


def _vm_hwm_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def bench_api(paths: list[Path], url: str, pid: int) -> dict[str, object]:
    """One-file runs as a gzip upload; meanwhile a second client posts the bundled example again and again."""
    import threading

    if len(paths) != 1:
        raise SystemExit("the API route is benchmarked on one-file runs")
    with tempfile.TemporaryDirectory() as tmp:
        gz = Path(tmp) / "body.gz"
        with paths[0].open("rb") as src, gzip.open(gz, "wb", compresslevel=1) as dst:
            shutil.copyfileobj(src, dst, 1 << 20)
        body = gz.read_bytes()
    small = (REPO / "examples" / "fusedadam-h100.log").read_bytes()
    latencies: list[float] = []
    done = threading.Event()

    def second_client() -> None:
        while not done.is_set():
            t = time.perf_counter()
            _post(f"{url}/v1/diagnoses", small, {"Content-Type": "text/plain"})
            latencies.append(time.perf_counter() - t)

    other = threading.Thread(target=second_client)
    other.start()
    t0 = time.perf_counter()
    d = _post(f"{url}/v1/diagnoses", body, {"Content-Type": "text/plain", "Content-Encoding": "gzip"})
    wall = time.perf_counter() - t0
    done.set()
    other.join()
    latencies.sort()
    p95 = latencies[min(len(latencies) - 1, int(0.95 * len(latencies)))] if latencies else float("nan")
    mb = _size(paths) / 1e6
    return {"route": f"API, gzip {len(body) / 1e6:.0f} MB", "mb": mb, "wall": wall, "cpu": float("nan"),
            "rss": _vm_hwm_mb(pid), "mbps": mb / wall, "grep": float("nan"), "entry": d["entry_id"], "rank": d["initiating_rank"],
            "timings": d["timings_ms"], "small_p95": p95, "small_n": len(latencies)}


def _serve(data: Path) -> tuple[subprocess.Popen[bytes], str]:
    import socket
    import urllib.request

    index = Path.home() / ".crashdoc" / "index"
    data.mkdir(parents=True, exist_ok=True)
    if index.exists() and not (data / "index").exists():
        os.symlink(index, data / "index")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([CRASHDOC, "serve", "--host", "127.0.0.1", "--port", str(port)],
                            env={**os.environ, "CRASHDOC_DATA_DIR": str(data)}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            with urllib.request.urlopen(f"{url}/healthz", timeout=2):
                return proc, url
        except OSError:
            time.sleep(0.5)
    raise SystemExit("crashdoc serve did not start")


def _gzip_stream(piece: bytes, times: int) -> bytes:
    """gzip of ``piece * times`` without holding the whole of it."""
    import zlib

    z = zlib.compressobj(1, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    return b"".join(z.compress(piece) for _ in range(times)) + z.flush()


HOSTILE = (  # name: what a hostile or broken client sends (gzip), issue 15's three
    ("64 MiB of newlines", lambda: _gzip_stream(b"\n" * (1 << 20), 64)),
    ("a 1 GiB line with no newline", lambda: _gzip_stream(b"x" * (1 << 20), 1024)),
    ("a gzip bomb: 80 members of 64 MiB each (5 GiB)", lambda: _gzip_stream(b" " * (1 << 20), 64) * 80),
)


def bench_hostile(url: str, pid: int) -> list[dict[str, object]]:
    """Each hostile body once, in turn, to one server: its answer, how long it took, the server's peak RSS after it."""
    import urllib.error
    import urllib.request

    rows: list[dict[str, object]] = []
    for name, make in HOSTILE:
        body = make()
        req = urllib.request.Request(f"{url}/v1/diagnoses", data=body, method="POST",
                                     headers={"Content-Type": "text/plain", "Content-Encoding": "gzip"})
        t0 = time.perf_counter()
        try:
            with urllib.request.urlopen(req, timeout=900) as r:
                status, answer = r.status, json.loads(r.read())
                said = f"{answer.get('entry_id')} ({'; '.join(answer.get('notes', []))[:160]})"
        except urllib.error.HTTPError as e:
            status, said = e.code, json.loads(e.read())["error"]["message"][:160]
        rows.append({"name": name, "gzip_mb": len(body) / 1e6, "status": status, "said": said,
                     "wall": time.perf_counter() - t0, "rss": _vm_hwm_mb(pid)})
        print(json.dumps(rows[-1]), flush=True)
    return rows


def write_hostile(rows: list[dict[str, object]], load: str) -> None:
    lines = [f"| {r['name']} | {r['gzip_mb']:.1f} | {r['status']} | {r['said']} | {r['wall']:.1f} | {r['rss']:,.0f} |"  # type: ignore[str-format]
             for r in rows]
    (RESULTS.parent / "hostile.md").write_text(
        "# Hostile bodies\n\n"
        f"`benchmarks/bench_scale.py --hostile` on {platform.machine()}, {os.cpu_count()} CPUs, Python "
        f"{platform.python_version()} ({load}): one `crashdoc serve` on its default limits gets each body in turn, as a "
        "gzip upload to POST /v1/diagnoses. Peak RSS is the server's VmHWM after the body (it only grows). Issue 15 asks "
        "for a clear answer to each within the limits, the server under 1.5 GB.\n\n"
        "| body | gzip MB | status | answer | wall s | server peak RSS MB |\n| --- | --- | --- | --- | --- | --- |\n"
        + "\n".join(lines) + "\n")


RUNS = {  # name: (MB, ranks, per-rank files)
    "100mb": (100, 64, False),
    "1gb": (1000, 1024, False),
    "1gb-files": (1000, 1024, True),
}
SMALL_MB = 2  # the small version of each run: the same ranks, the same failure


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", default="100mb,1gb,1gb-files")
    ap.add_argument("--keep", type=Path, help="generate into (and keep) this folder instead of a temporary one")
    ap.add_argument("--api", action="store_true", help="also upload one-file runs (gzip) to a crashdoc serve started here")
    ap.add_argument("--baseline", type=Path, metavar="DIR", help="a checkout of an earlier commit: its CLI runs each big run too")
    ap.add_argument("--label", default="", help="what --baseline is, for the table (a commit)")
    ap.add_argument("--hostile", action="store_true", help="only the hostile bodies to a server (benchmarks/results/hostile.md)")
    args = ap.parse_args()
    load_before = os.getloadavg()[0]
    if args.hostile:
        with tempfile.TemporaryDirectory() as tmp:
            proc, url = _serve(Path(tmp) / "server-data")
            try:
                rows_h = bench_hostile(url, proc.pid)
            finally:
                proc.terminate()
                proc.wait()
        write_hostile(rows_h, f"load average {load_before:.1f} at the start, {os.getloadavg()[0]:.1f} at the end")
        return
    rows: list[dict[str, object]] = []
    with tempfile.TemporaryDirectory() as tmp:
        root = args.keep or Path(tmp)
        server = _serve(Path(tmp) / "server-data") if args.api else None
        for name in args.runs.split(","):
            mb, ranks, files = RUNS[name]
            small_target = root / f"{name}-small" if files else root / f"{name}-small.log"
            big_target = root / name if files else root / f"{name}.log"
            small = generate(small_target, SMALL_MB * (ranks // 64 or 1), ranks, files)
            big = generate(big_target, mb, ranks, files)
            ref = bench_cli(small, small_target)
            row = bench_cli(big, big_target, args.baseline.resolve() if args.baseline else None)
            row["name"], row["same"] = name, (row["entry"], row["rank"]) == (ref["entry"], ref["rank"])
            row["small_wall"], row["small_rss"] = ref["wall"], ref["rss"]
            rows.append(row)
            print(json.dumps(row), flush=True)
            if server and not files:
                api = bench_api(big, server[1], server[0].pid)
                api["name"], api["same"] = name, (api["entry"], api["rank"]) == (ref["entry"], ref["rank"])
                rows.append(api)
                print(json.dumps(api), flush=True)
            if not args.keep:
                for p in (small_target, big_target):
                    shutil.rmtree(p) if p.is_dir() else p.unlink()
        if server:
            server[0].terminate()
            server[0].wait()
    write(rows, f"load average {load_before:.1f} at the start, {os.getloadavg()[0]:.1f} at the end", args.label)


def _cell(value: object, fmt: str) -> str:
    return "-" if isinstance(value, float) and value != value else format(value, fmt)  # NaN: not measured for the route


def write(rows: list[dict[str, object]], load: str = "", label: str = "") -> None:
    head = ("| run | route | MB | wall s | CPU s | peak RSS MB | MB/s | x `grep -c .` | diagnosis (entry, rank) | same as small "
            "| meanwhile: small diagnoses, p95 |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
    body = "".join(
        f"| {r['name']} | {r['route']} | {_cell(r['mb'], ',.0f')} | {_cell(r['wall'], '.1f')} | {_cell(r['cpu'], '.1f')} | "
        f"{_cell(r['rss'], ',.0f')} | {_cell(r['mbps'], ',.0f')} | {_cell(r['wall'] / r['grep'], '.0f')} | "  # type: ignore[operator]
        f"{r['entry']}, {r['rank']} | {'yes' if r['same'] else 'NO'} | "
        + (f"{r['small_p95']:.2f} s ({r['small_n']} requests) |\n" if "small_p95" in r else "- |\n")
        for r in rows
    )
    RESULTS.write_text(
        "# Scale benchmark\n\n"
        f"`benchmarks/bench_scale.py` on {platform.machine()}, {os.cpu_count()} CPUs (shared), Python {platform.python_version()}; "
        "each run generated by the benchmark (one rank's CUDA OOM, watchdog timeouts on the others, torchrun's "
        "summary naming rank 0). Wall, CPU and peak RSS are of the `crashdoc diagnose` process (startup and model "
        "load included: the 2 MB small version of the runs took "
        + ", ".join(f"{r['small_wall']:.1f} s / {r['small_rss']:,.0f} MB" for r in rows if "small_wall" in r)  # type: ignore[str-format]
        + "). `x grep` is the wall time over `grep -c .` on the "
        "same files in the same run. API rows: one `crashdoc serve` process taking the run as one gzip upload "
        "(compressed here, level 1) while a second client posts the bundled 50 KB example again and again; peak "
        f"RSS is the server's (VmHWM). The machine was shared with other work while this ran ({load}): wall "
        "times stretch with the load, CPU times much less.\n\n" + head + body + _baseline_table(rows, label)
    )


def _baseline_table(rows: list[dict[str, object]], label: str) -> str:
    base = [r for r in rows if "base_wall" in r]
    if not base:
        return ""
    out = (f"\nSide by side, the CLI of {label or 'the baseline'} on the same input right after (same minute of the "
           "same shared machine):\n\n| run | wall s | baseline wall s | ratio | CPU s | baseline CPU s | ratio | same diagnosis |\n"
           "| --- | --- | --- | --- | --- | --- | --- | --- |\n")
    for r in base:
        out += (f"| {r['name']} | {r['wall']:.1f} | {r['base_wall']:.1f} | {r['wall'] / r['base_wall']:.2f} | "  # type: ignore[operator]
                f"{r['cpu']:.1f} | {r['base_cpu']:.1f} | {r['cpu'] / r['base_cpu']:.2f} | {'yes' if r['base_same'] else 'NO'} |\n")  # type: ignore[operator]
    return out


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "generate":
        gp = argparse.ArgumentParser()
        gp.add_argument("cmd")
        gp.add_argument("out", type=Path)
        gp.add_argument("--mb", type=float, default=300)
        gp.add_argument("--ranks", type=int, default=256)
        gp.add_argument("--files", action="store_true")
        ga = gp.parse_args()
        generate(ga.out, ga.mb, ga.ranks, ga.files)
    else:
        main()
