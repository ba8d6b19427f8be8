import copy, torch, torch.nn as nn
class ModelWrapper:
    def __init__(self, module):
        self.module = module
    def __getattr__(self, name):
        return getattr(self.module, name)
model = ModelWrapper(nn.Linear(4, 4))
print("params:", sum(p.numel() for p in model.parameters()))
ema = copy.deepcopy(model)
