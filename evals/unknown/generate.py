#!/usr/bin/env python3
"""Generate the out-of-catalogue eval cases (``evals/unknown/<case-id>/``): failures of the kinds listed in
``evals/unknown/KINDS.md``, which no entry of ``kb/`` describes, so the right answer is "unknown".

Each case is ONE run: the files that run would have printed (launcher banners, per-rank prefixes, progress bars,
NCCL/gloo noise, Slurm and Kubernetes wrappers, cut-short logs, misleading last lines) and a case.yaml with
``label: unknown`` and ``kind:`` (the KINDS.md line). The failure text of every case is written out per case as
the library prints it; the cases under ``REAL`` embed the output of real failing programs run on CPU torch 2.13.0
(torchrun with gloo for the multi-rank ones; ``evals/unknown/programs/`` holds the programs), where only the paths
and the timestamps were changed.

Which cases were written blind (before crashdoc was run on any of them) is recorded in evals/unknown/README.md,
with the hash of the blind set at freezing. Output is deterministic, so re-running reproduces the files exactly.

Usage:  python evals/unknown/generate.py            # writes evals/unknown/<case-id>/ (and the moved ones to evals/cases)
"""

from __future__ import annotations

import random
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent


@dataclass
class Case:
    id: str
    kind: str
    difficulty: str
    description: str
    files: dict[str, str]
    initiating_rank: int | list[int] | None = None
    facts: dict[str, str] = field(default_factory=dict)
    must_mention: list[str] = field(default_factory=list)
    secrets: list[str] = field(default_factory=list)
    also: list[str] = field(default_factory=list)  # an entry that honestly explains the decisive line's symptom


CASES: list[Callable[[], Case]] = []


def case(fn: Callable[[], Case]) -> Callable[[], Case]:
    CASES.append(fn)
    return fn


# Cases written as unknown that an entry turned out to describe: they moved to evals/cases under the entry's id (the
# entry's scope covers them), as evals/unknown/README.md records. Every exception raised inside a DataLoader worker is
# dataloader-worker-crash by that entry's own account ("If that code raises, the worker sends the exception ...").
MOVED = {
    "unknown-h5py-lock-shared-fs-4workers-01": ("dataloader-worker-crash-h5py-lock-nfs-moved-05", "dataloader-worker-crash"),
    "unknown-nvme-io-error-dataset-01": ("dataloader-worker-crash-nvme-io-error-moved-06", "dataloader-worker-crash"),
    "unknown-pil-decompression-bomb-worker-01": ("dataloader-worker-crash-pil-bomb-moved-07", "dataloader-worker-crash"),
    "unknown-stale-nfs-handle-dataset-01": ("dataloader-worker-crash-stale-nfs-moved-08", "dataloader-worker-crash"),
    "unknown-dataset-index-masks-fewer-than-images-01": ("dataloader-worker-crash-index-masks-moved-09", "dataloader-worker-crash"),
    # kb-infra wrote cloud-credentials-missing for these two kinds (env-aws-no-credentials, env-gcp-default-credentials):
    # the cases moved with their ids kept; the fresh unknown cases of other kinds beside them keep the count.
    "unknown-real-boto3-no-credentials-checkpoint-01": ("unknown-real-boto3-no-credentials-checkpoint-01", "cloud-credentials-missing"),
    "unknown-gcp-default-credentials-gcsfs-01": ("unknown-gcp-default-credentials-gcsfs-01", "cloud-credentials-missing"),
    # the kind env-protobuf-descriptors got its entry (protobuf-generated-code-outdated); the case keeps its id
    "unknown-protobuf-descriptors-tensorboard-01": ("unknown-protobuf-descriptors-tensorboard-01", "protobuf-generated-code-outdated"),
    # the kind launcher-default-pg-not-initialized got its entry (kb-torch); the case keeps its id
    "unknown-real-sampler-before-init-process-group-01": ("unknown-real-sampler-before-init-process-group-01",
                                                          "dist-default-pg-not-initialized"),
}


def write(c: Case) -> None:
    label, kind, d = "unknown", c.kind, ROOT / c.id
    if c.id in MOVED:
        new_id, label = MOVED[c.id]
        kind, d = None, ROOT.parent / "cases" / new_id
    d.mkdir(parents=True, exist_ok=True)
    for name, text in c.files.items():
        (d / name).parent.mkdir(parents=True, exist_ok=True)
        (d / name).write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")
    meta = {
        "schema_version": 1,
        "label": label,
        "kind": kind,
        "also": c.also,
        "difficulty": c.difficulty,
        "description": c.description,
        "initiating_rank": c.initiating_rank,
        "facts": {k: str(v) for k, v in c.facts.items()},
        "must_mention": c.must_mention,
        "secrets": c.secrets,
    }
    if kind is None:
        del meta["kind"]
    (d / "case.yaml").write_text(yaml.safe_dump(meta, sort_keys=False, allow_unicode=True, width=120), encoding="utf-8")


def dd(s: str) -> str:
    return textwrap.dedent(s).strip("\n")


# ----------------------------------------------------------------------------------------------------------------
# the shapes real tools print


class Clock:
    def __init__(self, start: str, seed: int):
        self.t = datetime.strptime(start, "%Y-%m-%d %H:%M:%S")
        self.rng = random.Random(seed)

    def tick(self, lo: float = 0.001, hi: float = 0.3) -> datetime:
        self.t += timedelta(seconds=self.rng.uniform(lo, hi))
        return self.t

    def glog(self, level: str, pid: int, src: str) -> str:
        """torch's C++/elastic log prefix: ``W1202 01:00:55.446000 22225 torch/distributed/run.py:874]``."""
        t = self.tick()
        return f"{level}{t:%m%d %H:%M:%S}.{t.microsecond:06d} {pid} {src}]"

    def iso(self) -> str:
        return f"{self.tick():%Y-%m-%d %H:%M:%S},{self.t.microsecond // 1000:03d}"


def prefixed(text: str, pre: str) -> str:
    return "\n".join(f"{pre}{line}" for line in text.splitlines())


def omp_banner(clk: Clock, agent: int) -> str:
    p = clk.glog("W", agent, "torch/distributed/run.py:874")
    return "\n".join([
        f"{p} ",
        f"{p} *****************************************",
        f"{p} Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system "
        "being overloaded, please further tune the variable for optimal performance in your application as needed. ",
        f"{p} *****************************************",
    ])


_SIGNALS = {6: "SIGABRT", 7: "SIGBUS", 9: "SIGKILL", 11: "SIGSEGV"}


def child_failed(clk: Clock, script: str, agent: int, nproc: int, root: int, *, host: str = "localhost",
                 py: str = "/opt/venv/bin/python", torchrun: str = "/opt/venv/bin/torchrun",
                 site: str = "/opt/venv/lib/python3.11/site-packages", rank_base: int = 0, root_exit: int = 1,
                 others: str = "sigterm") -> str:
    """The elastic agent's end of a failed run, as torch 2.13 prints it (SIGTERM to the others, the summary)."""
    pids = {lr: agent + 5 + lr for lr in range(nproc)}
    out = []
    others_lr = [lr for lr in range(nproc) if lr != root]
    if others == "sigterm":
        for lr in others_lr:
            out.append(f"{clk.glog('W', agent, 'torch/distributed/elastic/multiprocessing/api.py:1028')} "
                       f"Sending process {pids[lr]} closing signal SIGTERM")
    sig = f" (pid: {pids[root]}) of binary: {py}"
    out.append(f"{clk.glog('E', agent, 'torch/distributed/elastic/multiprocessing/api.py:1002')} failed "
               f"(exitcode: {root_exit}) local_rank: {root}{sig}")
    out.append(dd(f"""
        Traceback (most recent call last):
          File "{torchrun}", line 8, in <module>
            sys.exit(main())
                     ^^^^^^
          File "{site}/torch/distributed/elastic/multiprocessing/errors/__init__.py", line 367, in wrapper
            return f(*args, **kwargs)
                   ^^^^^^^^^^^^^^^^^^
          File "{site}/torch/distributed/run.py", line 1028, in main
            run(args)
          File "{site}/torch/distributed/run.py", line 1019, in run
            elastic_launch(
          File "{site}/torch/distributed/launcher/api.py", line 194, in __call__
            return launch_agent(
                   ^^^^^^^^^^^^^
          File "{site}/torch/distributed/launcher/api.py", line 383, in launch_agent
            raise ChildFailedError(
        torch.distributed.elastic.multiprocessing.errors.ChildFailedError: """))
    when = f"{clk.t:%Y-%m-%d_%H:%M:%S}"
    block = ["============================================================", f"{script} FAILED",
             "------------------------------------------------------------", "Failures:"]
    if others == "sigterm" and others_lr:
        for lr in others_lr:
            block += [f"[{rank_base + lr}]:", f"  time      : {when}", f"  host      : {host}",
                      f"  rank      : {rank_base + lr} (local_rank: {lr})", f"  exitcode  : -15 (pid: {pids[lr]})  (SIGTERM)",
                      "  error_file: <N/A>", f"  traceback : Signal 15 (SIGTERM) received by PID {pids[lr]}"]
    else:
        block += ["  <NO_OTHER_FAILURES>"]
    block += ["------------------------------------------------------------", "Root Cause (first observed failure):",
              f"[0]:", f"  time      : {when}", f"  host      : {host}", f"  rank      : {rank_base + root} (local_rank: {root})",
              f"  exitcode  : {root_exit} (pid: {pids[root]})", "  error_file: <N/A>",
              (f"  traceback : Signal {-root_exit} ({_SIGNALS[-root_exit]}) received by PID {pids[root]}" if root_exit < 0 else
               "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"),
              "============================================================"]
    out.append("\n".join(block))
    return "\n".join(out)


def torchrun_console(clk: Clock, script: str, nproc: int, tracebacks: dict[int, str], root: int, *,
                     before: str = "", agent: int = 48213, host: str = "localhost", rank_base: int = 0,
                     command: str | None = None, **kw: object) -> str:
    """A whole torchrun console: the command, the OMP banner, the output before the failure, each failing
    rank's traceback behind its ``[rankN]:`` prefix (root first), then the agent's summary."""
    parts = []
    if command:
        parts.append(command)
    parts.append(omp_banner(clk, agent))
    if before:
        parts.append(before)
    order = [root] + [r for r in tracebacks if r != root]
    for lr in order:
        parts.append(prefixed(tracebacks[lr], f"[rank{rank_base + lr}]: "))
    parts.append(child_failed(clk, script, agent, nproc, root, host=host, rank_base=rank_base, **kw))  # type: ignore[arg-type]
    return "\n".join(parts)


def tb(frames: list[tuple[str, int, str, str]], last: str) -> str:
    """A Python traceback: frames of (file, line, function, source line)."""
    out = ["Traceback (most recent call last):"]
    for file, line, fn, src in frames:
        out.append(f'  File "{file}", line {line}, in {fn}')
        if src:
            out.append(f"    {src}")
    out.append(last)
    return "\n".join(out)


def tqdm(done: int, total: int, elapsed: str, left: str, rate: str, desc: str = "") -> str:
    pct = int(100 * done / total)
    bar = "█" * (pct // 10) + ("▋" if pct % 10 >= 5 else " ") + " " * (9 - pct // 10)
    return f"{desc}{pct:3d}%|{bar[:10]}| {done}/{total} [{elapsed}<{left}, {rate}]"


def hf_log_steps(rng: random.Random, steps: list[int], epoch_per_step: float, lr0: float = 2e-5) -> str:
    out = []
    for s in steps:
        loss = max(0.2, 2.4 - 0.0009 * s + rng.uniform(-0.05, 0.05))
        out.append(f"{{'loss': {loss:.4f}, 'grad_norm': {rng.uniform(0.6, 3.0):.6f}, "
                   f"'learning_rate': {lr0 * (1 - s / 20000):.4e}, 'epoch': {s * epoch_per_step:.2f}}}")
    return "\n".join(out)


def nccl_info(host: str, pid: int, rank: int, lines: list[str]) -> str:
    return "\n".join(f"{host}:{pid}:{pid} [{rank}] NCCL INFO {line}" for line in lines)


def slurm_header(job: int, nodes: str, n: int, ntasks: int, user_dir: str) -> str:
    return dd(f"""
        SLURM_JOB_ID={job}
        SLURM_JOB_NODELIST={nodes}
        SLURM_NNODES={n}
        SLURM_NTASKS={ntasks}
        SLURM_SUBMIT_DIR={user_dir}
        + module load cuda/12.4
        + source /opt/envs/train/bin/activate
        """)


def gpu_banner() -> str:
    return dd("""
        Mon Dec  1 09:12:44 2026
        +-----------------------------------------------------------------------------------------+
        | NVIDIA-SMI 550.127.05             Driver Version: 550.127.05     CUDA Version: 12.4     |
        |-----------------------------------------+------------------------+----------------------+
        | GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |
        | Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |
        |                                         |                        |               MIG M. |
        |=========================================+========================+======================|
        |   0  NVIDIA A100-SXM4-80GB          On  |   00000000:07:00.0 Off |                    0 |
        | N/A   31C    P0             62W /  400W |       4MiB /  81920MiB |      0%      Default |
        |                                         |                        |             Disabled |
        +-----------------------------------------+------------------------+----------------------+
        |   1  NVIDIA A100-SXM4-80GB          On  |   00000000:0F:00.0 Off |                    0 |
        | N/A   30C    P0             61W /  400W |       4MiB /  81920MiB |      0%      Default |
        |                                         |                        |             Disabled |
        +-----------------------------------------+------------------------+----------------------+
        """)


SITE = "/opt/venv/lib/python3.11/site-packages"
SITE310 = "/usr/local/lib/python3.10/dist-packages"


# ----------------------------------------------------------------------------------------------------------------
# exceptions in user code


@case
def keyerror_hf_collator_8rank() -> Case:
    clk = Clock("2026-11-28 14:02:11", 1)
    rng = random.Random(1)
    root = 5
    t = tb([("/workspace/rlhf/train_rm.py", 412, "<module>", "main()"),
            ("/workspace/rlhf/train_rm.py", 398, "main", "trainer.train()"),
            (f"{SITE310}/transformers/trainer.py", 2325, "train", "return inner_training_loop("),
            (f"{SITE310}/transformers/trainer.py", 2618, "_inner_training_loop", "tr_loss_step = self.training_step(model, inputs, num_items_in_batch)"),
            ("/workspace/rlhf/train_rm.py", 221, "training_step", "chosen = inputs[\"input_ids_chosen\"]"),
            ],
           "KeyError: 'input_ids_chosen'")
    before = "\n".join([
        "loading dataset from /data/prefs/hh_pairs_v3.jsonl (remapped columns: prompt, chosen, rejected)",
        hf_log_steps(rng, [10, 20, 30], 0.0005),
        tqdm(37, 12000, "01:41", "9:08:13", "2.74s/it"),
    ])
    text = torchrun_console(clk, "train_rm.py", 8, {root: t}, root, before=before,
                            command="$ torchrun --nproc_per_node=8 train_rm.py --config configs/rm_llama8b.yaml", site=SITE310,
                            py="/usr/bin/python3", torchrun="/usr/local/bin/torchrun")
    return Case("unknown-keyerror-reward-model-columns-8rank-01", "user-keyerror-batch-field", "medium",
                "torchrun 8 ranks, a reward-model trainer whose custom training_step reads a column the new dataset "
                "version renamed; only rank 5 gets a batch without it before the others are SIGTERMed",
                {"console.log": text}, initiating_rank=5, facts={"launcher": "torchrun"},
                must_mention=["input_ids_chosen"])


@case
def attribute_none_tokenizer_pad() -> Case:
    t = tb([("/home/runner/proj/finetune.py", 188, "<module>", "main(args)"),
            ("/home/runner/proj/finetune.py", 171, "main", "collate = make_collate(tok, max_len=args.max_len)"),
            ("/home/runner/proj/data.py", 54, "make_collate", "pad_id = vocab.get_special(\"<pad>\").index"),
            ], "AttributeError: 'NoneType' object has no attribute 'index'")
    head = dd("""
        2026-11-30 08:14:02,117 INFO data: vocabulary loaded: 32000 pieces from /data/spm/unigram32k.model
        2026-11-30 08:14:02,118 INFO data: special tokens: ['<s>', '</s>', '<unk>']
        """)
    return Case("unknown-attribute-none-special-token-01", "user-attribute-none", "easy",
                "single-process fine-tune; the user's own vocab helper returns None for a <pad> token the "
                "SentencePiece model does not define",
                {"train.log": head + "\n" + t}, must_mention=["NoneType"])


@case
def forward_unexpected_kwarg_accelerate() -> Case:
    clk = Clock("2026-11-29 10:00:00", 3)
    t = tb([("/srv/exp/run_cls.py", 142, "<module>", "train()"),
            ("/srv/exp/run_cls.py", 118, "train", "outputs = model(**batch)"),
            (f"{SITE}/torch/nn/modules/module.py", 1775, "_wrapped_call_impl", "return self._call_impl(*args, **kwargs)"),
            (f"{SITE}/torch/nn/modules/module.py", 1786, "_call_impl", "return forward_call(*args, **kwargs)"),
            (f"{SITE}/torch/nn/parallel/distributed.py", 1661, "forward", "else self._run_ddp_forward(*inputs, **kwargs)"),
            (f"{SITE}/torch/nn/parallel/distributed.py", 1487, "_run_ddp_forward", "return self.module(*inputs, **kwargs)  # type: ignore[index]"),
            (f"{SITE}/torch/nn/modules/module.py", 1775, "_wrapped_call_impl", "return self._call_impl(*args, **kwargs)"),
            (f"{SITE}/torch/nn/modules/module.py", 1786, "_call_impl", "return forward_call(*args, **kwargs)"),
            ], "TypeError: TextClassifier.forward() got an unexpected keyword argument 'token_type_ids'")
    tbs = {r: t for r in range(4)}
    text = torchrun_console(clk, "run_cls.py", 4, tbs, 0, agent=7120,
                            command="accelerate launch --multi_gpu --num_processes 4 run_cls.py --model_name bert-base-cased")
    return Case("unknown-forward-unexpected-kwarg-accelerate-4rank-01", "user-forward-unexpected-kwarg", "easy",
                "accelerate launch (torchrun underneath) 4 ranks; every rank passes the tokenizer's token_type_ids "
                "into a custom classifier whose forward does not take it",
                {"launch.log": text}, initiating_rank=[0, 1, 2, 3], facts={"world_size": "4"},
                must_mention=["token_type_ids"])


@case
def dataset_index_out_of_range_worker() -> Case:
    t = dd(f"""
        Traceback (most recent call last):
          File "/home/ml/seg/train.py", line 97, in <module>
            for i, (img, mask) in enumerate(loader):
                                  ^^^^^^^^^^^^^^^^^
          File "{SITE}/torch/utils/data/dataloader.py", line 741, in __next__
            data = self._next_data()
                   ^^^^^^^^^^^^^^^^^
          File "{SITE}/torch/utils/data/dataloader.py", line 1548, in _next_data
            return self._process_data(data, worker_id)
                   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
          File "{SITE}/torch/utils/data/dataloader.py", line 1586, in _process_data
            data.reraise()
          File "{SITE}/torch/_utils.py", line 775, in reraise
            raise exception
        IndexError: Caught IndexError in DataLoader worker process 3.
        Original Traceback (most recent call last):
          File "{SITE}/torch/utils/data/_utils/worker.py", line 358, in _worker_loop
            data = fetcher.fetch(index)  # type: ignore[possibly-undefined]
                   ^^^^^^^^^^^^^^^^^^^^
          File "{SITE}/torch/utils/data/_utils/fetch.py", line 54, in fetch
            data = [self.dataset[idx] for idx in possibly_batched_index]
                    ~~~~~~~~~~~~^^^^^
          File "/home/ml/seg/datasets.py", line 63, in __getitem__
            mask_path = self.masks[idx]
                        ~~~~~~~~~~^^^^^
        IndexError: list index out of range
        """)
    head = "\n".join([f"epoch 0 [{i*20:4d}/1875] loss 0.{70 - i:02d}" for i in range(1, 12)])
    return Case("unknown-dataset-index-masks-fewer-than-images-01", "user-dataset-index-out-of-range", "medium",
                "segmentation training: __len__ counts images but 12 masks are missing, so a worker indexes past "
                "the mask list; the error is re-raised from DataLoader worker 3",
                {"train.out": head + "\n" + t}, must_mention=["masks"])


@case
def zero_division_throughput_slurm() -> Case:
    t = tb([("/scratch/exp/pretrain.py", 330, "<module>", "main()"),
            ("/scratch/exp/pretrain.py", 301, "main", "evaluate(model, val_loader, step)"),
            ("/scratch/exp/pretrain.py", 212, "evaluate", "log.info(f\"val loss {total / n_batches:.4f}\")"),
            ], "ZeroDivisionError: division by zero")
    body = "\n".join([
        slurm_header(4410872, "gpu-a[017]", 1, 1, "/scratch/exp"),
        "[2026-11-27 03:11:09] step 24000 | loss 2.113 | lr 2.4e-04 | 18.2k tok/s",
        "[2026-11-27 03:14:27] step 24500 | loss 2.108 | lr 2.4e-04 | 18.3k tok/s",
        "[2026-11-27 03:17:45] step 25000 | loss 2.104 | lr 2.4e-04 | 18.2k tok/s",
        "[2026-11-27 03:17:46] running validation (val shards: /scratch/data/val/shard_*.bin -> 0 files)",
        t,
        "srun: error: gpu-a017: task 0: Exited with exit code 1",
    ])
    return Case("unknown-zero-division-empty-val-glob-slurm-01", "user-zero-division-metric", "easy",
                "Slurm job, 25000 steps fine; the first validation finds no shard (glob matched 0 files) and the "
                "average divides by zero batches",
                {"slurm-4410872.out": body}, facts={"launcher": "srun", "failure_step": "25000"},
                must_mention=["division by zero"])


@case
def name_error_at_checkpoint_deepspeed() -> Case:
    clk = Clock("2026-11-26 22:10:00", 6)
    lines = []
    for r in range(8):
        lines.append(f"[2026-11-26 22:10:0{r % 10},{100 + r}] [INFO] [comm.py:652:init_distributed] cdb=None")
    lines.append("[2026-11-26 22:10:09,511] [INFO] [config.py:1000:print] DeepSpeedEngine configuration:")
    lines.append("[2026-11-26 22:10:09,512] [INFO] [config.py:1004:print]   zero_optimization ............ {'stage': 2}")
    for s in range(100, 2001, 100):
        lines.append(f"[2026-11-27 0{s // 1000}:{s % 60:02d}:11,004] [INFO] [logging.py:128:log_dist] [Rank 0] step={s}, "
                     f"skipped=0, lr=[2.9e-05], mom=[(0.9, 0.95)]")
    t = tb([("/mnt/work/sft/train.py", 501, "<module>", "main()"),
            ("/mnt/work/sft/train.py", 477, "main", "save_checkpoint(engine, args.output_dir, global_step)"),
            ("/mnt/work/sft/utils/ckpt.py", 40, "save_checkpoint", "tag = f\"step{step}-{run_nmae}\""),
            ], "NameError: name 'run_nmae' is not defined")
    ranks = "\n".join(prefixed(t, f"[rank{r}]: ") for r in range(8))
    tail = "\n".join([
        f"[2026-11-27 02:00:14,{200 + r}] [INFO] [launch.py:319:sigkill_handler] Killing subprocess {91000 + r}" for r in range(8)
    ] + ["[2026-11-27 02:00:14,901] [ERROR] [launch.py:325:sigkill_handler] ['/usr/bin/python3', '-u', 'train.py', "
         "'--local_rank=7', '--deepspeed', 'ds_zero2.json'] exits with return code = 1"])
    return Case("unknown-name-error-first-checkpoint-deepspeed-8rank-02", "user-name-error-late-path", "medium",
                "DeepSpeed launcher, 8 ranks, 2000 steps fine; the first checkpoint save runs code with a typo and "
                "every rank raises NameError",
                {"ds_train.log": "\n".join(lines) + "\n" + ranks + "\n" + tail}, initiating_rank=list(range(8)),
                facts={"launcher": "deepspeed", "zero_stage": "2"}, must_mention=["run_nmae"])


@case
def recursion_getattr_ema() -> Case:
    frames = [("/home/u/vision/train_ema.py", 77, "<module>", "ema_model = copy.deepcopy(model)"),
              ("/usr/lib/python3.10/copy.py", 172, "deepcopy", "y = _reconstruct(x, memo, *rv)"),
              ("/usr/lib/python3.10/copy.py", 273, "_reconstruct", "if hasattr(y, '__setstate__'):"),
              ("/home/u/vision/wrappers.py", 21, "__getattr__", "return getattr(self.module, name)")]
    rep = [("/home/u/vision/wrappers.py", 21, "__getattr__", "return getattr(self.module, name)")]
    t = ["Traceback (most recent call last):"]
    for file, line, fn, src in frames:
        t += [f'  File "{file}", line {line}, in {fn}', f"    {src}"]
    t += ["  [Previous line repeated 995 more times]", "RecursionError: maximum recursion depth exceeded"]
    del rep
    head = "building model convnext_tiny ... 28.6M params\nwrapping with ModelWrapper(channels_last=True)"
    return Case("unknown-recursion-wrapper-getattr-deepcopy-01", "user-recursion-getattr", "easy",
                "deepcopy of a user wrapper whose __getattr__ forwards to self.module before it exists",
                {"stdout.txt": head + "\n" + "\n".join(t)}, must_mention=["__getattr__"])


@case
def bare_assertion_user_script_multi_rank() -> Case:
    clk = Clock("2026-11-30 16:40:00", 8)
    t = tb([("/workspace/llm/pretrain.py", 260, "<module>", "main()"),
            ("/workspace/llm/pretrain.py", 233, "main", "batch = next(train_iter)"),
            ("/workspace/llm/data/packed.py", 88, "__iter__", "assert len(buf) % self.seq_len == 0"),
            ], "AssertionError")
    before = "\n".join(f"iter {i:5d} | loss {3.1 - i / 9000:.3f} | tokens/s 41.2k" for i in range(500, 3001, 500))
    text = torchrun_console(clk, "pretrain.py", 4, {2: t}, 2, before=before, agent=3301)
    return Case("unknown-bare-assert-packed-dataset-rank2-01", "user-bare-assertion", "medium",
                "torchrun 4 ranks; the user's packed dataset asserts with no message on rank 2 at iteration ~3000",
                {"console.log": text}, initiating_rank=2, facts={"launcher": "torchrun", "world_size": "4"},
                must_mention=["assert"])


@case
def cuda_tensor_to_numpy_eval() -> Case:
    t = tb([("/home/ds/asr/train.py", 302, "<module>", "main()"),
            ("/home/ds/asr/train.py", 289, "main", "wer = evaluate(model, dev_loader)"),
            ("/home/ds/asr/metrics.py", 41, "evaluate", "preds = np.argmax(logits, axis=-1)"),
            ("/usr/local/lib/python3.10/dist-packages/numpy/core/fromnumeric.py", 1229, "argmax",
             "return _wrapfunc(a, 'argmax', axis=axis, out=out, **kwds)"),
            ("/usr/local/lib/python3.10/dist-packages/numpy/core/fromnumeric.py", 56, "_wrapfunc",
             "return _wrapit(obj, method, *args, **kwds)"),
            ("/usr/local/lib/python3.10/dist-packages/numpy/core/fromnumeric.py", 45, "_wrapit",
             "result = getattr(asarray(obj), method)(*args, **kwds)"),
            ("/usr/local/lib/python3.10/dist-packages/torch/_tensor.py", 1087, "__array__", "return self.numpy()"),
            ], "TypeError: can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first.")
    head = "\n".join(f"Epoch 1: {tqdm(i, 812, f'0{i // 100}:{i % 60:02d}', '10:41', '1.21it/s')} loss=0.{900 - i}"
                     for i in (200, 400, 600, 812))
    return Case("unknown-cuda-tensor-numpy-argmax-eval-01", "user-cuda-tensor-to-numpy", "easy",
                "an ASR fine-tune on one GPU; the first evaluation hands CUDA logits to numpy.argmax",
                {"train.log": head + "\n" + t}, must_mention=["cpu()"])


@case
def jsonl_decode_midrun() -> Case:
    t = dd(f"""
        Traceback (most recent call last):
          File "/opt/app/train.py", line 140, in <module>
            for batch in loader:
          File "{SITE}/torch/utils/data/dataloader.py", line 741, in __next__
            data = self._next_data()
                   ^^^^^^^^^^^^^^^^^
          File "{SITE}/torch/utils/data/dataloader.py", line 801, in _next_data
            data = self._dataset_fetcher.fetch(index)  # may raise StopIteration
                   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
          File "{SITE}/torch/utils/data/_utils/fetch.py", line 33, in fetch
            data.append(next(self.dataset_iter))
                        ^^^^^^^^^^^^^^^^^^^^^^^
          File "/opt/app/stream.py", line 29, in __iter__
            yield json.loads(line)
                  ^^^^^^^^^^^^^^^^
          File "/usr/lib/python3.11/json/__init__.py", line 346, in loads
            return _default_decoder.decode(s)
                   ^^^^^^^^^^^^^^^^^^^^^^^^^^
          File "/usr/lib/python3.11/json/decoder.py", line 340, in decode
            raise JSONDecodeError("Extra data", s, end)
        json.decoder.JSONDecodeError: Extra data: line 1 column 2049 (char 2048)
        """)
    head = "\n".join(f"step {s:6d}  loss {2.9 - s / 40000:.3f}  shard 00{s // 5000}.jsonl" for s in range(1000, 19001, 3000))
    return Case("unknown-jsonl-extra-data-concatenated-lines-01", "user-jsonl-decode", "medium",
                "an IterableDataset reading JSONL; a shard where two records were written on one line (a writer "
                "without newline) raises JSONDecodeError 'Extra data' at step ~19k",
                {"train.log": head + "\n" + t}, facts={"failure_step": "19000"}, must_mention=["JSONDecodeError"])


@case
def unicode_decode_csv() -> Case:
    t = tb([("/home/nlp/prep_and_train.py", 33, "<module>", "texts = [l.rstrip('\\n') for l in open(args.corpus)]"),
            ("/usr/lib/python3.10/codecs.py", 322, "decode", "(result, consumed) = self._buffer_decode(data, self.errors, final)"),
            ], "UnicodeDecodeError: 'utf-8' codec can't decode byte 0xe9 in position 4183: invalid continuation byte")
    return Case("unknown-unicode-decode-latin1-corpus-01", "user-unicode-decode", "easy",
                "a corpus exported as Latin-1 read with the default UTF-8", {"job.err": t},
                must_mention=["utf-8"])


@case
def data_path_not_found_k8s() -> Case:
    t = tb([("/app/train.py", 58, "<module>", "ds = ParquetText(cfg.data.train_files)"),
            ("/app/data.py", 17, "__init__", "self.files = [open(p, 'rb') for p in files]"),
            ], "FileNotFoundError: [Errno 2] No such file or directory: 'data/train-00000-of-00008.parquet'")
    lines = [f"2026-11-29T07:1{i}:0{i}.12{i}Z {line}" for i, line in enumerate([
        "INFO starting trainer pod rank=0 world=1 image=registry.internal/ml/trainer:2026.11.2",
        "INFO working directory: /",
        "INFO config: configs/base.yaml data.train_files=data/train-*.parquet (expanded from the volume mounted at /app/data)",
    ])]
    body = "\n".join(lines) + "\n" + prefixed(t, "2026-11-29T07:13:09.871Z ")
    return Case("unknown-data-path-relative-cwd-k8s-01", "user-data-path-not-found", "medium",
                "Kubernetes pod whose working directory is / while the config uses a path relative to /app",
                {"pod.log": body}, must_mention=["No such file or directory"])


@case
def makedirs_race_4rank_written() -> Case:
    clk = Clock("2026-11-30 12:00:00", 12)
    t = tb([("/home/ml/proj/train.py", 66, "<module>", "main()"),
            ("/home/ml/proj/train.py", 23, "main", "os.makedirs(run_dir)"),
            ("<frozen os>", 225, "makedirs", ""),
            ], "FileExistsError: [Errno 17] File exists: '/shared/runs/vit-b16-2026-11-30_12-00'")
    text = torchrun_console(clk, "train.py", 4, {3: t, 1: t}, 3, agent=22001)
    return Case("unknown-makedirs-race-rundir-4rank-01", "user-makedirs-race", "medium",
                "torchrun 4 ranks; every rank creates the run directory without exist_ok and two lose the race",
                {"console.log": text}, initiating_rank=[1, 3], facts={"launcher": "torchrun", "world_size": "4"},
                must_mention=["exist_ok"])


def plain(case_id: str, kind: str, difficulty: str, description: str, files: dict[str, str], **kw: object) -> None:
    """A case whose files are written out in full below (no launcher shape generated)."""
    CASES.append(lambda: Case(case_id, kind, difficulty, description, {k: dd(v) for k, v in files.items()}, **kw))  # type: ignore[arg-type]


# ----------------------------------------------------------------------------------------------------------------
# library errors and assertions

plain("unknown-cuda-graph-capture-item-01", "lib-cuda-graph-capture-sync", "medium",
      "a decoding loop captured into a CUDA graph calls .item() inside the capture", {"serve.log": f"""
      2026-11-30 11:02:41 | INFO | loading checkpoint /models/tts-v5/step_410000.pt
      2026-11-30 11:02:55 | INFO | capturing CUDA graphs for batch sizes [1, 2, 4, 8]
      Traceback (most recent call last):
        File "/srv/tts/server.py", line 88, in <module>
          engine.warmup()
        File "/srv/tts/engine.py", line 141, in warmup
          with torch.cuda.graph(g, stream=s):
        File "/srv/tts/engine.py", line 143, in warmup
          out = self.decoder.step(self.static_in)
        File "/srv/tts/decoder.py", line 77, in step
          if (stop_prob > self.threshold).any().item():
      RuntimeError: CUDA error: operation not permitted when stream is capturing
      CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.
      For debugging consider passing CUDA_LAUNCH_BLOCKING=1
      Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.

      During handling of the above exception, another exception occurred:

      Traceback (most recent call last):
        File "/srv/tts/server.py", line 88, in <module>
          engine.warmup()
        File "/srv/tts/engine.py", line 141, in warmup
          with torch.cuda.graph(g, stream=s):
        File "{SITE}/torch/cuda/graphs.py", line 265, in __exit__
          self.cuda_graph.capture_end()
        File "{SITE}/torch/cuda/graphs.py", line 128, in capture_end
          super().capture_end()
      RuntimeError: CUDA error: operation failed due to a previous error during capture
      CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.
      For debugging consider passing CUDA_LAUNCH_BLOCKING=1
      Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.
      """}, must_mention=["capturing"])

plain("unknown-deterministic-index-add-cuda-01", "lib-op-no-deterministic-impl", "easy",
      "use_deterministic_algorithms(True) and a scatter-style op with no deterministic CUDA kernel", {"train.log": f"""
      [seed] torch.use_deterministic_algorithms(True); CUBLAS_WORKSPACE_CONFIG=:4096:8
      epoch 0 step 0 building graph batch: 512 nodes, 4096 edges
      Traceback (most recent call last):
        File "/home/gnn/train.py", line 151, in <module>
          out = model(batch.x, batch.edge_index)
        File "{SITE}/torch/nn/modules/module.py", line 1786, in _call_impl
          return forward_call(*args, **kwargs)
        File "/home/gnn/layers.py", line 39, in forward
          agg = torch.zeros_like(x).index_add_(0, dst, msg)
      RuntimeError: index_add_cuda_ does not have a deterministic implementation, but you set 'torch.use_deterministic_algorithms(True)'. You can turn off determinism just for this operation, or you can use the 'warn_only=True' option, if that's acceptable for your application. You can also file an issue at https://github.com/pytorch/pytorch/issues to help us prioritize adding deterministic support for this operation.
      """}, must_mention=["deterministic"])

plain("unknown-torchaudio-no-backend-container-01", "lib-torchaudio-no-backend", "easy",
      "torchaudio 2.x in a slim container with neither ffmpeg libraries nor soundfile", {"worker.log": f"""
      [2026-11-29 19:20:03] loading manifest /data/librispeech/train-clean-100.tsv (28539 utterances)
      Traceback (most recent call last):
        File "/app/prepare_features.py", line 48, in <module>
          wav, sr = torchaudio.load(path)
        File "{SITE}/torchaudio/_backend/utils.py", line 205, in load
          backend = dispatcher(uri, format, backend)
        File "{SITE}/torchaudio/_backend/utils.py", line 116, in dispatcher
          raise RuntimeError(f"Couldn't find appropriate backend to handle uri {{uri}} and format {{format}}.")
      RuntimeError: Couldn't find appropriate backend to handle uri /data/librispeech/LibriSpeech/train-clean-100/103/1240/103-1240-0000.flac and format None.
      """}, must_mention=["backend"])

plain("unknown-pil-decompression-bomb-worker-01", "lib-pil-decompression-bomb", "medium",
      "a scraped image dataset with one 20k x 15k image; Pillow's guard fires inside a DataLoader worker", {"train.log": f"""
      Epoch 3:  41%|████      | 2301/5612 [18:02<25:58,  2.12it/s, loss=1.84]
      Traceback (most recent call last):
        File "/home/cv/clip/train.py", line 210, in <module>
          for images, texts in loader:
        File "{SITE}/torch/utils/data/dataloader.py", line 741, in __next__
          data = self._next_data()
        File "{SITE}/torch/utils/data/dataloader.py", line 1548, in _next_data
          return self._process_data(data, worker_id)
        File "{SITE}/torch/utils/data/dataloader.py", line 1586, in _process_data
          data.reraise()
        File "{SITE}/torch/_utils.py", line 775, in reraise
          raise exception
      PIL.Image.DecompressionBombError: Caught DecompressionBombError in DataLoader worker process 5.
      Original Traceback (most recent call last):
        File "{SITE}/torch/utils/data/_utils/worker.py", line 358, in _worker_loop
          data = fetcher.fetch(index)  # type: ignore[possibly-undefined]
        File "{SITE}/torch/utils/data/_utils/fetch.py", line 54, in fetch
          data = [self.dataset[idx] for idx in possibly_batched_index]
        File "/home/cv/clip/data.py", line 44, in __getitem__
          img = Image.open(self.paths[i]).convert("RGB")
        File "{SITE}/PIL/Image.py", line 3515, in open
          im = _open_core(fp, filename, prefix, formats)
        File "{SITE}/PIL/Image.py", line 3504, in _open_core
          _decompression_bomb_check(im.size)
        File "{SITE}/PIL/Image.py", line 3403, in _decompression_bomb_check
          raise DecompressionBombError(msg)
      PIL.Image.DecompressionBombError: Image size (307200000 pixels) exceeds limit of 178956970 pixels, could be decompression bomb DOS attack.
      """}, facts={"failure_step": "2301"}, must_mention=["MAX_IMAGE_PIXELS"])

plain("unknown-pil-truncated-jpeg-01", "lib-pil-truncated-image", "easy",
      "a JPEG cut short by an interrupted download", {"stderr.log": f"""
      Traceback (most recent call last):
        File "/workspace/det/tools/train.py", line 133, in <module>
          main()
        File "/workspace/det/tools/train.py", line 121, in main
          img = np.asarray(Image.open(p).convert("RGB"))
        File "{SITE}/PIL/Image.py", line 984, in convert
          self.load()
        File "{SITE}/PIL/ImageFile.py", line 384, in load
          raise _get_oserror(err_code, encoder=False)
      OSError: image file is truncated (37 bytes not processed)
      """}, must_mention=["LOAD_TRUNCATED_IMAGES"])

plain("unknown-pyarrow-offset-overflow-map-01", "lib-pyarrow-offset-overflow", "medium",
      "datasets.map over long documents builds a string column over 2 GiB in one chunk", {"prep.log": f"""
      Map (num_proc=16):  96%|█████████▌| 1919042/2000000 [41:12<01:44, 776.20 examples/s]
      multiprocess.pool.RemoteTraceback:
      \"\"\"
      Traceback (most recent call last):
        File "{SITE}/multiprocess/pool.py", line 125, in worker
          result = (True, func(*args, **kwds))
        File "{SITE}/datasets/utils/py_utils.py", line 678, in _write_generator_to_queue
          for i, result in enumerate(func(**kwargs)):
        File "{SITE}/datasets/arrow_dataset.py", line 3570, in _map_single
          writer.write_batch(batch)
        File "{SITE}/datasets/arrow_writer.py", line 629, in write_batch
          arrays.append(pa.array(typed_sequence))
        File "pyarrow/array.pxi", line 252, in pyarrow.lib.array
        File "pyarrow/array.pxi", line 114, in pyarrow.lib._handle_arrow_array_protocol
        File "{SITE}/datasets/arrow_writer.py", line 229, in __arrow_array__
          out = pa.array(cast_to_python_objects(data, only_1d_for_numpy=True))
        File "pyarrow/array.pxi", line 372, in pyarrow.lib.array
        File "pyarrow/array.pxi", line 42, in pyarrow.lib._sequence_to_array
        File "pyarrow/error.pxi", line 155, in pyarrow.lib.pyarrow_internal_check_status
        File "pyarrow/error.pxi", line 92, in pyarrow.lib.check_status
      pyarrow.lib.ArrowInvalid: offset overflow while concatenating arrays
      \"\"\"
      """}, must_mention=["offset overflow"])

plain("unknown-pandas-parser-extra-commas-01", "lib-pandas-parser-error", "easy",
      "a CSV of labels with unquoted commas in a text field", {"run.log": """
      Traceback (most recent call last):
        File "/home/ml/tabular/train.py", line 22, in <module>
          df = pd.read_csv(args.train_csv)
        File "/opt/conda/lib/python3.10/site-packages/pandas/io/parsers/readers.py", line 1026, in read_csv
          return _read(filepath_or_buffer, kwds)
        File "/opt/conda/lib/python3.10/site-packages/pandas/io/parsers/readers.py", line 626, in _read
          return parser.read(nrows)
        File "/opt/conda/lib/python3.10/site-packages/pandas/io/parsers/readers.py", line 1923, in read
          ) = self._engine.read(  # type: ignore[attr-defined]
        File "/opt/conda/lib/python3.10/site-packages/pandas/io/parsers/c_parser_wrapper.py", line 234, in read
          chunks = self._reader.read_low_memory(nrows)
        File "parsers.pyx", line 838, in pandas._libs.parsers.TextReader.read_low_memory
        File "parsers.pyx", line 905, in pandas._libs.parsers.TextReader._read_rows
        File "parsers.pyx", line 874, in pandas._libs.parsers.TextReader._tokenize_rows
        File "parsers.pyx", line 891, in pandas._libs.parsers.TextReader._check_tokenize_status
        File "parsers.pyx", line 2061, in pandas._libs.parsers.raise_parser_error
      pandas.errors.ParserError: Error tokenizing data. C error: Expected 5 fields in line 18342, saw 7
      """}, must_mention=["line 18342"])

plain("unknown-opencv-empty-image-cvtcolor-01", "lib-opencv-empty-image", "easy",
      "cv2.imread returns None for a missing file; cvtColor asserts", {"train.txt": """
      [08:11:02] epoch 12 it 300/1250 loss_box 0.412 loss_cls 0.233
      Traceback (most recent call last):
        File "/home/det/yolo/datasets.py", line 118, in load_image
          img = cv2.cvtColor(img, cv2.COLOR_BGR2RGB)
      cv2.error: OpenCV(4.10.0) /io/opencv/modules/imgproc/src/color.cpp:196: error: (-215:Assertion failed) !_src.empty() in function 'cvtColor'
      """}, must_mention=["imread"])

plain("unknown-h5py-lock-shared-fs-4workers-01", "lib-h5py-file-lock", "medium",
      "several DataLoader workers open one HDF5 file on NFS with HDF5 file locking on", {"train.log": f"""
      Traceback (most recent call last):
        File "/work/phys/train.py", line 77, in <module>
          for x, y in loader:
        File "{SITE}/torch/utils/data/dataloader.py", line 741, in __next__
          data = self._next_data()
        File "{SITE}/torch/utils/data/dataloader.py", line 1586, in _process_data
          data.reraise()
        File "{SITE}/torch/_utils.py", line 775, in reraise
          raise exception
      BlockingIOError: Caught BlockingIOError in DataLoader worker process 2.
      Original Traceback (most recent call last):
        File "/work/phys/data.py", line 31, in __getitem__
          self.f = h5py.File(self.path, "r")
        File "{SITE}/h5py/_hl/files.py", line 564, in __init__
          fid = make_fid(name, mode, userblock_size, fapl, fcpl, swmr=swmr)
        File "{SITE}/h5py/_hl/files.py", line 238, in make_fid
          fid = h5f.open(name, flags, fapl=fapl)
        File "h5py/_objects.pyx", line 54, in h5py._objects.with_phil.wrapper
        File "h5py/_objects.pyx", line 55, in h5py._objects.with_phil.wrapper
        File "h5py/h5f.pyx", line 102, in h5py.h5f.open
      BlockingIOError: [Errno 11] Unable to synchronously open file (unable to lock file, errno = 11, error message = 'Resource temporarily unavailable')
      """}, must_mention=["HDF5_USE_FILE_LOCKING"])

plain("unknown-lmdb-map-full-preprocess-01", "lib-lmdb-map-full", "easy",
      "an LMDB writer with the default 10 MB map size", {"build_lmdb.log": """
      writing 1281167 samples to /data/imagenet_lmdb/train
      [  12000/1281167] 0.9%
      Traceback (most recent call last):
        File "/home/cv/tools/folder2lmdb.py", line 61, in <module>
          txn.put(u"{}".format(idx).encode("ascii"), dumps_pyarrow((raw, label)))
      lmdb.MapFullError: mdb_put: MDB_MAP_FULL: Environment mapsize limit reached
      """}, must_mention=["map_size"])

plain("unknown-omegaconf-missing-mandatory-01", "lib-omegaconf-missing-value", "easy",
      "a Hydra/OmegaConf config with a ??? value never set on the command line", {"train.log": """
      [2026-11-30 09:12:44,019][__main__][INFO] - experiment: llava_stage2
      Error executing job with overrides: ['experiment=llava_stage2', 'trainer.devices=8']
      Traceback (most recent call last):
        File "/code/train.py", line 64, in main
          vision = build_vision_tower(cfg.model.vision_tower_path)
      omegaconf.errors.MissingMandatoryValue: Missing mandatory value: model.vision_tower_path
          full_key: model.vision_tower_path
          object_type=dict

      Set the environment variable HYDRA_FULL_ERROR=1 for a complete stack trace.
      """}, must_mention=["vision_tower_path"])

plain("unknown-hydra-override-not-in-struct-01", "lib-hydra-override-error", "easy",
      "a Lightning 1.x override (trainer.gpus) against a config that now has trainer.devices", {"submit.log": """
      + python train.py trainer.gpus=4 data.batch_size=64
      Could not override 'trainer.gpus'.
      To append to your config use +trainer.gpus=4
      Key 'gpus' is not in struct
          full_key: trainer.gpus
          object_type=dict

      Set the environment variable HYDRA_FULL_ERROR=1 for a complete stack trace.
      """}, must_mention=["trainer.gpus"])

plain("unknown-yaml-scanner-error-config-01", "lib-yaml-scanner-error", "easy",
      "a config edited by hand with a colon inside an unquoted value", {"job.log": """
      Traceback (most recent call last):
        File "/home/u/train.py", line 19, in <module>
          cfg = yaml.safe_load(open(args.config))
        File "/usr/lib/python3/dist-packages/yaml/__init__.py", line 125, in safe_load
          return load(stream, SafeLoader)
        File "/usr/lib/python3/dist-packages/yaml/__init__.py", line 81, in load
          return loader.get_single_data()
        File "/usr/lib/python3/dist-packages/yaml/constructor.py", line 49, in get_single_data
          node = self.get_single_node()
        File "/usr/lib/python3/dist-packages/yaml/scanner.py", line 577, in fetch_value
          raise ScannerError(None, None,
      yaml.scanner.ScannerError: mapping values are not allowed here
        in "configs/sft.yaml", line 14, column 24
      """}, must_mention=["line 14"])

plain("unknown-yaml-python-tag-namespace-01", "lib-yaml-python-tag", "medium",
      "resuming reads hparams.yaml written by yaml.dump(argparse.Namespace) with safe_load", {"resume.log": """
      Resuming from /ckpt/run7/last.ckpt
      Traceback (most recent call last):
        File "/home/u/resume.py", line 40, in <module>
          hparams = yaml.safe_load(f)
        File "/opt/conda/lib/python3.11/site-packages/yaml/__init__.py", line 125, in safe_load
          return load(stream, SafeLoader)
        File "/opt/conda/lib/python3.11/site-packages/yaml/constructor.py", line 51, in get_single_data
          return self.construct_document(node)
        File "/opt/conda/lib/python3.11/site-packages/yaml/constructor.py", line 429, in construct_undefined
          raise ConstructorError(None, None,
      yaml.constructor.ConstructorError: could not determine a constructor for the tag 'tag:yaml.org,2002:python/object:argparse.Namespace'
        in "/ckpt/run7/hparams.yaml", line 1, column 1
      """}, must_mention=["safe_load"])

plain("unknown-numba-typing-error-augment-01", "lib-numba-typing-error", "medium",
      "an @njit augmentation helper appends to a numpy array", {"train.log": """
      Traceback (most recent call last):
        File "/home/u/audio/train.py", line 71, in <module>
          x = spec_augment(x, 2, 27)
        File "/opt/conda/lib/python3.10/site-packages/numba/core/dispatcher.py", line 468, in _compile_for_args
          error_rewrite(e, 'typing')
        File "/opt/conda/lib/python3.10/site-packages/numba/core/dispatcher.py", line 409, in error_rewrite
          raise e.with_traceback(None)
      numba.core.errors.TypingError: Failed in nopython mode pipeline (step: nopython frontend)
      Unknown attribute 'append' of type array(float32, 1d, C)

      File "augment.py", line 18:
      def spec_augment(x, n_masks, width):
          <source elided>
              starts.append(s)
              ^

      During: typing of get attribute at /home/u/audio/augment.py (18)
      """}, must_mention=["nopython"])

plain("unknown-tf-memory-growth-after-init-01", "lib-tf-physical-devices-initialized", "easy",
      "TensorFlow: set_memory_growth called after a tensor already initialized the GPUs", {"tf.log": """
      2026-11-30 10:02:11.414122: I tensorflow/core/common_runtime/gpu/gpu_device.cc:2021] Created device /job:localhost/replica:0/task:0/device:GPU:0 with 78865 MB memory:  -> device: 0, name: NVIDIA A100-SXM4-80GB, pci bus id: 0000:07:00.0, compute capability: 8.0
      Traceback (most recent call last):
        File "/home/u/keras_train.py", line 12, in <module>
          tf.config.experimental.set_memory_growth(gpu, True)
        File "/usr/local/lib/python3.11/dist-packages/tensorflow/python/framework/config.py", line 754, in set_memory_growth
          context.context().set_memory_growth(device, enable)
        File "/usr/local/lib/python3.11/dist-packages/tensorflow/python/eager/context.py", line 1779, in set_memory_growth
          raise RuntimeError(
      RuntimeError: Physical devices cannot be modified after being initialized
      """}, must_mention=["set_memory_growth"])

plain("unknown-jax-tracer-bool-jit-01", "lib-jax-concretization", "medium",
      "a JAX train step under jit branches in Python on the loss", {"train.log": """
      I1130 12:00:01.221871 140211 xla_bridge.py:889] Unable to initialize backend 'rocm': module 'jaxlib.xla_extension' has no attribute 'GpuAllocatorConfig'
      I1130 12:00:01.224180 140211 xla_bridge.py:889] Unable to initialize backend 'tpu': INTERNAL: Failed to open libtpu.so: libtpu.so: cannot open shared object file: No such file or directory
      Traceback (most recent call last):
        File "/home/u/flax_lm/train.py", line 133, in <module>
          state, metrics = train_step(state, batch)
        File "/home/u/flax_lm/train.py", line 88, in train_step
          if loss > 10.0:
      jax.errors.TracerBoolConversionError: Attempted boolean conversion of traced array with shape bool[].
      The error occurred while tracing the function train_step at /home/u/flax_lm/train.py:79 for jit. This concrete value was not available in Python because it depends on the value of the argument batch.
      See https://jax.readthedocs.io/en/latest/errors.html#jax.errors.TracerBoolConversionError
      --------------------
      For simplicity, JAX has removed its internal frames from the traceback of the following exception. Set JAX_TRACEBACK_FILTERING=off to include these.
      """}, must_mention=["jit"])

plain("unknown-matplotlib-tk-headless-slurm-01", "lib-matplotlib-no-display", "easy",
      "a plot at the end of training on a compute node without a display", {"slurm-99120.out": """
      epoch 99 | train loss 0.0812 | val loss 0.1120 | val acc 0.9641
      saving curves to results/curves.png
      Traceback (most recent call last):
        File "/home/u/cls/train.py", line 240, in <module>
          fig = plt.figure(figsize=(8, 4))
        File "/home/u/.local/lib/python3.10/site-packages/matplotlib/pyplot.py", line 1022, in figure
          manager = new_figure_manager(
        File "/home/u/.local/lib/python3.10/site-packages/matplotlib/backends/_backend_tk.py", line 484, in create_with_canvas
          window = tk.Tk(className="matplotlib")
        File "/usr/lib/python3.10/tkinter/__init__.py", line 2299, in __init__
          self.tk = _tkinter.create(screenName, baseName, className, interactive, wantobjects, useTk, sync, use)
      _tkinter.TclError: no display name and no $DISPLAY environment variable
      """}, must_mention=["Agg"])


# ----------------------------------------------------------------------------------------------------------------
# environment

plain("unknown-protobuf-descriptors-tensorboard-01", "env-protobuf-descriptors", "easy",
      "an old tensorboard/_pb2 pinned in the image, protobuf upgraded to 4.x by another requirement", {"train.log": f"""
      Traceback (most recent call last):
        File "/workspace/train.py", line 9, in <module>
          from torch.utils.tensorboard import SummaryWriter
        File "{SITE310}/torch/utils/tensorboard/__init__.py", line 12, in <module>
          from .writer import FileWriter, SummaryWriter  # noqa: F401
        File "{SITE310}/torch/utils/tensorboard/writer.py", line 9, in <module>
          from tensorboard.compat.proto import event_pb2
        File "{SITE310}/tensorboard/compat/proto/event_pb2.py", line 17, in <module>
          from tensorboard.compat.proto import summary_pb2 as tensorboard_dot_compat_dot_proto_dot_summary__pb2
        File "{SITE310}/tensorboard/compat/proto/summary_pb2.py", line 36, in <module>
          _descriptor.FieldDescriptor(
        File "{SITE310}/google/protobuf/descriptor.py", line 621, in __new__
          _message.Message._CheckCalledFromGeneratedFile()
      TypeError: Descriptors cannot be created directly.
      If this call came from a _pb2.py file, your generated code is out of date and must be regenerated with protoc >= 3.19.0.
      If you cannot immediately regenerate your protos, some other possible workarounds are:
       1. Downgrade the protobuf package to 3.20.x or lower.
       2. Set PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION=python (but this will use pure-Python parsing and will be much slower).

      More information: https://developers.google.com/protocol-buffers/docs/news/2022-05-06#python-updates
      """}, must_mention=["protobuf"])

plain("unknown-numpy-float-alias-removed-metrics-01", "env-numpy-alias-removed", "medium",
      "an old metrics package using np.float under NumPy 1.26, after 3 hours of training", {"train.log": """
      [2026-11-30 13:59:58] epoch 9/10 step 17500 loss 0.314
      [2026-11-30 14:00:02] evaluating on 5000 images
      Traceback (most recent call last):
        File "/home/cv/coco/train.py", line 301, in <module>
          stats = evaluate(model, val_loader)
        File "/home/cv/coco/train.py", line 244, in evaluate
          coco_eval.evaluate()
        File "/opt/conda/lib/python3.10/site-packages/pycocotools/cocoeval.py", line 149, in evaluate
          self._prepare()
        File "/opt/conda/lib/python3.10/site-packages/legacy_eval/boxes.py", line 58, in iou_matrix
          ious = np.zeros((len(dt), len(gt)), dtype=np.float)
        File "/opt/conda/lib/python3.10/site-packages/numpy/__init__.py", line 324, in __getattr__
          raise AttributeError(__former_attrs__[attr])
      AttributeError: module 'numpy' has no attribute 'float'.
      `np.float` was a deprecated alias for the builtin `float`. To avoid this error in existing code, use `float` by itself. Doing this will not modify any behavior and is safe. If you specifically wanted the numpy scalar type, use `np.float64` here.
      The aliases was originally deprecated in NumPy 1.20; for more details and guidance see the original release note at:
          https://numpy.org/devdocs/release/1.20.0-notes.html#deprecations
      """}, facts={"failure_step": "17500"}, must_mention=["np.float64"])

plain("unknown-pydantic-basesettings-moved-01", "env-pydantic-v2-break", "easy",
      "an internal config package written for pydantic 1 in an image that resolved pydantic 2", {"pod.log": """
      Traceback (most recent call last):
        File "/app/launch.py", line 3, in <module>
          from mlplatform.config import JobSettings
        File "/usr/local/lib/python3.11/site-packages/mlplatform/config.py", line 4, in <module>
          from pydantic import BaseSettings, Field
        File "/usr/local/lib/python3.11/site-packages/pydantic/__init__.py", line 426, in __getattr__
          return _getattr_migration(attr_name)
        File "/usr/local/lib/python3.11/site-packages/pydantic/_migration.py", line 296, in wrapper
          raise PydanticImportError(
      pydantic.errors.PydanticImportError: `BaseSettings` has been moved to the `pydantic-settings` package. See https://docs.pydantic.dev/2.9/migration/#basesettings-has-moved-to-pydantic-settings for more details.

      For further information visit https://errors.pydantic.dev/2.9/u/import-error
      """}, must_mention=["pydantic-settings"])

plain("unknown-distutils-removed-py312-01", "env-distutils-removed", "easy",
      "a package importing distutils in a Python 3.12 image", {"job.log": """
      + python -c 'import sys; print(sys.version)'
      3.12.7 (main, Oct  1 2026, 02:11:32) [GCC 12.2.0]
      + python train.py --config cfg/base.yaml
      Traceback (most recent call last):
        File "/src/train.py", line 6, in <module>
          from torch_ext_utils import build
        File "/usr/local/lib/python3.12/site-packages/torch_ext_utils/build.py", line 2, in <module>
          from distutils.version import LooseVersion
      ModuleNotFoundError: No module named 'distutils'
      """}, must_mention=["distutils"])

plain("unknown-pkg-resources-missing-venv-01", "env-pkg-resources-missing", "easy",
      "a fresh venv without setuptools and a package that imports pkg_resources at import time", {"ci.log": """
      $ python -m venv .venv && .venv/bin/pip install -r requirements.txt
      Successfully installed lightning-bolts-0.7.0 ...
      $ .venv/bin/python train.py --fast-dev-run
      Traceback (most recent call last):
        File "/builds/ml/train.py", line 4, in <module>
          import pl_bolts
        File "/builds/ml/.venv/lib/python3.12/site-packages/pl_bolts/__init__.py", line 4, in <module>
          from pkg_resources import DistributionNotFound, get_distribution
      ModuleNotFoundError: No module named 'pkg_resources'
      """}, must_mention=["setuptools"])

plain("unknown-libgl-missing-opencv-slim-01", "env-libgl-missing", "easy",
      "opencv-python (not headless) in python:3.11-slim", {"container.log": """
      Traceback (most recent call last):
        File "/app/train.py", line 12, in <module>
          import albumentations as A
        File "/usr/local/lib/python3.11/site-packages/albumentations/__init__.py", line 6, in <module>
          from .augmentations import *
        File "/usr/local/lib/python3.11/site-packages/albumentations/augmentations/__init__.py", line 1, in <module>
          from .blur.functional import *
        File "/usr/local/lib/python3.11/site-packages/albumentations/augmentations/blur/functional.py", line 7, in <module>
          import cv2
      ImportError: libGL.so.1: cannot open shared object file: No such file or directory
      """}, must_mention=["opencv-python-headless"])

plain("unknown-ffmpeg-missing-whisper-01", "env-ffmpeg-missing", "easy",
      "whisper's load_audio runs the ffmpeg binary, absent from the image", {"transcribe.log": """
      100%|█████████████████████████████████████| 2.88G/2.88G [00:41<00:00, 74.1MiB/s]
      Traceback (most recent call last):
        File "/app/batch_transcribe.py", line 30, in <module>
          result = model.transcribe(path, language="en")
        File "/usr/local/lib/python3.10/site-packages/whisper/transcribe.py", line 133, in transcribe
          mel = log_mel_spectrogram(audio, model.dims.n_mels, padding=N_SAMPLES)
        File "/usr/local/lib/python3.10/site-packages/whisper/audio.py", line 140, in log_mel_spectrogram
          audio = load_audio(audio)
        File "/usr/local/lib/python3.10/site-packages/whisper/audio.py", line 58, in load_audio
          out = run(cmd, capture_output=True, check=True).stdout
        File "/usr/lib/python3.10/subprocess.py", line 503, in run
          with Popen(*popenargs, **kwargs) as process:
        File "/usr/lib/python3.10/subprocess.py", line 971, in __init__
          self._execute_child(args, executable, preexec_fn, close_fds,
        File "/usr/lib/python3.10/subprocess.py", line 1863, in _execute_child
          raise child_exception_type(errno_num, err_msg, err_filename)
      FileNotFoundError: [Errno 2] No such file or directory: 'ffmpeg'
      """}, must_mention=["ffmpeg"])

plain("unknown-libsndfile-missing-soundfile-01", "env-libsndfile-missing", "easy",
      "soundfile installed from an sdist without the libsndfile system library", {"err.txt": """
      Traceback (most recent call last):
        File "/home/u/tts/preprocess.py", line 5, in <module>
          import soundfile as sf
        File "/home/u/.local/lib/python3.9/site-packages/soundfile.py", line 189, in <module>
          _snd = _ffi.dlopen(_explicit_libname)
      OSError: cannot load library 'libsndfile.so': libsndfile.so: cannot open shared object file: No such file or directory
      """}, must_mention=["libsndfile"])

plain("unknown-markupsafe-soft-unicode-01", "env-markupsafe-soft-unicode", "easy",
      "an old Jinja2 pinned by a notebook image with MarkupSafe 2.1", {"job.log": """
      Traceback (most recent call last):
        File "/opt/jobs/report.py", line 3, in <module>
          from jinja2 import Environment, FileSystemLoader
        File "/opt/conda/lib/python3.9/site-packages/jinja2/__init__.py", line 12, in <module>
          from .environment import Environment
        File "/opt/conda/lib/python3.9/site-packages/jinja2/environment.py", line 25, in <module>
          from .defaults import BLOCK_END_STRING
        File "/opt/conda/lib/python3.9/site-packages/jinja2/defaults.py", line 3, in <module>
          from .filters import DEFAULT_FILTERS as DEFAULT_FILTERS
        File "/opt/conda/lib/python3.9/site-packages/jinja2/filters.py", line 13, in <module>
          from markupsafe import soft_unicode
      ImportError: cannot import name 'soft_unicode' from 'markupsafe' (/opt/conda/lib/python3.9/site-packages/markupsafe/__init__.py)
      """}, must_mention=["markupsafe"])

plain("unknown-importlib-metadata-entrypoints-get-01", "env-importlib-metadata-entrypoints", "medium",
      "importlib_metadata 5 under a plugin loader calling entry_points().get", {"train.log": """
      Traceback (most recent call last):
        File "/home/u/exp/train.py", line 2, in <module>
          import pytorch_lightning as pl
        File "/home/u/.venv/lib/python3.8/site-packages/pytorch_lightning/__init__.py", line 34, in <module>
          from pytorch_lightning.callbacks import Callback  # noqa: E402
        File "/home/u/.venv/lib/python3.8/site-packages/pytorch_lightning/loggers/__init__.py", line 27, in <module>
          from pytorch_lightning.loggers.tensorboard import TensorBoardLogger
        File "/home/u/.venv/lib/python3.8/site-packages/torch/utils/tensorboard/__init__.py", line 12, in <module>
          from .writer import FileWriter, SummaryWriter  # noqa: F401
        File "/home/u/.venv/lib/python3.8/site-packages/tensorboard/summary/writer/event_file_writer.py", line 26, in <module>
          from tensorboard.compat import tf
        File "/home/u/.venv/lib/python3.8/site-packages/tensorboard/lazy.py", line 65, in __getattr__
          return getattr(load_once(self), attr_name)
        File "/home/u/.venv/lib/python3.8/site-packages/tensorboard/compat/__init__.py", line 42, in tf
          from tensorboard.compat import notf  # noqa: F401
        File "/home/u/.venv/lib/python3.8/site-packages/markdown/extensions/__init__.py", line 95, in build_extension
          entry_points = [point for point in util.get_installed_extensions() if point.name == ext_name]
        File "/home/u/.venv/lib/python3.8/site-packages/markdown/util.py", line 85, in get_installed_extensions
          return metadata.entry_points().get('markdown.extensions', ())
      AttributeError: 'EntryPoints' object has no attribute 'get'
      """}, must_mention=["importlib"])

plain("unknown-urllib3-v2-old-openssl-01", "env-urllib3-openssl", "easy",
      "urllib3 2.x on a CentOS 7 system Python built against OpenSSL 1.0.2", {"slurm-700211.out": """
      Traceback (most recent call last):
        File "/home/u/ft/run.py", line 4, in <module>
          import requests
        File "/home/u/.local/lib/python3.9/site-packages/requests/__init__.py", line 43, in <module>
          import urllib3
        File "/home/u/.local/lib/python3.9/site-packages/urllib3/__init__.py", line 42, in <module>
          raise ImportError(
      ImportError: urllib3 v2 only supports OpenSSL 1.1.1+, currently the 'ssl' module is compiled with 'OpenSSL 1.0.2k-fips  26 Jan 2017'. See: https://github.com/urllib3/urllib3/issues/2168
      """}, must_mention=["urllib3"])

plain("unknown-click-ascii-locale-container-01", "env-click-ascii-locale", "easy",
      "a Click-based CLI in a container with LANG unset (POSIX locale) on Python 3.6", {"entrypoint.log": """
      Traceback (most recent call last):
        File "/usr/local/bin/train-cli", line 11, in <module>
          sys.exit(main())
        File "/usr/local/lib/python3.6/site-packages/click/core.py", line 829, in __call__
          return self.main(*args, **kwargs)
        File "/usr/local/lib/python3.6/site-packages/click/core.py", line 760, in main
          _verify_python3_env()
        File "/usr/local/lib/python3.6/site-packages/click/_unicodefun.py", line 130, in _verify_python3_env
          " mitigation steps.{}".format(extra)
      RuntimeError: Click will abort further execution because Python 3 was configured to use ASCII as encoding for the environment. Consult https://click.palletsprojects.com/python3/ for mitigation steps.

      This system supports the C.UTF-8 locale which is recommended. You might be able to resolve your issue by exporting the following environment variables:

          export LC_ALL=C.UTF-8
          export LANG=C.UTF-8
      """}, must_mention=["LANG"])

plain("unknown-omp-duplicate-libiomp-01", "env-omp-duplicate-runtime", "medium",
      "conda MKL's libiomp5 plus a pip wheel bundling its own; the process aborts at the first parallel region", {"train.log": """
      loading features: 100%|██████████| 64/64 [00:03<00:00, 18.31it/s]
      OMP: Error #15: Initializing libiomp5.so, but found libiomp5.so already initialized.
      OMP: Hint This means that multiple copies of the OpenMP runtime have been linked into the program. That is dangerous, since it can degrade performance or cause incorrect results. The best thing to do is to ensure that only a single OpenMP runtime is linked into the process, e.g. by avoiding static linking of the OpenMP runtime in any library. As an unsafe, unsupported, undocumented workaround you can set the environment variable KMP_DUPLICATE_LIB_OK=TRUE to allow the program to continue to execute, but that may cause crashes or silently produce incorrect results. For more information, please see http://www.intel.com/software/products/support/.
      Aborted (core dumped)
      """}, must_mention=["OpenMP"])

plain("unknown-wrong-interpreter-sbatch-01", "env-wrong-interpreter", "medium",
      "an sbatch script that activates the env in a subshell, so srun runs the system python", {"slurm-55102.out": """
      + cd /home/u/llm
      + bash -c 'source ~/miniconda3/bin/activate llm'
      + srun python -u train.py --config configs/7b.yaml
      Traceback (most recent call last):
        File "/home/u/llm/train.py", line 1, in <module>
          import torch
      ModuleNotFoundError: No module named 'torch'
      Traceback (most recent call last):
        File "/home/u/llm/train.py", line 1, in <module>
          import torch
      ModuleNotFoundError: No module named 'torch'
      srun: error: gpu-b004: tasks 0-1: Exited with exit code 1
      """}, facts={"launcher": "srun"}, must_mention=["python"])

plain("unknown-project-not-on-path-torchrun-01", "env-project-not-on-path", "medium",
      "torchrun launched from the repo's scripts/ folder; the project package is not importable", {"console.log": """
      [rank0]: Traceback (most recent call last):
      [rank0]:   File "/repo/scripts/train.py", line 8, in <module>
      [rank0]:     from src.models import build_model
      [rank0]: ModuleNotFoundError: No module named 'src'
      [rank1]: Traceback (most recent call last):
      [rank1]:   File "/repo/scripts/train.py", line 8, in <module>
      [rank1]:     from src.models import build_model
      [rank1]: ModuleNotFoundError: No module named 'src'
      E1130 15:01:12.001000 811 torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: 1) local_rank: 0 (pid: 816) of binary: /usr/bin/python3
      """}, initiating_rank=[0, 1], must_mention=["PYTHONPATH"])

plain("unknown-old-python-match-statement-01", "env-old-python-syntax", "easy",
      "code using a match statement run by the cluster's Python 3.8", {"job.err": """
        File "/home/u/rl/agents/ppo.py", line 144
          match cfg.advantage:
                ^
      SyntaxError: invalid syntax
      """}, must_mention=["Python 3.10"])

plain("unknown-old-python-builtin-generics-01", "env-old-python-syntax", "medium",
      "list[int] annotations evaluated at import on Python 3.8", {"train.log": """
      Traceback (most recent call last):
        File "train.py", line 5, in <module>
          from data.packing import pack_sequences
        File "/work/u/lm/data/packing.py", line 12, in <module>
          def pack_sequences(seqs: list[list[int]], max_len: int) -> list[list[int]]:
      TypeError: 'type' object is not subscriptable
      """}, must_mention=["from __future__ import annotations"])

plain("unknown-permission-denied-checkpoint-dir-01", "env-permission-denied-output", "medium",
      "a container running as a non-root UID writes checkpoints into a root-owned mounted volume at the first save", {"pod.log": f"""
      {{'loss': 1.9312, 'grad_norm': 1.21, 'learning_rate': 1.9e-05, 'epoch': 0.1}}
       10%|█         | 500/5000 [11:12<1:40:41,  1.34s/it]
      Saving model checkpoint to /output/checkpoint-500
      Traceback (most recent call last):
        File "/app/sft.py", line 99, in <module>
          trainer.train()
        File "{SITE}/transformers/trainer.py", line 2325, in train
          return inner_training_loop(
        File "{SITE}/transformers/trainer.py", line 3223, in _save_checkpoint
          self.save_model(output_dir, _internal_call=True)
        File "{SITE}/transformers/trainer.py", line 3842, in save_model
          self._save(output_dir)
        File "{SITE}/transformers/trainer.py", line 3946, in _save
          os.makedirs(output_dir, exist_ok=True)
        File "<frozen os>", line 225, in makedirs
      PermissionError: [Errno 13] Permission denied: '/output/checkpoint-500'
      """}, facts={"failure_step": "500"}, must_mention=["Permission denied"])

plain("unknown-read-only-fs-hf-cache-01", "env-read-only-filesystem", "easy",
      "a Kubernetes pod with readOnlyRootFilesystem; the cache defaults under $HOME", {"pod.log": """
      Traceback (most recent call last):
        File "/app/embed.py", line 14, in <module>
          os.makedirs(cache_dir)
        File "<frozen os>", line 215, in makedirs
        File "<frozen os>", line 225, in makedirs
      OSError: [Errno 30] Read-only file system: '/home/app/.cache/embeddings'
      """}, must_mention=["Read-only"])

plain("unknown-stale-nfs-handle-dataset-01", "env-stale-nfs-handle", "medium",
      "the dataset directory is re-synced on the NFS server while workers hold files open", {"train.log": f"""
      epoch 4 it 8800 loss 0.917
      Traceback (most recent call last):
        File "/nfs/home/u/train.py", line 120, in <module>
          for batch in loader:
        File "{SITE}/torch/utils/data/dataloader.py", line 1586, in _process_data
          data.reraise()
        File "{SITE}/torch/_utils.py", line 775, in reraise
          raise exception
      OSError: Caught OSError in DataLoader worker process 1.
      Original Traceback (most recent call last):
        File "/nfs/home/u/data.py", line 51, in __getitem__
          arr = np.load(self.files[i], mmap_mode="r")
        File "/usr/local/lib/python3.11/dist-packages/numpy/lib/npyio.py", line 427, in load
          fid = stack.enter_context(open(os_fspath(file), "rb"))
      OSError: [Errno 116] Stale file handle: '/nfs/datasets/speech/feats/shard_0412.npy'
      """}, must_mention=["NFS"])

plain("unknown-cross-device-rename-ckpt-01", "env-cross-device-rename", "easy",
      "an atomic-save helper writes to /tmp and os.rename()s into the checkpoint mount", {"train.log": """
      [step 3000] saving checkpoint
      Traceback (most recent call last):
        File "/home/u/lm/train.py", line 402, in <module>
          atomic_save(state, f"{args.out}/step_{step}.pt")
        File "/home/u/lm/utils.py", line 19, in atomic_save
          os.rename(tmp.name, path)
      OSError: [Errno 18] Invalid cross-device link: '/tmp/tmpq3k1z8xa' -> '/mnt/ckpt/run3/step_3000.pt'
      """}, must_mention=["shutil.move"])

plain("unknown-filename-too-long-ckpt-01", "env-filename-too-long", "medium",
      "a checkpoint file name built from every hyperparameter exceeds 255 bytes", {"sweep.log": """
      Traceback (most recent call last):
        File "/home/u/sweep/train.py", line 188, in <module>
          torch.save(model.state_dict(), os.path.join(out, name))
        File "/opt/venv/lib/python3.11/site-packages/torch/serialization.py", line 966, in save
          with _open_zipfile_writer(f) as opened_zipfile:
        File "/opt/venv/lib/python3.11/site-packages/torch/serialization.py", line 828, in _open_zipfile_writer
          return container(name_or_buffer)  # type: ignore[arg-type]
        File "/opt/venv/lib/python3.11/site-packages/torch/serialization.py", line 792, in __init__
          torch._C.PyTorchFileWriter(
      RuntimeError: File /ckpt/sweep/lr=0.0003_wd=0.1_warmup=2000_bs=256_seq=2048_layers=24_heads=16_dim=2048_ffn=8192_rope_theta=500000_dropout=0.0_attn_dropout=0.0_init_std=0.02_clip=1.0_beta2=0.95_eps=1e-08_sched=cosine_min_lr=3e-05_tokens=20B_data=mix-v7-dedup-filtered-quality-0.8_seed=1234.pt cannot be opened.
      """}, must_mention=["name"])

@case
def s3_slowdown_rank_shards() -> Case:
    """Added after the move of the two credential cases (kb-infra): every rank of a 64-rank job uploads its own
    small state files to one fresh prefix at the same moment; S3 answers 503 SlowDown until boto3's legacy retry
    mode (5 attempts) gives up on rank 29, and the agent stops the node's other ranks. botocore 1.44's ClientError text, boto3 1.44.5's S3UploadFailedError wrapper."""
    clk = Clock("2026-11-30 06:12:40", 4417)
    # the ClientError's own traceback starts where boto3 caught it (transfer.py's try around future.result())
    frames = [(f"{SITE}/boto3/s3/transfer.py", 452, "upload_file", "future.result()"),
              (f"{SITE}/s3transfer/futures.py", 111, "result", "return self._coordinator.result()"),
              (f"{SITE}/s3transfer/futures.py", 287, "result", "raise self._exception"),
              (f"{SITE}/s3transfer/tasks.py", 142, "__call__", "return self._execute_main(kwargs)"),
              (f"{SITE}/s3transfer/tasks.py", 165, "_execute_main", "return_value = self._main(**kwargs)"),
              (f"{SITE}/s3transfer/upload.py", 796, "_main", "client.put_object(Bucket=bucket, Key=key, Body=body, **extra_args)"),
              (f"{SITE}/botocore/client.py", 606, "_api_call", "return self._make_api_call(operation_name, kwargs)"),
              (f"{SITE}/botocore/context.py", 123, "wrapper", "return func(*args, **kwargs)"),
              (f"{SITE}/botocore/client.py", 1094, "_make_api_call", "raise error_class(parsed_response, operation_name)")]

    def upload_tb(rank: int) -> str:
        first = tb(frames, "botocore.exceptions.ClientError: An error occurred (SlowDown) when calling the PutObject "
                           "operation (reached max retries: 4): Please reduce your request rate.")
        second = tb([("/mnt/code/pretrain/train.py", 512, "<module>", "main(cfg)"),
                     ("/mnt/code/pretrain/train.py", 488, "main", "save_checkpoint(model, optim, step, cfg)"),
                     ("/mnt/code/pretrain/ckpt_s3.py", 77, "save_checkpoint", "upload_rank_state(local, prefix)"),
                     ("/mnt/code/pretrain/ckpt_s3.py", 41, "upload_rank_state", "s3.upload_file(str(f), BUCKET, f\"{prefix}/{f.name}\")"),
                     (f"{SITE}/boto3/s3/inject.py", 175, "upload_file", "return transfer.upload_file("),
                     (f"{SITE}/boto3/s3/transfer.py", 458, "upload_file", "raise S3UploadFailedError(")],
                    f"boto3.exceptions.S3UploadFailedError: Failed to upload /local_nvme/ckpt/step_018000/rng_state_{rank}.pth "
                    f"to acme-pretrain/ckpt/run-2211/step_018000/rank_{rank:05d}/rng_state_{rank}.pth: An error occurred "
                    "(SlowDown) when calling the PutObject operation (reached max retries: 4): Please reduce your request rate.")
        return first + "\n\nDuring handling of the above exception, another exception occurred:\n\n" + second

    before = "\n".join([
        "step 17990 | loss 2.3187 | lr 2.41e-04 | 412.7 TFLOPS | 0.98 s/step",
        "step 18000 | loss 2.3102 | lr 2.41e-04 | 413.0 TFLOPS | 0.98 s/step",
        "saving checkpoint step_018000 (64 ranks, model+optimizer shards to /local_nvme, then S3)",
        *[f"rank {r}: uploading rank state to s3://acme-pretrain/ckpt/run-2211/step_018000/rank_{r:05d}/"
          for r in (24, 27, 25, 29, 31, 26, 28, 30)],
    ])
    text = torchrun_console(clk, "train.py", 8, {5: upload_tb(29)}, 5, before=before, agent=9311,
                            host="gpu-node-03", rank_base=24,
                            command="+ torchrun --nnodes=8 --nproc_per_node=8 --rdzv_backend=c10d "
                                    "--rdzv_endpoint=gpu-node-00:29400 train.py --config cfg/7b.yaml")
    return Case("unknown-s3-slowdown-rank-state-64rank-01", "env-s3-request-throttled", "hard",
                "64-rank pretraining (node 3's log, ranks 24-31): at step 18000 every rank uploads its small state "
                "files to one new S3 prefix at once; S3 throttles with 503 SlowDown and rank 29 exhausts boto3's "
                "retries first", {"node3.log": text}, initiating_rank=29, facts={"launcher": "torchrun"},
                must_mention=["SlowDown"])


plain("unknown-s3-access-denied-putobject-01", "env-s3-access-denied", "medium",
      "the training role can read the bucket but not write it; the first checkpoint upload fails", {"train.log": """
      2026-11-30 04:00:02,113 INFO uploading checkpoint step_2000 to s3://ml-ckpt-prod/llm-7b/run-118/
      Traceback (most recent call last):
        File "/app/train.py", line 311, in <module>
          upload_checkpoint(local_dir, args.s3_prefix)
        File "/app/ckpt.py", line 27, in upload_checkpoint
          s3.upload_file(str(p), bucket, key)
        File "/usr/local/lib/python3.11/site-packages/boto3/s3/inject.py", line 145, in upload_file
          return transfer.upload_file(
        File "/usr/local/lib/python3.11/site-packages/boto3/s3/transfer.py", line 378, in upload_file
          raise S3UploadFailedError(
      boto3.exceptions.S3UploadFailedError: Failed to upload /tmp/ckpt/step_2000/model.safetensors to ml-ckpt-prod/llm-7b/run-118/step_2000/model.safetensors: An error occurred (AccessDenied) when calling the PutObject operation: Access Denied
      """}, must_mention=["AccessDenied"])

plain("unknown-gcp-default-credentials-gcsfs-01", "env-gcp-default-credentials", "easy",
      "a job on a VM without a service account reads gs:// data", {"train.log": """
      Traceback (most recent call last):
        File "/home/u/train.py", line 30, in <module>
          client = storage.Client()
        File "/usr/local/lib/python3.10/dist-packages/google/cloud/storage/client.py", line 172, in __init__
          super(Client, self).__init__(
        File "/usr/local/lib/python3.10/dist-packages/google/cloud/client/__init__.py", line 178, in __init__
          credentials, _ = google.auth.default(scopes=scopes)
        File "/usr/local/lib/python3.10/dist-packages/google/auth/_default.py", line 691, in default
          raise exceptions.DefaultCredentialsError(_CLOUD_SDK_MISSING_CREDENTIALS)
      google.auth.exceptions.DefaultCredentialsError: Your default credentials were not found. To set up Application Default Credentials, see https://cloud.google.com/docs/authentication/external/set-up-adc for more information.
      """}, must_mention=["credentials"])

plain("unknown-sqlite-locked-optuna-nfs-01", "env-sqlite-locked", "medium",
      "eight Optuna workers share a SQLite study file on NFS", {"worker-3.log": """
      [I 2026-11-30 02:11:44,912] Trial 41 finished with value: 0.8123 and parameters: {'lr': 0.00041, 'wd': 0.02}.
      Traceback (most recent call last):
        File "/opt/venv/lib/python3.11/site-packages/sqlalchemy/engine/base.py", line 1967, in _exec_single_context
          self.dialect.do_execute(
        File "/opt/venv/lib/python3.11/site-packages/sqlalchemy/engine/default.py", line 941, in do_execute
          cursor.execute(statement, parameters)
      sqlite3.OperationalError: database is locked

      The above exception was the direct cause of the following exception:

      Traceback (most recent call last):
        File "/home/u/hpo/worker.py", line 40, in <module>
          study.optimize(objective, n_trials=50)
        File "/opt/venv/lib/python3.11/site-packages/optuna/storages/_rdb/storage.py", line 66, in _create_scoped_session
          session.commit()
      sqlalchemy.exc.OperationalError: (sqlite3.OperationalError) database is locked
      [SQL: INSERT INTO trials (number, study_id, state, datetime_start, datetime_complete) VALUES (?, ?, ?, ?, ?)]
      (Background on this error at: https://sqlalche.me/e/20/e3q8)
      """}, must_mention=["database is locked"])

plain("unknown-git-dubious-ownership-version-01", "env-git-dubious-ownership", "medium",
      "a training script records the git commit; the repo is bind-mounted and owned by another UID", {"train.log": """
      fatal: detected dubious ownership in repository at '/workspace/repo'
      To add an exception for this directory, call:

      	git config --global --add safe.directory /workspace/repo
      Traceback (most recent call last):
        File "/workspace/repo/train.py", line 41, in <module>
          commit = subprocess.check_output(["git", "rev-parse", "HEAD"]).decode().strip()
        File "/usr/lib/python3.10/subprocess.py", line 421, in check_output
          return run(*popenargs, stdout=PIPE, timeout=timeout, check=True,
        File "/usr/lib/python3.10/subprocess.py", line 526, in run
          raise CalledProcessError(retcode, process.args,
      subprocess.CalledProcessError: Command '['git', 'rev-parse', 'HEAD']' returned non-zero exit status 128.
      """}, must_mention=["safe.directory"])

plain("unknown-pip-no-matching-distribution-job-setup-01", "env-pip-no-matching-distribution", "easy",
      "a job's setup step pins a flash-attn-free requirement set but asks for a torch build not published for its Python", {"setup.log": """
      + pip install -r requirements.txt
      Looking in indexes: https://pypi.org/simple, https://download.pytorch.org/whl/cu121
      Collecting torch==2.1.2+cu121 (from -r requirements.txt (line 1))
      ERROR: Could not find a version that satisfies the requirement torch==2.1.2+cu121 (from versions: 2.2.0+cu121, 2.2.1+cu121, 2.2.2+cu121, 2.3.0+cu121, 2.3.1+cu121, 2.4.0+cu121, 2.4.1+cu121, 2.5.0+cu121, 2.5.1+cu121)
      ERROR: No matching distribution found for torch==2.1.2+cu121
      """}, must_mention=["Python"])

plain("unknown-ulimit-threads-openblas-01", "env-ulimit-threads", "medium",
      "a pids cgroup limit of 512 with 64 OpenBLAS threads per DataLoader worker", {"train.log": """
      OpenBLAS blas_thread_init: pthread_create failed for thread 27 of 64: Resource temporarily unavailable
      OpenBLAS blas_thread_init: RLIMIT_NPROC 512 current, 512 max
      OpenBLAS blas_thread_init: pthread_create failed for thread 28 of 64: Resource temporarily unavailable
      OpenBLAS blas_thread_init: RLIMIT_NPROC 512 current, 512 max
      Traceback (most recent call last):
        File "/app/train.py", line 55, in <module>
          for batch in loader:
        File "/usr/local/lib/python3.11/site-packages/torch/utils/data/dataloader.py", line 494, in __iter__
          return self._get_iterator()
        File "/usr/local/lib/python3.11/site-packages/torch/utils/data/dataloader.py", line 1124, in __init__
          w.start()
        File "/usr/local/lib/python3.11/threading.py", line 971, in start
          _start_new_thread(self._bootstrap, ())
      RuntimeError: can't start new thread
      """}, must_mention=["OPENBLAS_NUM_THREADS"])

plain("unknown-ulimit-file-size-ckpt-01", "env-ulimit-file-size", "hard",
      "ulimit -f on a shared login node; the process dies writing a checkpoint larger than the limit", {"nohup.out": """
      step 990 loss 2.871
      step 1000 loss 2.866
      saving checkpoint ckpt/step_1000.pt (6.2 GB)
      File size limit exceeded (core dumped)
      """}, facts={"failure_step": "1000"}, must_mention=["ulimit"])

plain("unknown-ulimit-cpu-time-login-node-01", "env-ulimit-cpu-time", "hard",
      "preprocessing run on a login node with a 30-minute CPU-time limit", {"prep.out": """
      tokenizing shard 14/64 ...
      tokenizing shard 15/64 ...
      tokenizing shard 16/64 ...
      CPU time limit exceeded (core dumped)
      """}, must_mention=["login node"])

plain("unknown-tmp-noexec-extension-load-01", "env-tmp-noexec", "medium",
      "a JIT-compiled extension built under TMPDIR=/tmp, mounted noexec on the cluster", {"train.log": """
      Using /tmp/torch_extensions/py311_cu121 as PyTorch extensions root...
      Emitting ninja build file /tmp/torch_extensions/py311_cu121/fused_rope/build.ninja...
      Building extension module fused_rope...
      ninja: no work to do.
      Loading extension module fused_rope...
      Traceback (most recent call last):
        File "/home/u/lm/model.py", line 12, in <module>
          fused_rope = load(name="fused_rope", sources=["csrc/rope.cpp", "csrc/rope_kernel.cu"])
        File "/opt/venv/lib/python3.11/site-packages/torch/utils/cpp_extension.py", line 1681, in load
          return _jit_compile(
        File "/opt/venv/lib/python3.11/site-packages/torch/utils/cpp_extension.py", line 2148, in _import_module_from_library
          module = importlib.util.module_from_spec(spec)
        File "<frozen importlib._bootstrap>", line 573, in module_from_spec
        File "<frozen importlib._bootstrap_external>", line 1233, in create_module
        File "<frozen importlib._bootstrap>", line 241, in _call_with_frames_removed
      ImportError: /tmp/torch_extensions/py311_cu121/fused_rope/fused_rope.so: failed to map segment from shared object
      """}, must_mention=["noexec"])

plain("unknown-broken-pipe-head-01", "env-broken-pipe-output", "hard",
      "the job's output is piped through `| head -n 200` in the wrapper script, which exits and closes the pipe", {"run.log": """
      + python train.py --epochs 5 2>&1 | head -n 200
      epoch 0 it 190 loss 1.932
      epoch 0 it 195 loss 1.927
      Traceback (most recent call last):
        File "/home/u/train.py", line 88, in <module>
          print(f"epoch {epoch} it {it} loss {loss:.3f}")
      BrokenPipeError: [Errno 32] Broken pipe
      """}, must_mention=["pipe"])

plain("unknown-illegal-instruction-avx512-wheel-01", "env-cpu-illegal-instruction", "hard",
      "a wheel built with AVX-512 copied onto an older AMD node; the process dies with SIGILL at import", {"slurm-3121.out": """
      + python -X faulthandler train.py
      Fatal Python error: Illegal instruction

      Current thread 0x00007f3c2a1e4740 (most recent call first):
        File "<frozen importlib._bootstrap>", line 241 in _call_with_frames_removed
        File "<frozen importlib._bootstrap_external>", line 1233 in create_module
        File "/opt/custom/faiss_fast/__init__.py", line 3 in <module>
        File "/home/u/retrieval/train.py", line 9 in <module>
      srun: error: cpu-n12: task 0: Illegal instruction (core dumped)
      """}, facts={"launcher": "srun"}, must_mention=["AVX"])


# ----------------------------------------------------------------------------------------------------------------
# hardware


@case
def host_memory_ue_8rank() -> Case:
    clk = Clock("2026-11-30 03:41:00", 40)
    before = "\n".join(f"[rank0]: step {s} | loss {2.3 - s / 90000:.4f} | 312 TFLOP/s" for s in range(14000, 14301, 100))
    dmesg = dd("""
        [1827731.402214] mce: [Hardware Error]: Machine check events logged
        [1827731.402290] EDAC MC1: 1 UE memory read error on CPU_SrcID#1_MC#0_Chan#2_DIMM#0 (channel:2 slot:0 page:0x3f2a1c offset:0x0 grain:32 -  err_code:0x0000:0x009f  SystemAddress:0x3f2a1c040 ProcessorSocketId:0x1 MemoryControllerId:0x0 ChannelAddress:0x1f950e0 ChannelId:0x2 RankAddress:0xfca838 PhysicalRankId:0x0 DimmSlotId:0x0 Row:0x7e5 Column:0x20 Bank:0x2 BankGroup:0x1 ChipSelect:0x0 ChipId:0x0)
        [1827731.402355] Memory failure: 0x3f2a1c: Sending SIGBUS to python:221804 due to hardware memory corruption
        [1827731.402391] Memory failure: 0x3f2a1c: recovery action for dirty LRU page: Recovered
        """)
    t = "Bus error (core dumped)"
    text = torchrun_console(clk, "pretrain.py", 8, {6: ""}, 6, before=before, agent=221790, root_exit=-7)
    text = text.replace("[rank6]: \n", "")
    del t
    return Case("unknown-host-dram-ue-sigbus-rank6-01", "hw-host-memory-uncorrectable", "hard",
                "8-rank run; an uncorrectable host DRAM error makes the kernel SIGBUS local rank 6 (dmesg saved "
                "beside the console); torchrun reports exit code -7",
                {"console.log": text, "dmesg.txt": dmesg}, initiating_rank=6, facts={"launcher": "torchrun"},
                must_mention=["memory"])


plain("unknown-cpu-soft-lockup-node-reboot-01", "hw-cpu-soft-lockup", "hard",
      "a node's kernel soft-locks; the job log just stops and Slurm marks the node down", {"slurm-81230.out": """
      [2026-11-29 21:14:02] step 61000 loss 1.802
      [2026-11-29 21:17:31] step 61500 loss 1.799
      slurmstepd: error: *** JOB 81230 ON gpu-c031 CANCELLED AT 2026-11-29T21:41:07 DUE TO NODE FAILURE, SEE SLURMCTLD LOG FOR DETAILS ***
      """, "gpu-c031-console.txt": """
      [2207551.116902] watchdog: BUG: soft lockup - CPU#37 stuck for 23s! [python:519220]
      [2207551.116911] Modules linked in: nvidia_uvm(POE) nvidia_drm(POE) nvidia_modeset(POE) nvidia(POE) mlx5_ib ib_uverbs mlx5_core
      [2207551.116950] CPU: 37 PID: 519220 Comm: python Tainted: P           OE     5.15.0-122-generic #132-Ubuntu
      [2207551.116955] RIP: 0010:native_queued_spin_lock_slowpath+0x1f3/0x2d0
      [2207579.117003] watchdog: BUG: soft lockup - CPU#37 stuck for 49s! [python:519220]
      [2207612.201455] rcu: INFO: rcu_sched self-detected stall on CPU
      """}, must_mention=["soft lockup"])

plain("unknown-nvlink-uncorrectable-xid74-01", "hw-nvlink-uncorrectable", "hard",
      "an NVLink link fails mid-run (Xid 74); the rank whose kernel touched it sees the CUDA NVLink error, the others time out", {"rank3.log": """
      [rank3]: Traceback (most recent call last):
      [rank3]:   File "/workspace/train.py", line 280, in <module>
      [rank3]:     loss.backward()
      [rank3]: RuntimeError: CUDA error: uncorrectable NVLink error detected during the execution
      [rank3]: CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.
      [rank3]: For debugging consider passing CUDA_LAUNCH_BLOCKING=1
      [rank3]: Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.
      """, "dmesg.txt": """
      [511203.118821] NVRM: Xid (PCI:0000:4e:00): 74, pid=88123, name=python, NVLink: fatal error detected on link 9(0x10000, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0)
      [511203.118993] NVRM: Xid (PCI:0000:4e:00): 74, pid=88123, name=python, NVLink: fatal error detected on link 10(0x10000, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0)
      """}, initiating_rank=3, must_mention=["NVLink"])

plain("unknown-gsp-rpc-timeout-xid119-01", "hw-gpu-gsp-timeout", "hard",
      "the GPU's GSP firmware stops answering (Xid 119); CUDA calls fail with unknown error on that rank", {"train.log": """
      [rank5]:[E1130 02:12:44.118000 7712 torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1911] [PG ID 0 PG GUID 0(default_pg) Rank 5] Process group watchdog thread terminated with exception: CUDA error: unspecified launch failure
      """, "dmesg.txt": """
      [902113.552301] NVRM: Xid (PCI:0000:9b:00): 119, pid=7712, name=python, Timeout after 6s of waiting for RPC response from GPU5 GSP! Expected function 76 (GSP_RM_CONTROL) (0x20800a4c 0x4).
      [902113.552390] NVRM: GPU5 GSP RPC buffer contains function 76 (GSP_RM_CONTROL) and data 0x0000000020800a4c 0x0000000000000004.
      [902119.553001] NVRM: Xid (PCI:0000:9b:00): 119, pid=7712, name=python, Timeout after 6s of waiting for RPC response from GPU5 GSP! Expected function 10 (FREE) (0x5c000001 0x0).
      """}, initiating_rank=5, facts={"xid": "119"}, must_mention=["GSP"])

plain("unknown-nvme-io-error-dataset-01", "hw-disk-io-error", "hard",
      "the local NVMe holding the dataset cache starts failing reads", {"train.log": f"""
      epoch 2 it 3100 loss 0.611
      Traceback (most recent call last):
        File "/home/u/train.py", line 90, in <module>
          for batch in loader:
        File "{SITE}/torch/utils/data/dataloader.py", line 1586, in _process_data
          data.reraise()
        File "{SITE}/torch/_utils.py", line 775, in reraise
          raise exception
      OSError: Caught OSError in DataLoader worker process 0.
      Original Traceback (most recent call last):
        File "/home/u/data.py", line 22, in __getitem__
          with open(self.paths[i], "rb") as f:
      OSError: [Errno 5] Input/output error: '/local_nvme/cache/imagenet/train/n01440764/n01440764_10026.JPEG'
      """, "dmesg.txt": """
      [88123.004411] nvme nvme1: I/O 512 QID 14 timeout, aborting
      [88123.118222] blk_update_request: I/O error, dev nvme1n1, sector 918273648 op 0x0:(READ) flags 0x80700 phys_seg 4 prio class 0
      [88123.118300] Buffer I/O error on dev nvme1n1p1, logical block 114784206, async page read
      """}, must_mention=["I/O error"])

plain("unknown-hung-task-lustre-eviction-01", "hw-lustre-eviction", "hard",
      "the Lustre client on one node is evicted; rank 12's checkpoint write hangs, then the job times out in a barrier", {"node07-dmesg.txt": """
      [341122.551023] LustreError: 11-0: scratch-OST0012-osc-ffff9a8c1f2e1000: operation ost_write to node 10.20.0.31@o2ib failed: rc = -107
      [341122.551101] Lustre: scratch-OST0012-osc-ffff9a8c1f2e1000: Connection to scratch-OST0012 (at 10.20.0.31@o2ib) was lost; in progress operations using this service will wait for recovery to complete
      [341126.001911] LustreError: 167-0: scratch-OST0012-osc-ffff9a8c1f2e1000: This client was evicted by scratch-OST0012; in progress operations using this service will fail.
      [341363.118012] INFO: task python:4411 blocked for more than 120 seconds.
      [341363.118055]       Tainted: P           OE     5.14.0-427.el9.x86_64 #1
      [341363.118061] "echo 0 > /proc/sys/kernel/hung_task_timeout_secs" disables this message.
      """, "rank12.log": """
      [2026-11-30 05:00:01] rank 12 saving shard /lustre/scratch/ckpt/run5/step_40000/rank_12.pt
      """}, initiating_rank=12, must_mention=["evicted"])

plain("unknown-hung-task-io-nfs-01", "hw-hung-task-io", "hard",
      "the job log stops; dmesg shows the training processes stuck in D state on an NFS mount", {"job.log": """
      step 7200 | loss 1.411 | 0.81 s/it
      step 7300 | loss 1.407 | 0.80 s/it
      writing checkpoint to /mnt/nfs/ckpt/step_7300
      """, "dmesg.txt": """
      [771204.331022] nfs: server filer-02 not responding, still trying
      [771324.118210] INFO: task python:30211 blocked for more than 122 seconds.
      [771324.118233]       Not tainted 6.8.0-45-generic #45-Ubuntu
      [771324.118240] "echo 0 > /proc/sys/kernel/hung_task_timeout_secs" disables this message.
      [771324.118247] task:python          state:D stack:0     pid:30211 tgid:30211 ppid:30190  flags:0x00004002
      """}, must_mention=["NFS"])


# ----------------------------------------------------------------------------------------------------------------
# launchers and schedulers

plain("unknown-vllm-tp-exceeds-gpus-01", "ranks-exceed-visible-gpus", "medium",
      "vLLM with tensor_parallel_size=8 on a node where CUDA_VISIBLE_DEVICES shows 4 GPUs", {"serve.log": """
      INFO 11-30 10:12:01 [__init__.py:235] Automatically detected platform cuda.
      INFO 11-30 10:12:04 [api_server.py:1755] vLLM API server version 0.10.1
      INFO 11-30 10:12:04 [utils.py:326] non-default args: {'model': '/models/Llama-3.1-70B-Instruct', 'tensor_parallel_size': 8, 'max_model_len': 16384}
      INFO 11-30 10:12:11 [config.py:1604] Using max model len 16384
      INFO 11-30 10:12:12 [config.py:2434] Chunked prefill is enabled with max_num_batched_tokens=8192.
      Traceback (most recent call last):
        File "/usr/local/bin/vllm", line 8, in <module>
          sys.exit(main())
        File "/usr/local/lib/python3.12/dist-packages/vllm/entrypoints/cli/main.py", line 54, in main
          args.dispatch_function(args)
        File "/usr/local/lib/python3.12/dist-packages/vllm/v1/executor/multiproc_executor.py", line 62, in _init_executor
          assert self.world_size <= cuda_device_count_stateless(), (
      AssertionError: please set tensor_parallel_size (8) to less than max local gpu count (4)
      """}, facts={"tensor_parallel_size": "8"}, must_mention=["tensor_parallel_size"])

plain("unknown-ray-placement-group-gpus-01", "ranks-exceed-visible-gpus", "hard",
      "vLLM on Ray asks for 16 GPUs (TP 8 x PP 2) while the Ray cluster has 8", {"ray_serve.log": """
      2026-11-30 09:01:11,201	INFO worker.py:1852 -- Connected to Ray cluster. View the dashboard at 127.0.0.1:8265
      INFO 11-30 09:01:12 [ray_utils.py:334] No current placement group found. Creating a new placement group.
      ERROR 11-30 09:01:12 [engine.py:458] The number of required GPUs exceeds the total number of available GPUs in the placement group.
      Traceback (most recent call last):
        File "/usr/local/lib/python3.12/dist-packages/vllm/executor/ray_distributed_executor.py", line 241, in _init_workers_ray
          raise ValueError(
      ValueError: The number of required GPUs exceeds the total number of available GPUs in the placement group.
      """}, facts={"tensor_parallel_size": "8", "pipeline_parallel_size": "2"}, must_mention=["GPUs"])

plain("unknown-torch-upgrade-memory-regression-vllm-01", "torch-release-memory-regression", "hard",
      "the same vLLM deployment (same model, same gpu_memory_utilization, nothing else on the GPU) fails after the "
      "image moved to a new torch release: the profiler measures more non-torch memory and the KV cache no longer fits", {"serve.log": """
      INFO 11-28 08:00:02 [__init__.py:235] Automatically detected platform cuda.
      INFO 11-28 08:00:05 [api_server.py:1755] vLLM API server version 0.11.0
      INFO 11-28 08:00:05 [utils.py:326] non-default args: {'model': '/models/Qwen2.5-32B-Instruct', 'gpu_memory_utilization': 0.92, 'max_model_len': 32768}
      INFO 11-28 08:00:06 [collect_env] PyTorch version: 2.9.0+cu128 (previous image: 2.8.0+cu128, same config, served fine)
      INFO 11-28 08:00:31 [gpu_model_runner.py:2007] Model loading took 61.0418 GiB and 22.113914 seconds
      INFO 11-28 08:00:52 [gpu_worker.py:276] Available KV cache memory: 2.11 GiB
      INFO 11-28 08:00:52 [kv_cache_utils.py:849] GPU KV cache size: 8,640 tokens
      Traceback (most recent call last):
        File "/usr/local/lib/python3.12/dist-packages/vllm/v1/core/kv_cache_utils.py", line 700, in check_enough_kv_cache_memory
          raise ValueError(
      ValueError: To serve at least one request with the models's max seq len (32768), (8.00 GiB KV cache is needed, which is larger than the available KV cache memory (2.11 GiB). Based on the available memory, the estimated maximum model length is 8640. Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.
      """, "nvidia-smi.txt": """
      +-----------------------------------------------------------------------------------------+
      | Processes:                                                                              |
      |  GPU   GI   CI              PID   Type   Process name                        GPU Memory |
      |        ID   ID                                                               Usage      |
      |=========================================================================================|
      |  No running processes found                                                             |
      +-----------------------------------------------------------------------------------------+
      """}, facts={"torch_version": "2.9.0"}, must_mention=["torch"], also=["vllm-kv-cache-too-small"])

plain("unknown-script-not-found-torchrun-01", "launcher-script-not-found", "medium",
      "torchrun started from the wrong directory; every worker fails to open the script and only the summary is long", {"console.log": """
      $ torchrun --nproc_per_node=2 train_dpo.py --config dpo.yaml
      /usr/bin/python3: can't open file '/home/u/train_dpo.py': [Errno 2] No such file or directory
      /usr/bin/python3: can't open file '/home/u/train_dpo.py': [Errno 2] No such file or directory
      E1130 11:22:01.441000 9120 torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: 2) local_rank: 0 (pid: 9125) of binary: /usr/bin/python3
      Traceback (most recent call last):
        File "/usr/local/bin/torchrun", line 8, in <module>
          sys.exit(main())
      torch.distributed.elastic.multiprocessing.errors.ChildFailedError:
      ============================================================
      train_dpo.py FAILED
      ------------------------------------------------------------
      Failures:
      [1]:
        time      : 2026-11-30_11:22:01
        host      : gpu-dev-3
        rank      : 1 (local_rank: 1)
        exitcode  : 2 (pid: 9126)
        error_file: <N/A>
        traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html
      ------------------------------------------------------------
      Root Cause (first observed failure):
      [0]:
        time      : 2026-11-30_11:22:01
        host      : gpu-dev-3
        rank      : 0 (local_rank: 0)
        exitcode  : 2 (pid: 9125)
        error_file: <N/A>
        traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html
      ============================================================
      """}, initiating_rank=[0, 1], facts={"launcher": "torchrun", "exit_code": "2"}, must_mention=["No such file"])

plain("unknown-entrypoint-crlf-bad-interpreter-01", "launcher-entrypoint-not-executable", "easy",
      "a job script edited on Windows: CRLF line ends break the shebang", {"job.out": """
      /var/spool/slurmd/job51220/slurm_script: /bin/bash^M: bad interpreter: No such file or directory
      """}, must_mention=["CRLF"])

plain("unknown-srun-invalid-gres-01", "launcher-srun-invalid-gres", "easy",
      "an sbatch asking for gres gpu:h100:8 on a cluster that names the type H100", {"submit.txt": """
      $ sbatch --gres=gpu:h100:8 --nodes=2 train.sbatch
      sbatch: error: Batch job submission failed: Invalid generic resource (gres) specification
      """}, must_mention=["gres"])

plain("unknown-slurm-node-failure-2node-01", "launcher-slurm-node-failure", "hard",
      "a 2-node job; Slurm cancels it when node 2 stops responding; the surviving ranks print NCCL errors first", {"slurm-90211.out": """
      [2026-11-30 01:12:44] [rank 0] step 33100 loss 1.692
      [2026-11-30 01:16:12] [rank 0] step 33200 loss 1.690
      srun: error: Node failure on gpu-d017
      slurmstepd: error: *** STEP 90211.0 ON gpu-d016 CANCELLED AT 2026-11-30T01:19:33 DUE TO NODE FAILURE ***
      slurmstepd: error: *** JOB 90211 ON gpu-d016 CANCELLED AT 2026-11-30T01:19:33 DUE TO NODE FAILURE, SEE SLURMCTLD LOG FOR DETAILS ***
      srun: Job step aborted: Waiting up to 32 seconds for job step to finish.
      """}, facts={"launcher": "srun"}, must_mention=["node"])

plain("unknown-mpirun-not-enough-slots-01", "launcher-mpirun-not-enough-slots", "easy",
      "mpirun -np 16 with a hostfile giving 8 slots", {"mpirun.log": """
      --------------------------------------------------------------------------
      There are not enough slots available in the system to satisfy the 16
      slots that were requested by the application:

        python

      Either request fewer slots for your application, or make more slots
      available for use.

      A "slot" is the Open MPI term for an allocatable unit where we can
      launch a process.  The number of slots available are defined by the
      environment in which Open MPI processes are run:

        1. Hostfile, via "slots=N" clauses (N defaults to number of
           processor cores if not provided)
        2. The --host command line parameter, via a ":N" suffix on the
           hostname (N defaults to 1 if not provided)
        3. Resource manager (e.g., SLURM, PBS/Torque, LSF, etc.)
        4. If none of a hostfile, the --host command line parameter, or an
           RM is present, Open MPI defaults to the number of processor cores

      In all the above cases, if you want Open MPI to default to the number
      of hardware threads instead of the number of processor cores, use the
      --use-hwthread-cpus option.

      Alternatively, you can use the --oversubscribe option to ignore the
      number of available slots when deciding the number of processes to
      launch.
      --------------------------------------------------------------------------
      """}, facts={"launcher": "mpirun"}, must_mention=["slots"])

plain("unknown-k8s-image-pull-backoff-01", "launcher-k8s-image-pull", "easy",
      "a PyTorchJob whose image tag was never pushed; kubectl describe shows the pull errors", {"describe.txt": """
      Name:             llm-sft-master-0
      Namespace:        research
      Status:           Pending
      Containers:
        pytorch:
          Image:          registry.internal/ml/trainer:2026.11.31
          State:          Waiting
            Reason:       ImagePullBackOff
      Events:
        Type     Reason     Age                From               Message
        ----     ------     ----               ----               -------
        Normal   Scheduled  4m                 default-scheduler  Successfully assigned research/llm-sft-master-0 to gpu-node-14
        Normal   Pulling    2m31s (x4 over 4m) kubelet            Pulling image "registry.internal/ml/trainer:2026.11.31"
        Warning  Failed     2m30s (x4 over 4m) kubelet            Failed to pull image "registry.internal/ml/trainer:2026.11.31": rpc error: code = NotFound desc = failed to pull and unpack image "registry.internal/ml/trainer:2026.11.31": failed to resolve reference "registry.internal/ml/trainer:2026.11.31": registry.internal/ml/trainer:2026.11.31: not found
        Warning  Failed     2m30s (x4 over 4m) kubelet            Error: ErrImagePull
        Normal   BackOff    2m5s (x6 over 4m)  kubelet            Back-off pulling image "registry.internal/ml/trainer:2026.11.31"
        Warning  Failed     2m5s (x6 over 4m)  kubelet            Error: ImagePullBackOff
      """}, must_mention=["image"])

plain("unknown-k8s-insufficient-gpu-pending-01", "launcher-k8s-unschedulable", "easy",
      "a job requesting 8 GPUs per pod in a cluster whose free nodes have at most 4", {"events.txt": """
      LAST SEEN   TYPE      REASON              OBJECT                      MESSAGE
      12m         Warning   FailedScheduling    pod/pretrain-worker-0       0/12 nodes are available: 4 Insufficient nvidia.com/gpu, 8 node(s) had untolerated taint {nvidia.com/gpu: present}. preemption: 0/12 nodes are available: 4 No preemption victims found for incoming pod, 8 Preemption is not helpful for scheduling.
      2m          Warning   FailedScheduling    pod/pretrain-worker-0       0/12 nodes are available: 4 Insufficient nvidia.com/gpu, 8 node(s) had untolerated taint {nvidia.com/gpu: present}. preemption: 0/12 nodes are available: 4 No preemption victims found for incoming pod, 8 Preemption is not helpful for scheduling.
      """}, must_mention=["nvidia.com/gpu"])

plain("unknown-ray-runtime-env-pip-failed-01", "launcher-ray-runtime-env", "medium",
      "a Ray job whose runtime_env pip list cannot be installed on the workers", {"job.log": """
      2026-11-30 08:11:02,118	INFO job_manager.py:530 -- Runtime env is setting up.
      Runtime env setup for app 'train' failed:
      Traceback (most recent call last):
        File "/home/ray/anaconda3/lib/python3.11/site-packages/ray/_private/runtime_env/agent/runtime_env_agent.py", line 378, in _create_runtime_env_with_retry
          runtime_env_context = await asyncio.wait_for(
        File "/home/ray/anaconda3/lib/python3.11/site-packages/ray/_private/runtime_env/pip.py", line 285, in _install_pip_packages
          await check_output_cmd(pip_install_cmd, logger=logger, cwd=cwd, env=pip_env)
      ray._private.runtime_env.utils.SubprocessCalledProcessError: Run cmd[9] failed with the following details.
      Command '['/tmp/ray/session_2026-11-30_08-10-11_512301_1/runtime_resources/pip/5c1e/virtualenv/bin/python', '-m', 'pip', 'install', '--disable-pip-version-check', '--no-cache-dir', '-r', '/tmp/ray/session_2026-11-30_08-10-11_512301_1/runtime_resources/pip/5c1e/requirements.txt']' returned non-zero exit status 1.
      Last 50 lines of stdout:
          ERROR: Could not find a version that satisfies the requirement deepspeed==0.99.1 (from versions: 0.16.9, 0.17.0, 0.17.1)
          ERROR: No matching distribution found for deepspeed==0.99.1
      ray.exceptions.RuntimeEnvSetupError: Failed to set up runtime environment.
      """}, facts={"launcher": "ray"}, must_mention=["runtime_env"])

plain("unknown-deepspeed-hostfile-bad-entry-01", "launcher-deepspeed-hostfile-bad-entry", "easy",
      "a hostfile written as 'host:8' instead of 'host slots=8'", {"launch.log": """
      [2026-11-30 07:00:11,018] [INFO] [real_accelerator.py:254:get_accelerator] Setting ds_accelerator to cuda (auto detect)
      Traceback (most recent call last):
        File "/usr/local/bin/deepspeed", line 6, in <module>
          main()
        File "/usr/local/lib/python3.10/dist-packages/deepspeed/launcher/runner.py", line 443, in main
          resource_pool = fetch_hostfile(args.hostfile)
        File "/usr/local/lib/python3.10/dist-packages/deepspeed/launcher/runner.py", line 224, in fetch_hostfile
          resource_pool = _parse_hostfile(fd.readlines())
        File "/usr/local/lib/python3.10/dist-packages/deepspeed/launcher/runner.py", line 245, in _parse_hostfile
          raise ValueError(f"Hostfile contains a bad entry: {line}, unable to proceed with launching")
      ValueError: Hostfile contains a bad entry: worker-1:8, unable to proceed with launching
      """}, facts={"launcher": "deepspeed"}, must_mention=["slots"])


# ----------------------------------------------------------------------------------------------------------------
# more shapes: misleading last lines, one rank visible, cut short


@case
def keyerror_then_nccl_watchdog_16rank() -> Case:
    """A user-code error on one rank, then 30 minutes later the NCCL watchdog on every other rank: the last lines
    are the watchdog's, the cause is the KeyError."""
    root = 11
    lines = [f"[rank{r}]: [2026-11-30 02:0{r % 10}:00] epoch 1 step 4100 loss {1.9 - r / 100:.3f}" for r in range(0, 16, 5)]
    lines += prefixed(tb([("/mnt/code/train_mm.py", 390, "<module>", "main()"),
                         ("/mnt/code/train_mm.py", 351, "main", "pixel = batch[\"pixel_values\"].to(device, non_blocking=True)"),
                         ], "KeyError: 'pixel_values'"), f"[rank{root}]: ").splitlines()
    for r in range(16):
        if r == root:
            continue
        lines.append(f"[rank{r}]:[E1130 02:41:12.{100 + r:06d} {5000 + r} ProcessGroupNCCL.cpp:632] [Rank {r}] Watchdog caught "
                     f"collective operation timeout: WorkNCCL(SeqNum=81230, OpType=ALLREDUCE, NumelIn=58720256, "
                     f"NumelOut=58720256, Timeout(ms)=1800000) ran for 1800087 milliseconds before timing out.")
    for r in range(16):
        if r == root:
            continue
        lines.append(f"[rank{r}]:[E1130 02:41:13.{200 + r:06d} {5000 + r} ProcessGroupNCCL.cpp:2168] [PG ID 0 PG GUID 0(default_pg) "
                     f"Rank {r}] First PG on this rank to signal dumping.")
    lines.append("[rank0]:[F1130 02:51:13.000000000 5000 ProcessGroupNCCL.cpp:1557] [PG ID 0 PG GUID 0(default_pg) Rank 0] "
                 "[PG ID 0 PG GUID 0(default_pg) Rank 0] Terminating the process after attempting to dump debug info, due to "
                 "collective timeout or exception.")
    return Case("unknown-keyerror-rank11-then-nccl-watchdog-16rank-01", "user-keyerror-batch-field", "hard",
                "2 nodes x 8, a multimodal batch without pixel_values (a text-only shard) on rank 11; the other 15 ranks "
                "wait 30 minutes in all_reduce and the NCCL watchdog ends the log",
                {"train.log": "\n".join(lines)}, initiating_rank=11, must_mention=["pixel_values"])


@case
def one_rank_visible_json_serializable() -> Case:
    return Case("unknown-json-numpy-float32-rank0-only-01", "user-json-not-serializable", "medium",
                "only rank 0's file was collected; the end-of-epoch metrics dump holds numpy float32 values",
                {"rank_0.log": dd("""
                    [2026-11-30 18:20:02] epoch 2 done: 9120 steps, train loss 0.4412
                    [2026-11-30 18:21:40] eval: f1 0.8813 precision 0.9012 recall 0.8622
                    Traceback (most recent call last):
                      File "/srv/ner/train.py", line 277, in <module>
                        main()
                      File "/srv/ner/train.py", line 266, in main
                        json.dump(metrics, f, indent=2)
                      File "/usr/lib/python3.10/json/__init__.py", line 179, in dump
                        for chunk in iterable:
                      File "/usr/lib/python3.10/json/encoder.py", line 431, in _iterencode
                        yield from _iterencode_dict(o, _current_indent_level)
                      File "/usr/lib/python3.10/json/encoder.py", line 405, in _iterencode_dict
                        yield from chunks
                      File "/usr/lib/python3.10/json/encoder.py", line 438, in _iterencode
                        o = _default(o)
                      File "/usr/lib/python3.10/json/encoder.py", line 179, in default
                        raise TypeError(f'Object of type {o.__class__.__name__} '
                    TypeError: Object of type float32 is not JSON serializable
                    """)}, initiating_rank=0, must_mention=["float32"])


plain("unknown-sklearn-auc-single-class-shard-01", "user-sklearn-single-class", "medium",
      "per-rank evaluation on a small shard with only negatives (scikit-learn 1.3 raised instead of warning)", {"eval.log": """
      [eval] rank 3 shard: 256 examples, positives: 0
      Traceback (most recent call last):
        File "/home/u/ctr/eval.py", line 61, in <module>
          auc = roc_auc_score(labels, scores)
        File "/opt/conda/lib/python3.10/site-packages/sklearn/utils/_param_validation.py", line 211, in wrapper
          return func(*args, **kwargs)
        File "/opt/conda/lib/python3.10/site-packages/sklearn/metrics/_ranking.py", line 606, in roc_auc_score
          return _average_binary_score(
        File "/opt/conda/lib/python3.10/site-packages/sklearn/metrics/_base.py", line 75, in _average_binary_score
          return binary_metric(y_true, y_score, sample_weight=sample_weight)
        File "/opt/conda/lib/python3.10/site-packages/sklearn/metrics/_ranking.py", line 339, in _binary_roc_auc_score
          raise ValueError(
      ValueError: Only one class present in y_true. ROC AUC score is not defined in that case.
      """}, must_mention=["one class"])

plain("unknown-item-only-one-element-old-torch-01", "user-item-multi-element", "easy",
      "float() on a per-sample loss vector, as torch 1.x words it", {"train.log": """
      Traceback (most recent call last):
        File "train.py", line 133, in <module>
          running_loss += float(loss)
      ValueError: only one element tensors can be converted to Python scalars
      """}, must_mention=["reduction"])

plain("unknown-cut-short-stale-handle-rank-prefix-01", "env-stale-nfs-handle", "hard",
      "a log cut short: the last visible line is the stale-handle error of one rank, without its traceback head", {"tail.log": """
      [rank2]:   File "/nfs/proj/data/shards.py", line 40, in _open
      [rank2]:     return open(path, "rb")
      [rank2]: OSError: [Errno 116] Stale file handle: '/nfs/proj/data/tok/shard_00412.bin'
      """}, initiating_rank=2, must_mention=["Stale file handle"])

plain("unknown-torch-upgrade-memory-regression-train-oom-01", "torch-release-memory-regression", "hard",
      "the same fine-tune (same batch, same model, same GPU) OOMs after the only change, a torch upgrade; the log "
      "prints both versions and the earlier run's peak", {"train.log": """
      == env ==
      torch 2.6.0+cu124 (job template upgraded from 2.5.1+cu124 on 2026-11-27; requirements otherwise unchanged)
      GPU: NVIDIA H100 80GB HBM3, 1 process on the GPU (nvidia-smi: 0 MiB used before start)
      reference run 2026-11-20 (torch 2.5.1): peak allocated 71.2 GiB at micro-batch 8, seq 4096
      == train ==
      step 1 | loss 2.4110 | peak alloc 78.9 GiB
      Traceback (most recent call last):
        File "/home/u/sft/train.py", line 188, in <module>
          loss.backward()
        File "/opt/venv/lib/python3.11/site-packages/torch/_tensor.py", line 626, in backward
          torch.autograd.backward(
        File "/opt/venv/lib/python3.11/site-packages/torch/autograd/graph.py", line 823, in _engine_run_backward
          return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass
      torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.96 GiB. GPU 0 has a total capacity of 79.19 GiB of which 503.62 MiB is free. Including non-PyTorch memory, this process has 78.69 GiB memory in use. Of the allocated memory 76.30 GiB is allocated by PyTorch, and 1.82 GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)
      """}, facts={"torch_version": "2.6.0", "oom_tried_to_allocate": "1.96 GiB"}, must_mention=["torch"],
      also=["cuda-oom"])


# ----------------------------------------------------------------------------------------------------------------
# real failing programs (evals/unknown/programs/<name>.py, run on CPU torch 2.13.0; captured/<name>.txt holds the
# output with only the paths changed).

CAPTURED = ROOT / "programs" / "captured"


def captured(name: str) -> str:
    text = (CAPTURED / f"{name}.txt").read_text(encoding="utf-8")
    return "\n".join(line for line in text.splitlines() if not line.startswith("rc="))


REAL: list[tuple[str, str, str, str, str, dict[str, object]]] = [
    # (case id, kind, difficulty, description, captured name, extra)
    ("unknown-real-keyerror-labels-torchrun-2rank-01", "user-keyerror-batch-field", "easy",
     "real run: torchrun 2 ranks (gloo), the loop reads batch['labels'] from a dataset that yields 'label'",
     "keyerror", {"initiating_rank": [0, 1], "facts": {"launcher": "torchrun", "world_size": "2"}}),
    ("unknown-real-unpack-three-tensors-torchrun-4rank-01", "user-batch-unpack", "easy",
     "real run: torchrun 4 ranks; a TensorDataset gained sample weights and the loop still unpacks two",
     "unpack", {"initiating_rank": [0, 1, 2, 3], "facts": {"launcher": "torchrun", "world_size": "4"}}),
    ("unknown-real-empty-params-frozen-torchrun-01", "user-optimizer-empty-params", "easy",
     "real run: torchrun 2 ranks; a freeze loop freezes the head too and the optimizer gets no parameters",
     "emptyparams", {"initiating_rank": [0, 1], "facts": {"launcher": "torchrun"}}),
    ("unknown-real-bool-ambiguous-rank2-torchrun-01", "user-tensor-bool-ambiguous", "medium",
     "real run: torchrun 4 ranks; at step 7 rank 2's loss is a vector and `if loss > 3.0` raises",
     "boolamb", {"initiating_rank": 2, "facts": {"launcher": "torchrun", "world_size": "4"}}),
    ("unknown-real-item-per-sample-loss-torchrun-01", "user-item-multi-element", "easy",
     "real run: torchrun 2 ranks; loss.item() on a reduction='none' loss", "item",
     {"initiating_rank": [0, 1], "facts": {"launcher": "torchrun"}}),
    ("unknown-real-format-string-tensor-01", "user-tensor-format-string", "easy",
     "real run: an f-string :.4f on a per-sample loss vector at the first log step", "fmt", {}),
    ("unknown-real-json-tensor-rank0-gloo-collateral-01", "user-json-not-serializable", "hard",
     "real run: torchrun 4 ranks; rank 0 dies writing metrics.json with a tensor inside, the other ranks fail in the "
     "barrier with gloo connection errors", "jsondump", {"initiating_rank": 0, "facts": {"launcher": "torchrun", "world_size": "4"}}),
    ("unknown-real-batchnorm-last-batch-of-one-01", "user-batchnorm-single-sample", "easy",
     "real run: 1025 samples, batch 64, drop_last=False: the last batch has one sample", "bn", {}),
    ("unknown-real-sampler-and-shuffle-torchrun-01", "user-sampler-shuffle-conflict", "easy",
     "real run: torchrun 2 ranks; DataLoader(shuffle=True, sampler=DistributedSampler(...))", "samplershuffle",
     {"initiating_rank": [0, 1], "facts": {"launcher": "torchrun"}}),
    ("unknown-real-empty-dataset-after-filter-01", "user-empty-dataset-sampler", "medium",
     "real run: a length filter keeps 0 of 500 examples; RandomSampler refuses num_samples=0", "emptyds", {}),
    ("unknown-real-sampler-before-init-process-group-01", "launcher-default-pg-not-initialized", "easy",
     "real run: torchrun 2 ranks; DistributedSampler is built before init_process_group", "nopg",
     {"initiating_rank": [0, 1], "facts": {"launcher": "torchrun"}}),
    ("unknown-real-rank-env-unset-plain-python-01", "launcher-env-rank-unset", "easy",
     "real run: a distributed script started with plain python, no launcher", "rankunset", {}),
    ("unknown-real-lambda-collate-spawn-01", "user-lambda-pickle-spawn", "easy",
     "real run: a lambda collate_fn with multiprocessing_context='spawn' workers", "lambdaspawn", {}),
    ("unknown-real-pool-without-main-guard-cut-01", "user-mp-main-guard", "medium",
     "real run: a spawn Pool at module level; the children re-import the script; the log ends when the job's timeout "
     "killed it", "mainguard", {}),
    ("unknown-real-yaml-lr-string-adamw-01", "user-hparam-string-type", "medium",
     "real run: PyYAML reads `lr: 1e-4` as a string (YAML 1.1 needs a dot) and AdamW compares it", "hparam", {}),
    ("unknown-real-optimizer-group-size-resume-01", "lib-optimizer-state-group-mismatch", "medium",
     "real run: resume into a model with a new layer; the optimizer's single param group changed size", "optgroup", {}),
    ("unknown-real-gradscaler-half-model-01", "lib-gradscaler-fp16-params", "easy",
     "real run: model.half() with GradScaler; unscale_ refuses fp16 gradients", "scaler", {}),
    ("unknown-real-torchscript-varargs-01", "lib-torchscript-unsupported", "easy",
     "real run: torch.jit.script on a forward(self, x, *extra)", "jit", {}),
    ("unknown-real-recursion-wrapper-deepcopy-01", "user-recursion-getattr", "easy",
     "real run: copy.deepcopy of a wrapper whose __getattr__ reads self.module", "recursion", {}),
    ("unknown-real-boto3-no-credentials-checkpoint-01", "env-aws-no-credentials", "easy",
     "real run: a checkpoint upload with boto3 on a node without AWS credentials", "s3", {}),
    ("unknown-real-onnx-export-rfft-01", "lib-onnx-unsupported-operator", "easy",
     "real run: torch.onnx.export (TorchScript exporter, opset 17) of a model using torch.fft.rfft", "onnxexp", {}),
    ("unknown-real-makedirs-without-exist-ok-4rank-01", "user-makedirs-race", "medium",
     "real run: torchrun 4 ranks; after rank 0 created ckpt/, every rank calls os.makedirs on it", "makedirs",
     {"initiating_rank": [0, 1, 2, 3], "facts": {"launcher": "torchrun", "world_size": "4"}}),
    ("unknown-real-circular-import-01", "user-circular-import", "easy",
     "real run: data.py and models.py import each other", "circ", {}),
    ("unknown-real-input-eof-batch-job-01", "user-stdin-eof-batch-job", "medium",
     "real run: an overwrite prompt (input()) in a job whose stdin is /dev/null", "eof", {}),
    ("unknown-real-launch-local-rank-dash-01", "lib-argparse-local-rank", "medium",
     "real run: python -m torch.distributed.launch (torch 2.13 passes --local-rank) on a script that declares "
     "--local_rank", "localrank", {"initiating_rank": [0, 1]}),
    # added after the move of the two credential cases (kb-infra): a fresh kind in their place
    ("unknown-real-tarfile-html-dataset-archive-01", "env-download-not-an-archive", "medium",
     "real run: the job's wget saved a data portal's sign-in page as the dataset .tgz; tarfile.open tries every "
     "compression and gives up", "tarhtml", {"must_mention": ["HTML"]}),
    # added after the move of the protobuf case (protobuf-generated-code-outdated): a fresh kind in its place
    ("unknown-real-tokenizers-truncation-overflow-01", "lib-tokenizers-truncation-overflow", "medium",
     "real run: a data-packing script takes max_len from a tokenizer config without model_max_length, falls back to "
     "transformers' int(1e30) sentinel and hands it to tokenizers' enable_truncation (tokenizers 0.22.1)",
     "tokoverflow", {"must_mention": ["max_length"]}),
    ("unknown-real-onecycle-total-steps-exceeded-01", "lib-onecycle-total-steps", "easy",
     "real run: OneCycleLR sized for 3 epochs (total_steps=30) while the loop runs 4; step 31 raises", "onecycle", {}),
]


def _real(case_id: str, kind: str, difficulty: str, description: str, name: str, extra: dict[str, object]) -> Callable[[], Case]:
    def make() -> Case:
        return Case(case_id, kind, difficulty, description, {"console.log": captured(name)}, **extra)  # type: ignore[arg-type]
    return make


for _row in REAL:
    CASES.append(_real(*_row))


def blind_hash(case_ids: list[str]) -> str:
    """The sha256 of the named cases' files (relative path and bytes, in sorted order): what README.md records
    for the blind set at freezing, so a later edit of a blind case shows."""
    import hashlib

    h = hashlib.sha256()
    for cid in sorted(case_ids):
        for path in sorted(p for p in (ROOT / cid).rglob("*") if p.is_file()):
            h.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def main() -> None:
    import sys

    if sys.argv[1:] == ["--hash"]:  # the hash of the blind set listed in README.md
        listed = (ROOT / "README.md").read_text(encoding="utf-8").split("<!-- blind -->")[1]
        print(blind_hash([line.strip("- `\n ") for line in listed.splitlines() if line.startswith("- `")]))
        return
    ids = set()
    for make in CASES:
        c = make()
        assert c.id not in ids, c.id
        ids.add(c.id)
        write(c)
    print(f"wrote {len(ids)} cases to {ROOT}")


if __name__ == "__main__":
    main()
