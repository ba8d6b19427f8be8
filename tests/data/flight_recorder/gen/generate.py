"""Regenerate the real Flight Recorder dumps in tests/data/flight_recorder/ by running hanging jobs under torchrun.

    .venv/bin/python tests/data/flight_recorder/gen/generate.py [NAME ...]   # all scenarios, or the ones named

Each scenario (see job.py) runs ``torchrun --standalone --nproc-per-node N`` with gloo on CPU and
``TORCH_FR_BUFFER_SIZE=64``; the ranks that time out write their Flight Recorder buffers to fr_dumps/. The
console (stdout and stderr in one pipe), the dumps and a scenario.json (what was run, which rank misbehaved)
are kept. Machine-specific paths in the console and inside the dumps' stack frames are replaced so the files
do not depend on where they were made (the dumps are rewritten with the same plain structure).
"""

from __future__ import annotations

import json
import os
import pickle
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
OUT = HERE.parent
JOB = HERE / "job.py"
# name, scenario, bad rank, ranks, extra flags, extra environment
SCENARIOS: tuple[tuple[str, str, int, int, list[str], dict[str, str]], ...] = (
    ("skip", "skip", 2, 4, [], {}),
    ("reorder", "reorder", 1, 4, [], {}),
    ("size", "size", 3, 4, [], {}),
    ("sleep", "sleep", 5, 6, [], {}),
    ("die", "die", 1, 4, [], {}),
    ("skip-json", "skip", 0, 4, ["--json"], {}),
    ("skip-8", "skip", 6, 8, [], {}),
    ("reorder-detail", "reorder", 2, 4, [], {"TORCH_DISTRIBUTED_DEBUG": "DETAIL"}),
)


def _scrub_text(text: str, tmp: str) -> str:
    text = text.replace(tmp, "/tmp/run")
    text = text.replace(str(HERE), "/workspace/job")
    text = text.replace(sys.prefix, "/opt/venv")
    text = re.sub(r"/work/[\w/.-]*?/site-packages", "/opt/venv/lib/python3.11/site-packages", text)
    host = os.uname().nodename
    return text.replace(host, "trainer-01") if host else text


def _scrub(value: Any, tmp: str) -> Any:
    if isinstance(value, str):
        return _scrub_text(value, tmp)
    if isinstance(value, dict):
        return {k: _scrub(v, tmp) for k, v in value.items()}
    if isinstance(value, list):
        return [_scrub(v, tmp) for v in value]
    if isinstance(value, tuple):
        return tuple(_scrub(v, tmp) for v in value)
    return value


def main() -> None:
    wanted = set(sys.argv[1:])
    for name, scenario, bad, nproc, flags, extra_env in SCENARIOS:
        if wanted and name not in wanted:
            continue
        with tempfile.TemporaryDirectory() as tmp:
            cmd = [sys.executable, "-m", "torch.distributed.run", "--standalone", f"--nproc-per-node={nproc}", str(JOB),
                   "--scenario", scenario, "--bad-rank", str(bad), "--dump-dir", "fr_dumps", *flags]
            env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONUNBUFFERED": "1", "TORCH_FR_BUFFER_SIZE": "64", **extra_env}
            run = subprocess.run(cmd, cwd=tmp, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300)
            target = OUT / name
            shutil.rmtree(target, ignore_errors=True)
            (target / "fr_dumps").mkdir(parents=True)
            shown_env = " ".join(f"{k}={v}" for k, v in {"TORCH_FR_BUFFER_SIZE": "64", **extra_env}.items())
            console = (f"$ {shown_env} torchrun --standalone --nproc-per-node {nproc} job.py --scenario {scenario} "
                       f"--bad-rank {bad} --dump-dir fr_dumps{' --json' if flags else ''}\n")
            (target / "console.log").write_text(_scrub_text(console + run.stdout, tmp))
            for dump in sorted((Path(tmp) / "fr_dumps").glob("rank_*")):
                if dump.suffix == ".json":
                    data = json.loads(dump.read_text())
                    (target / "fr_dumps" / dump.name).write_text(json.dumps(_scrub(data, tmp), indent=1) + "\n")
                else:
                    data = pickle.loads(dump.read_bytes())  # our own job's dump, just written (not untrusted input)
                    (target / "fr_dumps" / dump.name).write_bytes(pickle.dumps(_scrub(data, tmp)))
            (target / "scenario.json").write_text(json.dumps(
                {"scenario": scenario, "bad_rank": bad, "world_size": nproc, "exit_code": run.returncode,
                 "env": {"TORCH_FR_BUFFER_SIZE": "64", **extra_env}, "flags": flags}, indent=2) + "\n")
        print(f"{name}: rc={run.returncode}, dumps={sorted(p.name for p in (OUT / name / 'fr_dumps').iterdir())}")


if __name__ == "__main__":
    main()
