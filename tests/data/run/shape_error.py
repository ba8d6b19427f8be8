"""A real failing run on CPU (gloo): rank 1 multiplies mismatched shapes after the first all_reduce; the other rank
then loses its peer in the next one. Run it under torchrun with 2 ranks."""

import torch
import torch.distributed as dist

dist.init_process_group("gloo")
rank = dist.get_rank()
x = torch.ones(4)
dist.all_reduce(x)
print(f"rank {rank}: step 0 ok", flush=True)
if rank == 1:
    y = torch.zeros(3, 4) @ torch.zeros(5, 2)
dist.all_reduce(x)
