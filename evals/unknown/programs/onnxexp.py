import torch, torch.nn as nn
class M(nn.Module):
    def forward(self, x):
        return torch.fft.rfft(x).abs()
torch.onnx.export(M(), (torch.randn(1, 64),), "/home/ml/proj/export/model.onnx", opset_version=17, dynamo=False)
