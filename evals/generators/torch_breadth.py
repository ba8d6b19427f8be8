#!/usr/bin/env python3
"""Write the eval cases of the kb-torch breadth entries (torch.distributed set-up, DeviceMesh and torchtitan's
parallel degrees, Dynamo's recompile limit).

Captured cases where CPU PyTorch reproduces the failure: small programs in ``REAL`` run for real with the
repository's venv (``python`` or ``torchrun`` with gloo), their output kept as the log with only machine paths
rewritten (evals/generators/torch_kb.py's capture). Written cases (``WRITTEN``) are logs of GPU jobs, written as
the tools print them (the messages checked against the released wheels named in each entry).

Usage:  python evals/generators/torch_breadth.py [--out DIR] [--only SUBSTRING] [--capture]
Output: evals/cases/<case-id>/{case.yaml, *.log}
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import Case, dedent, parser, write_case
from model import RealProgram
from torch_kb import capture


def _case(case_id: str, label: str, difficulty: str, description: str, facts: dict[str, str],
          must_mention: list[str], files: dict[str, str] | None = None,
          initiating_rank: int | list[int] | None = None) -> Case:
    return Case(case_id=case_id, label=label, difficulty=difficulty, description=description,
                initiating_rank=initiating_rank, facts=facts, must_mention=must_mention, files=files or {})


SITE = "/home/{user}/venvs/train/lib/python3.11/site-packages"
REAL: list[RealProgram] = []
WRITTEN: list[Case] = []


def real(case: Case, command: str, script_name: str, source: str, log_name: str, home: str, user: str,
         setup: str = "", argv: list[str] | None = None, env_report: bool = False) -> None:
    REAL.append(RealProgram(case, command, script_name, textwrap.dedent(source).lstrip(), log_name, home,
                            SITE.format(user=user), setup=textwrap.dedent(setup).lstrip(), argv=argv or [],
                            env_report=env_report))


# ------------------------------------------------------------------------ dist-default-pg-not-initialized
# (the first case of this entry is evals/unknown's unknown-real-sampler-before-init-process-group-01, moved)

real(
    _case("dist-default-pg-not-initialized-ddp-flag-off-torchrun-02", "dist-default-pg-not-initialized", "easy",
          "2-rank gloo torchrun of a script that only calls init_process_group under --distributed; the job "
          "command lacks the flag, so DistributedDataParallel finds no default process group on either rank",
          {"torch_version": "2.13.0", "launcher": "torchrun", "world_size": "2"}, ["init_process_group"],
          initiating_rank=[0, 1]),
    "torchrun:2", "train_cls.py", '''
    """Image-feature classifier; multi-GPU with --distributed (gloo smoke test of the cluster job)."""
    import argparse
    import os

    import torch
    import torch.distributed as dist
    import torch.nn as nn
    from torch.nn.parallel import DistributedDataParallel as DDP

    ap = argparse.ArgumentParser()
    ap.add_argument("--distributed", action="store_true")
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--lr", type=float, default=1e-3)
    args = ap.parse_args()

    local_rank = int(os.environ.get("LOCAL_RANK", 0))
    if args.distributed:
        dist.init_process_group("gloo")
    print(f"[local_rank {local_rank}] epochs={args.epochs} lr={args.lr} distributed={args.distributed}", flush=True)
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(512, 256), nn.ReLU(), nn.Linear(256, 10))
    model = DDP(model)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr)
    for epoch in range(args.epochs):
        x, y = torch.randn(64, 512), torch.randint(0, 10, (64,))
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    ''', "train.log", "/home/ines/cls", "ines", argv=["--epochs", "3", "--lr", "3e-4"])

real(
    _case("dist-default-pg-not-initialized-eval-barrier-python-03", "dist-default-pg-not-initialized", "medium",
          "a single-process evaluation run with plain python of a module shared with the torchrun training job: "
          "its metric reduction calls dist.all_reduce and dist.barrier, and nothing ever initialised a process "
          "group", {"torch_version": "2.13.0", "launcher": "python"}, ["init_process_group"]),
    "python", "evaluate.py", '''
    """Evaluate a checkpointed classifier on the held-out split (reuses the training job's metric code)."""
    import time

    import torch
    import torch.distributed as dist
    import torch.nn as nn


    def reduce_mean(value: torch.Tensor) -> torch.Tensor:
        """Average a metric over the data-parallel ranks (copied from train_ddp.py)."""
        value = value.clone()
        dist.all_reduce(value, op=dist.ReduceOp.SUM)
        return value / dist.get_world_size()


    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(128, 64), nn.ReLU(), nn.Linear(64, 5)).eval()
    t0 = time.time()
    correct = total = 0
    with torch.no_grad():
        for batch in range(20):
            x, y = torch.randn(32, 128), torch.randint(0, 5, (32,))
            correct += (model(x).argmax(-1) == y).sum().item()
            total += y.numel()
    print(f"evaluated {total} samples in {time.time() - t0:.1f}s", flush=True)
    acc = reduce_mean(torch.tensor(correct / total))
    dist.barrier()
    print(f"accuracy {acc.item():.4f}")
    ''', "eval.log", "/home/ines/cls", "ines")


# ------------------------------------------------------------------------------------------ dist-init-twice

real(
    _case("dist-init-twice-helper-and-main-torchrun-01", "dist-init-twice", "easy",
          "2-rank gloo torchrun: the script calls init_process_group itself and then a project helper "
          "(setup_distributed) calls it again, so every rank refuses the second default group",
          {"torch_version": "2.13.0", "launcher": "torchrun", "world_size": "2"}, ["init_process_group"]),
    "torchrun:2", "pretrain.py", '''
    """Tiny LM pre-training entry point (gloo smoke test of the multi-node job)."""
    import os

    import torch
    import torch.distributed as dist
    import torch.nn as nn


    def setup_distributed(backend: str = "gloo") -> tuple[int, int]:
        """The project's shared set-up helper (utils/dist.py in the repo)."""
        dist.init_process_group(backend=backend)
        rank, world = dist.get_rank(), dist.get_world_size()
        torch.manual_seed(1234 + rank)
        return rank, world


    def main() -> None:
        dist.init_process_group("gloo")
        print(f"rank {dist.get_rank()} of {dist.get_world_size()} up", flush=True)
        rank, world = setup_distributed()
        model = nn.TransformerEncoder(nn.TransformerEncoderLayer(64, 4, 128, batch_first=True), 2)
        if rank == 0:
            print(f"model {sum(p.numel() for p in model.parameters())} params, world {world}", flush=True)


    if __name__ == "__main__":
        main()
    ''', "pretrain.log", "/home/tomas/lm", "tomas")

real(
    _case("dist-init-twice-sweep-second-trial-torchrun-02", "dist-init-twice", "medium",
          "2-rank gloo torchrun of a learning-rate sweep that runs several trials in one process: each trial's "
          "train() calls init_process_group and none calls destroy_process_group, so the second trial fails "
          "after the first finished", {"torch_version": "2.13.0", "launcher": "torchrun", "world_size": "2"},
          ["destroy_process_group"]),
    "torchrun:2", "sweep.py", '''
    """Learning-rate sweep: one trial per value, all in the same torchrun job."""
    import torch
    import torch.distributed as dist
    import torch.nn as nn
    from torch.nn.parallel import DistributedDataParallel as DDP


    def train(lr: float, steps: int = 30) -> float:
        dist.init_process_group("gloo")
        rank = dist.get_rank()
        torch.manual_seed(0)
        model = DDP(nn.Sequential(nn.Linear(32, 64), nn.GELU(), nn.Linear(64, 1)))
        opt = torch.optim.SGD(model.parameters(), lr=lr)
        for _ in range(steps):
            x = torch.randn(16, 32)
            loss = (model(x) - x.sum(1, keepdim=True)).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        final = loss.detach()
        dist.all_reduce(final)
        return final.item() / dist.get_world_size()


    if __name__ == "__main__":
        for lr in (1e-3, 3e-3, 1e-2):
            result = train(lr)
            if dist.get_rank() == 0:
                print(f"trial lr={lr:g}: final loss {result:.4f}", flush=True)
    ''', "sweep.log", "/home/tomas/lm", "tomas")


# -------------------------------------------------------------------------------- device-mesh-exceeds-world-size

real(
    _case("device-mesh-exceeds-world-size-2d-mesh-torchrun-01", "device-mesh-exceeds-world-size", "easy",
          "2-rank gloo torchrun of an FSDP2 + tensor-parallel script whose 2-D mesh (dp=2, tp=2) asks for 4 "
          "ranks: init_device_mesh refuses it on both ranks",
          {"torch_version": "2.13.0", "launcher": "torchrun", "world_size": "2"}, ["world size"]),
    "torchrun:2", "train_2d.py", '''
    """2-D parallel (FSDP2 over dp, tensor parallel over tp) smoke test on CPU/gloo."""
    import os

    import torch
    import torch.nn as nn
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.fsdp import fully_shard

    DP, TP = 2, 2
    rank = int(os.environ["RANK"])
    if rank == 0:
        print(f"world size {os.environ['WORLD_SIZE']}, mesh dp={DP} tp={TP}", flush=True)
    mesh = init_device_mesh("cpu", (DP, TP), mesh_dim_names=("dp", "tp"))
    model = nn.Sequential(nn.Linear(256, 1024), nn.GELU(), nn.Linear(1024, 256))
    fully_shard(model, mesh=mesh["dp"])
    ''', "train.log", "/home/priya/parallel", "priya")


_TT_SITE = "/opt/conda/lib/python3.11/site-packages"


def _torchtitan_log() -> str:
    """torchtitan 0.1.0's run_train.sh on one 8-GPU node with a config written for 16 GPUs (tp=4, dp_shard=4):
    ParallelDims' assertion on every rank, shown by rank 0 (--local-ranks-filter 0) and torchrun's summary."""
    tb = dedent(f"""
    Traceback (most recent call last):
      File "<frozen runpy>", line 198, in _run_module_as_main
      File "<frozen runpy>", line 88, in _run_code
      File "/workspace/torchtitan/torchtitan/train.py", line 541, in <module>
        trainer = Trainer(config)
                  ^^^^^^^^^^^^^^^
      File "{_TT_SITE}/torch/distributed/elastic/multiprocessing/errors/__init__.py", line 357, in wrapper
        return f(*args, **kwargs)
               ^^^^^^^^^^^^^^^^^^
      File "/workspace/torchtitan/torchtitan/train.py", line 86, in __init__
        self.parallel_dims = parallel_dims = ParallelDims(
                                             ^^^^^^^^^^^^^
      File "<string>", line 10, in __init__
      File "/workspace/torchtitan/torchtitan/distributed/parallel_dims.py", line 30, in __post_init__
        self._validate()
      File "/workspace/torchtitan/torchtitan/distributed/parallel_dims.py", line 48, in _validate
        assert dp_replicate * dp_shard * cp * tp * pp == self.world_size, (
               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
    AssertionError: Invalid parallel dims: dp_replicate(1) * dp_shard(4) * cp(1) * tp(4) * pp(1) != WORLD_SIZE(8)
    """)
    rank0 = "\n".join(f"[rank0]:{ln}" for ln in tb.splitlines())
    head = dedent("""
    + NGPU=8 CONFIG_FILE=./torchtitan/models/llama3/train_configs/llama3_8b_tp4.toml ./run_train.sh
    + torchrun --nproc_per_node=8 --rdzv_backend c10d --rdzv_endpoint=localhost:0 --local-ranks-filter 0 --role rank --tee 3 -m torchtitan.train --job.config_file ./torchtitan/models/llama3/train_configs/llama3_8b_tp4.toml
    W0603 11:02:17.448000 88213 torch/distributed/run.py:766]<SP>
    W0603 11:02:17.448000 88213 torch/distributed/run.py:766] *****************************************
    W0603 11:02:17.448000 88213 torch/distributed/run.py:766] Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed.
    W0603 11:02:17.448000 88213 torch/distributed/run.py:766] *****************************************
    [rank0]:[titan] 2025-06-03 11:02:24,907 - root - INFO - Starting job: Llama 3 8B training (TP=4, FSDP=4)
    """).replace("<SP>", " ")
    summary = dedent(f"""
    E0603 11:02:27.116000 88213 torch/distributed/elastic/multiprocessing/api.py:874] failed (exitcode: 1) local_rank: 0 (pid: 88290) of binary: /opt/conda/bin/python
    Traceback (most recent call last):
      File "/opt/conda/bin/torchrun", line 8, in <module>
        sys.exit(main())
                 ^^^^^^
      File "{_TT_SITE}/torch/distributed/elastic/multiprocessing/errors/__init__.py", line 355, in wrapper
        return f(*args, **kwargs)
               ^^^^^^^^^^^^^^^^^^
      File "{_TT_SITE}/torch/distributed/run.py", line 892, in main
        run(args)
      File "{_TT_SITE}/torch/distributed/run.py", line 883, in run
        elastic_launch(
      File "{_TT_SITE}/torch/distributed/launcher/api.py", line 139, in __call__
        return launch_agent(self._config, self._entrypoint, list(args))
               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
      File "{_TT_SITE}/torch/distributed/launcher/api.py", line 270, in launch_agent
        raise ChildFailedError(
    torch.distributed.elastic.multiprocessing.errors.ChildFailedError:
    ============================================================
    torchtitan.train FAILED
    ------------------------------------------------------------
    Failures:
    """)
    others = []
    for r in range(1, 8):
        others += [f"[{r}]:",
                   "  time      : 2025-06-03_11:02:26",
                   "  host      : gpu-h100-07.cluster.local",
                   f"  rank      : {r} (local_rank: {r})",
                   f"  exitcode  : 1 (pid: {88290 + r})",
                   f"  error_file: /tmp/torchelastic_w7u2b4qf/none_h3k1s0xj/attempt_0/{r}/error.json",
                   "  traceback : Traceback (most recent call last):",
                   f"    File \"{_TT_SITE}/torch/distributed/elastic/multiprocessing/errors/__init__.py\", line 357, in wrapper",
                   "      return f(*args, **kwargs)",
                   "             ^^^^^^^^^^^^^^^^^^",
                   "    File \"/workspace/torchtitan/torchtitan/train.py\", line 86, in __init__",
                   "      self.parallel_dims = parallel_dims = ParallelDims(",
                   "                                           ^^^^^^^^^^^^^",
                   "    File \"<string>\", line 10, in __init__",
                   "    File \"/workspace/torchtitan/torchtitan/distributed/parallel_dims.py\", line 30, in __post_init__",
                   "      self._validate()",
                   "    File \"/workspace/torchtitan/torchtitan/distributed/parallel_dims.py\", line 48, in _validate",
                   "      assert dp_replicate * dp_shard * cp * tp * pp == self.world_size, (",
                   "             ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
                   "  AssertionError: Invalid parallel dims: dp_replicate(1) * dp_shard(4) * cp(1) * tp(4) * pp(1) != WORLD_SIZE(8)",
                   "",
                   "------------------------------------------------------------" if r == 7 else ""]
    others = [ln for ln in others if ln != ""]
    root = dedent("""
    Root Cause (first observed failure):
    [0]:
      time      : 2025-06-03_11:02:26
      host      : gpu-h100-07.cluster.local
      rank      : 0 (local_rank: 0)
      exitcode  : 1 (pid: 88290)
      error_file: /tmp/torchelastic_w7u2b4qf/none_h3k1s0xj/attempt_0/0/error.json
      traceback : Traceback (most recent call last):
        File "{site}/torch/distributed/elastic/multiprocessing/errors/__init__.py", line 357, in wrapper
          return f(*args, **kwargs)
                 ^^^^^^^^^^^^^^^^^^
        File "/workspace/torchtitan/torchtitan/train.py", line 86, in __init__
          self.parallel_dims = parallel_dims = ParallelDims(
                                               ^^^^^^^^^^^^^
        File "<string>", line 10, in __init__
        File "/workspace/torchtitan/torchtitan/distributed/parallel_dims.py", line 30, in __post_init__
          self._validate()
        File "/workspace/torchtitan/torchtitan/distributed/parallel_dims.py", line 48, in _validate
          assert dp_replicate * dp_shard * cp * tp * pp == self.world_size, (
                 ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
      AssertionError: Invalid parallel dims: dp_replicate(1) * dp_shard(4) * cp(1) * tp(4) * pp(1) != WORLD_SIZE(8)

    ============================================================
    """).replace("{site}", _TT_SITE)
    return head + "\n" + rank0 + "\n" + summary + "\n" + "\n".join(others) + "\n" + root + "\n"


WRITTEN.append(_case(
    "device-mesh-exceeds-world-size-torchtitan-tp4-fsdp4-8gpu-02", "device-mesh-exceeds-world-size", "medium",
    "torchtitan 0.1.0 on one 8-GPU node with a Llama 3 8B config made for two nodes (tensor_parallel_degree=4, "
    "data_parallel_shard_degree=4): ParallelDims' check fails on every rank before the mesh is built",
    {"launcher": "torchrun", "world_size": "8"}, ["WORLD_SIZE"],
    {"train.log": _torchtitan_log()}, initiating_rank=[0, 1, 2, 3, 4, 5, 6, 7]))


# ------------------------------------------------------------------------------------ dynamo-recompile-limit

real(
    _case("dynamo-recompile-limit-fullgraph-static-seq-len-cpu-01", "dynamo-recompile-limit", "medium",
          "CPU run of a small classifier compiled with fullgraph=True and dynamic=False on batches of varying "
          "sequence length: every new length is a recompile, and the ninth stops the run at the recompile limit",
          {"torch_version": "2.13.0", "launcher": "python"}, ["recompile"]),
    "python", "train_seq.py", '''
    """Sentence classifier over unpadded length-bucketed batches; the step is compiled whole (fullgraph)."""
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    torch.manual_seed(0)
    V, D, C = 1000, 32, 4


    class Classifier(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(V, D)
            self.proj = nn.Linear(D, D)
            self.head = nn.Linear(D, C)

        def forward(self, tokens):
            h = torch.tanh(self.proj(self.embed(tokens)))
            return self.head(h.mean(dim=1))


    model = Classifier()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    compiled = torch.compile(model, fullgraph=True, dynamic=False)
    lengths = [12, 17, 23, 31, 9, 40, 28, 35, 19, 44, 27, 15]
    for step, T in enumerate(lengths, 1):
        tokens, labels = torch.randint(0, V, (8, T)), torch.randint(0, C, (8,))
        loss = F.cross_entropy(compiled(tokens), labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"step {step} seq_len {T} loss {loss.item():.4f}", flush=True)
    ''', "train.log", "/home/wen/textcls", "wen")


real(
    _case("dynamo-recompile-limit-fail-on-limit-layerdrop-cpu-02", "dynamo-recompile-limit", "medium",
          "CPU benchmark of a layer-drop encoder compiled with torch._dynamo.config.fail_on_recompile_limit_hit "
          "set (the team's guard against silent eager fallback) and recompile_limit lowered to 4: the number of "
          "active layers is a Python int that changes every step, so each new value is a recompile",
          {"torch_version": "2.13.0", "launcher": "python"}, ["recompile"]),
    "python", "bench_layerdrop.py", '''
    """Throughput check of the layer-drop encoder before the long run (must not fall back to eager)."""
    import random
    import time

    import torch
    import torch._dynamo
    import torch.nn as nn

    torch._dynamo.config.fail_on_recompile_limit_hit = True
    torch._dynamo.config.recompile_limit = 4
    torch.manual_seed(0)
    random.seed(0)


    class LayerDropEncoder(nn.Module):
        def __init__(self, depth=12, d=64):
            super().__init__()
            self.layers = nn.ModuleList(nn.Linear(d, d) for _ in range(depth))

        def forward(self, x, n_active: int):
            for layer in self.layers[:n_active]:
                x = x + torch.relu(layer(x))
            return x


    model = torch.compile(LayerDropEncoder())
    x = torch.randn(16, 64)
    for step in range(1, 21):
        n_active = random.randint(6, 12)
        t0 = time.perf_counter()
        out = model(x, n_active)
        print(f"step {step:2d} layers {n_active:2d} {1e3 * (time.perf_counter() - t0):8.1f} ms", flush=True)
    ''', "bench.log", "/home/wen/encoder", "wen")


_DYN_SITE = "/opt/conda/envs/asr/lib/python3.11/site-packages"


def _cache_limit_251_log() -> str:
    """A 4-GPU torchrun of a speech encoder compiled with fullgraph=True on torch 2.5.1, fed unpadded batches of
    varying frame counts with dynamic=False: each rank warns at its ninth length, then CacheLimitExceeded."""
    def tb(rank: int) -> str:
        lines = dedent(f"""
        Traceback (most recent call last):
          File "/workspace/asr/train.py", line 233, in <module>
            main(cfg)
          File "/workspace/asr/train.py", line 201, in main
            logits = model(feats, feat_lens)
                     ^^^^^^^^^^^^^^^^^^^^^^^
          File "{_DYN_SITE}/torch/nn/modules/module.py", line 1736, in _wrapped_call_impl
            return self._call_impl(*args, **kwargs)
                   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
          File "{_DYN_SITE}/torch/nn/modules/module.py", line 1747, in _call_impl
            return forward_call(*args, **kwargs)
                   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
          File "{_DYN_SITE}/torch/_dynamo/eval_frame.py", line 465, in _fn
            return fn(*args, **kwargs)
                   ^^^^^^^^^^^^^^^^^^^
          File "{_DYN_SITE}/torch/nn/modules/module.py", line 1736, in _wrapped_call_impl
            return self._call_impl(*args, **kwargs)
                   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
          File "{_DYN_SITE}/torch/nn/modules/module.py", line 1747, in _call_impl
            return forward_call(*args, **kwargs)
                   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
          File "{_DYN_SITE}/torch/_dynamo/convert_frame.py", line 1269, in __call__
            return self._torchdynamo_orig_callable(
                   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
          File "{_DYN_SITE}/torch/_dynamo/convert_frame.py", line 526, in __call__
            return _compile(
                   ^^^^^^^^^
          File "{_DYN_SITE}/torch/_dynamo/convert_frame.py", line 859, in _compile
            raise CacheLimitExceeded(f"{{limit_type}} reached")
        torch._dynamo.exc.CacheLimitExceeded: cache_size_limit reached
        """)
        return "\n".join(f"[rank{rank}]: {ln}" for ln in lines.splitlines())

    def warning(rank_pid: int, stamp: str, expected: int, actual: int) -> str:
        pre = f"W1119 {stamp} {rank_pid} torch/_dynamo/convert_frame.py:844] [0/8]"
        return "\n".join([
            f"{pre} torch._dynamo hit config.cache_size_limit (8)",
            f"{pre}    function: 'forward' (/workspace/asr/model.py:142)",
            f"{pre}    last reason: 0/7: tensor 'L['feats']' size mismatch at index 1. expected {expected}, actual {actual}",
            f'{pre} To log all recompilation reasons, use TORCH_LOGS="recompiles".',
            f"{pre} To diagnose recompilation issues, see https://pytorch.org/docs/main/torch.compiler_troubleshooting.html.",
        ])

    head = dedent("""
    + torchrun --standalone --nproc_per_node=4 train.py --config conf/conformer_m.yaml --compile --no-pad-to-bucket
    W1119 16:40:11.902000 5120 torch/distributed/run.py:793]<SP>
    W1119 16:40:11.902000 5120 torch/distributed/run.py:793] *****************************************
    W1119 16:40:11.902000 5120 torch/distributed/run.py:793] Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed.
    W1119 16:40:11.902000 5120 torch/distributed/run.py:793] *****************************************
    2026-11-19 16:40:19 | INFO | rank 0/4 | torch 2.5.1+cu124 | 4 x NVIDIA A100-SXM4-40GB
    2026-11-19 16:40:24 | INFO | conformer_m: 30.7M params | torch.compile(fullgraph=True, dynamic=False)
    2026-11-19 16:40:24 | INFO | train: 281241 utterances, batch by duration (max 240 s), pad_to_bucket=False
    2026-11-19 16:41:37 | INFO | step 1 | loss 7.912 | frames 1184 | 73.1 s/step (compiling)
    2026-11-19 16:42:31 | INFO | step 2 | loss 7.804 | frames 1391 | 54.0 s/step (compiling)
    2026-11-19 16:43:20 | INFO | step 3 | loss 7.655 | frames 1046 | 48.8 s/step (compiling)
    2026-11-19 16:44:12 | INFO | step 4 | loss 7.521 | frames 1523 | 52.3 s/step (compiling)
    2026-11-19 16:45:01 | INFO | step 5 | loss 7.398 | frames 1277 | 48.9 s/step (compiling)
    2026-11-19 16:45:49 | INFO | step 6 | loss 7.301 | frames 988 | 47.6 s/step (compiling)
    2026-11-19 16:46:40 | INFO | step 7 | loss 7.187 | frames 1452 | 51.2 s/step (compiling)
    2026-11-19 16:47:31 | INFO | step 8 | loss 7.092 | frames 1109 | 50.7 s/step (compiling)
    """).replace("<SP>", " ")
    body = "\n".join([
        warning(5187, "16:47:33.118000", 1109, 1330), tb(0),
        warning(5189, "16:47:33.540000", 1202, 1416), tb(2),
        warning(5188, "16:47:34.004000", 1058, 1289), tb(1),
        warning(5190, "16:47:34.271000", 1160, 973), tb(3),
    ])
    tail = dedent(f"""
    E1119 16:47:36.101000 5120 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) local_rank: 0 (pid: 5187) of binary: /opt/conda/envs/asr/bin/python
    Traceback (most recent call last):
      File "/opt/conda/envs/asr/bin/torchrun", line 8, in <module>
        sys.exit(main())
                 ^^^^^^
      File "{_DYN_SITE}/torch/distributed/elastic/multiprocessing/errors/__init__.py", line 355, in wrapper
        return f(*args, **kwargs)
               ^^^^^^^^^^^^^^^^^^
      File "{_DYN_SITE}/torch/distributed/run.py", line 919, in main
        run(args)
      File "{_DYN_SITE}/torch/distributed/run.py", line 910, in run
        elastic_launch(
      File "{_DYN_SITE}/torch/distributed/launcher/api.py", line 138, in __call__
        return launch_agent(self._config, self._entrypoint, list(args))
               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
      File "{_DYN_SITE}/torch/distributed/launcher/api.py", line 269, in launch_agent
        raise ChildFailedError(
    torch.distributed.elastic.multiprocessing.errors.ChildFailedError:
    ============================================================
    train.py FAILED
    ------------------------------------------------------------
    Failures:
    [1]:
      time      : 2026-11-19_16:47:35
      host      : a100-node-03
      rank      : 1 (local_rank: 1)
      exitcode  : 1 (pid: 5188)
      error_file: <N/A>
      traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html
    [2]:
      time      : 2026-11-19_16:47:35
      host      : a100-node-03
      rank      : 2 (local_rank: 2)
      exitcode  : 1 (pid: 5189)
      error_file: <N/A>
      traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html
    [3]:
      time      : 2026-11-19_16:47:35
      host      : a100-node-03
      rank      : 3 (local_rank: 3)
      exitcode  : 1 (pid: 5190)
      error_file: <N/A>
      traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html
    ------------------------------------------------------------
    Root Cause (first observed failure):
    [0]:
      time      : 2026-11-19_16:47:35
      host      : a100-node-03
      rank      : 0 (local_rank: 0)
      exitcode  : 1 (pid: 5187)
      error_file: <N/A>
      traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html
    ============================================================
    """)
    return head + "\n" + body + "\n" + tail + "\n"


WRITTEN.append(_case(
    "dynamo-recompile-limit-cache-size-limit-fullgraph-torch251-4gpu-03", "dynamo-recompile-limit", "hard",
    "4-GPU torchrun on torch 2.5.1 of a Conformer compiled with fullgraph=True and dynamic=False, batched by "
    "duration without padding to buckets: every step compiles a new frame count, and at the ninth each rank warns "
    "about config.cache_size_limit and raises CacheLimitExceeded",
    {"torch_version": "2.5.1", "launcher": "torchrun", "world_size": "4"}, ["cache_size_limit"],
    {"train.log": _cache_limit_251_log()}, initiating_rank=[0, 1, 2, 3]))


# ------------------------------------------------------------------------------------------ dcp-metadata-missing

real(
    _case("dcp-metadata-missing-resume-run-dir-torchrun-01", "dcp-metadata-missing", "easy",
          "2-rank gloo torchrun resuming with --resume pointing at the run's output folder instead of one of its "
          "step-N checkpoint folders: dcp.load finds no .metadata there, on either rank",
          {"torch_version": "2.13.0", "launcher": "torchrun", "world_size": "2"}, [".metadata"]),
    "torchrun:2", "train.py", '''
    """Small LM training with DCP checkpoints under <out>/step-<N> (gloo smoke test of the resume path)."""
    import argparse
    import os

    import torch
    import torch.distributed as dist
    import torch.distributed.checkpoint as dcp
    import torch.nn as nn

    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="outputs/run7")
    ap.add_argument("--resume", default=None)
    args = ap.parse_args()

    dist.init_process_group("gloo")
    rank = dist.get_rank()
    torch.manual_seed(0)
    model = nn.Sequential(nn.Embedding(512, 64), nn.Linear(64, 512))
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
    state = {"model": model.state_dict(), "step": torch.tensor(0)}
    if args.resume:
        if rank == 0:
            print(f"resuming from {args.resume}", flush=True)
        dcp.load(state, checkpoint_id=args.resume)
        model.load_state_dict(state["model"])
    print(f"rank {rank}: start at step {int(state['step'])}", flush=True)
    ''', "resume.log", "/home/ana/lm", "ana",
    setup='''
    import torch, torch.nn as nn
    import torch.distributed.checkpoint as dcp
    torch.manual_seed(0)
    model = nn.Sequential(nn.Embedding(512, 64), nn.Linear(64, 512))
    for step in (1000, 2000):
        dcp.save({"model": model.state_dict(), "step": torch.tensor(step)}, checkpoint_id=f"outputs/run7/step-{step}")
    ''', argv=["--out", "outputs/run7", "--resume", "outputs/run7"])

real(
    _case("dcp-metadata-missing-latest-save-cut-by-time-limit-torchrun-02", "dcp-metadata-missing", "medium",
          "2-rank gloo torchrun of a job that resumes from the newest step folder: the previous job was killed by "
          "its time limit while saving step-3000, so that folder has the ranks' .distcp files but no .metadata",
          {"torch_version": "2.13.0", "launcher": "torchrun", "world_size": "2"}, [".metadata"]),
    "torchrun:2", "pretrain.py", '''
    """Pre-training job that resumes automatically from the newest checkpoint in ckpt/ (re-queued by Slurm)."""
    import os
    import re

    import torch
    import torch.distributed as dist
    import torch.distributed.checkpoint as dcp
    import torch.nn as nn

    dist.init_process_group("gloo")
    rank = dist.get_rank()
    torch.manual_seed(0)
    model = nn.Sequential(nn.Embedding(512, 64), nn.Linear(64, 512))
    state = {"model": model.state_dict(), "step": torch.tensor(0)}
    steps = sorted(int(m.group(1)) for d in os.listdir("ckpt") if (m := re.fullmatch(r"step-(\\d+)", d)))
    if steps:
        latest = f"ckpt/step-{steps[-1]}"
        if rank == 0:
            print(f"found checkpoints {steps}; resuming from {latest} ({sorted(os.listdir(latest))})", flush=True)
        dcp.load(state, checkpoint_id=latest)
    print(f"rank {rank}: resumed at step {int(state['step'])}", flush=True)
    ''', "pretrain.log", "/home/ana/pt", "ana",
    setup='''
    import os, shutil
    import torch, torch.nn as nn
    import torch.distributed.checkpoint as dcp
    torch.manual_seed(0)
    model = nn.Sequential(nn.Embedding(512, 64), nn.Linear(64, 512))
    for step in (2000, 3000):
        dcp.save({"model": model.state_dict(), "step": torch.tensor(step)}, checkpoint_id=f"ckpt/step-{step}")
    # the job killed while saving step-3000: the shards were written, the coordinator's .metadata was not
    os.remove("ckpt/step-3000/.metadata")
    shutil.copy("ckpt/step-3000/__0_0.distcp", "ckpt/step-3000/__1_0.distcp")
    ''')


# ------------------------------------------------------------------------------ distributed-sampler-invalid-rank

real(
    _case("distributed-sampler-invalid-rank-config-world-size-torchrun-01", "distributed-sampler-invalid-rank",
          "easy",
          "4-rank gloo torchrun of a script whose DistributedSampler takes num_replicas from the config "
          "(world_size: 2, written for a 2-GPU box) and rank from the process group: ranks 2 and 3 are outside it",
          {"torch_version": "2.13.0", "launcher": "torchrun", "world_size": "4"}, ["num_replicas"]),
    "torchrun:4", "train.py", '''
    """Text classifier; the data pipeline shards by the config's world size (gloo smoke test)."""
    import torch
    import torch.distributed as dist
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler

    CFG = {"world_size": 2, "batch_size": 32, "epochs": 3}   # configs/base.yaml

    dist.init_process_group("gloo")
    rank = dist.get_rank()
    ds = TensorDataset(torch.randn(4096, 128), torch.randint(0, 4, (4096,)))
    sampler = DistributedSampler(ds, num_replicas=CFG["world_size"], rank=rank, shuffle=True, seed=17)
    loader = DataLoader(ds, batch_size=CFG["batch_size"], sampler=sampler)
    print(f"rank {rank}: {len(loader)} batches per epoch", flush=True)
    ''', "train.log", "/home/kofi/textcls", "kofi")


def _sampler_two_node_log() -> str:
    """srun -l of a 2-node, 16-task job: num_replicas=torch.cuda.device_count() (8 per node) with the global
    rank, so every task of the second node (ranks 8-15) raises at the sampler."""
    site = "/opt/conda/envs/vit/lib/python3.10/site-packages"
    out = [
        "+ srun -l --ntasks-per-node=8 --gpus-per-task=1 python train_vit.py --data /lustre/imagenet --batch-size 128",
    ]
    for r in range(16):
        out.append(f"{r}: [train_vit] rank {r}/16 local_rank {r % 8} host {'dgx-a07' if r < 8 else 'dgx-a08'}")
    out.append("0: [train_vit] torch 2.5.1+cu124, 8 x NVIDIA A100-SXM4-80GB per node, NCCL 2.21.5")
    out.append("0: [train_vit] train: 1281167 images in 1000 classes, val: 50000 images")
    for r in (9, 8, 12, 10, 15, 11, 13, 14):
        tb = [
            "Traceback (most recent call last):",
            '  File "/home/sven/vit/train_vit.py", line 318, in <module>',
            "    main(args)",
            '  File "/home/sven/vit/train_vit.py", line 174, in main',
            "    train_sampler = DistributedSampler(train_set, num_replicas=torch.cuda.device_count(), rank=rank)",
            f'  File "{site}/torch/utils/data/distributed.py", line 83, in __init__',
            "    raise ValueError(",
            f"ValueError: Invalid rank {r}, rank should be in the interval [0, 7]",
        ]
        out += [f"{r}: {ln}" for ln in tb]
    out += [
        "srun: error: dgx-a08: tasks 8-15: Exited with exit code 1",
        "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.",
        "0: [rank0]:[E1121 03:14:52.118204331 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught collective operation "
        "timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600012 "
        "milliseconds before timing out.",
        "slurmstepd: error: *** STEP 5518207.0 ON dgx-a07 CANCELLED AT 2026-11-21T03:15:24 ***",
        "srun: error: dgx-a07: tasks 0-7: Terminated",
    ]
    return "\n".join(out) + "\n"


WRITTEN.append(_case(
    "distributed-sampler-invalid-rank-device-count-2node-srun-02", "distributed-sampler-invalid-rank", "medium",
    "2-node Slurm job (srun -l, 16 tasks) of a ViT training whose DistributedSampler gets "
    "num_replicas=torch.cuda.device_count() (8 per node) and the global rank: the second node's tasks 8-15 raise at "
    "once; the first node's tasks wait in their first all_reduce until NCCL's watchdog ends them",
    {"torch_version": "2.5.1", "launcher": "srun", "world_size": "16"}, ["num_replicas"],
    {"slurm-5518207.out": _sampler_two_node_log()}, initiating_rank=[8, 9, 10, 11, 12, 13, 14, 15]))


def main() -> None:
    ap = parser(__doc__)
    ap.add_argument("--only", help="write only the cases whose id contains this")
    ap.add_argument("--capture", action="store_true", help="also rerun the real CPU programs and store what they print")
    args = ap.parse_args()
    for case in WRITTEN:
        if not args.only or args.only in case.case_id:
            write_case(args.out, case)
            print("wrote", case.case_id)
    if not args.capture:
        return
    for prog in REAL:
        if not args.only or args.only in prog.case.case_id:
            write_case(args.out, capture(prog))
            print("captured", prog.case.case_id)


if __name__ == "__main__":
    main()
