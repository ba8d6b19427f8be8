import torch
from torch.utils.data import Dataset, DataLoader
class Filtered(Dataset):
    def __init__(self, rows, max_len):
        self.rows = [r for r in rows if len(r) <= max_len]
        print(f"kept {len(self.rows)} of {len(rows)} examples with max_len={max_len}")
    def __len__(self): return len(self.rows)
    def __getitem__(self, i): return torch.tensor(self.rows[i])
rows = [[1] * (600 + i) for i in range(500)]
ds = Filtered(rows, max_len=512)
dl = DataLoader(ds, batch_size=8, shuffle=True)
for b in dl:
    pass
