import torch, torch.distributed as dist
from torch.utils.data import TensorDataset, DataLoader
from torch.utils.data.distributed import DistributedSampler
def main():
    dist.init_process_group("gloo")
    ds = TensorDataset(torch.randn(100, 4))
    dl = DataLoader(ds, batch_size=10, shuffle=True, sampler=DistributedSampler(ds), num_workers=2)
if __name__ == "__main__":
    main()
