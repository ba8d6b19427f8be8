import torch
from torch.utils.data import DataLoader, TensorDataset
def main():
    ds = TensorDataset(torch.randn(64, 3))
    pad = 0
    dl = DataLoader(ds, batch_size=8, num_workers=2, multiprocessing_context="spawn",
                    collate_fn=lambda b: torch.stack([x[0] for x in b]) + pad)
    for batch in dl:
        print(batch.shape)
if __name__ == "__main__":
    main()
