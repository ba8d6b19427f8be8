"""A small data-parallel job on CPU (gloo) that fails on purpose on one rank.

    torchrun --nproc_per_node=4 job.py --scenario raise --bad-rank 2

Every rank all-reduces a tensor each step. At step 3 the bad rank fails in the way --scenario says while the
others block in the next all-reduce until the process group's short timeout (--timeout seconds) expires:

- raise:   the bad rank raises a Python exception (a data error)
- sigkill: the bad rank is killed by SIGKILL (what the OOM killer or a scheduler does), printing nothing
- hang:    the bad rank stops participating (sleeps past the timeout); the others time out waiting for it
"""

from __future__ import annotations

import argparse
import os
import signal
import time
from datetime import timedelta

import torch
import torch.distributed as dist
from torch.distributed.elastic.multiprocessing.errors import record


@record
def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scenario", choices=("raise", "sigkill", "hang"), required=True)
    parser.add_argument("--bad-rank", type=int, default=2)
    parser.add_argument("--steps", type=int, default=6)
    parser.add_argument("--timeout", type=int, default=10)
    args = parser.parse_args()

    dist.init_process_group("gloo", timeout=timedelta(seconds=args.timeout))
    rank, world = dist.get_rank(), dist.get_world_size()
    print(f"rank {rank}/{world}: torch {torch.__version__}, backend gloo, pid {os.getpid()}", flush=True)
    weights = torch.full((1024,), float(rank))
    for step in range(args.steps):
        if rank == args.bad_rank and step == 3:
            if args.scenario == "raise":
                raise ValueError(f"sample 8123 of shard 7 has 3 labels, expected 2 (step {step})")
            if args.scenario == "sigkill":
                os.kill(os.getpid(), signal.SIGKILL)
            if args.scenario == "hang":
                time.sleep(args.timeout * 3)
        dist.all_reduce(weights)
        weights /= world
        print(f"step {step} | loss {1.0 / (step + 1):.4f} | rank {rank}", flush=True)
        time.sleep(0.2)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
