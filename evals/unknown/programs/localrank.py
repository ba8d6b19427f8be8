import argparse, os, torch.distributed as dist
p = argparse.ArgumentParser()
p.add_argument("--local_rank", type=int, default=0)
p.add_argument("--cfg", default="configs/deeplab.yaml")
args = p.parse_args()
dist.init_process_group("gloo")
