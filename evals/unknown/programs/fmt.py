import torch, torch.nn as nn, logging
logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
log = logging.getLogger("train")
model = nn.Linear(10, 3)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(1, 301):
    x = torch.randn(4, 10); y = torch.randint(0, 3, (4,))
    losses = nn.functional.cross_entropy(model(x), y, reduction="none")
    losses.mean().backward(); opt.step(); opt.zero_grad()
    if step % 100 == 0:
        log.info(f"step {step} loss {losses:.4f}")
