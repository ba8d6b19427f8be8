import torch, torch.nn as nn
from torch.utils.data import TensorDataset, DataLoader
torch.manual_seed(0)
ds = TensorDataset(torch.randn(1025, 64), torch.randint(0, 10, (1025,)))
dl = DataLoader(ds, batch_size=64, shuffle=True)
model = nn.Sequential(nn.Linear(64, 128), nn.BatchNorm1d(128), nn.ReLU(), nn.Linear(128, 10))
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
for epoch in range(1):
    for i, (x, y) in enumerate(dl):
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad(); loss.backward(); opt.step()
        if i % 4 == 0:
            print(f"epoch {epoch} iter {i}/{len(dl)} loss {loss.item():.4f}", flush=True)
