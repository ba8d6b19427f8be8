import torch, torch.nn as nn, torch.distributed as dist
from torch.utils.data import TensorDataset, DataLoader
from torch.utils.data.distributed import DistributedSampler
def main():
    dist.init_process_group("gloo"); rank = dist.get_rank()
    x = torch.randn(256, 20); y = torch.randint(0, 4, (256,)); w = torch.rand(256)
    ds = TensorDataset(x, y, w)  # sample weights added last week
    dl = DataLoader(ds, batch_size=32, sampler=DistributedSampler(ds))
    model = nn.parallel.DistributedDataParallel(nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 4)))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(2):
        for inputs, targets in dl:
            loss = nn.functional.cross_entropy(model(inputs), targets)
            opt.zero_grad(); loss.backward(); opt.step()
if __name__ == "__main__":
    main()
