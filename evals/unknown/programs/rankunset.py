import torch.distributed as dist
def main():
    dist.init_process_group(backend="gloo", init_method="env://")
    print("rank", dist.get_rank())
if __name__ == "__main__":
    main()
