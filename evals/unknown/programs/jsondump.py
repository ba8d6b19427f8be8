import json, os, torch, torch.nn as nn, torch.distributed as dist
def main():
    dist.init_process_group("gloo"); rank = dist.get_rank()
    model = nn.parallel.DistributedDataParallel(nn.Linear(8, 2))
    correct = torch.tensor(0.0); total = 0
    for _ in range(5):
        x = torch.randn(16, 8); y = torch.randint(0, 2, (16,))
        with torch.no_grad():
            correct += (model(x).argmax(-1) == y).sum(); total += 16
    dist.all_reduce(correct)
    acc = correct / (total * dist.get_world_size())
    if rank == 0:
        print(f"eval accuracy {acc.item():.4f}")
        os.makedirs("/home/ml/proj/outputs", exist_ok=True)
        with open("/home/ml/proj/outputs/metrics.json", "w") as f:
            json.dump({"epoch": 3, "accuracy": acc}, f)
    dist.barrier()
if __name__ == "__main__":
    main()
