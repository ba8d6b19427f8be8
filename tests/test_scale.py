"""Memory follows what matters in a log, not its size: the peak RSS of ``crashdoc diagnose`` on a generated
~300 MB, 256-rank run (benchmarks/bench_scale.py's generator, written to a temporary folder) stays bounded.
Memory is not noisy like time, so this is a test; the time goals live in the benchmark."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PEAK_RSS_MB = 800  # the process alone (imports, model, index) is ~330 MB; the whole log in memory would be > 3 GB


def _generator():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("bench_scale", REPO / "benchmarks" / "bench_scale.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_peak_memory_of_a_300_mb_diagnosis_is_bounded(tmp_path, engine):
    engine.index  # noqa: B018 - built once in the session's data dir, which the subprocess shares
    gen = _generator()
    log = tmp_path / "run.log"
    gen.generate(log, 300, 256)
    assert log.stat().st_size > 250e6
    env = {**os.environ, "CRASHDOC_DATA_DIR": str(engine.settings.data_dir)}
    # The peak RSS of a child counts what it shared with its parent when forked: this pytest process holds the
    # engine. A small Python process in between starts the command and reports the command's own peak.
    measure = ("import os, subprocess, sys; p = subprocess.Popen(sys.argv[1:]); _, status, usage = os.wait4(p.pid, 0); "
               "print(os.waitstatus_to_exitcode(status), usage.ru_maxrss, file=sys.stderr)")
    cmd = [sys.executable, "-c", measure, sys.executable, "-m", "service.cli", "diagnose", str(log), "--format", "json",
           "--no-store", "-q"]
    r = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, timeout=600, check=False)
    rc, maxrss_kb = (int(x) for x in r.stderr.decode().split()[-2:])
    assert rc == 0, r.stderr.decode()[-2000:]
    d = json.loads(r.stdout)
    assert (d["entry_id"], d["initiating_rank"]) == ("cuda-oom", gen.failing_rank(256))  # torchrun's summary names rank 0
    peak_mb = maxrss_kb / 1024
    assert peak_mb < PEAK_RSS_MB, f"peak RSS {peak_mb:.0f} MB"
