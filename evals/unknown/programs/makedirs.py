import os, torch.distributed as dist
def main():
    dist.init_process_group("gloo"); rank = dist.get_rank()
    out = "/shared/runs/exp42"
    if rank == 0 and not os.path.exists(out):
        os.makedirs(out)
    dist.barrier()
    if not os.path.isdir(os.path.join(out, "ckpt")) or rank >= 0:
        os.makedirs(os.path.join(out, "ckpt")) if rank == 0 else None
    dist.barrier()
    os.makedirs(os.path.join(out, "ckpt"))
if __name__ == "__main__":
    main()
