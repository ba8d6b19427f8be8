import torch, torch.nn as nn, torch.distributed as dist
def main():
    dist.init_process_group("gloo"); rank = dist.get_rank()
    backbone = nn.Sequential(nn.Linear(128, 256), nn.GELU(), nn.Linear(256, 256))
    head = nn.Linear(256, 10)
    model = nn.Sequential(backbone, head)
    for p in model.parameters():
        p.requires_grad = False  # freeze the backbone
    trainable = [p for p in model.parameters() if p.requires_grad]
    print(f"[rank {rank}] trainable params: {sum(p.numel() for p in trainable)}")
    opt = torch.optim.AdamW(trainable, lr=3e-4, weight_decay=0.01)
if __name__ == "__main__":
    main()
