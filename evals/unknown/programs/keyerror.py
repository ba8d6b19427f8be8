import torch, torch.nn as nn, torch.distributed as dist
from torch.utils.data import Dataset, DataLoader
from torch.utils.data.distributed import DistributedSampler
class JsonlPairs(Dataset):
    def __init__(self, n, rank):
        self.rows = [{"input_ids": torch.randint(0, 100, (16,)), "label": i % 3} for i in range(n)]
    def __len__(self): return len(self.rows)
    def __getitem__(self, i): return self.rows[i]
def main():
    dist.init_process_group("gloo"); rank = dist.get_rank()
    ds = JsonlPairs(64, rank)
    dl = DataLoader(ds, batch_size=8, sampler=DistributedSampler(ds))
    model = nn.Sequential(nn.Embedding(100, 32), nn.Flatten(), nn.Linear(16*32, 3))
    model = nn.parallel.DistributedDataParallel(model)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for step, batch in enumerate(dl):
        logits = model(batch["input_ids"])
        loss = nn.functional.cross_entropy(logits, batch["labels"])
        loss.backward(); opt.step(); opt.zero_grad()
        if rank == 0: print(f"step {step} loss {loss.item():.4f}")
if __name__ == "__main__":
    main()
