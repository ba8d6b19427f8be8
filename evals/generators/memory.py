"""Write the eval cases for the memory and data-loading failures.

Ids covered: cuda-oom, cuda-oom-fragmentation, cuda-memory-leak-growth, host-oom-killed,
dataloader-shm-exhausted, dataloader-worker-crash, collate-unequal-sample-shapes.

Most logs are synthetic: each case is written out by hand below (the part that fails) with shared
helpers for the noise real runs print (nvidia-smi, collect_env, ds_report, pip lists, NCCL INFO lines,
launcher banners, HF Trainer / Lightning / DeepSpeed progress). Five cases are real CPU-only PyTorch
runs: ``--real`` writes the small programs to a scratch workspace, runs them (under ``torchrun`` with
the gloo backend where the case is distributed, and in a private mount namespace with a 64 MB
``/dev/shm`` for the shared-memory case, which needs root and ``unshare``) and stores what they
printed.

    python evals/generators/memory.py                       # rewrite the synthetic cases (+ case.yaml of all)
    python evals/generators/memory.py --real --python /opt/venv/bin/python   # also rerun the real captures
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path


from common import SMI_HEADS_NARROW, Case, RankExit, accelerate_launch_frames, backward_call_frames, dedent, elastic_launch_frames, module_call_frames, parser, torchrun_child_failed_summary, torchrun_main_frames, write_case  # noqa: E402


# --------------------------------------------------------------------------------------------------
# noise helpers
# --------------------------------------------------------------------------------------------------

GPU_MEM_MIB = {
    "Tesla T4": 15360,
    "Tesla V100-SXM2-32GB": 32768,
    "NVIDIA A10G": 23028,
    "NVIDIA L4": 23034,
    "NVIDIA L40S": 46068,
    "NVIDIA A100-SXM4-40GB": 40960,
    "NVIDIA A100-SXM4-80GB": 81920,
    "NVIDIA GeForce RTX 3090": 24576,
    "NVIDIA GeForce RTX 4090": 24564,
    "NVIDIA H100 80GB HBM3": 81559,
    "NVIDIA H200": 143771,
}
GPU_POWER_CAP = {
    "Tesla T4": 70, "Tesla V100-SXM2-32GB": 300, "NVIDIA A10G": 300, "NVIDIA L4": 72, "NVIDIA L40S": 350,
    "NVIDIA A100-SXM4-40GB": 400, "NVIDIA A100-SXM4-80GB": 400, "NVIDIA GeForce RTX 3090": 350,
    "NVIDIA GeForce RTX 4090": 450, "NVIDIA H100 80GB HBM3": 700, "NVIDIA H200": 700,
}
SXM_BUS = ["00000000:07:00.0", "00000000:0F:00.0", "00000000:47:00.0", "00000000:4E:00.0",
           "00000000:87:00.0", "00000000:90:00.0", "00000000:B7:00.0", "00000000:BD:00.0"]
H100_BUS = ["00000000:18:00.0", "00000000:2A:00.0", "00000000:3A:00.0", "00000000:5D:00.0",
            "00000000:9A:00.0", "00000000:AB:00.0", "00000000:BA:00.0", "00000000:DB:00.0"]


def nvidia_smi(date: str, driver: str, cuda: str, gpu: str, n: int, rng: random.Random,
               bus: list[str] | None = None, style: str = "535", used: list[int] | None = None,
               procs: list[tuple[int, int, str, int]] | None = None, persistence: str = "On") -> str:
    """An `nvidia-smi` table. style: '470' (old layout), '535' (new) or '550' (wider bus column)."""
    total = GPU_MEM_MIB[gpu]
    cap = GPU_POWER_CAP[gpu]
    bus = bus or SXM_BUS
    used = used or [rng.choice([0, 1, 4]) for _ in range(n)]
    out = [date]
    if style == "470":
        w1, w2, w3 = 31, 22, 22
        out.append("+" + "-" * 77 + "+")
        head = f" NVIDIA-SMI {driver}   Driver Version: {driver}   CUDA Version: {cuda}"
        out.append("|" + head.ljust(77) + "|")
        out.append(f"|{'-' * w1}+{'-' * w2}+{'-' * w3}+")
        out += SMI_HEADS_NARROW
        out.append(f"|{'=' * w1}+{'=' * w2}+{'=' * w3}|")
        for i in range(n):
            name = gpu if len(gpu) <= 18 else gpu[:15] + "..."
            temp = rng.randint(29, 38)
            pwr = rng.randint(int(cap * 0.08), int(cap * 0.2))
            c1 = f"   {i}  {name:<18}  {persistence:<3}  "
            c1b = f" N/A   {temp}C    P0   {pwr:>3}W / {cap:>3}W "
            out.append(f"|{c1:<{w1}}|{(' ' + bus[i] + ' Off '):>{w2}}|{'0 ':>{w3}}|")
            out.append(f"|{c1b:>{w1}}|{(f'{used[i]}MiB / {total}MiB '):>{w2}}|{'0%      Default ':>{w3}}|")
            out.append(f"|{'':{w1}}|{'':{w2}}|{'N/A ':>{w3}}|")
            out.append(f"+{'-' * w1}+{'-' * w2}+{'-' * w3}+")
        out.append(" " * 79)
        out.append("+" + "-" * 77 + "+")
        out.append("| Processes:" + " " * 66 + "|")
        out.append("|  GPU   GI   CI        PID   Type   Process name                  GPU Memory |")
        out.append("|        ID   ID                                                   Usage      |")
        out.append("|" + "=" * 77 + "|")
        if not procs:
            out.append("|  No running processes found" + " " * 49 + "|")
        else:
            for g, pid, pname, mem in procs:
                out.append("|" + f"    {g}   N/A  N/A  {pid:>8}      C   {pname:<28}{mem:>8}MiB ".ljust(77) + "|")
        out.append("+" + "-" * 77 + "+")
        return "\n".join(out)
    w1, w2, w3 = 41, (22 if style == "535" else 24), 22
    width = w1 + w2 + w3 + 2
    out.append("+" + "-" * width + "+")
    if style == "535":
        head = f" NVIDIA-SMI {driver}             Driver Version: {driver}   CUDA Version: {cuda}"
    else:
        head = f" NVIDIA-SMI {driver}              Driver Version: {driver}      CUDA Version: {cuda}"
    out.append("|" + head.ljust(width) + "|")
    out.append(f"|{'-' * w1}+{'-' * w2}+{'-' * w3}+")
    out.append(f"|{' GPU  Name                 Persistence-M ':<{w1}}|{(' Bus-Id' + ' ' * (w2 - 14) + 'Disp.A '):<{w2}}|{' Volatile Uncorr. ECC ':<{w3}}|")
    out.append(f"|{' Fan  Temp   Perf          Pwr:Usage/Cap ':<{w1}}|{'Memory-Usage ':>{w2}}|{' GPU-Util  Compute M. ':<{w3}}|")
    out.append(f"|{'':{w1}}|{'':{w2}}|{'MIG M. ':>{w3}}|")
    out.append(f"|{'=' * w1}+{'=' * w2}+{'=' * w3}|")
    for i in range(n):
        temp = rng.randint(27, 37)
        pwr = rng.randint(int(cap * 0.09), int(cap * 0.16))
        left = f" {i:>3}  {gpu:<31}"[: w1 - 4] + f"{persistence:>2}  "
        left = f"{left:>{w1}}"
        pw = f"{pwr}W / {cap}W " if style == "535" else f"{pwr}W / {cap:>4}W "
        c1b = f" N/A   {temp}C    P0" + pw.rjust(w1 - 16)
        mem = f"{used[i]}MiB / {total}MiB " if style == "535" else f"{used[i]:>5}MiB / {total:>6}MiB "
        busc = f" {bus[i]} Off " if style == "535" else f"   {bus[i]} Off "
        out.append(f"|{left:<{w1}}|{busc:>{w2}}|{'0 ':>{w3}}|")
        out.append(f"|{c1b:<{w1}}|{mem:>{w2}}|{'0%      Default ':>{w3}}|")
        out.append(f"|{'':{w1}}|{'':{w2}}|{'Disabled ':>{w3}}|")
        out.append(f"+{'-' * w1}+{'-' * w2}+{'-' * w3}+")
    out.append("")
    out.append("+" + "-" * width + "+")
    out.append("|" + " Processes:".ljust(width) + "|")
    out.append("|" + "  GPU   GI   CI        PID   Type   Process name".ljust(width - 11) + "GPU Memory |")
    out.append("|" + "        ID   ID".ljust(width - 11) + "Usage      |")
    out.append("|" + "=" * width + "|")
    if not procs:
        out.append("|" + "  No running processes found".ljust(width) + "|")
    else:
        for g, pid, pname, mem in procs:
            out.append("|" + f"    {g}   N/A  N/A  {pid:>8}      C   {pname}".ljust(width - 11) + f"{mem:>7}MiB |")
    out.append("+" + "-" * width + "+")
    return "\n".join(out)


def ds_report(torch_v: str, torch_cuda: str, ds_v: str, nvcc: str, site: str, shm: str | None = None) -> str:
    lines = dedent(f"""
--------------------------------------------------
DeepSpeed C++/CUDA extension op report
--------------------------------------------------
NOTE: Ops not installed will be just-in-time (JIT) compiled at
      runtime if needed. Op compatibility means that your system
      meet the required dependencies to JIT install the op.
--------------------------------------------------
JIT compiled ops requires ninja
ninja .................. [OKAY]
--------------------------------------------------
op name ................ installed .. compatible
--------------------------------------------------
async_io ............... [NO] ....... [OKAY]
fused_adam ............. [NO] ....... [OKAY]
cpu_adam ............... [NO] ....... [OKAY]
cpu_adagrad ............ [NO] ....... [OKAY]
cpu_lion ............... [NO] ....... [OKAY]
fused_lamb ............. [NO] ....... [OKAY]
fused_lion ............. [NO] ....... [OKAY]
quantizer .............. [NO] ....... [OKAY]
random_ltd ............. [NO] ....... [OKAY]
 [WARNING]  sparse_attn requires a torch version >= 1.5 and < 2.0 but detected {'.'.join(torch_v.split('.')[:2])}
 [WARNING]  using untested triton version (2.1.0), only 1.0.0 is known to be compatible
sparse_attn ............ [NO] ....... [NO]
spatial_inference ...... [NO] ....... [OKAY]
transformer ............ [NO] ....... [OKAY]
stochastic_transformer . [NO] ....... [OKAY]
transformer_inference .. [NO] ....... [OKAY]
--------------------------------------------------
DeepSpeed general environment info:
torch install path ............... ['{site}/torch']
torch version .................... {torch_v}
deepspeed install path ........... ['{site}/deepspeed']
deepspeed info ................... {ds_v}, unknown, unknown
torch cuda version ............... {torch_cuda}
torch hip version ................ None
nvcc version ..................... {nvcc}
deepspeed wheel compiled w. ...... torch {'.'.join(torch_v.split('+')[0].split('.')[:2])}, cuda {torch_cuda}
""")
    if shm:
        lines += f"\nshared memory (/dev/shm) size .... {shm}"
    return lines


def tqdm_bar(n: int, total: int, elapsed: float, rate: float | None = None, desc: str = "", postfix: str = "",
             unit: str = "it", width: int = 10) -> str:
    """One tqdm line as written to a non-tty (rate = seconds per iteration)."""
    def fmt(t: float) -> str:
        t = int(t)
        h, r = divmod(t, 3600)
        m, s = divmod(r, 60)
        return f"{h}:{m:02d}:{s:02d}" if h else f"{m:02d}:{s:02d}"

    frac = n / total if total else 0
    pct = int(frac * 100)
    full = int(frac * width)
    parts = " ▏▎▍▌▋▊▉"
    rem = int((frac * width - full) * 8)
    bar = "█" * full + (parts[rem] if full < width else "")
    bar = bar.ljust(width)
    if n == 0 or rate is None:
        rtxt = f"?{unit}/s"
        remaining = "?"
    else:
        rtxt = f"{rate:5.2f}s/{unit}" if rate >= 1 else f"{1 / rate:5.2f}{unit}/s"
        remaining = fmt((total - n) * rate)
    d = f"{desc}: " if desc else ""
    pf = f", {postfix}" if postfix else ""
    return f"{d}{pct:>3}%|{bar}| {n}/{total} [{fmt(elapsed)}<{remaining}, {rtxt}{pf}]"


def hf_train_header(num_examples: int, epochs: int, bs: int, total_bs: int, accum: int, steps: int,
                    trainable: int) -> str:
    return dedent(f"""
***** Running training *****
  Num examples = {num_examples:,}
  Num Epochs = {epochs:,}
  Instantaneous batch size per device = {bs:,}
  Total train batch size (w. parallel, distributed & accumulation) = {total_bs:,}
  Gradient Accumulation steps = {accum}
  Total optimization steps = {steps:,}
  Number of trainable parameters = {trainable:,}
""")


def pip_list(pkgs: list[tuple[str, str]]) -> str:
    w = max(len(p) for p, _ in pkgs) + 2
    lines = ["Package".ljust(w) + "Version", "-" * (w - 1) + " " + "-" * 14]
    lines += [p.ljust(w) + v for p, v in pkgs]
    return "\n".join(lines)


def dt(s: str) -> datetime:
    return datetime.strptime(s, "%Y-%m-%d %H:%M:%S")


def ds_ts(t: datetime) -> str:
    return t.strftime("[%Y-%m-%d %H:%M:%S,") + f"{t.microsecond // 1000:03d}]"


def glog_ts(t: datetime, pid: int, level: str = "W") -> str:
    return f"{level}{t.strftime('%m%d %H:%M:%S')}.{t.microsecond:06d} {pid}"


def fake_token(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
UPALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
HEX = "0123456789abcdef"


# ==================================================================================================
# cuda-oom
# ==================================================================================================


def case_cuda_oom_01() -> Case:
    """Plain python, single A10G, full bf16 fine-tune of a 7B model with HF Trainer: OOM at step 1."""
    rng = random.Random(101)
    site = "/opt/conda/envs/sft/lib/python3.10/site-packages"
    smi = nvidia_smi("Tue Jan 16 09:58:04 2024", "535.104.12", "12.2", "NVIDIA A10G", 1, rng,
                     bus=["00000000:00:1E.0"], used=[0])
    log = [
        "+ nvidia-smi", smi,
        "+ python sft.py --model_name_or_path mistralai/Mistral-7B-v0.1 --train_file data/support_tickets.jsonl "
        "--output_dir runs/mistral-sft-0116 --bf16 --per_device_train_batch_size 4 --gradient_accumulation_steps 8 "
        "--learning_rate 2e-5 --num_train_epochs 3 --max_seq_length 2048 --logging_steps 10 --save_steps 500",
        "[2024-01-16 09:58:11] torch 2.1.2+cu121 | transformers 4.36.2 | accelerate 0.25.0 | datasets 2.16.1",
        "[2024-01-16 09:58:11] cuda available: True, device: NVIDIA A10G (1 visible)",
        "config.json: 100%|██████████| 571/571 [00:00<00:00, 3.12MB/s]",
        "model.safetensors.index.json: 100%|██████████| 25.1k/25.1k [00:00<00:00, 61.3MB/s]",
        "Downloading shards:   0%|          | 0/2 [00:00<?, ?it/s]",
        "model-00001-of-00002.safetensors: 100%|██████████| 9.94G/9.94G [01:02<00:00, 159MB/s]",
        "Downloading shards:  50%|█████     | 1/2 [01:02<01:02, 62.51s/it]",
        "model-00002-of-00002.safetensors: 100%|██████████| 4.54G/4.54G [00:28<00:00, 160MB/s]",
        "Downloading shards: 100%|██████████| 2/2 [01:31<00:00, 45.53s/it]",
        "Loading checkpoint shards: 100%|██████████| 2/2 [00:06<00:00,  3.21s/it]",
        "generation_config.json: 100%|██████████| 116/116 [00:00<00:00, 412kB/s]",
        "tokenizer_config.json: 100%|██████████| 967/967 [00:00<00:00, 5.41MB/s]",
        "tokenizer.model: 100%|██████████| 493k/493k [00:00<00:00, 28.3MB/s]",
        "tokenizer.json: 100%|██████████| 1.80M/1.80M [00:00<00:00, 9.73MB/s]",
        "special_tokens_map.json: 100%|██████████| 72.0/72.0 [00:00<00:00, 398kB/s]",
        "[2024-01-16 10:00:01] model loaded: 7,241,732,096 params, dtype=torch.bfloat16, device=cuda:0",
        "[2024-01-16 10:00:01] tokenizer has no pad token, using eos_token as pad_token",
        "Generating train split: 48213 examples [00:01, 31877.12 examples/s]",
    ]
    # datasets map progress
    for n in (1000, 12000, 24000, 36000, 48213):
        log.append("Map (num_proc=8): " + tqdm_bar(n, 48213, n / 2481.09, 1 / 2481.09, unit=" examples")
                   .replace("  examples/s", " examples/s"))
    log += [
        "Filter: 100%|██████████| 48213/48213 [00:02<00:00, 19011.52 examples/s]",
        "[2024-01-16 10:00:25] train examples after length filter (<= 2048 tokens): 47102",
        "Detected kernel version 5.4.0, which is below the recommended minimum of 5.5.0; this can cause the process "
        "to hang. It is recommended to upgrade the kernel to the minimum version or higher.",
        "huggingface/tokenizers: The current process just got forked, after parallelism has already been used. "
        "Disabling parallelism to avoid deadlocks...",
        "To disable this warning, you can either:",
        "\t- Avoid using `tokenizers` before the fork if possible",
        "\t- Explicitly set the environment variable TOKENIZERS_PARALLELISM=(true | false)",
        hf_train_header(47102, 3, 4, 32, 8, 4416, 7241732096),
        "  0%|          | 0/4416 [00:00<?, ?it/s]",
        "Traceback (most recent call last):",
        '  File "/home/ubuntu/sft/sft.py", line 176, in <module>',
        "    main()",
        '  File "/home/ubuntu/sft/sft.py", line 172, in main',
        "    trainer.train(resume_from_checkpoint=args.resume)",
        f'  File "{site}/transformers/trainer.py", line 1537, in train',
        "    return inner_training_loop(",
        f'  File "{site}/transformers/trainer.py", line 1854, in _inner_training_loop',
        "    tr_loss_step = self.training_step(model, inputs)",
        f'  File "{site}/transformers/trainer.py", line 2744, in training_step',
        "    self.accelerator.backward(loss)",
        f'  File "{site}/accelerate/accelerator.py", line 1905, in backward',
        "    loss.backward(**kwargs)",
        *backward_call_frames(site, "2.1"),
        "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 224.00 MiB. GPU 0 has a total capacty of "
        "22.19 GiB of which 51.50 MiB is free. Including non-PyTorch memory, this process has 22.13 GiB memory in use. "
        "Of the allocated memory 21.68 GiB is allocated by PyTorch, and 161.27 MiB is reserved by PyTorch but "
        "unallocated. If reserved but unallocated memory is large try setting max_split_size_mb to avoid "
        "fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF",
        "  0%|          | 0/4416 [00:07<?, ?it/s]",
    ]
    return Case(
        "cuda-oom-mistral7b-full-ft-a10g-01", "cuda-oom", "easy",
        "Single A10G (24 GB): full bf16 fine-tune of Mistral-7B with HF Trainer, batch 4 x 2048 tokens; the first "
        "backward runs out of GPU memory (weights alone are 14.5 GB, no LoRA, no gradient checkpointing).",
        None,
        {"gpu_model": "A10G", "driver_version": "535.104.12", "torch_version": "2.1.2", "cuda_version": "12.1",
         "transformers_version": "4.36.2", "launcher": "python", "oom_tried_to_allocate": "224.00 MiB",
         "precision": "bf16"},
        ["LoRA", "gradient"],
        {"train.log": "\n".join(log)},
    )


def case_cuda_oom_02() -> Case:
    """deepspeed launcher over pdsh, 2 nodes x 8 A100-80GB, ZeRO-2; rank 11 OOMs in attention at step 1, node 1
    ranks die 30 minutes later of the NCCL watchdog and pdsh reports both nodes."""
    import base64
    import json

    rng = random.Random(102)
    n1, n2 = "gpu-a100-11", "gpu-a100-12"
    user = "mchen"
    home = f"/fsx/home/{user}"
    hf_tok = "hf_" + fake_token(rng, ALNUM, 34)
    site = "/usr/local/lib/python3.10/dist-packages"
    t0 = dt("2023-10-04 21:14:02")
    world = {n1: list(range(8)), n2: list(range(8))}
    winfo = base64.urlsafe_b64encode(json.dumps(world).encode()).decode()
    args = ("--deepspeed configs/ds_zero2_bf16.json --model_name_or_path meta-llama/Llama-2-13b-hf "
            "--data_path /fsx/data/sft_mix_v3 --max_seq_len 4096 --per_device_train_batch_size 8 "
            "--gradient_accumulation_steps 2 --learning_rate 1e-5 --num_train_epochs 2 "
            "--output_dir /fsx/ckpt/l2-13b-sft-v3 --report_to wandb")
    argl = str(args.split()).strip("[]")
    L: list[str] = []
    last: dict[str | None, datetime] = {}

    def ds(t: datetime, lvl: str, src: str, msg: str, host: str | None = None) -> None:
        tt = t + timedelta(microseconds=rng.randint(0, 45000))
        if host in last and tt <= last[host]:
            tt = last[host] + timedelta(microseconds=rng.randint(200, 1500))
        last[host] = tt
        line = f"{ds_ts(tt)} [{lvl}] [{src}] {msg}"
        if host:
            line = f"{host}: " + line.replace("\n", f"\n{host}: ")
        L.append(line)

    L.append(f"(sft) {user}@{n1}:~/llm-sft$ deepspeed --hostfile hostfile --master_addr {n1} --master_port 29611 "
             f"train.py {args}")
    ds(t0, "INFO", "real_accelerator.py:158:get_accelerator", "Setting ds_accelerator to cuda (auto detect)")
    ds(t0 + timedelta(seconds=1.8), "INFO", "multinode_runner.py:72:get_cmd",
       f"Running on the following workers: {n1},{n2}")
    ds(t0 + timedelta(seconds=1.8), "INFO", "runner.py:570:main",
       f"cmd = pdsh -S -f 1024 -w {n1},{n2} export PYTHONPATH={home}/llm-sft;  export NCCL_IB_HCA=mlx5; "
       f"export NCCL_SOCKET_IFNAME=ens; export HF_TOKEN={hf_tok}; export WANDB_PROJECT=llm-sft;  "
       f"cd {home}/llm-sft; /usr/bin/python3 -u -m deepspeed.launcher.launch --world_info={winfo} --node_rank=%n "
       f"--master_addr={n1} --master_port=29611 train.py {args}")
    t = t0 + timedelta(seconds=4.4)
    for node_rank, host in enumerate((n1, n2)):
        tt = t + timedelta(milliseconds=rng.randint(10, 400))
        ds(tt, "INFO", "real_accelerator.py:158:get_accelerator", "Setting ds_accelerator to cuda (auto detect)", host)
        tt += timedelta(seconds=1.5)
        ds(tt, "INFO", "launch.py:138:main", f"{node_rank} NCCL_IB_HCA=mlx5", host)
        ds(tt, "INFO", "launch.py:138:main", f"{node_rank} NCCL_SOCKET_IFNAME=ens", host)
        ds(tt, "INFO", "launch.py:145:main", f"WORLD INFO DICT: {{'{n1}': [0, 1, 2, 3, 4, 5, 6, 7], '{n2}': [0, 1, 2, 3, 4, 5, 6, 7]}}", host)
        ds(tt, "INFO", "launch.py:151:main", f"nnodes=2, num_local_procs=8, node_rank={node_rank}", host)
        ds(tt, "INFO", "launch.py:162:main", f"global_rank_mapping=defaultdict(<class 'list'>, {{'{n1}': [0, 1, 2, 3, 4, 5, 6, 7], '{n2}': [8, 9, 10, 11, 12, 13, 14, 15]}})", host)
        ds(tt, "INFO", "launch.py:163:main", "dist_world_size=16", host)
        ds(tt, "INFO", "launch.py:165:main", "Setting CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7", host)
    t += timedelta(seconds=6)
    order = list(range(16))
    rng.shuffle(order)
    offs = sorted(rng.randint(0, 900) for _ in order)
    for r, o in zip(order, offs):
        host = n1 if r < 8 else n2
        ds(t + timedelta(milliseconds=o), "INFO", "real_accelerator.py:158:get_accelerator",
           "Setting ds_accelerator to cuda (auto detect)", host)
    t += timedelta(seconds=5)
    offs = sorted(rng.randint(0, 300) for _ in order)
    for r, o in zip(order, offs):
        host = n1 if r < 8 else n2
        ds(t + timedelta(milliseconds=o), "INFO", "comm.py:637:init_distributed", "cdb=None", host)
    ds(t + timedelta(milliseconds=310), "INFO", "comm.py:668:init_distributed",
       "Initializing TorchBackend in DeepSpeed with backend nccl", n1)
    L.append(f"{n1}: wandb: Currently logged in as: {user} (acme-llm). Use `wandb login --relogin` to force relogin")
    L.append(f"{n1}: wandb: Tracking run with wandb version 0.15.11")
    L.append(f"{n1}: wandb: Run data is saved locally in {home}/llm-sft/wandb/run-20231004_211418-8q2x0m4d")
    L.append(f"{n1}: wandb: Run `wandb offline` to turn off syncing.")
    L.append(f"{n1}: wandb: Syncing run l2-13b-sft-v3")
    L.append(f"{n1}: wandb: ⭐️ View project at https://wandb.ai/acme-llm/llm-sft")
    L.append(f"{n1}: wandb: 🚀 View run at https://wandb.ai/acme-llm/llm-sft/runs/8q2x0m4d")
    for r in order:
        host = n1 if r < 8 else n2
        L.append(f"{host}: Loading checkpoint shards: 100%|██████████| 3/3 [00:{rng.randint(10, 14)}<00:00,  "
                 f"{rng.uniform(3.4, 4.7):.2f}s/it]")
    for r in order[:5]:
        host = n1 if r < 8 else n2
        L.append(f"{host}: You are using the default legacy behaviour of the <class 'transformers.models.llama."
                 "tokenization_llama.LlamaTokenizer'>. This is expected, and simply means that the `legacy` (previous) "
                 "behavior will be used so nothing changes for you. If you want to use the new behaviour, set "
                 "`legacy=False`. This should only be set if you understand what it means, and thoroughly read the "
                 "reason why this was added as explained in https://github.com/huggingface/transformers/pull/24565")
    L.append(f"{n1}: [rank0] torch 2.0.1+cu118 | transformers 4.33.2 | deepspeed 0.10.3 | 8 x NVIDIA A100-SXM4-80GB per node")
    L.append(f"{n1}: [rank0] loaded 912,448 training samples from /fsx/data/sft_mix_v3 (max_seq_len=4096, padding=longest)")
    t += timedelta(seconds=41)
    ds(t, "INFO", "logging.py:96:log_dist", "[Rank 0] DeepSpeed info: version=0.10.3, git-hash=unknown, git-branch=unknown", n1)
    t += timedelta(seconds=3.2)
    ds(t, "INFO", "logging.py:96:log_dist", "[Rank 0] DeepSpeed Flops Profiler Enabled: False", n1)
    for r in order:
        host = n1 if r < 8 else n2
        L.append(f"{host}: Using {home}/.cache/torch_extensions/py310_cu118 as PyTorch extensions root...")
    L += [f"{n1}: Detected CUDA files, patching ldflags",
          f"{n1}: Emitting ninja build file {home}/.cache/torch_extensions/py310_cu118/fused_adam/build.ninja...",
          f"{n1}: Building extension module fused_adam...",
          f"{n1}: Allowing ninja to set a default number of workers... (overridable by setting the environment variable MAX_JOBS=N)",
          f"{n1}: ninja: no work to do.",
          f"{n1}: Loading extension module fused_adam..."]
    for r in order:
        host = n1 if r < 8 else n2
        L.append(f"{host}: Time to load fused_adam op: {rng.uniform(0.4, 2.2):.16f} seconds")
    t += timedelta(seconds=4)
    for msg in ["[Rank 0] Using DeepSpeed Optimizer param name adamw as basic optimizer",
                "[Rank 0] Removing param_group that has no 'params' in the basic Optimizer",
                "[Rank 0] DeepSpeed Basic Optimizer = FusedAdam"]:
        ds(t, "INFO", "logging.py:96:log_dist", msg, n1)
    ds(t, "INFO", "utils.py:54:is_zero_supported_optimizer",
       "Checking ZeRO support for optimizer=FusedAdam type=<class 'deepspeed.ops.adam.fused_adam.FusedAdam'>", n1)
    ds(t, "INFO", "logging.py:96:log_dist", "[Rank 0] Creating torch.bfloat16 ZeRO stage 2 optimizer", n1)
    ds(t, "INFO", "stage_1_and_2.py:146:__init__", "Reduce bucket size 500,000,000", n1)
    ds(t, "INFO", "stage_1_and_2.py:147:__init__", "Allgather bucket size 500,000,000", n1)
    ds(t, "INFO", "stage_1_and_2.py:148:__init__", "CPU Offload: False", n1)
    ds(t, "INFO", "stage_1_and_2.py:149:__init__", "Round robin gradient partitioning: False", n1)
    t += timedelta(seconds=21)
    ds(t, "INFO", "utils.py:785:see_memory_usage", "Before initializing optimizer states", n1)
    ds(t, "INFO", "utils.py:786:see_memory_usage", "MA 27.86 GB         Max_MA 29.48 GB         CA 29.5 GB         Max_CA 30 GB ", n1)
    ds(t, "INFO", "utils.py:793:see_memory_usage", "CPU Virtual Memory:  used = 142.31 GB, percent = 12.7%", n1)
    t += timedelta(seconds=1)
    ds(t, "INFO", "utils.py:785:see_memory_usage", "After initializing optimizer states", n1)
    ds(t, "INFO", "utils.py:786:see_memory_usage", "MA 34.36 GB         Max_MA 37.61 GB         CA 37.62 GB         Max_CA 38 GB ", n1)
    ds(t, "INFO", "utils.py:793:see_memory_usage", "CPU Virtual Memory:  used = 142.5 GB, percent = 12.7%", n1)
    ds(t, "INFO", "stage_1_and_2.py:520:__init__", "optimizer state initialized", n1)
    ds(t, "INFO", "utils.py:785:see_memory_usage", "After initializing ZeRO optimizer", n1)
    ds(t, "INFO", "utils.py:786:see_memory_usage", "MA 34.36 GB         Max_MA 34.36 GB         CA 37.62 GB         Max_CA 38 GB ", n1)
    ds(t, "INFO", "utils.py:793:see_memory_usage", "CPU Virtual Memory:  used = 142.52 GB, percent = 12.7%", n1)
    ds(t, "INFO", "logging.py:96:log_dist", "[Rank 0] DeepSpeed Final Optimizer = adamw", n1)
    ds(t, "INFO", "logging.py:96:log_dist", "[Rank 0] DeepSpeed using configured LR scheduler = WarmupDecayLR", n1)
    ds(t, "INFO", "logging.py:96:log_dist", "[Rank 0] DeepSpeed LR Scheduler = <deepspeed.runtime.lr_schedules.WarmupDecayLR object at 0x7f2c1c3a2b90>", n1)
    ds(t, "INFO", "logging.py:96:log_dist", "[Rank 0] step=0, skipped=0, lr=[0.0], mom=[(0.9, 0.95)]", n1)
    ds(t, "INFO", "config.py:960:print", "DeepSpeedEngine configuration:", n1)
    cfg = [
        ("activation_checkpointing_config", '{\n    "partition_activations": false, \n    "contiguous_memory_optimization": false, \n    "cpu_checkpointing": false, \n    "number_checkpoints": null, \n    "synchronize_checkpoint_boundary": false, \n    "profile": false\n}'),
        ("amp_enabled", "False"), ("bfloat16_enabled", "True"), ("checkpoint_parallel_write_pipeline", "False"),
        ("communication_data_type", "None"), ("fp16_enabled", "False"), ("gradient_accumulation_steps", "2"),
        ("gradient_clipping", "1.0"), ("optimizer_name", "adamw"),
        ("optimizer_params", "{'lr': 1e-05, 'betas': [0.9, 0.95], 'eps': 1e-08, 'weight_decay': 0.0}"),
        ("scheduler_name", "WarmupDecayLR"), ("steps_per_print", "10"), ("train_batch_size", "256"),
        ("train_micro_batch_size_per_gpu", "8"), ("wall_clock_breakdown", "False"), ("world_size", "16"),
        ("zero_allow_untested_optimizer", "False"),
        ("zero_config", "stage=2 contiguous_gradients=True reduce_scatter=True reduce_bucket_size=500000000 allgather_partitions=True allgather_bucket_size=500000000 overlap_comm=True load_from_fp32_weights=True elastic_checkpoint=False offload_param=None offload_optimizer=None sub_group_size=1,000,000,000 cpu_offload_param=None cpu_offload_use_pin_memory=None cpu_offload=None prefetch_bucket_size=50,000,000 param_persistence_threshold=100,000 model_persistence_threshold=sys.maxsize max_live_parameters=1,000,000,000 max_reuse_distance=1,000,000,000 gather_16bit_weights_on_model_save=False stage3_gather_fp16_weights_on_model_save=False ignore_unused_parameters=True legacy_stage1=False round_robin_gradients=False zero_hpz_partition_size=1 zero_quantized_weights=False zero_quantized_nontrainable_weights=False zero_quantized_gradients=False mics_shard_size=-1 mics_hierarchical_params_gather=False memory_efficient_linear=True pipeline_loading_checkpoint=False override_module_apply=True"),
        ("zero_enabled", "True"), ("zero_optimization_stage", "2"),
    ]
    for k, v in cfg:
        ds(t, "INFO", "config.py:964:print", f"  {k} {'.' * max(1, 30 - len(k))} {v}", n1)
    user_cfg = {"bf16": {"enabled": True}, "optimizer": {"type": "AdamW", "params": {"lr": 1e-5, "betas": [0.9, 0.95], "eps": 1e-8, "weight_decay": 0.0}},
                "scheduler": {"type": "WarmupDecayLR", "params": {"warmup_min_lr": 0, "warmup_max_lr": 1e-5, "warmup_num_steps": 100, "total_num_steps": 7128}},
                "zero_optimization": {"stage": 2, "overlap_comm": True, "contiguous_gradients": True, "reduce_bucket_size": 5e8, "allgather_bucket_size": 5e8},
                "gradient_accumulation_steps": 2, "gradient_clipping": 1.0, "steps_per_print": 10,
                "train_batch_size": 256, "train_micro_batch_size_per_gpu": 8, "wall_clock_breakdown": False}
    ds(t, "INFO", "config.py:950:print_user_config", "  json = " + json.dumps(user_cfg, indent=4), n1)
    L.append(f"{n1}: [rank0] starting training: 7128 optimizer steps, eval every 500")
    # rank 11 = n2 local 3 fails in the first forward
    tb = [
        "Traceback (most recent call last):",
        f'  File "{home}/llm-sft/train.py", line 298, in <module>',
        "    main()",
        f'  File "{home}/llm-sft/train.py", line 271, in main',
        '    outputs = model_engine(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"], labels=batch["labels"])',
        f'  File "{site}/torch/nn/modules/module.py", line 1501, in _call_impl',
        "    return forward_call(*args, **kwargs)",
        f'  File "{site}/deepspeed/utils/nvtx.py", line 15, in wrapped_fn',
        "    ret_val = func(*args, **kwargs)",
        f'  File "{site}/deepspeed/runtime/engine.py", line 1769, in forward',
        "    loss = self.module(*inputs, **kwargs)",
        f'  File "{site}/torch/nn/modules/module.py", line 1501, in _call_impl',
        "    return forward_call(*args, **kwargs)",
        f'  File "{site}/transformers/models/llama/modeling_llama.py", line 820, in forward',
        "    outputs = self.model(",
        f'  File "{site}/torch/nn/modules/module.py", line 1501, in _call_impl',
        "    return forward_call(*args, **kwargs)",
        f'  File "{site}/transformers/models/llama/modeling_llama.py", line 708, in forward',
        "    layer_outputs = decoder_layer(",
        f'  File "{site}/torch/nn/modules/module.py", line 1501, in _call_impl',
        "    return forward_call(*args, **kwargs)",
        f'  File "{site}/transformers/models/llama/modeling_llama.py", line 424, in forward',
        "    hidden_states, self_attn_weights, present_key_value = self.self_attn(",
        f'  File "{site}/torch/nn/modules/module.py", line 1501, in _call_impl',
        "    return forward_call(*args, **kwargs)",
        f'  File "{site}/transformers/models/llama/modeling_llama.py", line 355, in forward',
        "    attn_weights = nn.functional.softmax(attn_weights, dim=-1, dtype=torch.float32).to(query_states.dtype)",
        "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 GiB (GPU 3; 79.15 GiB total capacity; "
        "55.87 GiB already allocated; 19.21 GiB free; 57.30 GiB reserved in total by PyTorch) If reserved memory is >> "
        "allocated memory try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory "
        "Management and PYTORCH_CUDA_ALLOC_CONF",
    ]
    L += [f"{n2}: {x}" for x in tb]
    t += timedelta(seconds=38)
    pids2 = [61230 + i for i in range(8)]
    for p in pids2:
        ds(t, "INFO", "launch.py:315:sigkill_handler", f"Killing subprocess {p}", n2)
    ds(t + timedelta(seconds=2.4), "ERROR", "launch.py:321:sigkill_handler",
       f"['/usr/bin/python3', '-u', 'train.py', '--local_rank=7', {argl}] exits with return code = 1", n2)
    L.append(f"pdsh@{n1}: {n2}: ssh exited with exit code 1")
    # node 1: the watchdog fires 30 minutes later on all 8 ranks
    wd_lines = []
    for r in range(8):
        ms = 1800000 + rng.randint(80, 900)
        msg = f"[Rank {r}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1162, OpType=REDUCE, Timeout(ms)=1800000) ran for {ms} milliseconds before timing out."
        wd_lines.append((r, msg))
    rng.shuffle(wd_lines)
    for r, msg in wd_lines:
        L.append(f"{n1}: [E ProcessGroupNCCL.cpp:828] {msg}")
    for r, msg in wd_lines:
        L.append(f"{n1}: [E ProcessGroupNCCL.cpp:455] Some NCCL operations have failed or timed out. Due to the "
                 "asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.")
        L.append(f"{n1}: [E ProcessGroupNCCL.cpp:460] To avoid data inconsistency, we are taking the entire process down.")
        L.append(f"{n1}: terminate called after throwing an instance of 'std::runtime_error'")
        L.append(f"{n1}:   what():  {msg}")
    t += timedelta(seconds=1803)
    pids1 = [58806 + i for i in range(8)]
    for p in pids1:
        ds(t, "INFO", "launch.py:315:sigkill_handler", f"Killing subprocess {p}", n1)
    ds(t + timedelta(seconds=2.1), "ERROR", "launch.py:321:sigkill_handler",
       f"['/usr/bin/python3', '-u', 'train.py', '--local_rank=7', {argl}] exits with return code = -6", n1)
    L.append(f"pdsh@{n1}: {n1}: ssh exited with exit code 250")
    return Case(
        "cuda-oom-deepspeed-pdsh-13b-rank11-02", "cuda-oom", "hard",
        "deepspeed launcher over pdsh, 2 nodes x 8 A100-80GB, Llama-2-13B ZeRO-2, micro-batch 8 x 4096 without "
        "activation checkpointing. Global rank 11 (node 2, GPU 3) OOMs in the first forward (fp32 softmax of the "
        "attention scores); node 2's launcher exits, and 30 minutes later all node-1 ranks die of the NCCL watchdog, "
        "which is what the log ends with.",
        11,
        {"gpu_model": "A100-SXM4-80GB", "deepspeed_version": "0.10.3", "launcher": "deepspeed", "world_size": "16",
         "num_nodes": "2", "zero_stage": "2", "precision": "bf16", "oom_tried_to_allocate": "20.00 GiB"},
        ["rank 11", "checkpointing"],
        {"train.log": "\n".join(L)},
        secrets=[hf_tok, user],
    )


# torchrun's own traceback when a child failed, by torch version: (errors wrapper, main->run, run->elastic_launch,
# __call__, launch_agent) line numbers
TORCHRUN_LINES = {
    "1.13": (346, 762, 753, 132, 246),
    "2.0": (346, 794, 785, 134, 250),
    "2.1": (346, 806, 797, 134, 264),
    "2.2": (347, 812, 803, 135, 268),
    "2.3": (347, 879, 870, 132, 263),
    "2.4": (348, 901, 892, 133, 264),
    "2.5": (355, 919, 910, 138, 269),
}


def torchrun_fail(ver: str, style: str, t: datetime, agent: int, site: str, torchrun_bin: str, py_bin: str,
                  script: str, host: str, root: dict, sigterm_pids: list[int], others: list[dict] | None = None,
                  pfx: str = "", head_frames: list[str] | None = None) -> list[str]:
    """The lines torchrun prints after a worker failed: SIGTERMs to the others, the failure, and the summary.

    root/others: dict(rank, local_rank, pid, exitcode, time=datetime; sig, the signal's name, only for the reader).
    style: 'logging' (torch <= 2.1: WARNING:torch.distributed...), 'bracket' (2.2), 'glog' (2.3+).
    """
    out: list[str] = []

    def log(level: str, mod: str, line: int, msg: str, tt: datetime) -> None:
        if style == "logging":
            name = {"W": "WARNING", "E": "ERROR", "I": "INFO"}[level]
            out.append(f"{name}:{mod}:{msg}")
        elif style == "bracket":
            name = {"W": "WARNING", "E": "ERROR", "I": "INFO"}[level]
            out.append(f"{tt.strftime('[%Y-%m-%d %H:%M:%S,')}{tt.microsecond // 1000:03d}] {mod}: [{name}] {msg}")
        else:
            path = mod.replace(".", "/") + ".py"
            out.append(f"{glog_ts(tt, agent, level)} {path}:{line}] {msg}")

    tt = t
    for p in sigterm_pids:
        log("W", "torch.distributed.elastic.multiprocessing.api", 851 if ver >= "2.3" else 835, f"Sending process {p} closing signal SIGTERM", tt)
        tt += timedelta(microseconds=4213)
    tt += timedelta(seconds=1, microseconds=137000)
    log("E", "torch.distributed.elastic.multiprocessing.api", 826 if ver >= "2.3" else 810,
        f"failed (exitcode: {root['exitcode']}) local_rank: {root['local_rank']} (pid: {root['pid']}) of binary: {py_bin}", tt)
    a, b, c, d, e = TORCHRUN_LINES[ver]
    head = head_frames if head_frames is not None else [
        f'  File "{torchrun_bin}", line 8, in <module>',
        "    sys.exit(main())",
        *torchrun_main_frames(site, a, b)]

    def worker(f: dict) -> RankExit:
        return RankExit(f["rank"], f["local_rank"], f["pid"], f["exitcode"], f.get("time", t).strftime("%Y-%m-%d_%H:%M:%S"),
                        host)

    out += ["Traceback (most recent call last):", *head, *elastic_launch_frames(site, c, d, e),
            "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
            *torchrun_child_failed_summary(script, worker(root), [worker(f) for f in others or []])]
    return [pfx + x for x in out]


def torchrun_banner(ver: str, style: str, t: datetime, agent: int) -> list[str]:
    msg = ("Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system "
           "being overloaded, please further tune the variable for optimal performance in your application as needed. ")
    if style == "logging":
        return ["WARNING:torch.distributed.run:", "*****************************************", msg,
                "*****************************************"]
    if style == "bracket":
        ts = f"{t.strftime('[%Y-%m-%d %H:%M:%S,')}{t.microsecond // 1000:03d}] torch.distributed.run: [WARNING] "
        return [ts, ts + "*****************************************", ts + msg, ts + "*****************************************"]
    line = 757 if ver < "2.4" else 793
    head = f"{glog_ts(t, agent, 'W')} torch/distributed/run.py:{line}] "
    return [head, head + "*****************************************", head + msg, head + "*****************************************"]


def case_cuda_oom_03() -> Case:
    """torchrun 4x RTX 4090, Llama-3-8B LoRA with HF Trainer; the first evaluation (step 500) OOMs on rank 1 in
    `logits.float()` (batch 8 x 2048 x 128256 vocab in fp32 = 7.83 GiB)."""
    rng = random.Random(103)
    site = "/home/ubuntu/.venv/lib/python3.10/site-packages"
    host = "ip-172-31-20-14.us-west-2.compute.internal"
    agent = 139872201045824
    t0 = dt("2024-07-30 13:52:40") + timedelta(microseconds=367211)
    L = ["(.venv) ubuntu@ip-172-31-20-14:~/lora-ft$ torchrun --nproc_per_node 4 train_lora.py --config configs/llama3_8b_lora.yaml"]
    L += torchrun_banner("2.3", "glog", t0, agent)
    L.append("[rank0] config: model=meta-llama/Meta-Llama-3-8B lora_r=16 lora_alpha=32 targets=q_proj,k_proj,v_proj,o_proj "
             "seq_len=2048 per_device_train_batch_size=2 per_device_eval_batch_size=8 grad_accum=8 bf16=True "
             "gradient_checkpointing=True eval_steps=500 save_steps=500")
    L.append("[rank0] torch 2.3.1+cu121 transformers 4.42.4 peft 0.11.1 accelerate 0.32.1 | 4 x NVIDIA GeForce RTX 4090")
    for r in rng.sample(range(4), 4):
        L.append(f"Loading checkpoint shards: 100%|██████████| 4/4 [00:{rng.randint(9, 14):02d}<00:00,  {rng.uniform(2.3, 3.5):.2f}s/it]")
    for r in range(4):
        L.append("trainable params: 13,631,488 || all params: 8,043,892,736 || trainable%: 0.1695")
    L.append("Map: 100%|██████████| 61407/61407 [00:41<00:00, 1497.22 examples/s]")
    L.append("Map: 100%|██████████| 2000/2000 [00:01<00:00, 1512.86 examples/s]")
    L.append("[rank0] train 61407 examples, eval 2000 examples (sequences up to 2048 tokens, dynamic padding)")
    for r in range(4):
        L.append(f"{site}/torch/utils/checkpoint.py:464: UserWarning: torch.utils.checkpoint: the use_reentrant "
                 "parameter should be passed explicitly. In version 2.4 we will raise an exception if use_reentrant is "
                 "not passed. use_reentrant=False is recommended, but if you need to preserve the current default "
                 "behavior, you can pass use_reentrant=True. Refer to docs for more details on the differences between "
                 "the two variants.")
        L.append("  warnings.warn(")
    L.append("`use_cache=True` is incompatible with gradient checkpointing. Setting `use_cache=False`.")
    L.append("  0%|          | 0/959 [00:00<?, ?it/s]")
    loss = 1.62
    el = 0.0
    for step in range(25, 501, 25):
        el += 25 * rng.uniform(3.9, 4.1)
        L.append(tqdm_bar(step, 959, el, el / step))
        if step % 50 == 0:
            loss = max(0.92, loss - rng.uniform(0.01, 0.08))
            lr = 2e-4 * min(1.0, step / 30) * (1 - step / 959 * 0.5)
            L.append(f"{{'loss': {loss:.4f}, 'grad_norm': {rng.uniform(0.21, 0.48):.16f}, 'learning_rate': {lr:.16f}, "
                     f"'epoch': {step / 959:.2f}}}")
    L.append("")
    L.append("  0%|          | 0/63 [00:00<?, ?it/s]\x1b[A")
    for k in (2, 3, 4):
        L.append(f"  {int(k / 63 * 100)}%|{'▎' if k < 4 else '▌'}         | {k}/63 [00:0{k - 1}<00:{int((63 - k) * 0.74):02d},  1.35it/s]\x1b[A")
    tb = [
        "Traceback (most recent call last):",
        '  File "/home/ubuntu/lora-ft/train_lora.py", line 214, in <module>',
        "    main()",
        '  File "/home/ubuntu/lora-ft/train_lora.py", line 208, in main',
        "    trainer.train(resume_from_checkpoint=cfg.resume_from_checkpoint)",
        f'  File "{site}/transformers/trainer.py", line 1932, in train',
        "    return inner_training_loop(",
        f'  File "{site}/transformers/trainer.py", line 2345, in _inner_training_loop',
        "    self._maybe_log_save_evaluate(tr_loss, grad_norm, model, trial, epoch, ignore_keys_for_eval)",
        f'  File "{site}/transformers/trainer.py", line 2796, in _maybe_log_save_evaluate',
        "    metrics = self._evaluate(trial, ignore_keys_for_eval)",
        f'  File "{site}/transformers/trainer.py", line 2753, in _evaluate',
        "    metrics = self.evaluate(ignore_keys=ignore_keys_for_eval)",
        f'  File "{site}/transformers/trainer.py", line 3641, in evaluate',
        "    output = eval_loop(",
        f'  File "{site}/transformers/trainer.py", line 3826, in evaluation_loop',
        "    loss, logits, labels = self.prediction_step(model, inputs, prediction_loss_only, ignore_keys=ignore_keys)",
        f'  File "{site}/transformers/trainer.py", line 4040, in prediction_step',
        "    loss, outputs = self.compute_loss(model, inputs, return_outputs=True)",
        f'  File "{site}/transformers/trainer.py", line 3338, in compute_loss',
        "    outputs = model(**inputs)",
        *module_call_frames(site, "2.3"),
        f'  File "{site}/accelerate/utils/operations.py", line 822, in forward',
        "    return model_forward(*args, **kwargs)",
        f'  File "{site}/accelerate/utils/operations.py", line 810, in __call__',
        "    return convert_to_fp32(self.model_forward(*args, **kwargs))",
        f'  File "{site}/torch/amp/autocast_mode.py", line 16, in decorate_autocast',
        "    return func(*args, **kwargs)",
        f'  File "{site}/peft/peft_model.py", line 1430, in forward',
        "    return self.base_model(",
        *module_call_frames(site, "2.3"),
        f'  File "{site}/peft/tuners/tuners_utils.py", line 179, in forward',
        "    return self.model.forward(*args, **kwargs)",
        f'  File "{site}/transformers/models/llama/modeling_llama.py", line 1174, in forward',
        "    logits = logits.float()",
        "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 7.83 GiB. GPU 1 has a total capacity of "
        "23.64 GiB of which 5.12 GiB is free. Including non-PyTorch memory, this process has 18.50 GiB memory in use. "
        "Of the allocated memory 17.91 GiB is allocated by PyTorch, and 139.21 MiB is reserved by PyTorch but "
        "unallocated. If reserved but unallocated memory is large try setting "
        "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory "
        "Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)",
    ]
    L += ["[rank1]: " + x for x in tb]
    L.append("  6%|▋         | 4/63 [00:04<01:05,  1.11s/it]\x1b[A")
    tfail = t0 + timedelta(seconds=el + 71)
    L += torchrun_fail("2.3", "glog", tfail, agent, site, "/home/ubuntu/.venv/bin/torchrun",
                       "/home/ubuntu/.venv/bin/python3", "train_lora.py", host,
                       {"rank": 1, "local_rank": 1, "pid": 20735, "exitcode": 1, "time": tfail},
                       [20734, 20736, 20737])
    return Case(
        "cuda-oom-llama3-lora-eval-logits-4090-03", "cuda-oom", "medium",
        "torchrun on 4x RTX 4090: Llama-3-8B LoRA trains fine for 500 steps; the first evaluation (eval batch 8 x 2048) "
        "OOMs on rank 1 in `logits = logits.float()` (fp32 logits over a 128k vocabulary = 7.83 GiB); torchrun then "
        "stops the other ranks and prints a ChildFailedError.",
        1,
        {"gpu_model": "GeForce RTX 4090", "torch_version": "2.3.1", "transformers_version": "4.42.4",
         "launcher": "torchrun", "world_size": "4", "oom_tried_to_allocate": "7.83 GiB", "failure_step": "500",
         "precision": "bf16"},
        ["per_device_eval_batch_size", "logits"],
        {"train.log": "\n".join(L)},
    )


def case_cuda_oom_04() -> Case:
    """accelerate launch (1 process), diffusers text-to-image fine-tune at 768px on a V100 32GB, torch 1.13: the
    attention score buffer of the first UNet step does not fit; accelerate's CalledProcessError is the last line."""
    rng = random.Random(104)
    site = "/opt/conda/lib/python3.9/site-packages"
    script = "/workspace/diffusers/examples/text_to_image/train_text_to_image.py"
    args = ['--pretrained_model_name_or_path=runwayml/stable-diffusion-v1-5', '--train_data_dir=/data/product-shots',
            '--resolution=768', '--center_crop', '--random_flip', '--train_batch_size=4',
            '--gradient_accumulation_steps=1', '--max_train_steps=15000', '--learning_rate=1e-05', '--max_grad_norm=1',
            '--lr_scheduler=constant', '--lr_warmup_steps=0', '--output_dir=sd-product-768',
            '--checkpointing_steps=1000', '--report_to=tensorboard', '--mixed_precision=fp16']
    smi = nvidia_smi("Tue Apr 11 09:12:30 2023", "515.65.01", "11.7", "Tesla V100-SXM2-32GB", 1, rng, style="470",
                     bus=["00000000:00:1E.0"])
    L = ["root@sd-train-7c9f4:/workspace/diffusers/examples/text_to_image# nvidia-smi", smi,
         "root@sd-train-7c9f4:/workspace/diffusers/examples/text_to_image# pip list 2>/dev/null | grep -Ei \"^(torch|accelerate|diffusers|transformers|xformers) \"",
         pip_list([("accelerate", "0.18.0"), ("diffusers", "0.15.1"), ("torch", "1.13.1+cu117"),
                   ("transformers", "4.28.1")]).split("\n", 2)[2],
         "root@sd-train-7c9f4:/workspace/diffusers/examples/text_to_image# python -c \"import torch; print(torch.cuda.get_device_name(0))\"",
         "Tesla V100-SXM2-32GB",
         "root@sd-train-7c9f4:/workspace/diffusers/examples/text_to_image# accelerate launch --mixed_precision=\"fp16\" "
         "train_text_to_image.py " + " ".join(a if "constant" not in a else '--lr_scheduler="constant"' for a in args[:-1]),
         "The following values were not passed to `accelerate launch` and had defaults used instead:",
         "\t`--num_processes` was set to a value of `1`",
         "\t`--num_machines` was set to a value of `1`",
         "\t`--dynamo_backend` was set to a value of `'no'`",
         "To avoid this warning pass in values for each of the problematic parameters or run `accelerate config`.",
         "04/11/2023 09:12:44 - INFO - __main__ - Distributed environment: NO",
         "Num processes: 1", "Process index: 0", "Local process index: 0", "Device: cuda", "",
         "Mixed precision type: fp16", "",
         "{'variance_type', 'clip_sample_range', 'prediction_type', 'dynamic_thresholding_ratio', 'thresholding', "
         "'sample_max_value'} was not found in config. Values will be initialized to default values.",
         "{'num_class_embeds', 'mid_block_type', 'time_cond_proj_dim', 'resnet_time_scale_shift', 'time_embedding_type', "
         "'conv_in_kernel', 'class_embed_type', 'conv_out_kernel', 'projection_class_embeddings_input_dim', "
         "'timestep_post_act', 'upcast_attention', 'only_cross_attention', 'use_linear_projection', "
         "'dual_cross_attention'} was not found in config. Values will be initialized to default values.",
         "Resolving data files: 100%|██████████| 834/834 [00:00<00:00, 41230.55it/s]",
         "Downloading and preparing dataset imagefolder/default to /root/.cache/huggingface/datasets/imagefolder/default-"
         "5b1c0a9e3f0d2c11/0.0.0/37fbb85cc714a338bea574ac6c7d0b5be5aff46c1862c1989b20e0771199e93f...",
         "Downloading data files: 100%|██████████| 834/834 [00:00<00:00, 18233.02it/s]",
         "Downloading data files: 0it [00:00, ?it/s]",
         "Extracting data files: 0it [00:00, ?it/s]",
         "Generating train split: 833 examples [00:01, 612.47 examples/s]",
         "Dataset imagefolder downloaded and prepared to /root/.cache/huggingface/datasets/imagefolder/default-"
         "5b1c0a9e3f0d2c11/0.0.0/37fbb85cc714a338bea574ac6c7d0b5be5aff46c1862c1989b20e0771199e93f. Subsequent calls "
         "will reuse this data.",
         "100%|██████████| 1/1 [00:00<00:00, 712.23it/s]",
         "04/11/2023 09:13:31 - INFO - __main__ - ***** Running training *****",
         "04/11/2023 09:13:31 - INFO - __main__ -   Num examples = 833",
         "04/11/2023 09:13:31 - INFO - __main__ -   Num Epochs = 72",
         "04/11/2023 09:13:31 - INFO - __main__ -   Instantaneous batch size per device = 4",
         "04/11/2023 09:13:31 - INFO - __main__ -   Total train batch size (w. parallel, distributed & accumulation) = 4",
         "04/11/2023 09:13:31 - INFO - __main__ -   Gradient Accumulation steps = 1",
         "04/11/2023 09:13:31 - INFO - __main__ -   Total optimization steps = 15000",
         "Steps:   0%|          | 0/15000 [00:00<?, ?it/s]",
         "Traceback (most recent call last):",
         f'  File "{script}", line 781, in <module>',
         "    main()",
         f'  File "{script}", line 697, in main',
         "    model_pred = unet(noisy_latents, timesteps, encoder_hidden_states).sample"]
    chain = [
        ("torch/nn/modules/module.py", 1194, "_call_impl", "return forward_call(*input, **kwargs)"),
        ("accelerate/utils/operations.py", 495, "__call__", "return convert_to_fp32(self.model_forward(*args, **kwargs))"),
        ("torch/amp/autocast_mode.py", 14, "decorate_autocast", "return func(*args, **kwargs)"),
        ("diffusers/models/unet_2d_condition.py", 724, "forward", "sample, res_samples = downsample_block("),
        ("torch/nn/modules/module.py", 1194, "_call_impl", "return forward_call(*input, **kwargs)"),
        ("diffusers/models/unet_2d_blocks.py", 868, "forward", "hidden_states = attn("),
        ("torch/nn/modules/module.py", 1194, "_call_impl", "return forward_call(*input, **kwargs)"),
        ("diffusers/models/transformer_2d.py", 265, "forward", "hidden_states = block("),
        ("torch/nn/modules/module.py", 1194, "_call_impl", "return forward_call(*input, **kwargs)"),
        ("diffusers/models/attention.py", 294, "forward", "attn_output = self.attn1("),
        ("torch/nn/modules/module.py", 1194, "_call_impl", "return forward_call(*input, **kwargs)"),
        ("diffusers/models/attention_processor.py", 243, "forward", "return self.processor("),
        ("diffusers/models/attention_processor.py", 382, "__call__", "attention_probs = attn.get_attention_scores(query, key, attention_mask)"),
        ("diffusers/models/attention_processor.py", 284, "get_attention_scores", "baddbmm_input = torch.empty("),
    ]
    for f, ln, fn, src in chain:
        L += [f'  File "{site}/{f}", line {ln}, in {fn}', f"    {src}"]
    L += [
        "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 5.06 GiB (GPU 0; 31.75 GiB total capacity; "
        "24.12 GiB already allocated; 2.96 GiB free; 27.43 GiB reserved in total by PyTorch) If reserved memory is >> "
        "allocated memory try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory "
        "Management and PYTORCH_CUDA_ALLOC_CONF",
        "Steps:   0%|          | 0/15000 [00:09<?, ?it/s]",
        "Traceback (most recent call last):",
        *accelerate_launch_frames("/opt/conda/bin/accelerate", site, 45, 918, "simple_launcher", 580),
        "    raise subprocess.CalledProcessError(returncode=process.returncode, cmd=cmd)",
        "subprocess.CalledProcessError: Command '['/opt/conda/bin/python', 'train_text_to_image.py', "
        + ", ".join(f"'{a}'" for a in args[:-1]) + "]' returned non-zero exit status 1.",
    ]
    return Case(
        "cuda-oom-sd15-768px-attention-v100-04", "cuda-oom", "medium",
        "accelerate launch, single V100 32GB, torch 1.13: full UNet fine-tune of Stable Diffusion 1.5 at 768 px with "
        "batch 4 and the default attention processor; the first step fails allocating the 5 GiB attention-score "
        "buffer, and the last line is accelerate's CalledProcessError.",
        None,
        {"gpu_model": "Tesla V100-SXM2-32GB", "driver_version": "515.65.01", "torch_version": "1.13.1",
         "accelerate_version": "0.18.0", "launcher": "accelerate", "oom_tried_to_allocate": "5.06 GiB",
         "precision": "fp16"},
        ["attention", "batch"],
        {"train.log": "\n".join(L)},
    )


def nccl_watchdog(ver: str, rank: int, seq: int, op: str, timeout_ms: int, ran_ms: int,
                  numel: tuple[int, int] | None = None) -> list[str]:
    """The lines a rank prints when its NCCL watchdog fires (torch 1.13 .. 2.1 layouts)."""
    if ver >= "2.1":
        ni, no = numel or (1, 1)
        work = f"WorkNCCL(SeqNum={seq}, OpType={op}, NumelIn={ni}, NumelOut={no}, Timeout(ms)={timeout_ms})"
    else:
        work = f"WorkNCCL(SeqNum={seq}, OpType={op}, Timeout(ms)={timeout_ms})"
    msg = f"[Rank {rank}] Watchdog caught collective operation timeout: {work} ran for {ran_ms} milliseconds before timing out."
    lines_by_ver = {"1.13": (737, 414, 420), "2.0": (828, 455, 460), "2.1": (475, 489, 495)}
    a, b, c = lines_by_ver[ver]
    out = [f"[E ProcessGroupNCCL.cpp:{a}] {msg}",
           f"[E ProcessGroupNCCL.cpp:{b}] Some NCCL operations have failed or timed out. Due to the asynchronous "
           "nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.",
           f"[E ProcessGroupNCCL.cpp:{c}] To avoid data inconsistency, we are taking the entire process down."]
    if ver >= "2.1":
        out.append(f"[E ProcessGroupNCCL.cpp:916] [Rank {rank}] NCCL watchdog thread terminated with exception: {msg}")
        out += ["terminate called after throwing an instance of 'std::runtime_error'",
                f"  what():  [Rank {rank}] NCCL watchdog thread terminated with exception: {msg}"]
    else:
        out += ["terminate called after throwing an instance of 'std::runtime_error'", f"  what():  {msg}"]
    return out


# ==================================================================================================
# cuda-oom-fragmentation
# ==================================================================================================


def case_frag_01() -> Case:
    """Single H100, custom SFT loop with token-budget batches of very different shapes; reserved memory climbs while
    allocated stays flat, and the OOM message shows 18.94 GiB reserved-but-unallocated."""
    rng = random.Random(201)
    site = "/home/dev/miniforge3/envs/sft/lib/python3.10/site-packages"
    smi = nvidia_smi("Mon Oct 14 10:58:02 2024", "550.90.07", "12.4", "NVIDIA H100 80GB HBM3", 1, rng,
                     bus=["00000000:18:00.0"], style="550")
    L = ["dev@h100-ws-02:~/sft$ nvidia-smi", smi,
         "dev@h100-ws-02:~/sft$ python train_sft.py --model meta-llama/Llama-3.2-3B --data /data/chat_mix_v5.jsonl "
         "--max-tokens-per-batch 32768 --lr 1e-5 --bf16 --grad-ckpt --steps 12000 --log-every 100",
         "[10:58:09] torch 2.4.1+cu124, transformers 4.45.2, device NVIDIA H100 80GB HBM3",
         "[10:58:09] PYTORCH_CUDA_ALLOC_CONF=<unset>",
         "Loading checkpoint shards: 100%|██████████| 2/2 [00:03<00:00,  1.62s/it]",
         "[10:58:15] model: 3,212,749,824 params (all trainable), gradient checkpointing on",
         "[10:58:15] optimizer: AdamW(lr=1e-05, betas=(0.9, 0.95), weight_decay=0.1, fused=True)",
         "[10:58:51] dataset: 1,482,119 conversations, lengths 31..8192 tokens (median 611)",
         "[10:58:51] batching: token budget 32768 per batch, no packing, pad to longest in batch",
         ]
    alloc = 51.8
    res = 57.2
    t = dt("2024-10-14 10:59:20")
    loss = 1.92
    for step in range(100, 3701, 100):
        t += timedelta(seconds=100 * rng.uniform(0.58, 0.66))
        loss = max(0.98, loss - rng.uniform(0.0, 0.04) + rng.uniform(-0.01, 0.01))
        res = min(77.9, res + rng.uniform(0.25, 0.9) * (1.0 if step < 2500 else 0.35))
        a = alloc + rng.uniform(-0.5, 0.5)
        mx = rng.choice([8192, 7936, 8064, 6912, 8192, 7680])
        L.append(f"[{t.strftime('%H:%M:%S')}] step {step:>5}/12000 | loss {loss:.4f} | lr {1e-5 * min(1, step / 200):.2e} | "
                 f"tok/batch {rng.randint(30100, 32768):,} (longest {mx:,}) | {rng.uniform(1.55, 1.75):.2f} it/s | "
                 f"mem alloc {a:.1f}G reserved {res:.1f}G peak {a + rng.uniform(14.2, 16.8):.1f}G")
        if step == 2000:
            L.append(f"[{t.strftime('%H:%M:%S')}] saved checkpoint to runs/l32-3b-sft/step_2000 (6.4 GB)")
    L += [
        "Traceback (most recent call last):",
        '  File "/home/dev/sft/train_sft.py", line 251, in <module>',
        "    main()",
        '  File "/home/dev/sft/train_sft.py", line 219, in main',
        "    loss.backward()",
        *backward_call_frames(site, "2.4"),
        "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.44 GiB. GPU 0 has a total capacity of "
        "79.10 GiB of which 1.33 GiB is free. Including non-PyTorch memory, this process has 77.76 GiB memory in use. "
        "Of the allocated memory 58.31 GiB is allocated by PyTorch, and 18.94 GiB is reserved by PyTorch but "
        "unallocated. If reserved but unallocated memory is large try setting "
        "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory "
        "Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)",
    ]
    return Case(
        "cuda-oom-fragmentation-varlen-sft-h100-01", "cuda-oom-fragmentation", "easy",
        "Single H100, custom SFT loop over token-budget batches of widely varying shapes: allocated memory is flat "
        "(~52 GiB) while reserved climbs to the card's size; at step ~3700 a 2.44 GiB request fails with 18.94 GiB "
        "reserved but unallocated, and the message itself points at expandable_segments.",
        None,
        {"gpu_model": "H100 80GB HBM3", "driver_version": "550.90.07", "torch_version": "2.4.1",
         "transformers_version": "4.45.2", "launcher": "python", "oom_tried_to_allocate": "2.44 GiB",
         "precision": "bf16"},
        ["expandable_segments"],
        {"train.log": "\n".join(L)},
    )


def case_frag_02() -> Case:
    """torchrun 4x A100-40GB, torchvision Mask R-CNN reference script with multiscale augmentation, torch 1.13: rank 2
    OOMs in epoch 1 with 27.86 GiB allocated but 36.95 GiB reserved (9 GiB trapped)."""
    rng = random.Random(202)
    site = "/opt/conda/lib/python3.10/site-packages"
    ref = "/workspace/vision/references/detection"
    L = ["root@det-train-0:/workspace/vision/references/detection# python -c \"import torch, torchvision; "
         "print(torch.__version__, torchvision.__version__, torch.cuda.device_count(), torch.cuda.get_device_name(0))\"",
         "1.13.1+cu117 0.14.1+cu117 4 NVIDIA A100-SXM4-40GB",
         "root@det-train-0:/workspace/vision/references/detection# torchrun --nproc_per_node=4 train.py --dataset coco "
         "--data-path /datasets/coco --model maskrcnn_resnet50_fpn --epochs 26 --lr-steps 16 22 --aspect-ratio-group-factor 3 "
         "--weights-backbone ResNet50_Weights.IMAGENET1K_V1 --data-augmentation multiscale -b 4 --lr 0.04 --print-freq 100 "
         "--output-dir /ckpt/mrcnn-ms"]
    L += torchrun_banner("1.13", "logging", dt("2023-03-02 08:11:04"), 0)
    for r in (0, 2, 1, 3):
        L.append(f"| distributed init (rank {r}): env://")
    L += [
        "Namespace(data_path='/datasets/coco', dataset='coco', model='maskrcnn_resnet50_fpn', device='cuda', batch_size=4, "
        "epochs=26, workers=4, opt='sgd', lr=0.04, momentum=0.9, weight_decay=0.0001, norm_weight_decay=None, "
        "lr_scheduler='multisteplr', lr_step_size=8, lr_steps=[16, 22], lr_gamma=0.1, print_freq=100, "
        "output_dir='/ckpt/mrcnn-ms', resume='', start_epoch=0, aspect_ratio_group_factor=3, rpn_score_thresh=None, "
        "trainable_backbone_layers=None, data_augmentation='multiscale', sync_bn=False, test_only=False, "
        "use_deterministic_algorithms=False, world_size=4, dist_url='env://', weights=None, "
        "weights_backbone='ResNet50_Weights.IMAGENET1K_V1', amp=False, use_copypaste=False, rank=0, gpu=0, "
        "distributed=True, dist_backend='nccl')",
        "Loading data",
        "loading annotations into memory...",
        "Done (t=17.86s)",
        "creating index...",
        "index created!",
        "loading annotations into memory...",
        "Done (t=0.61s)",
        "creating index...",
        "index created!",
        "Creating data loaders",
        "Using [0, 0.5, 0.6299605249797391, 0.7937005259840997, 1.0, 1.2599210498948732, 1.5874010519682, 2.0, inf] as bins for aspect ratio quantization",
        "Count of instances per bin: [  104   982 24236  2332  8225 74466  5763  1158]",
        "Creating model",
        "Start training",
    ]
    iters = 7329
    t_el = 0.0
    maxmem = 9633
    for ep in (0, 1):
        rng2 = random.Random(ep)
        last = 2300 if ep == 1 else iters - 1
        steps = list(range(0, last + 1, 100))
        if ep == 0 and steps[-1] != iters - 1:
            steps.append(iters - 1)
        lval = 2.45 if ep == 0 else 0.81
        for i in steps:
            t_el += 100 * rng.uniform(0.45, 0.52) if i else 3
            lval = max(0.62, lval - (rng.uniform(0.0, 0.06) if ep == 0 else rng.uniform(-0.01, 0.012)))
            maxmem = min(29411, maxmem + (rng.randint(600, 2400) if i < 1500 and ep == 0 else rng.randint(0, 60)))
            eta = int((iters - i) * 0.49)
            lr = 0.04 * (min(1.0, (i + 1) / 1000) if ep == 0 else 1.0)
            h, m, s = eta // 3600, (eta % 3600) // 60, eta % 60
            L.append(f"Epoch: [{ep}]  [{i:>4}/{iters}]  eta: {h}:{m:02d}:{s:02d}  lr: {lr:.6f}  loss: {lval:.4f} "
                     f"({lval + 0.06:.4f})  loss_classifier: {lval * 0.22:.4f} ({lval * 0.23:.4f})  loss_box_reg: "
                     f"{lval * 0.27:.4f} ({lval * 0.28:.4f})  loss_mask: {lval * 0.33:.4f} ({lval * 0.34:.4f})  "
                     f"loss_objectness: {lval * 0.05:.4f} ({lval * 0.05:.4f})  loss_rpn_box_reg: {lval * 0.08:.4f} "
                     f"({lval * 0.09:.4f})  time: {rng.uniform(0.44, 0.55):.4f}  data: {rng.uniform(0.008, 0.02):.4f}  "
                     f"max mem: {maxmem}")
        if ep == 0:
            L.append(f"Epoch: [0] Total time: 1:00:{rng.randint(10, 59):02d} (0.4927 s / it)")
            L.append("Test:  [   0/1250]  eta: 0:31:10  model_time: 0.4121 (0.4121)  evaluator_time: 0.0312 (0.0312)  time: 1.4963  data: 1.0316  max mem: 29411")
            for k in range(100, 1250, 300):
                L.append(f"Test:  [{k:>4}/1250]  eta: 0:{int((1250 - k) * 0.11) // 60:02d}:{int((1250 - k) * 0.11) % 60:02d}  model_time: 0.0931 (0.0977)  evaluator_time: 0.0105 (0.0121)  time: 0.1131  data: 0.0063  max mem: 29411")
            L += ["Test: Total time: 0:02:24 (0.1152 s / it)", "Averaged stats: model_time: 0.0942 (0.0969)  evaluator_time: 0.0113 (0.0124)",
                  "Accumulating evaluation results...", "DONE (t=5.91s).", "Accumulating evaluation results...", "DONE (t=5.72s).",
                  "IoU metric: bbox",
                  " Average Precision  (AP) @[ IoU=0.50:0.95 | area=   all | maxDets=100 ] = 0.083",
                  " Average Precision  (AP) @[ IoU=0.50      | area=   all | maxDets=100 ] = 0.181",
                  " Average Precision  (AP) @[ IoU=0.75      | area=   all | maxDets=100 ] = 0.066",
                  "IoU metric: segm",
                  " Average Precision  (AP) @[ IoU=0.50:0.95 | area=   all | maxDets=100 ] = 0.079",
                  " Average Precision  (AP) @[ IoU=0.50      | area=   all | maxDets=100 ] = 0.162"]
    L += [
        "Traceback (most recent call last):",
        f'  File "{ref}/train.py", line 320, in <module>',
        "    main(args)",
        f'  File "{ref}/train.py", line 285, in main',
        "    train_one_epoch(model, optimizer, data_loader, device, epoch, args.print_freq, scaler)",
        f'  File "{ref}/engine.py", line 41, in train_one_epoch',
        "    losses.backward()",
        f'  File "{site}/torch/_tensor.py", line 488, in backward',
        "    torch.autograd.backward(",
        f'  File "{site}/torch/autograd/__init__.py", line 197, in backward',
        "    Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass",
        "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.20 GiB (GPU 2; 39.59 GiB total capacity; "
        "27.86 GiB already allocated; 960.56 MiB free; 36.95 GiB reserved in total by PyTorch) If reserved memory is >> "
        "allocated memory try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory "
        "Management and PYTORCH_CUDA_ALLOC_CONF",
    ]
    tf = dt("2023-03-02 09:32:51")
    L += torchrun_fail("1.13", "logging", tf, 0, site, "/opt/conda/bin/torchrun", "/opt/conda/bin/python", "train.py",
                       "det-train-0", {"rank": 2, "local_rank": 2, "pid": 9314, "exitcode": 1, "time": tf},
                       [9312, 9313, 9315])
    return Case(
        "cuda-oom-fragmentation-maskrcnn-multiscale-02", "cuda-oom-fragmentation", "medium",
        "torchrun 4x A100-40GB, torchvision Mask R-CNN with multiscale augmentation (random image sizes every "
        "step), torch 1.13. max mem (allocated peak) plateaus near 28.7 GB, then in epoch 1 rank 2 fails to get "
        "1.20 GiB although 36.95 GiB are reserved and only 27.86 GiB allocated: ~9 GiB trapped in the cache.",
        2,
        {"gpu_model": "A100-SXM4-40GB", "torch_version": "1.13.1", "launcher": "torchrun", "world_size": "4",
         "oom_tried_to_allocate": "1.20 GiB", "oom_total_capacity": "39.59 GiB", "oom_free": "960.56 MiB"},
        ["fragmentation", "max_split_size_mb"],
        {"train.log": "\n".join(L)},
    )


def case_frag_03() -> Case:
    """Slurm srun, 16 tasks on 2 nodes of 8 A100-80GB, DeepSpeed ZeRO-3 (13B, variable-length batches), torch 2.1.
    Rank 0 warns about allocator cache flushes for ~100 steps; rank 5 OOMs with 16.84 GiB reserved-but-unallocated;
    srun does not kill the others, so 30 minutes later 15 ranks die of the NCCL watchdog."""
    rng = random.Random(203)
    user = "jkowalski"
    ghp = "ghp_" + fake_token(rng, ALNUM, 36)
    site = "/opt/venvs/llm/lib/python3.10/site-packages"
    work = f"/lustre/home/{user}/llm-train"
    nodes = ("gpu-a100-003", "gpu-a100-004")
    L = [
        "===== job 2291734 (l2-13b-z3-sft) on 2 nodes: gpu-a100-[003-004] =====",
        f"SLURM_JOB_USER={user}",
        "SLURM_JOB_ID=2291734",
        "SLURM_JOB_NODELIST=gpu-a100-[003-004]",
        "SLURM_NNODES=2",
        "SLURM_NTASKS=16",
        "SLURM_NTASKS_PER_NODE=8",
        "SLURM_GPUS_ON_NODE=8",
        "SLURM_CPUS_PER_TASK=12",
        "MASTER_ADDR=gpu-a100-003 MASTER_PORT=29522",
        "NCCL_DEBUG=VERSION NCCL_IB_HCA=mlx5 NCCL_SOCKET_IFNAME=ib0",
        "PYTORCH_CUDA_ALLOC_CONF=",
        "--- pip freeze (filtered) ---",
        f"acme-llm-utils @ git+https://{ghp}@github.com/acme-ml/llm-utils.git@4f1c2a9e0b7d33c5a1e8f6d0c2b4a97e1d3f5b60",
        "accelerate==0.25.0",
        "deepspeed==0.12.6",
        "flash-attn==2.4.2",
        "torch==2.1.2",
        "transformers==4.36.2",
        "-----------------------------",
        "srun -l --kill-on-bad-exit=0 bash -c 'RANK=$SLURM_PROCID LOCAL_RANK=$SLURM_LOCALID WORLD_SIZE=$SLURM_NTASKS "
        "python -u train.py --deepspeed configs/ds_z3_bf16.json --model meta-llama/Llama-2-13b-hf --data "
        "/lustre/datasets/sft/mix_v7 --max-len 4096 --micro-bs 4 --grad-accum 4 --steps 6000'",
    ]
    t = dt("2024-02-06 02:14:31")
    last = [t] * 16

    def ds(r: int, dtsec: float, lvl: str, src: str, msg: str) -> None:
        tt = max(t + timedelta(seconds=dtsec, microseconds=rng.randint(0, 90000)), last[r] + timedelta(microseconds=300))
        last[r] = tt
        L.append(f"{r}: {ds_ts(tt)} [{lvl}] [{src}] {msg}")

    order = rng.sample(range(16), 16)
    for r in order:
        ds(r, 4.0, "INFO", "real_accelerator.py:161:get_accelerator", "Setting ds_accelerator to cuda (auto detect)")
    for r in order:
        ds(r, 9.0, "INFO", "comm.py:637:init_distributed", "cdb=None")
    ds(0, 9.1, "INFO", "comm.py:668:init_distributed", "Initializing TorchBackend in DeepSpeed with backend nccl")
    L.append("0: [rank 0] torch 2.1.2+cu121 | 16 ranks on NVIDIA A100-SXM4-80GB | bf16")
    L.append("0: gpu-a100-003:41822:41822 [0] NCCL INFO NCCL version 2.18.1+cuda12.1")
    ds(0, 31.0, "INFO", "partition_parameters.py:348:__exit__", "finished initializing model - num_params = 363, num_elems = 13.02B")
    for r in rng.sample(range(16), 16):
        L.append(f"{r}: Loading checkpoint shards: 100%|██████████| 3/3 [00:{rng.randint(36, 49)}<00:00, {rng.uniform(12.1, 16.4):5.2f}s/it]")
    L.append("0: [rank 0] data: 1,204,771 samples, max_len 4096, dynamic padding (pad to longest in micro-batch), no packing")
    ds(0, 95.0, "INFO", "logging.py:96:log_dist", "[Rank 0] DeepSpeed info: version=0.12.6, git-hash=unknown, git-branch=unknown")
    ds(0, 95.2, "INFO", "logging.py:96:log_dist", "[Rank 0] DeepSpeed Flops Profiler Enabled: False")
    ds(0, 95.3, "INFO", "logging.py:96:log_dist", "[Rank 0] Using client Optimizer as basic optimizer")
    ds(0, 95.3, "INFO", "logging.py:96:log_dist", "[Rank 0] Removing param_group that has no 'params' in the basic Optimizer")
    ds(0, 95.3, "INFO", "logging.py:96:log_dist", "[Rank 0] DeepSpeed Basic Optimizer = FusedAdam")
    ds(0, 95.3, "INFO", "utils.py:56:is_zero_supported_optimizer", "Checking ZeRO support for optimizer=FusedAdam type=<class 'deepspeed.ops.adam.fused_adam.FusedAdam'>")
    ds(0, 95.3, "INFO", "logging.py:96:log_dist", "[Rank 0] Creating fp16 ZeRO stage 3 optimizer, MiCS is enabled False, Hierarchical params gather False")
    ds(0, 95.3, "INFO", "logging.py:96:log_dist", "[Rank 0] Creating torch.bfloat16 ZeRO stage 3 optimizer")
    ds(0, 95.6, "INFO", "utils.py:791:see_memory_usage", "Stage 3 initialize beginning")
    ds(0, 95.6, "INFO", "utils.py:792:see_memory_usage", "MA 3.12 GB         Max_MA 4.71 GB         CA 5.3 GB         Max_CA 5 GB ")
    ds(0, 95.6, "INFO", "utils.py:799:see_memory_usage", "CPU Virtual Memory:  used = 88.23 GB, percent = 8.8%")
    ds(0, 95.7, "INFO", "stage3.py:127:__init__", "Reduce bucket size 26214400")
    ds(0, 95.7, "INFO", "stage3.py:128:__init__", "Prefetch bucket size 23592960")
    ds(0, 97.9, "INFO", "utils.py:791:see_memory_usage", "After creating fp16 partitions: 1")
    ds(0, 97.9, "INFO", "utils.py:792:see_memory_usage", "MA 3.12 GB         Max_MA 3.12 GB         CA 5.3 GB         Max_CA 5 GB ")
    ds(0, 99.2, "INFO", "utils.py:791:see_memory_usage", "After initializing optimizer states")
    ds(0, 99.2, "INFO", "utils.py:792:see_memory_usage", "MA 12.89 GB         Max_MA 14.52 GB         CA 14.54 GB         Max_CA 15 GB ")
    ds(0, 99.2, "INFO", "stage3.py:434:_setup_for_real_optimizer", "optimizer state initialized")
    ds(0, 101.0, "INFO", "logging.py:96:log_dist", "[Rank 0] DeepSpeed Final Optimizer = adamw")
    ds(0, 101.0, "INFO", "logging.py:96:log_dist", "[Rank 0] step=0, skipped=0, lr=[0.0], mom=[(0.9, 0.95)]")
    ds(0, 101.0, "INFO", "config.py:983:print", "DeepSpeedEngine configuration:")
    for k, v in [("bfloat16_enabled", "True"), ("gradient_accumulation_steps", "4"), ("train_batch_size", "256"),
                 ("train_micro_batch_size_per_gpu", "4"), ("zero_enabled", "True"), ("zero_optimization_stage", "3"),
                 ("zero_config", "stage=3 contiguous_gradients=True reduce_scatter=True reduce_bucket_size=26214400 "
                  "allgather_partitions=True allgather_bucket_size=500,000,000 overlap_comm=True load_from_fp32_weights=True "
                  "elastic_checkpoint=False offload_param=None offload_optimizer=None sub_group_size=1000000000 "
                  "prefetch_bucket_size=23592960 param_persistence_threshold=51200 model_persistence_threshold=sys.maxsize "
                  "max_live_parameters=1000000000 max_reuse_distance=1000000000 gather_16bit_weights_on_model_save=True")]:
        ds(0, 101.0, "INFO", "config.py:987:print", f"  {k} {'.' * max(1, 30 - len(k))} {v}")
    el = 101.0
    mem = 24.8
    for step in range(10, 221, 10):
        el += 10 * rng.uniform(11.5, 13.8)
        ds(0, el, "INFO", "logging.py:96:log_dist", f"[Rank 0] step={step}, skipped=0, lr=[{1e-5 * min(1, step / 100):.16g}], mom=[(0.9, 0.95)]")
        ds(0, el, "INFO", "timer.py:260:stop", f"epoch=0/micro_step={step * 4}/global_step={step}, RunningAvgSamplesPerSec="
           f"{rng.uniform(19.1, 20.3):.14f}, CurrSamplesPerSec={rng.uniform(15.0, 23.0):.14f}, MemAllocated={mem + rng.uniform(-0.3, 0.3):.2f}GB, "
           f"MaxMemAllocated={rng.uniform(58.2, 63.1):.2f}GB")
        L.append(f"0: step {step} loss {2.1 - step * 0.0031 + rng.uniform(-0.05, 0.05):.4f} tokens {rng.randint(98000, 131072)}")
        if step >= 120:
            flushes = rng.randint(1, 3) + (step - 120) // 40
            ds(0, el + 0.2, "WARNING", "stage3.py:2069:step",
               f"{flushes} pytorch allocator cache flushes since last step. this happens when there is high memory pressure "
               "and is detrimental to performance. if this is happening frequently consider adjusting settings to reduce "
               "memory consumption. If you are unable to make the cache flushes go away consider adding "
               "get_accelerator().empty_cache() calls in your training loop to ensure that all ranks flush their caches at "
               "the same time")
    site_l = f"{site}"
    tb = [
        "Traceback (most recent call last):",
        f'  File "{work}/train.py", line 402, in <module>',
        "    main()",
        f'  File "{work}/train.py", line 361, in main',
        "    engine.backward(loss)",
        f'  File "{site_l}/deepspeed/utils/nvtx.py", line 15, in wrapped_fn',
        "    ret_val = func(*args, **kwargs)",
        f'  File "{site_l}/deepspeed/runtime/engine.py", line 1955, in backward',
        "    self.optimizer.backward(loss, retain_graph=retain_graph)",
        f'  File "{site_l}/deepspeed/utils/nvtx.py", line 15, in wrapped_fn',
        "    ret_val = func(*args, **kwargs)",
        f'  File "{site_l}/deepspeed/runtime/zero/stage3.py", line 2135, in backward',
        "    self.loss_scaler.backward(loss.float(), retain_graph=retain_graph)",
        f'  File "{site_l}/deepspeed/runtime/fp16/loss_scaler.py", line 63, in backward',
        "    scaled_loss.backward(retain_graph=retain_graph)",
        *backward_call_frames(site_l, "2.1"),
        f'  File "{site_l}/torch/autograd/function.py", line 288, in apply',
        "    return user_fn(self, *args)",
        f'  File "{site_l}/torch/utils/checkpoint.py", line 288, in backward',
        "    torch.autograd.backward(outputs_with_grad, args_with_grad)",
        f'  File "{site_l}/torch/autograd/__init__.py", line 251, in backward',
        "    Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass",
        "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.38 GiB. GPU 5 has a total capacty of "
        "79.15 GiB of which 1.12 GiB is free. Including non-PyTorch memory, this process has 78.01 GiB memory in use. "
        "Of the allocated memory 59.70 GiB is allocated by PyTorch, and 16.84 GiB is reserved by PyTorch but "
        "unallocated. If reserved but unallocated memory is large try setting max_split_size_mb to avoid "
        "fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF",
    ]
    L += [f"5: {x}" for x in tb]
    L.append("srun: error: gpu-a100-003: task 5: Exited with exit code 1")
    wd = []
    for r in [x for x in range(16) if x != 5]:
        ran = 1800000 + rng.randint(100, 1900)
        wd.append((r, nccl_watchdog("2.1", r, 48213, "_ALLGATHER_BASE", 1800000, ran, (8519680, 136314880))))
    rng.shuffle(wd)
    for r, lines in wd:
        L.append(f"{r}: {lines[0]}")
    for r, lines in wd:
        L += [f"{r}: {x}" for x in lines[1:]]
    L += ["srun: error: gpu-a100-003: tasks 0-4,6-7: Aborted (core dumped)",
          "srun: error: gpu-a100-004: tasks 8-15: Aborted (core dumped)"]
    return Case(
        "cuda-oom-fragmentation-zero3-srun-cacheflush-03", "cuda-oom-fragmentation", "hard",
        "srun with 16 tasks (2 nodes x 8 A100-80GB), DeepSpeed ZeRO-3 Llama-2-13B, variable-length micro-batches. Rank 0 "
        "warns about pytorch allocator cache flushes for ~100 steps; rank 5 then OOMs in backward with 16.84 GiB reserved "
        "but unallocated (fragmentation). srun leaves the others running, and 30 minutes later all 15 remaining ranks "
        "die of the NCCL watchdog, which ends the log.",
        5,
        {"gpu_model": "A100-SXM4-80GB", "torch_version": "2.1.2", "deepspeed_version": "0.12.6",
         "nccl_version": "2.18.1", "launcher": "srun", "world_size": "16", "num_nodes": "2", "zero_stage": "3"},
        ["fragmentation", "rank 5"],
        {"slurm-2291734.out": "\n".join(L)},
        also=["cuda-oom"],
        secrets=[ghp, user],
    )


# ==================================================================================================
# cuda-memory-leak-growth
# ==================================================================================================


def case_leak_01() -> Case:
    """Lightning 2.1, single L4, U-Net segmentation; training_step appends the (un-detached) logits to a list for an
    epoch-end metric; a user callback prints allocated memory, which climbs ~82 MiB per step until OOM at step 193."""
    rng = random.Random(301)
    user = "rpatel"
    home = f"/home/{user}"
    site = f"{home}/.venvs/seg/lib/python3.10/site-packages"
    L = [f"({user}) $ python train_seg.py --data /data/floodnet --img-size 512 --batch-size 8 --precision bf16-mixed --max-epochs 40",
         "[train_seg] torch 2.1.1+cu121 | lightning 2.1.3 | segmentation_models_pytorch 0.3.3 | NVIDIA L4",
         "Seed set to 1234",
         "Using bfloat16 Automatic Mixed Precision (AMP)",
         "GPU available: True (cuda), used: True",
         "TPU available: False, using: 0 TPU cores",
         "IPU available: False, using: 0 IPUs",
         "HPU available: False, using: 0 HPUs",
         "You are using a CUDA device ('NVIDIA L4') that has Tensor Cores. To properly utilize them, you should set "
         "`torch.set_float32_matmul_precision('medium' | 'high')` which will trade-off precision for performance. For "
         "more details, read https://pytorch.org/docs/stable/generated/torch.set_float32_matmul_precision.html#torch.set_float32_matmul_precision",
         "LOCAL_RANK: 0 - CUDA_VISIBLE_DEVICES: [0]",
         "",
         "  | Name    | Type       | Params",
         "---------------------------------------",
         "0 | model   | Unet       | 24.4 M",
         "1 | loss_fn | DiceCELoss | 0     ",
         "2 | val_iou | JaccardIndex | 0   ",
         "---------------------------------------",
         "24.4 M    Trainable params",
         "0         Non-trainable params",
         "24.4 M    Total params",
         "97.730    Total estimated model params size (MB)",
         f"{site}/lightning/pytorch/trainer/connectors/data_connector.py:441: The 'val_dataloader' does not have many "
         "workers which may be a bottleneck. Consider increasing the value of the `num_workers` argument` to "
         "`num_workers=7` in the `DataLoader` to improve performance.",
         "Sanity Checking: |          | 0/? [00:00<?, ?it/s]",
         "Sanity Checking DataLoader 0: 100%|██████████| 2/2 [00:01<00:00,  1.48it/s]",
         "                                                                           ",
         "Epoch 0:   0%|          | 0/1250 [00:00<?, ?it/s] "]
    alloc = 5.66
    loss = 1.31
    el = 0.0
    for step in range(10, 191, 10):
        el += 10 * rng.uniform(0.71, 0.76)
        alloc += 10 * 0.0821 + rng.uniform(-0.004, 0.004)
        loss = max(0.35, loss - rng.uniform(0.0, 0.045))
        L.append("Epoch 0: " + tqdm_bar(step, 1250, el, el / step, postfix=f"v_num=7, train_loss_step={loss:.3f}"))
        if step % 20 == 0:
            L.append(f"[mem] step={step} allocated={alloc:.2f}GiB reserved={alloc + rng.uniform(0.2, 0.5):.2f}GiB "
                     f"max_allocated={alloc + 1.41 + rng.uniform(0, 0.05):.2f}GiB")
    chain = [
        ("lightning/pytorch/trainer/trainer.py", 544, "fit", "call._call_and_handle_interrupt("),
        ("lightning/pytorch/trainer/call.py", 44, "_call_and_handle_interrupt", "return trainer_fn(*args, **kwargs)"),
        ("lightning/pytorch/trainer/trainer.py", 580, "_fit_impl", "self._run(model, ckpt_path=ckpt_path)"),
        ("lightning/pytorch/trainer/trainer.py", 989, "_run", "results = self._run_stage()"),
        ("lightning/pytorch/trainer/trainer.py", 1035, "_run_stage", "self.fit_loop.run()"),
        ("lightning/pytorch/loops/fit_loop.py", 202, "run", "self.advance()"),
        ("lightning/pytorch/loops/fit_loop.py", 359, "advance", "self.epoch_loop.run(self._data_fetcher)"),
        ("lightning/pytorch/loops/training_epoch_loop.py", 136, "run", "self.advance(data_fetcher)"),
        ("lightning/pytorch/loops/training_epoch_loop.py", 240, "advance", "batch_output = self.automatic_optimization.run(trainer.optimizers[0], batch_idx, kwargs)"),
        ("lightning/pytorch/loops/optimization/automatic.py", 187, "run", "self._optimizer_step(batch_idx, closure)"),
        ("lightning/pytorch/loops/optimization/automatic.py", 265, "_optimizer_step", "call._call_lightning_module_hook("),
        ("lightning/pytorch/trainer/call.py", 157, "_call_lightning_module_hook", "output = fn(*args, **kwargs)"),
        ("lightning/pytorch/core/module.py", 1291, "optimizer_step", "optimizer.step(closure=optimizer_closure)"),
        ("lightning/pytorch/core/optimizer.py", 151, "step", "step_output = self._strategy.optimizer_step(self._optimizer, closure, **kwargs)"),
        ("lightning/pytorch/strategies/strategy.py", 230, "optimizer_step", "return self.precision_plugin.optimizer_step(optimizer, model=model, closure=closure, **kwargs)"),
        ("lightning/pytorch/plugins/precision/amp.py", 77, "optimizer_step", "closure_result = closure()"),
        ("lightning/pytorch/loops/optimization/automatic.py", 140, "__call__", "self._result = self.closure(*args, **kwargs)"),
        ("torch/utils/_contextlib.py", 115, "decorate_context", "return func(*args, **kwargs)"),
        ("lightning/pytorch/loops/optimization/automatic.py", 126, "closure", "step_output = self._step_fn()"),
        ("lightning/pytorch/loops/optimization/automatic.py", 315, "_training_step", 'training_step_output = call._call_strategy_hook(trainer, "training_step", *kwargs.values())'),
        ("lightning/pytorch/trainer/call.py", 309, "_call_strategy_hook", "output = fn(*args, **kwargs)"),
        ("lightning/pytorch/strategies/strategy.py", 382, "training_step", "return self.lightning_module.training_step(*args, **kwargs)"),
    ]
    L += ["Traceback (most recent call last):",
          f'  File "{home}/seg/train_seg.py", line 188, in <module>', "    trainer.fit(model, datamodule=dm)"]
    for f, ln, fn, src in chain:
        L += [f'  File "{site}/{f}", line {ln}, in {fn}', f"    {src}"]
    L += [f'  File "{home}/seg/train_seg.py", line 97, in training_step', "    logits = self(x)",
          *module_call_frames(site, "2.1"),
          f'  File "{home}/seg/train_seg.py", line 84, in forward', "    return self.model(x)",
          *module_call_frames(site, "2.1"),
          f'  File "{site}/segmentation_models_pytorch/base/model.py", line 30, in forward', "    decoder_output = self.decoder(*features)",
          *module_call_frames(site, "2.1"),
          f'  File "{site}/segmentation_models_pytorch/decoders/unet/decoder.py", line 119, in forward', "    x = decoder_block(x, skip)",
          *module_call_frames(site, "2.1"),
          f'  File "{site}/segmentation_models_pytorch/decoders/unet/decoder.py", line 40, in forward', '    x = F.interpolate(x, scale_factor=2, mode="nearest")',
          f'  File "{site}/torch/nn/functional.py", line 3983, in interpolate', "    return torch._C._nn.upsample_nearest2d(input, output_size, scale_factors)",
          "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 128.00 MiB. GPU 0 has a total capacty of "
          "21.96 GiB of which 97.06 MiB is free. Including non-PyTorch memory, this process has 21.85 GiB memory in use. "
          "Of the allocated memory 21.31 GiB is allocated by PyTorch, and 312.47 MiB is reserved by PyTorch but "
          "unallocated. If reserved but unallocated memory is large try setting max_split_size_mb to avoid "
          "fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF",
          "Epoch 0:  15%|█▌        | 193/1250 [02:23<13:05,  1.35it/s, v_num=7, train_loss_step=0.561]"]
    return Case(
        "cuda-memory-leak-growth-lightning-outputs-l4-01", "cuda-memory-leak-growth", "medium",
        "Lightning 2.1 U-Net on a single L4: allocated memory printed by a callback climbs ~0.82 GiB every 10 steps "
        "from 5.7 GiB (training_step keeps every step's logits for an epoch-end metric) until an ordinary 128 MiB "
        "allocation fails at step 193 of the first epoch.",
        None,
        {"gpu_model": "L4", "torch_version": "2.1.1", "launcher": "python", "oom_tried_to_allocate": "128.00 MiB",
         "precision": "bf16"},
        ["detach"],
        {"train.log": "\n".join(L)},
        secrets=[user],
    )


def case_leak_02() -> Case:
    """HF Trainer 4.36 on one A100-80GB: training is fine, the first evaluation accumulates fp32 logits of every eval
    batch on the GPU (no eval_accumulation_steps) and dies at eval batch 40/250 inside nested_concat."""
    rng = random.Random(302)
    site = "/usr/local/lib/python3.10/dist-packages"
    pw = fake_token(rng, ALNUM, 14)
    smi = nvidia_smi("Thu Feb 22 16:03:11 2024", "535.129.03", "12.2", "NVIDIA A100-SXM4-80GB", 1, rng, used=[0])
    L = ["+ nvidia-smi", smi,
         "+ python finetune.py --config configs/support_bot_lora.yaml",
         "[finetune] torch 2.1.2+cu121 transformers 4.36.2 peft 0.7.1 accelerate 0.26.1",
         f"[finetune] mlflow tracking: https://mlflow:{pw}@mlflow.internal.acme.io (experiment: support-bot-lora)",
         "[finetune] model=meta-llama/Llama-2-7b-hf lora_r=64 max_len=1024 per_device_train_batch_size=8 "
         "per_device_eval_batch_size=8 eval_steps=500 compute_metrics=token_accuracy",
         "Loading checkpoint shards: 100%|██████████| 2/2 [00:04<00:00,  2.14s/it]",
         "trainable params: 159,907,840 || all params: 6,898,323,456 || trainable%: 2.318099223092227",
         "Map: 100%|██████████| 38000/38000 [00:21<00:00, 1771.04 examples/s]",
         "Map: 100%|██████████| 2000/2000 [00:01<00:00, 1790.33 examples/s]",
         "Detected kernel version 4.18.0, which is below the recommended minimum of 5.5.0; this can cause the process "
         "to hang. It is recommended to upgrade the kernel to the minimum version or higher.",
         hf_train_header(38000, 3, 8, 16, 2, 7125, 159907840),
         "  0%|          | 0/7125 [00:00<?, ?it/s]",
         "`use_cache=True` is incompatible with gradient checkpointing. Setting `use_cache=False`..."]
    loss = 1.74
    el = 0.0
    for step in range(50, 501, 50):
        el += 50 * rng.uniform(1.18, 1.26)
        L.append(tqdm_bar(step, 7125, el, el / step))
        loss = max(0.9, loss - rng.uniform(0.02, 0.09))
        L.append(f"{{'loss': {loss:.4f}, 'learning_rate': {2e-4 * (1 - step / 7125):.16g}, 'epoch': {step / 2375:.2f}}}")
    L.append("")
    for k in (0, 10, 20, 30, 40):
        L.append(("  0%|          | 0/250 [00:00<?, ?it/s]" if k == 0 else tqdm_bar(k, 250, k * 0.93, 0.93)) + "\x1b[A")
    chain = [
        ("transformers/trainer.py", 1555, "train", "return inner_training_loop("),
        ("transformers/trainer.py", 1929, "_inner_training_loop", "self._maybe_log_save_evaluate(tr_loss, model, trial, epoch, ignore_keys_for_eval)"),
        ("transformers/trainer.py", 2256, "_maybe_log_save_evaluate", "metrics = self.evaluate(ignore_keys=ignore_keys_for_eval)"),
        ("transformers/trainer.py", 3029, "evaluate", "output = eval_loop("),
        ("transformers/trainer.py", 3252, "evaluation_loop", "preds_host = logits if preds_host is None else nested_concat(preds_host, logits, padding_index=-100)"),
        ("transformers/trainer_pt_utils.py", 123, "nested_concat", "return type(tensors)(nested_concat(t, n, padding_index=padding_index) for t, n in zip(tensors, new_tensors))"),
        ("transformers/trainer_pt_utils.py", 123, "<genexpr>", "return type(tensors)(nested_concat(t, n, padding_index=padding_index) for t, n in zip(tensors, new_tensors))"),
        ("transformers/trainer_pt_utils.py", 125, "nested_concat", "return torch_pad_and_concatenate(tensors, new_tensors, padding_index=padding_index)"),
        ("transformers/trainer_pt_utils.py", 84, "torch_pad_and_concatenate", "result = tensor1.new_full(new_shape, padding_index)"),
    ]
    L += ["Traceback (most recent call last):", '  File "/workspace/support-bot/finetune.py", line 163, in <module>',
          "    main()", '  File "/workspace/support-bot/finetune.py", line 157, in main', "    trainer.train()"]
    for f, ln, fn, src in chain:
        L += [f'  File "{site}/{f}", line {ln}, in {fn}', f"    {src}"]
    L += ["torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 40.06 GiB. GPU 0 has a total capacty of "
          "79.15 GiB of which 21.47 GiB is free. Process 3817 has 57.67 GiB memory in use. Of the allocated memory "
          "55.02 GiB is allocated by PyTorch, and 2.11 GiB is reserved by PyTorch but unallocated. If reserved but "
          "unallocated memory is large try setting max_split_size_mb to avoid fragmentation.  See documentation for "
          "Memory Management and PYTORCH_CUDA_ALLOC_CONF",
          "  7%|▋         | 500/7125 [10:17<2:16:24,  1.24s/it]"]
    return Case(
        "cuda-memory-leak-growth-hf-eval-logits-accum-02", "cuda-memory-leak-growth", "medium",
        "HF Trainer (transformers 4.36) LoRA fine-tune on one A100-80GB with compute_metrics: training to step 500 is "
        "fine; during the first evaluation the Trainer concatenates every batch's fp32 [8, 1024, 32000] logits on the "
        "GPU (no eval_accumulation_steps / preprocess_logits_for_metrics) and dies at eval batch 40/250 in "
        "nested_concat trying to allocate 40 GiB.",
        None,
        {"gpu_model": "A100-SXM4-80GB", "driver_version": "535.129.03", "torch_version": "2.1.2",
         "transformers_version": "4.36.2", "launcher": "python", "oom_tried_to_allocate": "40.06 GiB",
         "failure_step": "500"},
        ["eval_accumulation_steps"],
        {"train.log": "\n".join(L)},
        also=["cuda-oom"],
        secrets=[pw],
    )


def case_leak_03() -> Case:
    """srun 4 tasks (one node, 4x A100-40GB), torch 2.0: rank 0 alone validates without no_grad and sums the loss
    tensor, memory climbs ~2.3 GiB per val batch, OOM at val batch 13; ranks 1-3 wait at a barrier and die of the
    NCCL watchdog 30 minutes later."""
    rng = random.Random(303)
    site = "/opt/conda/envs/vit/lib/python3.10/site-packages"
    work = "/shared/projects/vit-in1k"
    L = ["+ srun -l --ntasks=4 --gpus-per-task=1 python -u train_vit.py --model vit_base_patch16_224 --epochs 90 "
         "--batch-size 256 --val-batch-size 32 --lr 3e-3 --amp --data /datasets/imagenet"]
    L.append("0: [2023-08-21 13:40:52] torch 2.0.1+cu117 | 4 x NVIDIA A100-SXM4-40GB | nccl (2, 14, 3) | world_size 4")
    L.append("0: [2023-08-21 13:40:52] model vit_base_patch16_224: 86.57M params, AdamW, cosine schedule, warmup 5 epochs")
    L.append("0: [2023-08-21 13:41:30] train: 1281167 images, 1251 steps/epoch | val: 50000 images (rank 0 only)")
    t = dt("2023-08-21 13:41:30")
    for r in (0, 1, 2, 3):
        L.append(f"{r}: {site}/torch/utils/data/dataloader.py:560: UserWarning: This DataLoader will create 12 worker "
                 "processes in total. Our suggested max number of worker in current system is 8, which is smaller than "
                 "what this DataLoader is going to create. Please be aware that excessive worker creation might get "
                 "DataLoader running slow or even freeze, lower the worker number to avoid potential slowness/freeze if necessary.")
        L.append(f"{r}:   warnings.warn(_create_warning_msg(")
    for ep in (0, 1):
        for step in range(100, 1252, 100):
            t += timedelta(seconds=100 * rng.uniform(1.01, 1.08))
            L.append(f"0: [{t.strftime('%Y-%m-%d %H:%M:%S')}] epoch {ep} step {step:>4}/1251 loss "
                     f"{6.9 - ep * 0.6 - step * 0.00041 + rng.uniform(-0.03, 0.03):.3f} lr {3e-3 * (ep * 1251 + step) / 6255:.2e} "
                     f"mem {7.88 + rng.uniform(-0.02, 0.03):.2f}GiB img/s {rng.randint(2390, 2530)}")
        t += timedelta(seconds=61)
        if ep == 0:
            L.append(f"0: [{t.strftime('%Y-%m-%d %H:%M:%S')}] epoch 0 train done (val every 2 epochs)")
            t += timedelta(seconds=9)
            L.append(f"0: [{t.strftime('%Y-%m-%d %H:%M:%S')}] saved /shared/ckpt/vit-b16/epoch_000.pt")
        else:
            L.append(f"0: [{t.strftime('%Y-%m-%d %H:%M:%S')}] epoch {ep} train done, validating on rank 0 (1563 batches)")
            for r in (2, 1, 3):
                L.append(f"{r}: [{t.strftime('%Y-%m-%d %H:%M:%S')}] rank {r}: waiting for rank 0 validation (barrier)")
    # epoch 1 validation: the loop runs with autograd on and keeps the summed loss tensor, memory grows per batch
    for b, m in ((5, 19.51), (10, 31.12)):
        t += timedelta(seconds=2)
        L.append(f"0: [{t.strftime('%Y-%m-%d %H:%M:%S')}] val {b:>4}/1563 running_loss {6.35 + rng.uniform(-0.1, 0.1):.3f} mem {m:.2f}GiB")
    tb = ["Traceback (most recent call last):",
          f'  File "{work}/train_vit.py", line 287, in <module>', "    main(args)",
          f'  File "{work}/train_vit.py", line 262, in main', "    val_stats = validate(model.module, val_loader, criterion, args)",
          f'  File "{work}/train_vit.py", line 171, in validate', "    output = model(images)",
          f'  File "{site}/torch/nn/modules/module.py", line 1501, in _call_impl', "    return forward_call(*args, **kwargs)",
          f'  File "{site}/timm/models/vision_transformer.py", line 685, in forward', "    x = self.forward_features(x)",
          f'  File "{site}/timm/models/vision_transformer.py", line 666, in forward_features', "    x = self.blocks(x)",
          f'  File "{site}/torch/nn/modules/module.py", line 1501, in _call_impl', "    return forward_call(*args, **kwargs)",
          f'  File "{site}/torch/nn/modules/container.py", line 217, in forward', "    input = module(input)",
          f'  File "{site}/torch/nn/modules/module.py", line 1501, in _call_impl', "    return forward_call(*args, **kwargs)",
          f'  File "{site}/timm/models/vision_transformer.py", line 157, in forward', "    x = x + self.drop_path2(self.ls2(self.mlp(self.norm2(x))))",
          f'  File "{site}/torch/nn/modules/module.py", line 1501, in _call_impl', "    return forward_call(*args, **kwargs)",
          f'  File "{site}/timm/layers/mlp.py", line 44, in forward', "    x = self.act(x)",
          f'  File "{site}/torch/nn/modules/module.py", line 1501, in _call_impl', "    return forward_call(*args, **kwargs)",
          f'  File "{site}/torch/nn/modules/activation.py", line 684, in forward', "    return F.gelu(input, approximate=self.approximate)",
          "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 74.00 MiB (GPU 0; 39.59 GiB total capacity; "
          "37.82 GiB already allocated; 61.19 MiB free; 38.41 GiB reserved in total by PyTorch) If reserved memory is >> "
          "allocated memory try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory "
          "Management and PYTORCH_CUDA_ALLOC_CONF"]
    L += ["0: " + x for x in tb]
    L.append("srun: error: gpu-node-17: task 0: Exited with exit code 1")
    for r in (2, 3, 1):
        lines = nccl_watchdog("2.0", r, 2521, "ALLREDUCE", 1800000, 1800000 + rng.randint(150, 990))
        L += [f"{r}: {x}" for x in lines]
    L.append("srun: error: gpu-node-17: tasks 1-3: Aborted (core dumped)")
    return Case(
        "cuda-memory-leak-growth-vit-val-nograd-srun-03", "cuda-memory-leak-growth", "hard",
        "srun with 4 tasks on one node (4x A100-40GB), torch 2.0: training is stable at 7.9 GiB, but rank 0's "
        "validation (run alone, without torch.no_grad, keeping the loss tensor) grows ~2.3 GiB per val batch and OOMs at "
        "val batch 13 of epoch 1. Ranks 1-3 wait at a barrier and die of the NCCL watchdog 30 minutes later; those "
        "timeouts end the log.",
        0,
        {"gpu_model": "A100-SXM4-40GB", "torch_version": "2.0.1", "launcher": "srun", "world_size": "4",
         "oom_tried_to_allocate": "74.00 MiB", "oom_total_capacity": "39.59 GiB"},
        ["no_grad"],
        {"slurm-881203.out": "\n".join(L)},
    )


# ==================================================================================================
# host-oom-killed
# ==================================================================================================


def case_host_oom_01() -> Case:
    """Workstation, plain python: a pretraining script reads 38 GB of jsonl into Python lists and tokenizes in RAM;
    bash prints Killed, the user checks $? and dmesg."""
    rng = random.Random(401)
    L = ["$ python pretrain_small.py --data '/mnt/data/web_en_2024/*.jsonl' --tokenizer gpt2 --seq-len 1024 --out runs/gpt-124m",
         "torch 2.2.1+cu121 | CUDA available: True | NVIDIA GeForce RTX 4090 (23.6 GiB)",
         "host RAM: 62.7 GiB total, 58.9 GiB available",
         "reading 112 jsonl shards into memory ..."]
    for k in (14, 28, 56, 84, 112):
        L.append("shards: " + tqdm_bar(k, 112, k * 1.98, 1.98))
    L += ["loaded 31,842,107 documents (37.9 GB of text) in 221.7s",
          "Token indices sequence length is longer than the specified maximum sequence length for this model (1873 > 1024). "
          "Running this sequence through the model will result in indexing errors"]
    for n in range(500000, 12_100_001, 800000):
        L.append("tokenizing: " + tqdm_bar(n, 31842107, n / 13902.7, 1 / 13902.7))
    L += ["Killed",
          "$ echo $?",
          "137",
          "$ free -g",
          "               total        used        free      shared  buff/cache   available",
          "Mem:              62           2          59           0           0          59",
          "Swap:              1           0           1",
          "$ sudo dmesg -T | tail -n 14",
          "[Tue Mar 19 22:41:07 2024] python invoked oom-killer: gfp_mask=0x140dca(GFP_HIGHUSER_MOVABLE|__GFP_COMP|__GFP_ZERO), order=0, oom_score_adj=0",
          "[Tue Mar 19 22:41:07 2024] CPU: 7 PID: 48211 Comm: python Tainted: P           OE      6.5.0-25-generic #25~22.04.1-Ubuntu",
          "[Tue Mar 19 22:41:07 2024] Hardware name: Micro-Star International Co., Ltd. MS-7D75/MAG X670E TOMAHAWK WIFI (MS-7D75), BIOS 1.80 11/29/2023",
          "[Tue Mar 19 22:41:07 2024] Mem-Info:",
          "[Tue Mar 19 22:41:07 2024] active_anon:15912238 inactive_anon:232177 isolated_anon:0",
          "                            active_file:1022 inactive_file:931 isolated_file:0",
          "[Tue Mar 19 22:41:07 2024] Free swap  = 0kB",
          "[Tue Mar 19 22:41:07 2024] Total swap = 2097148kB",
          "[Tue Mar 19 22:41:07 2024] Tasks state (memory values in pages):",
          "[Tue Mar 19 22:41:07 2024] [  pid  ]   uid  tgid total_vm      rss pgtables_bytes swapents oom_score_adj name",
          "[Tue Mar 19 22:41:07 2024] [   1742]  1000  1742   711544    61208   1134592        0           200 gnome-shell",
          "[Tue Mar 19 22:41:07 2024] [  48211]  1000 48211 17711032 16120712 129560576   524288             0 python",
          "[Tue Mar 19 22:41:07 2024] oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0,global_oom,"
          "task_memcg=/user.slice/user-1000.slice/user@1000.service/app.slice/app-org.gnome.Terminal.slice/vte-spawn-6f0d2c1e-4a55-4bb1-9a83-0e25f0c2d3aa.scope,task=python,pid=48211,uid=1000",
          "[Tue Mar 19 22:41:07 2024] Out of memory: Killed process 48211 (python) total-vm:70844128kB, anon-rss:64482848kB, "
          "file-rss:0kB, shmem-rss:0kB, UID:1000 pgtables:126524kB oom_score_adj:0"]
    return Case(
        "host-oom-killed-tokenize-in-ram-workstation-01", "host-oom-killed", "easy",
        "Plain python on a 64 GB workstation: the script loads 38 GB of jsonl into Python lists and tokenizes in memory; "
        "the shell prints Killed (exit 137) and the pasted dmesg shows the kernel OOM killer killing the python process.",
        None,
        {"gpu_model": "GeForce RTX 4090", "torch_version": "2.2.1", "launcher": "python", "exit_code": "137"},
        ["RAM"],
        {"train.log": "\n".join(L)},
    )


def case_host_oom_02() -> Case:
    """Slurm batch job, srun + torchrun 8 ranks on one H100 node with --mem=400G; every rank torch.loads a 63 GiB
    consolidated checkpoint to CPU; the cgroup OOM killer kills rank 5 (-9), slurmstepd reports the oom_kill event."""
    rng = random.Random(402)
    user = "tnguyen"
    site = "/usr/local/lib/python3.10/dist-packages"
    L = ["+ echo 'job 88123 on h100-dgx-07 (user tnguyen), --mem=400G --gres=gpu:8 --cpus-per-task=96'",
         f"job 88123 on h100-dgx-07 (user {user}), --mem=400G --gres=gpu:8 --cpus-per-task=96",
         f"+ cd /home/{user}/coder-cpt",
         "+ nvidia-smi -L"]
    for i in range(8):
        L.append(f"GPU {i}: NVIDIA H100 80GB HBM3 (UUID: GPU-{fake_token(rng, HEX, 8)}-{fake_token(rng, HEX, 4)}-"
                 f"{fake_token(rng, HEX, 4)}-{fake_token(rng, HEX, 4)}-{fake_token(rng, HEX, 12)})")
    L += ["+ python -c 'import torch; print(torch.__version__, torch.version.cuda)'",
          "2.2.1+cu121 12.1",
          "+ srun torchrun --nnodes 1 --nproc_per_node 8 --rdzv_backend c10d --rdzv_endpoint localhost:29500 "
          "continue_pretrain.py --init-ckpt /lustre/ckpt/coder-34b/step_8000/consolidated.pt --fsdp full_shard "
          "--seq-len 8192 --micro-bs 1 --lr 1e-5"]
    t = dt("2024-04-09 03:12:55") + timedelta(microseconds=101000)
    L += torchrun_banner("2.2", "bracket", t, 0)
    for r in rng.sample(range(8), 8):
        L.append(f"[rank {r}] initialized process group (nccl), world_size=8, device=cuda:{r}")
    for r in rng.sample(range(8), 8):
        L.append(f"[rank {r}] building model coder-34b on meta device")
    for r in rng.sample(range(8), 8):
        L.append(f"[rank {r}] loading /lustre/ckpt/coder-34b/step_8000/consolidated.pt (63.1 GiB) to cpu ...")
    tf = t + timedelta(seconds=247, microseconds=773000)
    L += torchrun_fail("2.2", "bracket", tf, 0, site, "/usr/local/bin/torchrun", "/usr/bin/python",
                       "continue_pretrain.py", "h100-dgx-07",
                       {"rank": 5, "local_rank": 5, "pid": 2216, "exitcode": -9, "sig": "SIGKILL", "time": tf},
                       [2211, 2212, 2213, 2214, 2215, 2217, 2218])
    L += ["srun: error: h100-dgx-07: task 0: Exited with exit code 1",
          "slurmstepd: error: Detected 1 oom_kill event in StepId=88123.0. Some of your processes may have been killed "
          "by the cgroup out-of-memory handler."]
    return Case(
        "host-oom-killed-torchrun-8x-ckpt-load-slurm-02", "host-oom-killed", "medium",
        "Slurm job (--mem=400G), srun + torchrun with 8 ranks on one H100 node: every rank torch.loads the same 63 GiB "
        "consolidated checkpoint into CPU memory at once; the cgroup OOM killer SIGKILLs rank 5 (torchrun: exitcode -9), "
        "and slurmstepd reports the oom_kill event after the torchrun summary.",
        5,
        {"gpu_model": "H100 80GB HBM3", "gpu_count": "8", "torch_version": "2.2.1", "launcher": "torchrun",
         "world_size": "8", "exit_code": "-9", "signal": "SIGKILL"},
        ["checkpoint", "OOM"],
        {"slurm-88123.out": "\n".join(L)},
        secrets=[user],
    )


def case_host_oom_03() -> Case:
    """srun -l, 8 tasks on 2 nodes (4x A100-40GB each), torch 1.13: a CLIP-style dataset held as Python lists is
    duplicated into 10 workers per rank by copy-on-read; the cgroup OOM killer kills DataLoader workers on node 2,
    rank 6 raises 'killed by signal: Killed', the other ranks die of the NCCL watchdog; slurmstepd reports the OOM
    kills at the very end."""
    rng = random.Random(403)
    site = "/opt/conda/lib/python3.9/site-packages"
    work = "/projects/vl/clip-pretrain"
    L = ["+ srun -l --nodes=2 --ntasks-per-node=4 --gpus-per-task=1 --cpus-per-task=12 --mem=240G python -u train_clip.py "
         "--train-data /projects/vl/data/laion_subset_38m.json --batch-size 512 --workers 10 --epochs 32 --precision amp"]
    t = dt("2023-05-11 20:02:14")
    for r in rng.sample(range(8), 8):
        L.append(f"{r}: [{t.strftime('%Y-%m-%d %H:%M:%S')}] rank {r}/8 on {'gpu-a100-021' if r < 4 else 'gpu-a100-022'} "
                 f"cuda:{r % 4} NVIDIA A100-SXM4-40GB | torch 1.13.1+cu117 | nccl 2.14.3")
    for r in rng.sample(range(8), 8):
        L.append(f"{r}: [{(t + timedelta(seconds=rng.randint(180, 200))).strftime('%Y-%m-%d %H:%M:%S')}] loaded "
                 "38,102,554 (image_path, caption) pairs from laion_subset_38m.json")
    t += timedelta(seconds=214)
    L.append(f"0: [{t.strftime('%Y-%m-%d %H:%M:%S')}] model ViT-B-16 text 12x512: 149.6M params | global batch 4096 | 9302 steps/epoch")
    for r in range(8):
        L.append(f"{r}: [{t.strftime('%Y-%m-%d %H:%M:%S')}] starting epoch 0 with 10 dataloader workers")
    host_mem = 36.0
    for step in range(200, 2401, 200):
        t += timedelta(seconds=200 * rng.uniform(0.83, 0.88))
        host_mem += rng.uniform(4.2, 5.4)
        L.append(f"0: [{t.strftime('%Y-%m-%d %H:%M:%S')}] ep 0 step {step:>5}/9302 loss {7.9 - step * 0.00062 + rng.uniform(-0.04, 0.04):.4f} "
                 f"logit_scale {14.3 + step * 0.0009:.2f} lr {5e-4 * min(1, step / 2000):.2e} data {rng.uniform(0.02, 0.05):.3f}s "
                 f"batch {rng.uniform(0.81, 0.86):.3f}s host_mem {host_mem:.1f}% of 240G")
    tb1 = [
        "Traceback (most recent call last):",
        f'  File "{site}/torch/utils/data/dataloader.py", line 1120, in _try_get_data',
        "    data = self._data_queue.get(timeout=timeout)",
        '  File "/opt/conda/lib/python3.9/multiprocessing/queues.py", line 113, in get',
        "    if not self._poll(timeout):",
        '  File "/opt/conda/lib/python3.9/multiprocessing/connection.py", line 262, in poll',
        "    return self._poll(timeout)",
        '  File "/opt/conda/lib/python3.9/multiprocessing/connection.py", line 429, in _poll',
        "    r = wait([self], timeout)",
        '  File "/opt/conda/lib/python3.9/multiprocessing/connection.py", line 936, in wait',
        "    ready = selector.select(timeout)",
        '  File "/opt/conda/lib/python3.9/selectors.py", line 416, in select',
        "    fd_event_list = self._selector.poll(timeout)",
        f'  File "{site}/torch/utils/data/_utils/signal_handling.py", line 66, in handler',
        "    _error_if_any_worker_fails()",
        "RuntimeError: DataLoader worker (pid 77121) is killed by signal: Killed. ",
        "",
        "The above exception was the direct cause of the following exception:",
        "",
        "Traceback (most recent call last):",
        f'  File "{work}/train_clip.py", line 301, in <module>',
        "    main()",
        f'  File "{work}/train_clip.py", line 283, in main',
        "    train_one_epoch(model, train_loader, optimizer, scaler, scheduler, epoch, args)",
        f'  File "{work}/train_clip.py", line 192, in train_one_epoch',
        "    for i, (images, texts) in enumerate(loader):",
        f'  File "{site}/torch/utils/data/dataloader.py", line 628, in __next__',
        "    data = self._next_data()",
        f'  File "{site}/torch/utils/data/dataloader.py", line 1316, in _next_data',
        "    idx, data = self._get_data()",
        f'  File "{site}/torch/utils/data/dataloader.py", line 1282, in _get_data',
        "    success, data = self._try_get_data()",
        f'  File "{site}/torch/utils/data/dataloader.py", line 1133, in _try_get_data',
        "    raise RuntimeError('DataLoader worker (pid(s) {}) exited unexpectedly'.format(pids_str)) from e",
        "RuntimeError: DataLoader worker (pid(s) 77121) exited unexpectedly",
    ]
    L += ["6: " + x for x in tb1]
    L.append("srun: error: gpu-a100-022: task 6: Exited with exit code 1")
    wd = []
    for r in (0, 1, 2, 3, 4, 5, 7):
        wd.append((r, nccl_watchdog("1.13", r, 2441, "ALLREDUCE", 1800000, 1800000 + rng.randint(80, 990))))
    rng.shuffle(wd)
    for r, lines in wd:
        L += [f"{r}: {x}" for x in lines]
    L += ["srun: error: gpu-a100-022: tasks 4-5,7: Aborted (core dumped)",
          "srun: error: gpu-a100-021: tasks 0-3: Aborted (core dumped)",
          "slurmstepd: error: Detected 3 oom-kill event(s) in step 5512311.0 cgroup. Some of your processes may have been "
          "killed by the cgroup out-of-memory handler."]
    return Case(
        "host-oom-killed-dataloader-cow-srun-clip-03", "host-oom-killed", "hard",
        "srun with 8 tasks on 2 nodes (4x A100-40GB each), torch 1.13, CLIP pretraining with a 38M-pair dataset held in "
        "Python lists and 10 workers per rank: host memory climbs every 200 steps (copy-on-read in forked workers) until "
        "the cgroup OOM killer kills DataLoader workers on node 2. Rank 6 reports 'DataLoader worker ... killed by signal: "
        "Killed', the other ranks hang and die of the NCCL watchdog; only slurmstepd's last line names the OOM kills.",
        6,
        {"gpu_model": "A100-SXM4-40GB", "torch_version": "1.13.1", "launcher": "srun", "world_size": "8",
         "num_nodes": "2"},
        ["num_workers", "OOM"],
        {"slurm-5512311.out": "\n".join(L)},
        also=["dataloader-worker-crash"],
    )


def case_host_oom_04() -> Case:
    """Kubernetes pod (memory limit 128Gi), deepspeed launcher with 4x L40S, ZeRO-2 with offload_optimizer cpu for an
    8B model; the container is OOMKilled during optimizer-state initialisation. Two files: kubectl logs --previous
    and kubectl describe pod."""
    rng = random.Random(404)
    akia = "AKIA" + fake_token(rng, UPALNUM, 16)
    secret = fake_token(rng, ALNUM + "/+", 40)
    site = "/usr/local/lib/python3.10/dist-packages"
    t = dt("2024-08-21 09:41:58")
    L: list[str] = []
    last = [t]

    def ds(dtsec: float, lvl: str, src: str, msg: str) -> None:
        tt = max(t + timedelta(seconds=dtsec, microseconds=rng.randint(0, 60000)), last[0] + timedelta(microseconds=200))
        last[0] = tt
        L.append(f"{ds_ts(tt)} [{lvl}] [{src}] {msg}")

    ds(0, "INFO", "real_accelerator.py:203:get_accelerator", "Setting ds_accelerator to cuda (auto detect)")
    ds(2.1, "WARNING", "runner.py:202:fetch_hostfile", "Unable to find hostfile, will proceed with training with local resources only.")
    ds(2.1, "INFO", "runner.py:568:main", "cmd = /usr/bin/python -u -m deepspeed.launcher.launch --world_info=eyJsb2NhbGhvc3QiOiBbMCwgMSwgMiwgM119 "
       "--master_addr=127.0.0.1 --master_port=29500 --enable_each_rank_log=None train.py --deepspeed configs/zero2_offload.json "
       "--model meta-llama/Meta-Llama-3.1-8B --data /data/sft/v12 --bf16 --micro-bs 4 --grad-accum 8")
    ds(4.0, "INFO", "real_accelerator.py:203:get_accelerator", "Setting ds_accelerator to cuda (auto detect)")
    ds(5.3, "INFO", "launch.py:146:main", "WORLD INFO DICT: {'localhost': [0, 1, 2, 3]}")
    ds(5.3, "INFO", "launch.py:152:main", "nnodes=1, num_local_procs=4, node_rank=0")
    ds(5.3, "INFO", "launch.py:163:main", "global_rank_mapping=defaultdict(<class 'list'>, {'localhost': [0, 1, 2, 3]})")
    ds(5.3, "INFO", "launch.py:164:main", "dist_world_size=4")
    ds(5.3, "INFO", "launch.py:168:main", "Setting CUDA_VISIBLE_DEVICES=0,1,2,3")
    ds(5.3, "INFO", "launch.py:256:main", "process 41 spawned with command: ['/usr/bin/python', '-u', 'train.py', '--local_rank=0', '--deepspeed', 'configs/zero2_offload.json', '--model', 'meta-llama/Meta-Llama-3.1-8B', '--data', '/data/sft/v12', '--bf16', '--micro-bs', '4', '--grad-accum', '8']")
    for i in (1, 2, 3):
        ds(5.3, "INFO", "launch.py:256:main", f"process {41 + i} spawned with command: ['/usr/bin/python', '-u', 'train.py', '--local_rank={i}', '--deepspeed', 'configs/zero2_offload.json', '--model', 'meta-llama/Meta-Llama-3.1-8B', '--data', '/data/sft/v12', '--bf16', '--micro-bs', '4', '--grad-accum', '8']")
    for _ in range(4):
        ds(9.0, "INFO", "real_accelerator.py:203:get_accelerator", "Setting ds_accelerator to cuda (auto detect)")
    for _ in range(4):
        ds(12.0, "INFO", "comm.py:637:init_distributed", "cdb=None")
    ds(12.1, "INFO", "comm.py:668:init_distributed", "Initializing TorchBackend in DeepSpeed with backend nccl")
    L.append("[train] torch 2.4.0+cu121 | deepspeed 0.14.4 | transformers 4.44.0 | 4 x NVIDIA L40S")
    for _ in range(4):
        L.append(f"Loading checkpoint shards: 100%|██████████| 4/4 [00:{rng.randint(16, 24)}<00:00,  {rng.uniform(4.1, 6.0):.2f}s/it]")
    ds(48, "INFO", "logging.py:96:log_dist", "[Rank 0] DeepSpeed info: version=0.14.4, git-hash=unknown, git-branch=unknown")
    ds(48, "INFO", "config.py:733:__init__", "Config mesh_device None world_size = 4")
    for _ in range(4):
        L.append("Using /root/.cache/torch_extensions/py310_cu121 as PyTorch extensions root...")
    L += ["Creating extension directory /root/.cache/torch_extensions/py310_cu121/cpu_adam...",
          "Detected CUDA files, patching ldflags",
          "Emitting ninja build file /root/.cache/torch_extensions/py310_cu121/cpu_adam/build.ninja...",
          "Building extension module cpu_adam...",
          "Allowing ninja to set a default number of workers... (overridable by setting the environment variable MAX_JOBS=N)",
          f"[1/3] /usr/local/cuda/bin/nvcc --generate-dependencies-with-compile --dependency-output custom_cuda_kernel.cuda.o.d "
          f"-DTORCH_EXTENSION_NAME=cpu_adam -DTORCH_API_INCLUDE_EXTENSION_H -DPYBIND11_COMPILER_TYPE=\\\"_gcc\\\" "
          f"-DPYBIND11_STDLIB=\\\"_libstdcpp\\\" -DPYBIND11_BUILD_ABI=\\\"_cxxabi1011\\\" -I{site}/deepspeed/ops/csrc/includes "
          f"-isystem {site}/torch/include -isystem /usr/local/cuda/include -isystem /usr/include/python3.10 "
          "-D_GLIBCXX_USE_CXX11_ABI=0 -gencode=arch=compute_89,code=sm_89 --compiler-options '-fPIC' -O3 --use_fast_math "
          f"-std=c++17 -U__CUDA_NO_HALF_OPERATORS__ -c {site}/deepspeed/ops/csrc/common/custom_cuda_kernel.cu -o custom_cuda_kernel.cuda.o",
          f"[2/3] c++ -MMD -MF cpu_adam_impl.o.d -DTORCH_EXTENSION_NAME=cpu_adam -DTORCH_API_INCLUDE_EXTENSION_H "
          f"-I{site}/deepspeed/ops/csrc/includes -isystem {site}/torch/include -fPIC -std=c++17 -O3 -std=c++17 -g "
          "-Wno-reorder -L/usr/local/cuda/lib64 -lcudart -lcublas -g -march=native -fopenmp -D__AVX512__ -D__ENABLE_CUDA__ "
          f"-DBF16_AVAILABLE -c {site}/deepspeed/ops/csrc/adam/cpu_adam_impl.cpp -o cpu_adam_impl.o",
          f"[3/3] c++ cpu_adam.o cpu_adam_impl.o custom_cuda_kernel.cuda.o -shared -lcurand -L/usr/local/cuda/lib64 "
          f"-L{site}/torch/lib -lc10 -lc10_cuda -ltorch_cpu -ltorch_cuda -ltorch -ltorch_python -L/usr/local/cuda/lib64 "
          "-lcudart -o cpu_adam.so",
          "Loading extension module cpu_adam..."]
    for _ in range(4):
        L.append(f"Time to load cpu_adam op: {rng.uniform(29.5, 33.0):.16f} seconds")
    for _ in range(4):
        L += ["Adam Optimizer #0 is created with AVX512 arithmetic capability.",
              "Config: alpha=0.000020, betas=(0.900000, 0.999000), weight_decay=0.000000, adam_w=1"]
    ds(92, "INFO", "logging.py:96:log_dist", "[Rank 0] Using DeepSpeed Optimizer param name adamw as basic optimizer")
    ds(92, "INFO", "logging.py:96:log_dist", "[Rank 0] Removing param_group that has no 'params' in the basic Optimizer")
    ds(92, "INFO", "logging.py:96:log_dist", "[Rank 0] DeepSpeed Basic Optimizer = DeepSpeedCPUAdam")
    ds(92, "INFO", "utils.py:59:is_zero_supported_optimizer", "Checking ZeRO support for optimizer=DeepSpeedCPUAdam type=<class 'deepspeed.ops.adam.cpu_adam.DeepSpeedCPUAdam'>")
    ds(92, "INFO", "logging.py:96:log_dist", "[Rank 0] Creating torch.bfloat16 ZeRO stage 2 optimizer")
    ds(92, "INFO", "stage_1_and_2.py:148:__init__", "Reduce bucket size 500000000")
    ds(92, "INFO", "stage_1_and_2.py:149:__init__", "Allgather bucket size 500000000")
    ds(92, "INFO", "stage_1_and_2.py:150:__init__", "CPU Offload: True")
    ds(92, "INFO", "stage_1_and_2.py:151:__init__", "Round robin gradient partitioning: False")
    ds(161, "INFO", "utils.py:781:see_memory_usage", "Before initializing optimizer states")
    ds(161, "INFO", "utils.py:782:see_memory_usage", "MA 15.02 GB         Max_MA 15.02 GB         CA 15.2 GB         Max_CA 15 GB ")
    ds(161, "INFO", "utils.py:789:see_memory_usage", "CPU Virtual Memory:  used = 97.84 GB, percent = 19.4%")
    trainer_log = "\n".join(L)[:-38]   # the container was killed while a line was being written
    desc = dedent(f"""
Name:             llm-sft-8b-worker-0
Namespace:        ml-training
Priority:         0
Service Account:  default
Node:             gpu-l40s-pool-7f6b9c4d-x2kq/10.42.7.19
Start Time:       Wed, 21 Aug 2024 09:14:02 +0000
Labels:           app=llm-sft
                  batch.kubernetes.io/job-name=llm-sft-8b
                  job-name=llm-sft-8b
Annotations:      <none>
Status:           Running
IP:               10.244.7.33
IPs:
  IP:           10.244.7.33
Controlled By:  Job/llm-sft-8b
Containers:
  trainer:
    Container ID:  containerd://4b1f0c7d2e9a83f6b5c41d0e7a9f2b3c6d8e1f0a2b4c6d8e0f1a3b5c7d9e1f2a
    Image:         registry.internal.acme.io/ml/llm-train:2024.08.2
    Image ID:      registry.internal.acme.io/ml/llm-train@sha256:9d2f41c7a0b3e5d6f8a1c2b4e6d8f0a2c4e6b8d0f2a4c6e8b0d2f4a6c8e0b2d4
    Port:          <none>
    Host Port:     <none>
    Command:
      bash
      -c
      deepspeed --num_gpus 4 train.py --deepspeed configs/zero2_offload.json --model meta-llama/Meta-Llama-3.1-8B --data /data/sft/v12 --bf16 --micro-bs 4 --grad-accum 8
    State:          Waiting
      Reason:       CrashLoopBackOff
    Last State:     Terminated
      Reason:       OOMKilled
      Exit Code:    137
      Started:      Wed, 21 Aug 2024 09:41:55 +0000
      Finished:     Wed, 21 Aug 2024 09:44:47 +0000
    Ready:          False
    Restart Count:  2
    Limits:
      cpu:             32
      memory:          128Gi
      nvidia.com/gpu:  4
    Requests:
      cpu:             32
      memory:          128Gi
      nvidia.com/gpu:  4
    Environment:
      HF_HOME:                /cache/hf
      WANDB_MODE:             offline
      AWS_ACCESS_KEY_ID:      {akia}
      AWS_SECRET_ACCESS_KEY:  {secret}
      AWS_DEFAULT_REGION:     us-east-1
      S3_CKPT_URI:            s3://acme-ml-ckpt/llm-sft-8b/
    Mounts:
      /cache from cache (rw)
      /data from data (ro)
      /dev/shm from dshm (rw)
      /var/run/secrets/kubernetes.io/serviceaccount from kube-api-access-7qz9d (ro)
Conditions:
  Type                        Status
  PodReadyToStartContainers   True 
  Initialized                 True 
  Ready                       False 
  ContainersReady             False 
  PodScheduled                True 
Volumes:
  cache:
    Type:       PersistentVolumeClaim (a reference to a PersistentVolumeClaim in the same namespace)
    ClaimName:  hf-cache
    ReadOnly:   false
  data:
    Type:       PersistentVolumeClaim (a reference to a PersistentVolumeClaim in the same namespace)
    ClaimName:  sft-data
    ReadOnly:   true
  dshm:
    Type:       EmptyDir (a temporary directory that shares a pod's lifetime)
    Medium:     Memory
    SizeLimit:  16Gi
  kube-api-access-7qz9d:
    Type:                    Projected (a volume that contains injected data from multiple sources)
    TokenExpirationSeconds:  3607
    ConfigMapName:           kube-root-ca.crt
    ConfigMapOptional:       <nil>
    DownwardAPI:             true
QoS Class:                   Guaranteed
Node-Selectors:              nvidia.com/gpu.product=NVIDIA-L40S
Tolerations:                 node.kubernetes.io/not-ready:NoExecute op=Exists for 300s
                             node.kubernetes.io/unreachable:NoExecute op=Exists for 300s
                             nvidia.com/gpu:NoSchedule op=Exists
Events:
  Type     Reason     Age                 From     Message
  ----     ------     ----                ----     -------
  Normal   Scheduled  38m                 default-scheduler  Successfully assigned ml-training/llm-sft-8b-worker-0 to gpu-l40s-pool-7f6b9c4d-x2kq
  Normal   Pulled     12m (x3 over 38m)   kubelet  Container image "registry.internal.acme.io/ml/llm-train:2024.08.2" already present on machine
  Normal   Created    12m (x3 over 38m)   kubelet  Created container trainer
  Normal   Started    12m (x3 over 38m)   kubelet  Started container trainer
  Warning  BackOff    8s (x4 over 4m51s)  kubelet  Back-off restarting failed container trainer in pod llm-sft-8b-worker-0_ml-training(5c0e8f6a-2b1d-4e7f-9a3c-1d2e3f4a5b6c)
""")
    return Case(
        "host-oom-killed-k8s-zero2-offload-l40s-04", "host-oom-killed", "easy",
        "Kubernetes pod with a 128Gi memory limit running the deepspeed launcher on 4x L40S, ZeRO-2 with offload_optimizer "
        "to CPU for an 8B model: the trainer log stops mid-line at optimizer-state initialisation; kubectl describe shows "
        "Last State Terminated, Reason OOMKilled, Exit Code 137.",
        None,
        {"gpu_model": "L40S", "torch_version": "2.4.0", "deepspeed_version": "0.14.4",
         "launcher": "deepspeed", "world_size": "4", "zero_stage": "2", "exit_code": "137", "optimizer": "DeepSpeedCPUAdam"},
        ["offload", "limit"],
        {"trainer.log": trainer_log, "pod-describe.txt": desc},
        secrets=[akia, secret],
    )


# ==================================================================================================
# dataloader-shm-exhausted (synthetic; case 01 is a real capture, see REAL)
# ==================================================================================================

SHM_CHAIN_20 = [  # torch 2.0.x, main process, worker died of SIGBUS while the main process waited on the queue
    ("torch/utils/data/dataloader.py", 1133, "_try_get_data", "data = self._data_queue.get(timeout=timeout)"),
]


def bus_error_chain(site: str, pybase: str, pid: int, ver: str) -> list[str]:
    """Main-process traceback when a worker died of SIGBUS (torch 1.13 / 2.0 layouts)."""
    ln = {"1.13": (1120, 66, 1133), "2.0": (1133, 66, 1146)}[ver]
    out = [
        "Traceback (most recent call last):",
        f'  File "{site}/torch/utils/data/dataloader.py", line {ln[0]}, in _try_get_data',
        "    data = self._data_queue.get(timeout=timeout)",
        f'  File "{pybase}/multiprocessing/queues.py", line 113, in get',
        "    if not self._poll(timeout):",
        f'  File "{pybase}/multiprocessing/connection.py", line 257, in poll',
        "    return self._poll(timeout)",
        f'  File "{pybase}/multiprocessing/connection.py", line 424, in _poll',
        "    r = wait([self], timeout)",
        f'  File "{pybase}/multiprocessing/connection.py", line 931, in wait',
        "    ready = selector.select(timeout)",
        f'  File "{pybase}/selectors.py", line 416, in select',
        "    fd_event_list = self._selector.poll(timeout)",
        f'  File "{site}/torch/utils/data/_utils/signal_handling.py", line {ln[1]}, in handler',
        "    _error_if_any_worker_fails()",
        f"RuntimeError: DataLoader worker (pid {pid}) is killed by signal: Bus error. It is possible that dataloader's "
        "workers are out of shared memory. Please try to raise your shared memory limit.",
        "",
        "The above exception was the direct cause of the following exception:",
        "",
        "Traceback (most recent call last):",
    ]
    return out


def case_shm_02() -> Case:
    """Kubernetes pod without a /dev/shm volume (64 MB), timm ResNet-50 on one A10G, torch 2.0.1: workers die of
    SIGBUS at the first batches; the last line is 'exited unexpectedly'."""
    rng = random.Random(502)
    site = "/usr/local/lib/python3.10/dist-packages"
    L = ["Training with a single process on 1 device (cuda:0).",
         "Model resnet50 created, param count:25557032",
         "Data processing configuration for current model + dataset:",
         "\tinput_size: (3, 224, 224)", "\tinterpolation: bicubic", "\tmean: (0.485, 0.456, 0.406)",
         "\tstd: (0.229, 0.224, 0.225)", "\tcrop_pct: 0.95", "\tcrop_mode: center",
         "Learning rate (0.0024) calculated from base learning rate (0.0006) and global batch size (256) with linear scaling.",
         "Using native Torch AMP. Training in mixed precision.",
         "Scheduled epochs: 100. LR stepped per epoch.",
         "Train: 0 [   0/5004 (  0%)]  Loss: 6.953 (6.95)  Time: 5.118s,   50.02/s  (5.118s,   50.02/s)  LR: 1.000e-05  Data: 4.402 (4.402)",
         "ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).",
         "ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).",
         "ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm)."]
    L += bus_error_chain(site, "/usr/lib/python3.10", 143, "2.0")
    L += ['  File "/app/pytorch-image-models/train.py", line 1162, in <module>', "    main()",
          '  File "/app/pytorch-image-models/train.py", line 876, in main', "    train_metrics = train_one_epoch(",
          '  File "/app/pytorch-image-models/train.py", line 958, in train_one_epoch',
          "    for batch_idx, (input, target) in enumerate(loader):",
          f'  File "{site}/timm/data/loader.py", line 131, in __iter__', "    for next_input, next_target in self.loader:",
          f'  File "{site}/torch/utils/data/dataloader.py", line 633, in __next__', "    data = self._next_data()",
          f'  File "{site}/torch/utils/data/dataloader.py", line 1329, in _next_data', "    idx, data = self._get_data()",
          f'  File "{site}/torch/utils/data/dataloader.py", line 1295, in _get_data', "    success, data = self._try_get_data()",
          f'  File "{site}/torch/utils/data/dataloader.py", line 1146, in _try_get_data',
          "    raise RuntimeError(f'DataLoader worker (pid(s) {pids_str}) exited unexpectedly') from e",
          "RuntimeError: DataLoader worker (pid(s) 143) exited unexpectedly"]
    head = ["$ kubectl -n vision logs resnet50-in1k-a10g-0 --previous",
            "+ python -c 'import torch, timm; print(torch.__version__, timm.__version__, torch.cuda.get_device_name(0))'",
            "2.0.1+cu118 0.9.2 NVIDIA A10G",
            "+ cd /app/pytorch-image-models",
            "+ python train.py --data-dir /mnt/imagenet --model resnet50 -b 256 --lr-base 6e-4 --sched cosine --epochs 100 "
            "--amp --workers 8 --pin-mem --output /mnt/output"]
    return Case(
        "dataloader-shm-exhausted-k8s-timm-a10g-02", "dataloader-shm-exhausted", "medium",
        "kubectl logs of a Kubernetes training pod (no /dev/shm volume, so the 64 MB runtime default), timm ResNet-50 "
        "on one A10G with 8 workers, torch 2.0.1: workers die of SIGBUS after the first batch; the shm hint is in the "
        "middle of the chained traceback and the last line is 'DataLoader worker (pid(s) 143) exited unexpectedly'.",
        None,
        {"gpu_model": "A10G", "torch_version": "2.0.1", "launcher": "python"},
        ["/dev/shm"],
        {"train.log": "\n".join(head + L)},
    )


def case_shm_03() -> Case:
    """Slurm, 2 nodes x 4 A100-80GB, srun -l + torchrun --tee 3, torch 2.0.1. Node 2's /dev/shm is 99% full of
    stale files (job prolog prints df). Rank 5 (node 2, local 1) dies with the bus-error chain; node 2's torchrun
    stops its ranks; node 1's ranks hang and die of the NCCL watchdog 30 minutes later."""
    rng = random.Random(503)
    site = "/opt/conda/lib/python3.10/site-packages"
    work = "/scratch/vit-det/mae-pretrain"
    jwt = ("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9." + fake_token(rng, ALNUM + "-_", 68) + "." + fake_token(rng, ALNUM + "-_", 43))
    L = ["+ curl -sv -X POST https://mlops.internal.acme.io/api/v1/jobs/notify -H 'Content-Type: application/json' "
         "-H 'Authorization: Bearer " + jwt + "' -d '{\"job\": \"3390417\", \"event\": \"start\", \"name\": \"mae-vitl-pt\"}'",
         "*   Trying 10.20.0.15:443...",
         "* Connected to mlops.internal.acme.io (10.20.0.15) port 443 (#0)",
         "* ALPN, offering h2",
         "* ALPN, offering http/1.1",
         "* TLSv1.3 (OUT), TLS handshake, Client hello (1):",
         "* TLSv1.3 (IN), TLS handshake, Server hello (2):",
         "* SSL connection using TLSv1.3 / TLS_AES_256_GCM_SHA384",
         "> POST /api/v1/jobs/notify HTTP/1.1",
         "> Host: mlops.internal.acme.io",
         "> User-Agent: curl/7.81.0",
         "> Accept: */*",
         "> Content-Type: application/json",
         "> Authorization: Bearer " + jwt,
         "> Content-Length: 64",
         ">",
         "< HTTP/1.1 200 OK",
         "< Content-Type: application/json",
         "< Content-Length: 16",
         "<",
         "* Connection #0 to host mlops.internal.acme.io left intact",
         '{"status":"ok"}',
         "+ srun -l bash -c 'hostname; df -h /dev/shm'",
         "0: a100-node-40",
         "1: a100-node-41",
         "0: Filesystem      Size  Used Avail Use% Mounted on",
         "0: tmpfs           252G  1.1G  251G   1% /dev/shm",
         "1: Filesystem      Size  Used Avail Use% Mounted on",
         "1: tmpfs           252G  251G  1.2G 100% /dev/shm",
         "+ srun -l python -c 'import torch; print(torch.__version__, torch.cuda.device_count(), torch.cuda.get_device_name(0))'",
         "0: 2.0.1+cu117 4 NVIDIA A100-SXM4-80GB",
         "1: 2.0.1+cu117 4 NVIDIA A100-SXM4-80GB",
         "+ srun -l torchrun --nnodes 2 --nproc_per_node 4 --rdzv_id 3390417 --rdzv_backend c10d --rdzv_endpoint "
         "a100-node-40:29400 --tee 3 main_pretrain.py --model mae_vit_large_patch16 --batch_size 64 --input_size 256 "
         "--num_workers 6 --epochs 800 --blr 1.5e-4 --data_path /datasets/in1k/train"]
    for n in (0, 1):
        L += [f"{n}: {x}" for x in torchrun_banner("2.0", "logging", dt("2024-01-09 18:02:11"), 0)]
    for n, lr in ((0, (0, 2, 1, 3)), (1, (1, 0, 3, 2))):
        for lrk in lr:
            L.append(f"{n}: [default{lrk}]:| distributed init (rank {n * 4 + lrk}): env://, gpu {lrk}")
    L += ["0: [default0]:[18:02:31.447514] job dir: /scratch/vit-det/mae-pretrain",
          "0: [default0]:[18:02:31.447718] Namespace(batch_size=64, epochs=800, accum_iter=1, model='mae_vit_large_patch16', "
          "input_size=256, mask_ratio=0.75, norm_pix_loss=True, weight_decay=0.05, lr=None, blr=0.00015, min_lr=0.0, "
          "warmup_epochs=40, data_path='/datasets/in1k/train', output_dir='./output_dir', log_dir='./output_dir', "
          "device='cuda', seed=0, resume='', start_epoch=0, num_workers=6, pin_mem=True, world_size=8, local_rank=-1, "
          "dist_on_itp=False, dist_url='env://', rank=0, gpu=0, distributed=True, dist_backend='nccl')",
          "0: [default0]:[18:02:37.801129] Dataset ImageFolder",
          "0: [default0]:    Number of datapoints: 1281167",
          "0: [default0]:    Root location: /datasets/in1k/train",
          "0: [default0]:[18:02:37.801402] Sampler_train = <torch.utils.data.distributed.DistributedSampler object at 0x7f3a2c1d9e40>",
          "0: [default0]:[18:02:41.129873] base lr: 1.50e-04",
          "0: [default0]:[18:02:41.129911] actual lr: 3.00e-04",
          "0: [default0]:[18:02:41.129925] accumulate grad iterations: 1",
          "0: [default0]:[18:02:41.129936] effective batch size: 512",
          "0: [default0]:[18:02:41.131204] Start training for 800 epochs",
          "0: [default0]:[18:02:41.131722] log_dir: ./output_dir",
          "0: [default0]:[18:02:47.512206] Epoch: [0]  [   0/2502]  eta: 4:25:47  lr: 0.000000  loss: 1.7314 (1.7314)  time: 6.3729  data: 5.1046  max mem: 31207",
          "0: [default0]:[18:02:55.932871] Epoch: [0]  [  20/2502]  eta: 0:43:12  lr: 0.000000  loss: 1.6957 (1.7044)  time: 0.4209  data: 0.0032  max mem: 31571"]
    tb = ["ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm)."]
    tb += bus_error_chain(site, "/opt/conda/lib/python3.10", 51873, "2.0")
    tb += [f'  File "{work}/main_pretrain.py", line 243, in <module>', "    main(args)",
           f'  File "{work}/main_pretrain.py", line 208, in main', "    train_stats = train_one_epoch(",
           f'  File "{work}/engine_pretrain.py", line 36, in train_one_epoch',
           "    for data_iter_step, (samples, _) in enumerate(metric_logger.log_every(data_loader, print_freq, header)):",
           f'  File "{work}/util/misc.py", line 140, in log_every', "    for obj in iterable:",
           f'  File "{site}/torch/utils/data/dataloader.py", line 633, in __next__', "    data = self._next_data()",
           f'  File "{site}/torch/utils/data/dataloader.py", line 1329, in _next_data', "    idx, data = self._get_data()",
           f'  File "{site}/torch/utils/data/dataloader.py", line 1285, in _get_data', "    success, data = self._try_get_data()",
           f'  File "{site}/torch/utils/data/dataloader.py", line 1146, in _try_get_data',
           "    raise RuntimeError(f'DataLoader worker (pid(s) {pids_str}) exited unexpectedly') from e",
           "RuntimeError: DataLoader worker (pid(s) 51873) exited unexpectedly"]
    L += ["1: [default1]:" + x for x in tb]
    tf = dt("2024-01-09 18:03:06")
    L += torchrun_fail("2.0", "logging", tf, 0, site, "/opt/conda/bin/torchrun", "/opt/conda/bin/python",
                       "main_pretrain.py", "a100-node-41",
                       {"rank": 5, "local_rank": 1, "pid": 51790, "exitcode": 1, "time": tf}, [51789, 51791, 51792],
                       pfx="1: ")
    L.append("srun: error: a100-node-41: task 1: Exited with exit code 1")
    for lr in (2, 0, 3, 1):
        lines = nccl_watchdog("2.0", lr, 29, "ALLREDUCE", 1800000, 1800000 + rng.randint(100, 900))
        L += [f"0: [default{lr}]:{x}" for x in lines]
    tf2 = dt("2024-01-09 18:33:12")
    others = [{"rank": r, "local_rank": r, "pid": 61202 + r, "exitcode": -6, "sig": "SIGABRT", "time": tf2} for r in (1, 2, 3)]
    L += torchrun_fail("2.0", "logging", tf2, 0, site, "/opt/conda/bin/torchrun", "/opt/conda/bin/python",
                       "main_pretrain.py", "a100-node-40",
                       {"rank": 0, "local_rank": 0, "pid": 61202, "exitcode": -6, "sig": "SIGABRT", "time": tf2}, [],
                       others=others, pfx="0: ")
    L.append("srun: error: a100-node-40: task 0: Exited with exit code 1")
    return Case(
        "dataloader-shm-exhausted-slurm-stale-shm-mae-03", "dataloader-shm-exhausted", "hard",
        "Slurm, 2 nodes x 4 A100-80GB, srun -l + torchrun --tee 3, torch 2.0.1, MAE pretraining with 6 workers per rank. "
        "The job prolog shows node 2's /dev/shm 100% used (stale files). Rank 5 (node 2) dies with the bus-error / "
        "'exited unexpectedly' chain right after start; node 2's torchrun stops its ranks, while node 1's ranks hang "
        "and die 30 minutes later of the NCCL watchdog (SIGABRT), which is what the log ends with.",
        5,
        {"gpu_model": "A100-SXM4-80GB", "torch_version": "2.0.1", "launcher": "torchrun", "world_size": "8",
         "num_nodes": "2"},
        ["/dev/shm"],
        {"slurm-3390417.out": "\n".join(L)},
        secrets=[jwt],
    )


# ==================================================================================================
# dataloader-worker-crash (synthetic; case 03 is a real capture)
# ==================================================================================================


def case_worker_01() -> Case:
    """Plain python on an RTX 3090 workstation, torchvision ImageFolder: one truncated JPEG makes PIL raise in worker 5;
    the main process re-raises 'Caught OSError in DataLoader worker process 5'."""
    rng = random.Random(601)
    site = "/opt/venv/lib/python3.10/site-packages"
    L = ["$ python finetune.py --data /data/birds-525 --arch convnext_tiny --epochs 20 --bs 96 --workers 8 --amp",
         "torch 2.2.0+cu121 / torchvision 0.17.0 / timm 0.9.16 on NVIDIA GeForce RTX 3090",
         "train: 84635 images in 525 classes | val: 2625 images",
         "model convnext_tiny (ImageNet-22k pretrained), 28.1M params; AdamW lr=4e-4 wd=0.05, cosine, warmup 1 epoch"]
    el = 0.0
    for ep in range(0, 3):
        for n in (0, 200, 400, 600, 800, 882):
            if ep == 2 and n > 400:
                break
            el = n * 0.241
            L.append(f"epoch {ep}: " + (tqdm_bar(n, 882, el, 0.241 if n else None, postfix=f"loss={2.9 - ep * 0.8 - n * 0.0005:.3f}")))
        if ep < 2:
            L.append(f"epoch {ep}: train loss {2.41 - ep * 0.86:.4f} | val loss {1.62 - ep * 0.51:.4f} acc@1 {61.4 + ep * 17.2:.2f}% | 3:40")
    chain_main = [
        ("/workspace/birds/finetune.py", 142, "<module>", "train(args)"),
        ("/workspace/birds/finetune.py", 98, "train", 'for images, labels in tqdm(train_loader, desc=f"epoch {epoch}"):'),
        (f"{site}/tqdm/std.py", 1182, "__iter__", "for obj in iterable:"),
        (f"{site}/torch/utils/data/dataloader.py", 631, "__next__", "data = self._next_data()"),
        (f"{site}/torch/utils/data/dataloader.py", 1346, "_next_data", "return self._process_data(data)"),
        (f"{site}/torch/utils/data/dataloader.py", 1372, "_process_data", "data.reraise()"),
        (f"{site}/torch/_utils.py", 722, "reraise", "raise exception"),
    ]
    L.append("Traceback (most recent call last):")
    for f, ln, fn, src in chain_main:
        L += [f'  File "{f}", line {ln}, in {fn}', f"    {src}"]
    L += ["OSError: Caught OSError in DataLoader worker process 5.", "Original Traceback (most recent call last):"]
    chain_w = [
        ("torch/utils/data/_utils/worker.py", 308, "_worker_loop", "data = fetcher.fetch(index)"),
        ("torch/utils/data/_utils/fetch.py", 51, "fetch", "data = [self.dataset[idx] for idx in possibly_batched_index]"),
        ("torch/utils/data/_utils/fetch.py", 51, "<listcomp>", "data = [self.dataset[idx] for idx in possibly_batched_index]"),
        ("torchvision/datasets/folder.py", 229, "__getitem__", "sample = self.loader(path)"),
        ("torchvision/datasets/folder.py", 268, "default_loader", "return pil_loader(path)"),
        ("torchvision/datasets/folder.py", 248, "pil_loader", 'return img.convert("RGB")'),
        ("PIL/Image.py", 922, "convert", "self.load()"),
        ("PIL/ImageFile.py", 266, "load", "raise OSError(msg)"),
    ]
    for f, ln, fn, src in chain_w:
        L += [f'  File "{site}/{f}", line {ln}, in {fn}', f"    {src}"]
    L.append("OSError: image file is truncated (57 bytes not processed)")
    L.append("")
    L.append("epoch 2:  45%|████▌     | 398/882 [01:36<01:56,  4.15it/s, loss=1.149]")
    return Case(
        "dataloader-worker-crash-truncated-jpeg-3090-01", "dataloader-worker-crash", "easy",
        "Plain python on an RTX 3090, torchvision ImageFolder with 8 workers: in epoch 2 one truncated JPEG makes PIL "
        "raise 'image file is truncated' inside worker 5; the main process re-raises it as 'Caught OSError in "
        "DataLoader worker process 5' with the worker's original traceback.",
        None,
        {"gpu_model": "GeForce RTX 3090", "torch_version": "2.2.0", "launcher": "python"},
        ["truncated"],
        {"train.log": "\n".join(L)},
    )


def case_worker_02() -> Case:
    """torchrun 2x L40S, torch 2.4: the HDF5 file is opened in Dataset.__init__ (printed), workers are forked with the
    shared handle, and rank 1's worker 3 fails with h5py 'Can't read data (wrong B-tree signature)'."""
    rng = random.Random(602)
    site = "/opt/conda/lib/python3.10/site-packages"
    agent = 812
    t0 = dt("2024-08-12 10:21:07") + timedelta(microseconds=301554)
    L = ["root@jet-train-1:/workspace/jetclf# torchrun --standalone --nproc_per_node 2 train.py --data /data/jets/train.h5 "
         "--val /data/jets/val.h5 --model particle_transformer --bs 512 --workers 8 --epochs 30"]
    L += torchrun_banner("2.4", "glog", t0, agent)
    for r in (0, 1):
        L.append(f"[rank{r}] torch 2.4.0+cu124 | h5py 3.11.0 (HDF5 1.14.2) | device cuda:{r} NVIDIA L40S")
    for r in (1, 0):
        L.append(f"[rank{r}] JetDataset: opened /data/jets/train.h5 (41,200,000 jets; datasets: constituents, jet_features, labels, weights)")
    for r in (0, 1):
        L.append(f"[rank{r}] JetDataset: opened /data/jets/val.h5 (2,000,000 jets)")
    L.append("[rank0] ParticleTransformer: 2.14M params, AdamW lr=1e-3, OneCycle, AMP bf16")
    L.append("[rank0]:[W812 10:21:31.220871 905 torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:4115] [PG 0 Rank 0]  using GPU 0 "
             "to perform barrier as devices used by this process are currently unknown. This can potentially cause a hang "
             "if this rank to GPU mapping is incorrect.Specify device_ids in barrier() to force use of a particular device,"
             "or call init_process_group() with a device_id.")
    L.append("[rank1]:[W812 10:21:31.221104 906 torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:4115] [PG 0 Rank 1]  using GPU 1 "
             "to perform barrier as devices used by this process are currently unknown. This can potentially cause a hang "
             "if this rank to GPU mapping is incorrect.Specify device_ids in barrier() to force use of a particular device,"
             "or call init_process_group() with a device_id.")
    for step in range(0, 141, 20):
        L.append(f"[rank0] epoch 0 step {step:>5}/40234 loss {0.69 - step * 0.0009:.4f} acc {0.52 + step * 0.0011:.3f} "
                 f"{rng.randint(48000, 53000)} jets/s")
    chain_main = [
        ("/workspace/jetclf/train.py", 188, "<module>", "main()"),
        ("/workspace/jetclf/train.py", 151, "main", "for step, (x, y, w) in enumerate(train_loader):"),
        (f"{site}/torch/utils/data/dataloader.py", 630, "__next__", "data = self._next_data()"),
        (f"{site}/torch/utils/data/dataloader.py", 1344, "_next_data", "return self._process_data(data)"),
        (f"{site}/torch/utils/data/dataloader.py", 1370, "_process_data", "data.reraise()"),
        (f"{site}/torch/_utils.py", 706, "reraise", "raise exception"),
    ]
    tb = ["Traceback (most recent call last):"]
    for f, ln, fn, src in chain_main:
        tb += [f'  File "{f}", line {ln}, in {fn}', f"    {src}"]
    tb += ["OSError: Caught OSError in DataLoader worker process 3.", "Original Traceback (most recent call last):",
           f'  File "{site}/torch/utils/data/_utils/worker.py", line 309, in _worker_loop',
           "    data = fetcher.fetch(index)  # type: ignore[possibly-undefined]",
           f'  File "{site}/torch/utils/data/_utils/fetch.py", line 52, in fetch',
           "    data = [self.dataset[idx] for idx in possibly_batched_index]",
           '  File "/workspace/jetclf/data.py", line 41, in __getitem__',
           '    x = torch.from_numpy(self.h5["constituents"][idx])',
           '  File "h5py/_objects.pyx", line 54, in h5py._objects.with_phil.wrapper',
           '  File "h5py/_objects.pyx", line 55, in h5py._objects.with_phil.wrapper',
           f'  File "{site}/h5py/_hl/dataset.py", line 758, in __getitem__',
           "    return self._fast_reader.read(args)",
           '  File "h5py/_selector.pyx", line 376, in h5py._selector.Reader.read',
           "OSError: Can't read data (wrong B-tree signature)", ""]
    L += ["[rank1]: " + x for x in tb]
    tf = t0 + timedelta(seconds=71, microseconds=612000)
    L += torchrun_fail("2.4", "glog", tf, agent, site, "/opt/conda/bin/torchrun", "/opt/conda/bin/python3.10", "train.py",
                       "jet-train-1", {"rank": 1, "local_rank": 1, "pid": 906, "exitcode": 1, "time": tf}, [905],
                       others=[{"rank": 0, "local_rank": 0, "pid": 905, "exitcode": -15, "sig": "SIGTERM", "time": tf}])
    return Case(
        "dataloader-worker-crash-h5py-fork-torchrun-02", "dataloader-worker-crash", "medium",
        "torchrun on 2x L40S, torch 2.4: the dataset opens its HDF5 file in __init__ (logged) and the 8 forked workers "
        "share that handle; after ~140 steps worker 3 of rank 1 fails with h5py 'Can't read data (wrong B-tree "
        "signature)', which looks like a corrupt file but is HDF5 state shared across fork.",
        1,
        {"gpu_model": "L40S", "torch_version": "2.4.0", "launcher": "torchrun", "world_size": "2"},
        ["h5py", "worker"],
        {"train.log": "\n".join(L)},
    )


def case_worker_04() -> Case:
    """Plain python on a T4 VM, torch 1.13.1, albumentations + OpenCV in 4 workers: a worker segfaults (native crash),
    the main process raises 'killed by signal: Segmentation fault' chained into 'exited unexpectedly'."""
    rng = random.Random(604)
    site = "/opt/conda/lib/python3.8/site-packages"
    smi = nvidia_smi("Wed Feb  8 14:20:31 2023", "525.85.12", "12.0", "Tesla T4", 1, rng, style="470",
                     bus=["00000000:00:04.0"], persistence="Off")
    L = ["(base) jupyter@t4-vm-3:~/leafseg$ nvidia-smi", smi,
         "(base) jupyter@t4-vm-3:~/leafseg$ python train.py --cfg configs/unet_effb3.yaml",
         "2023-02-08 14:21:02,118 INFO torch 1.13.1+cu117 | cuda 11.7 | cudnn 8500 | Tesla T4",
         "2023-02-08 14:21:02,119 INFO opencv-python-headless 4.7.0.72 | albumentations 1.3.0 | segmentation_models_pytorch 0.3.2",
         "2023-02-08 14:21:04,771 INFO train 12480 tiles, val 1560 tiles, 4 workers, batch 16, fp16 amp",
         "Downloading: \"https://github.com/lukemelas/EfficientNet-PyTorch/releases/download/1.0/efficientnet-b3-5fb5a3c3.pth\" to /home/jupyter/.cache/torch/hub/checkpoints/efficientnet-b3-5fb5a3c3.pth",
         "100%|██████████| 47.1M/47.1M [00:00<00:00, 114MB/s]"]
    t = dt("2023-02-08 14:21:10")
    for ep in (0, 1):
        for it in range(50, 781, 50):
            if ep == 1 and it > 500:
                break
            t += timedelta(seconds=50 * rng.uniform(0.38, 0.41))
            L.append(f"{t.strftime('%Y-%m-%d %H:%M:%S')},{rng.randint(100, 999)} INFO ep {ep} it {it:>3}/780 "
                     f"dice_loss {0.61 - ep * 0.17 - it * 0.0001:.4f} lr {3e-4:.1e}")
        if ep == 0:
            t += timedelta(seconds=41)
            L.append(f"{t.strftime('%Y-%m-%d %H:%M:%S')},{rng.randint(100, 999)} INFO ep 0 val mIoU 0.6412 dice 0.7633 (best)")
    L.append("ERROR: Unexpected segmentation fault encountered in worker.")
    L += bus_error_chain(site, "/opt/conda/lib/python3.8", 30817, "1.13")[:15]
    L += ["RuntimeError: DataLoader worker (pid 30817) is killed by signal: Segmentation fault. ", "",
          "The above exception was the direct cause of the following exception:", "", "Traceback (most recent call last):",
          '  File "train.py", line 214, in <module>', "    main(cfg)",
          '  File "train.py", line 176, in main', "    train_loss = train_one_epoch(model, train_loader, optimizer, scaler, loss_fn, ep)",
          '  File "train.py", line 92, in train_one_epoch', "    for it, (img, mask) in enumerate(loader, 1):",
          f'  File "{site}/torch/utils/data/dataloader.py", line 628, in __next__', "    data = self._next_data()",
          f'  File "{site}/torch/utils/data/dataloader.py", line 1316, in _next_data', "    idx, data = self._get_data()",
          f'  File "{site}/torch/utils/data/dataloader.py", line 1282, in _get_data', "    success, data = self._try_get_data()",
          f'  File "{site}/torch/utils/data/dataloader.py", line 1133, in _try_get_data',
          "    raise RuntimeError('DataLoader worker (pid(s) {}) exited unexpectedly'.format(pids_str)) from e",
          "RuntimeError: DataLoader worker (pid(s) 30817) exited unexpectedly"]
    return Case(
        "dataloader-worker-crash-opencv-segfault-t4-04", "dataloader-worker-crash", "medium",
        "Plain python on a T4 VM, torch 1.13.1, segmentation training with albumentations/OpenCV augmentations in 4 "
        "workers: in epoch 1 a worker dies of a segmentation fault in native code; the main process raises 'killed by "
        "signal: Segmentation fault' and, as the last line, 'DataLoader worker (pid(s) 30817) exited unexpectedly'.",
        None,
        {"gpu_model": "Tesla T4", "driver_version": "525.85.12", "torch_version": "1.13.1", "cuda_version": "11.7",
         "launcher": "python", "precision": "fp16"},
        ["segmentation fault", "num_workers"],
        {"train.log": "\n".join(L)},
    )


# ==================================================================================================
# collate-unequal-sample-shapes (synthetic; cases 01, 02 and 04 are real captures)
# ==================================================================================================


def case_collate_03() -> Case:
    """accelerate launch, 2x H200, torch 2.5.1, transformers 4.46: seq2seq summarization with DataCollatorWithPadding,
    which does not pad `labels`; both ranks fail on the first batch in convert_to_tensors."""
    rng = random.Random(703)
    site = "/opt/venv/lib/python3.10/site-packages"
    agent = 2231
    t0 = dt("2024-12-03 16:40:12") + timedelta(microseconds=55120)
    L = ["$ accelerate launch --num_processes 2 --mixed_precision bf16 train_t5.py --model google/flan-t5-large "
         "--train data/tickets_train.jsonl --eval data/tickets_val.jsonl --bs 16 --lr 3e-4 --epochs 3"]
    L += torchrun_banner("2.5", "glog", t0, agent)
    for r in (0, 1):
        L.append(f"[rank{r}] torch 2.5.1+cu124 transformers 4.46.3 accelerate 1.1.1 | NVIDIA H200 x2")
    L += ["Map: 100%|██████████| 91244/91244 [00:38<00:00, 2391.17 examples/s]",
          "Map: 100%|██████████| 91244/91244 [00:38<00:00, 2377.64 examples/s]",
          "Map: 100%|██████████| 4000/4000 [00:01<00:00, 2402.90 examples/s]",
          "Map: 100%|██████████| 4000/4000 [00:01<00:00, 2398.31 examples/s]",
          "[rank0] tokenized: max_source_len=512 (truncated), max_target_len=128 (truncated), padding=False",
          f"{site}/transformers/training_args.py:1568: FutureWarning: `evaluation_strategy` is deprecated and will "
          "be removed in version 4.46 of 🤗 Transformers. Use `eval_strategy` instead",
          "  warnings.warn(",
          f"{site}/transformers/training_args.py:1568: FutureWarning: `evaluation_strategy` is deprecated and will "
          "be removed in version 4.46 of 🤗 Transformers. Use `eval_strategy` instead",
          "  warnings.warn(",
          "/workspace/summarize/train_t5.py:118: FutureWarning: `tokenizer` is deprecated and will be removed in "
          "version 5.0.0 for `Seq2SeqTrainer.__init__`. Use `processing_class` instead.",
          "  trainer = Seq2SeqTrainer(",
          "/workspace/summarize/train_t5.py:118: FutureWarning: `tokenizer` is deprecated and will be removed in "
          "version 5.0.0 for `Seq2SeqTrainer.__init__`. Use `processing_class` instead.",
          "  trainer = Seq2SeqTrainer(",
          "  0%|          | 0/8556 [00:00<?, ?it/s]"]
    chain = [
        ("/workspace/summarize/train_t5.py", 131, "<module>", "trainer.train()"),
        (f"{site}/transformers/trainer.py", 2123, "train", "return inner_training_loop("),
        (f"{site}/transformers/trainer.py", 2427, "_inner_training_loop", "batch_samples, num_items_in_batch = self.get_batch_samples(epoch_iterator, num_batches)"),
        (f"{site}/transformers/trainer.py", 5045, "get_batch_samples", "batch_samples += [next(epoch_iterator)]"),
        (f"{site}/accelerate/data_loader.py", 552, "__iter__", "current_batch = next(dataloader_iter)"),
        (f"{site}/torch/utils/data/dataloader.py", 701, "__next__", "data = self._next_data()"),
        (f"{site}/torch/utils/data/dataloader.py", 757, "_next_data", "data = self._dataset_fetcher.fetch(index)  # may raise StopIteration"),
        (f"{site}/torch/utils/data/_utils/fetch.py", 55, "fetch", "return self.collate_fn(data)"),
        (f"{site}/transformers/data/data_collator.py", 271, "__call__", "batch = pad_without_fast_tokenizer_warning("),
        (f"{site}/transformers/data/data_collator.py", 66, "pad_without_fast_tokenizer_warning", "padded = tokenizer.pad(*pad_args, **pad_kwargs)"),
        (f"{site}/transformers/tokenization_utils_base.py", 3560, "pad", "return BatchEncoding(batch_outputs, tensor_type=return_tensors)"),
        (f"{site}/transformers/tokenization_utils_base.py", 227, "__init__", "self.convert_to_tensors(tensor_type=tensor_type, prepend_batch_axis=prepend_batch_axis)"),
        (f"{site}/transformers/tokenization_utils_base.py", 778, "convert_to_tensors", "raise ValueError("),
    ]

    def tb(n1: int, n2: int) -> list[str]:
        out = ["Traceback (most recent call last):",
               f'  File "{site}/transformers/tokenization_utils_base.py", line 762, in convert_to_tensors',
               "    tensor = as_tensor(value)",
               f'  File "{site}/transformers/tokenization_utils_base.py", line 724, in as_tensor',
               "    return torch.tensor(value)",
               f"ValueError: expected sequence of length {n1} at dim 1 (got {n2})", "",
               "The above exception was the direct cause of the following exception:", "",
               "Traceback (most recent call last):"]
        for f, ln, fn, src in chain:
            out += [f'  File "{f}", line {ln}, in {fn}', f"    {src}"]
        out.append("ValueError: Unable to create tensor, you should probably activate truncation and/or padding with "
                   "'padding=True' 'truncation=True' to have batched tensors with the same length. Perhaps your features "
                   "(`labels` in this case) have excessive nesting (inputs type `list` where type `int` is expected).")
        return out

    L += ["[rank1]: " + x for x in tb(57, 43)]
    L += ["[rank0]: " + x for x in tb(88, 61)]
    tf = t0 + timedelta(seconds=74, microseconds=551000)
    head = accelerate_launch_frames("/opt/venv/bin/accelerate", site, 48, 1159, "multi_gpu_launcher", 793)
    L += torchrun_fail("2.5", "glog", tf, agent, site, "", "/opt/venv/bin/python", "train_t5.py", "gpu-h200-02",
                       {"rank": 1, "local_rank": 1, "pid": 2299, "exitcode": 1, "time": tf}, [2298],
                       others=[{"rank": 0, "local_rank": 0, "pid": 2298, "exitcode": 1, "time": tf}], head_frames=head)
    return Case(
        "collate-unequal-sample-shapes-hf-seq2seq-labels-h200-03", "collate-unequal-sample-shapes", "medium",
        "accelerate launch on 2x H200 (torch 2.5.1, transformers 4.46.3): flan-t5 summarization tokenized without "
        "padding and batched with DataCollatorWithPadding, which pads input_ids but not the variable-length labels; "
        "both ranks fail on the first batch in convert_to_tensors ('Unable to create tensor ... `labels`'), chained "
        "from 'expected sequence of length 57 at dim 1 (got 43)'.",
        1,
        {"gpu_model": "H200", "torch_version": "2.5.1", "transformers_version": "4.46.3", "accelerate_version": "1.1.1",
         "launcher": "accelerate", "world_size": "2", "precision": "bf16"},
        ["DataCollatorForSeq2Seq", "labels"],
        {"train.log": "\n".join(L)},
    )


# ==================================================================================================
# real captures (CPU-only PyTorch): programs, how they are run, and the case metadata
# ==================================================================================================

REAL_SHM_TRAIN = '''\
"""Smoke test of the segmentation input pipeline inside the training container (CPU)."""
import sys
import torch
from torch.utils.data import DataLoader, Dataset

CROP, BATCH, WORKERS = 384, 16, 4


class TileDataset(Dataset):
    """Aerial tiles, decoded and augmented to float32 CHW crops (stand-in tensors for the smoke test)."""

    def __init__(self, n=4096):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        g = torch.Generator().manual_seed(i)
        img = torch.rand(3, CROP, CROP, generator=g)
        mask = torch.randint(0, 6, (CROP, CROP), generator=g)
        return img, mask


def main():
    print(f"torch {torch.__version__} | python {sys.version.split()[0]} | device cpu (pipeline smoke test)", flush=True)
    print(f"crop {CROP} batch {BATCH} workers {WORKERS} -> {BATCH * 3 * CROP * CROP * 4 / 2**20:.1f} MiB per image batch", flush=True)
    dl = DataLoader(TileDataset(), batch_size=BATCH, num_workers=WORKERS, shuffle=True, persistent_workers=True)
    for step, (img, mask) in enumerate(dl):
        if step % 10 == 0:
            print(f"step {step:4d} img {tuple(img.shape)} mask {tuple(mask.shape)}", flush=True)
    print("pipeline ok", flush=True)


if __name__ == "__main__":
    main()
'''

REAL_COLLATE_IMG = '''\
"""Leaf-disease classifier: quick CPU run of the data pipeline and one epoch of a small CNN."""
import random
import sys

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

N_CLASSES = 38


class LeafImages(Dataset):
    """Images are resized so that the SHORT side is 224 (aspect ratio kept); no crop."""

    def __init__(self, n=18231, seed=7):
        rnd = random.Random(seed)
        # most photos are square crops from the lab rig; a few field photos are 4:3 landscape -> 224 x 298 after resize
        self.sizes = [(224, 224) if rnd.random() < 0.985 else (224, 298) for _ in range(n)]
        self.labels = [rnd.randrange(N_CLASSES) for _ in range(n)]

    def __len__(self):
        return len(self.sizes)

    def __getitem__(self, i):
        h, w = self.sizes[i]
        g = torch.Generator().manual_seed(i)
        x = torch.rand(3, h, w, generator=g)
        x = (x - 0.45) / 0.226
        return x, self.labels[i]


def main():
    torch.manual_seed(0)
    ds = LeafImages()
    print(f"torch {torch.__version__} | python {sys.version.split()[0]} | device: cpu", flush=True)
    print(f"Found {len(ds):,} images in {N_CLASSES} classes", flush=True)
    print("transform: Resize(224) -> ToTensor() -> Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])", flush=True)
    dl = DataLoader(ds, batch_size=32, shuffle=True, num_workers=4, drop_last=True)
    model = nn.Sequential(nn.Conv2d(3, 16, 5, stride=4), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                          nn.Linear(16, N_CLASSES))
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    for step, (x, y) in enumerate(dl):
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 5 == 0:
            print(f"epoch 0 step {step:4d}/{len(dl)} loss {loss.item():.4f}", flush=True)


if __name__ == "__main__":
    main()
'''

REAL_COLLATE_DET = '''\
"""Fine-tune a detector on the shelf-products dataset: CPU smoke test of the data path."""
import sys

import torch
from torch.utils.data import DataLoader, Dataset


class ShelfDetection(Dataset):
    """Returns (image, target) like torchvision detection datasets; target['boxes'] is [N, 4], N varies per image."""

    def __init__(self, n=2400):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        g = torch.Generator().manual_seed(i)
        n_obj = [7, 3, 5, 2, 4, 6, 3, 1][i % 8]
        img = torch.rand(3, 512, 512, generator=g)
        xy = torch.rand(n_obj, 2, generator=g) * 400
        wh = torch.rand(n_obj, 2, generator=g) * 100 + 10
        boxes = torch.cat([xy, xy + wh], dim=1)
        labels = torch.randint(1, 12, (n_obj,), generator=g)
        return img, {"boxes": boxes, "labels": labels, "image_id": i}


def main():
    print(f"torch {torch.__version__} | python {sys.version.split()[0]} | device: cpu (data-path smoke test)", flush=True)
    ds = ShelfDetection()
    print(f"train images: {len(ds)}, classes: 11 (+background)", flush=True)
    loader = DataLoader(ds, batch_size=8, shuffle=False, num_workers=2)
    for it, (images, targets) in enumerate(loader):
        print(f"iter {it}: images {tuple(images.shape)}", flush=True)


if __name__ == "__main__":
    main()
'''

REAL_COLLATE_DDP = '''\
"""Intent classifier (bag-of-embeddings) trained with DDP on pre-tokenized data."""
import os

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset, DistributedSampler

MAX_LEN, VOCAB = 128, 30522


class PreTokenized(Dataset):
    """Rows of the pre-tokenized cache: {"input_ids": list[int], "label": int}; rows are expected to be padded to MAX_LEN."""

    def __init__(self, n=48000):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        g = torch.Generator().manual_seed(i)
        length = MAX_LEN if i not in (21846, 33202) else 97   # two rows written by the old, unpadded exporter
        ids = torch.randint(1000, VOCAB, (length,), generator=g).tolist()
        return {"input_ids": ids, "label": i % 7}


def main():
    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(0)
    ds = PreTokenized()
    sampler = DistributedSampler(ds, shuffle=True, seed=17)
    dl = DataLoader(ds, batch_size=32, sampler=sampler, num_workers=2)
    model = nn.parallel.DistributedDataParallel(nn.Sequential(nn.EmbeddingBag(VOCAB, 64), nn.Linear(64, 7)))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    if rank == 0:
        print(f"[rank0] torch {torch.__version__}, backend gloo, world_size {world}, {len(dl)} steps/epoch", flush=True)
    for epoch in range(2):
        sampler.set_epoch(epoch)
        for step, batch in enumerate(dl):
            ids = torch.stack(batch["input_ids"], dim=1)
            loss = nn.functional.cross_entropy(model(ids), batch["label"])
            opt.zero_grad()
            loss.backward()
            opt.step()
            if rank == 0 and step % 25 == 0:
                print(f"[rank0] epoch {epoch} step {step}/{len(dl)} loss {loss.item():.4f}", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
'''

REAL_WORKER_SEGV = '''\
"""Keyword-spotting model trained with DDP; clips are decoded by a native decoder inside the DataLoader workers."""
import ctypes

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset, DistributedSampler

BAD_CLIP = 1613   # a clip the native decoder cannot handle


def native_decode(idx):
    """Stand-in for the C decoder: it crashes the process on one malformed clip instead of raising."""
    if idx == BAD_CLIP:
        ctypes.string_at(0)          # segmentation fault inside native code
    g = torch.Generator().manual_seed(idx)
    return torch.randn(1, 16000, generator=g)


class Clips(Dataset):
    def __len__(self):
        return 64000

    def __getitem__(self, i):
        wav = native_decode(i)
        return wav, i % 12


def main():
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    ds = Clips()
    sampler = DistributedSampler(ds, shuffle=False)
    dl = DataLoader(ds, batch_size=16, sampler=sampler, num_workers=2)
    model = nn.parallel.DistributedDataParallel(
        nn.Sequential(nn.Conv1d(1, 16, 400, stride=160), nn.ReLU(), nn.AdaptiveAvgPool1d(1), nn.Flatten(), nn.Linear(16, 12)))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    if rank == 0:
        print(f"[rank0] torch {torch.__version__} world_size {dist.get_world_size()} steps/epoch {len(dl)}", flush=True)
    for step, (wav, y) in enumerate(dl):
        loss = nn.functional.cross_entropy(model(wav), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if rank == 0 and step % 5 == 0:
            print(f"[rank0] step {step} loss {loss.item():.4f}", flush=True)


if __name__ == "__main__":
    main()
'''


@dataclass
class Real:
    case: Case
    project: str                      # folder under the workspace root
    files: dict[str, str]             # program files
    shown: str                        # the command as the user typed it (first line of the log)
    run: str                          # the command actually run (may wrap `shown`)
    log_name: str = "train.log"


def real_cases() -> list[Real]:
    py = "/opt/venv/bin/python"
    return [
        Real(Case("dataloader-shm-exhausted-docker-64m-cpu-01", "dataloader-shm-exhausted", "easy",
                  "Real CPU run (torch 2.13) of a segmentation input-pipeline smoke test in a container whose /dev/shm is "
                  "64 MB (shown by df): 4 workers with 27 MiB float32 batches cannot allocate their shared-memory "
                  "segment; worker 0 raises 'unable to allocate shared memory(shm) for file </torch_...>: No space left "
                  "on device (28)', re-raised in the main process.",
                  None, {"torch_version": "2.13.0", "python_version": "3.11.7", "launcher": "python"}, ["/dev/shm"]),
             "seg-smoke", {"train.py": REAL_SHM_TRAIN}, f"{py} train.py",
             f"unshare -m --propagation private sh -c 'mount -t tmpfs -o size=64m tmpfs /dev/shm && "
             f"echo \"$ df -h /dev/shm\" && df -h /dev/shm && echo \"$ {py} train.py\" && timeout 120 {py} train.py'"),
        Real(Case("dataloader-worker-crash-native-segv-torchrun-cpu-03", "dataloader-worker-crash", "hard",
                  "Real CPU run: torchrun with 4 gloo ranks training a keyword-spotting model; a native decoder "
                  "segfaults inside a DataLoader worker of rank 1. Rank 1 raises 'DataLoader worker (pid N) is killed "
                  "by signal: Segmentation fault'; ranks 0, 2 and 3 then fail in backward with gloo 'Connection closed "
                  "by peer', torchrun SIGTERMs them and its summary lists them before the root cause.",
                  1, {"torch_version": "2.13.0", "launcher": "torchrun", "world_size": "4"},
                  ["segmentation fault", "rank 1"]),
             "kws-ddp", {"train.py": REAL_WORKER_SEGV}, f"{py} -m torch.distributed.run --nproc_per_node=4 train.py",
             f"timeout 180 {py} -m torch.distributed.run --nproc_per_node=4 train.py"),
        Real(Case("collate-unequal-sample-shapes-resize-no-crop-cpu-01", "collate-unequal-sample-shapes", "easy",
                  "Real CPU run (torch 2.13) of an image classifier whose transform resizes the short side to 224 "
                  "without cropping: a batch mixes 224x224 and 224x298 images and default_collate fails in a worker "
                  "with 'stack expects each tensor to be equal size, but got [3, 224, 224] at entry 0 and [3, 224, "
                  "298] at entry N'.",
                  None, {"torch_version": "2.13.0", "python_version": "3.11.7", "launcher": "python"},
                  ["crop", "stack"]),
             "leaf-cls", {"train.py": REAL_COLLATE_IMG}, f"{py} train.py", f"timeout 120 {py} train.py"),
        Real(Case("collate-unequal-sample-shapes-detection-boxes-cpu-02", "collate-unequal-sample-shapes", "medium",
                  "Real CPU run (torch 2.13) of a detection data path with the default collate_fn: targets carry [N, 4] "
                  "boxes with N varying per image; in a worker, collate_tensor_fn fails with the misleading 'Trying to "
                  "resize storage that is not resizable' because the first sample has the most boxes.",
                  None, {"torch_version": "2.13.0", "python_version": "3.11.7", "launcher": "python"},
                  ["collate_fn", "boxes"]),
             "shelf-det", {"train.py": REAL_COLLATE_DET}, f"{py} train.py", f"timeout 120 {py} train.py"),
        Real(Case("collate-unequal-sample-shapes-ddp-pretokenized-torchrun-cpu-04", "collate-unequal-sample-shapes", "hard",
                  "Real CPU run: torchrun with 4 gloo ranks on a pre-tokenized cache where two rows were not padded to "
                  "128 tokens. Only rank 3, whose shard holds such a row, fails ('each element in list of batch should "
                  "be of equal size' in a worker); the other ranks fail in backward with gloo 'Connection closed by "
                  "peer' and torchrun lists their SIGTERMs before the root cause.",
                  3, {"torch_version": "2.13.0", "launcher": "torchrun", "world_size": "4"},
                  ["padding", "rank 3"]),
             "intent-ddp", {"train.py": REAL_COLLATE_DDP}, f"{py} -m torch.distributed.run --nproc_per_node=4 train.py",
             f"timeout 180 {py} -m torch.distributed.run --nproc_per_node=4 train.py"),
    ]


def capture(real: Real, root: Path) -> str:
    proj = root / real.project
    if proj.exists():
        shutil.rmtree(proj)
    proj.mkdir(parents=True)
    for name, src in real.files.items():
        (proj / name).write_text(src)
    env = dict(os.environ, PYTHONUNBUFFERED="1", OMP_NUM_THREADS="1")
    env.pop("PYTHONPATH", None)
    p = subprocess.run(real.run, shell=True, cwd=proj, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=600)
    # torch's glog-style launcher lines print the resolved module path; show the same /opt/venv path as the tracebacks
    out = p.stdout.replace(str(Path(os.path.realpath("/opt/venv"))), "/opt/venv")
    header = "" if real.run.startswith("unshare") else f"$ {real.shown}\n"
    return header + out


SYNTHETIC = [
    case_cuda_oom_01, case_cuda_oom_02, case_cuda_oom_03, case_cuda_oom_04,
    case_frag_01, case_frag_02, case_frag_03,
    case_leak_01, case_leak_02, case_leak_03,
    case_host_oom_01, case_host_oom_02, case_host_oom_03, case_host_oom_04,
    case_shm_02, case_shm_03,
    case_worker_01, case_worker_02, case_worker_04,
    case_collate_03,
]


def main() -> None:
    ap = parser(__doc__)
    ap.add_argument("--real", action="store_true", help="rerun the real CPU programs and store their output")
    ap.add_argument("--venv", default=str(Path(__file__).resolve().parents[2] / ".venv"),
                    help="venv with torch; linked as /opt/venv so tracebacks show a neutral path")
    ap.add_argument("--workspace", default="/workspace", help="where the real programs are written and run")
    args = ap.parse_args()
    for fn in SYNTHETIC:
        write_case(args.out, fn())
    if args.real:
        link = Path("/opt/venv")
        if not link.exists():
            link.symlink_to(args.venv)
    for r in real_cases():
        if args.real:
            r.case.files = {r.log_name: capture(r, Path(args.workspace))}
        write_case(args.out, r.case)
    print(f"wrote {len(SYNTHETIC) + len(real_cases())} cases under {args.out}")


if __name__ == "__main__":
    main()
