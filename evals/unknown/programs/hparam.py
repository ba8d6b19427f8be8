import yaml, torch, torch.nn as nn
cfg = yaml.safe_load("""
model:
  hidden: 256
optim:
  lr: 1e-4
  weight_decay: 0.01
  betas: [0.9, 0.95]
""")
print("config:", cfg)
model = nn.Linear(cfg["model"]["hidden"], 2)
opt = torch.optim.AdamW(model.parameters(), lr=cfg["optim"]["lr"], weight_decay=cfg["optim"]["weight_decay"], betas=tuple(cfg["optim"]["betas"]))
