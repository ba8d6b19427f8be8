"""Eval cases of a launcher stopped by a signal (issue 17): real torchrun jobs with gloo on CPU (torch 2.13.0).

A training job runs under torchrun; after a few seconds torchrun's agent gets SIGHUP, as when the SSH session or
terminal it was started from closes. On one node the agent stops every rank; on two nodes (two agents on this
machine, c10d rendezvous) node 0's agent stops ranks 0-1 and node 1's ranks then see their peers vanish. The cases'
expected ranks follow from what was done (which agent was signalled), written before crashdoc ran on them.

Usage:  python evals/generators/ranks_signal.py [--out DIR] [--capture]
Without --capture only the case.yaml files are rewritten and the captured logs are kept.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import Case, parser, write_case

JOB = '''\
import time
import torch
import torch.distributed as dist

dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()
print(f"[rank {rank}] world {world}, gloo, torch {torch.__version__}", flush=True)
t = torch.ones(1024)
for step in range(100000):
    dist.all_reduce(t)
    t.div_(world)
    if rank == 0 and step % 50 == 0:
        print(f"step {step} | mean {t.mean().item():.4f}", flush=True)
    time.sleep(0.02)
'''

ONE_NODE = Case(
    case_id="sighup-session-hangup-torchrun-gloo-4rank-04",
    label="sighup-session-hangup", difficulty="medium",
    description="Real run (torch 2.13.0, gloo, CPU): torchrun --standalone with 4 ranks started in a shell that then "
                "hung up; the agent logs 'Received 1 death signal, shutting down workers', SIGHUPs its 4 workers and "
                "dies of SignalException. Every rank was stopped together by its own launcher.",
    initiating_rank=[0, 1, 2, 3],
    facts={"launcher": "torchrun", "torch_version": "2.13.0"},
    must_mention=["SIGHUP"])
TWO_NODES = Case(
    case_id="sighup-session-hangup-two-agents-gloo-05",
    label="sighup-session-hangup", difficulty="hard",
    description="Real run (torch 2.13.0, gloo, CPU): two torchrun agents (--nnodes 2, c10d rendezvous, 2 ranks each); "
                "node 0's agent gets SIGHUP and stops ranks 0-1; node 1's ranks 2-3 then fail in all_reduce as their "
                "peers vanish (collateral) and node 1's agent reports them.",
    initiating_rank=[0, 1],
    facts={"launcher": "torchrun", "torch_version": "2.13.0"},
    must_mention=["SIGHUP"])


def _scrub(text: str, tmp: str) -> str:
    text = text.replace(tmp, "/home/ml/jobs/allreduce")
    text = re.sub(re.escape(sys.prefix), "/opt/venv", text)
    text = re.sub(r"/work/[\w/.-]*?/site-packages", "/opt/venv/lib/python3.11/site-packages", text)
    host = os.uname().nodename
    return text.replace(host, "trainer-01") if host else text


def _torchrun(args: list[str], log: Path, cwd: str) -> subprocess.Popen[bytes]:
    torchrun = str(Path(sys.executable).with_name("torchrun"))
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    return subprocess.Popen([torchrun, *args, "job.py"], cwd=cwd, stdout=log.open("wb"), stderr=subprocess.STDOUT, env=env)


def _wait_for_training(log: Path, timeout: float = 180) -> None:
    """Until rank 0 has printed a few steps: the signal comes in the middle of training, not at start-up."""
    deadline = time.monotonic() + timeout
    while "step 100 " not in log.read_text("utf-8", "replace"):
        if time.monotonic() > deadline:
            raise RuntimeError(f"{log}: training did not start")
        time.sleep(0.5)


def _capture_one_node(tmp: str) -> dict[str, str]:
    log = Path(tmp) / "console.log"
    agent = _torchrun(["--standalone", "--nproc-per-node", "4"], log, tmp)
    _wait_for_training(log)
    agent.send_signal(signal.SIGHUP)
    agent.wait(timeout=60)
    command = "$ torchrun --standalone --nproc-per-node 4 job.py\n"
    return {"console.log": command + _scrub(log.read_text("utf-8", "replace"), tmp)}


def _capture_two_nodes(tmp: str) -> dict[str, str]:
    common = ["--nnodes", "2", "--nproc-per-node", "2", "--rdzv-backend", "c10d", "--rdzv-endpoint", "127.0.0.1:29651",
              "--rdzv-id", "allreduce-0412"]
    logs = [Path(tmp) / "node0.log", Path(tmp) / "node1.log"]
    agents = [_torchrun([*common, "--node-rank", str(n)], logs[n], tmp) for n in (0, 1)]
    _wait_for_training(logs[0])
    agents[0].send_signal(signal.SIGHUP)
    for a in agents:
        a.wait(timeout=120)
    out = {}
    for n, log in enumerate(logs):
        command = f"$ torchrun {' '.join(common)} --node-rank {n} job.py > node{n}.log 2>&1 &\n"
        out[f"node{n}.log"] = command + _scrub(log.read_text("utf-8", "replace"), tmp)
    return out


def main() -> None:
    ap = parser(__doc__)
    ap.add_argument("--capture", action="store_true", help="rerun the real jobs and store what they print")
    args = ap.parse_args()
    for case, run in ((ONE_NODE, _capture_one_node), (TWO_NODES, _capture_two_nodes)):
        if args.capture:
            with tempfile.TemporaryDirectory() as tmp:
                Path(tmp, "job.py").write_text(JOB, encoding="utf-8")
                case.files = run(tmp)
        write_case(args.out, case)
        print("wrote", case.case_id)


if __name__ == "__main__":
    main()
