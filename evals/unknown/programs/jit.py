import torch, torch.nn as nn
class Block(nn.Module):
    def __init__(self):
        super().__init__(); self.lin = nn.Linear(8, 8)
    def forward(self, x, *extra):
        for e in extra:
            x = x + e
        return self.lin(x)
m = torch.jit.script(Block())
