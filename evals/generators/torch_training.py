#!/usr/bin/env python3
"""Write the eval cases of the kb-core entries (PyTorch core training loop: autograd.grad, activation
checkpointing, DDP set-up, the dispatcher's missing kernels).

Captured cases only where CPU PyTorch reproduces the failure: small programs in ``REAL`` run for real with the
repository's venv (``python`` or ``torchrun`` with gloo), their output kept as the log with only machine paths
rewritten (evals/generators/torch_kb.py's capture). Written cases (``WRITTEN``) are logs of failures that need
a GPU, written as the tools print them (the messages checked against the released wheels, see each entry).

Usage:  python evals/generators/torch_training.py [--out DIR] [--only SUBSTRING] [--capture]
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
         env_report: bool = False) -> None:
    REAL.append(RealProgram(case, command, script_name, textwrap.dedent(source).lstrip(), log_name, home,
                            SITE.format(user=user), env_report=env_report))


# ------------------------------------------------------------------------------ optimizer-non-leaf-tensor

real(
    _case("optimizer-non-leaf-tensor-soft-prompt-bf16-torchrun-cpu-03", "optimizer-non-leaf-tensor", "medium",
          "2-rank gloo torchrun of prompt tuning on a frozen encoder: the soft prompt is created with "
          "requires_grad=True and then cast to bfloat16, so each rank hands the optimizer a non-leaf tensor",
          {"torch_version": "2.13.0", "launcher": "torchrun", "world_size": "2"}, ["leaf"]),
    "torchrun:2", "prompt_tune.py", '''
    """Prompt tuning of a frozen encoder (gloo smoke test of the multi-GPU job)."""
    import torch
    import torch.distributed as dist
    import torch.nn as nn

    N_PROMPT, D = 20, 128
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    torch.manual_seed(0)
    encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(D, 4, 256, batch_first=True), 2).to(torch.bfloat16)
    encoder.requires_grad_(False)
    soft_prompt = torch.randn(N_PROMPT, D, requires_grad=True).to(dtype=torch.bfloat16)
    if rank == 0:
        print(f"prompt {tuple(soft_prompt.shape)} {soft_prompt.dtype}, encoder frozen", flush=True)
    opt = torch.optim.AdamW([soft_prompt], lr=3e-2)
    for step in range(1, 101):
        x = torch.randn(8, 64, D, dtype=torch.bfloat16)
        h = encoder(torch.cat([soft_prompt.expand(8, -1, -1), x], 1))
        loss = h[:, :N_PROMPT].float().pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    dist.destroy_process_group()
    ''', "train.log", "/home/yuki/pt", "yuki")


# ------------------------------------------------------------------------------- autograd-grad-unused-input

real(
    _case("autograd-grad-unused-input-maml-aux-head-cpu-01", "autograd-grad-unused-input", "easy",
          "MAML inner loop on CPU: torch.autograd.grad over every parameter of a model whose auxiliary head "
          "is only used at evaluation, so one differentiated tensor is not in the loss's graph",
          {"torch_version": "2.13.0", "launcher": "python"}, ["allow_unused"]),
    "python", "maml_sine.py", '''
    """MAML on sine regression (Finn et al. 2017), functional inner loop with torch.func.functional_call."""
    import math
    import torch
    import torch.nn as nn
    from torch.func import functional_call

    torch.manual_seed(0)


    class Regressor(nn.Module):
        def __init__(self, hidden=40):
            super().__init__()
            self.body = nn.Sequential(nn.Linear(1, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
            self.head = nn.Linear(hidden, 1)
            self.uncertainty = nn.Linear(hidden, 1)   # log-variance head, used by evaluate() only

        def forward(self, x):
            return self.head(self.body(x))


    def task(n=10):
        amp, phase = torch.empty(1).uniform_(0.1, 5.0), torch.empty(1).uniform_(0, math.pi)
        x = torch.empty(2 * n, 1).uniform_(-5, 5)
        return x[:n], amp * torch.sin(x[:n] + phase), x[n:], amp * torch.sin(x[n:] + phase)


    model = Regressor()
    meta_opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    inner_lr = 0.01
    for it in range(1, 501):
        meta_opt.zero_grad()
        meta_loss = 0.0
        for _ in range(4):
            xs, ys, xq, yq = task()
            params = dict(model.named_parameters())
            loss = nn.functional.mse_loss(functional_call(model, params, (xs,)), ys)
            grads = torch.autograd.grad(loss, list(params.values()), create_graph=True)
            fast = {k: p - inner_lr * g for (k, p), g in zip(params.items(), grads)}
            meta_loss = meta_loss + nn.functional.mse_loss(functional_call(model, fast, (xq,)), yq)
        (meta_loss / 4).backward()
        meta_opt.step()
        if it % 50 == 0:
            print(f"iter {it} meta-loss {meta_loss.item() / 4:.4f}", flush=True)
    ''', "train.log", "/home/ines/maml", "ines")

real(
    _case("autograd-grad-unused-input-grad-penalty-torchrun-cpu-02", "autograd-grad-unused-input", "medium",
          "2-rank gloo torchrun of a conditional critic with an R1 gradient penalty: autograd.grad is asked for "
          "the gradient with respect to the images and the class labels' one-hot tensor, which the critic "
          "only uses when conditioning is on (it is off in this config); both ranks fail at the first step",
          {"torch_version": "2.13.0", "launcher": "torchrun", "world_size": "2"}, ["allow_unused"]),
    "torchrun:2", "train_critic.py", '''
    """Critic pre-training with an R1 penalty (gloo smoke test before the GPU run)."""
    import os
    import torch
    import torch.distributed as dist
    import torch.nn as nn
    from torch.nn.parallel import DistributedDataParallel as DDP

    CFG = dict(conditional=False, classes=10, r1_gamma=10.0, lr=2e-4, batch=16)


    class Critic(nn.Module):
        def __init__(self, conditional, classes):
            super().__init__()
            self.conditional = conditional
            self.features = nn.Sequential(nn.Conv2d(3, 16, 4, 2, 1), nn.LeakyReLU(0.2),
                                          nn.Conv2d(16, 32, 4, 2, 1), nn.LeakyReLU(0.2), nn.Flatten())
            self.out = nn.Linear(32 * 8 * 8, 1)
            self.embed = nn.Linear(classes, 32 * 8 * 8)

        def forward(self, img, onehot):
            h = self.features(img)
            if self.conditional:
                h = h + self.embed(onehot)
            return self.out(h)


    dist.init_process_group("gloo")
    rank = dist.get_rank()
    torch.manual_seed(rank)
    if rank == 0:
        print("config:", CFG, flush=True)
    critic = DDP(Critic(CFG["conditional"], CFG["classes"]))
    opt = torch.optim.Adam(critic.parameters(), lr=CFG["lr"], betas=(0.0, 0.99))
    for step in range(1, 101):
        real_img = torch.randn(CFG["batch"], 3, 32, 32).requires_grad_()
        labels = torch.randint(0, CFG["classes"], (CFG["batch"],))
        onehot = nn.functional.one_hot(labels, CFG["classes"]).float().requires_grad_()
        score = critic(real_img, onehot)
        g_img, g_cls = torch.autograd.grad(score.sum(), [real_img, onehot], create_graph=True)
        r1 = g_img.pow(2).flatten(1).sum(1).mean()
        loss = nn.functional.softplus(-score).mean() + CFG["r1_gamma"] / 2 * r1
        opt.zero_grad()
        loss.backward()
        opt.step()
        if rank == 0 and step % 10 == 0:
            print(f"step {step} loss {loss.item():.4f} r1 {r1.item():.4f}", flush=True)
    dist.destroy_process_group()
    ''', "train.log", "/home/kofi/gan", "kofi")

# ------------------------------------------------------------------------ activation-checkpoint-recompute-mismatch

real(
    _case("activation-checkpoint-recompute-mismatch-layerdrop-cpu-01", "activation-checkpoint-recompute-mismatch",
          "medium",
          "CPU run of a small encoder with LayerDrop decided by Python's random module inside checkpointed "
          "blocks: checkpoint restores torch's RNG but not Python's, so the recomputation skips a different "
          "set of sub-layers and saves a different number of tensors",
          {"torch_version": "2.13.0", "launcher": "python"}, ["random"]),
    "python", "train_encoder.py", '''
    """Small encoder with LayerDrop and activation checkpointing (CPU debug run)."""
    import random
    import torch
    import torch.nn as nn
    from torch.utils.checkpoint import checkpoint

    random.seed(3); torch.manual_seed(3)
    D, L, LAYERDROP = 64, 6, 0.2


    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.norm1, self.norm2 = nn.LayerNorm(D), nn.LayerNorm(D)
            self.attn = nn.MultiheadAttention(D, 4, batch_first=True)
            self.mlp = nn.Sequential(nn.Linear(D, 4 * D), nn.GELU(), nn.Linear(4 * D, D))

        def forward(self, x):
            if self.training and random.random() < LAYERDROP:   # drop the attention sub-layer
                pass
            else:
                h = self.norm1(x)
                x = x + self.attn(h, h, h, need_weights=False)[0]
            return x + self.mlp(self.norm2(x))


    class Encoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.blocks = nn.ModuleList(Block() for _ in range(L))
            self.head = nn.Linear(D, 2)

        def forward(self, x):
            for blk in self.blocks:
                x = checkpoint(blk, x, use_reentrant=False)
            return self.head(x.mean(1))


    model = Encoder()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for step in range(1, 201):
        x, y = torch.randn(8, 32, D), torch.randint(0, 2, (8,))
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 20 == 0:
            print(f"step {step} loss {loss.item():.4f}", flush=True)
    ''', "train.log", "/home/lena/enc", "lena")

real(
    _case("activation-checkpoint-recompute-mismatch-token-drop-torchrun-cpu-02",
          "activation-checkpoint-recompute-mismatch", "hard",
          "2-rank gloo torchrun of a ViT with patch dropout whose keep count is drawn with numpy inside the "
          "checkpointed stage: the recomputation draws another count, so a saved activation's shape differs "
          "from the forward's; both ranks fail in backward",
          {"torch_version": "2.13.0", "launcher": "torchrun", "world_size": "2"}, ["recomput"]),
    "torchrun:2", "train_vit.py", '''
    """Tiny ViT with patch dropout (FLIP-style) and checkpointed stages, gloo smoke test."""
    import numpy as np
    import torch
    import torch.distributed as dist
    import torch.nn as nn
    from torch.nn.parallel import DistributedDataParallel as DDP
    from torch.utils.checkpoint import checkpoint

    D, PATCHES = 64, 64


    class Stage(nn.Module):
        def __init__(self, patch_dropout=0.0):
            super().__init__()
            self.patch_dropout = patch_dropout
            self.layer = nn.TransformerEncoderLayer(D, 4, 4 * D, batch_first=True, dropout=0.0)

        def forward(self, x):
            if self.training and self.patch_dropout > 0:
                keep = int(x.shape[1] * (1 - np.random.uniform(0, self.patch_dropout)))
                idx = torch.randperm(x.shape[1])[:keep]
                x = x[:, idx]
            return self.layer(x)


    class ViT(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Linear(48, D)
            self.stages = nn.ModuleList([Stage(0.5), Stage(), Stage()])
            self.head = nn.Linear(D, 10)

        def forward(self, patches):
            x = self.embed(patches)
            for stage in self.stages:
                x = checkpoint(stage, x, use_reentrant=False)
            return self.head(x.mean(1))


    dist.init_process_group("gloo")
    rank = dist.get_rank()
    torch.manual_seed(0); np.random.seed(rank)
    model = DDP(ViT())
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
    if rank == 0:
        print(f"params {sum(p.numel() for p in model.parameters()):,} world {dist.get_world_size()}", flush=True)
    for step in range(1, 101):
        patches, y = torch.randn(16, PATCHES, 48), torch.randint(0, 10, (16,))
        loss = nn.functional.cross_entropy(model(patches), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if rank == 0 and step % 10 == 0:
            print(f"step {step} loss {loss.item():.4f}", flush=True)
    dist.destroy_process_group()
    ''', "train.log", "/home/tomas/vit", "tomas")

# ------------------------------------------------------------------------------ ddp-no-trainable-parameters

real(
    _case("ddp-no-trainable-parameters-frozen-backbone-torchrun-cpu-01", "ddp-no-trainable-parameters", "easy",
          "2-rank gloo torchrun of a linear probe: the script freezes the backbone with requires_grad_(False) "
          "after attaching the new head as a submodule of it, so nothing is trainable and DDP refuses the module",
          {"torch_version": "2.13.0", "launcher": "torchrun", "world_size": "2"}, ["requires_grad"]),
    "torchrun:2", "linear_probe.py", '''
    """Linear probe on frozen features (gloo smoke test)."""
    import torch
    import torch.distributed as dist
    import torch.nn as nn
    from torch.nn.parallel import DistributedDataParallel as DDP


    def backbone():
        return nn.Sequential(nn.Conv2d(3, 32, 3, 2, 1), nn.ReLU(), nn.Conv2d(32, 64, 3, 2, 1), nn.ReLU(),
                             nn.AdaptiveAvgPool2d(1), nn.Flatten())


    dist.init_process_group("gloo")
    rank = dist.get_rank()
    model = backbone()
    model.add_module("probe", nn.Linear(64, 100))     # the new classifier
    model.requires_grad_(False)                       # freeze the pretrained features
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    print(f"[rank {rank}] trainable parameters: {trainable}", flush=True)
    model = DDP(model)
    opt = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=0.1)
    ''', "train.log", "/home/ravi/probe", "ravi")

real(
    _case("ddp-no-trainable-parameters-eval-wrap-torchrun-cpu-02", "ddp-no-trainable-parameters", "medium",
          "2-rank gloo torchrun of a sharded evaluation script that wraps the eval-mode model, whose parameters "
          "were all set requires_grad=False for inference, in DistributedDataParallel to split the test set",
          {"torch_version": "2.13.0", "launcher": "torchrun", "world_size": "2"}, ["requires_grad"]),
    "torchrun:2", "evaluate.py", '''
    """Sharded evaluation of a checkpoint (gloo smoke test)."""
    import torch
    import torch.distributed as dist
    import torch.nn as nn
    from torch.nn.parallel import DistributedDataParallel as DDP
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler

    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 5))
    model.eval()
    for p in model.parameters():
        p.requires_grad = False
    data = TensorDataset(torch.randn(1000, 20), torch.randint(0, 5, (1000,)))
    loader = DataLoader(data, batch_size=50, sampler=DistributedSampler(data, shuffle=False))
    print(f"[rank {rank}/{world}] evaluating {len(loader.sampler)} samples", flush=True)
    model = DDP(model)
    correct = torch.zeros(())
    with torch.no_grad():
        for x, y in loader:
            correct += (model(x).argmax(1) == y).sum()
    dist.all_reduce(correct)
    if rank == 0:
        print(f"accuracy {correct.item() / len(data):.4f}")
    ''', "eval.log", "/home/ravi/probe", "ravi")

# ------------------------------------------------------------------------------ torch-op-missing-backend-kernel

real(
    _case("torch-op-missing-backend-kernel-static-quant-no-quantstub-cpu-01", "torch-op-missing-backend-kernel",
          "medium",
          "Eager-mode static quantization of a small CNN on CPU: the model has no QuantStub, so after convert() "
          "the quantized conv receives the float input and the dispatcher finds no kernel for 'CPU'",
          {"torch_version": "2.13.0", "launcher": "python"}, ["QuantStub"]),
    "python", "quantize_cnn.py", '''
    """Post-training static quantization (eager mode, fbgemm) of a small CNN."""
    import torch
    import torch.nn as nn
    import torch.ao.quantization as tq


    class SmallCNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.features = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                                          nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
            self.fc = nn.Linear(32, 10)

        def forward(self, x):
            return self.fc(torch.flatten(self.features(x), 1))


    model = SmallCNN().eval()
    model.qconfig = tq.get_default_qconfig("fbgemm")
    prepared = tq.prepare(model)
    with torch.no_grad():
        for _ in range(8):                       # calibration
            prepared(torch.randn(4, 3, 32, 32))
    qmodel = tq.convert(prepared)
    print(qmodel)
    out = qmodel(torch.randn(1, 3, 32, 32))
    print("int8 output", out.shape)
    ''', "quantize.log", "/home/ana/edge", "ana")


real(
    _case("torch-op-missing-backend-kernel-quantized-residual-add-cpu-02", "torch-op-missing-backend-kernel",
          "hard",
          "Job script prints collect_env, then quantizes a residual CNN in eager mode with QuantStub/DeQuantStub "
          "but keeps the residual 'out + identity' as a plain '+': the quantized activations reach aten::add, "
          "which has no QuantizedCPU kernel",
          {"torch_version": "2.13.0", "launcher": "python"}, ["FloatFunctional"]),
    "python", "quantize_resnet.py", '''
    """Eager-mode post-training static quantization of a residual CNN (x86 / fbgemm)."""
    import torch
    import torch.nn as nn
    import torch.ao.quantization as tq


    class BasicBlock(nn.Module):
        def __init__(self, c):
            super().__init__()
            self.conv1, self.bn1, self.relu = nn.Conv2d(c, c, 3, padding=1, bias=False), nn.BatchNorm2d(c), nn.ReLU()
            self.conv2, self.bn2 = nn.Conv2d(c, c, 3, padding=1, bias=False), nn.BatchNorm2d(c)

        def forward(self, x):
            identity = x
            out = self.relu(self.bn1(self.conv1(x)))
            out = self.bn2(self.conv2(out))
            return self.relu(out + identity)


    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.quant, self.dequant = tq.QuantStub(), tq.DeQuantStub()
            self.stem = nn.Sequential(nn.Conv2d(3, 32, 3, padding=1), nn.ReLU())
            self.blocks = nn.Sequential(BasicBlock(32), BasicBlock(32))
            self.head = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, 10))

        def forward(self, x):
            return self.dequant(self.head(self.blocks(self.stem(self.quant(x)))))


    model = Net().eval()
    model.qconfig = tq.get_default_qconfig("x86")
    prepared = tq.prepare(model)
    with torch.no_grad():
        for i in range(16):
            prepared(torch.randn(8, 3, 32, 32))
    print("calibrated on 128 images", flush=True)
    qmodel = tq.convert(prepared)
    with torch.no_grad():
        print("int8 logits", qmodel(torch.randn(2, 3, 32, 32)).shape)
    ''', "job.log", "/home/ana/edge", "ana", env_report=True)


# ------------------------------------------------------------------------------ written (need a GPU or another Python)

WRITTEN.append(_case(
    "torch-compile-python-unsupported-srun-two-nodes-py313-03", "torch-compile-python-unsupported", "medium",
    "Two-node Slurm job (srun -l, 8 tasks) in a fresh Python 3.13 environment with torch 2.5.1; eager warm-up "
    "runs, then every task's torch.compile call refuses Python 3.13",
    {"torch_version": "2.5.1", "python_version": "3.13.1", "launcher": "srun"}, ["Python"],
    {"slurm-771204.out": dedent("""
    + srun -l --ntasks-per-node=4 python -u pretrain.py --config configs/vit_b16.yaml --compile
    0: python 3.13.1 | torch 2.5.1+cu124 | cuda 12.4 | 4x NVIDIA A100-SXM4-80GB
    0: [2026-11-29 21:14:02] world_size=8 rank=0 local_rank=0 node=gpu-a017
    4: [2026-11-29 21:14:02] world_size=8 rank=4 local_rank=0 node=gpu-a018
    0: [2026-11-29 21:14:05] model vit_b16: 86.6M params, bf16 autocast, fused AdamW
    0: [2026-11-29 21:14:09] eager warm-up step ok (loss 6.9078)
    0: [2026-11-29 21:14:09] compiling model (mode=max-autotune-no-cudagraphs)
    0: Traceback (most recent call last):
    0:   File "/scratch/vit/pretrain.py", line 211, in <module>
    0:     main(cfg)
    0:   File "/scratch/vit/pretrain.py", line 148, in main
    0:     model = torch.compile(model, mode=cfg.compile_mode)
    0:             ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
    0:   File "/scratch/envs/vit313/lib/python3.13/site-packages/torch/__init__.py", line 2416, in compile
    0:     raise RuntimeError("Dynamo is not supported on Python 3.13+")
    0: RuntimeError: Dynamo is not supported on Python 3.13+
    2: RuntimeError: Dynamo is not supported on Python 3.13+
    5: RuntimeError: Dynamo is not supported on Python 3.13+
    1: RuntimeError: Dynamo is not supported on Python 3.13+
    7: RuntimeError: Dynamo is not supported on Python 3.13+
    3: RuntimeError: Dynamo is not supported on Python 3.13+
    4: RuntimeError: Dynamo is not supported on Python 3.13+
    6: RuntimeError: Dynamo is not supported on Python 3.13+
    srun: error: gpu-a017: tasks 0-3: Exited with exit code 1
    srun: error: gpu-a018: tasks 4-7: Exited with exit code 1
    """) + "\n"},
    initiating_rank=[0, 1, 2, 3, 4, 5, 6, 7]))


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
