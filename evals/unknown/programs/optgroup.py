import torch, torch.nn as nn, os
class Net(nn.Module):
    def __init__(self, extra=False):
        super().__init__()
        self.enc = nn.Linear(16, 32); self.dec = nn.Linear(32, 16)
        if extra: self.proj = nn.Linear(32, 32)
net = Net()
opt = torch.optim.AdamW(net.parameters(), lr=1e-3)
net(torch.randn(2,16)) if False else None
loss = net.dec(net.enc(torch.randn(2, 16))).sum(); loss.backward(); opt.step()
torch.save({"model": net.state_dict(), "optimizer": opt.state_dict(), "step": 12000}, "/home/ml/proj/ckpt/last.pt")
net2 = Net(extra=True)
opt2 = torch.optim.AdamW(net2.parameters(), lr=1e-3)
ck = torch.load("/home/ml/proj/ckpt/last.pt")
net2.load_state_dict(ck["model"], strict=False)
print(f"resuming from step {ck['step']}")
opt2.load_state_dict(ck["optimizer"])
