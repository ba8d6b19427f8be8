import torch, torch.nn as nn, torch.distributed as dist
def main():
    dist.init_process_group("gloo"); rank = dist.get_rank()
    model = nn.parallel.DistributedDataParallel(nn.Linear(16, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for step in range(20):
        x = torch.randn(8, 16); y = torch.randn(8, 1)
        err = (model(x) - y).abs()
        if step == 7 and rank == 2:
            err = err.squeeze(1)
        # skip outliers
        if err.max() > 50:
            continue
        loss = err.mean() if err.dim() > 1 else err
        if loss > 3.0:
            print(f"rank {rank} step {step}: large loss")
        opt.zero_grad(); loss.mean().backward(); opt.step()
        if rank == 0 and step % 5 == 0:
            print(f"step {step} loss {loss.item():.4f}", flush=True)
if __name__ == "__main__":
    main()
