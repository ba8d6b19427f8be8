import torch, torch.nn as nn
from torch.utils.data import TensorDataset, DataLoader
torch.manual_seed(0)
EPOCHS_PLANNED, EPOCHS = 3, 4   # --epochs raised to 4 on the command line; the schedule was sized in the config
ds = TensorDataset(torch.randn(640, 32), torch.randint(0, 4, (640,)))
dl = DataLoader(ds, batch_size=64, shuffle=True)
model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 4))
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.5, total_steps=EPOCHS_PLANNED * len(dl))
for epoch in range(EPOCHS):
    for i, (x, y) in enumerate(dl):
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad(); loss.backward(); opt.step(); sched.step()
    print(f"epoch {epoch} loss {loss.item():.4f} lr {sched.get_last_lr()[0]:.5f}", flush=True)
