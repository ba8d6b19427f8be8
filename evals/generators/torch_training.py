#!/usr/bin/env python3
"""Write the eval cases of the kb-core entries (PyTorch core training loop: autograd.grad, activation
checkpointing, DDP set-up, the dispatcher's missing kernels).

Captured cases only where CPU PyTorch reproduces the failure: small programs in ``REAL`` run for real with the
repository's venv (``python`` or ``torchrun`` with gloo), their output kept as the log with only machine paths
rewritten (evals/generators/torch_kb.py's capture). Written cases (``WRITTEN``) are logs of failures that need
a GPU, written as the tools print them (the messages checked against the released wheels, see each entry).

The Lightning and JAX programs import packages the repository does not depend on: capture them with
``--site DIR``, a ``pip install --no-deps --target DIR`` folder holding lightning 2.5.1, pytorch_lightning 2.5.1,
lightning-utilities and torchmetrics, or jax/jaxlib 0.4.30 with ml_dtypes and opt_einsum (the JAX programs
force 8 host devices with XLA_FLAGS=--xla_force_host_platform_device_count=8). DIR is put on PYTHONPATH and
rewritten to the case's site-packages in the log.

Usage:  python evals/generators/torch_training.py [--out DIR] [--only SUBSTRING] [--capture [--site DIR]]
Output: evals/cases/<case-id>/{case.yaml, *.log}
"""

from __future__ import annotations

import os
import sys
import textwrap
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import Case, dedent, parser, prefix, write_case, write_selected
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
         env_report: bool = False, setup: str = "", argv: list[str] | None = None) -> None:
    REAL.append(RealProgram(case, command, script_name, textwrap.dedent(source).lstrip(), log_name, home,
                            SITE.format(user=user), setup=textwrap.dedent(setup).lstrip(), argv=argv or [],
                            env_report=env_report))


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

# ------------------------------------------------------------------------------ lightning-monitor-metric-missing

real(
    _case("lightning-monitor-metric-missing-plateau-val-every-2-cpu-01", "lightning-monitor-metric-missing", "medium",
          "Lightning 2.5.1 CPU run: ReduceLROnPlateau monitors val_loss with an epoch interval, but validation runs "
          "only every second epoch (check_val_every_n_epoch=2), so at the end of epoch 0 the metric does not exist yet",
          {"lightning_version": "2.5.1", "torch_version": "2.13.0", "launcher": "python"}, ["check_val_every_n_epoch"]),
    "python", "train_tabular.py", """
    \"\"\"Tabular classifier with Lightning (CPU run of the nightly job).\"\"\"
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    import lightning.pytorch as L
    from torch.utils.data import DataLoader, TensorDataset


    class TabularNet(L.LightningModule):
        def __init__(self, n_features=32, lr=1e-2):
            super().__init__()
            self.save_hyperparameters()
            self.net = nn.Sequential(nn.Linear(n_features, 128), nn.ReLU(), nn.Dropout(0.1), nn.Linear(128, 3))

        def training_step(self, batch, batch_idx):
            x, y = batch
            loss = F.cross_entropy(self.net(x), y)
            self.log("train_loss", loss, prog_bar=True)
            return loss

        def validation_step(self, batch, batch_idx):
            x, y = batch
            logits = self.net(x)
            self.log("val_loss", F.cross_entropy(logits, y), prog_bar=True)
            self.log("val_acc", (logits.argmax(1) == y).float().mean())

        def configure_optimizers(self):
            opt = torch.optim.AdamW(self.parameters(), lr=self.hparams.lr)
            sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, factor=0.5, patience=2)
            return {"optimizer": opt, "lr_scheduler": {"scheduler": sched, "monitor": "val_loss", "interval": "epoch"}}


    torch.manual_seed(0)
    X, y = torch.randn(2048, 32), torch.randint(0, 3, (2048,))
    train = DataLoader(TensorDataset(X[:1792], y[:1792]), batch_size=64, shuffle=True)
    val = DataLoader(TensorDataset(X[1792:], y[1792:]), batch_size=256)
    trainer = L.Trainer(accelerator="cpu", max_epochs=20, check_val_every_n_epoch=2, logger=False,
                        enable_checkpointing=False, enable_progress_bar=False)
    trainer.fit(TabularNet(), train, val)
    """, "train.log", "/home/mei/tab", "mei")

real(
    _case("lightning-monitor-metric-missing-checkpoint-namespaced-key-ddp-cpu-02", "lightning-monitor-metric-missing",
          "medium",
          "Lightning 2.5.1 DDP on 2 CPU processes: ModelCheckpoint(monitor='val_loss') while the module logs "
          "'val/loss' (a namespaced key); after the first validation both ranks raise MisconfigurationException",
          {"lightning_version": "2.5.1", "torch_version": "2.13.0", "launcher": "lightning", "world_size": "2"},
          ["val/loss"], initiating_rank=[0, 1]),
    "python", "train_seg.py", """
    \"\"\"Segmentation head fine-tune with Lightning DDP (CPU smoke test of the 2-GPU job).\"\"\"
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    import lightning.pytorch as L
    from lightning.pytorch.callbacks import ModelCheckpoint, LearningRateMonitor
    from torch.utils.data import DataLoader, TensorDataset


    class SegHead(L.LightningModule):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 4, 1))

        def training_step(self, batch, batch_idx):
            x, y = batch
            loss = F.cross_entropy(self.body(x), y)
            self.log("train/loss", loss, sync_dist=True)
            return loss

        def validation_step(self, batch, batch_idx):
            x, y = batch
            self.log("val/loss", F.cross_entropy(self.body(x), y), sync_dist=True)

        def configure_optimizers(self):
            return torch.optim.SGD(self.parameters(), lr=0.05, momentum=0.9)


    if __name__ == "__main__":
        torch.manual_seed(0)
        ds = TensorDataset(torch.randn(128, 3, 32, 32), torch.randint(0, 4, (128, 32, 32)))
        ckpt = ModelCheckpoint(dirpath="checkpoints", monitor="val_loss", mode="min", save_top_k=2)
        trainer = L.Trainer(accelerator="cpu", devices=2, strategy="ddp", max_epochs=3, logger=False,
                            callbacks=[ckpt], enable_progress_bar=False)
        trainer.fit(SegHead(), DataLoader(ds, batch_size=16), DataLoader(ds, batch_size=32))
    """, "train.log", "/home/mei/seg", "mei")

# ------------------------------------------------------------------------------ lightning-mixed-package-imports

real(
    _case("lightning-mixed-package-imports-model-cpu-01", "lightning-mixed-package-imports", "easy",
          "The module subclasses pytorch_lightning.LightningModule (an old snippet) while the script builds the "
          "Trainer from the unified lightning package; Trainer.fit rejects the model as not a LightningModule",
          {"lightning_version": "2.5.1", "torch_version": "2.13.0", "launcher": "python"}, ["lightning"]),
    "python", "train_mnist.py", """
    \"\"\"MNIST-style classifier (synthetic data for the CPU check).\"\"\"
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    import pytorch_lightning as pl
    import lightning as L
    from torch.utils.data import DataLoader, TensorDataset


    class LitClassifier(pl.LightningModule):
        def __init__(self):
            super().__init__()
            self.net = nn.Sequential(nn.Flatten(), nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10))

        def training_step(self, batch, batch_idx):
            x, y = batch
            loss = F.cross_entropy(self.net(x), y)
            self.log("train_loss", loss)
            return loss

        def configure_optimizers(self):
            return torch.optim.Adam(self.parameters(), lr=1e-3)


    data = DataLoader(TensorDataset(torch.randn(512, 1, 28, 28), torch.randint(0, 10, (512,))), batch_size=64)
    trainer = L.Trainer(accelerator="cpu", max_epochs=2, logger=False, enable_progress_bar=False)
    trainer.fit(LitClassifier(), data)
    """, "train.log", "/home/omar/mnist", "omar")

real(
    _case("lightning-mixed-package-imports-callback-job-cpu-02", "lightning-mixed-package-imports", "medium",
          "A batch job prints collect_env, then starts a 2-process Lightning 2.5.1 DDP run of a script that imports "
          "its callbacks from pytorch_lightning and its Trainer from lightning.pytorch; the Trainer refuses the "
          "pytorch_lightning EarlyStopping before any process is launched",
          {"lightning_version": "2.5.1", "torch_version": "2.13.0", "launcher": "python"},
          ["single import style"]),
    "python", "train_lm.py", """
    \"\"\"Character LM with Lightning, DDP on 2 processes (CPU smoke test).\"\"\"
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    from lightning.pytorch import LightningModule, Trainer
    from pytorch_lightning.callbacks import EarlyStopping, LearningRateMonitor
    from torch.utils.data import DataLoader, TensorDataset


    class CharLM(LightningModule):
        def __init__(self, vocab=96, d=64):
            super().__init__()
            self.emb, self.rnn, self.out = nn.Embedding(vocab, d), nn.GRU(d, d, batch_first=True), nn.Linear(d, vocab)

        def forward(self, x):
            return self.out(self.rnn(self.emb(x))[0])

        def training_step(self, batch, batch_idx):
            x, y = batch
            return F.cross_entropy(self(x).flatten(0, 1), y.flatten())

        def validation_step(self, batch, batch_idx):
            x, y = batch
            self.log("val_loss", F.cross_entropy(self(x).flatten(0, 1), y.flatten()), sync_dist=True)

        def configure_optimizers(self):
            return torch.optim.Adam(self.parameters(), lr=3e-3)


    tokens = torch.randint(0, 96, (256, 65))
    ds = TensorDataset(tokens[:, :-1], tokens[:, 1:])
    trainer = Trainer(accelerator="cpu", devices=2, strategy="ddp", max_epochs=5, logger=False,
                      callbacks=[EarlyStopping(monitor="val_loss", patience=2)], enable_progress_bar=False)
    trainer.fit(CharLM(), DataLoader(ds, batch_size=32), DataLoader(ds, batch_size=64))
    """, "train.log", "/home/omar/charlm", "omar", env_report=True)

# ------------------------------------------------------------------------------ jax-sharding-indivisible

real(
    _case("jax-sharding-indivisible-data-parallel-batch-cpu-01", "jax-sharding-indivisible", "easy",
          "JAX 0.4.30 data-parallel training over 8 devices (forced host devices on CPU): the eval batch of 100 "
          "examples is device_put with the batch dimension sharded over 8 devices, and 100 is not divisible by 8",
          {"jax_version": "0.4.30", "launcher": "python", "device_count": "8"}, ["divisible"]),
    "python", "train_flax_mlp.py", """
    \"\"\"Data-parallel MLP in plain JAX with jax.sharding (8 devices).\"\"\"
    import os
    os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

    mesh = Mesh(np.array(jax.devices()), ("data",))
    batch_sharding = NamedSharding(mesh, P("data"))
    replicated = NamedSharding(mesh, P())
    print(f"jax {jax.__version__}, {jax.device_count()} devices, mesh {dict(mesh.shape)}", flush=True)


    def init(key, sizes=(64, 256, 10)):
        keys = jax.random.split(key, len(sizes) - 1)
        return [(jax.random.normal(k, (a, b)) * a ** -0.5, jnp.zeros(b)) for k, a, b in zip(keys, sizes[:-1], sizes[1:])]


    def loss_fn(params, x, y):
        for w, b in params[:-1]:
            x = jax.nn.relu(x @ w + b)
        logits = x @ params[-1][0] + params[-1][1]
        return -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(logits), y[:, None], 1))


    @jax.jit
    def step(params, x, y):
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
        return jax.tree_util.tree_map(lambda p, g: p - 0.05 * g, params, grads), loss


    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(4100, 64)).astype(np.float32), rng.integers(0, 10, 4100)
    params = jax.device_put(init(jax.random.PRNGKey(0)), replicated)
    for epoch in range(3):
        for i in range(0, 4000, 256):
            x, y = jax.device_put((X[i:i + 256], Y[i:i + 256]), batch_sharding)
            params, loss = step(params, x, y)
        print(f"epoch {epoch} train loss {float(loss):.4f}", flush=True)
        xe, ye = jax.device_put((X[4000:], Y[4000:]), batch_sharding)   # 100 held-out examples
        print(f"epoch {epoch} eval loss {float(loss_fn(params, xe, ye)):.4f}", flush=True)
    """, "train.log", "/home/priya/jaxdp", "priya")

real(
    _case("jax-sharding-indivisible-tensor-parallel-jit-cpu-02", "jax-sharding-indivisible", "hard",
          "JAX 0.4.30 2x4 mesh (data, model) on 8 forced host devices: the parameters are initialised under jit "
          "with out_shardings that split the embedding's vocabulary axis (GPT-2's 50257, unpadded) over the 4-way "
          "'model' axis, and 50257 is not divisible by 4",
          {"jax_version": "0.4.30", "launcher": "python", "device_count": "8"}, ["50257"]),
    "python", "init_lm.py", """
    \"\"\"Initialise a small LM's parameters sharded over a (data, model) mesh.\"\"\"
    import os
    os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

    CFG = dict(vocab=50257, d_model=512, d_ff=2048, layers=4)
    mesh = Mesh(np.array(jax.devices()).reshape(2, 4), ("data", "model"))
    print(f"mesh {dict(mesh.shape)} config {CFG}", flush=True)
    SPECS = {"embed": P("model", None), "w_in": P(None, "model"), "w_out": P("model", None), "unembed": P(None, "model")}


    def init(key):
        k = jax.random.split(key, 4)
        d, f, v = CFG["d_model"], CFG["d_ff"], CFG["vocab"]
        return {"embed": jax.random.normal(k[0], (v, d)) * 0.02, "w_in": jax.random.normal(k[1], (d, f)) * 0.02,
                "w_out": jax.random.normal(k[2], (f, d)) * 0.02, "unembed": jax.random.normal(k[3], (d, v)) * 0.02}


    shardings = {name: NamedSharding(mesh, spec) for name, spec in SPECS.items()}
    params = jax.jit(init, out_shardings=shardings)(jax.random.PRNGKey(0))
    for name, p in params.items():
        print(name, p.shape, p.sharding.spec, flush=True)
    """, "init.log", "/home/priya/jaxlm", "priya")


# ------------------------------------------------------------------------------ dcp-size-mismatch

_DCP_MODEL = """
import torch
import torch.nn as nn


class TinyLM(nn.Module):
    def __init__(self, vocab, d=64, layers=2):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.blocks = nn.ModuleList(nn.TransformerEncoderLayer(d, 4, 4 * d, batch_first=True) for _ in range(layers))
        self.lm_head = nn.Linear(d, vocab, bias=False)

    def forward(self, ids):
        h = self.embed(ids)
        for blk in self.blocks:
            h = blk(h)
        return self.lm_head(h)
"""

real(
    _case("dcp-size-mismatch-resized-vocab-torchrun-cpu-01", "dcp-size-mismatch", "medium",
          "2-rank gloo torchrun resumes a torch.distributed.checkpoint saved with a 32000-token vocabulary into a "
          "model built after 8 special tokens were added (32008); dcp.load's planner refuses the embedding's size "
          "on both ranks",
          {"torch_version": "2.13.0", "launcher": "torchrun", "world_size": "2"}, ["32008"]),
    "torchrun:2", "resume.py", """
    \"\"\"Resume pre-training from a DCP checkpoint (gloo smoke test).\"\"\"
    import torch
    import torch.distributed as dist
    import torch.distributed.checkpoint as dcp
    from model import TinyLM

    BASE_VOCAB, SPECIAL = 32000, ["<|im_start|>", "<|im_end|>", "<tool>", "</tool>", "<think>", "</think>", "<pad>", "<sep>"]
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    model = TinyLM(BASE_VOCAB + len(SPECIAL))
    if rank == 0:
        print(f"vocab {BASE_VOCAB} + {len(SPECIAL)} special tokens; resuming from ckpt/step-2000", flush=True)
    state = {"model": model.state_dict()}
    dcp.load(state, checkpoint_id="ckpt/step-2000")
    model.load_state_dict(state["model"])
    print(f"[rank {rank}] resumed", flush=True)
    dist.destroy_process_group()
    """, "train.log", "/home/sana/lm", "sana",
    setup="import pathlib\n"
          f"pathlib.Path('model.py').write_text({_DCP_MODEL!r})\n"
          "import torch.distributed.checkpoint as dcp\n"
          "from model import TinyLM\n"
          "dcp.save({'model': TinyLM(32000).state_dict()}, checkpoint_id='ckpt/step-2000')\n")

real(
    _case("dcp-size-mismatch-sweep-override-width-cpu-02", "dcp-size-mismatch", "easy",
          "A single-process fine-tune on CPU loads a DCP checkpoint of a d_model=64 run, but the sweep's override set "
          "d_model=96 in the config it builds the model from; the first mismatching tensor is the embedding",
          {"torch_version": "2.13.0", "launcher": "python"}, ["d_model"]),
    "python", "finetune.py", """
    \"\"\"Fine-tune from a pre-training checkpoint written by torch.distributed.checkpoint.\"\"\"
    import json
    import sys
    import torch
    import torch.distributed.checkpoint as dcp
    from model import TinyLM

    cfg = {"vocab": 32000, "d_model": 64, "layers": 2, "lr": 1e-4, "init_from": "ckpt/step-2000"}
    for arg in sys.argv[1:]:                       # sweep overrides: key=value
        key, value = arg.split("=")
        cfg[key] = type(cfg[key])(value)
    print("config:", json.dumps(cfg), flush=True)
    model = TinyLM(cfg["vocab"], d=cfg["d_model"], layers=cfg["layers"])
    state = {"model": model.state_dict()}
    dcp.load(state, checkpoint_id=cfg["init_from"])
    model.load_state_dict(state["model"])
    print("loaded", sum(p.numel() for p in model.parameters()), "parameters", flush=True)
    """, "finetune.log", "/home/sana/lm", "sana", argv=["d_model=96", "lr=3e-5"],
    setup="import pathlib\n"
          f"pathlib.Path('model.py').write_text({_DCP_MODEL!r})\n"
          "import torch.distributed.checkpoint as dcp\n"
          "from model import TinyLM\n"
          "dcp.save({'model': TinyLM(32000).state_dict()}, checkpoint_id='ckpt/step-2000')\n")

# ------------------------------------------------------------------------------ torch-export-constraints-violated

real(
    _case("torch-export-constraints-violated-fixed-batch-view-cpu-01", "torch-export-constraints-violated", "easy",
          "torch.export of a ranking model for serving with a dynamic batch dimension, while the model's forward "
          "reshapes with the config's batch size (view(self.batch_size, -1)), which specializes the batch to 32",
          {"torch_version": "2.13.0", "launcher": "python"}, ["dynamic"]),
    "python", "export_ranker.py", """
    \"\"\"Export the ranker with torch.export for the serving runtime (dynamic batch).\"\"\"
    import torch
    import torch.nn as nn
    from torch.export import Dim, export

    CFG = {"batch_size": 32, "n_features": 48, "hidden": 128, "max_batch": 4096}


    class Ranker(nn.Module):
        def __init__(self, cfg):
            super().__init__()
            self.batch_size = cfg["batch_size"]
            self.mlp = nn.Sequential(nn.Linear(cfg["n_features"], cfg["hidden"]), nn.ReLU(), nn.Linear(cfg["hidden"], 1))

        def forward(self, feats):
            scores = self.mlp(feats)
            return scores.view(self.batch_size, -1).squeeze(-1)


    model = Ranker(CFG).eval()
    example = (torch.randn(CFG["batch_size"], CFG["n_features"]),)
    batch = Dim("batch", min=1, max=CFG["max_batch"])
    print(f"exporting Ranker with dynamic batch in [1, {CFG['max_batch']}]", flush=True)
    ep = export(model, example, dynamic_shapes={"feats": {0: batch}})
    torch.export.save(ep, "ranker.pt2")
    print("saved ranker.pt2")
    """, "export.log", "/home/lucas/ranker", "lucas")

real(
    _case("torch-export-constraints-violated-even-length-guard-cpu-02", "torch-export-constraints-violated", "medium",
          "A deployment job prints collect_env, then exports a speech encoder whose frame-stacking reshape needs an "
          "even number of frames, with the time dimension declared fully dynamic; export reports the guards and "
          "suggests a Dim of 2*_frames",
          {"torch_version": "2.13.0", "launcher": "python"}, ["Dim"]),
    "python", "export_encoder.py", """
    \"\"\"torch.export of the streaming speech encoder (dynamic number of frames).\"\"\"
    import torch
    import torch.nn as nn
    from torch.export import Dim, export


    class FrameStackEncoder(nn.Module):
        def __init__(self, n_mels=80, d=256):
            super().__init__()
            self.proj = nn.Linear(2 * n_mels, d)      # two frames stacked: 10 ms -> 20 ms
            self.layers = nn.TransformerEncoder(nn.TransformerEncoderLayer(d, 4, 4 * d, batch_first=True), 2)

        def forward(self, mels):                      # (batch, frames, n_mels)
            b, t, f = mels.shape
            stacked = mels.reshape(b, t // 2, 2 * f)
            return self.layers(self.proj(stacked))


    model = FrameStackEncoder().eval()
    frames = Dim("frames", min=2, max=3000)
    with torch.no_grad():
        ep = export(model, (torch.randn(1, 200, 80),), dynamic_shapes={"mels": {1: frames}})
    print(ep)
    """, "deploy.log", "/home/lucas/asr", "lucas", env_report=True)

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


TB310 = "/opt/conda/envs/train/lib/python3.10/site-packages/torch/utils"
_LOADER_FRAMES = (
    f'  File "{TB310}/data/dataloader.py", line 725, in __next__\n'
    "    data = self._next_data()\n"
    f'  File "{TB310}/data/dataloader.py", line 784, in _next_data\n'
    "    index = self._next_index()  # may raise StopIteration\n"
    f'  File "{TB310}/data/dataloader.py", line 715, in _next_index\n'
    "    return next(self._sampler_iter)  # may raise StopIteration\n"
    f'  File "{TB310}/data/sampler.py", line 341, in __iter__\n'
    "    batch = [*itertools.islice(sampler_iter, self.batch_size)]\n")
_DEVICE_FRAME = (f'  File "{TB310}/_device.py", line 122, in __torch_function__\n'
                 "    return func(*args, **kwargs)\n")
_DDP_TB = ("Traceback (most recent call last):\n"
           '  File "/workspace/mae/pretrain.py", line 142, in <module>\n'
           "    main(args)\n"
           '  File "/workspace/mae/pretrain.py", line 97, in main\n'
           "    for it, (images, _) in enumerate(loader):\n"
           + _LOADER_FRAMES +
           f'  File "{TB310}/data/distributed.py", line 112, in __iter__\n'
           "    indices = torch.randperm(len(self.dataset), generator=g).tolist()  # type: ignore[arg-type]\n"
           + _DEVICE_FRAME +
           "RuntimeError: Expected a 'cuda' device type for generator but found 'cpu'\n")


def _ddp_generator_log() -> str:
    head = dedent("""
    + torchrun --nnodes=1 --nproc_per_node=4 pretrain.py --model mae_vit_base --batch_size 64 --data /data/imagenet
    W1128 09:14:02.118000 2231 torch/distributed/run.py:874]<SP>
    W1128 09:14:02.118000 2231 torch/distributed/run.py:874] *****************************************
    W1128 09:14:02.118000 2231 torch/distributed/run.py:874] Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed.
    W1128 09:14:02.118000 2231 torch/distributed/run.py:874] *****************************************
    | distributed init (rank 0): env://, gpu 0
    | distributed init (rank 2): env://, gpu 2
    | distributed init (rank 1): env://, gpu 1
    | distributed init (rank 3): env://, gpu 3
    torch 2.13.0+cu128, python 3.10.14, 4 x NVIDIA L40S
    torch.set_default_device('cuda:0') (args.default_device=True)
    Model = MaskedAutoencoderViT(patch_size=16, embed_dim=768, depth=12), 111.9M params
    Dataset ImageFolder: 1281167 images; sampler DistributedSampler(num_replicas=4, shuffle=True)
    base lr: 1.50e-04, actual lr: 6.00e-04, accumulate grad iterations: 1, effective batch size: 256
    Start training for 800 epochs
    """) + "\n"
    out = head
    for rank in (0, 2, 1, 3):
        out += prefix(_DDP_TB, f"[rank{rank}]: ")
    out += dedent("""
    W1128 09:14:41.530000 2231 torch/distributed/elastic/multiprocessing/api.py:1028] Sending process 2237 closing signal SIGTERM
    W1128 09:14:41.531000 2231 torch/distributed/elastic/multiprocessing/api.py:1028] Sending process 2238 closing signal SIGTERM
    W1128 09:14:41.531000 2231 torch/distributed/elastic/multiprocessing/api.py:1028] Sending process 2239 closing signal SIGTERM
    E1128 09:14:41.802000 2231 torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: 1) local_rank: 0 (pid: 2236) of binary: /opt/conda/envs/train/bin/python3.10
    Traceback (most recent call last):
      File "/opt/conda/envs/train/bin/torchrun", line 8, in <module>
        sys.exit(main())
      File "/opt/conda/envs/train/lib/python3.10/site-packages/torch/distributed/elastic/multiprocessing/errors/__init__.py", line 367, in wrapper
        return f(*args, **kwargs)
      File "/opt/conda/envs/train/lib/python3.10/site-packages/torch/distributed/run.py", line 1028, in main
        run(args)
      File "/opt/conda/envs/train/lib/python3.10/site-packages/torch/distributed/run.py", line 1019, in run
        elastic_launch(
      File "/opt/conda/envs/train/lib/python3.10/site-packages/torch/distributed/launcher/api.py", line 194, in __call__
        return launch_agent(
      File "/opt/conda/envs/train/lib/python3.10/site-packages/torch/distributed/launcher/api.py", line 383, in launch_agent
        raise ChildFailedError(
    torch.distributed.elastic.multiprocessing.errors.ChildFailedError:<SP>
    ============================================================
    pretrain.py FAILED
    ------------------------------------------------------------
    Failures:
    [1]:
      time      : 2026-11-28_09:14:41
      host      : gpu-l40s-03
      rank      : 1 (local_rank: 1)
      exitcode  : -15 (pid: 2237)  (SIGTERM)
      error_file: <N/A>
      traceback : Signal 15 (SIGTERM) received by PID 2237
    [2]:
      time      : 2026-11-28_09:14:41
      host      : gpu-l40s-03
      rank      : 2 (local_rank: 2)
      exitcode  : -15 (pid: 2238)  (SIGTERM)
      error_file: <N/A>
      traceback : Signal 15 (SIGTERM) received by PID 2238
    [3]:
      time      : 2026-11-28_09:14:41
      host      : gpu-l40s-03
      rank      : 3 (local_rank: 3)
      exitcode  : -15 (pid: 2239)  (SIGTERM)
      error_file: <N/A>
      traceback : Signal 15 (SIGTERM) received by PID 2239
    ------------------------------------------------------------
    Root Cause (first observed failure):
    [0]:
      time      : 2026-11-28_09:14:41
      host      : gpu-l40s-03
      rank      : 0 (local_rank: 0)
      exitcode  : 1 (pid: 2236)<SP>
      error_file: <N/A>
      traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html
    ============================================================
    """) + "\n"
    return out.replace("<SP>", " ")   # the lines torchrun ends with a space


WRITTEN.append(_case(
    "sampler-generator-device-mismatch-mae-ddp-default-device-torchrun-01", "sampler-generator-device-mismatch",
    "medium",
    "4-GPU torchrun MAE pre-training: the script calls torch.set_default_device(f'cuda:{local_rank}') before building "
    "the model and the DistributedSampler loader; the sampler's CPU generator meets a CUDA randperm on every rank",
    {"torch_version": "2.13.0", "python_version": "3.10.14", "launcher": "torchrun", "world_size": "4"},
    ["set_default_device"], {"train.log": _ddp_generator_log()}, initiating_rank=[0, 1, 2, 3]))

WRITTEN.append(_case(
    "sampler-generator-device-mismatch-device-context-shuffle-02", "sampler-generator-device-mismatch", "easy",
    "Single-GPU fine-tune that wraps the whole script body in `with torch.device('cuda'):`; the shuffling "
    "RandomSampler's CPU generator fails at the first batch",
    {"torch_version": "2.13.0", "python_version": "3.10.14", "launcher": "python"}, ["torch.device"],
    {"finetune.log": dedent("""
    $ python finetune_cls.py --epochs 3 --lr 2e-5
    device: NVIDIA A10G (cuda:0), torch 2.13.0+cu128
    loaded 18,432 training / 2,048 validation examples
    model: resnet50 (pretrained), head -> 12 classes
    Traceback (most recent call last):
      File "/home/jo/cls/finetune_cls.py", line 61, in <module>
        for step, (x, y) in enumerate(train_loader):
    """) + "\n" + _LOADER_FRAMES +
        f'  File "{TB310}/data/sampler.py", line 182, in __iter__\n'
        "    yield from torch.randperm(n, generator=generator).tolist()\n"
        + _DEVICE_FRAME +
        "RuntimeError: Expected a 'cuda' device type for generator but found 'cpu'\n"}))


def main() -> None:
    ap = parser(__doc__)
    ap.add_argument("--only", help="write only the cases whose id contains this")
    ap.add_argument("--capture", action="store_true", help="also rerun the real CPU programs and store what they print")
    ap.add_argument("--site", type=Path, help="a folder with the extra packages the captured programs import")
    args = ap.parse_args()
    print(f"wrote {write_selected(args.out, WRITTEN, args.only)} cases under {args.out}")
    if not args.capture:
        return
    if args.site:
        os.environ["PYTHONPATH"] = str(args.site.resolve())
    for prog in REAL:
        if not args.only or args.only in prog.case.case_id:
            case = capture(prog)
            if args.site:
                case.files = {name: text.replace(str(args.site.resolve()), prog.site) for name, text in case.files.items()}
            write_case(args.out, case)
            print("captured", prog.case.case_id)


if __name__ == "__main__":
    main()
