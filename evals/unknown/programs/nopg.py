import os, torch, torch.nn as nn
import torch.distributed as dist
from torch.utils.data import TensorDataset, DataLoader
from torch.utils.data.distributed import DistributedSampler
def main():
    local_rank = int(os.environ.get("LOCAL_RANK", 0))
    print(f"local rank {local_rank} starting", flush=True)
    ds = TensorDataset(torch.randn(64, 4))
    sampler = DistributedSampler(ds)
    dist.init_process_group("gloo")
if __name__ == "__main__":
    main()
