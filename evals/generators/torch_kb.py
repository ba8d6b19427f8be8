#!/usr/bin/env python3
"""Write the eval cases of the kb-torch entries (CUDA runtime and driver, containers, PyTorch core and
distributed, compile, JAX, clusters).

Two kinds of case, as in evals/generators/model.py (whose plumbing this reuses):

* captured cases: small CPU PyTorch programs in ``REAL`` run for real with the repository's venv
  (``python`` or ``torchrun`` with gloo); their output is the log, with only machine paths rewritten;
* written cases: logs of failures that need a GPU, a driver, Docker or a cluster, written out in full in
  ``WRITTEN`` as the tools print them (the messages checked against released artifacts, see each entry).

Usage:  python evals/generators/torch_kb.py [--out DIR] [--only SUBSTRING] [--capture]   (--capture reruns the real programs)
Output: evals/cases/<case-id>/{case.yaml, *.log}
"""

from __future__ import annotations

import re
import sys
import textwrap
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import Case, parser, write_selected  # noqa: E402
import model as _model  # noqa: E402
from model import RealProgram  # noqa: E402


def capture(prog: RealProgram) -> Case:
    """model.capture, with Dynamo's shortened source paths ("mp/crashdoc_real/<case>/x.py", its own
    abbreviation of /tmp/crashdoc_real/...) rewritten to the case's home like the full ones."""
    real_run = _model.subprocess.run
    short = re.compile(r"\S*crashdoc_real/" + re.escape(prog.case.case_id) + "/")

    def run(*args, **kwargs):
        proc = real_run(*args, **kwargs)
        if isinstance(proc.stdout, bytes):
            text = proc.stdout.decode("utf-8", "replace")
            text = text.replace(f"/tmp/crashdoc_real/{prog.case.case_id}", prog.home)
            proc.stdout = short.sub(prog.home.lstrip("/") + "/", text).encode()
        return proc

    _model.subprocess.run = run
    try:
        return _model.capture(prog)
    finally:
        _model.subprocess.run = real_run


def _case(case_id: str, label: str, difficulty: str, description: str, files: dict[str, str], facts: dict[str, str],
          must_mention: list[str], initiating_rank: int | list[int] | None = None, also: list[str] | None = None) -> Case:
    return Case(case_id=case_id, label=label, difficulty=difficulty, description=description,
                initiating_rank=initiating_rank, facts=facts, must_mention=must_mention, files=files, also=also or [])


SITE = "/home/{user}/venvs/train/lib/python3.11/site-packages"
REAL: list[RealProgram] = []


def real(case: Case, command: str, script_name: str, source: str, log_name: str, home: str, site: str,
         setup: str = "", argv: list[str] | None = None, env_report: bool = False) -> None:
    REAL.append(RealProgram(case, command, script_name, textwrap.dedent(source).lstrip(), log_name, home, site,
                            textwrap.dedent(setup).lstrip(), argv or [], env_report))


# ---------------------------------------------------------------------------------------------- captured

real(
    _case("backward-non-scalar-output-token-mask-cpu-01", "backward-non-scalar-output", "easy",
         "CPU debug run of a small causal LM; the per-token loss (reduction='none') is masked but never reduced "
         "before backward()", {}, {"torch_version": "2.13.0", "launcher": "python"}, ["mean"]),
    "python", "train_tiny_lm.py", '''
    """Tiny causal LM on synthetic tokens; masks padding out of the loss (debug run on CPU)."""
    import time
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    V, D, T, B = 512, 64, 32, 16
    torch.manual_seed(0)


    class TinyLM(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(V, D)
            layer = nn.TransformerEncoderLayer(D, 4, 128, batch_first=True)
            self.body = nn.TransformerEncoder(layer, 2)
            self.head = nn.Linear(D, V)

        def forward(self, ids):
            mask = nn.Transformer.generate_square_subsequent_mask(ids.shape[1])
            return self.head(self.body(self.emb(ids), mask=mask, is_causal=True))


    def batch():
        ids = torch.randint(1, V, (B, T))
        lengths = torch.randint(T // 2, T + 1, (B,))
        pad = torch.arange(T)[None, :] >= lengths[:, None]
        ids[pad] = 0
        return ids, ~pad


    model = TinyLM()
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
    print(f"params: {sum(p.numel() for p in model.parameters()):,}", flush=True)
    t0 = time.time()
    for step in range(1, 101):
        ids, keep = batch()
        logits = model(ids[:, :-1])
        per_tok = F.cross_entropy(logits.reshape(-1, V), ids[:, 1:].reshape(-1), reduction="none")
        loss = per_tok * keep[:, 1:].reshape(-1)          # padding contributes nothing
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if step % 10 == 0:
            print(f"step {step} loss {loss.mean().item():.4f} ({time.time() - t0:.1f}s)", flush=True)
    ''', "train.log", "/home/mira/tinylm", SITE.format(user="mira"))

real(
    _case("embedding-index-out-of-range-val-vocab-torchrun-cpu-01", "embedding-index-out-of-range", "medium",
         "2-rank gloo torchrun of a character-level classifier: the vocabulary is built from the training split "
         "only and unseen characters of the validation split map to len(vocab), one past the embedding table; "
         "both ranks fail at the first evaluation", {}, {"torch_version": "2.13.0", "launcher": "torchrun",
                                                          "world_size": "2"}, ["vocab", "embedding"]),
    "torchrun:2", "train_charcls.py", '''
    """Character-level intent classifier (gloo on CPU for the smoke test)."""
    import os
    import random
    import torch
    import torch.distributed as dist
    import torch.nn as nn
    import torch.nn.functional as F
    from torch.nn.parallel import DistributedDataParallel as DDP

    random.seed(0); torch.manual_seed(0)
    TRAIN = [("book a table for two", 0), ("play some jazz", 1), ("what is the weather", 2)] * 40
    VAL = [("réserve une table", 0), ("play müsic", 1), ("weather in zürich?", 2)] * 8


    def build_vocab(samples):
        chars = sorted({c for text, _ in samples for c in text})
        return {c: i for i, c in enumerate(chars)}


    def encode(text, vocab, width=24):
        ids = [vocab.get(c, len(vocab)) for c in text[:width]]   # unknown -> the next id
        return ids + [0] * (width - len(ids))


    class CharCNN(nn.Module):
        def __init__(self, n_chars, n_classes=3):
            super().__init__()
            self.emb = nn.Embedding(n_chars, 32)
            self.conv = nn.Conv1d(32, 64, 3, padding=1)
            self.out = nn.Linear(64, n_classes)

        def forward(self, ids):
            h = F.relu(self.conv(self.emb(ids).transpose(1, 2)))
            return self.out(h.max(dim=2).values)


    def main():
        dist.init_process_group("gloo")
        rank = dist.get_rank()
        vocab = build_vocab(TRAIN)
        if rank == 0:
            print(f"vocab size {len(vocab)}, train {len(TRAIN)}, val {len(VAL)}", flush=True)
        model = DDP(CharCNN(len(vocab)))
        opt = torch.optim.Adam(model.parameters(), lr=1e-3)
        shard = TRAIN[rank::dist.get_world_size()]
        for epoch in range(2):
            random.shuffle(shard)
            for i in range(0, len(shard), 16):
                chunk = shard[i:i + 16]
                x = torch.tensor([encode(t, vocab) for t, _ in chunk])
                y = torch.tensor([label for _, label in chunk])
                loss = F.cross_entropy(model(x), y)
                opt.zero_grad(); loss.backward(); opt.step()
            if rank == 0:
                print(f"epoch {epoch} train loss {loss.item():.4f}", flush=True)
            model.eval()
            with torch.no_grad():
                x = torch.tensor([encode(t, vocab) for t, _ in VAL])
                acc = (model(x).argmax(-1) == torch.tensor([label for _, label in VAL])).float().mean()
            model.train()
            if rank == 0:
                print(f"epoch {epoch} val acc {acc.item():.3f}", flush=True)
        dist.destroy_process_group()


    if __name__ == "__main__":
        main()
    ''', "train.log", "/home/ops/charcls", SITE.format(user="ops"))

real(
    _case("loss-target-out-of-bounds-one-based-csv-cpu-01", "loss-target-out-of-bounds", "easy",
         "CPU tabular classifier whose CSV numbers the 4 classes 1..4; the head has 4 outputs, so label 4 is "
         "out of bounds at the first batch that contains it", {}, {"torch_version": "2.13.0", "launcher": "python"},
         ["label"]),
    "python", "train_tickets.py", '''
    """Support-ticket priority classifier from a CSV export (CPU)."""
    import csv
    import io
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    torch.manual_seed(3)
    # priority column of the export: 1 = low ... 4 = urgent
    rows = "\\n".join(f"{i},{(i * 7) % 4 + 1}," + ",".join(f"{((i * j) % 13) / 13:.3f}" for j in range(12))
                      for i in range(600))
    reader = csv.reader(io.StringIO(rows))
    feats, labels = [], []
    for rec in reader:
        labels.append(int(rec[1]))
        feats.append([float(v) for v in rec[2:]])
    X, y = torch.tensor(feats), torch.tensor(labels)
    NUM_CLASSES = len(set(labels))
    print(f"loaded {len(y)} tickets, {NUM_CLASSES} priorities, features {X.shape[1]}", flush=True)
    model = nn.Sequential(nn.Linear(12, 64), nn.ReLU(), nn.Linear(64, NUM_CLASSES))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(5):
        perm = torch.randperm(len(y))
        for i in range(0, len(y), 32):
            idx = perm[i:i + 32]
            loss = F.cross_entropy(model(X[idx]), y[idx])
            opt.zero_grad(); loss.backward(); opt.step()
        print(f"epoch {epoch} loss {loss.item():.4f}", flush=True)
    ''', "train.log", "/home/li/tickets", SITE.format(user="li"))

real(
    _case("ddp-params-mismatch-across-ranks-side-head-torchrun-cpu-01", "ddp-params-mismatch-across-ranks", "easy",
         "2-rank gloo torchrun: an optional side-feature head is created only where a node-local feature file "
         "exists, so rank 0 has 6 parameters and rank 1 has 4; DDP's constructor refuses on both ranks", {},
         {"torch_version": "2.13.0", "launcher": "torchrun", "world_size": "2"}, ["rank"]),
    "torchrun:2", "train_ranker.py", '''
    """Two-tower ranker fine-tune (CPU debug run with gloo)."""
    import os
    import torch
    import torch.distributed as dist
    import torch.nn as nn
    from torch.nn.parallel import DistributedDataParallel as DDP


    class Tower(nn.Module):
        def __init__(self, d_in, d, extra_feature_head):
            super().__init__()
            self.net = nn.Sequential(nn.Linear(d_in, 128), nn.ReLU(), nn.Linear(128, d))
            # optional side-feature head, switched on when the feature file is present
            self.side = nn.Linear(16, d) if extra_feature_head else None

        def forward(self, x, side=None):
            h = self.net(x)
            if self.side is not None and side is not None:
                h = h + self.side(side)
            return h


    def main():
        dist.init_process_group("gloo")
        rank = dist.get_rank()
        # feature file is staged on node-local disk; rank 0 staged it first
        side_ok = os.path.exists(f"/tmp/side_feats_rank{rank}.pt") or rank == 0
        print(f"[rank{rank}] side features available: {side_ok}", flush=True)
        model = Tower(64, 32, extra_feature_head=side_ok)
        ddp = DDP(model)
        opt = torch.optim.AdamW(ddp.parameters(), lr=1e-3)
        for step in range(3):
            x = torch.randn(8, 64)
            loss = ddp(x).pow(2).mean()
            opt.zero_grad(); loss.backward(); opt.step()
        dist.destroy_process_group()


    if __name__ == "__main__":
        main()
    ''', "train.log", "/home/ranker/twotower", SITE.format(user="ranker"))

real(
    _case("ddp-params-mismatch-across-ranks-vocab-resize-torchrun-cpu-02", "ddp-params-mismatch-across-ranks", "hard",
         "2-rank gloo torchrun: rank 1 reads a tokenizer cache with 8 extra tokens and resizes its embedding; DDP's "
         "shape check fails on rank 1, and rank 0 only reports the gloo connection closing", {},
         {"torch_version": "2.13.0", "launcher": "torchrun", "world_size": "2"}, ["embedding"]),
    "torchrun:2", "finetune_lm.py", '''
    """Continue pre-training a small LM on support chats (gloo smoke test)."""
    import os
    import torch
    import torch.distributed as dist
    import torch.nn as nn
    from torch.nn.parallel import DistributedDataParallel as DDP

    BASE_VOCAB = 32000


    def load_tokenizer_vocab(rank):
        # node-local cache; the cache on the second node was written by a newer preprocessing run
        added = ["<|user|>", "<|agent|>", "<|sys|>", "<|tool|>", "<|end|>", "<|ticket|>", "<|url|>", "<|email|>"]
        return BASE_VOCAB + (len(added) if rank == 1 else 0)


    def main():
        dist.init_process_group("gloo")
        rank = dist.get_rank()
        vocab = load_tokenizer_vocab(rank)
        print(f"[rank{rank}] tokenizer vocab {vocab}", flush=True)
        model = nn.Sequential(nn.Embedding(vocab, 16), nn.Linear(16, 16))
        model = DDP(model)
        print(f"[rank{rank}] wrapped", flush=True)


    if __name__ == "__main__":
        main()
    ''', "train.log", "/home/ana/lm", SITE.format(user="ana"))

real(
    _case("dcp-missing-key-new-layer-resume-torchrun-cpu-01", "dcp-missing-key", "easy",
         "2-rank gloo torchrun resumes a Distributed Checkpoint saved before a new adapter layer was added to the "
         "model; dcp.load asks for the adapter's weights and every rank raises Missing key in checkpoint state_dict",
         {}, {"torch_version": "2.13.0", "launcher": "torchrun", "world_size": "2"}, ["checkpoint"]),
    "torchrun:2", "train_resume.py", """
    \"\"\"Resume a small classifier from its last distributed checkpoint (CPU smoke test).\"\"\"
    import os
    import torch
    import torch.distributed as dist
    import torch.distributed.checkpoint as dcp
    import torch.nn as nn
    from torch.distributed.checkpoint.state_dict import get_state_dict, set_state_dict

    CKPT = "ckpt/step-400"


    class Net(nn.Module):
        def __init__(self, adapter: bool):
            super().__init__()
            self.backbone = nn.Sequential(nn.Linear(32, 64), nn.GELU(), nn.Linear(64, 64))
            self.adapter = nn.Linear(64, 64) if adapter else None   # added in v0.4 of the recipe
            self.head = nn.Linear(64, 10)

        def forward(self, x):
            h = self.backbone(x)
            if self.adapter is not None:
                h = h + self.adapter(h)
            return self.head(h)


    def main():
        dist.init_process_group("gloo")
        rank = dist.get_rank()
        if not os.path.exists(CKPT + "/.metadata"):          # the checkpoint of the previous code version
            old = Net(adapter=False)
            opt = torch.optim.AdamW(old.parameters(), lr=1e-3)
            old(torch.randn(4, 32)).sum().backward(); opt.step()
            msd, osd = get_state_dict(old, opt)
            dcp.save({"model": msd, "optim": osd}, checkpoint_id=CKPT)
            dist.barrier()
        model = Net(adapter=True)
        opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
        model(torch.randn(4, 32)).sum().backward(); opt.step(); opt.zero_grad()
        msd, osd = get_state_dict(model, opt)
        if rank == 0:
            print(f"resuming from {CKPT}", flush=True)
        dcp.load({"model": msd, "optim": osd}, checkpoint_id=CKPT)
        set_state_dict(model, opt, model_state_dict=msd, optim_state_dict=osd)
        print(f"[rank{rank}] resumed", flush=True)
        dist.destroy_process_group()


    if __name__ == "__main__":
        main()
    """, "train.log", "/home/pat/cls", SITE.format(user="pat"))

real(
    _case("dcp-missing-key-compile-prefix-cpu-02", "dcp-missing-key", "medium",
         "Single-process fine-tune loads a DCP checkpoint saved from the plain model into the raw state_dict of the "
         "torch.compile'd model, whose keys carry the _orig_mod. prefix; DCP reports the first key as missing",
         {}, {"torch_version": "2.13.0", "launcher": "python"}, ["_orig_mod"]),
    "python", "finetune.py", """
    \"\"\"Fine-tune from the pre-training checkpoint (CPU debug run).\"\"\"
    import os
    import warnings
    import torch
    import torch.distributed.checkpoint as dcp
    import torch.nn as nn

    warnings.filterwarnings("ignore", message="torch.distributed is disabled")
    PRETRAINED = "pretrain/ckpt-final"


    def make_model():
        return nn.Sequential(nn.Embedding(1000, 64), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1000))


    if not os.path.exists(PRETRAINED + "/.metadata"):        # written by the pre-training job (plain model)
        dcp.save({"model": make_model().state_dict()}, checkpoint_id=PRETRAINED)

    model = torch.compile(make_model())
    print("model compiled; loading", PRETRAINED, flush=True)
    state = {"model": model.state_dict()}
    dcp.load(state, checkpoint_id=PRETRAINED)
    model.load_state_dict(state["model"])
    print("loaded", flush=True)
    """, "train.log", "/home/ren/ft", SITE.format(user="ren"))

real(
    _case("dtensor-mixed-tensor-tp-scale-torchrun-cpu-01", "dtensor-mixed-tensor", "easy",
         "2-rank gloo tensor-parallel MLP: RowwiseParallel(use_local_output=False) keeps the output a DTensor and "
         "a plain nn.Parameter scale outside the plan multiplies it; aten.mul refuses on both ranks",
         {}, {"torch_version": "2.13.0", "launcher": "torchrun", "world_size": "2"}, ["DTensor"]),
    "torchrun:2", "tp_mlp.py", """
    \"\"\"Tensor-parallel MLP block smoke test on a CPU mesh.\"\"\"
    import torch
    import torch.nn as nn
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel, parallelize_module

    mesh = init_device_mesh("cpu", (2,))


    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.up = nn.Linear(16, 64)
            self.down = nn.Linear(64, 16)
            self.scale = nn.Parameter(torch.ones(16))       # layer-scale, not in the plan

        def forward(self, x):
            return self.down(torch.relu(self.up(x))) * self.scale


    m = parallelize_module(MLP(), mesh, {"up": ColwiseParallel(), "down": RowwiseParallel(use_local_output=False)})
    y = m(torch.randn(4, 16))
    print(y.shape)
    """, "train.log", "/home/tp/bench", SITE.format(user="tp"))

real(
    _case("dtensor-mixed-tensor-rope-table-torchrun-cpu-02", "dtensor-mixed-tensor", "medium",
         "2-rank gloo tensor-parallel attention projection keeps DTensor outputs (use_local_output=False) and adds a "
         "positional table built as a plain tensor in forward; aten.add refuses on both ranks",
         {}, {"torch_version": "2.13.0", "launcher": "torchrun", "world_size": "2"}, ["DTensor"]),
    "torchrun:2", "tp_attn.py", """
    \"\"\"Sequence model with a tensor-parallel input projection (CPU mesh check before the GPU run).\"\"\"
    import math
    import torch
    import torch.nn as nn
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor.parallel import ColwiseParallel, parallelize_module

    mesh = init_device_mesh("cpu", (2,))


    def sinusoid(t, d):
        pos = torch.arange(t)[:, None]
        div = torch.exp(torch.arange(0, d, 2) * (-math.log(10000.0) / d))
        pe = torch.zeros(t, d)
        pe[:, 0::2] = torch.sin(pos * div)
        pe[:, 1::2] = torch.cos(pos * div)
        return pe


    class Encoder(nn.Module):
        def __init__(self, d=32):
            super().__init__()
            self.proj = nn.Linear(8, d)

        def forward(self, x):
            h = self.proj(x)
            return h + sinusoid(x.shape[1], h.shape[-1])


    enc = parallelize_module(Encoder(), mesh, {"proj": ColwiseParallel(use_local_output=False)})
    print(enc(torch.randn(2, 10, 8)).shape)
    """, "train.log", "/home/tp/seq", SITE.format(user="tp"))

real(
    _case("sdpa-no-available-kernel-forced-flash-mask-cpu-01", "sdpa-no-available-kernel", "medium",
          "CPU debug run of a small encoder whose attention forces SDPBackend.FLASH_ATTENTION (copied from a GPU "
          "benchmark) while passing a padding mask and dropout; SDPA warns why and finds no kernel",
          {}, {"torch_version": "2.13.0", "launcher": "python"}, ["math"]),
    "python", "train_encoder.py", """
    \"\"\"Small text encoder; attention pinned to the flash backend for speed (debug run on CPU).\"\"\"
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    torch.manual_seed(0)


    class Attn(nn.Module):
        def __init__(self, d=64, h=4, p=0.1):
            super().__init__()
            self.h, self.p = h, p
            self.qkv = nn.Linear(d, 3 * d)
            self.out = nn.Linear(d, d)

        def forward(self, x, pad_mask):
            b, t, d = x.shape
            q, k, v = self.qkv(x).view(b, t, 3, self.h, d // self.h).permute(2, 0, 3, 1, 4)
            mask = pad_mask[:, None, None, :]
            with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
                y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=self.p if self.training else 0.0)
            return self.out(y.transpose(1, 2).reshape(b, t, d))


    model = nn.ModuleDict({"emb": nn.Embedding(1000, 64), "attn": Attn(), "head": nn.Linear(64, 2)})
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    print("encoder params:", sum(p.numel() for p in model.parameters()), flush=True)
    for step in range(10):
        ids = torch.randint(1, 1000, (8, 24))
        lengths = torch.randint(8, 25, (8,))
        pad_mask = torch.arange(24)[None, :] < lengths[:, None]
        h = model["attn"](model["emb"](ids), pad_mask)
        loss = F.cross_entropy(model["head"](h[:, 0]), torch.randint(0, 2, (8,)))
        opt.zero_grad(); loss.backward(); opt.step()
        print(f"step {step} loss {loss.item():.4f}", flush=True)
    """, "train.log", "/home/eva/enc", SITE.format(user="eva"))

real(
    _case("dynamo-fullgraph-graph-break-timer-in-step-cpu-01", "dynamo-fullgraph-graph-break", "easy",
          "CPU debug run compiling a whole training-step function with fullgraph=True (backend='eager'); a timer "
          "call inside the step is a builtin Dynamo cannot trace, so the graph break is an error",
          {}, {"torch_version": "2.13.0", "launcher": "python"}, ["fullgraph"]),
    "python", "train_step_compiled.py", """
    \"\"\"Compile the whole step to catch graph breaks early (debug run on CPU, eager backend).\"\"\"
    import time
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(32, 64), nn.GELU(), nn.Linear(64, 4))
    opt = torch.optim.SGD(model.parameters(), lr=0.05)


    def step(x, y):
        t0 = time.perf_counter_ns()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        return loss, time.perf_counter_ns() - t0


    step_c = torch.compile(step, fullgraph=True, backend="eager")
    for i in range(3):
        x, y = torch.randn(16, 32), torch.randint(0, 4, (16,))
        loss, ns = step_c(x, y)
        opt.step(); opt.zero_grad()
        print(f"step {i} loss {loss.item():.4f} {ns / 1e6:.1f} ms", flush=True)
    """, "train.log", "/home/dev/compiled", SITE.format(user="dev"))

real(
    _case("dynamo-fullgraph-graph-break-data-dependent-if-cpu-02", "dynamo-fullgraph-graph-break", "medium",
          "A mixture-of-experts layer compiled with fullgraph=True branches in Python on a tensor value (whether any "
          "token was routed to the expert); Dynamo cannot guard on the data-dependent expression",
          {}, {"torch_version": "2.13.0", "launcher": "python"}, ["data-dependent"]),
    "python", "moe_layer.py", """
    \"\"\"Top-1 MoE layer; fullgraph compile before export (CPU check, eager backend).\"\"\"
    import torch
    import torch.nn as nn

    torch._dynamo.config.capture_scalar_outputs = True


    class MoE(nn.Module):
        def __init__(self, d=32, n=4):
            super().__init__()
            self.router = nn.Linear(d, n)
            self.experts = nn.ModuleList(nn.Linear(d, d) for _ in range(n))

        def forward(self, x):
            choice = self.router(x).argmax(-1)
            out = torch.zeros_like(x)
            for i, expert in enumerate(self.experts):
                mask = choice == i
                if mask.sum().item() > 0:          # skip experts with no tokens
                    out = out + mask[:, None] * expert(x)
            return out


    layer = torch.compile(MoE(), fullgraph=True, backend="eager")
    print(layer(torch.randn(64, 32)).shape)
    """, "train.log", "/home/moe/layers", SITE.format(user="moe"))

real(
    _case("inference-tensor-in-autograd-feature-cache-cpu-01", "inference-tensor-in-autograd", "easy",
          "A linear probe trains on frozen-backbone features precomputed under torch.inference_mode(); multiplying "
          "them with trainable weights needs them saved for backward, which autograd refuses",
          {}, {"torch_version": "2.13.0", "launcher": "python"}, ["inference_mode"]),
    "python", "linear_probe.py", """
    \"\"\"Linear probe on cached backbone features (CPU).\"\"\"
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    torch.manual_seed(0)
    backbone = nn.Sequential(nn.Linear(128, 256), nn.ReLU(), nn.Linear(256, 256)).eval()
    images = torch.randn(512, 128)
    labels = torch.randint(0, 10, (512,))

    with torch.inference_mode():                 # fast feature extraction
        feats = backbone(images)
    print(f"cached features {tuple(feats.shape)}", flush=True)

    probe = nn.Linear(256, 10)
    opt = torch.optim.Adam(probe.parameters(), lr=1e-3)
    for epoch in range(3):
        logits = probe(feats)
        loss = F.cross_entropy(logits, labels)
        opt.zero_grad(); loss.backward(); opt.step()
        print(f"epoch {epoch} loss {loss.item():.4f}", flush=True)
    """, "train.log", "/home/probe/exp", SITE.format(user="probe"))

real(
    _case("inference-tensor-in-autograd-ema-inplace-cpu-02", "inference-tensor-in-autograd", "medium",
          "A teacher (EMA) copy of the model is created inside an @torch.inference_mode() evaluation helper; the first "
          "EMA update after evaluation modifies its parameters in place outside inference mode and is refused",
          {}, {"torch_version": "2.13.0", "launcher": "python"}, ["clone"]),
    "python", "train_ema.py", """
    \"\"\"Student/teacher training with an EMA teacher (CPU smoke test).\"\"\"
    import copy
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    torch.manual_seed(0)
    student = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 3))
    opt = torch.optim.SGD(student.parameters(), lr=0.1)
    teacher = None


    @torch.inference_mode()
    def evaluate(model):
        global teacher
        if teacher is None:
            teacher = copy.deepcopy(model)           # first evaluation builds the teacher
        x = torch.randn(64, 16)
        return (model(x).argmax(-1) == teacher(x).argmax(-1)).float().mean().item()


    for step in range(1, 21):
        x, y = torch.randn(32, 16), torch.randint(0, 3, (32,))
        loss = F.cross_entropy(student(x), y)
        opt.zero_grad(); loss.backward(); opt.step()
        if step % 10 == 0:
            print(f"step {step} loss {loss.item():.4f} agree {evaluate(student):.3f}", flush=True)
        if teacher is not None:
            with torch.no_grad():
                for pt, ps in zip(teacher.parameters(), student.parameters()):
                    pt.mul_(0.99).add_(ps, alpha=0.01)
    """, "train.log", "/home/ssl/ema", SITE.format(user="ssl"))

real(
    _case("module-missing-forward-typo-cpu-01", "module-missing-forward", "easy",
          "CPU run of a small tabular model whose forward method is misspelt 'foward'; the first call of the model "
          "hits nn.Module's placeholder", {}, {"torch_version": "2.13.0", "launcher": "python"}, ["forward"]),
    "python", "train_tab.py", """
    \"\"\"Tabular regression baseline (CPU).\"\"\"
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    torch.manual_seed(1)


    class MLP(nn.Module):
        def __init__(self, d_in=20, hidden=64):
            super().__init__()
            self.body = nn.Sequential(nn.Linear(d_in, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
            self.head = nn.Linear(hidden, 1)

        def foward(self, x):
            return self.head(self.body(x)).squeeze(-1)


    X, y = torch.randn(1024, 20), torch.randn(1024)
    model = MLP()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    print(f"train rows {len(y)}, params {sum(p.numel() for p in model.parameters())}", flush=True)
    for epoch in range(5):
        for i in range(0, len(y), 128):
            loss = F.mse_loss(model(X[i:i + 128]), y[i:i + 128])
            opt.zero_grad(); loss.backward(); opt.step()
        print(f"epoch {epoch} mse {loss.item():.4f}", flush=True)
    """, "train.log", "/home/tab/baseline", SITE.format(user="tab"))

real(
    _case("module-missing-forward-modulelist-torchrun-cpu-02", "module-missing-forward", "medium",
          "2-rank gloo torchrun of a model that calls its nn.ModuleList of blocks like a layer; ModuleList has no "
          "forward, and both ranks fail at the first step", {},
          {"torch_version": "2.13.0", "launcher": "torchrun", "world_size": "2"}, ["ModuleList"]),
    "torchrun:2", "train_blocks.py", """
    \"\"\"Residual MLP stack trained with DDP (gloo smoke test).\"\"\"
    import torch
    import torch.distributed as dist
    import torch.nn as nn
    from torch.nn.parallel import DistributedDataParallel as DDP


    class Stack(nn.Module):
        def __init__(self, d=32, depth=4):
            super().__init__()
            self.blocks = nn.ModuleList(nn.Sequential(nn.Linear(d, d), nn.GELU()) for _ in range(depth))
            self.out = nn.Linear(d, 1)

        def forward(self, x):
            return self.out(self.blocks(x))


    dist.init_process_group("gloo")
    model = DDP(Stack())
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for step in range(3):
        loss = model(torch.randn(8, 32)).pow(2).mean()
        opt.zero_grad(); loss.backward(); opt.step()
    dist.destroy_process_group()
    """, "train.log", "/home/ddp/stack", SITE.format(user="ddp"))

real(
    _case("dataloader-timeout-slow-sample-cpu-01", "dataloader-timeout", "medium",
          "CPU run with DataLoader(num_workers=2, timeout=5): a few samples of the shard take far longer to decode "
          "than the rest, and the loop gives up waiting after a few good steps", {},
          {"torch_version": "2.13.0", "launcher": "python"}, ["timeout"]),
    "python", "train_audio.py", """
    \"\"\"Audio keyword spotting; the decoder is slow on long files (CPU).\"\"\"
    import time
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    from torch.utils.data import DataLoader, Dataset


    class Clips(Dataset):
        def __len__(self):
            return 256

        def __getitem__(self, i):
            if i >= 96:              # the long recordings of the second shard
                time.sleep(8)
            return torch.randn(1, 1600), i % 10


    model = nn.Sequential(nn.Conv1d(1, 8, 9, stride=4), nn.ReLU(), nn.AdaptiveAvgPool1d(1), nn.Flatten(), nn.Linear(8, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    loader = DataLoader(Clips(), batch_size=16, num_workers=2, timeout=5)
    for step, (x, y) in enumerate(loader):
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad(); loss.backward(); opt.step()
        print(f"step {step} loss {loss.item():.4f}", flush=True)
    """, "train.log", "/home/kws/train", SITE.format(user="kws"))

real(
    _case("dataloader-timeout-stalled-read-torchrun-cpu-02", "dataloader-timeout", "hard",
          "2-rank gloo torchrun; on rank 1 a worker blocks on a read that never returns (a stalled mount, simulated "
          "by a lock the worker inherited held); rank 1's loader times out after 10 s while rank 0 waits in the "
          "gradient all-reduce and then fails when rank 1 leaves", {},
          {"torch_version": "2.13.0", "launcher": "torchrun", "world_size": "2"}, ["timeout"]),
    "torchrun:2", "train_shards.py", """
    \"\"\"Sharded image-feature training (gloo smoke test); shards are read from a shared mount.\"\"\"
    import threading
    import time
    import torch
    import torch.distributed as dist
    import torch.nn as nn
    import torch.nn.functional as F
    from torch.nn.parallel import DistributedDataParallel as DDP
    from torch.utils.data import DataLoader, Dataset

    MOUNT_LOCK = threading.Lock()


    class Shard(Dataset):
        def __init__(self, rank):
            self.rank = rank

        def __len__(self):
            return 64

        def __getitem__(self, i):
            if self.rank == 1 and i == 40:
                MOUNT_LOCK.acquire()   # the read of part-0040 never returns
            return torch.randn(32), i % 4


    def main():
        dist.init_process_group("gloo")
        rank = dist.get_rank()
        if rank == 1:
            MOUNT_LOCK.acquire()       # held by the reader thread of the mount client
        model = DDP(nn.Linear(32, 4))
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        loader = DataLoader(Shard(rank), batch_size=8, num_workers=1, timeout=10)
        for step, (x, y) in enumerate(loader):
            loss = F.cross_entropy(model(x), y)
            opt.zero_grad(); loss.backward(); opt.step()
            print(f"[rank{rank}] step {step} loss {loss.item():.4f}", flush=True)
        dist.destroy_process_group()


    if __name__ == "__main__":
        main()
    """, "train.log", "/home/img/shards", SITE.format(user="img"))


# ---------------------------------------------------------------------------------------------- written

WRITTEN: list[Case] = []


def written(case_id: str, label: str, difficulty: str, description: str, files: dict[str, str],
            facts: dict[str, str], must_mention: list[str], initiating_rank: int | list[int] | None = None,
            also: list[str] | None = None) -> None:
    WRITTEN.append(_case(case_id, label, difficulty, description,
                         {name: textwrap.dedent(text).lstrip("\n") for name, text in files.items()}, facts, must_mention,
                         initiating_rank, also))


written(
    "nvml-driver-library-mismatch-slurm-prolog-01", "nvml-driver-library-mismatch", "easy",
    "Slurm job on a node whose driver packages were upgraded overnight without a reboot: the job script's "
    "nvidia-smi fails with the NVML mismatch and torch warns error 803, then set_device raises",
    {"slurm-4471902.out": """
    + date
    Tue Nov 24 07:12:03 UTC 2026
    + hostname
    gpu-a100-017
    + nvidia-smi
    Failed to initialize NVML: Driver/library version mismatch
    NVML library version: 550.127
    + source /shared/envs/vision/bin/activate
    + srun --ntasks-per-node=4 python -u train_seg.py --config configs/seg_b4.yaml
    /shared/envs/vision/lib/python3.11/site-packages/torch/cuda/__init__.py:654: UserWarning: CUDA initialization: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling NumCudaDevices() that might have already set an error? Error 803: system has unsupported display driver / cuda driver combination (Triggered internally at /pytorch/c10/cuda/CUDAFunctions.cpp:109.)
      return torch._C._cuda_getDeviceCount() > 0
    2026-11-24 07:12:19,402 [rank 0] INFO seg: torch 2.5.1+cu124, cuda available: False, devices: 0
    Traceback (most recent call last):
      File "/home/tvo/seg/train_seg.py", line 211, in <module>
        main()
      File "/home/tvo/seg/train_seg.py", line 142, in main
        torch.cuda.set_device(local_rank)
      File "/shared/envs/vision/lib/python3.11/site-packages/torch/cuda/__init__.py", line 478, in set_device
        torch._C._cuda_setDevice(device)
      File "/shared/envs/vision/lib/python3.11/site-packages/torch/cuda/__init__.py", line 319, in _lazy_init
        torch._C._cuda_init()
    RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling NumCudaDevices() that might have already set an error? Error 803: system has unsupported display driver / cuda driver combination
    srun: error: gpu-a100-017: tasks 0-3: Exited with exit code 1
    """},
    {"torch_version": "2.5.1", "cuda_version": "12.4", "exit_code": "1"}, ["reboot"])

written(
    "nvml-driver-library-mismatch-k8s-dmesg-02", "nvml-driver-library-mismatch", "hard",
    "Kubernetes training pod fails with error 803 in torch; the operator's node debug bundle (kubectl logs + "
    "dmesg) shows NVRM API mismatch between the new user-space driver and the old kernel module",
    {"pod-trainer-7c9f.log": """
    [2026-11-28T02:40:11Z] starting trainer pod llm-ft-7c9f-worker-0 on node ip-10-0-31-7
    [2026-11-28T02:40:12Z] env: WORLD_SIZE=8 NPROC_PER_NODE=8 MASTER_ADDR=llm-ft-7c9f-master-0
    [2026-11-28T02:40:15Z] W1128 02:40:15.118000 1 torch/distributed/run.py:793] Setting OMP_NUM_THREADS environment variable for each process to be 1 in default
    [2026-11-28T02:40:21Z] [rank3]:[W1128 02:40:21.552014 44 c10/cuda/CUDAFunctions.cpp:109] Warning: CUDA initialization: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling NumCudaDevices() that might have already set an error? Error 803: system has unsupported display driver / cuda driver combination (function operator())
    [2026-11-28T02:40:21Z] [rank0]:[W1128 02:40:21.552907 41 c10/cuda/CUDAFunctions.cpp:109] Warning: CUDA initialization: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling NumCudaDevices() that might have already set an error? Error 803: system has unsupported display driver / cuda driver combination (function operator())
    [2026-11-28T02:40:21Z] [rank0]: Traceback (most recent call last):
    [2026-11-28T02:40:21Z] [rank0]:   File "/app/train.py", line 58, in <module>
    [2026-11-28T02:40:21Z] [rank0]:     dist.init_process_group("nccl", device_id=torch.device("cuda", local_rank))
    [2026-11-28T02:40:21Z] [rank0]: RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling NumCudaDevices() that might have already set an error? Error 803: system has unsupported display driver / cuda driver combination
    [2026-11-28T02:40:22Z] E1128 02:40:22.004000 1 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) local_rank: 0 (pid: 41) of binary: /usr/bin/python
    [2026-11-28T02:40:22Z] torch.distributed.elastic.multiprocessing.errors.ChildFailedError:
    """, "node-ip-10-0-31-7-dmesg.txt": """
    [412307.118240] nvidia-uvm: Loaded the UVM driver, major device number 509.
    [412517.993310] NVRM: API mismatch: the client has the version 550.127.05, but
                    NVRM: this kernel module has the version 550.90.07.  Please
                    NVRM: make sure that this kernel module and all NVIDIA driver
                    NVRM: components have the same version.
    [412518.001122] NVRM: API mismatch: the client has the version 550.127.05, but
                    NVRM: this kernel module has the version 550.90.07.  Please
                    NVRM: make sure that this kernel module and all NVIDIA driver
                    NVRM: components have the same version.
    """},
    {"launcher": "torchrun", "exit_code": "1"}, ["kernel module"], initiating_rank=0)

written(
    "cuda-driver-too-old-container-require-cuda-05", "cuda-driver-too-old", "easy",
    "CI job runs a CUDA 12.8 training image on a runner whose driver supports CUDA 12.4; the NVIDIA hook's "
    "requirement check refuses before the container starts (the driver is too old for the image)",
    {"ci-job-88123.log": """
    Running with gitlab-runner 17.5.2 (c6eae8d7)
      on gpu-runner-03 t3_8ZsxK, system ID: s_0b1cd2e3f4a5
    Preparing the "shell" executor
    $ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
    NVIDIA L4, 550.54.15
    $ docker pull registry.example.internal/ml/trainer:cu128-2026.11
    cu128-2026.11: Pulling from ml/trainer
    Digest: sha256:4f3a9c1e0d2b7a6f5e4d3c2b1a0f9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f
    Status: Image is up to date for registry.example.internal/ml/trainer:cu128-2026.11
    $ docker run --rm --gpus all -v $PWD:/work registry.example.internal/ml/trainer:cu128-2026.11 python /work/smoke_train.py --steps 50
    docker: Error response from daemon: failed to create task for container: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: error during container init: error running hook #0: error running hook: exit status 1, stdout: , stderr: Auto-detected mode as 'legacy'
    nvidia-container-cli: requirement error: unsatisfied condition: cuda>=12.8, please update your driver to a newer version, or use an earlier cuda container: unknown.
    ERROR: Job failed: exit status 125
    """},
    {"gpu_model": "L4", "driver_version": "550.54.15", "exit_code": "125"}, ["driver"],
    also=["nvidia-container-cli-failure"])

written(
    "nvidia-container-cli-failure-device-index-01", "nvidia-container-cli-failure", "medium",
    "A job wrapper pins NVIDIA_VISIBLE_DEVICES=4,5,6,7 from a config written for 8-GPU hosts and runs on a 4-GPU "
    "host; the hook refuses device 4 and the container never starts",
    {"launch.log": """
    2026-11-30T14:02:10Z launcher: host infer-a10-02 (4 GPUs), job eval-llm-1139, shard 1 of 2
    2026-11-30T14:02:10Z launcher: NVIDIA_VISIBLE_DEVICES=4,5,6,7 (from jobs/eval_llm.yaml: gpus_per_shard=4)
    2026-11-30T14:02:11Z launcher: docker run --rm --runtime=nvidia -e NVIDIA_VISIBLE_DEVICES=4,5,6,7 -v /data/evalsets:/data ghcr.io/acme/evalharness:1.9.2 python -m harness.run --tasks mmlu,gsm8k --tp 4
    docker: Error response from daemon: failed to create task for container: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: error during container init: error running hook #0: error running hook: exit status 1, stdout: , stderr: Auto-detected mode as 'legacy'
    nvidia-container-cli: device error: 4: unknown device: unknown.
    2026-11-30T14:02:12Z launcher: shard 1 exited with status 125 after 1.4s; retrying (1/3)
    2026-11-30T14:02:14Z launcher: shard 1 exited with status 125 after 1.2s; giving up
    """},
    {"exit_code": "125"}, ["device"])

written(
    "nvidia-container-cli-failure-no-driver-k8s-02", "nvidia-container-cli-failure", "medium",
    "Kubernetes pod on a freshly provisioned node without the NVIDIA driver: containerd's hook cannot load "
    "libnvidia-ml.so.1; the pod never runs and goes to CrashLoopBackOff",
    {"kubectl-describe.txt": """
    Name:             bert-ft-5d8b7-worker-0
    Namespace:        ml-train
    Node:             gpu-pool-b-9xk2p/10.20.4.17
    Status:           Pending
    Containers:
      trainer:
        Image:          nvcr.io/nvidia/pytorch:24.10-py3
        Command:        torchrun --nproc_per_node=4 train.py --config cfg/bert_large.yaml
        State:          Waiting
          Reason:       CrashLoopBackOff
        Last State:     Terminated
          Reason:       StartError
          Message:      failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: error during container init: error running hook #0: error running hook: exit status 1, stdout: , stderr: Auto-detected mode as 'legacy'
    nvidia-container-cli: initialization error: load library failed: libnvidia-ml.so.1: cannot open shared object file: no such file or directory: unknown
          Exit Code:    128
        Restart Count:  4
        Limits:
          nvidia.com/gpu:  4
    Events:
      Type     Reason     Age                 From               Message
      ----     ------     ----                ----               -------
      Normal   Scheduled  3m12s               default-scheduler  Successfully assigned ml-train/bert-ft-5d8b7-worker-0 to gpu-pool-b-9xk2p
      Normal   Pulled     3m10s               kubelet            Container image "nvcr.io/nvidia/pytorch:24.10-py3" already present on machine
      Warning  Failed     2m15s (x4 over 3m10s)  kubelet         Error: failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: error during container init: error running hook #0: error running hook: exit status 1, stdout: , stderr: Auto-detected mode as 'legacy'
    nvidia-container-cli: initialization error: load library failed: libnvidia-ml.so.1: cannot open shared object file: no such file or directory: unknown
      Warning  BackOff    58s (x9 over 2m50s)    kubelet         Back-off restarting failed container trainer in pod bert-ft-5d8b7-worker-0_ml-train
    """},
    {}, ["driver"])

written(
    "container-gpu-runtime-missing-docker-gpus-01", "container-gpu-runtime-missing", "easy",
    "A new workstation: docker run --gpus all fails at once because the NVIDIA Container Toolkit was never "
    "installed, though nvidia-smi works on the host",
    {"setup.log": """
    $ nvidia-smi -L
    GPU 0: NVIDIA GeForce RTX 4090 (UUID: GPU-5b1e2c3d-4f5a-6b7c-8d9e-0f1a2b3c4d5e)
    GPU 1: NVIDIA GeForce RTX 4090 (UUID: GPU-6c2f3d4e-5a6b-7c8d-9e0f-1a2b3c4d5e6f)
    $ docker --version
    Docker version 27.3.1, build ce12230
    $ docker run --rm --gpus all -v ~/proj/diffusion:/work -w /work pytorch/pytorch:2.5.1-cuda12.4-cudnn9-runtime \\
    >     torchrun --nproc_per_node=2 train_unet.py --config configs/unet_small.yaml
    docker: Error response from daemon: could not select device driver "" with capabilities: [[gpu]].

    Run 'docker run --help' for more information
    $ echo $?
    125
    """},
    {"gpu_model": "GeForce RTX 4090", "exit_code": "125"}, ["nvidia-container-toolkit"])

written(
    "container-gpu-runtime-missing-compose-runtime-02", "container-gpu-runtime-missing", "medium",
    "docker compose up of an inference+trainer stack on a host reinstalled with a snap Docker: the compose "
    "file uses runtime: nvidia, which the daemon does not know",
    {"compose-up.log": """
    $ docker compose -f deploy/compose.gpu.yaml up --build trainer
    [+] Building 1.9s (12/12) FINISHED                                                   docker:default
     => [trainer internal] load build definition from Dockerfile                                    0.0s
     => [trainer 1/6] FROM docker.io/nvidia/cuda:12.4.1-cudnn-runtime-ubuntu22.04                   0.3s
     => CACHED [trainer 5/6] RUN pip install -r requirements.txt                                    0.0s
     => [trainer] exporting to image                                                                0.2s
    [+] Running 2/1
     ✔ Network deploy_default      Created                                                          0.1s
     ✔ Container deploy-trainer-1  Created                                                          0.1s
    Attaching to trainer-1
    Error response from daemon: unknown or invalid runtime name: nvidia
    $ snap list docker
    Name    Version  Rev   Tracking       Publisher   Notes
    docker  27.2.0   2963  latest/stable  canonical✓  -
    """},
    {}, ["nvidia-ctk"])

written(
    "nvidia-fabric-manager-not-running-hgx-h100-01", "nvidia-fabric-manager-not-running", "medium",
    "8x H100 SXM HGX node after a reboot: nvidia-smi lists the GPUs, but every rank's CUDA init fails with "
    "error 802; the prolog's systemctl shows nvidia-fabricmanager inactive",
    {"slurm-991820.out": """
    prolog: node gpu-h100-b07 health check
    + nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader
    0, NVIDIA H100 80GB HBM3, 550.90.07, 81559 MiB
    1, NVIDIA H100 80GB HBM3, 550.90.07, 81559 MiB
    2, NVIDIA H100 80GB HBM3, 550.90.07, 81559 MiB
    3, NVIDIA H100 80GB HBM3, 550.90.07, 81559 MiB
    4, NVIDIA H100 80GB HBM3, 550.90.07, 81559 MiB
    5, NVIDIA H100 80GB HBM3, 550.90.07, 81559 MiB
    6, NVIDIA H100 80GB HBM3, 550.90.07, 81559 MiB
    7, NVIDIA H100 80GB HBM3, 550.90.07, 81559 MiB
    + systemctl is-active nvidia-fabricmanager
    inactive
    prolog: done
    + torchrun --nnodes=1 --nproc_per_node=8 pretrain.py --config configs/llama_7b.yaml
    W1126 11:02:41.803000 220114 torch/distributed/run.py:793] *****************************************
    W1126 11:02:41.803000 220114 torch/distributed/run.py:793] Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed.
    W1126 11:02:41.803000 220114 torch/distributed/run.py:793] *****************************************
    [rank5]:[W1126 11:02:47.119302 220131 c10/cuda/CUDAFunctions.cpp:109] Warning: CUDA initialization: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling NumCudaDevices() that might have already set an error? Error 802: system not yet initialized (function operator())
    [rank0]:[W1126 11:02:47.121877 220126 c10/cuda/CUDAFunctions.cpp:109] Warning: CUDA initialization: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling NumCudaDevices() that might have already set an error? Error 802: system not yet initialized (function operator())
    [rank0]: Traceback (most recent call last):
    [rank0]:   File "/home/llm/pretrain/pretrain.py", line 301, in <module>
    [rank0]:     main()
    [rank0]:   File "/home/llm/pretrain/pretrain.py", line 96, in main
    [rank0]:     torch.cuda.set_device(local_rank)
    [rank0]:   File "/opt/conda/lib/python3.11/site-packages/torch/cuda/__init__.py", line 478, in set_device
    [rank0]:     torch._C._cuda_setDevice(device)
    [rank0]: RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling NumCudaDevices() that might have already set an error? Error 802: system not yet initialized
    [rank5]: RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling NumCudaDevices() that might have already set an error? Error 802: system not yet initialized
    E1126 11:02:48.400000 220114 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) local_rank: 0 (pid: 220126) of binary: /opt/conda/bin/python
    torch.distributed.elastic.multiprocessing.errors.ChildFailedError:
    ============================================================
    pretrain.py FAILED
    """},
    {"gpu_model": "H100 80GB HBM3", "gpu_count": "8", "driver_version": "550.90.07", "launcher": "torchrun"},
    ["Fabric Manager"], initiating_rank=[0, 5])

written(
    "nvidia-fabric-manager-not-running-cupy-a100-02", "nvidia-fabric-manager-not-running", "medium",
    "RAPIDS/CuPy preprocessing step on a DGX A100 fails with cudaErrorSystemNotReady; the Fabric Manager "
    "package was left at the old version after a driver upgrade",
    {"preprocess.log": """
    2026-11-29 18:20:04 INFO  prep: node dgx-a100-04, 8 GPUs, driver 535.216.03
    2026-11-29 18:20:04 INFO  prep: dpkg: nvidia-fabricmanager-535 535.183.06-1, nvidia-driver-535-server 535.216.03-0ubuntu1
    2026-11-29 18:20:06 INFO  prep: reading shards s3://corpus/clean/part-000[0-7].parquet
    Traceback (most recent call last):
      File "/opt/prep/dedup.py", line 88, in <module>
        run(shards)
      File "/opt/prep/dedup.py", line 61, in run
        hashes = cp.asarray(minhash(batch))
      File "/opt/conda/lib/python3.11/site-packages/cupy/_creation/from_data.py", line 88, in asarray
        return _core.array(a, dtype, False, order, blocking=blocking)
      File "cupy/_core/core.pyx", line 2408, in cupy._core.core.array
      File "cupy/cuda/device.pyx", line 40, in cupy.cuda.device.get_device_id
      File "cupy_backends/cuda/api/runtime.pyx", line 202, in cupy_backends.cuda.api.runtime.getDevice
      File "cupy_backends/cuda/api/runtime.pyx", line 146, in cupy_backends.cuda.api.runtime.check_status
    cupy_backends.cuda.api.runtime.CUDARuntimeError: cudaErrorSystemNotReady: system not yet initialized
    """},
    {"driver_version": "535.216.03"}, ["version"])

written(
    "cuda-device-busy-unavailable-exclusive-rank0-01", "cuda-device-busy-unavailable", "medium",
    "Cluster GPUs in EXCLUSIVE_PROCESS mode; the script seeds CUDA before set_device, so every rank opens a "
    "context on GPU 0: ranks 1-3 fail with busy or unavailable, rank 0 then times out in the rendezvous",
    {"job_7781.log": """
    + nvidia-smi -q -d COMPUTE | grep "Compute Mode"
        Compute Mode                          : Exclusive_Process
        Compute Mode                          : Exclusive_Process
        Compute Mode                          : Exclusive_Process
        Compute Mode                          : Exclusive_Process
    + torchrun --standalone --nproc_per_node=4 train_detr.py --epochs 50 --batch 8
    W1130 09:14:02.551000 88121 torch/distributed/run.py:793] *****************************************
    W1130 09:14:02.551000 88121 torch/distributed/run.py:793] Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed.
    W1130 09:14:02.551000 88121 torch/distributed/run.py:793] *****************************************
    [rank2]: Traceback (most recent call last):
    [rank2]:   File "/home/kai/detr/train_detr.py", line 214, in <module>
    [rank2]:     main(args)
    [rank2]:   File "/home/kai/detr/train_detr.py", line 97, in main
    [rank2]:     utils.seed_everything(args.seed)
    [rank2]:   File "/home/kai/detr/utils.py", line 31, in seed_everything
    [rank2]:     torch.cuda.manual_seed(seed)
    [rank2]:   File "/home/kai/.venv/lib/python3.10/site-packages/torch/cuda/random.py", line 113, in manual_seed
    [rank2]:     _lazy_call(cb, seed=True)
    [rank2]:   File "/home/kai/.venv/lib/python3.10/site-packages/torch/cuda/__init__.py", line 319, in _lazy_init
    [rank2]:     torch._C._cuda_init()
    [rank2]: RuntimeError: CUDA error: CUDA-capable device(s) is/are busy or unavailable
    [rank2]: CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.
    [rank2]: For debugging consider passing CUDA_LAUNCH_BLOCKING=1
    [rank2]: Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.
    [rank1]: RuntimeError: CUDA error: CUDA-capable device(s) is/are busy or unavailable
    [rank3]: RuntimeError: CUDA error: CUDA-capable device(s) is/are busy or unavailable
    W1130 09:14:09.880000 88121 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 88131 closing signal SIGTERM
    E1130 09:14:10.115000 88121 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) local_rank: 1 (pid: 88132) of binary: /home/kai/.venv/bin/python
    torch.distributed.elastic.multiprocessing.errors.ChildFailedError:
    ============================================================
    train_detr.py FAILED
    ------------------------------------------------------------
    Root Cause (first observed failure):
    [0]:
      time      : 2026-11-30_09:14:10
      host      : node-g12
      rank      : 1 (local_rank: 1)
      exitcode  : 1 (pid: 88132)
      error_file: <N/A>
      traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html
    ============================================================
    """},
    {"launcher": "torchrun", "exit_code": "1"}, ["set_device"], initiating_rank=[1, 2, 3])

written(
    "cuda-device-busy-unavailable-stale-process-02", "cuda-device-busy-unavailable", "easy",
    "Single-GPU notebook-server job on a shared workstation in exclusive mode; a previous run's process still "
    "holds the GPU, so the new one cannot create a context",
    {"run.log": """
    $ nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv
    pid, process_name, used_memory [MiB]
    401223, /opt/conda/bin/python, 17890 MiB
    $ python finetune_whisper.py --model small --epochs 3
    2026-11-27 16:05:12 | INFO | loading dataset from /data/asr/cv17-de (12,031 clips)
    Traceback (most recent call last):
      File "/home/jo/asr/finetune_whisper.py", line 143, in <module>
        model = WhisperForConditionalGeneration.from_pretrained(args.model_path).to("cuda")
      File "/opt/conda/lib/python3.11/site-packages/transformers/modeling_utils.py", line 3162, in to
        return super().to(*args, **kwargs)
      File "/opt/conda/lib/python3.11/site-packages/torch/nn/modules/module.py", line 1340, in to
        return self._apply(convert)
      File "/opt/conda/lib/python3.11/site-packages/torch/cuda/__init__.py", line 319, in _lazy_init
        torch._C._cuda_init()
    RuntimeError: CUDA error: CUDA-capable device(s) is/are busy or unavailable
    CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.
    For debugging consider passing CUDA_LAUNCH_BLOCKING=1
    """},
    {"launcher": "python"}, ["process"])

written(
    "backward-non-scalar-output-dataparallel-02", "backward-non-scalar-output", "medium",
    "Legacy nn.DataParallel training script moved from 1 to 4 GPUs: the gathered loss is a vector of 4, after "
    "the gather warning, and loss.backward() refuses",
    {"train.log": """
    $ CUDA_VISIBLE_DEVICES=0,1,2,3 python train_resnet.py --arch resnet50 --bs 512 --amp
    => using 4 GPUs with nn.DataParallel: ['NVIDIA A10G', 'NVIDIA A10G', 'NVIDIA A10G', 'NVIDIA A10G']
    => loading /data/imagenet-100/train (126,689 images), val (5,000 images)
    Epoch 0:   0%|          | 0/248 [00:00<?, ?it/s]/opt/venv/lib/python3.10/site-packages/torch/nn/parallel/_functions.py:70: UserWarning: Was asked to gather along dimension 0, but all input tensors were scalars; will instead unsqueeze and return a vector.
      warnings.warn(
    Epoch 0:   0%|          | 0/248 [00:04<?, ?it/s]
    Traceback (most recent call last):
      File "/home/ml/cls/train_resnet.py", line 188, in <module>
        train_one_epoch(model, loader, opt, scaler, epoch)
      File "/home/ml/cls/train_resnet.py", line 121, in train_one_epoch
        scaler.scale(loss).backward()
      File "/opt/venv/lib/python3.10/site-packages/torch/_tensor.py", line 521, in backward
        torch.autograd.backward(
      File "/opt/venv/lib/python3.10/site-packages/torch/autograd/__init__.py", line 282, in backward
        grad_tensors_ = _make_grads(tensors, grad_tensors_, is_grads_batched=False)
      File "/opt/venv/lib/python3.10/site-packages/torch/autograd/__init__.py", line 155, in _make_grads
        raise RuntimeError(
    RuntimeError: grad can be implicitly created only for scalar outputs
    """},
    {"gpu_model": "A10G", "launcher": "python"}, ["mean", "DataParallel"])

written(
    "embedding-index-out-of-range-bert-long-seq-cpu-02", "embedding-index-out-of-range", "medium",
    "CPU batch-scoring job with a BERT classifier; documents tokenized without truncation exceed 512 "
    "positions, the tokenizer warns, and the position embedding lookup fails",
    {"score.log": """
    2026-11-30 22:01:44,210 INFO score: device=cpu, model=/models/bert-base-tickets, batch_size=16
    2026-11-30 22:01:46,905 INFO score: 48,212 documents to score
    Token indices sequence length is longer than the specified maximum sequence length for this model (1874 > 512). Running this sequence through the model will result in indexing errors
    scoring:   3%|▎         | 91/3014 [00:41<22:03,  2.21it/s]
    Traceback (most recent call last):
      File "/srv/jobs/score_tickets.py", line 77, in <module>
        main()
      File "/srv/jobs/score_tickets.py", line 64, in main
        logits = model(**enc).logits
      File "/srv/venv/lib/python3.11/site-packages/torch/nn/modules/module.py", line 1736, in _wrapped_call_impl
        return self._call_impl(*args, **kwargs)
      File "/srv/venv/lib/python3.11/site-packages/transformers/models/bert/modeling_bert.py", line 1672, in forward
        outputs = self.bert(
      File "/srv/venv/lib/python3.11/site-packages/transformers/models/bert/modeling_bert.py", line 1078, in forward
        embedding_output = self.embeddings(
      File "/srv/venv/lib/python3.11/site-packages/transformers/models/bert/modeling_bert.py", line 217, in forward
        position_embeddings = self.position_embeddings(position_ids)
      File "/srv/venv/lib/python3.11/site-packages/torch/nn/modules/sparse.py", line 190, in forward
        return F.embedding(
      File "/srv/venv/lib/python3.11/site-packages/torch/nn/functional.py", line 2551, in embedding
        return torch.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)
    IndexError: index out of range in self
    """},
    {"launcher": "python"}, ["truncation", "512"])

written(
    "loss-target-out-of-bounds-hf-num-labels-cpu-02", "loss-target-out-of-bounds", "medium",
    "CPU CI smoke test of an HF Trainer fine-tune on a 5-class dataset; the model was loaded without "
    "num_labels, so the head has 2 outputs and label 3 is out of bounds",
    {"ci.log": """
    $ python -m pytest tests/test_train_smoke.py -x -q
    F
    =================================== FAILURES ===================================
    ______________________________ test_trainer_smoke ______________________________

        def test_trainer_smoke(tmp_path):
            ds = load_fixture("tickets_5class_small")
            model = AutoModelForSequenceClassification.from_pretrained(TINY_MODEL)
            args = TrainingArguments(output_dir=tmp_path, max_steps=4, per_device_train_batch_size=8, use_cpu=True, report_to=[])
    >       Trainer(model=model, args=args, train_dataset=ds["train"]).train()

    tests/test_train_smoke.py:27:
    _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _
    .venv/lib/python3.11/site-packages/transformers/trainer.py:2206: in train
        return inner_training_loop(
    .venv/lib/python3.11/site-packages/transformers/trainer.py:3579: in training_step
        loss = self.compute_loss(model, inputs, num_items_in_batch=num_items_in_batch)
    .venv/lib/python3.11/site-packages/transformers/models/distilbert/modeling_distilbert.py:1008: in forward
        loss = loss_fct(logits.view(-1, self.num_labels), labels.view(-1))
    .venv/lib/python3.11/site-packages/torch/nn/modules/loss.py:1295: in forward
        return F.cross_entropy(
    _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _
    E           IndexError: Target 3 is out of bounds.

    .venv/lib/python3.11/site-packages/torch/nn/functional.py:3494: IndexError
    ----------------------------- Captured stderr call -----------------------------
    Some weights of DistilBertForSequenceClassification were not initialized from the model checkpoint at tests/fixtures/tiny-distilbert and are newly initialized: ['classifier.bias', 'classifier.weight', 'pre_classifier.bias', 'pre_classifier.weight']
    You should probably TRAIN this model on a down-stream task to be able to use it for predictions and inference.
    =========================== short test summary info ============================
    FAILED tests/test_train_smoke.py::test_trainer_smoke - IndexError: Target 3 is out of bounds.
    1 failed in 6.12s
    """},
    {}, ["num_labels"])


written(
    "sdpa-no-available-kernel-v100-flash-only-02", "sdpa-no-available-kernel", "medium",
    "2x V100 torchrun fine-tune whose model code disables the math and mem-efficient SDPA backends to force "
    "flash attention; on sm70 the flash kernel is refused, and SDPA has no kernel left",
    {"train.log": """
    + torchrun --nproc_per_node=2 finetune_vit.py --bs 64 --fp16
    W1129 08:31:12.004000 5511 torch/distributed/run.py:779] Setting OMP_NUM_THREADS environment variable for each process to be 1 in default
    [rank0] GPUs: Tesla V100-SXM2-32GB x2, torch 2.1.2+cu121
    [rank0] building vit_base_patch16_224, sdpa flash-only (configs/fast_attn.yaml)
    /opt/venv/lib/python3.10/site-packages/torch/nn/functional.py:5476: UserWarning: Memory efficient kernel not used because: (Triggered internally at ../aten/src/ATen/native/transformers/cuda/sdp_utils.cpp:367.)
      attn_output = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    /opt/venv/lib/python3.10/site-packages/torch/nn/functional.py:5476: UserWarning: Memory Efficient attention has been runtime disabled. (Triggered internally at ../aten/src/ATen/native/transformers/sdp_utils_cpp.h:437.)
      attn_output = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    /opt/venv/lib/python3.10/site-packages/torch/nn/functional.py:5476: UserWarning: Flash attention kernel not used because: (Triggered internally at ../aten/src/ATen/native/transformers/cuda/sdp_utils.cpp:369.)
      attn_output = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    /opt/venv/lib/python3.10/site-packages/torch/nn/functional.py:5476: UserWarning: Flash attention only supports gpu architectures in the range [sm75, sm90]. Attempting to run on a sm 7.0 gpu. (Triggered internally at ../aten/src/ATen/native/transformers/cuda/sdp_utils.cpp:189.)
      attn_output = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    [rank0]: Traceback (most recent call last):
    [rank0]:   File "/home/vit/finetune_vit.py", line 140, in <module>
    [rank0]:     loss = model(images, labels)
    [rank0]:   File "/home/vit/models/vit.py", line 61, in forward
    [rank0]:     x = F.scaled_dot_product_attention(q, k, v)
    [rank0]: RuntimeError: No available kernel.  Aborting execution.
    [rank1]: RuntimeError: No available kernel.  Aborting execution.
    E1129 08:31:20.551000 5511 torch/distributed/elastic/multiprocessing/api.py:835] failed (exitcode: 1) local_rank: 0 (pid: 5530) of binary: /opt/venv/bin/python
    torch.distributed.elastic.multiprocessing.errors.ChildFailedError:
    """},
    {"gpu_model": "Tesla V100-SXM2-32GB", "torch_version": "2.1.2", "launcher": "torchrun", "world_size": "2"},
    ["math"], initiating_rank=[0, 1])

written(
    "cudagraph-output-overwritten-eval-logits-01", "cudagraph-output-overwritten", "easy",
    "Evaluation loop of a torch.compile(mode='reduce-overhead') classifier appends each batch's logits and "
    "concatenates them at the end; the logits of earlier batches were overwritten by later replays",
    {"eval.log": """
    2026-11-30 19:02:11 | INFO | eval: model compiled with mode=reduce-overhead, 1 x NVIDIA L40S
    2026-11-30 19:02:11 | INFO | eval: 50,000 images, batch 256, 196 batches
    eval:  100%|██████████| 196/196 [00:41<00:00,  4.77it/s]
    Traceback (most recent call last):
      File "/srv/cls/evaluate.py", line 92, in <module>
        main()
      File "/srv/cls/evaluate.py", line 81, in main
        logits = torch.cat(all_logits)
    RuntimeError: Error: accessing tensor output of CUDAGraphs that has been overwritten by a subsequent run. Stack trace: File "/srv/cls/model.py", line 144, in forward
        return self.head(self.norm(x[:, 0])). To prevent overwriting, clone the tensor outside of torch.compile() or call torch.compiler.cudagraph_mark_step_begin() before each model invocation.
    """},
    {"gpu_model": "L40S", "launcher": "python"}, ["clone"])

written(
    "cudagraph-output-overwritten-grad-accum-02", "cudagraph-output-overwritten", "hard",
    "8-GPU torchrun pre-training with torch.compile(mode='reduce-overhead') and gradient accumulation 4: "
    "the .grad tensors allocated during the captured backward are overwritten, and every rank fails at the "
    "first optimizer step",
    {"train.log": """
    + torchrun --nproc_per_node=8 pretrain.py --compile reduce-overhead --grad-accum 4 --micro-bs 8
    W1201 03:44:50.118000 71120 torch/distributed/run.py:874] Setting OMP_NUM_THREADS environment variable for each process to be 1 in default
    [rank0]: 2026-12-01 03:45:02 INFO pretrain: torch 2.13.0+cu130, 8 x NVIDIA H100 80GB HBM3, bf16
    [rank0]: 2026-12-01 03:45:03 INFO pretrain: compiling the model (mode=reduce-overhead)
    [rank0]: 2026-12-01 03:46:10 INFO pretrain: step 0 micro 0 loss 10.9981
    [rank0]: 2026-12-01 03:46:11 INFO pretrain: step 0 micro 1 loss 10.9934
    [rank0]: 2026-12-01 03:46:11 INFO pretrain: step 0 micro 2 loss 10.9902
    [rank0]: 2026-12-01 03:46:11 INFO pretrain: step 0 micro 3 loss 10.9870
    [rank3]: Traceback (most recent call last):
    [rank3]:   File "/work/pretrain/pretrain.py", line 233, in <module>
    [rank3]:     train()
    [rank3]:   File "/work/pretrain/pretrain.py", line 201, in train
    [rank3]:     torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    [rank3]:   File "/opt/conda/lib/python3.12/site-packages/torch/nn/utils/clip_grad.py", line 36, in _no_grad_wrapper
    [rank3]:     return func(*args, **kwargs)
    [rank3]: RuntimeError: Error: accessing gradient tensor output of CUDAGraphs that has been overwritten by a subsequent run. Stack trace: [Could not find stack trace]. This can happen with torch.compile(mode='reduce-overhead') and gradient accumulation when a .grad tensor is allocated during CUDAGraph capture. If you need gradient accumulation, allocate stable .grad buffers outside CUDAGraph capture before the compiled backward runs, for example by running an eager warmup iteration or by preallocating zeroed .grad tensors. If you do not need gradient accumulation, set .grad to None before each backward.
    [rank0]: RuntimeError: Error: accessing gradient tensor output of CUDAGraphs that has been overwritten by a subsequent run. Stack trace: [Could not find stack trace]. This can happen with torch.compile(mode='reduce-overhead') and gradient accumulation when a .grad tensor is allocated during CUDAGraph capture.
    [rank5]: RuntimeError: Error: accessing gradient tensor output of CUDAGraphs that has been overwritten by a subsequent run. Stack trace: [Could not find stack trace].
    W1201 03:46:12.904000 71120 torch/distributed/elastic/multiprocessing/api.py:1028] Sending process 71141 closing signal SIGTERM
    E1201 03:46:13.310000 71120 torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: 1) local_rank: 3 (pid: 71144) of binary: /opt/conda/bin/python
    torch.distributed.elastic.multiprocessing.errors.ChildFailedError:
    """},
    {"gpu_model": "H100 80GB HBM3", "torch_version": "2.13.0", "launcher": "torchrun", "world_size": "8", "precision": "bf16"},
    ["grad"], initiating_rank=[0, 3, 5])

written(
    "jax-cuda-backend-missing-cpu-jaxlib-01", "jax-cuda-backend-missing", "medium",
    "A Flax training job on an A100 node installed with plain 'pip install jax'; JAX warns it falls back to CPU, "
    "the job crawls, and the script's own GPU check then fails",
    {"job-55120.out": """
    + pip list 2>/dev/null | grep -i -E "^(jax|jaxlib|flax|optax)"
    flax                0.8.5
    jax                 0.4.30
    jaxlib              0.4.30
    optax               0.2.3
    + nvidia-smi -L
    GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-7d1c2b3a-4e5f-6a7b-8c9d-0e1f2a3b4c5d)
    + python train_flax.py --config configs/resnet50_imagenet.py
    WARNING:2026-11-28 10:14:07,881:jax._src.xla_bridge:An NVIDIA GPU may be present on this machine, but a CUDA-enabled jaxlib is not installed. Falling back to cpu.
    I1128 10:14:08.002144 139871 train.py:88] devices: [CpuDevice(id=0)]
    I1128 10:14:51.551021 139871 train.py:140] step 1, 43.5 s/step
    Traceback (most recent call last):
      File "/home/fl/imagenet/train_flax.py", line 212, in <module>
        main()
      File "/home/fl/imagenet/train_flax.py", line 146, in main
        assert jax.default_backend() == "gpu", f"expected a GPU backend, got {jax.devices()}"
    AssertionError: expected a GPU backend, got [CpuDevice(id=0)]
    """},
    {"gpu_model": "A100-SXM4-80GB", "launcher": "python"}, ["jax[cuda12]"])

written(
    "jax-cuda-backend-missing-devices-gpu-02", "jax-cuda-backend-missing", "medium",
    "A container built from a requirements file pinning jax==0.4.30 without the cuda12 extra; the job asks "
    "for jax.devices('gpu') and JAX, which only has its CPU backend, refuses",
    {"run.log": """
    $ pip list | grep -i -E "^jax"
    jax                       0.4.30
    jaxlib                    0.4.30
    $ python -m diffusion.train --config configs/ddpm_cifar.py --workdir /ckpt/ddpm
    WARNING:2026-12-01 09:21:40,112:jax._src.xla_bridge:An NVIDIA GPU may be present on this machine, but a CUDA-enabled jaxlib is not installed. Falling back to cpu.
    Traceback (most recent call last):
      File "/app/diffusion/train.py", line 311, in <module>
        main()
      File "/app/diffusion/train.py", line 64, in main
        devices = jax.devices("gpu")
      File "/usr/local/lib/python3.11/site-packages/jax/_src/xla_bridge.py", line 1082, in devices
        return get_backend(backend).devices()
      File "/usr/local/lib/python3.11/site-packages/jax/_src/xla_bridge.py", line 997, in _get_backend_uncached
        platform = canonicalize_platform(platform)
      File "/usr/local/lib/python3.11/site-packages/jax/_src/xla_bridge.py", line 798, in canonicalize_platform
        raise RuntimeError(f"Unknown backend: '{platform}' requested, but no "
    RuntimeError: Unknown backend: 'gpu' requested, but no platforms that are instances of gpu are present. Platforms present are: cpu
    """},
    {"launcher": "python"}, ["jax[cuda12]"])

written(
    "jax-cudnn-version-mismatch-torch-shared-env-01", "jax-cudnn-version-mismatch", "medium",
    "A JAX data-augmentation step in an environment that also has PyTorch: torch's nvidia-cudnn-cu12 pin is "
    "older than the jax CUDA plugin needs, XLA refuses the loaded cuDNN and the first convolution fails",
    {"augment.log": """
    + pip list | grep -i -E "^(jax|torch |nvidia-cudnn)"
    jax                      0.4.30
    jax-cuda12-plugin        0.4.30
    nvidia-cudnn-cu12        8.9.2.26
    torch                    2.3.1
    + python augment_jax.py --shards 64
    2026-11-29 12:40:03.114201: E external/xla/xla/stream_executor/cuda/cuda_dnn.cc:535] Loaded runtime CuDNN library: 8.9.2 but source was compiled with: 9.1.1.  CuDNN library needs to have matching major version and equal or higher minor version. If using a binary install, upgrade your CuDNN library.  If building from sources, make sure the library loaded at runtime is compatible with the version specified during compile configuration.
    Traceback (most recent call last):
      File "/home/aug/augment_jax.py", line 57, in <module>
        out = blur(batch)
      File "/home/aug/augment_jax.py", line 31, in blur
        return jax.lax.conv_general_dilated(x, kernel, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
    jaxlib.xla_extension.XlaRuntimeError: FAILED_PRECONDITION: DNN library initialization failed. Look at the errors above for more details.
    """},
    {"torch_version": "2.3.1", "launcher": "python"}, ["cuDNN"])

written(
    "jax-cudnn-version-mismatch-ld-library-path-02", "jax-cudnn-version-mismatch", "hard",
    "Slurm job loads a cluster cudnn module (8.6) through LD_LIBRARY_PATH; the JAX CUDA backend fails to "
    "initialise on the cuDNN check and JAX falls back to CPU with the backend error as its warning",
    {"slurm-771204.out": """
    + module load cuda/12.2 cudnn/8.6.0
    + echo $LD_LIBRARY_PATH
    /sw/cudnn/8.6.0/lib:/sw/cuda/12.2/lib64
    + srun python -u train_gnn.py --epochs 100
    2026-11-30 05:12:44.901233: E external/xla/xla/stream_executor/cuda/cuda_dnn.cc:535] Loaded runtime CuDNN library: 8.6.0 but source was compiled with: 8.9.4.  CuDNN library needs to have matching major version and equal or higher minor version. If using a binary install, upgrade your CuDNN library.  If building from sources, make sure the library loaded at runtime is compatible with the version specified during compile configuration.
    WARNING:2026-11-30 05:12:44,951:jax._src.xla_bridge:CUDA backend failed to initialize: FAILED_PRECONDITION: DNN library initialization failed. Look at the errors above for more details. (Set TF_CPP_MIN_LOG_LEVEL=0 and rerun for more info.)
    epoch 0: 100%|██████████| 812/812 [31:02<00:00,  2.29s/it]
    slurmstepd: error: *** JOB 771204 ON gnode04 CANCELLED AT 2026-11-30T07:12:45 DUE TO TIME LIMIT ***
    """},
    {"launcher": "srun"}, ["LD_LIBRARY_PATH"], also=["jax-cuda-backend-missing"])

written(
    "lightning-slurm-task-mismatch-torchrun-style-01", "lightning-slurm-task-mismatch", "easy",
    "sbatch script written for torchrun (one task per node) runs a Lightning Trainer(devices=8) under srun; "
    "Lightning's Slurm check refuses",
    {"slurm-30021.out": """
    #!/bin/bash
    #SBATCH --job-name=sd-finetune
    #SBATCH --nodes=2
    #SBATCH --ntasks-per-node=1
    #SBATCH --gres=gpu:8
    + srun python train_sd.py --trainer.devices=8 --trainer.num_nodes=2 --trainer.precision=bf16-mixed
    Seed set to 42
    Traceback (most recent call last):
      File "/home/sd/train_sd.py", line 64, in <module>
        cli = LightningCLI(SDModule, SDDataModule, save_config_kwargs={"overwrite": True})
      File "/opt/venv/lib/python3.11/site-packages/lightning/pytorch/trainer/connectors/accelerator_connector.py", line 165, in __init__
        self._lazy_init_strategy()
      File "/opt/venv/lib/python3.11/site-packages/lightning/pytorch/trainer/connectors/accelerator_connector.py", line 604, in _lazy_init_strategy
        self.cluster_environment.validate_settings(num_devices=self._parallel_devices_count, num_nodes=self._num_nodes_flag)
      File "/opt/venv/lib/python3.11/site-packages/lightning/fabric/plugins/environments/slurm.py", line 176, in validate_settings
        raise ValueError(
    ValueError: You set `devices=8` in Lightning, but the number of tasks per node configured in SLURM `--ntasks-per-node=1` does not match. HINT: Set `devices=1`.
    srun: error: gpu-n21: task 1: Exited with exit code 1
    srun: error: gpu-n20: task 0: Exited with exit code 1
    """},
    {"launcher": "srun", "num_nodes": "2"}, ["ntasks-per-node"])

written(
    "lightning-slurm-task-mismatch-ntasks-02", "lightning-slurm-task-mismatch", "medium",
    "A job submitted with --ntasks=16 instead of --ntasks-per-node; Lightning refuses the variable on every "
    "task, the srun step fails in seconds",
    {"train.err": """
    /opt/venv/lib/python3.10/site-packages/lightning/fabric/plugins/environments/slurm.py:204: The `srun` command is available on your system but is not used. HINT: If your intention is to run Lightning on SLURM, prepend your python command with `srun` like so: srun python train.py --devices 8 ...
    Traceback (most recent call last):
      File "/scratch/u/asr/train.py", line 118, in <module>
        trainer = pl.Trainer(accelerator="gpu", devices=8, num_nodes=2, strategy="ddp", max_epochs=30)
      File "/opt/venv/lib/python3.10/site-packages/lightning/fabric/plugins/environments/slurm.py", line 219, in _validate_srun_variables
        raise RuntimeError(
    RuntimeError: You set `--ntasks=16` in your SLURM bash script, but this variable is not supported. HINT: Use `--ntasks-per-node=16` instead.
    """, "train.out": """
    job 918233 on nodes asr-[07-08], started 2026-11-27T21:03:10
    """},
    {}, ["ntasks-per-node"])

written(
    "k8s-pod-evicted-ephemeral-storage-checkpoints-01", "k8s-pod-evicted-ephemeral-storage", "medium",
    "PyTorchJob worker writes HF Trainer checkpoints into the container's filesystem; after the third save the "
    "pod exceeds its 100Gi ephemeral-storage limit and is evicted; the training log just stops",
    {"worker-0.log": """
    {'loss': 1.8821, 'grad_norm': 0.412, 'learning_rate': 1.9e-05, 'epoch': 0.28}
    {'loss': 1.8412, 'grad_norm': 0.398, 'learning_rate': 1.8e-05, 'epoch': 0.31}
     31%|███       | 3000/9700 [2:41:18<6:01:33,  3.24s/it]
    Saving model checkpoint to ./outputs/checkpoint-3000
    Configuration saved in ./outputs/checkpoint-3000/config.json
    Model weights saved in ./outputs/checkpoint-3000/model.safetensors
    """, "kubectl-describe-pod.txt": """
    Name:             llama-sft-worker-0
    Namespace:        research
    Node:             a100-pool-4/10.1.8.44
    Status:           Failed
    Reason:           Evicted
    Message:          Pod ephemeral local storage usage exceeds the total limit of containers 100Gi.
    Containers:
      pytorch:
        Image:      registry.internal/llm/sft:2026.11
        State:      Terminated
          Reason:   ContainerStatusUnknown
          Exit Code:  137
        Limits:
          ephemeral-storage:  100Gi
          nvidia.com/gpu:     8
    Events:
      Type     Reason   Age   From     Message
      ----     ------   ----  ----     -------
      Warning  Evicted  4m    kubelet  Pod ephemeral local storage usage exceeds the total limit of containers 100Gi.
      Normal   Killing  4m    kubelet  Stopping container pytorch
    """},
    {"exit_code": "137"}, ["ephemeral"])

written(
    "k8s-pod-evicted-ephemeral-storage-node-pressure-02", "k8s-pod-evicted-ephemeral-storage", "hard",
    "A notebook-launched fine-tune downloads a 140 GB model into ~/.cache on the node disk; the node reaches "
    "DiskPressure and the kubelet evicts the pod using most storage above its request (0)",
    {"events.txt": """
    $ kubectl get events -n team-nlp --sort-by=.lastTimestamp | tail -6
    12m   Normal    Started      pod/ft-mixtral-0   Started container trainer
    9m    Warning   EvictionThresholdMet   node/gpu-h100-11   Attempting to reclaim ephemeral-storage
    8m    Warning   Evicted      pod/ft-mixtral-0   The node was low on resource: ephemeral-storage. Threshold quantity: 36207207219, available: 31922004Ki. Container trainer was using 151871592Ki, request is 0, has larger consumption of ephemeral-storage.
    8m    Normal    Killing      pod/ft-mixtral-0   Stopping container trainer
    8m    Warning   NodeHasDiskPressure   node/gpu-h100-11   Node gpu-h100-11 status is now: NodeHasDiskPressure
    """, "trainer.log": """
    Downloading shards:  62%|██████▎   | 12/19 [07:41<04:29, 38.51s/it]
    model-00013-of-00019.safetensors:  71%|███████   | 3.53G/4.98G [00:27<00:11, 128MB/s]
    """},
    {}, ["ephemeral-storage"])


written(
    "triton-out-of-shared-memory-lora-kernel-4090-01", "triton-out-of-shared-memory", "easy",
    "QLoRA fine-tune on an RTX 4090 using a fused Triton LoRA matmul whose fixed config was tuned on H100; "
    "Triton refuses the kernel because it needs 128 KiB of shared memory and the GPU offers 99 KiB",
    {"train.log": """
    $ python sft.py --model /models/llama-3-8b --lora-r 16 --bf16 --fused-lora-kernel
    [2026-11-29 21:14:03] INFO gpu: NVIDIA GeForce RTX 4090 (24564 MiB), torch 2.5.1+cu124, triton 3.1.0
    [2026-11-29 21:14:41] INFO model loaded, trainable params 41,943,040 (0.52%)
      0%|          | 0/3000 [00:00<?, ?it/s]
    Traceback (most recent call last):
      File "/home/ft/sft.py", line 188, in <module>
        trainer.train()
      File "/home/ft/lora_kernels/fused.py", line 212, in forward
        _lora_fwd_kernel[grid](x, w, a, b, out, M, N, K, r, BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, num_stages=4, num_warps=8)
      File "/opt/venv/lib/python3.11/site-packages/triton/runtime/jit.py", line 345, in <lambda>
        return lambda *args, **kwargs: self.run(grid=grid, warmup=False, *args, **kwargs)
      File "/opt/venv/lib/python3.11/site-packages/triton/runtime/jit.py", line 691, in run
        kernel.run(grid_0, grid_1, grid_2, stream, kernel.function, kernel.packed_metadata, launch_metadata,
      File "/opt/venv/lib/python3.11/site-packages/triton/compiler/compiler.py", line 381, in __getattribute__
        self._init_handles()
      File "/opt/venv/lib/python3.11/site-packages/triton/compiler/compiler.py", line 374, in _init_handles
        raise OutOfResources(self.metadata.shared, max_shared, "shared memory")
    triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 131072, Hardware limit: 101376. Reducing block sizes or `num_stages` may help.
    """},
    {"gpu_model": "GeForce RTX 4090", "torch_version": "2.5.1", "launcher": "python"}, ["num_stages"])

written(
    "triton-out-of-shared-memory-inductor-l4-02", "triton-out-of-shared-memory", "hard",
    "Inference service compiles a model with a template config pinned in inductor options on an L4 node; the "
    "generated Triton matmul exceeds the L4's shared memory and Inductor reports it as BackendCompilerFailed",
    {"serve.log": """
    2026-12-01 06:30:12,118 INFO  server: device NVIDIA L4, compiling model (mode=max-autotune, pinned template configs)
    2026-12-01 06:31:40,902 ERROR server: warmup failed
    Traceback (most recent call last):
      File "/srv/app/warmup.py", line 44, in warmup
        model(**example)
      File "/srv/venv/lib/python3.11/site-packages/torch/_dynamo/eval_frame.py", line 465, in _fn
        return fn(*args, **kwargs)
      File "/srv/venv/lib/python3.11/site-packages/torch/_dynamo/output_graph.py", line 1446, in call_user_compiler
        raise BackendCompilerFailed(self.compiler_fn, e) from e
    torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:
    OutOfResources: out of resource: shared memory, Required: 114688, Hardware limit: 101376. Reducing block sizes or `num_stages` may help.

    Set TORCH_LOGS="+dynamo" and TORCHDYNAMO_VERBOSE=1 for more information


    You can suppress this exception and fall back to eager by setting:
        import torch._dynamo
        torch._dynamo.config.suppress_errors = True
    """},
    {"gpu_model": "L4"}, ["shared memory"], also=["torch-compile-failure"])

written(
    "checkpoint-cuda-device-ordinal-rank3-ckpt-01", "checkpoint-cuda-device-ordinal", "easy",
    "Inference on a 1-GPU box loads a checkpoint written by rank 3 of an 8-GPU training run without "
    "map_location; torch.load wants cuda:3",
    {"infer.log": """
    $ nvidia-smi -L
    GPU 0: NVIDIA A10G (UUID: GPU-1a2b3c4d-5e6f-7a8b-9c0d-1e2f3a4b5c6d)
    $ python infer.py --ckpt runs/seg-0412/best.pt --images /data/test/
    loading runs/seg-0412/best.pt
    Traceback (most recent call last):
      File "/home/seg/infer.py", line 31, in <module>
        state = torch.load(args.ckpt)
      File "/opt/venv/lib/python3.10/site-packages/torch/serialization.py", line 1025, in load
        return _load(opened_zipfile,
      File "/opt/venv/lib/python3.10/site-packages/torch/serialization.py", line 1446, in _load
        result = unpickler.load()
      File "/opt/venv/lib/python3.10/site-packages/torch/serialization.py", line 1416, in persistent_load
        typed_storage = load_tensor(dtype, nbytes, key, _maybe_decode_ascii(location))
      File "/opt/venv/lib/python3.10/site-packages/torch/serialization.py", line 382, in default_restore_location
        result = fn(storage, location)
      File "/opt/venv/lib/python3.10/site-packages/torch/serialization.py", line 269, in _cuda_deserialize
        device = validate_cuda_device(location)
      File "/opt/venv/lib/python3.10/site-packages/torch/serialization.py", line 265, in validate_cuda_device
        raise RuntimeError('Attempting to deserialize object on CUDA device '
    RuntimeError: Attempting to deserialize object on CUDA device 3 but torch.cuda.device_count() is 1. Please use torch.load with map_location to map your storages to an existing device.
    """},
    {"gpu_model": "A10G", "gpu_count": "1", "launcher": "python"}, ["map_location"])

written(
    "checkpoint-cuda-device-ordinal-slurm-gpus-per-task-02", "checkpoint-cuda-device-ordinal", "medium",
    "Resume of a 4-GPU job under Slurm with --gpus-per-task=1: each rank sees one GPU, and the optimizer "
    "state saved from cuda:1..3 cannot be restored; ranks 1-3 fail, rank 0 waits and times out",
    {"slurm-662301.out": """
    + srun --ntasks-per-node=4 --gpus-per-task=1 python train.py --resume ckpt/last.pt
    [rank0] CUDA_VISIBLE_DEVICES=0 device_count=1
    [rank2] CUDA_VISIBLE_DEVICES=2 device_count=1
    [rank2] resuming from ckpt/last.pt
    [rank2] Traceback (most recent call last):
    [rank2]   File "/home/nl/train.py", line 140, in <module>
    [rank2]     ckpt = torch.load(args.resume, weights_only=False)
    [rank2]   File "/opt/venv/lib/python3.11/site-packages/torch/serialization.py", line 645, in _validate_device
    [rank2]     f"Attempting to deserialize object on {backend_name.upper()} device "
    [rank2] RuntimeError: Attempting to deserialize object on CUDA device 2 but torch.cuda.device_count() is 1. Please use torch.load with map_location to map your storages to an existing device.
    [rank1] RuntimeError: Attempting to deserialize object on CUDA device 1 but torch.cuda.device_count() is 1. Please use torch.load with map_location to map your storages to an existing device.
    [rank3] RuntimeError: Attempting to deserialize object on CUDA device 3 but torch.cuda.device_count() is 1. Please use torch.load with map_location to map your storages to an existing device.
    srun: error: node-g07: tasks 1-3: Exited with exit code 1
    [rank0] [E1130 02:41:33.118209 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=2, OpType=BROADCAST, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600087 milliseconds before timing out.
    srun: error: node-g07: task 0: Exited with exit code 134
    """},
    {"launcher": "srun"}, ["map_location"], initiating_rank=[1, 2, 3])


def main() -> None:
    ap = parser(__doc__)
    ap.add_argument("--only", help="write only the cases whose id contains this")
    ap.add_argument("--capture", action="store_true", help="also rerun the real CPU programs and store what they print")
    args = ap.parse_args()
    n = write_selected(args.out, WRITTEN, args.only)
    if args.capture:
        n += write_selected(args.out, (capture(p) for p in REAL if not args.only or args.only in p.case.case_id))
    print(f"wrote {n} cases under {args.out}")


if __name__ == "__main__":
    main()
