"""Regenerate the real multi-rank logs in tests/data/multirank/ by running failing jobs under torchrun on CPU.

    .venv/bin/python tests/data/multirank/gen/generate.py

Each scenario is captured twice: the console of ``torchrun --tee 3`` (one interleaved stream with
``[default3]:`` prefixes) and the per-rank files of ``torchrun --log-dir D --redirects 3`` (with torchrun's
error.json files from ``@record``), next to a ``scenario.json`` that records what was run and which rank
failed on purpose. Machine-specific paths are replaced so the files do not depend on where they were made.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE.parent
JOB = HERE / "job.py"
SCENARIOS = (("raise", 2), ("sigkill", 1), ("hang", 3))
NPROC = 4


def _scrub(text: str, tmp: str) -> str:
    """Paths and host names of the machine that ran the job become neutral ones."""
    text = text.replace(tmp, "/tmp/run")
    text = text.replace(str(HERE), "/workspace/job")
    text = text.replace(sys.prefix, "/opt/venv")
    text = re.sub(r"/work/[\w/.-]*?/site-packages", "/opt/venv/lib/python3.11/site-packages", text)
    host = os.uname().nodename
    return text.replace(host, "trainer-01") if host else text


def _torchrun(extra: list[str], scenario: str, bad: int, cwd: str) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "torch.distributed.run", "--standalone", f"--nproc_per_node={NPROC}", *extra,
           str(JOB), "--scenario", scenario, "--bad-rank", str(bad)]
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONUNBUFFERED": "1", "LOGLEVEL": "INFO"}
    # one pipe for both streams: the interleaving a terminal (or a job's log file) shows
    return subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300)


def main() -> None:
    for scenario, bad in SCENARIOS:
        with tempfile.TemporaryDirectory() as tmp:
            tee = _torchrun(["--tee", "3"], scenario, bad, tmp)
            console = f"$ torchrun --standalone --nproc_per_node={NPROC} --tee 3 job.py --scenario {scenario} --bad-rank {bad}\n"
            target = OUT / f"{scenario}-tee"
            shutil.rmtree(target, ignore_errors=True)
            target.mkdir(parents=True)
            (target / "console.log").write_text(_scrub(console + tee.stdout, tmp))
            (target / "scenario.json").write_text(json.dumps(
                {"scenario": scenario, "initiating_rank": bad, "world_size": NPROC, "launcher": "torchrun --tee 3",
                 "exit_code": tee.returncode}, indent=2) + "\n")

            logdir = Path(tmp) / "logs"
            red = _torchrun(["--log-dir", str(logdir), "--redirects", "3"], scenario, bad, tmp)
            target = OUT / f"{scenario}-logdir"
            shutil.rmtree(target, ignore_errors=True)
            target.mkdir(parents=True)
            console = f"$ torchrun --standalone --nproc_per_node={NPROC} --log-dir logs --redirects 3 job.py --scenario {scenario} --bad-rank {bad}\n"
            (target / "console.log").write_text(_scrub(console + red.stdout, tmp))
            for f in sorted(logdir.rglob("*")):
                if f.is_file() and f.suffix in (".log", ".json"):
                    rel = f.relative_to(logdir)
                    # "<run_id>_<random>/attempt_0/3/stderr.log" -> "run/attempt_0/3/stderr.log"
                    parts = ("run", *rel.parts[1:]) if len(rel.parts) > 1 else rel.parts
                    dest = target.joinpath(*parts)
                    dest.parent.mkdir(parents=True, exist_ok=True)
                    dest.write_text(_scrub(f.read_text(), tmp))
            (target / "scenario.json").write_text(json.dumps(
                {"scenario": scenario, "initiating_rank": bad, "world_size": NPROC,
                 "launcher": "torchrun --log-dir --redirects 3", "exit_code": red.returncode}, indent=2) + "\n")
        print(f"{scenario}: tee rc={tee.returncode}, log-dir rc={red.returncode}")


if __name__ == "__main__":
    main()
