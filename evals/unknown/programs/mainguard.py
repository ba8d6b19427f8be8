import multiprocessing as mp
import torch
def tokenize(shard):
    return [len(s) for s in shard]
ctx = mp.get_context("spawn")
shards = [["a b c"] * 10 for _ in range(4)]
with ctx.Pool(2) as pool:
    lens = pool.map(tokenize, shards)
print(lens)
