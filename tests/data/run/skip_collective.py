"""A real hang on CPU (gloo): rank 2 skips the step-2 all_reduce, so it reaches the final barrier while the others
still wait in that all_reduce, until the gloo timeout (argv[1] seconds) kills the run. Run it under torchrun."""

import sys
from datetime import timedelta

import torch
import torch.distributed as dist

dist.init_process_group("gloo", timeout=timedelta(seconds=int(sys.argv[1])))
rank = dist.get_rank()
x = torch.ones(8)
for step in range(4):
    if not (rank == 2 and step == 2):  # a rank-dependent branch around a collective
        dist.all_reduce(x)
    print(f"step {step} rank {rank}", flush=True)
dist.barrier()
