"""A small data-parallel job on CPU (gloo) that hangs on purpose, with PyTorch's Flight Recorder on.

    TORCH_FR_BUFFER_SIZE=64 torchrun --nproc-per-node 4 job.py --scenario skip --bad-rank 2 --dump-dir fr_dumps

Every rank all-reduces its gradients each step. At step 3 the bad rank misbehaves as --scenario says:

- skip:     it skips one all_reduce (a rank-dependent `if` around a collective); the others wait in it
- reorder:  it calls broadcast where the others call all_reduce (collectives issued in another order)
- size:     it all-reduces a tensor of another size (a ragged last batch)
- sleep:    it sleeps past the timeout (a stuck data loader); the others wait in the all_reduce
- die:      it is killed by SIGKILL (the OOM killer), printing nothing and leaving no dump

When a collective times out, each rank writes its Flight Recorder buffer the way the PyTorch docs show
(``torch._C._distributed_c10d._dump_fr_trace()``, a pickle, or ``_dump_fr_trace_json()`` with --json) to
<dump-dir>/rank_<N> (rank_<N>.json), then re-raises.
"""

from __future__ import annotations

import argparse
import os
import signal
import time
from datetime import timedelta
from pathlib import Path

import torch
import torch.distributed as dist


def dump_flight_recorder(dump_dir: Path, rank: int, as_json: bool) -> None:
    """What the Flight Recorder docs show for a backend without dump-on-timeout: write the rank's buffer."""
    dump_dir.mkdir(parents=True, exist_ok=True)
    if as_json:
        (dump_dir / f"rank_{rank}.json").write_bytes(torch._C._distributed_c10d._dump_fr_trace_json())
    else:
        (dump_dir / f"rank_{rank}").write_bytes(torch._C._distributed_c10d._dump_fr_trace())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scenario", choices=("skip", "reorder", "size", "sleep", "die"), required=True)
    parser.add_argument("--bad-rank", type=int, default=2)
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--timeout", type=int, default=8)
    parser.add_argument("--dump-dir", default="fr_dumps")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    dist.init_process_group("gloo", timeout=timedelta(seconds=args.timeout))
    rank, world = dist.get_rank(), dist.get_world_size()
    print(f"rank {rank}/{world}: torch {torch.__version__}, backend gloo, pid {os.getpid()}", flush=True)
    grads = torch.full((4096,), float(rank))
    try:
        for step in range(args.steps):
            bad = rank == args.bad_rank and step == 3
            if bad and args.scenario == "sleep":
                time.sleep(args.timeout * 3)
            if bad and args.scenario == "die":
                os.kill(os.getpid(), signal.SIGKILL)
            if bad and args.scenario == "skip":
                pass  # this rank never enters the step's all_reduce
            elif bad and args.scenario == "reorder":
                dist.broadcast(grads, src=0)
            elif bad and args.scenario == "size":
                dist.all_reduce(grads[:1000])
            else:
                dist.all_reduce(grads)
            grads /= world
            print(f"step {step} | loss {1.0 / (step + 1):.4f} | rank {rank}", flush=True)
        dist.barrier()
    except RuntimeError:
        dump_flight_recorder(Path(args.dump_dir), rank, args.json)
        raise
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
