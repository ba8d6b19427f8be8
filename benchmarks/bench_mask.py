"""Masking benchmark: stock Presidio vs crashdoc's masker, and crashdoc's masker on a 100 MB multi-rank log.

    .venv/bin/python benchmarks/bench_mask.py [--mb 100] [--stock-kb 200] [--skip-stock]

1. The same ~200 KB log (the planted-secrets corpus padded with training output) through stock Presidio
   (``AnalyzerEngine`` with all predefined recognizers on a blank spaCy pipeline, default anonymizer)
   and through ours: wall time, secrets leaked, diagnostic tokens damaged.
2. Ours on a generated multi-rank log (64 ranks on 8 nodes: torchrun and DeepSpeed launcher prefixes,
   NCCL init, warnings, env dumps, tqdm bars, a crash): streamed in 1 MiB chunks to a file, with wall
   time, MB/s, peak RSS, and the ratio to ``grep -c .`` on the same file.

Prints a table and writes benchmarks/results/mask.md. Figures, never assertions.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.masking.corpus import Corpus, build_corpus  # noqa: E402

RESULTS = REPO / "benchmarks" / "results" / "mask.md"


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class Clock:
    """Wall and CPU seconds: this machine is shared, so CPU time is the steadier figure."""

    def __enter__(self) -> Clock:
        self.wall0, self.cpu0 = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc: object) -> None:
        self.wall = time.perf_counter() - self.wall0
        self.cpu = time.process_time() - self.cpu0


# ---------------------------------------------------------------- the logs


def step_line(rng: random.Random, rank: int, step: int) -> str:
    ts = f"2024-05-01 {12 + step // 36000:02d}:{step // 600 % 60:02d}:{step // 10 % 60:02d},{rng.randrange(1000):03d}"
    return (
        f"[rank{rank}]:[{ts}] [INFO] step {step}/200000 | loss {rng.uniform(1.5, 3.5):.4f} | lr {3e-4 * rng.uniform(0.5, 1):.3e}"
        f" | grad_norm {rng.uniform(0.2, 2):.3f} | tokens/s {rng.randint(90000, 130000)} | mem {rng.uniform(60, 79):.2f} GiB"
    )


def padded_corpus(target_bytes: int, seed: int = 11) -> Corpus:
    """The planted-secrets corpus with training output between its lines, about ``target_bytes`` long."""
    rng = random.Random(seed)
    corpus = build_corpus(seed=seed, rounds=4)
    out = Corpus()
    size = sum(len(line) + 1 for line in corpus.lines)
    probe = random.Random(0)
    step_len = sum(len(step_line(probe, 7, 1000 + i)) + 1 for i in range(100)) / 100
    fill_total = max(0, int((target_bytes - size) / step_len))
    step = 0
    by_line: dict[int, tuple[list, list]] = {}
    for s in corpus.secrets:
        by_line.setdefault(s.line, ([], []))[0].append((s.kind, s.value))
    for t in corpus.tokens:
        by_line.setdefault(t.line, ([], []))[1].append(t.value)
    hold = 0  # no filler inside a multi-line private key or netrc entry: one process prints those
    for i, line in enumerate(corpus.lines):
        secrets, tokens = by_line.get(i, ([], []))
        out.add(line, secrets, tokens)
        if "-----BEGIN" in line and "-----END" not in line:
            hold = 10**9
        elif "-----END" in line:
            hold = 0
        elif line.startswith("machine "):
            hold = 3
        if hold:
            hold -= 1
            continue
        for _ in range(fill_total * (i + 1) // len(corpus.lines) - fill_total * i // len(corpus.lines)):
            step += 1
            out.add(step_line(rng, rng.randrange(64), step))
    while sum(len(line) + 1 for line in out.lines) < target_bytes:
        step += 1
        out.add(step_line(rng, rng.randrange(64), step))
    return out


_WORDS = """
    the of and to in is was for on that with as by at from his her they this be are an or had which
    were but not have one all been their has more when will there would who no out into its only
    other some could time these two may then first any new like after model data loss layer token
    batch gradient server network memory device kernel rank node
""".split()  # noqa: SIM905 (a word list reads better as prose)


def write_multirank_log(path: Path, target_bytes: int, seed: int = 3) -> int:
    """A 64-rank training log of about ``target_bytes``; returns its line count."""
    rng = random.Random(seed)
    nodes = [f"gpu-node-{n:03d}" for n in rng.sample(range(1, 256), 8)]
    fq = {n: f"{n}.cluster.internal" for n in nodes}
    pids = {r: rng.randint(1000, 99999) for r in range(64)}
    warnings = [
        "/opt/conda/lib/python3.10/site-packages/torch/utils/checkpoint.py:429: UserWarning: torch.utils.checkpoint: "
        "please pass in use_reentrant=True or use_reentrant=False explicitly.",
        "/opt/conda/lib/python3.10/site-packages/torch/distributed/fsdp/_init_utils.py:440: UserWarning: FSDP is "
        "switching to use `NO_SHARD` instead of ShardingStrategy.FULL_SHARD since the world size is 1.",
        "[W ProcessGroupNCCL.cpp:1856] Warning: 0NCCL_AVOID_RECORD_STREAMS=1 has no effect for point-to-point collectives.",
    ]
    lines = 0
    written = 0
    with path.open("w", encoding="utf-8") as f:

        def emit(text: str) -> None:
            nonlocal lines, written
            f.write(text + "\n")
            lines += 1
            written += len(text) + 1

        # env dumps and launcher output, once per node
        for n in nodes:
            user = rng.choice(["jchen", "mlopez", "spatel"])
            emit(f"{n}: MASTER_ADDR={nodes[0]} MASTER_PORT=29500 WORLD_SIZE=64 NODE_RANK={nodes.index(n)}")
            emit(f"{n}: USER={user} HOME=/home/{user} HF_TOKEN=hf_{''.join(rng.choices('abcdefghijKLMNOP0123456789', k=34))}")
            emit(f"{n}: WANDB_API_KEY={''.join(rng.choices('0123456789abcdef', k=40))} NCCL_DEBUG=INFO NCCL_IB_HCA=mlx5")
            emit(f"{n}: SLURM_JOB_NODELIST=gpu-node-[001-008] SLURMD_NODENAME={n} SLURM_JOB_USER={user}")
        # NCCL init, per rank
        for r in range(64):
            n = nodes[r // 8]
            p = pids[r]
            emit(f"{n}:{p}:{p} [{r % 8}] NCCL INFO Bootstrap : Using eth0:10.0.{r // 8}.{10 + r % 8}<0>")
            emit(f"{n}:{p}:{p} [{r % 8}] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB ; OOB eth0:10.0.{r // 8}.{10 + r % 8}<0>")
            for c in range(24):
                emit(f"{n}:{p}:{p + 7} [{r % 8}] NCCL INFO Channel {c:02d}/24 : {r} -> {(r + 1) % 64} via P2P/IPC/read")
        step = 0
        while written < target_bytes:
            step += 1
            style = step // 5000 % 2  # alternate torchrun-prefixed and DeepSpeed-launcher-prefixed stretches
            for r in rng.sample(range(64), 8):
                line = step_line(rng, r, step)
                emit(line if style == 0 else f"{nodes[r // 8]}: {line}")
            if step % 3 == 0:
                emit(f"[rank{rng.randrange(64)}]: {{'loss': {rng.uniform(1.5, 3.5):.4f}, 'grad_norm': {rng.uniform(0.2, 2):.3f}, "
                     f"'learning_rate': {3e-4 * rng.uniform(0.5, 1):.3e}, 'epoch': {step / 20000:.2f}}}")
            if step % 6 == 0:  # free text with a unique shape: a printed training sample
                words = " ".join(rng.choice(_WORDS) for _ in range(rng.randint(8, 24)))
                emit(f"[rank{rng.randrange(64)}]: sample {rng.randrange(10**6)}: {{'text': '{words}', 'label': {rng.randrange(9)}}}")
            if step % 50 == 0:
                r = rng.randrange(64)
                emit(f"[rank{r}]: {rng.choice(warnings)}")
            if step % 200 == 0:
                pct = step % 10000 // 100
                emit(f"Epoch 1:  {pct}%|{'█' * (pct // 10)}{' ' * (10 - pct // 10)}| {step}/200000 [12:00<14:40, 6.25it/s, loss=2.31]")
            if step % 5000 == 0:
                emit(f"[rank0]: Saving checkpoint to /fsx/ckpt/step_{step}/model.safetensors (host {fq[nodes[0]]})")
        # the crash
        for r in range(64):
            emit(f"[rank{r}]: Traceback (most recent call last):")
            emit(f'[rank{r}]:   File "/home/jchen/llm/train.py", line 412, in <module>')
            emit(f"[rank{r}]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1691, "
                 f"remote process exited or there was a network error, NCCL version 2.18.1")
            emit(f"[rank{r}]: Last error: socket to {fq[nodes[r // 8]]}<43211> closed")
    return lines


# ---------------------------------------------------------------- runs


def leaks_and_damage(corpus: Corpus, masked_lines: list[str]) -> tuple[int, int]:
    leaks = sum(1 for s in corpus.secrets if s.value in masked_lines[s.line])
    damaged = sum(1 for t in corpus.tokens if t.value not in masked_lines[t.line])
    return leaks, damaged


def run_stock(text: str) -> tuple[Clock, str]:
    """Stock Presidio as documented, on a blank pipeline (no model download), the public-suffix list offline."""
    import tldextract

    from service.masking import checks
    from service.masking.presidio import blank_nlp_engine, import_presidio

    import_presidio()  # transformers and torch hidden, as crashdoc imports it
    from presidio_analyzer import AnalyzerEngine
    from presidio_anonymizer import AnonymizerEngine

    tldextract.extract = checks.offline_tld()  # keep the stock EmailRecognizer from fetching the list at run time
    nlp = blank_nlp_engine()
    analyzer = AnalyzerEngine(nlp_engine=nlp, supported_languages=["en"])
    anonymizer = AnonymizerEngine()
    with Clock() as clock:
        results = analyzer.analyze(text=text, language="en")
        out = anonymizer.anonymize(text=text, analyzer_results=results).text  # type: ignore[arg-type]
    return clock, out


def run_ours_text(text: str) -> tuple[Clock, str]:
    from service.masking import get_masker, mask_text

    masker = get_masker()
    with Clock() as clock:
        out, _ = mask_text(text, masker)
    return clock, out


def run_ours_file(src: Path, dst: Path) -> tuple[Clock, dict[str, int]]:
    from service.masking import MaskState, get_masker, mask_stream

    masker = get_masker()
    state = MaskState()

    def chunks():  # type: ignore[no-untyped-def]
        with src.open("r", encoding="utf-8", newline="") as f:
            while chunk := f.read(1 << 20):
                yield chunk

    with Clock() as clock, dst.open("w", encoding="utf-8") as out:
        for piece in mask_stream(chunks(), masker, state):
            out.write(piece)
    return clock, dict(state.counts)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mb", type=float, default=100.0, help="size of the multi-rank log (MB)")
    ap.add_argument("--stock-kb", type=float, default=200.0, help="size of the side-by-side log (KB)")
    ap.add_argument("--skip-stock", action="store_true", help="skip stock Presidio (slow)")
    args = ap.parse_args()

    rows: list[tuple[str, str]] = []
    t0 = time.perf_counter()
    from service.masking import get_masker

    get_masker()
    rows.append(("import + build the masker", f"{time.perf_counter() - t0:.1f} s (RSS {rss_mb():.0f} MB)"))
    base_rss = rss_mb()

    corpus = padded_corpus(int(args.stock_kb * 1000))
    text = "\n".join(corpus.lines)
    kb = len(text.encode()) / 1000
    side = [
        f"| engine | log | wall | CPU | leaked secrets (of {len(corpus.secrets)}) | damaged tokens (of {len(corpus.tokens)}) |",
        "|---|---|---|---|---|---|",
    ]
    if not args.skip_stock:
        clock, out = run_stock(text)
        leaks, damaged = leaks_and_damage(corpus, out.split("\n"))
        side.append(
            f"| stock Presidio (all predefined recognizers, blank spaCy) | {kb:.0f} KB | {clock.wall:.1f} s | {clock.cpu:.1f} s "
            f"| {leaks} | {damaged} |"
        )
    clock, out = run_ours_text(text)
    leaks, damaged = leaks_and_damage(corpus, out.split("\n"))
    side.append(f"| crashdoc masker | {kb:.0f} KB | {clock.wall:.2f} s | {clock.cpu:.2f} s | {leaks} | {damaged} |")

    with tempfile.TemporaryDirectory() as tmp:
        src, dst = Path(tmp) / "multirank.log", Path(tmp) / "masked.log"
        n_lines = write_multirank_log(src, int(args.mb * 1_000_000))
        size_mb = src.stat().st_size / 1_000_000
        children0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        with Clock() as grep:
            subprocess.run(["grep", "-c", ".", str(src)], check=True, capture_output=True)
        children1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        grep_cpu = (children1.ru_utime + children1.ru_stime) - (children0.ru_utime + children0.ru_stime)
        clock, counts = run_ours_file(src, dst)
        peak = rss_mb()
    big = [
        "| log | lines | wall | CPU | throughput (wall / CPU) | peak RSS (growth) | `grep -c .` wall / CPU | ratio to grep (wall) |",
        "|---|---|---|---|---|---|---|---|",
        f"| {size_mb:.0f} MB, 64 ranks on 8 nodes | {n_lines:,} | {clock.wall:.1f} s | {clock.cpu:.1f} s "
        f"| {size_mb / clock.wall:.1f} / {size_mb / clock.cpu:.1f} MB/s | {peak:.0f} MB (+{peak - base_rss:.0f} MB) "
        f"| {grep.wall:.2f} s / {grep_cpu:.2f} s | {clock.wall / grep.wall:.0f}x |",
    ]
    load = os.getloadavg()[0]
    machine = (
        f"{platform.processor() or platform.machine()}, {_cpus()} CPUs, Python {platform.python_version()}, "
        f"load average {load:.1f} at the end (a shared machine: CPU seconds are the steadier figure)"
    )
    report = "\n".join(
        [
            "# Masking benchmark",
            "",
            f"`benchmarks/bench_mask.py` on {machine}. " + " ".join(f"{k}: {v}." for k, v in rows),
            "",
            "## Side by side, same log",
            "",
            *side,
            "",
            "## Ours on a multi-rank log (streamed in 1 MiB chunks)",
            "",
            *big,
            "",
            "Masked per kind: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) + ".",
            "",
            "Peak RSS includes the ~400 MB that importing presidio_analyzer costs (it imports transformers and",
            "torch for its optional NER engine); growth is what masking the log added on top.",
            "",
        ]
    )
    print(report)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(report, encoding="utf-8")


def _cpus() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


if __name__ == "__main__":
    main()
