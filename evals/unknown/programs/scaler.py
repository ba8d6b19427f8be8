import torch, torch.nn as nn
model = nn.Linear(16, 4).half()
opt = torch.optim.SGD(model.parameters(), lr=0.01)
scaler = torch.amp.GradScaler("cpu")
x = torch.randn(8, 16).half(); y = torch.randint(0, 4, (8,))
loss = nn.functional.cross_entropy(model(x).float(), y)
scaler.scale(loss).backward()
scaler.unscale_(opt)
scaler.step(opt); scaler.update()
