#!/usr/bin/env python3
"""Generate the eval cases for the environment / install / inference-engine failures.

Ids covered: extension-undefined-symbol, cuda-version-mismatch-build, bitsandbytes-setup, numpy-abi-mismatch,
glibcxx-missing, torch-compile-failure, hf-hub-unreachable, vllm-kv-cache-too-small, vllm-gpu-memory-in-use.

Each case is ONE run: the log file(s) that run would have printed, plus case.yaml. The noise (nvidia-smi tables,
collect_env, pip lists, launcher banners, NCCL INFO lines, progress bars) is produced by the helpers below; the
failure text of each case is written out per case. Output is deterministic (seeded), so re-running the script
reproduces the checked-in files exactly.

One case (torch-compile-failure-slim-ci-cpu-01) embeds the output of a real failing CPU program: torch.compile on
a CPU-only torch in a container without a C++ compiler. Only the paths were changed (venv location, script path).

Usage:  python evals/generators/env.py            # writes evals/cases/<case-id>/
"""

from __future__ import annotations

import base64
import calendar
import json
import random
from datetime import datetime, timedelta


from common import SMI_HEADS_NARROW, Collector, RankExit, accelerate_launch_frames, collect_env_report, dedent, elastic_launch_frames, module_call_frames, parser, pip_metadata_generation_failed, torchrun_child_failed_summary, torchrun_main_frames, uvloop_run_frames  # noqa: E402

_cases = Collector()
case = _cases.case
write_case = _cases.add


# ----------------------------------------------------------------------------------------------------------------
# time helpers

class Clock:
    def __init__(self, start: str, rng: random.Random):
        self.t = datetime.strptime(start, "%Y-%m-%d %H:%M:%S")
        self.rng = rng

    def tick(self, lo: float = 0.001, hi: float = 0.2) -> datetime:
        self.t += timedelta(seconds=self.rng.uniform(lo, hi))
        return self.t

    def at(self, seconds: float) -> datetime:
        self.t += timedelta(seconds=seconds)
        return self.t

    # formats
    def ds(self, lo=0.001, hi=0.2) -> str:  # DeepSpeed / torch<=2.2 elastic: [2024-01-15 10:42:11,231]
        t = self.tick(lo, hi)
        return t.strftime("%Y-%m-%d %H:%M:%S,") + f"{t.microsecond // 1000:03d}"

    def glog(self, pid: int, lo=0.001, hi=0.2) -> str:  # torch>=2.3 c10 logging: 0312 10:14:07.512000 140234
        t = self.tick(lo, hi)
        return t.strftime("%m%d %H:%M:%S.") + f"{t.microsecond:06d} {pid}"

    def vllm(self, lo=0.001, hi=0.2) -> str:  # INFO 06-12 10:21:33
        t = self.tick(lo, hi)
        return t.strftime("%m-%d %H:%M:%S")

    def iso(self, lo=0.001, hi=0.2) -> str:
        t = self.tick(lo, hi)
        return t.strftime("%Y-%m-%dT%H:%M:%S")

    def elastic(self) -> str:  # 2024-03-12_10:14:07
        return self.t.strftime("%Y-%m-%d_%H:%M:%S")


# ----------------------------------------------------------------------------------------------------------------
# nvidia-smi

def nvidia_smi(date: str, driver: str, cuda: str, gpus: list[dict], procs: list[tuple] | None = None,
               style: str = "535") -> str:
    """gpus: dicts with name, bus, temp, pwr, cap, used, total (MiB), util, pm, ecc, mig, fan, perf."""
    out = [date + "       "]
    if style == "old":
        w1, w2, w3 = 31, 22, 22
        bar = "+" + "-" * (w1 + w2 + w3 + 2) + "+"
        out.append(bar)
        hdr = f" NVIDIA-SMI {driver:<12}Driver Version: {driver:<13}CUDA Version: {cuda:<9}"
        out.append("|" + hdr.ljust(w1 + w2 + w3 + 2) + "|")
        out.append("|" + "-" * w1 + "+" + "-" * w2 + "+" + "-" * w3 + "+")
        out += SMI_HEADS_NARROW
        out.append("|" + "=" * w1 + "+" + "=" * w2 + "+" + "=" * w3 + "|")
        for i, g in enumerate(gpus):
            name = g["name"]
            if len(name) > 18:
                name = name[:15] + "..."
            c1 = f"{i:>4}  {name:<18}{g.get('pm', 'On'):>4}   "
            out.append("|" + c1.ljust(w1) + "|" + f" {g['bus']} {g.get('dispa', 'Off'):>3} " + "|" + f"{g.get('ecc', '0'):>21} |")
            c1b = f" {g.get('fan', 'N/A'):>3}   {g['temp']:>2}C    {g.get('perf', 'P0'):<2}  {g['pwr']:>4}W / {g['cap']:>3}W "
            out.append("|" + c1b.rjust(w1) + "|" + f"{str(g['used']) + 'MiB':>10} / {str(g['total']) + 'MiB':>8} " + "|"
                       + f"{str(g.get('util', 0)) + '%':>8}{'Default':>13} |")
            out.append("|" + " " * w1 + "|" + " " * w2 + "|" + f"{g.get('mig', 'N/A'):>21} |")
            out.append("+" + "-" * w1 + "+" + "-" * w2 + "+" + "-" * w3 + "+")
        pw = w1 + w2 + w3 + 2
    else:
        w1, w2, w3 = (41, 22, 22) if style == "535" else (41, 24, 22)
        pw = w1 + w2 + w3 + 2
        bar = "+" + "-" * pw + "+"
        out.append(bar)
        if style == "535":
            hdr = f" NVIDIA-SMI {driver:<22}Driver Version: {driver:<13}CUDA Version: {cuda:<9}"
        else:
            hdr = f" NVIDIA-SMI {driver:<22}Driver Version: {driver:<15}CUDA Version: {cuda:<9}"
        out.append("|" + hdr.ljust(pw) + "|")
        out.append("|" + "-" * w1 + "+" + "-" * w2 + "+" + "-" * w3 + "+")
        out.append("| GPU  Name                 Persistence-M |" + " Bus-Id        Disp.A ".rjust(w2) + "| Volatile Uncorr. ECC |")
        out.append("| Fan  Temp   Perf          Pwr:Usage/Cap |" + "Memory-Usage ".rjust(w2) + "| GPU-Util  Compute M. |")
        out.append("|                                         |" + " " * w2 + "|               MIG M. |")
        out.append("|" + "=" * w1 + "+" + "=" * w2 + "+" + "=" * w3 + "|")
        for i, g in enumerate(gpus):
            name = "NVIDIA " + g["name"] if not g["name"].startswith(("NVIDIA", "Tesla")) else g["name"]
            c1 = f"{i:>4}  {name:<29}{g.get('pm', 'On'):>4}  "
            c2 = f" {g['bus']} {g.get('dispa', 'Off'):>3} ".rjust(w2)
            out.append("|" + c1 + "|" + c2 + "|" + f"{g.get('ecc', '0'):>21} |")
            left = f" {g.get('fan', 'N/A'):<3}  {g['temp']:>3}C    {g.get('perf', 'P0'):<2}"
            right = f"{g['pwr']:>3}W / {g['cap']:>{3 if style == '535' else 4}}W "
            c1b = left + " " * (w1 - len(left) - len(right)) + right
            c2b = (f"{str(g['used']) + 'MiB':>10} / {str(g['total']) + 'MiB':>8} ").rjust(w2)
            out.append("|" + c1b + "|" + c2b + "|" + f"{str(g.get('util', 0)) + '%':>8}{'Default':>13} |")
            out.append("|" + " " * w1 + "|" + " " * w2 + "|" + f"{g.get('mig', 'Disabled'):>21} |")
            out.append("+" + "-" * w1 + "+" + "-" * w2 + "+" + "-" * w3 + "+")
    out.append(" " * (pw + 2))
    out.append("+" + "-" * pw + "+")
    out.append("| Processes:".ljust(pw + 1) + "|")
    out.append("|  GPU   GI   CI        PID   Type   Process name".ljust(pw - 10) + "GPU Memory |")
    out.append("|        ID   ID".ljust(pw - 10) + "Usage      |")
    out.append("|" + "=" * pw + "|")
    if not procs:
        out.append("|  No running processes found".ljust(pw + 1) + "|")
    else:
        for gi, pid, name, mib in procs:
            s = f"|  {gi:>3}   N/A  N/A  {pid:>8}      C   {name}"
            out.append(s.ljust(pw - 10) + f"{str(mib) + 'MiB':>10} |")
    out.append("+" + "-" * pw + "+")
    return "\n".join(out)


def gpu(name, total, bus, rng, used=None, pwr=None, cap=400, temp=None, util=0, **kw):
    d = dict(name=name, total=total, bus=bus, used=4 if used is None else used,
             pwr=pwr if pwr is not None else rng.randint(55, 75), cap=cap,
             temp=temp if temp is not None else rng.randint(27, 38), util=util)
    d.update(kw)
    return d


BUSES_8 = ["00000000:18:00.0", "00000000:2A:00.0", "00000000:3A:00.0", "00000000:5D:00.0",
           "00000000:9A:00.0", "00000000:AB:00.0", "00000000:BA:00.0", "00000000:DB:00.0"]
BUSES_SXM4 = ["00000000:07:00.0", "00000000:0F:00.0", "00000000:47:00.0", "00000000:4E:00.0",
              "00000000:87:00.0", "00000000:90:00.0", "00000000:B7:00.0", "00000000:BD:00.0"]
BUSES_AWS = ["00000000:00:16.0", "00000000:00:17.0", "00000000:00:18.0", "00000000:00:19.0",
             "00000000:00:1A.0", "00000000:00:1B.0", "00000000:00:1C.0", "00000000:00:1D.0"]


# ----------------------------------------------------------------------------------------------------------------
# collect_env

def collect_env(torch_v: str, cuda_build: str, os_name: str, gcc: str, libc: str, py: str, py_build: str,
                platform: str, cuda_runtime: str, gpus: list[str], driver: str, cudnn: str, cpu: str,
                libs: list[str], conda: list[str] | None = None, cmake: str = "version 3.27.9",
                cuda_available: bool = True) -> str:
    """collect_env's report; one GPU is named on the label's line, several follow it."""
    if len(gpus) == 1:
        devices = [f"GPU models and configuration: GPU 0: {gpus[0]}"]
    else:
        devices = ["GPU models and configuration: ", *(f"GPU {i}: {g}" for i, g in enumerate(gpus))]
    devices += [f"Nvidia driver version: {driver}", "cuDNN version: " + cudnn]
    return "\n".join(collect_env_report(
        torch=torch_v, cuda_build=cuda_build, os=os_name, gcc=gcc, cmake=cmake, libc=libc, python=f"{py} {py_build} (64-bit runtime)",
        platform=platform, cuda_available=cuda_available, cuda_runtime=cuda_runtime, devices=devices, cpu=cpu.splitlines(),
        libs=libs, conda=conda or ["Could not collect"]))


def lscpu(model: str, sockets: int, cores: int, threads: int = 2, mhz: str = "3500.0000") -> str:
    n = sockets * cores * threads
    return dedent(f"""
        Architecture:                       x86_64
        CPU op-mode(s):                     32-bit, 64-bit
        Address sizes:                      52 bits physical, 57 bits virtual
        Byte Order:                         Little Endian
        CPU(s):                             {n}
        On-line CPU(s) list:                0-{n - 1}
        Vendor ID:                          {'AuthenticAMD' if 'AMD' in model else 'GenuineIntel'}
        Model name:                         {model}
        Thread(s) per core:                 {threads}
        Core(s) per socket:                 {cores}
        Socket(s):                          {sockets}
        CPU max MHz:                        {mhz}
        NUMA node(s):                       {sockets}
        """)


# ----------------------------------------------------------------------------------------------------------------
# launchers

def torchrun_banner_old(clock: Clock) -> list[str]:
    t = clock.ds()
    return [f"[{t}] torch.distributed.run: [WARNING] ",
            f"[{t}] torch.distributed.run: [WARNING] *****************************************",
            f"[{t}] torch.distributed.run: [WARNING] Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. ",
            f"[{t}] torch.distributed.run: [WARNING] *****************************************"]


def torchrun_banner_new(clock: Clock, pid: int, line: int = 793) -> list[str]:
    t = clock.glog(pid)
    return [f"W{t} torch/distributed/run.py:{line}] ",
            f"W{t} torch/distributed/run.py:{line}] *****************************************",
            f"W{t} torch/distributed/run.py:{line}] Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. ",
            f"W{t} torch/distributed/run.py:{line}] *****************************************"]


def child_failed_block(script: str, failures: list[dict], site: str, torchrun_bin: str,
                       lines: dict, header_tb: list[str] | None = None) -> list[str]:
    """failures: dicts with time, host, rank, local_rank, exitcode, pid; first one is the root cause."""
    out = header_tb if header_tb is not None else [
        "Traceback (most recent call last):",
        f'  File "{torchrun_bin}", line 8, in <module>',
        "    sys.exit(main())",
        *torchrun_main_frames(site, lines["wrapper"], lines["main"]),
        *elastic_launch_frames(site, lines["run"], lines["call"], lines["agent"]),
    ]
    root, *rest = [RankExit.of(f) for f in failures]
    return [*out, "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
            *torchrun_child_failed_summary(script, root, rest)]


def ds_world_info(hosts: dict[str, list[int]]) -> str:
    return base64.urlsafe_b64encode(json.dumps(hosts).encode()).decode()


def pip_freeze_list(pkgs: list[tuple[str, str]]) -> list[str]:
    w = max(len(n) for n, _ in pkgs) + 1
    out = ["Package".ljust(w) + "Version", "-" * (w - 1) + " " + "-" * 12]
    for n, v in pkgs:
        out.append(n.ljust(w) + v)
    return out


def hex_token(rng: random.Random, n: int) -> str:
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


def alnum(rng: random.Random, n: int, alphabet: str = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def hf_token(rng):
    return "hf_" + alnum(rng, 34)


def tqdm_bar(n: int, total: int, elapsed: str, remaining: str, rate: str, width: int = 10, desc: str = "") -> str:
    frac = n / total if total else 0
    pct = int(frac * 100)
    fill = int(frac * width)
    bar = "█" * fill + (" " * (width - fill))
    return f"{desc}{pct:3d}%|{bar}| {n}/{total} [{elapsed}<{remaining}, {rate}]"


def hf_loss_dict(rng, loss, lr, epoch, grad_norm=True):
    """The dict the HF Trainer prints: Python reprs of floats."""
    lr = float(f"{lr:.6g}") if rng.random() < 0.7 else lr
    if grad_norm:
        gn = float(f"{rng.uniform(0.3, 1.6):.8g}")
        return "{'loss': %s, 'grad_norm': %r, 'learning_rate': %r, 'epoch': %r}" % (round(loss, 4), gn, lr, round(epoch, 2))
    return "{'loss': %s, 'learning_rate': %r, 'epoch': %r}" % (round(loss, 4), lr, round(epoch, 2))


# ================================================================================================================
# extension-undefined-symbol
# ================================================================================================================

PIP_HF_TORCH23 = [
    ("accelerate", "0.29.3"), ("aiohttp", "3.9.5"), ("aiosignal", "1.3.1"), ("annotated-types", "0.6.0"),
    ("async-timeout", "4.0.3"), ("attrs", "23.2.0"), ("bitsandbytes", "0.43.1"), ("certifi", "2024.2.2"),
    ("charset-normalizer", "3.3.2"), ("datasets", "2.19.0"), ("dill", "0.3.8"), ("einops", "0.7.0"),
    ("filelock", "3.13.4"), ("flash-attn", "2.5.6"), ("frozenlist", "1.4.1"), ("fsspec", "2024.3.1"),
    ("huggingface-hub", "0.22.2"), ("idna", "3.7"), ("Jinja2", "3.1.3"), ("MarkupSafe", "2.1.5"),
    ("mpmath", "1.3.0"), ("multidict", "6.0.5"), ("multiprocess", "0.70.16"), ("networkx", "3.3"),
    ("ninja", "1.11.1.1"), ("numpy", "1.26.4"), ("nvidia-cublas-cu12", "12.1.3.1"),
    ("nvidia-cuda-cupti-cu12", "12.1.105"), ("nvidia-cuda-nvrtc-cu12", "12.1.105"),
    ("nvidia-cuda-runtime-cu12", "12.1.105"), ("nvidia-cudnn-cu12", "8.9.2.26"), ("nvidia-cufft-cu12", "11.0.2.54"),
    ("nvidia-curand-cu12", "10.3.2.106"), ("nvidia-cusolver-cu12", "11.4.5.107"),
    ("nvidia-cusparse-cu12", "12.1.0.106"), ("nvidia-nccl-cu12", "2.20.5"), ("nvidia-nvjitlink-cu12", "12.4.127"),
    ("nvidia-nvtx-cu12", "12.1.105"), ("packaging", "24.0"), ("pandas", "2.2.2"), ("peft", "0.10.0"),
    ("pillow", "10.3.0"), ("pip", "24.0"), ("protobuf", "4.25.3"), ("psutil", "5.9.8"), ("pyarrow", "16.0.0"),
    ("pyarrow-hotfix", "0.6"), ("pydantic", "2.7.1"), ("pydantic_core", "2.18.2"),
    ("python-dateutil", "2.9.0.post0"), ("pytz", "2024.1"), ("PyYAML", "6.0.1"), ("regex", "2024.4.16"),
    ("requests", "2.31.0"), ("safetensors", "0.4.3"), ("sentencepiece", "0.2.0"), ("sentry-sdk", "2.0.1"),
    ("setuptools", "69.5.1"), ("six", "1.16.0"), ("sympy", "1.12"), ("tokenizers", "0.19.1"),
    ("torch", "2.3.0+cu121"), ("torchvision", "0.18.0+cu121"), ("tqdm", "4.66.2"), ("transformers", "4.40.1"),
    ("triton", "2.3.0"), ("trl", "0.8.6"), ("typing_extensions", "4.11.0"), ("tzdata", "2024.1"),
    ("urllib3", "2.2.1"), ("wandb", "0.16.6"), ("wheel", "0.43.0"), ("xformers", "0.0.25"), ("xxhash", "3.4.1"),
    ("yarl", "1.9.4"),
]


@case
def ext_flashattn_upgrade_01():
    rng = random.Random(101)
    site = "/usr/local/lib/python3.10/dist-packages"
    smi = nvidia_smi("Thu Apr 25 14:02:11 2024", "535.161.08", "12.2",
                     [gpu("A100-SXM4-80GB", 81920, "00000000:00:05.0", rng)], style="535")
    lines = ["+ date", "Thu Apr 25 14:02:11 UTC 2024", "+ nvidia-smi"] + smi.split("\n")
    lines += ["+ pip install -q -U torch==2.3.0 torchvision==0.18.0 --index-url https://download.pytorch.org/whl/cu121",
              "ERROR: pip's dependency resolver does not currently take into account all the packages that are installed. This behaviour is the source of the following dependency conflicts.",
              "xformers 0.0.25 requires torch==2.2.1, but you have torch 2.3.0+cu121 which is incompatible.",
              "+ pip list"]
    lines += pip_freeze_list(PIP_HF_TORCH23)
    lines += ["+ export WANDB_PROJECT=mistral-sft",
              "+ WANDB_PROJECT=mistral-sft",
              "+ python sft.py --model_name_or_path mistralai/Mistral-7B-v0.1 --dataset data/chat_sft.jsonl --bf16 --packing --max_seq_len 4096 --per_device_train_batch_size 4 --gradient_accumulation_steps 8 --output_dir out/mistral-sft-v3",
              "Traceback (most recent call last):",
              '  File "/workspace/sft.py", line 14, in <module>',
              "    from flash_attn import flash_attn_varlen_func",
              f'  File "{site}/flash_attn/__init__.py", line 3, in <module>',
              "    from flash_attn.flash_attn_interface import (",
              f'  File "{site}/flash_attn/flash_attn_interface.py", line 10, in <module>',
              "    import flash_attn_2_cuda as flash_attn_cuda",
              f"ImportError: {site}/flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so: undefined symbol: _ZN3c104cuda9SetDeviceEi",
              "+ exit 1"]
    write_case("extension-undefined-symbol-flashattn-upgrade-01", dict(
        label="extension-undefined-symbol", difficulty="easy",
        description="Single A100 SFT job; the job script upgrades torch to 2.3.0 in place, the flash-attn 2.5.6 build "
                    "left from torch 2.2 then fails at import with undefined symbol c10::cuda::SetDevice(int).",
        facts=dict(gpu_model="A100-SXM4-80GB", driver_version="535.161.08", torch_version="2.3.0", cuda_version="12.1",
                   flash_attn_version="2.5.6", transformers_version="4.40.1", launcher="python"),
        must_mention=["flash", "ABI"]), {"train.log": "\n".join(lines)})


NGC_BANNER_2402 = dedent("""
    
    =============
    == PyTorch ==
    =============
    
    NVIDIA Release 24.02 (build 82611821)
    PyTorch Version 2.3.0a0+ebedce2
    Container image Copyright (c) 2024, NVIDIA CORPORATION & AFFILIATES. All rights reserved.
    Copyright (c) 2014-2024 Facebook Inc.
    Copyright (c) 2011-2014 Idiap Research Institute (Ronan Collobert)
    Copyright (c) 2012-2014 Deepmind Technologies    (Koray Kavukcuoglu)
    Copyright (c) 2011-2012 NEC Laboratories America (Koray Kavukcuoglu)
    Copyright (c) 2011-2013 NYU                      (Clement Farabet)
    Copyright (c) 2006-2010 NEC Laboratories America (Ronan Collobert, Leon Bottou, Iain Melvin, Jason Weston)
    Copyright (c) 2006      Idiap Research Institute (Samy Bengio)
    Copyright (c) 2001-2004 Idiap Research Institute (Ronan Collobert, Samy Bengio, Johnny Mariethoz)
    Copyright (c) 2015      Google Inc.
    Copyright (c) 2015      Yangqing Jia
    Copyright (c) 2013-2016 The Caffe contributors
    All rights reserved.
    
    Various files include modifications (c) NVIDIA CORPORATION & AFFILIATES.  All rights reserved.
    
    This container image and its contents are governed by the NVIDIA Deep Learning Container License.
    By pulling and using the container, you accept the terms and conditions of this license:
    https://developer.nvidia.com/ngc/nvidia-deep-learning-container-license
    
    NOTE: The SHMEM allocation limit is set to the default of 64MB.  This may be
       insufficient for PyTorch.  NVIDIA recommends the use of the following flags:
       docker run --gpus all --ipc=host --ulimit memlock=-1 --ulimit stack=67108864 ...
    """)


@case
def ext_ngc_prebuilt_wheel_02():
    rng = random.Random(102)
    site = "/usr/local/lib/python3.10/dist-packages"
    clock = Clock("2024-03-05 09:13:40", rng)
    sym = "_ZN3c106detail14torchCheckFailEPKcS2_jRKSs"
    lines = NGC_BANNER_2402.split("\n")
    lines += ["", "+ nvidia-smi"]
    lines += nvidia_smi("Tue Mar  5 09:13:40 2024", "550.54.15", "12.4",
                        [gpu("H100 80GB HBM3", 81559, b, rng, cap=700) for b in BUSES_8[:4]], style="550").split("\n")
    lines += ["+ python -c 'import torch; print(torch.__version__, torch.version.cuda, torch._C._GLIBCXX_USE_CXX11_ABI)'",
              "2.3.0a0+ebedce2 12.3 True",
              "+ pip list --format=freeze",
              "+ grep -Ei '^(flash|transformers|trl|accelerate|peft|deepspeed)'",
              "accelerate==0.27.2",
              "flash-attn==2.5.6",
              "peft==0.9.0",
              "transformers==4.38.2",
              "trl==0.7.11",
              "+ accelerate launch --num_processes 4 --num_machines 1 --mixed_precision bf16 --dynamo_backend no train_dpo.py --config configs/dpo_zephyr_h100.yaml"]
    clock.tick(3, 4)
    lines.append("Detected kernel version 4.18.0, which is below the recommended minimum of 5.5.0; this can cause the process to hang. It is recommended to upgrade the kernel to the minimum version or higher.")
    tb = ["Traceback (most recent call last):",
          '  File "/workspace/dpo/train_dpo.py", line 22, in <module>',
          "    from flash_attn.bert_padding import pad_input, unpad_input",
          f'  File "{site}/flash_attn/__init__.py", line 3, in <module>',
          "    from flash_attn.flash_attn_interface import (",
          f'  File "{site}/flash_attn/flash_attn_interface.py", line 10, in <module>',
          "    import flash_attn_2_cuda as flash_attn_cuda",
          f"ImportError: {site}/flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so: undefined symbol: {sym}"]
    # four ranks print the same traceback, interleaved line by line at random
    streams = [list(tb) for _ in range(4)]
    idx = [0, 0, 0, 0]
    while any(idx[r] < len(streams[r]) for r in range(4)):
        r = rng.choice([r for r in range(4) if idx[r] < len(streams[r])])
        take = rng.randint(1, 3)
        lines += streams[r][idx[r]: idx[r] + take]
        idx[r] += take
    clock.at(6.4)
    pids = [5184, 5185, 5186, 5187]
    tid = 140398812153664
    t = clock.glog(tid)
    lines.append(f"E{t} torch/distributed/elastic/multiprocessing/api.py:826] failed (exitcode: 1) local_rank: 0 (pid: {pids[0]}) of binary: /usr/bin/python")
    lines += ["Traceback (most recent call last):",
              *accelerate_launch_frames("/usr/local/bin/accelerate", site, 47, 1014, "multi_gpu_launcher", 672),
              *elastic_launch_frames(site, 870, 132),
              f'  File "{site}/torch/distributed/launcher/api.py", line 263, in launch_agent',
              "    raise ChildFailedError("]
    when = clock.elastic()
    fails = [dict(time=when, host="dpo-h100-7c9f5d-0", rank=r, local_rank=r, exitcode=1, pid=pids[r]) for r in range(4)]
    lines += child_failed_block("train_dpo.py", fails, site, "", {}, header_tb=[])
    write_case("extension-undefined-symbol-ngc-prebuilt-wheel-02", dict(
        label="extension-undefined-symbol", difficulty="medium",
        description="NGC 24.02 container (torch built with the C++11 ABI) with a prebuilt flash-attn wheel built for "
                    "the old ABI; every rank of a 4xH100 accelerate DPO run fails at import on torchCheckFail(..., "
                    "std::string) mangled as 'Ss', the run ends with ChildFailedError.",
        initiating_rank=0,
        facts=dict(gpu_model="H100 80GB HBM3", gpu_count="4", driver_version="550.54.15", launcher="accelerate",
                   world_size="4", flash_attn_version="2.5.6", transformers_version="4.38.2",
                   accelerate_version="0.27.2"),
        must_mention=["ABI", "flash"]), {"train.log": "\n".join(lines)})


@case
def ext_xformers_torch_mismatch_03():
    rng = random.Random(103)
    site = "/home/mchen/miniconda3/envs/sdxl/lib/python3.10/site-packages"
    clock = Clock("2024-05-14 10:01:52", rng)
    lines = ["(sdxl) mchen@ws-4090:~/projects/sdxl-lora$ nvidia-smi -L"]
    lines += [f"GPU {i}: NVIDIA GeForce RTX 4090 (UUID: GPU-{hex_token(rng, 8)}-{hex_token(rng, 4)}-{hex_token(rng, 4)}-{hex_token(rng, 4)}-{hex_token(rng, 12)})" for i in range(2)]
    lines += ["(sdxl) mchen@ws-4090:~/projects/sdxl-lora$ accelerate launch --multi_gpu --num_processes 2 --mixed_precision fp16 train_text_to_image_lora_sdxl.py \\",
             ">   --pretrained_model_name_or_path stabilityai/stable-diffusion-xl-base-1.0 \\",
             ">   --pretrained_vae_model_name_or_path madebyollin/sdxl-vae-fp16-fix \\",
             ">   --dataset_name ./data/product_shots --caption_column text --resolution 1024 \\",
             ">   --train_batch_size 1 --gradient_accumulation_steps 4 --gradient_checkpointing \\",
             ">   --learning_rate 1e-04 --lr_scheduler constant --max_train_steps 3000 --checkpointing_steps 500 \\",
             ">   --enable_xformers_memory_efficient_attention --seed 42 --output_dir out/product-lora-r16 --report_to tensorboard",
             "The following values were not passed to `accelerate launch` and had defaults used instead:",
             "\t`--num_machines` was set to a value of `1`",
             "\t`--dynamo_backend` was set to a value of `'no'`",
             "To avoid this warning pass in values for each of the problematic parameters or run `accelerate config`."]
    warn = ["WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:",
            "    PyTorch 2.2.1+cu121 with CUDA 1201 (you have 2.3.0+cu121)",
            "    Python  3.10.13 (you have 3.10.14)",
            "  Please reinstall xformers (see https://github.com/facebookresearch/xformers#installing-xformers)",
            "  Memory-efficient attention, SwiGLU, sparse and more won't be available.",
            "  Set XFORMERS_MORE_DETAILS=1 for more details"]
    lines += warn + warn
    d = clock.t.strftime("%m/%d/%Y")

    def tlog(msg, lo=0.01, hi=0.4):
        t = clock.tick(lo, hi)
        return f"{d} {t.strftime('%H:%M:%S')} - INFO - __main__ - {msg}"

    for r in range(2):
        lines += [tlog("Distributed environment: MULTI_GPU  Backend: nccl"),
                  "Num processes: 2",
                  f"Process index: {r}",
                  f"Local process index: {r}",
                  f"Device: cuda:{r}",
                  "",
                  "Mixed precision type: fp16",
                  ""]
    lines += ["You are using a model of type clip_text_model to instantiate a model of type . This is not supported for all configurations of models and can yield errors.",
              "You are using a model of type clip_text_model to instantiate a model of type . This is not supported for all configurations of models and can yield errors.",
              "{'variance_type', 'dynamic_thresholding_ratio', 'thresholding', 'clip_sample_range'} was not found in config. Values will be initialized to default values.",
              "{'variance_type', 'dynamic_thresholding_ratio', 'thresholding', 'clip_sample_range'} was not found in config. Values will be initialized to default values.",
              "{'reverse_transformer_layers_per_block', 'dropout', 'attention_type'} was not found in config. Values will be initialized to default values.",
              "{'reverse_transformer_layers_per_block', 'dropout', 'attention_type'} was not found in config. Values will be initialized to default values.",
              ]
    # the real failure: diffusers' test call of memory_efficient_attention at enable time
    err = ["Traceback (most recent call last):",
           '  File "/home/mchen/projects/sdxl-lora/train_text_to_image_lora_sdxl.py", line 1311, in <module>',
           "    main(args)",
           '  File "/home/mchen/projects/sdxl-lora/train_text_to_image_lora_sdxl.py", line 684, in main',
           "    unet.enable_xformers_memory_efficient_attention()",
           f'  File "{site}/diffusers/models/modeling_utils.py", line 284, in enable_xformers_memory_efficient_attention',
           "    self.set_use_memory_efficient_attention_xformers(True, attention_op)",
           f'  File "{site}/diffusers/models/modeling_utils.py", line 250, in set_use_memory_efficient_attention_xformers',
           "    fn_recursive_set_mem_eff(module)",
           f'  File "{site}/diffusers/models/modeling_utils.py", line 246, in fn_recursive_set_mem_eff',
           "    fn_recursive_set_mem_eff(child)",
           f'  File "{site}/diffusers/models/modeling_utils.py", line 246, in fn_recursive_set_mem_eff',
           "    fn_recursive_set_mem_eff(child)",
           f'  File "{site}/diffusers/models/modeling_utils.py", line 246, in fn_recursive_set_mem_eff',
           "    fn_recursive_set_mem_eff(child)",
           f'  File "{site}/diffusers/models/modeling_utils.py", line 243, in fn_recursive_set_mem_eff',
           "    module.set_use_memory_efficient_attention_xformers(valid, attention_op)",
           f'  File "{site}/diffusers/models/attention_processor.py", line 321, in set_use_memory_efficient_attention_xformers',
           "    raise e",
           f'  File "{site}/diffusers/models/attention_processor.py", line 315, in set_use_memory_efficient_attention_xformers',
           "    _ = xformers.ops.memory_efficient_attention(",
           f'  File "{site}/xformers/ops/fmha/__init__.py", line 247, in memory_efficient_attention',
           "    return _memory_efficient_attention(",
           f'  File "{site}/xformers/ops/fmha/__init__.py", line 365, in _memory_efficient_attention',
           "    return _memory_efficient_attention_forward(",
           f'  File "{site}/xformers/ops/fmha/__init__.py", line 381, in _memory_efficient_attention_forward',
           "    op = _dispatch_fw(inp, False)",
           f'  File "{site}/xformers/ops/fmha/dispatch.py", line 125, in _dispatch_fw',
           "    return _run_priority_list(",
           f'  File "{site}/xformers/ops/fmha/dispatch.py", line 65, in _run_priority_list',
           "    raise NotImplementedError(msg)",
           "NotImplementedError: No operator found for `memory_efficient_attention_forward` with inputs:",
           "     query       : shape=(1, 2, 1, 40) (torch.float32)",
           "     key         : shape=(1, 2, 1, 40) (torch.float32)",
           "     value       : shape=(1, 2, 1, 40) (torch.float32)",
           "     attn_bias   : <class 'NoneType'>",
           "     p           : 0.0",
           "`decoderF` is not supported because:",
           "    xFormers wasn't build with CUDA support",
           "    attn_bias type is <class 'NoneType'>",
           "    operator wasn't built - see `python -m xformers.info` for more info",
           "`flshattF@0.0.0` is not supported because:",
           "    xFormers wasn't build with CUDA support",
           "    dtype=torch.float32 (supported: {torch.bfloat16, torch.float16})",
           "    operator wasn't built - see `python -m xformers.info` for more info",
           "`cutlassF` is not supported because:",
           "    xFormers wasn't build with CUDA support",
           "    operator wasn't built - see `python -m xformers.info` for more info",
           "`smallkF` is not supported because:",
           "    max(query.shape[-1] != value.shape[-1]) > 32",
           "    xFormers wasn't build with CUDA support",
           "    operator wasn't built - see `python -m xformers.info` for more info",
           "    unsupported embed per head: 40"]
    lines += err + err
    clock.at(2.2)
    t = clock.glog(139721588418368)
    lines.append(f"E{t} torch/distributed/elastic/multiprocessing/api.py:826] failed (exitcode: 1) local_rank: 0 (pid: 48113) of binary: /home/mchen/miniconda3/envs/sdxl/bin/python")
    lines += ["Traceback (most recent call last):",
              *accelerate_launch_frames("/home/mchen/miniconda3/envs/sdxl/bin/accelerate", site, 46, 1073, "multi_gpu_launcher", 718),
              *elastic_launch_frames(site, 870, 132),
              f'  File "{site}/torch/distributed/launcher/api.py", line 263, in launch_agent',
              "    raise ChildFailedError("]
    when = clock.elastic()
    fails = [dict(time=when, host="ws-4090", rank=0, local_rank=0, exitcode=1, pid=48113),
             dict(time=when, host="ws-4090", rank=1, local_rank=1, exitcode=1, pid=48114)]
    lines += child_failed_block("train_text_to_image_lora_sdxl.py", fails, site, "", {}, header_tb=[])
    lines.append("(sdxl) mchen@ws-4090:~/projects/sdxl-lora$ ")
    write_case("extension-undefined-symbol-xformers-torch-mismatch-03", dict(
        label="extension-undefined-symbol", difficulty="hard",
        description="SDXL LoRA training on 2x RTX 4090 with accelerate; xformers 0.0.25 was built for torch 2.2.1 but "
                    "torch 2.3.0 is installed, so its C++/CUDA ops do not load (only a warning) and the visible error "
                    "is diffusers' NotImplementedError 'xFormers wasn't build with CUDA support'.",
        initiating_rank=0,
        facts=dict(gpu_model="GeForce RTX 4090", gpu_count="2", launcher="accelerate", world_size="2", precision="fp16"),
        must_mention=["xformers", "version"],
        secrets=["mchen"]), {"train.log": "\n".join(lines)})


def interleave(rng: random.Random, streams: list[list[str]], max_chunk: int = 3) -> list[str]:
    out, idx = [], [0] * len(streams)
    while any(idx[i] < len(s) for i, s in enumerate(streams)):
        i = rng.choice([i for i, s in enumerate(streams) if idx[i] < len(s)])
        take = rng.randint(1, max_chunk)
        out += streams[i][idx[i]: idx[i] + take]
        idx[i] += take
    return out


@case
def ext_transformers_wrapped_cxx11_04():
    rng = random.Random(104)
    env = "/opt/conda/envs/llm"
    site = f"{env}/lib/python3.10/site-packages"
    clock = Clock("2024-06-03 21:40:05", rng)
    sym = "_ZN3c105ErrorC2ENS_14SourceLocationENSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE"
    lines = ["[setup] job 7731 on gpu-c12 started Mon Jun  3 21:40:05 UTC 2024",
             "[setup] installing shared wheels from /shared/wheels",
             "Processing /shared/wheels/flash_attn-2.5.8-cp310-cp310-linux_x86_64.whl",
             "Requirement already satisfied: torch in /opt/conda/envs/llm/lib/python3.10/site-packages (from flash-attn==2.5.8) (2.3.1)",
             "Requirement already satisfied: einops in /opt/conda/envs/llm/lib/python3.10/site-packages (from flash-attn==2.5.8) (0.8.0)",
             "Installing collected packages: flash-attn",
             "  Attempting uninstall: flash-attn",
             "    Found existing installation: flash-attn 2.5.6",
             "    Uninstalling flash-attn-2.5.6:",
             "      Successfully uninstalled flash-attn-2.5.6",
             "Successfully installed flash-attn-2.5.8",
             "[setup] python -c 'import torch; print(...)'",
             "torch 2.3.1+cu121 cuda 12.1 cxx11_abi=False devices=8",
             "[setup] launching: torchrun --nproc_per_node 8 --master_port 29511 train.py --config configs/llama3_8b_sft.yaml"]
    tid = 139844170045248
    lines += torchrun_banner_new(clock, tid, 793)
    clock.at(4.1)
    pfx = lambda r: f"[rank{r}]:"
    pre = []
    for r in range(8):
        ts = clock.tick(0.01, 0.3).strftime("%Y-%m-%d %H:%M:%S")
        s = [f"{pfx(r)}[{ts}] [train.py:61] rank {r}/8 local_rank {r} device cuda:{r}"]
        if r == 0:
            s += [f"{pfx(r)}[{ts}] [train.py:64] config: model=meta-llama/Meta-Llama-3-8B attn_implementation=flash_attention_2 bf16=True seq_len=8192 micro_bs=2 grad_accum=8 lr=2e-05 zero=none fsdp=full_shard",
                  f"{pfx(r)}Special tokens have been added in the vocabulary, make sure the associated word embeddings are fine-tuned or trained."]
        pre.append(s)
    lines += interleave(rng, pre, 2)
    clock.at(2.7)
    tb_lines = [
        "Traceback (most recent call last):",
        f'  File "{site}/transformers/utils/import_utils.py", line 1535, in _get_module',
        '    return importlib.import_module("." + module_name, self.__name__)',
        f'  File "{env}/lib/python3.10/importlib/__init__.py", line 126, in import_module',
        "    return _bootstrap._gcd_import(name[level:], package, level)",
        '  File "<frozen importlib._bootstrap>", line 1050, in _gcd_import',
        '  File "<frozen importlib._bootstrap>", line 1027, in _find_and_load',
        '  File "<frozen importlib._bootstrap>", line 1006, in _find_and_load_unlocked',
        '  File "<frozen importlib._bootstrap>", line 688, in _load_unlocked',
        '  File "<frozen importlib._bootstrap_external>", line 883, in exec_module',
        '  File "<frozen importlib._bootstrap>", line 241, in _call_with_frames_removed',
        f'  File "{site}/transformers/models/llama/modeling_llama.py", line 54, in <module>',
        "    from flash_attn import flash_attn_func, flash_attn_varlen_func",
        f'  File "{site}/flash_attn/__init__.py", line 3, in <module>',
        "    from flash_attn.flash_attn_interface import (",
        f'  File "{site}/flash_attn/flash_attn_interface.py", line 10, in <module>',
        "    import flash_attn_2_cuda as flash_attn_cuda",
        f"ImportError: {site}/flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so: undefined symbol: {sym}",
        "",
        "The above exception was the direct cause of the following exception:",
        "",
        "Traceback (most recent call last):",
        '  File "/home/svc-train/llm-sft/train.py", line 203, in <module>',
        "    main()",
        '  File "/home/svc-train/llm-sft/train.py", line 118, in main',
        "    model = AutoModelForCausalLM.from_pretrained(",
        f'  File "{site}/transformers/models/auto/auto_factory.py", line 558, in from_pretrained',
        "    model_class = _get_model_class(config, cls._model_mapping)",
        f'  File "{site}/transformers/models/auto/auto_factory.py", line 381, in _get_model_class',
        "    supported_models = model_mapping[type(config)]",
        f'  File "{site}/transformers/models/auto/auto_factory.py", line 732, in __getitem__',
        "    return self._load_attr_from_module(model_type, model_name)",
        f'  File "{site}/transformers/models/auto/auto_factory.py", line 746, in _load_attr_from_module',
        "    return getattribute_from_module(self._modules[module_name], attr)",
        f'  File "{site}/transformers/models/auto/auto_factory.py", line 690, in getattribute_from_module',
        "    if hasattr(module, attr):",
        f'  File "{site}/transformers/utils/import_utils.py", line 1525, in __getattr__',
        "    module = self._get_module(self._class_to_module[name])",
        f'  File "{site}/transformers/utils/import_utils.py", line 1537, in _get_module',
        "    raise RuntimeError(",
        "RuntimeError: Failed to import transformers.models.llama.modeling_llama because of the following error (look up to see its traceback):",
        f"{site}/flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so: undefined symbol: {sym}"]
    order = [3, 0, 5, 1, 6, 2, 7, 4]
    streams = [[f"{pfx(r)}{ln}" for ln in tb_lines] for r in order]
    lines += interleave(rng, streams, 4)
    clock.at(1.3)
    pids = {r: 61402 + r for r in range(8)}
    for r in [0, 1, 2, 4, 5, 6, 7]:
        t = clock.glog(tid, 0.0005, 0.002)
        lines.append(f"W{t} torch/distributed/elastic/multiprocessing/api.py:851] Sending process {pids[r]} closing signal SIGTERM")
    t = clock.glog(tid, 0.2, 0.4)
    lines.append(f"E{t} torch/distributed/elastic/multiprocessing/api.py:826] failed (exitcode: 1) local_rank: 3 (pid: {pids[3]}) of binary: {env}/bin/python")
    when = clock.elastic()
    lines += child_failed_block("train.py", [dict(time=when, host="gpu-c12", rank=3, local_rank=3, exitcode=1, pid=pids[3])],
                                site, f"{env}/bin/torchrun", dict(wrapper=347, main=879, run=870, call=132, agent=263))
    write_case("extension-undefined-symbol-transformers-wrapped-04", dict(
        label="extension-undefined-symbol", difficulty="medium",
        description="8-rank torchrun SFT; a flash-attn wheel built elsewhere with the C++11 ABI was installed into a "
                    "PyPI-torch env (cxx11_abi=False). transformers' lazy import re-raises it as 'Failed to import "
                    "transformers.models.llama.modeling_llama'; the undefined __cxx11 symbol is in the chained error.",
        initiating_rank=3,
        facts=dict(torch_version="2.3.1", cuda_version="12.1", launcher="torchrun", world_size="8",
                   flash_attn_version="2.5.8", exit_code="1"),
        must_mention=["ABI", "flash"]), {"train.log": "\n".join(lines)})


# ================================================================================================================
# cuda-version-mismatch-build
# ================================================================================================================

@case
def cvm_conda_nvcc_124_01():
    rng = random.Random(201)
    env = "/home/priya/miniforge3/envs/sparse"
    site = f"{env}/lib/python3.10/site-packages"
    smi = nvidia_smi("Tue Jun 18 15:52:07 2024", "550.67", "12.4",
                     [gpu("RTX A6000", 49140, "00000000:41:00.0", rng, cap=300, fan="30%", perf="P8", pwr=21, used=12,
                          pm="Off", ecc="Off", mig="N/A")], style="550")
    lines = ["(sparse) priya@lab-a6000:~/code/blocksparse-attn$ nvidia-smi"] + smi.split("\n")
    lines += ["(sparse) priya@lab-a6000:~/code/blocksparse-attn$ python -c 'import torch; print(torch.__version__, torch.version.cuda, torch.cuda.get_device_name(0))'",
              "2.0.1 11.8 NVIDIA RTX A6000",
              "(sparse) priya@lab-a6000:~/code/blocksparse-attn$ conda list | grep -E 'cuda|pytorch|nvcc'",
             "cuda-cccl                 12.4.127                      0    nvidia",
             "cuda-nvcc                 12.4.131                      0    nvidia",
             "cuda-version              12.4                 h3060b56_3    conda-forge",
             "pytorch                   2.0.1           py3.10_cuda11.8_cudnn8.7.0_0    pytorch",
             "pytorch-cuda              11.8                 h7e8668a_5    pytorch",
             "pytorch-mutex             1.0                        cuda    pytorch",
             "(sparse) priya@lab-a6000:~/code/blocksparse-attn$ which nvcc && nvcc --version",
             f"{env}/bin/nvcc",
             "nvcc: NVIDIA (R) Cuda compiler driver",
             "Copyright (c) 2005-2024 NVIDIA Corporation",
             "Built on Thu_Mar_28_02:18:24_PDT_2024",
             "Cuda compilation tools, release 12.4, V12.4.131",
             "Build cuda_12.4.r12.4/compiler.34097967_0",
             "(sparse) priya@lab-a6000:~/code/blocksparse-attn$ cd csrc && python setup.py build_ext --inplace",
             "running build_ext",
             "Traceback (most recent call last):",
             '  File "/home/priya/code/blocksparse-attn/csrc/setup.py", line 38, in <module>',
             "    setup(",
             f'  File "{site}/setuptools/__init__.py", line 107, in setup',
             "    return distutils.core.setup(**attrs)",
             f'  File "{site}/setuptools/_distutils/core.py", line 185, in setup',
             "    return run_commands(dist)",
             f'  File "{site}/setuptools/_distutils/core.py", line 201, in run_commands',
             "    dist.run_commands()",
             f'  File "{site}/setuptools/_distutils/dist.py", line 969, in run_commands',
             "    self.run_command(cmd)",
             f'  File "{site}/setuptools/dist.py", line 1234, in run_command',
             "    super().run_command(command)",
             f'  File "{site}/setuptools/_distutils/dist.py", line 988, in run_command',
             "    cmd_obj.run()",
             f'  File "{site}/setuptools/command/build_ext.py", line 84, in run',
             "    _build_ext.run(self)",
             f'  File "{site}/setuptools/_distutils/command/build_ext.py", line 345, in run',
             "    self.build_extensions()",
             f'  File "{site}/torch/utils/cpp_extension.py", line 499, in build_extensions',
             "    _check_cuda_version(compiler_name, compiler_version)",
             f'  File "{site}/torch/utils/cpp_extension.py", line 387, in _check_cuda_version',
             "    raise RuntimeError(CUDA_MISMATCH_MESSAGE.format(cuda_str_version, torch.version.cuda))",
             "RuntimeError: ",
             "The detected CUDA version (12.4) mismatches the version that was used to compile",
             "PyTorch (11.8). Please make sure to use the same CUDA versions.",
             "",
             "(sparse) priya@lab-a6000:~/code/blocksparse-attn/csrc$ "]
    write_case("cuda-version-mismatch-build-conda-nvcc-01", dict(
        label="cuda-version-mismatch-build", difficulty="easy",
        description="In-house CUDA extension built with setup.py in a conda env: torch 2.0.1 is the CUDA 11.8 build, "
                    "but `conda install cuda-nvcc` pulled nvcc 12.4 into the env; torch's BuildExtension refuses.",
        facts=dict(gpu_model="RTX A6000", driver_version="550.67", cuda_version="11.8", torch_version="2.0.1"),
        must_mention=["nvcc", "11.8"], secrets=["priya"]), {"build.log": "\n".join(lines)})


@case
def cvm_deepspeed_ci_117_02():
    rng = random.Random(202)
    clock = Clock("2024-01-22 16:03:12", rng)
    cpu = lscpu("AMD EPYC 7R13 Processor", 1, 24, 2, "3600.0000")
    ce = collect_env("2.1.2+cu121", "12.1", "Ubuntu 22.04.3 LTS (x86_64)", "(Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0",
                     "glibc-2.35", "3.10.12", "(main, Nov 20 2023, 15:14:05) [GCC 11.4.0]",
                     "Linux-5.15.0-1051-aws-x86_64-with-glibc2.35", "11.7.99", ["NVIDIA A10G"], "535.104.12",
                     "Could not collect", cpu,
                     ["numpy==1.26.3", "torch==2.1.2", "triton==2.1.0"])
    lines = ["Running with gitlab-runner 16.6.1 (f5da3c5a)",
             "  on gpu-runner-a10g-02 xK7pQm2Z, system ID: s_5d2b8f1e0a4c",
             "Preparing the \"docker\" executor",
             "Using Docker executor with image registry.gitlab.internal/ml-platform/train-base:cu117-py310 ...",
             "Pulling docker image registry.gitlab.internal/ml-platform/train-base:cu117-py310 ...",
             "Using docker image sha256:7e1c0d2b9a54f6e3c8b1a0f9d2e4c6b8a0d1f3e5c7b9a1d3f5e7c9b1a3d5f7e9 for registry.gitlab.internal/ml-platform/train-base:cu117-py310 with digest registry.gitlab.internal/ml-platform/train-base@sha256:1f0b7c3e5d9a2c4e6f8b0d2a4c6e8f0b2d4a6c8e0f2b4d6a8c0e2f4b6d8a0c2e ...",
             "Preparing environment",
             "Running on runner-xk7pqm2z-project-412-concurrent-0 via gpu-runner-a10g-02...",
             "Getting source from Git repository",
             "Fetching changes with git depth set to 20...",
             "Reinitialized existing Git repository in /builds/ml-platform/llm-finetune/.git/",
             "Checking out 9c41e0d2 as detached HEAD (ref is refs/merge-requests/218/head)...",
             "Skipping Git submodules setup",
             "Executing \"step_script\" stage of the job script",
             "$ pip install --upgrade --index-url https://download.pytorch.org/whl/cu121 torch==2.1.2",
             "Looking in indexes: https://download.pytorch.org/whl/cu121",
             "Collecting torch==2.1.2",
             "  Downloading https://download.pytorch.org/whl/cu121/torch-2.1.2%2Bcu121-cp310-cp310-linux_x86_64.whl (2200.7 MB)",
             "     ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━ 2.2/2.2 GB 38.5 MB/s eta 0:00:00",
             "Requirement already satisfied: filelock in /usr/local/lib/python3.10/dist-packages (from torch==2.1.2) (3.13.1)",
             "Requirement already satisfied: typing-extensions in /usr/local/lib/python3.10/dist-packages (from torch==2.1.2) (4.9.0)",
             "Collecting triton==2.1.0 (from torch==2.1.2)",
             "  Downloading https://download.pytorch.org/whl/triton-2.1.0-0-cp310-cp310-manylinux2014_x86_64.manylinux_2_17_x86_64.whl (89.2 MB)",
             "     ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━ 89.2/89.2 MB 61.0 MB/s eta 0:00:00",
             "Installing collected packages: triton, torch",
             "  Attempting uninstall: triton",
             "    Found existing installation: triton 2.0.0",
             "    Uninstalling triton-2.0.0:",
             "      Successfully uninstalled triton-2.0.0",
             "  Attempting uninstall: torch",
             "    Found existing installation: torch 2.0.1+cu117",
             "    Uninstalling torch-2.0.1+cu117:",
             "      Successfully uninstalled torch-2.0.1+cu117",
             "ERROR: pip's dependency resolver does not currently take into account all the packages that are installed. This behaviour is the source of the following dependency conflicts.",
             "torchvision 0.15.2+cu117 requires torch==2.0.1, but you have torch 2.1.2+cu121 which is incompatible.",
             "Successfully installed torch-2.1.2+cu121 triton-2.1.0",
             "$ python -m torch.utils.collect_env"] + ce.split("\n")
    lines += ["$ export DS_BUILD_CPU_ADAM=1 DS_BUILD_FUSED_ADAM=1 DS_BUILD_UTILS=1",
              "$ pip install --no-cache-dir deepspeed==0.12.6",
              "Collecting deepspeed==0.12.6",
              "  Downloading deepspeed-0.12.6.tar.gz (1.2 MB)",
              "     ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━ 1.2/1.2 MB 24.9 MB/s eta 0:00:00",
              "  Preparing metadata (setup.py): started",
              "  Preparing metadata (setup.py): finished with status 'error'",
              "  error: subprocess-exited-with-error",
              "  ",
              "  × python setup.py egg_info did not run successfully.",
              "  │ exit code: 1"]
    tmp = "/tmp/pip-install-3v9lq2ad/deepspeed_8d4f21c7b0e34a8d9f6e5c1b2a7d0e93"
    out = [f"[{clock.ds(40, 50)}] [INFO] [real_accelerator.py:161:get_accelerator] Setting ds_accelerator to cuda (auto detect)",
           "DS_BUILD_OPS=0",
           "Traceback (most recent call last):",
           '  File "<string>", line 2, in <module>',
           '  File "<pip-setuptools-caller>", line 34, in <module>',
           f'  File "{tmp}/setup.py", line 182, in <module>',
           "    ext_modules.append(builder.builder())",
           f'  File "{tmp}/op_builder/builder.py", line 653, in builder',
           "    assert_no_cuda_mismatch(self.name)",
           f'  File "{tmp}/op_builder/builder.py", line 100, in assert_no_cuda_mismatch',
           "    raise CUDAMismatchException(",
           "op_builder.builder.CUDAMismatchException: >- DeepSpeed Op Builder: Installed CUDA version 11.7 does not match the version torch was compiled with 12.1, unable to compile cuda/cpp extensions without a matching cuda version."]
    lines.append(f"  ╰─> [{len(out)} lines of output]")
    lines += ["      " + ln for ln in out]
    lines += [*pip_metadata_generation_failed(),
              "Cleaning up project directory and file based variables",
              "ERROR: Job failed: exit code 1"]
    write_case("cuda-version-mismatch-build-deepspeed-ci-02", dict(
        label="cuda-version-mismatch-build", difficulty="medium",
        description="GitLab CI image with the CUDA 11.7 toolkit; the job upgrades torch to the cu121 build, then "
                    "builds DeepSpeed ops (DS_BUILD_*) and DeepSpeed raises CUDAMismatchException inside pip's "
                    "captured output; the job ends with generic pip and runner errors.",
        facts=dict(gpu_model="A10G", driver_version="535.104.12", torch_version="2.1.2", cuda_version="12.1",
                   python_version="3.10.12", deepspeed_version="0.12.6"),
        must_mention=["11.7", "12.1"]), {"ci-job.log": "\n".join(lines)})


@case
def cvm_flashattn_apt_nvcc_03():
    rng = random.Random(203)
    smi = nvidia_smi("Wed Feb 14 11:26:48 2024", "535.146.02", "12.2",
                     [gpu("A100 80GB PCIe", 81920, "00000001:00:00.0", rng, cap=300)], style="535")
    lines = ["azureuser@ft-a100-vm:~$ nvidia-smi"] + smi.split("\n")
    lines += ["azureuser@ft-a100-vm:~$ sudo apt-get install -y ninja-build nvidia-cuda-toolkit",
              "Reading package lists... Done",
              "Building dependency tree... Done",
              "Reading state information... Done",
              "The following additional packages will be installed:",
              "  ca-certificates-java default-jre-headless fonts-dejavu-extra java-common libaccinj64-11.5",
              "  libcub-dev libcublas11 libcublaslt11 libcudart11.0 libcufft10 libcufftw10 libcuinj64-11.5",
              "  libcupti-dev libcupti-doc libcupti11.5 libcurand10 libcusolver11 libcusolvermg11 libcusparse11",
              "  libnppc11 libnppial11 libnppicc11 libnppidei11 libnppif11 libnppig11 libnppim11 libnppist11",
              "  libnppisu11 libnppitc11 libnpps11 libnvblas11 libnvidia-ml-dev libnvjpeg11 libnvrtc-builtins11.5",
              "  libnvrtc11.2 libnvtoolsext1 libnvvm4 libthrust-dev node-html5shiv nvidia-cuda-dev nvidia-cuda-gdb",
              "  nvidia-cuda-toolkit-doc nvidia-opencl-dev nvidia-profiler nvidia-visual-profiler ocl-icd-opencl-dev",
              "  openjdk-11-jre-headless opencl-c-headers opencl-clhpp-headers",
              "0 upgraded, 52 newly installed, 0 to remove and 41 not upgraded.",
              "Need to get 2,071 MB of archives.",
              "After this operation, 5,498 MB of additional disk space will be used.",
              "Get:1 http://azure.archive.ubuntu.com/ubuntu jammy/multiverse amd64 libcudart11.0 amd64 11.5.117~11.5.1-1ubuntu1 [163 kB]",
              "Get:2 http://azure.archive.ubuntu.com/ubuntu jammy/multiverse amd64 libcublaslt11 amd64 11.7.4.6~11.5.1-1ubuntu1 [173 MB]",
              "Fetched 2,071 MB in 41s (50.2 MB/s)",
              "Setting up nvidia-cuda-dev:amd64 (11.5.1-1ubuntu1) ...",
              "Setting up nvidia-cuda-toolkit (11.5.1-1ubuntu1) ...",
              "Processing triggers for man-db (2.10.2-1) ...",
              "Processing triggers for libc-bin (2.35-0ubuntu3.6) ...",
              "azureuser@ft-a100-vm:~$ source venv/bin/activate",
              "(venv) azureuser@ft-a100-vm:~$ python -c \"import torch; print(torch.__version__, torch.cuda.is_available(), torch.cuda.get_device_name(0))\"",
              "2.1.2+cu121 True NVIDIA A100 80GB PCIe",
              "(venv) azureuser@ft-a100-vm:~$ pip install packaging wheel",
              "Requirement already satisfied: packaging in ./venv/lib/python3.10/site-packages (23.2)",
              "Requirement already satisfied: wheel in ./venv/lib/python3.10/site-packages (0.42.0)",
              "(venv) azureuser@ft-a100-vm:~$ MAX_JOBS=8 pip install flash-attn==2.5.2 --no-build-isolation",
              "Collecting flash-attn==2.5.2",
              "  Downloading flash_attn-2.5.2.tar.gz (2.5 MB)",
              "     ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━ 2.5/2.5 MB 33.8 MB/s eta 0:00:00",
              "  Preparing metadata (setup.py) ... error",
              "  error: subprocess-exited-with-error",
              "  ",
              "  × python setup.py egg_info did not run successfully.",
              "  │ exit code: 1"]
    tmp = "/tmp/pip-install-w0t5rj1x/flash-attn_2f9d0b6a71c54e8c8d3a5b0e9c4f1a27"
    out = ["", "", "torch.__version__  = 2.1.2+cu121", "", "",
           "Traceback (most recent call last):",
           '  File "<string>", line 2, in <module>',
           '  File "<pip-setuptools-caller>", line 34, in <module>',
           f'  File "{tmp}/setup.py", line 136, in <module>',
           "    raise RuntimeError(",
           "RuntimeError: FlashAttention is only supported on CUDA 11.6 and above.  Note: make sure nvcc has a supported version by running nvcc -V."]
    lines.append(f"  ╰─> [{len(out)} lines of output]")
    lines += [("      " + ln) if ln else "      " for ln in out]
    lines += [*pip_metadata_generation_failed(),
              "(venv) azureuser@ft-a100-vm:~$ "]
    write_case("cuda-version-mismatch-build-flashattn-apt-nvcc-03", dict(
        label="cuda-version-mismatch-build", difficulty="hard",
        description="Azure A100 VM: torch 2.1.2+cu121 works and nvidia-smi says CUDA 12.2, but installing Ubuntu's "
                    "nvidia-cuda-toolkit put nvcc 11.5 in /usr/bin, so CUDA_HOME resolves to it; flash-attn's build "
                    "says 'only supported on CUDA 11.6 and above', which reads like a driver/CUDA problem.",
        facts=dict(gpu_model="A100 80GB PCIe", driver_version="535.146.02", torch_version="2.1.2",
                   cuda_version="12.1"),
        must_mention=["nvcc", "CUDA_HOME"]), {"session.log": "\n".join(lines)})


# ================================================================================================================
# bitsandbytes-setup
# ================================================================================================================

BNB_RUNTIME_ERROR = [
    "RuntimeError: ",
    "        CUDA Setup failed despite GPU being available. Please run the following command to get more information:",
    "",
    "        python -m bitsandbytes",
    "",
    "        Inspect the output of the command and see if you can locate CUDA libraries. You might need to add them",
    "        to your LD_LIBRARY_PATH. If you suspect a bug, please take the information from python -m bitsandbytes",
    "        and open an issue at: https://github.com/TimDettmers/bitsandbytes/issues",
]


def bnb_import_chain(site: str) -> list[str]:
    return [f'  File "{site}/bitsandbytes/__init__.py", line 6, in <module>',
            "    from . import cuda_setup, utils, research",
            f'  File "{site}/bitsandbytes/research/__init__.py", line 1, in <module>',
            "    from . import nn",
            f'  File "{site}/bitsandbytes/research/nn/__init__.py", line 1, in <module>',
            "    from .modules import LinearFP8Mixed, LinearFP8Global",
            f'  File "{site}/bitsandbytes/research/nn/modules.py", line 8, in <module>',
            "    from bitsandbytes.optim import GlobalOptimManager",
            f'  File "{site}/bitsandbytes/optim/__init__.py", line 6, in <module>',
            "    from bitsandbytes.cextension import COMPILED_WITH_CUDA",
            f'  File "{site}/bitsandbytes/cextension.py", line 20, in <module>',
            "    raise RuntimeError('''"]


@case
def bnb_k8s_no_libcudart_01():
    rng = random.Random(301)
    site = "/usr/local/lib/python3.10/dist-packages"
    smi = nvidia_smi("Fri Jul 14 08:31:02 2023", "525.105.17", "12.0",
                     [gpu("A10G", 23028, "00000000:00:1E.0", rng, cap=300, pm="On", fan="0%", perf="P8", pwr=16)],
                     style="old")
    lines = ["[entrypoint] pod qlora-falcon7b-5f7d9c-xq2lm starting at 2023-07-14T08:31:02Z"] + smi.split("\n")
    lines += ["[entrypoint] python3 -c 'import torch; print(torch.__version__, torch.version.cuda, torch.cuda.is_available())'",
              "2.0.1+cu118 11.8 True",
              "[entrypoint] exec python3 qlora.py --model_name_or_path tiiuae/falcon-7b --dataset oasst1 --bits 4 --bf16 --lora_r 64 --output_dir /output/falcon7b-qlora",
              "",
              "===================================BUG REPORT===================================",
              "Welcome to bitsandbytes. For bug reports, please run",
              "",
              "python -m bitsandbytes",
              "",
              " and submit this information together with your error trace to: https://github.com/TimDettmers/bitsandbytes/issues",
              "================================================================================",
              f"bin {site}/bitsandbytes/libbitsandbytes_cpu.so"]
    w = f"{site}/bitsandbytes/cuda_setup/main.py:149: UserWarning: "
    lines += [w + "WARNING: The following directories listed in your path were found to be non-existent: {PosixPath('/usr/local/nvidia/lib'), PosixPath('/usr/local/nvidia/lib64')}",
              "  warn(msg)",
              w + "WARNING: The following directories listed in your path were found to be non-existent: {PosixPath('443'), PosixPath('tcp'), PosixPath('//172.20.0.1')}",
              "  warn(msg)",
              w + "WARNING: The following directories listed in your path were found to be non-existent: {PosixPath('qlora-falcon7b-5f7d9c-xq2lm')}",
              "  warn(msg)",
              "CUDA_SETUP: WARNING! libcudart.so not found in any environmental path. Searching in backup paths...",
              w + "WARNING: No libcudart.so found! Install CUDA or the cudatoolkit package (anaconda)!",
              "  warn(msg)",
              "CUDA SETUP: Highest compute capability among GPUs detected: 8.6",
              "CUDA SETUP: Detected CUDA version None",
              "CUDA SETUP: Problem: The main issue seems to be that the main CUDA runtime library was not detected.",
              "CUDA SETUP: Solution 1: To solve the issue the libcudart.so location needs to be added to the LD_LIBRARY_PATH variable",
              "CUDA SETUP: Solution 1a): Find the cuda runtime library via: find / -name libcudart.so 2>/dev/null",
              "CUDA SETUP: Solution 1b): Once the library is found add it to the LD_LIBRARY_PATH: export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:FOUND_PATH_FROM_1a",
              "CUDA SETUP: Solution 1c): For a permanent solution add the export from 1b into your .bashrc file, located at ~/.bashrc",
              "CUDA SETUP: Solution 2: If no library was found in step 1a) you need to install CUDA.",
              "CUDA SETUP: Solution 2a): Download CUDA install script: wget https://github.com/TimDettmers/bitsandbytes/blob/main/cuda_install.sh",
              "CUDA SETUP: Solution 2b): Install desired CUDA version to desired location. The syntax is bash cuda_install.sh CUDA_VERSION PATH_TO_INSTALL_INTO.",
              "CUDA SETUP: Solution 2b): For example, \"bash cuda_install.sh 113 ~/local/\" will download CUDA 11.3 and install into the folder ~/local",
              "CUDA SETUP: Setup Failed!",
              "Traceback (most recent call last):",
              '  File "/app/qlora.py", line 21, in <module>',
              "    import bitsandbytes as bnb"] + bnb_import_chain(site) + BNB_RUNTIME_ERROR
    lines += ["[entrypoint] qlora.py exited with status 1"]
    write_case("bitsandbytes-setup-k8s-no-libcudart-01", dict(
        label="bitsandbytes-setup", difficulty="easy",
        description="Kubernetes QLoRA pod on an A10G: bitsandbytes 0.39-era CUDA setup searches LD_LIBRARY_PATH "
                    "(non-existent /usr/local/nvidia dirs) for libcudart.so, pip torch keeps its CUDA runtime in "
                    "site-packages, so setup fails with 'CUDA Setup failed despite GPU being available'.",
        facts=dict(gpu_model="A10G", driver_version="525.105.17", torch_version="2.0.1", cuda_version="11.8",
                   launcher="python"),
        must_mention=["bitsandbytes", "libcudart"]), {"pod.log": "\n".join(lines)})


@case
def bnb_cu124_wrapped_02():
    site = "/usr/local/lib/python3.10/site-packages"
    lines = ["$ python finetune_qlora.py --model meta-llama/Meta-Llama-3.1-8B-Instruct --data data/support_tickets.jsonl --lora-r 16 --bf16",
             "[2024-08-06 13:12:44] torch 2.4.0+cu124 | CUDA available: True | device: NVIDIA L4 (compute capability 8.9)",
             "[2024-08-06 13:12:44] transformers 4.43.3 | peft 0.12.0 | bitsandbytes 0.41.3.post2",
             "[2024-08-06 13:12:45] loading tokenizer...",
             "[2024-08-06 13:12:46] BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type='nf4', bnb_4bit_compute_dtype=torch.bfloat16, bnb_4bit_use_double_quant=True)",
             "False",
             "",
             "===================================BUG REPORT===================================",
             f"{site}/bitsandbytes/cuda_setup/main.py:167: UserWarning: Welcome to bitsandbytes. For bug reports, please run",
             "",
             "python -m bitsandbytes",
             "",
             "",
             "  warn(msg)",
             "================================================================================",
             f"{site}/bitsandbytes/cuda_setup/main.py:167: UserWarning: /usr/local did not contain ['libcudart.so', 'libcudart.so.11.0', 'libcudart.so.12.0'] as expected! Searching further paths...",
             "  warn(msg)",
             "The following directories listed in your path were found to be non-existent: {PosixPath('/usr/local/nvidia/lib64'), PosixPath('/usr/local/nvidia/lib')}",
             "CUDA SETUP: CUDA runtime path found: /usr/local/cuda/lib64/libcudart.so",
             "DEBUG: Possible options found for libcudart.so: {PosixPath('/usr/local/cuda/lib64/libcudart.so')}",
             "CUDA SETUP: PyTorch settings found: CUDA_VERSION=124, Highest Compute Capability: 8.9.",
             "CUDA SETUP: To manually override the PyTorch CUDA version please see:https://github.com/TimDettmers/bitsandbytes/blob/main/how_to_use_nonpytorch_cuda.md",
             "CUDA SETUP: Required library version not found: libbitsandbytes_cuda124.so. Maybe you need to compile it from source?",
             "CUDA SETUP: Defaulting to libbitsandbytes_cpu.so...",
             "",
             "================================================ERROR=====================================",
             "CUDA SETUP: CUDA detection failed! Possible reasons:",
             "1. You need to manually override the PyTorch CUDA version. Please see: \"https://github.com/TimDettmers/bitsandbytes/blob/main/how_to_use_nonpytorch_cuda.md",
             "2. CUDA driver not installed",
             "3. CUDA not installed",
             "4. You have multiple conflicting CUDA libraries",
             "5. Required library not pre-compiled for this bitsandbytes release!",
             "CUDA SETUP: If you compiled from source, try again with `make CUDA_VERSION=DETECTED_CUDA_VERSION` for example, `make CUDA_VERSION=113`.",
             "CUDA SETUP: The CUDA version for the compile might depend on your conda install. Inspect CUDA version via `conda list | grep cuda`.",
             "================================================================================",
             "",
             "CUDA SETUP: Something unexpected happened. Please compile from source:",
             "git clone https://github.com/TimDettmers/bitsandbytes.git",
             "cd bitsandbytes",
             "CUDA_VERSION=124 make cuda12x",
             "python setup.py install",
             "CUDA SETUP: Setup Failed!",
             "Traceback (most recent call last):",
             f'  File "{site}/transformers/utils/import_utils.py", line 1603, in _get_module',
             '    return importlib.import_module("." + module_name, self.__name__)',
             '  File "/usr/local/lib/python3.10/importlib/__init__.py", line 126, in import_module',
             "    return _bootstrap._gcd_import(name[level:], package, level)",
             '  File "<frozen importlib._bootstrap>", line 1050, in _gcd_import',
             '  File "<frozen importlib._bootstrap>", line 1027, in _find_and_load',
             '  File "<frozen importlib._bootstrap>", line 1006, in _find_and_load_unlocked',
             '  File "<frozen importlib._bootstrap>", line 688, in _load_unlocked',
             '  File "<frozen importlib._bootstrap_external>", line 883, in exec_module',
             '  File "<frozen importlib._bootstrap>", line 241, in _call_with_frames_removed',
             f'  File "{site}/transformers/integrations/bitsandbytes.py", line 21, in <module>',
             "    import bitsandbytes as bnb"] + bnb_import_chain(site) + BNB_RUNTIME_ERROR
    lines += ["",
              "The above exception was the direct cause of the following exception:",
              "",
              "Traceback (most recent call last):",
              '  File "/home/jovyan/work/finetune_qlora.py", line 97, in <module>',
              "    model = AutoModelForCausalLM.from_pretrained(",
              f'  File "{site}/transformers/models/auto/auto_factory.py", line 564, in from_pretrained',
              "    return model_class.from_pretrained(",
              f'  File "{site}/transformers/modeling_utils.py", line 3770, in from_pretrained',
              "    hf_quantizer.preprocess_model(",
              f'  File "{site}/transformers/quantizers/base.py", line 182, in preprocess_model',
              "    return self._process_model_before_weight_loading(model, **kwargs)",
              f'  File "{site}/transformers/quantizers/quantizer_bnb_4bit.py", line 287, in _process_model_before_weight_loading',
              "    from ..integrations import get_keys_to_not_convert, replace_with_bnb_linear",
              '  File "<frozen importlib._bootstrap>", line 1075, in _handle_fromlist',
              f'  File "{site}/transformers/utils/import_utils.py", line 1593, in __getattr__',
              "    module = self._get_module(self._class_to_module[name])",
              f'  File "{site}/transformers/utils/import_utils.py", line 1605, in _get_module',
              "    raise RuntimeError(",
              "RuntimeError: Failed to import transformers.integrations.bitsandbytes because of the following error (look up to see its traceback):",
              "",
              "        CUDA Setup failed despite GPU being available. Please run the following command to get more information:",
              "",
              "        python -m bitsandbytes",
              "",
              "        Inspect the output of the command and see if you can locate CUDA libraries. You might need to add them",
              "        to your LD_LIBRARY_PATH. If you suspect a bug, please take the information from python -m bitsandbytes",
              "        and open an issue at: https://github.com/TimDettmers/bitsandbytes/issues",
              "$ "]
    write_case("bitsandbytes-setup-cu124-wrapped-02", dict(
        label="bitsandbytes-setup", difficulty="medium",
        description="QLoRA notebook-server job on an L4: torch 2.4.0 is the CUDA 12.4 build but bitsandbytes 0.41.3 "
                    "ships no libbitsandbytes_cuda124.so; setup fails and transformers re-raises it as 'Failed to import "
                    "transformers.integrations.bitsandbytes' during from_pretrained.",
        facts=dict(gpu_model="L4", torch_version="2.4.0", cuda_version="12.4", transformers_version="4.43.3",
                   launcher="python", compute_capability="8.9"),
        must_mention=["bitsandbytes", "cuda124"]), {"finetune.log": "\n".join(lines)})


@case
def bnb_cpu_fallback_8bit_optim_03():
    rng = random.Random(303)
    site = "/usr/local/lib/python3.10/dist-packages"
    clock = Clock("2023-03-30 14:20:51", rng)
    pfx = lambda r: f"[default{r}]:"
    lines = ["root@train-7b-0:/workspace# torchrun --nproc_per_node 4 --tee 3 run_clm.py --model_name_or_path EleutherAI/pythia-1.4b-deduped --train_file data/domain_corpus.jsonl --block_size 2048 --per_device_train_batch_size 4 --gradient_accumulation_steps 4 --optim adamw_bnb_8bit --learning_rate 2e-5 --num_train_epochs 2 --fp16 --gradient_checkpointing --logging_steps 10 --save_steps 500 --output_dir /checkpoints/pythia-1.4b-domain --do_train",
             "WARNING:torch.distributed.run:",
             "*****************************************",
             "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. ",
             "*****************************************"]
    banner = ["",
              "===================================BUG REPORT===================================",
              "Welcome to bitsandbytes. For bug reports, please submit your error trace to: https://github.com/TimDettmers/bitsandbytes/issues",
              "================================================================================",
              "CUDA SETUP: WARNING! libcuda.so not found! Do you have a CUDA driver installed? If you are on a cluster, make sure you are on a CUDA machine!",
              f"CUDA SETUP: Loading binary {site}/bitsandbytes/libbitsandbytes_cpu.so...",
              f"{site}/bitsandbytes/cextension.py:31: UserWarning: The installed version of bitsandbytes was compiled without GPU support. 8-bit optimizers and GPU quantization are unavailable.",
              '  warn("The installed version of bitsandbytes was compiled without GPU support. "']
    streams = []
    for r in range(4):
        d = clock.t.strftime("%m/%d/%Y %H:%M:%S")
        s = [pfx(r) + ln for ln in banner]
        s.append(f"{pfx(r)}{d} - WARNING - __main__ - Process rank: {r}, device: cuda:{r}, n_gpu: 1distributed training: True, 16-bits training: True")
        streams.append(s)
    lines += interleave(rng, streams, 3)
    clock.at(2.0)
    ts = lambda: clock.ds(0.01, 0.3)
    lines += [f"{pfx(0)}[INFO|configuration_utils.py:668] {ts()} >> loading configuration file config.json from cache at /root/.cache/huggingface/hub/models--EleutherAI--pythia-1.4b-deduped/snapshots/4d3c7a4e0f0a83bbd3a4d51b7e8f2ac6b5f4a3e1/config.json",
              f"{pfx(0)}[INFO|configuration_utils.py:720] {ts()} >> Model config GPTNeoXConfig {{",
              f'{pfx(0)}  "_name_or_path": "EleutherAI/pythia-1.4b-deduped",',
              f'{pfx(0)}  "architectures": [',
              f'{pfx(0)}    "GPTNeoXForCausalLM"',
              f"{pfx(0)}  ],",
              f'{pfx(0)}  "hidden_size": 2048,',
              f'{pfx(0)}  "intermediate_size": 8192,',
              f'{pfx(0)}  "max_position_embeddings": 2048,',
              f'{pfx(0)}  "model_type": "gpt_neox",',
              f'{pfx(0)}  "num_attention_heads": 16,',
              f'{pfx(0)}  "num_hidden_layers": 24,',
              f'{pfx(0)}  "rotary_pct": 0.25,',
              f'{pfx(0)}  "torch_dtype": "float16",',
              f'{pfx(0)}  "transformers_version": "4.27.4",',
              f'{pfx(0)}  "use_parallel_residual": true,',
              f'{pfx(0)}  "vocab_size": 50304',
              f"{pfx(0)}}}",
              f"{pfx(0)}",
              f"{pfx(0)}[INFO|modeling_utils.py:2403] {ts()} >> loading weights file pytorch_model.bin from cache at /root/.cache/huggingface/hub/models--EleutherAI--pythia-1.4b-deduped/snapshots/4d3c7a4e0f0a83bbd3a4d51b7e8f2ac6b5f4a3e1/pytorch_model.bin"]
    clock.at(14)
    lines += [f"{pfx(0)}[INFO|modeling_utils.py:3032] {ts()} >> All model checkpoint weights were used when initializing GPTNeoXForCausalLM.",
              f"{pfx(0)}",
              f"{pfx(0)}[INFO|modeling_utils.py:3040] {ts()} >> All the weights of GPTNeoXForCausalLM were initialized from the model checkpoint at EleutherAI/pythia-1.4b-deduped.",
              f"{pfx(0)}If your task is similar to the task the model of the checkpoint was trained on, you can already use GPTNeoXForCausalLM for predictions without further training."]
    for r in range(4):
        lines.append(f"{pfx(r)}Running tokenizer on dataset:   0%|          | 0/120000 [00:00<?, ? examples/s]")
    clock.at(95)
    lines += [f"{pfx(0)}Grouping texts in chunks of 2048: 100%|██████████| 120000/120000 [00:41<00:00, 2890.11 examples/s]",
              f"{pfx(0)}[INFO|trainer.py:565] {ts()} >> Using cuda_amp half precision backend",
              f"{pfx(0)}[INFO|trainer.py:1650] {ts()} >> ***** Running training *****",
              f"{pfx(0)}[INFO|trainer.py:1651] {ts()} >>   Num examples = 30,112",
              f"{pfx(0)}[INFO|trainer.py:1652] {ts()} >>   Num Epochs = 2",
              f"{pfx(0)}[INFO|trainer.py:1653] {ts()} >>   Instantaneous batch size per device = 4",
              f"{pfx(0)}[INFO|trainer.py:1654] {ts()} >>   Total train batch size (w. parallel, distributed & accumulation) = 64",
              f"{pfx(0)}[INFO|trainer.py:1655] {ts()} >>   Gradient Accumulation steps = 4",
              f"{pfx(0)}[INFO|trainer.py:1656] {ts()} >>   Total optimization steps = 940",
              f"{pfx(0)}[INFO|trainer.py:1657] {ts()} >>   Number of trainable parameters = 1,414,647,808",
              f"{pfx(0)}  0%|          | 0/940 [00:00<?, ?it/s]"]
    clock.at(9.5)
    tb = ["Traceback (most recent call last):",
          '  File "/workspace/run_clm.py", line 635, in <module>',
          "    main()",
          '  File "/workspace/run_clm.py", line 583, in main',
          "    train_result = trainer.train(resume_from_checkpoint=checkpoint)",
          f'  File "{site}/transformers/trainer.py", line 1633, in train',
          "    return inner_training_loop(",
          f'  File "{site}/transformers/trainer.py", line 1979, in _inner_training_loop',
          "    self.optimizer.step()",
          f'  File "{site}/torch/optim/lr_scheduler.py", line 68, in wrapper',
          "    return wrapped(*args, **kwargs)",
          f'  File "{site}/torch/optim/optimizer.py", line 140, in wrapper',
          "    out = func(*args, **kwargs)",
          f'  File "{site}/torch/autograd/grad_mode.py", line 27, in decorate_context',
          "    return func(*args, **kwargs)",
          f'  File "{site}/bitsandbytes/optim/optimizer.py", line 265, in step',
          "    self.update_step(group, p, gindex, pindex)",
          f'  File "{site}/torch/autograd/grad_mode.py", line 27, in decorate_context',
          "    return func(*args, **kwargs)",
          f'  File "{site}/bitsandbytes/optim/optimizer.py", line 523, in update_step',
          "    F.optimizer_update_8bit_blockwise(",
          f'  File "{site}/bitsandbytes/functional.py", line 976, in optimizer_update_8bit_blockwise',
          "    str2optimizer8bit_blockwise[optimizer_name][0](",
          "NameError: name 'str2optimizer8bit_blockwise' is not defined"]
    order = [2, 0, 3, 1]
    lines += interleave(rng, [[pfx(r) + ln for ln in tb] for r in order], 3)
    lines.append(f"{pfx(0)}  0%|          | 0/940 [00:09<?, ?it/s]")
    clock.at(1.1)
    pids = {0: 3310, 1: 3311, 2: 3312, 3: 3313}
    for r in (0, 1, 3):
        lines.append(f"WARNING:torch.distributed.elastic.multiprocessing.api:Sending process {pids[r]} closing signal SIGTERM")
    clock.at(0.6)
    lines.append(f"ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 2 (pid: {pids[2]}) of binary: /usr/bin/python3")
    when = clock.elastic()
    lines += child_failed_block("run_clm.py", [dict(time=when, host="train-7b-0", rank=2, local_rank=2, exitcode=1, pid=pids[2])],
                                site, "/usr/local/bin/torchrun", dict(wrapper=346, main=762, run=753, call=132, agent=246))
    lines.append("root@train-7b-0:/workspace# ")
    write_case("bitsandbytes-setup-cpu-fallback-8bit-optim-03", dict(
        label="bitsandbytes-setup", difficulty="hard",
        description="4-rank torchrun run_clm with optim=adamw_bnb_8bit; bitsandbytes 0.37 cannot find libcuda.so (the "
                    "container only has libcuda.so.1) and silently loads libbitsandbytes_cpu.so; training starts and "
                    "every rank dies at the first optimizer step with NameError str2optimizer8bit_blockwise.",
        initiating_rank=2,
        facts=dict(launcher="torchrun", world_size="4", precision="fp16", transformers_version="4.27.4",
                   exit_code="1"),
        must_mention=["bitsandbytes", "libbitsandbytes_cpu"]), {"train.log": "\n".join(lines)})


@case
def bnb_env_override_04():
    rng = random.Random(304)
    site = "/usr/local/lib/python3.10/dist-packages"
    tok = hf_token(rng)
    wandb_key = hex_token(rng, 40)
    aws_key = "AKIA" + alnum(rng, 16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
    aws_secret = alnum(rng, 40, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+/")
    env_dump = sorted([
        "BNB_CUDA_VERSION=125", "CUDA_HOME=/usr/local/cuda", "CUDA_VERSION=12.1.1",
        "HF_HOME=/mnt/cache/hf", f"HF_TOKEN={tok}", "HOME=/root", "HOSTNAME=qlora-runner-0",
        "LD_LIBRARY_PATH=/usr/local/nvidia/lib:/usr/local/nvidia/lib64", "LANG=C.UTF-8",
        "NVIDIA_DRIVER_CAPABILITIES=compute,utility", "NVIDIA_VISIBLE_DEVICES=all",
        "PATH=/usr/local/nvidia/bin:/usr/local/cuda/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
        "PYTHONUNBUFFERED=1", "TOKENIZERS_PARALLELISM=false", f"WANDB_API_KEY={wandb_key}",
        "WANDB_PROJECT=support-bot-qlora", f"AWS_ACCESS_KEY_ID={aws_key}", f"AWS_SECRET_ACCESS_KEY={aws_secret}",
        "AWS_DEFAULT_REGION=us-east-1", "S3_OUTPUT=s3://acme-ml-artifacts/qlora/support-bot/"])
    lines = ["==> job qlora-support-bot-20240611-0912 on node gpu-l40s-07", "==> environment"] + env_dump
    lines += ["==> python train_qlora.py --config configs/mistral7b_qlora.yaml",
              "2024-06-11 09:12:31 INFO     [train_qlora.py:44] torch=2.3.1+cu121 transformers=4.41.2 peft=0.11.1 bitsandbytes=0.43.1 accelerate=0.31.0",
              "2024-06-11 09:12:31 INFO     [train_qlora.py:45] device=NVIDIA L40S capability=(8, 9) bf16_supported=True",
              "2024-06-11 09:12:32 INFO     [train_qlora.py:61] base model: mistralai/Mistral-7B-Instruct-v0.3, lora r=32 alpha=64 targets=['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj']",
              "WARNING: BNB_CUDA_VERSION=125 environment variable detected; loading libbitsandbytes_cuda125.so.",
              "This can be used to load a bitsandbytes version that is different from the PyTorch CUDA version.",
              "If this was unintended set the BNB_CUDA_VERSION variable to an empty string: export BNB_CUDA_VERSION=",
              "If you use the manual override make sure the right libcudart.so is in your LD_LIBRARY_PATH",
              "For example by adding the following to your .bashrc: export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:<path_to_cuda_dir/lib64",
              "",
              f"Could not find the bitsandbytes CUDA binary at PosixPath('{site}/bitsandbytes/libbitsandbytes_cuda125.so')",
              "The installed version of bitsandbytes was compiled without GPU support. 8-bit optimizers, 8-bit multiplication, and GPU quantization are unavailable.",
              "2024-06-11 09:12:34 INFO     [train_qlora.py:88] loading model in 4-bit (nf4, double quant, compute dtype bfloat16)",
              "Loading checkpoint shards:   0%|          | 0/3 [00:00<?, ?it/s]",
              "Loading checkpoint shards:   0%|          | 0/3 [00:01<?, ?it/s]",
              "Traceback (most recent call last):",
              '  File "/opt/app/train_qlora.py", line 214, in <module>',
              "    main(parse_args())",
              '  File "/opt/app/train_qlora.py", line 92, in main',
              "    model = AutoModelForCausalLM.from_pretrained(",
              f'  File "{site}/transformers/models/auto/auto_factory.py", line 563, in from_pretrained',
              "    return model_class.from_pretrained(",
              f'  File "{site}/transformers/modeling_utils.py", line 3754, in from_pretrained',
              "    ) = cls._load_pretrained_model(",
              f'  File "{site}/transformers/modeling_utils.py", line 4214, in _load_pretrained_model',
              "    new_error_msgs, offload_index, state_dict_index = _load_state_dict_into_meta_model(",
              f'  File "{site}/transformers/modeling_utils.py", line 889, in _load_state_dict_into_meta_model',
              "    hf_quantizer.create_quantized_param(model, param, param_name, param_device, state_dict, unexpected_keys)",
              f'  File "{site}/transformers/quantizers/quantizer_bnb_4bit.py", line 217, in create_quantized_param',
              "    new_value = bnb.nn.Params4bit(new_value, requires_grad=False, **kwargs).to(target_device)",
              f'  File "{site}/bitsandbytes/nn/modules.py", line 324, in to',
              "    return self._quantize(device)",
              f'  File "{site}/bitsandbytes/nn/modules.py", line 289, in _quantize',
              "    w_4bit, quant_state = bnb.functional.quantize_4bit(",
              f'  File "{site}/bitsandbytes/functional.py", line 1234, in quantize_4bit',
              "    lib.cquantize_blockwise_bf16_nf4(",
              '  File "/usr/lib/python3.10/ctypes/__init__.py", line 387, in __getattr__',
              "    func = self.__getitem__(name)",
              '  File "/usr/lib/python3.10/ctypes/__init__.py", line 392, in __getitem__',
              "    func = self._FuncPtr((name_or_ordinal, self))",
              f"AttributeError: {site}/bitsandbytes/libbitsandbytes_cpu.so: undefined symbol: cquantize_blockwise_bf16_nf4",
              "==> train_qlora.py exited with code 1 after 0:00:09"]
    write_case("bitsandbytes-setup-env-override-04", dict(
        label="bitsandbytes-setup", difficulty="medium",
        description="QLoRA job on an L40S whose environment still sets BNB_CUDA_VERSION=125; bitsandbytes 0.43.1 looks "
                    "for libbitsandbytes_cuda125.so, falls back to the CPU library, and 4-bit loading dies with "
                    "'libbitsandbytes_cpu.so: undefined symbol: cquantize_blockwise_bf16_nf4'. Env dump leaks secrets.",
        facts=dict(torch_version="2.3.1", cuda_version="12.1", transformers_version="4.41.2", launcher="python"),
        must_mention=["BNB_CUDA_VERSION"],
        secrets=[tok, wandb_key, aws_key, aws_secret]), {"job.log": "\n".join(lines)})


# ================================================================================================================
# numpy-abi-mismatch
# ================================================================================================================

NUMPY_BANNER = [
    "",
    "A module that was compiled using NumPy 1.x cannot be run in",
    "NumPy {v} as it may crash. To support both 1.x and 2.x",
    "versions of NumPy, modules must be compiled with NumPy 2.0.",
    "Some module may need to rebuild instead e.g. with 'pybind11>=2.12'.",
    "",
    "If you are a user of the module, the easiest solution will be to",
    "downgrade to 'numpy<2' or try to upgrade the affected module.",
    "We expect that some modules will need time to support NumPy 2.",
    "",
]


def torch_numpy_banner(v: str, site: str, script: str, line: int, stmt: str) -> list[str]:
    out = [ln.replace("{v}", v) for ln in NUMPY_BANNER]
    out += [f'Traceback (most recent call last):  File "{script}", line {line}, in <module>',
            f"    {stmt}",
            f'  File "{site}/torch/__init__.py", line 1477, in <module>',
            "    from .functional import *  # noqa: F403",
            f'  File "{site}/torch/functional.py", line 9, in <module>',
            "    import torch.nn.functional as F",
            f'  File "{site}/torch/nn/__init__.py", line 1, in <module>',
            "    from .modules import *  # noqa: F403",
            f'  File "{site}/torch/nn/modules/__init__.py", line 35, in <module>',
            "    from .transformer import TransformerEncoder, TransformerDecoder, \\",
            f'  File "{site}/torch/nn/modules/transformer.py", line 20, in <module>',
            "    device: torch.device = torch.device(torch._C._get_default_device()),  # torch.device('cpu'),",
            f"{site}/torch/nn/modules/transformer.py:20: UserWarning: Failed to initialize NumPy: _ARRAY_API not found (Triggered internally at ../torch/csrc/utils/tensor_numpy.cpp:84.)",
            "  device: torch.device = torch.device(torch._C._get_default_device()),  # torch.device('cpu'),"]
    return out


@case
def numpy_pandas_dtype_size_01():
    rng = random.Random(401)
    venv = "/home/ubuntu/venvs/rag"
    site = f"{venv}/lib/python3.10/site-packages"
    smi = nvidia_smi("Mon Jul  8 13:20:41 2024", "535.183.01", "12.2",
                     [gpu("A10", 23028, "00000000:07:00.0", rng, cap=150, used=0, fan="0%", perf="P8", pwr=9)], style="535")
    lines = ["(rag) ubuntu@gpu-a10-1:~/rag-eval$ nvidia-smi"] + smi.split("\n")
    lines += ["(rag) ubuntu@gpu-a10-1:~/rag-eval$ pip install -U numpy",
             "Requirement already satisfied: numpy in /home/ubuntu/venvs/rag/lib/python3.10/site-packages (1.26.4)",
             "Collecting numpy",
             "  Downloading numpy-2.0.1-cp310-cp310-manylinux_2_17_x86_64.manylinux2014_x86_64.whl.metadata (60 kB)",
             "     ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━ 60.9/60.9 kB 4.1 MB/s eta 0:00:00",
             "Downloading numpy-2.0.1-cp310-cp310-manylinux_2_17_x86_64.manylinux2014_x86_64.whl (19.5 MB)",
             "   ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━ 19.5/19.5 MB 88.2 MB/s eta 0:00:00",
             "Installing collected packages: numpy",
             "  Attempting uninstall: numpy",
             "    Found existing installation: numpy 1.26.4",
             "    Uninstalling numpy-1.26.4:",
             "      Successfully uninstalled numpy-1.26.4",
             "Successfully installed numpy-2.0.1",
             "(rag) ubuntu@gpu-a10-1:~/rag-eval$ pip list 2>/dev/null | grep -Ei '^(numpy|pandas|datasets|torch|transformers|sentence) '",
             "datasets                  2.16.1",
             "numpy                     2.0.1",
             "pandas                    2.1.4",
             "sentence-transformers     2.6.1",
             "torch                     2.3.1",
             "transformers              4.41.2",
             "(rag) ubuntu@gpu-a10-1:~/rag-eval$ python build_index.py --corpus data/kb_articles.parquet --model BAAI/bge-large-en-v1.5 --out index/",
             "Traceback (most recent call last):",
             '  File "/home/ubuntu/rag-eval/build_index.py", line 7, in <module>',
             "    from datasets import load_dataset",
             f'  File "{site}/datasets/__init__.py", line 18, in <module>',
             "    from .arrow_dataset import Dataset",
             f'  File "{site}/datasets/arrow_dataset.py", line 60, in <module>',
             "    import pandas as pd",
             f'  File "{site}/pandas/__init__.py", line 46, in <module>',
             "    from pandas.core.api import (",
             f'  File "{site}/pandas/core/api.py", line 1, in <module>',
             "    from pandas._libs import (",
             f'  File "{site}/pandas/_libs/__init__.py", line 18, in <module>',
             "    from pandas._libs.interval import Interval",
             '  File "interval.pyx", line 1, in init pandas._libs.interval',
             "ValueError: numpy.dtype size changed, may indicate binary incompatibility. Expected 96 from C header, got 88 from PyObject",
             "(rag) ubuntu@gpu-a10-1:~/rag-eval$ "]
    write_case("numpy-abi-mismatch-pandas-dtype-size-01", dict(
        label="numpy-abi-mismatch", difficulty="easy",
        description="`pip install -U numpy` moves a venv to NumPy 2.0.1 while pandas 2.1.4 (built for NumPy 1.x) stays; "
                    "importing datasets -> pandas fails with 'numpy.dtype size changed ... Expected 96 from C header, "
                    "got 88 from PyObject'.",
        facts=dict(gpu_model="A10", driver_version="535.183.01", torch_version="2.3.1", transformers_version="4.41.2",
                   launcher="python"),
        must_mention=["numpy", "pandas"]), {"session.log": "\n".join(lines)})


@case
def numpy_torch_dataloader_02():
    site = "/opt/venv/lib/python3.10/site-packages"
    lines = ["+ python -c 'import numpy, torch; print(numpy.__version__, torch.__version__)'"]
    # with `python -c` the frame has no source line to show
    lines += [ln for ln in torch_numpy_banner("2.0.0", site, "<string>", 1, "") if ln != "    "]
    lines.append("2.0.0 2.2.2+cu121")
    lines += ["+ python train_kws.py --data /data/speech_commands_v2 --features logmel --n-mels 40 --batch-size 256 --workers 6 --epochs 30 --amp"]
    lines += torch_numpy_banner("2.0.0", site, "/srv/kws/train_kws.py", 9, "import torch")
    lines += ["[train_kws] 2024-06-19 07:44:02 device=cuda:0 (Tesla T4, 15.7 GiB) amp=True",
              "[train_kws] 2024-06-19 07:44:02 train=84843 val=9981 test=11005 classes=35",
              "[train_kws] 2024-06-19 07:44:03 model=BCResNet-8 params=321,475",
              "epoch 1/30:   0%|          | 0/332 [00:00<?, ?it/s]",
              "epoch 1/30:   0%|          | 0/332 [00:02<?, ?it/s]",
              "Traceback (most recent call last):",
              '  File "/srv/kws/train_kws.py", line 214, in <module>',
              "    main(parse_args())",
              '  File "/srv/kws/train_kws.py", line 158, in main',
              "    for step, (x, y) in enumerate(pbar):",
              f'  File "{site}/tqdm/std.py", line 1181, in __iter__',
              "    for obj in iterable:",
              f'  File "{site}/torch/utils/data/dataloader.py", line 631, in __next__',
              "    data = self._next_data()",
              f'  File "{site}/torch/utils/data/dataloader.py", line 1346, in _next_data',
              "    return self._process_data(data)",
              f'  File "{site}/torch/utils/data/dataloader.py", line 1372, in _process_data',
              "    data.reraise()",
              f'  File "{site}/torch/_utils.py", line 722, in reraise',
              "    raise exception",
              "RuntimeError: Caught RuntimeError in DataLoader worker process 0.",
              "Original Traceback (most recent call last):",
              f'  File "{site}/torch/utils/data/_utils/worker.py", line 308, in _worker_loop',
              "    data = fetcher.fetch(index)",
              f'  File "{site}/torch/utils/data/_utils/fetch.py", line 54, in fetch',
              "    return self.collate_fn(data)",
              f'  File "{site}/torch/utils/data/_utils/collate.py", line 277, in default_collate',
              "    return collate(batch, collate_fn_map=default_collate_fn_map)",
              f'  File "{site}/torch/utils/data/_utils/collate.py", line 144, in collate',
              "    return [collate(samples, collate_fn_map=collate_fn_map) for samples in transposed]  # Backwards compatibility.",
              f'  File "{site}/torch/utils/data/_utils/collate.py", line 144, in <listcomp>',
              "    return [collate(samples, collate_fn_map=collate_fn_map) for samples in transposed]  # Backwards compatibility.",
              f'  File "{site}/torch/utils/data/_utils/collate.py", line 121, in collate',
              "    return collate_fn_map[elem_type](batch, collate_fn_map=collate_fn_map)",
              f'  File "{site}/torch/utils/data/_utils/collate.py", line 192, in collate_numpy_array_fn',
              "    return collate([torch.as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)",
              f'  File "{site}/torch/utils/data/_utils/collate.py", line 192, in <listcomp>',
              "    return collate([torch.as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)",
              "RuntimeError: Numpy is not available",
              "",
              "+ echo 'training failed with status 1'",
              "training failed with status 1"]
    write_case("numpy-abi-mismatch-torch-dataloader-02", dict(
        label="numpy-abi-mismatch", difficulty="medium",
        description="Keyword-spotting training on a T4: torch 2.2.2 (built against NumPy 1.x) with NumPy 2.0.0; torch "
                    "warns 'Failed to initialize NumPy: _ARRAY_API not found' at import and the first DataLoader batch "
                    "of NumPy features fails with 'Numpy is not available' inside a worker.",
        facts=dict(gpu_model="Tesla T4", torch_version="2.2.2", cuda_version="12.1", launcher="python"),
        must_mention=["NumPy 2", "numpy<2"]), {"train.log": "\n".join(lines)})


@case
def numpy_trainer_eval_03():
    rng = random.Random(403)
    home = "/home/akumar"
    site = f"{home}/.venvs/cls/lib/python3.10/site-packages"
    clock = Clock("2024-07-02 18:05:11", rng)
    lines = ["akumar@a100-box:~/intent-cls$ torchrun --nproc_per_node 4 train_cls.py --model microsoft/deberta-v3-large --train data/intents_train.jsonl --eval data/intents_val.jsonl --bf16 --per_device_train_batch_size 16 --eval_steps 500 --max_steps 4000 --output_dir runs/deberta-intents-v7"]
    lines += torchrun_banner_old(clock)
    streams = [torch_numpy_banner("2.0.0", site, f"{home}/intent-cls/train_cls.py", 6, "import torch") for _ in range(4)]
    lines += interleave(rng, streams, 4)
    clock.at(6)
    for r in range(4):
        lines.append(f"{site}/transformers/convert_slow_tokenizer.py:551: UserWarning: The sentencepiece tokenizer that you are converting to a fast tokenizer uses the byte fallback option which is not implemented in the fast tokenizers. In practice this means that the fast tokenizer can produce unknown tokens whereas the sentencepiece model would have converted these unknown tokens into a sequence of byte tokens matching the original piece of text.")
        lines.append("  warnings.warn(")
    for r in range(4):
        lines += ["Some weights of DebertaV2ForSequenceClassification were not initialized from the model checkpoint at microsoft/deberta-v3-large and are newly initialized: ['classifier.bias', 'classifier.weight', 'pooler.dense.bias', 'pooler.dense.weight']",
                  "You should probably TRAIN this model on a down-stream task to be able to use it for predictions and inference."]
    clock.at(20)
    lines += ["wandb: Currently logged in as: akumar (acme-nlp). Use `wandb login --relogin` to force relogin",
              "wandb: Tracking run with wandb version 0.17.3",
              f"wandb: Run data is saved locally in {home}/intent-cls/wandb/run-20240702_180538-3k9x2m1q",
              "wandb: Run `wandb offline` to turn off syncing.",
              "wandb: Syncing run deberta-intents-v7",
              "wandb: ⭐️ View project at https://wandb.ai/acme-nlp/intent-cls",
              "wandb: 🚀 View run at https://wandb.ai/acme-nlp/intent-cls/runs/3k9x2m1q"]
    total = 4000
    secs = 0.0
    loss = 4.1
    bar_parts = []
    lines_progress = []
    for step in range(0, 501):
        if step % 25 == 0 or step == 500:
            el = int(secs)
            rem = int((total - step) * 0.71)
            bar_parts.append(" " + tqdm_bar(step, total, f"{el // 60:02d}:{el % 60:02d}", f"{rem // 3600}:{rem % 3600 // 60:02d}:{rem % 60:02d}" if rem >= 3600 else f"{rem // 60:02d}:{rem % 60:02d}", f"{rng.uniform(1.35, 1.45):.2f}it/s" if step else "?it/s"))
        if step and step % 50 == 0:
            loss = max(0.18, loss * rng.uniform(0.72, 0.93))
            lr = 2e-5 * min(1.0, step / 200) * (1 - step / total)
            lines_progress.append(("\r".join(bar_parts), hf_loss_dict(rng, loss, lr, step / 1172)))
            bar_parts = []
        secs += rng.uniform(0.69, 0.74)
    for bars, logd in lines_progress:
        lines.append(bars)
        lines.append(logd)
    clock.at(secs)
    lines.append(" " + tqdm_bar(500, total, "05:57", "41:24", "1.40it/s"))
    lines.append("\r" + "  0%|          | 0/79 [00:00<?, ?it/s]\r  5%|▌         | 4/79 [00:00<00:03, 21.92it/s]\r 41%|████      | 32/79 [00:01<00:02, 19.87it/s]\r 86%|████████▌ | 68/79 [00:03<00:00, 19.61it/s]\r100%|██████████| 79/79 [00:04<00:00, 19.20it/s]")
    tb = ["Traceback (most recent call last):",
          f'  File "{home}/intent-cls/train_cls.py", line 188, in <module>',
          "    main()",
          f'  File "{home}/intent-cls/train_cls.py", line 171, in main',
          "    trainer.train()",
          f'  File "{site}/transformers/trainer.py", line 1885, in train',
          "    return inner_training_loop(",
          f'  File "{site}/transformers/trainer.py", line 2291, in _inner_training_loop',
          "    self._maybe_log_save_evaluate(tr_loss, grad_norm, model, trial, epoch, ignore_keys_for_eval)",
          f'  File "{site}/transformers/trainer.py", line 2721, in _maybe_log_save_evaluate',
          "    metrics = self.evaluate(ignore_keys=ignore_keys_for_eval)",
          f'  File "{site}/transformers/trainer.py", line 3572, in evaluate',
          "    output = eval_loop(",
          f'  File "{site}/transformers/trainer.py", line 3854, in evaluation_loop',
          "    all_preds.add(logits)",
          f'  File "{site}/transformers/trainer_pt_utils.py", line 326, in add',
          "    self.tensors = nested_numpify(self.tensors)",
          f'  File "{site}/transformers/trainer_pt_utils.py", line 165, in nested_numpify',
          "    return t.numpy()",
          "RuntimeError: Numpy is not available"]
    order = [1, 3, 0, 2]
    lines += interleave(rng, [list(tb) for _ in order], 3)
    clock.at(3)
    lines += ["wandb: 🚀 View run deberta-intents-v7 at: https://wandb.ai/acme-nlp/intent-cls/runs/3k9x2m1q",
              "wandb: ️⚡ View job at https://wandb.ai/acme-nlp/intent-cls/jobs/QXJ0aWZhY3RDb2xsZWN0aW9uOjE5MjQ4NzEyMQ==/version_details/v6",
              "wandb: Synced 6 W&B file(s), 0 media file(s), 2 artifact file(s) and 0 other file(s)",
              "wandb: Find logs at: ./wandb/run-20240702_180538-3k9x2m1q/logs"]
    pids = {0: 90412, 1: 90413, 2: 90414, 3: 90415}
    for r in (0, 2, 3):
        lines.append(f"[{clock.ds(0.001, 0.01)}] torch.distributed.elastic.multiprocessing.api: [WARNING] Sending process {pids[r]} closing signal SIGTERM")
    clock.at(1.2)
    lines.append(f"[{clock.ds()}] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: 1) local_rank: 1 (pid: {pids[1]}) of binary: {home}/.venvs/cls/bin/python")
    when = clock.elastic()
    lines += child_failed_block("train_cls.py", [dict(time=when, host="a100-box", rank=1, local_rank=1, exitcode=1, pid=pids[1])],
                                site, f"{home}/.venvs/cls/bin/torchrun", dict(wrapper=347, main=812, run=803, call=135, agent=268))
    write_case("numpy-abi-mismatch-trainer-eval-03", dict(
        label="numpy-abi-mismatch", difficulty="hard",
        description="4-rank torchrun HF Trainer fine-tune with torch 2.2.2 and NumPy 2.0.0: the NumPy 1.x banner is "
                    "printed at import on every rank, training runs normally for 500 steps, then the first evaluation "
                    "dies in nested_numpify with 'RuntimeError: Numpy is not available' and torchrun reports "
                    "ChildFailedError.",
        initiating_rank=1,
        facts=dict(launcher="torchrun", world_size="4", failure_step="500", exit_code="1"),
        must_mention=["NumPy 2", "numpy<2"], secrets=["akumar"]), {"train.log": "\n".join(lines)})


# ================================================================================================================
# glibcxx-missing
# ================================================================================================================

@case
def glibcxx_systemd_focal_01():
    rng = random.Random(501)
    site = "/opt/venvs/serve/lib/python3.8/site-packages"
    clock = Clock("2024-08-21 10:14:02", rng)
    pid = 23817
    lines = []
    prev = Clock("2024-08-20 22:58:10", rng)
    for i in range(14):
        t = prev.tick(40, 300)
        lat = rng.randint(18, 61)
        lines.append(f"{t.strftime('%b %d %H:%M:%S')} infer-t4-03 ranker[19210]: 2024-08-20 {t.strftime('%H:%M:%S')},{t.microsecond // 1000:03d} INFO ranker.http: POST /v1/rank 200 batch={rng.choice([8, 16, 32, 64])} p50={lat}ms")
    t = prev.tick(3000, 3100)
    lines += [f"{t.strftime('%b %d %H:%M:%S')} infer-t4-03 systemd[1]: Stopping Ranker inference service (ranker-v11)...",
              f"{t.strftime('%b %d %H:%M:%S')} infer-t4-03 ranker[19210]: {t.strftime('%Y-%m-%d %H:%M:%S')},{t.microsecond // 1000:03d} INFO ranker.boot: received SIGTERM, draining 0 in-flight requests",
              f"{t.strftime('%b %d %H:%M:%S')} infer-t4-03 systemd[1]: ranker.service: Succeeded.",
              f"{t.strftime('%b %d %H:%M:%S')} infer-t4-03 systemd[1]: Stopped Ranker inference service (ranker-v11).",
              f"{clock.t.strftime('%b %d %H:%M:%S')} infer-t4-03 sudo[23790]:   deploy : PWD=/home/deploy ; USER=root ; COMMAND=/usr/bin/systemctl daemon-reload",
              f"{clock.t.strftime('%b %d %H:%M:%S')} infer-t4-03 systemd[1]: Reloading.",
              f"{clock.t.strftime('%b %d %H:%M:%S')} infer-t4-03 sudo[23811]:   deploy : PWD=/home/deploy ; USER=root ; COMMAND=/usr/bin/systemctl restart ranker.service"]
    for attempt in range(3):
        host = "infer-t4-03"
        t = lambda lo=0.01, hi=0.3: clock.tick(lo, hi).strftime("%b %d %H:%M:%S")
        lines.append(f"{t()} {host} systemd[1]: Started Ranker inference service (ranker-v12).")
        ms = lambda: f"{clock.t.strftime('%H:%M:%S')},{clock.t.microsecond // 1000:03d}"
        lines.append(f"{t(1.2, 1.6)} {host} ranker[{pid}]: 2024-08-21 {ms()} INFO ranker.boot: build=2024.08.20-3 commit=5e0c1f7 python=3.8.10 torch=2.1.2+cu118 cuda_available=True device=Tesla T4")
        lines.append(f"{t()} {host} ranker[{pid}]: 2024-08-21 {ms()} INFO ranker.boot: loading native ops from mlkit_ops 0.9.4")
        tb = ["Traceback (most recent call last):",
              '  File "/opt/ranker/serve_ranker.py", line 14, in <module>',
              "    from mlkit_ops import fused_topk, segment_softmax",
              f'  File "{site}/mlkit_ops/__init__.py", line 3, in <module>',
              "    from ._C import fused_topk, segment_softmax  # noqa: F401",
              f"ImportError: /lib/x86_64-linux-gnu/libstdc++.so.6: version `GLIBCXX_3.4.29' not found (required by {site}/mlkit_ops/_C.cpython-38-x86_64-linux-gnu.so)"]
        ts = t(0.2, 0.5)
        lines += [f"{ts} {host} ranker[{pid}]: {ln}" for ln in tb]
        lines.append(f"{t()} {host} systemd[1]: ranker.service: Main process exited, code=exited, status=1/FAILURE")
        lines.append(f"{t(0.001, 0.01)} {host} systemd[1]: ranker.service: Failed with result 'exit-code'.")
        if attempt < 2:
            lines.append(f"{t(5, 5.1)} {host} systemd[1]: ranker.service: Scheduled restart job, restart counter is at {attempt + 1}.")
            lines.append(f"{t(0.001, 0.01)} {host} systemd[1]: Stopped Ranker inference service (ranker-v12).")
        pid += rng.randint(40, 90)
    lines.append(f"{clock.tick(5, 5.1).strftime('%b %d %H:%M:%S')} infer-t4-03 systemd[1]: ranker.service: Start request repeated too quickly.")
    lines.append(f"{clock.tick(0.001, 0.01).strftime('%b %d %H:%M:%S')} infer-t4-03 systemd[1]: ranker.service: Failed with result 'exit-code'.")
    lines.append(f"{clock.tick(0.001, 0.01).strftime('%b %d %H:%M:%S')} infer-t4-03 systemd[1]: Failed to start Ranker inference service (ranker-v12).")
    hdr = [f"-- Logs begin at Mon 2024-07-29 06:11:40 UTC, end at Wed 2024-08-21 {clock.t.strftime('%H:%M:%S')} UTC. --"]
    write_case("glibcxx-missing-systemd-focal-01", dict(
        label="glibcxx-missing", difficulty="easy",
        description="Inference service on an Ubuntu 20.04 T4 host crash-loops under systemd: an in-house wheel built on "
                    "a newer OS needs GLIBCXX_3.4.29 (GCC 11) but the system libstdc++ stops at 3.4.28.",
        facts=dict(gpu_model="Tesla T4", torch_version="2.1.2", cuda_version="11.8", python_version="3.8.10"),
        must_mention=["libstdc++", "GLIBCXX_3.4.29"]), {"journal.txt": "\n".join(hdr + lines)})


@case
def glibcxx_slurm_jit_op_02():
    rng = random.Random(502)
    venv = "/home/jdoe/envs/llm310"
    site = f"{venv}/lib/python3.10/site-packages"
    ext = "/home/jdoe/.cache/torch_extensions/py310_cu118"
    clock = Clock("2024-03-18 02:11:40", rng)
    lines = ["===== job 4471903 (llama-sft-zero2) =====",
             "SLURM_JOB_ID=4471903",
             "SLURM_JOB_USER=jdoe",
             "SLURM_JOB_PARTITION=gpu-a100",
             "SLURM_JOB_NODELIST=gpu-a017",
             "SLURM_NTASKS=4",
             "SLURM_GPUS_ON_NODE=4",
             "hostname: gpu-a017.cluster.internal   kernel: 4.18.0-513.11.1.el8_9.x86_64   os: Rocky Linux 8.9 (Green Obsidian)",
             "",
             "Currently Loaded Modules:",
             "  1) python/3.10.13   2) cuda/11.8.0   3) nccl/2.18.3-cuda11.8",
             "",
             "+ srun -l --kill-on-bad-exit=1 python train_sft.py --deepspeed configs/zero2_fusedadam.json --model /scratch/jdoe/models/llama-2-7b --data /scratch/jdoe/data/sft_mix_v3"]
    pfx = lambda r: f"{r}: "
    start = []
    for r in range(4):
        s = [f"{pfx(r)}[{clock.ds(0.8, 1.2) if r == 0 else clock.ds()}] [INFO] [real_accelerator.py:191:get_accelerator] Setting ds_accelerator to cuda (auto detect)"]
        start.append(s)
    lines += interleave(rng, start, 1)
    clock.at(3)
    for r in range(4):
        lines.append(f"{pfx(r)}[{clock.ds()}] [INFO] [comm.py:637:init_distributed] cdb=None")
    lines.append(f"{pfx(0)}[{clock.ds()}] [INFO] [comm.py:668:init_distributed] Initializing TorchBackend in DeepSpeed with backend nccl")
    clock.at(22)
    lines.append(f"{pfx(0)}[{clock.ds()}] [INFO] [logging.py:96:log_dist] [Rank 0] DeepSpeed info: version=0.12.6, git-hash=unknown, git-branch=unknown")
    lines += [f"{pfx(0)}gpu-a017:118220:118220 [0] NCCL INFO Bootstrap : Using ib0:10.42.3.17<0>",
              f"{pfx(0)}gpu-a017:118220:118220 [0] NCCL INFO NET/Plugin : dlerror=libnccl-net.so: cannot open shared object file: No such file or directory No plugin found (libnccl-net.so), using internal implementation",
              f"{pfx(0)}gpu-a017:118220:118220 [0] NCCL INFO cudaDriverVersion 12020",
              f"{pfx(0)}NCCL version 2.18.1+cuda11.8"]
    for r in range(4):
        lines.append(f"{pfx(r)}gpu-a017:{118220 + r}:{118651 + r} [{r}] NCCL INFO comm 0x{0x5588a3c91a40 + 0x1f00 * r:x} rank {r} nranks 4 cudaDev {r} nvmlDev {r} busId {['7000', 'f000', '47000', '4e000'][r]} commId 0x3d95c2e1f0a7b64c - Init COMPLETE")
    lines.append(f"{pfx(0)}[{clock.ds(1, 2)}] [INFO] [logging.py:96:log_dist] [Rank 0] DeepSpeed Flops Profiler Enabled: False")
    for r in [0, 2, 1, 3]:
        lines.append(f"{pfx(r)}Using {ext} as PyTorch extensions root...")
    lines += [f"{pfx(0)}Detected CUDA files, patching ldflags",
              f"{pfx(0)}Emitting ninja build file {ext}/fused_adam/build.ninja...",
              f"{pfx(0)}Building extension module fused_adam...",
              f"{pfx(0)}Allowing ninja to set a default number of workers... (overridable by setting the environment variable MAX_JOBS=N)",
              f"{pfx(0)}ninja: no work to do.",
              f"{pfx(0)}Loading extension module fused_adam..."]
    tb = ["Traceback (most recent call last):",
          '  File "/home/jdoe/projects/llm-sft/train_sft.py", line 297, in <module>',
          "    main()",
          '  File "/home/jdoe/projects/llm-sft/train_sft.py", line 231, in main',
          "    engine, optimizer, train_loader, scheduler = deepspeed.initialize(",
          f'  File "{site}/deepspeed/__init__.py", line 171, in initialize',
          "    engine = DeepSpeedEngine(args=args,",
          f'  File "{site}/deepspeed/runtime/engine.py", line 304, in __init__',
          "    self._configure_optimizer(optimizer, model_parameters)",
          f'  File "{site}/deepspeed/runtime/engine.py", line 1212, in _configure_optimizer',
          "    basic_optimizer = self._configure_basic_optimizer(model_parameters)",
          f'  File "{site}/deepspeed/runtime/engine.py", line 1289, in _configure_basic_optimizer',
          "    optimizer = FusedAdam(",
          f'  File "{site}/deepspeed/ops/adam/fused_adam.py", line 94, in __init__',
          "    fused_adam_cuda = FusedAdamBuilder().load()",
          f'  File "{site}/deepspeed/ops/op_builder/builder.py", line 458, in load',
          "    return self.jit_load(verbose)",
          f'  File "{site}/deepspeed/ops/op_builder/builder.py", line 502, in jit_load',
          "    op_module = load(name=self.name,",
          f'  File "{site}/torch/utils/cpp_extension.py", line 1308, in load',
          "    return _jit_compile(",
          f'  File "{site}/torch/utils/cpp_extension.py", line 1736, in _jit_compile',
          "    return _import_module_from_library(name, build_directory, is_python_module)",
          f'  File "{site}/torch/utils/cpp_extension.py", line 2132, in _import_module_from_library',
          "    module = importlib.util.module_from_spec(spec)",
          '  File "<frozen importlib._bootstrap>", line 571, in module_from_spec',
          '  File "<frozen importlib._bootstrap_external>", line 1176, in create_module',
          '  File "<frozen importlib._bootstrap>", line 241, in _call_with_frames_removed',
          f"ImportError: /lib64/libstdc++.so.6: version `GLIBCXX_3.4.30' not found (required by {ext}/fused_adam/fused_adam.so)"]
    streams = [[pfx(r) + ln for ln in tb] for r in range(4)]
    streams[2] = [f"{pfx(2)}Loading extension module fused_adam..."] + streams[2]
    streams[1] = [f"{pfx(1)}Loading extension module fused_adam..."] + streams[1]
    streams[3] = [f"{pfx(3)}Loading extension module fused_adam..."] + streams[3]
    lines += interleave(rng, streams, 4)
    clock.at(0.4)
    lines += ["srun: error: gpu-a017: task 0: Exited with exit code 1",
              "srun: launch/slurm: _step_signal: Terminating StepId=4471903.0",
              f"slurmstepd: error: *** STEP 4471903.0 ON gpu-a017 CANCELLED AT {clock.iso()} ***",
              "srun: error: gpu-a017: tasks 1-3: Terminated",
              "srun: Force Terminated StepId=4471903.0",
              "===== job 4471903 finished: exit 143 ====="]
    write_case("glibcxx-missing-slurm-jit-op-02", dict(
        label="glibcxx-missing", difficulty="medium",
        description="Slurm DeepSpeed job on Rocky 8: the JIT-built fused_adam in ~/.cache/torch_extensions was compiled "
                    "earlier under a newer GCC module; the batch job does not load it, ninja reuses the cached build, "
                    "and /lib64/libstdc++.so.6 lacks GLIBCXX_3.4.30. srun then cancels the step.",
        initiating_rank=0,
        facts=dict(launcher="srun", world_size="4", deepspeed_version="0.12.6", nccl_version="2.18.1",
                   optimizer="FusedAdam"),
        must_mention=["libstdc++", "GLIBCXX_3.4.30"], secrets=["jdoe"]), {"slurm-4471903.out": "\n".join(lines)})


@case
def glibcxx_pdsh_mixed_nodes_03():
    rng = random.Random(503)
    venv = "/shared/venvs/llm"
    site = f"{venv}/lib/python3.10/site-packages"
    clock = Clock("2024-04-09 22:03:17", rng)
    wandb_key = hex_token(rng, 40)
    hosts = {"worker-0": list(range(8)), "worker-1": list(range(8))}
    wi = ds_world_info(hosts)
    lines = [f"[{clock.ds()}] [INFO] [real_accelerator.py:191:get_accelerator] Setting ds_accelerator to cuda (auto detect)",
             f"[{clock.ds(1, 2)}] [INFO] [multinode_runner.py:80:get_cmd] Running on the following workers: worker-0,worker-1",
             f"[{clock.ds()}] [INFO] [runner.py:568:main] cmd = pdsh -S -f 1024 -w worker-0,worker-1 export NCCL_IB_HCA=mlx5_0,mlx5_1,mlx5_2,mlx5_3; export NCCL_SOCKET_IFNAME=bond0; export PYTHONPATH=/shared/proj/gpt-pretrain; export WANDB_API_KEY={wandb_key}; export WANDB_ENTITY=vision-lang;  cd /shared/proj/gpt-pretrain; {venv}/bin/python -u -m deepspeed.launcher.launch --world_info={wi} --node_rank=%n --master_addr=10.18.4.21 --master_port=29500 pretrain.py --deepspeed --deepspeed_config configs/ds_zero1_bf16.json --model-config configs/gpt_1b3.yaml --data /shared/data/pile_dedup_tok"]
    for node in ("worker-1", "worker-0"):
        p = f"{node}: "
        lines += [f"{p}[{clock.ds(1.5, 2.5)}] [INFO] [real_accelerator.py:191:get_accelerator] Setting ds_accelerator to cuda (auto detect)",
                  f"{p}[{clock.ds(1, 2)}] [INFO] [launch.py:145:main] WORLD INFO DICT: {{'worker-0': [0, 1, 2, 3, 4, 5, 6, 7], 'worker-1': [0, 1, 2, 3, 4, 5, 6, 7]}}",
                  f"{p}[{clock.ds()}] [INFO] [launch.py:151:main] nnodes=2, num_local_procs=8, node_rank={0 if node == 'worker-0' else 1}",
                  f"{p}[{clock.ds()}] [INFO] [launch.py:162:main] global_rank_mapping=defaultdict(<class 'list'>, {{'worker-0': [0, 1, 2, 3, 4, 5, 6, 7], 'worker-1': [8, 9, 10, 11, 12, 13, 14, 15]}})",
                  f"{p}[{clock.ds()}] [INFO] [launch.py:163:main] dist_world_size=16",
                  f"{p}[{clock.ds()}] [INFO] [launch.py:165:main] Setting CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7",
                  ]
        base = 51200 if node == "worker-1" else 61870
        for lr in range(8):
            lines.append(f"{p}[{clock.ds(0.001, 0.02)}] [INFO] [launch.py:253:main] process {base + lr} spawned with command: ['{venv}/bin/python', '-u', 'pretrain.py', '--local_rank={lr}', '--deepspeed', '--deepspeed_config', 'configs/ds_zero1_bf16.json', '--model-config', 'configs/gpt_1b3.yaml', '--data', '/shared/data/pile_dedup_tok']")
    # worker-1 (older image, Ubuntu 20.04): every rank fails at import
    clock.at(6.5)
    tb = ["Traceback (most recent call last):",
          '  File "/shared/proj/gpt-pretrain/pretrain.py", line 18, in <module>',
          "    from model.gpt import GPT, GPTConfig",
          '  File "/shared/proj/gpt-pretrain/model/gpt.py", line 9, in <module>',
          "    from flash_attn import flash_attn_func",
          f'  File "{site}/flash_attn/__init__.py", line 3, in <module>',
          "    from flash_attn.flash_attn_interface import (",
          f'  File "{site}/flash_attn/flash_attn_interface.py", line 10, in <module>',
          "    import flash_attn_2_cuda as flash_attn_cuda",
          f"ImportError: /lib/x86_64-linux-gnu/libstdc++.so.6: version `GLIBCXX_3.4.29' not found (required by {site}/flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so)"]
    w1 = [["worker-1: " + ln for ln in tb] for _ in range(8)]
    lines += interleave(rng, w1, 2)
    # worker-0 ranks meanwhile start normally
    for r in range(8):
        lines.append(f"worker-0: [{clock.ds(0.01, 0.2)}] [INFO] [comm.py:637:init_distributed] cdb=None")
    lines.append(f"worker-0: [{clock.ds()}] [INFO] [comm.py:668:init_distributed] Initializing TorchBackend in DeepSpeed with backend nccl")
    pids1 = {lr: 51200 + lr for lr in range(8)}
    lines.append(f"worker-1: [{clock.ds(0.3, 0.6)}] [INFO] [launch.py:315:sigkill_handler] Killing subprocess {pids1[5]}")
    for lr in (0, 1, 2, 3, 4, 6, 7):
        lines.append(f"worker-1: [{clock.ds(0.001, 0.01)}] [INFO] [launch.py:315:sigkill_handler] Killing subprocess {pids1[lr]}")
    lines.append(f"worker-1: [{clock.ds()}] [ERROR] [launch.py:321:sigkill_handler] ['{venv}/bin/python', '-u', 'pretrain.py', '--local_rank=5', '--deepspeed', '--deepspeed_config', 'configs/ds_zero1_bf16.json', '--model-config', 'configs/gpt_1b3.yaml', '--data', '/shared/data/pile_dedup_tok'] exits with return code = 1")
    lines.append("pdsh@worker-0: worker-1: ssh exited with exit code 1")
    # 30 minutes later: the store on rank 0 gives up waiting for the 8 missing ranks
    clock.at(1801.2)
    tb0 = ["Traceback (most recent call last):",
           '  File "/shared/proj/gpt-pretrain/pretrain.py", line 301, in <module>',
           "    main()",
           '  File "/shared/proj/gpt-pretrain/pretrain.py", line 188, in main',
           '    deepspeed.init_distributed(dist_backend="nccl")',
           f'  File "{site}/deepspeed/comm/comm.py", line 670, in init_distributed',
           "    cdb = TorchBackend(dist_backend, timeout, init_method, rank, world_size)",
           f'  File "{site}/deepspeed/comm/torch.py", line 121, in __init__',
           "    self.init_process_group(backend, timeout, init_method, rank, world_size)",
           f'  File "{site}/deepspeed/comm/torch.py", line 149, in init_process_group',
           "    torch.distributed.init_process_group(backend,",
           f'  File "{site}/torch/distributed/c10d_logger.py", line 74, in wrapper',
           "    func_return = func(*args, **kwargs)",
           f'  File "{site}/torch/distributed/distributed_c10d.py", line 1141, in init_process_group',
           "    store, rank, world_size = next(rendezvous_iterator)",
           f'  File "{site}/torch/distributed/rendezvous.py", line 241, in _env_rendezvous_handler',
           "    store = _create_c10d_store(master_addr, master_port, rank, world_size, timeout)",
           f'  File "{site}/torch/distributed/rendezvous.py", line 172, in _create_c10d_store',
           "    return TCPStore(",
           "torch.distributed.DistStoreError: Timed out after 1801 seconds waiting for clients. 8/16 clients joined."]
    lines += ["worker-0: " + ln for ln in tb0]
    pids0 = {lr: 61870 + lr for lr in range(8)}
    lines.append(f"worker-0: [{clock.ds(0.5, 0.9)}] [INFO] [launch.py:315:sigkill_handler] Killing subprocess {pids0[0]}")
    for lr in range(1, 8):
        lines.append(f"worker-0: [{clock.ds(0.001, 0.01)}] [INFO] [launch.py:315:sigkill_handler] Killing subprocess {pids0[lr]}")
    lines.append(f"worker-0: [{clock.ds()}] [ERROR] [launch.py:321:sigkill_handler] ['{venv}/bin/python', '-u', 'pretrain.py', '--local_rank=0', '--deepspeed', '--deepspeed_config', 'configs/ds_zero1_bf16.json', '--model-config', 'configs/gpt_1b3.yaml', '--data', '/shared/data/pile_dedup_tok'] exits with return code = 1")
    lines.append("pdsh@worker-0: worker-0: ssh exited with exit code 1")
    write_case("glibcxx-missing-pdsh-mixed-nodes-03", dict(
        label="glibcxx-missing", difficulty="hard",
        description="2-node DeepSpeed (pdsh) run from a shared NFS venv; worker-1 still runs an Ubuntu 20.04 image whose "
                    "libstdc++ lacks GLIBCXX_3.4.29 needed by flash-attn built on 22.04, so its 8 ranks die at import; "
                    "worker-0's rank 0 times out 30 minutes later with DistStoreError '8/16 clients joined'.",
        initiating_rank=13,
        facts=dict(launcher="deepspeed", world_size="16", num_nodes="2", exit_code="1"),
        must_mention=["GLIBCXX_3.4.29", "worker-1"], secrets=[wandb_key]), {"pdsh-run.log": "\n".join(lines)})



# ================================================================================================================
# torch-compile-failure
# ================================================================================================================

# Captured from a real run (torch 2.13.0+cpu, Python 3.11, container without any C/C++ compiler on PATH).
# Only the venv path (/opt/venv) and the script path (/app/train_cls.py) were substituted.
REAL_CPU_COMPILE_NO_CXX = r'''torch 2.13.0+cpu | cuda available: False | threads: 2
config: epochs=3 batch_size=64 compile=True
model params: 36,106
compiling model with torch.compile(mode='default') ...
Traceback (most recent call last):
  File "/app/train_cls.py", line 17, in <module>
    loss = nn.functional.cross_entropy(model(x), y)
                                       ^^^^^^^^
  File "/opt/venv/lib/python3.11/site-packages/torch/_dynamo/eval_frame.py", line 511, in __call__
    return super().__call__(*args, **kwargs)
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/opt/venv/lib/python3.11/site-packages/torch/nn/modules/module.py", line 1778, in _wrapped_call_impl
    return self._call_impl(*args, **kwargs)
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/opt/venv/lib/python3.11/site-packages/torch/nn/modules/module.py", line 1789, in _call_impl
    return forward_call(*args, **kwargs)
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/opt/venv/lib/python3.11/site-packages/torch/_dynamo/eval_frame.py", line 1183, in compile_wrapper
    raise e.remove_dynamo_frames() from None  # see TORCHDYNAMO_VERBOSE=1
    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/opt/venv/lib/python3.11/site-packages/torch/_inductor/compile_fx.py", line 1079, in _compile_fx_inner
    raise InductorError(e, currentframe()).with_traceback(
  File "/opt/venv/lib/python3.11/site-packages/torch/_inductor/compile_fx.py", line 1059, in _compile_fx_inner
    mb_compiled_graph = fx_codegen_and_compile(
                        ^^^^^^^^^^^^^^^^^^^^^^^
  File "/opt/venv/lib/python3.11/site-packages/torch/_inductor/compile_fx.py", line 1847, in fx_codegen_and_compile
    return scheme.codegen_and_compile(gm, example_inputs, inputs_to_check, graph_kwargs)
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/opt/venv/lib/python3.11/site-packages/torch/_inductor/compile_fx.py", line 1608, in codegen_and_compile
    compiled_module = graph.compile_to_module()
                      ^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/opt/venv/lib/python3.11/site-packages/torch/_inductor/graph.py", line 2669, in compile_to_module
    return self._compile_to_module()
           ^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/opt/venv/lib/python3.11/site-packages/torch/_inductor/graph.py", line 2675, in _compile_to_module
    self.codegen_with_cpp_wrapper() if self.cpp_wrapper else self.codegen()
                                                             ^^^^^^^^^^^^^^
  File "/opt/venv/lib/python3.11/site-packages/torch/_inductor/graph.py", line 2611, in codegen
    self.scheduler.codegen()
  File "/opt/venv/lib/python3.11/site-packages/torch/_inductor/scheduler.py", line 9206, in codegen
    self._codegen_partitions()
  File "/opt/venv/lib/python3.11/site-packages/torch/_inductor/scheduler.py", line 9354, in _codegen_partitions
    self._codegen(partition)
  File "/opt/venv/lib/python3.11/site-packages/torch/_inductor/scheduler.py", line 9508, in _codegen
    self.get_backend(device).codegen_node(node)
  File "/opt/venv/lib/python3.11/site-packages/torch/_inductor/codegen/cpp.py", line 5546, in codegen_node
    self.codegen_outer_loop_node(node)
  File "/opt/venv/lib/python3.11/site-packages/torch/_inductor/codegen/cpp.py", line 5520, in codegen_outer_loop_node
    if not try_outer_loop_fusion_with_local_buf(node):
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/opt/venv/lib/python3.11/site-packages/torch/_inductor/codegen/cpp.py", line 5491, in try_outer_loop_fusion_with_local_buf
    cpp_kernel_proxy = self.kernel_proxy_cls(kernel_group)
                       ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/opt/venv/lib/python3.11/site-packages/torch/_inductor/codegen/cpp.py", line 4182, in __init__
    self.picked_vec_isa: cpu_vec_isa.VecISA = cpu_vec_isa.pick_vec_isa()
                                              ^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/opt/venv/lib/python3.11/site-packages/torch/_inductor/cpu_vec_isa.py", line 653, in pick_vec_isa
    _valid_vec_isa_list: list[VecISA] = valid_vec_isa_list()
                                        ^^^^^^^^^^^^^^^^^^^^
  File "/opt/venv/lib/python3.11/site-packages/torch/_inductor/cpu_vec_isa.py", line 640, in valid_vec_isa_list
    isa_list.extend(
  File "/opt/venv/lib/python3.11/site-packages/torch/_inductor/cpu_vec_isa.py", line 640, in <genexpr>
    isa_list.extend(
                   ^
  File "/opt/venv/lib/python3.11/site-packages/torch/_inductor/cpu_vec_isa.py", line 380, in __bool__
    if super().__bool__():
       ^^^^^^^^^^^^^^^^^^
  File "/opt/venv/lib/python3.11/site-packages/torch/_inductor/cpu_vec_isa.py", line 320, in __bool__
    if super().__bool__():
       ^^^^^^^^^^^^^^^^^^
  File "/opt/venv/lib/python3.11/site-packages/torch/_inductor/cpu_vec_isa.py", line 211, in __bool__
    return self.__bool__impl(config.cpp.vec_isa_ok)
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/opt/venv/lib/python3.11/site-packages/torch/_inductor/cpu_vec_isa.py", line 221, in __bool__impl
    return self.check_build(VecISA._avx_code)
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/opt/venv/lib/python3.11/site-packages/torch/_inductor/cpu_vec_isa.py", line 183, in check_build
    extra=_get_isa_dry_compile_fingerprint(self.build_arch_flags()),
          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/opt/venv/lib/python3.11/site-packages/torch/_inductor/cpu_vec_isa.py", line 30, in _get_isa_dry_compile_fingerprint
    compiler_info = get_compiler_version_info(get_cpp_compiler())
                                              ^^^^^^^^^^^^^^^^^^
  File "/opt/venv/lib/python3.11/site-packages/torch/_inductor/cpp_builder.py", line 395, in get_cpp_compiler
    compiler = cpp_compiler_search(search)
               ^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/opt/venv/lib/python3.11/site-packages/torch/_inductor/cpp_builder.py", line 108, in cpp_compiler_search
    raise exc.InvalidCxxCompiler
torch._inductor.exc.InductorError: InvalidCxxCompiler: No working C++ compiler found in torch._inductor.config.cpp.cxx: (None, 'g++')

Set TORCHDYNAMO_VERBOSE=1 for the internal stack trace (please do this especially if you're reporting a bug to PyTorch). For even more developer context, set TORCH_LOGS="+dynamo"

'''


@case
def compile_slim_ci_cpu_01():
    lines = ["$ docker build -t cls-train:ci -f docker/Dockerfile.cpu .",
             "Sending build context to Docker daemon  48.13kB",
             "Step 1/7 : FROM python:3.11-slim",
             " ---> 6c5e2b8f0a1d",
             "Step 2/7 : ENV PIP_NO_CACHE_DIR=1 PYTHONUNBUFFERED=1",
             " ---> Using cache",
             " ---> 0b7d1e9a4c3f",
             "Step 3/7 : RUN python -m venv /opt/venv",
             " ---> Using cache",
             " ---> 9e4a2c7d1b05",
             "Step 4/7 : ENV PATH=/opt/venv/bin:$PATH",
             " ---> Using cache",
             " ---> 51d0c8e3a6b2",
             "Step 5/7 : RUN pip install --index-url https://download.pytorch.org/whl/cpu torch==2.13.0",
             " ---> Using cache",
             " ---> a3f6e1d2c9b8",
             "Step 6/7 : COPY train_cls.py /app/train_cls.py",
             " ---> 7d2b9c4e0f13",
             "Step 7/7 : WORKDIR /app",
             " ---> Running in 4f0e6a1b2c3d",
             "Removing intermediate container 4f0e6a1b2c3d",
             " ---> e81c5a0d7b94",
             "Successfully built e81c5a0d7b94",
             "Successfully tagged cls-train:ci",
             "$ docker run --rm cls-train:ci python train_cls.py --compile"]
    lines += REAL_CPU_COMPILE_NO_CXX.rstrip("\n").split("\n")
    lines += ["$ echo $?", "1"]
    write_case("torch-compile-failure-slim-ci-cpu-01", dict(
        label="torch-compile-failure", difficulty="easy",
        description="Real CPU run: torch.compile in a python:3.11-slim image with no C++ compiler; Inductor's CPU "
                    "backend raises InductorError InvalidCxxCompiler at the first forward.",
        facts=dict(torch_version="2.13.0", launcher="python"),
        must_mention=["compiler", "g++"]), {"ci.log": "\n".join(lines)})


@case
def compile_python_h_missing_02():
    site = "/usr/local/lib/python3.10/dist-packages"
    tmp = "/tmp/tmpq2_3b8xz"
    lines = ["root@finetune-a10g:/workspace# accelerate launch --num_processes 1 --mixed_precision bf16 train.py --model Qwen/Qwen1.5-1.8B --data data/summaries.jsonl --torch_compile --per_device_train_batch_size 8 --max_steps 3000",
             "The following values were not passed to `accelerate launch` and had defaults used instead:",
             "\t`--num_machines` was set to a value of `1`",
             "\t`--dynamo_backend` was set to a value of `'no'`",
             "To avoid this warning pass in values for each of the problematic parameters or run `accelerate config`.",
             "[train.py] torch 2.4.0+cu121 | triton 3.0.0 | transformers 4.42.4 | device NVIDIA A10G",
             "Special tokens have been added in the vocabulary, make sure the associated word embeddings are fine-tuned or trained.",
             "Map: 100%|██████████| 48000/48000 [00:09<00:00, 5212.37 examples/s]",
             "max_steps is given, it will override any value given in num_train_epochs",
             "  0%|          | 0/3000 [00:00<?, ?it/s]",
             f"{tmp}/main.c:5:10: fatal error: Python.h: No such file or directory",
             "    5 | #include <Python.h>",
             "      |          ^~~~~~~~~~",
             "compilation terminated.",
             "Traceback (most recent call last):",
             '  File "/workspace/train.py", line 142, in <module>',
             "    trainer.train()",
             f'  File "{site}/transformers/trainer.py", line 1780, in train',
             "    return inner_training_loop(",
             f'  File "{site}/transformers/trainer.py", line 2118, in _inner_training_loop',
             "    tr_loss_step = self.training_step(model, inputs)",
             f'  File "{site}/transformers/trainer.py", line 3036, in training_step',
             "    loss = self.compute_loss(model, inputs)",
             f'  File "{site}/transformers/trainer.py", line 3059, in compute_loss',
             "    outputs = model(**inputs)",
             *module_call_frames(site, "2.4"),
             f'  File "{site}/torch/_dynamo/eval_frame.py", line 451, in _fn',
             "    return fn(*args, **kwargs)",
             *module_call_frames(site, "2.4"),
             f'  File "{site}/accelerate/utils/operations.py", line 822, in forward',
             "    return model_forward(*args, **kwargs)",
             f'  File "{site}/accelerate/utils/operations.py", line 810, in __call__',
             "    return convert_to_fp32(self.model_forward(*args, **kwargs))",
             f'  File "{site}/torch/amp/autocast_mode.py", line 16, in decorate_autocast',
             "    return func(*args, **kwargs)",
             f'  File "{site}/torch/_dynamo/eval_frame.py", line 921, in catch_errors',
             "    return callback(frame, cache_entry, hooks, frame_state)",
             f'  File "{site}/torch/_dynamo/convert_frame.py", line 1116, in __call__',
             "    result = self._inner_convert(",
             f'  File "{site}/torch/_dynamo/convert_frame.py", line 472, in __call__',
             "    return _compile(",
             f'  File "{site}/torch/_dynamo/convert_frame.py", line 646, in _compile',
             "    guarded_code = compile_inner(code, one_graph, hooks, transform)",
             f'  File "{site}/torch/_dynamo/utils.py", line 244, in time_wrapper',
             "    r = func(*args, **kwargs)",
             f'  File "{site}/torch/_dynamo/convert_frame.py", line 562, in compile_inner',
             "    out_code = transform_code_object(code, transform)",
             f'  File "{site}/torch/_dynamo/bytecode_transformation.py", line 1033, in transform_code_object',
             "    transformations(instructions, code_options)",
             f'  File "{site}/torch/_dynamo/convert_frame.py", line 151, in _fn',
             "    return fn(*args, **kwargs)",
             f'  File "{site}/torch/_dynamo/convert_frame.py", line 527, in transform',
             "    tracer.run()",
             f'  File "{site}/torch/_dynamo/symbolic_convert.py", line 2128, in run',
             "    super().run()",
             f'  File "{site}/torch/_dynamo/symbolic_convert.py", line 818, in run',
             "    and self.step()",
             f'  File "{site}/torch/_dynamo/symbolic_convert.py", line 781, in step',
             "    getattr(self, inst.opname)(inst)",
             f'  File "{site}/torch/_dynamo/symbolic_convert.py", line 2243, in RETURN_VALUE',
             "    self.output.compile_subgraph(",
             f'  File "{site}/torch/_dynamo/output_graph.py", line 919, in compile_subgraph',
             "    self.compile_and_call_fx_graph(tx, list(reversed(stack_values)), root)",
             '  File "/usr/lib/python3.10/contextlib.py", line 79, in inner',
             "    return func(*args, **kwds)",
             f'  File "{site}/torch/_dynamo/output_graph.py", line 1087, in compile_and_call_fx_graph',
             "    compiled_fn = self.call_user_compiler(gm)",
             f'  File "{site}/torch/_dynamo/utils.py", line 244, in time_wrapper',
             "    r = func(*args, **kwargs)",
             f'  File "{site}/torch/_dynamo/output_graph.py", line 1159, in call_user_compiler',
             "    raise BackendCompilerFailed(self.compiler_fn, e).with_traceback(",
             f'  File "{site}/torch/_dynamo/output_graph.py", line 1140, in call_user_compiler',
             "    compiled_fn = compiler_fn(gm, self.example_inputs())",
             f'  File "{site}/torch/_dynamo/repro/after_dynamo.py", line 117, in debug_wrapper',
             "    compiled_gm = compiler_fn(gm, example_inputs)",
             f'  File "{site}/torch/__init__.py", line 1668, in __call__',
             "    return compile_fx(model_, inputs_, config_patches=self.config)",
             '  File "/usr/lib/python3.10/contextlib.py", line 79, in inner',
             "    return func(*args, **kwds)",
             f'  File "{site}/torch/_inductor/compile_fx.py", line 1168, in compile_fx',
             "    return aot_autograd(",
             f'  File "{site}/torch/_dynamo/backends/common.py", line 55, in compiler_fn',
             "    cg = aot_module_simplified(gm, example_inputs, **kwargs)",
             f'  File "{site}/torch/_functorch/aot_autograd.py", line 887, in aot_module_simplified',
             "    compiled_fn = create_aot_dispatcher_function(",
             f'  File "{site}/torch/_dynamo/utils.py", line 244, in time_wrapper',
             "    r = func(*args, **kwargs)",
             f'  File "{site}/torch/_functorch/aot_autograd.py", line 600, in create_aot_dispatcher_function',
             "    compiled_fn = compiler_fn(flat_fn, fake_flat_args, aot_config, fw_metadata=fw_metadata)",
             f'  File "{site}/torch/_functorch/_aot_autograd/runtime_wrappers.py", line 425, in aot_wrapper_dedupe',
             "    return compiler_fn(flat_fn, leaf_flat_args, aot_config, fw_metadata=fw_metadata)",
             f'  File "{site}/torch/_functorch/_aot_autograd/runtime_wrappers.py", line 630, in aot_wrapper_synthetic_base',
             "    return compiler_fn(flat_fn, flat_args, aot_config, fw_metadata=fw_metadata)",
             f'  File "{site}/torch/_functorch/_aot_autograd/jit_compile_runtime_wrappers.py", line 295, in aot_dispatch_autograd',
             "    compiled_fw_func = aot_config.fw_compiler(fw_module, adjusted_flat_args)",
             f'  File "{site}/torch/_dynamo/utils.py", line 244, in time_wrapper',
             "    r = func(*args, **kwargs)",
             f'  File "{site}/torch/_inductor/compile_fx.py", line 1100, in fw_compiler_base',
             "    return inner_compile(",
             f'  File "{site}/torch/_dynamo/repro/after_aot.py", line 83, in debug_wrapper',
             "    inner_compiled_fn = compiler_fn(gm, example_inputs)",
             f'  File "{site}/torch/_inductor/debug.py", line 305, in inner',
             "    return fn(*args, **kwargs)",
             '  File "/usr/lib/python3.10/contextlib.py", line 79, in inner',
             "    return func(*args, **kwds)",
             f'  File "{site}/torch/_inductor/compile_fx.py", line 320, in compile_fx_inner',
             "    compiled_graph = fx_codegen_and_compile(",
             f'  File "{site}/torch/_inductor/compile_fx.py", line 550, in fx_codegen_and_compile',
             "    compiled_fn = graph.compile_to_fn()",
             f'  File "{site}/torch/_inductor/graph.py", line 1116, in compile_to_fn',
             "    return self.compile_to_module().call",
             f'  File "{site}/torch/_dynamo/utils.py", line 244, in time_wrapper',
             "    r = func(*args, **kwargs)",
             f'  File "{site}/torch/_inductor/graph.py", line 1070, in compile_to_module',
             "    mod = PyCodeCache.load_by_key_path(",
             f'  File "{site}/torch/_inductor/codecache.py", line 1892, in load_by_key_path',
             "    exec(code, mod.__dict__, mod.__dict__)",
             '  File "/tmp/torchinductor_root/rq/crqw4x3kq2m5yb6zkq3v2hfdkmxs6lfe7c4a5qz6uy3jl2m7bqxv.py", line 1417, in <module>',
             "    async_compile.wait(globals())",
             f'  File "{site}/torch/_inductor/codecache.py", line 2470, in wait',
             "    scope[key] = result.result()",
             f'  File "{site}/torch/_inductor/codecache.py", line 2277, in result',
             "    self.kernel.precompile()",
             f'  File "{site}/torch/_inductor/runtime/triton_heuristics.py", line 183, in precompile',
             "    compiled_binary, launcher = self._precompile_config(",
             f'  File "{site}/torch/_inductor/runtime/triton_heuristics.py", line 287, in _precompile_config',
             "    binary._init_handles()",
             f'  File "{site}/triton/compiler/compiler.py", line 222, in _init_handles',
             "    device = driver.get_current_device()",
             f'  File "{site}/triton/runtime/driver.py", line 23, in __getattr__',
             "    self._initialize_obj()",
             f'  File "{site}/triton/runtime/driver.py", line 20, in _initialize_obj',
             "    self._obj = self._init_fn()",
             f'  File "{site}/triton/runtime/driver.py", line 9, in _create_driver',
             "    return actives[0]()",
             f'  File "{site}/triton/backends/nvidia/driver.py", line 349, in __init__',
             "    self.utils = CudaUtils()  # TODO: make static",
             f'  File "{site}/triton/backends/nvidia/driver.py", line 49, in __init__',
             '    mod = compile_module_from_src(Path(os.path.join(dirname, "driver.c")).read_text(), "cuda_utils")',
             f'  File "{site}/triton/backends/nvidia/driver.py", line 26, in compile_module_from_src',
             "    so = _build(name, src_path, tmpdir, library_dir, include_dir, libraries)",
             f'  File "{site}/triton/runtime/build.py", line 79, in _build',
             "    ret = subprocess.check_call(cc_cmd)",
             '  File "/usr/lib/python3.10/subprocess.py", line 369, in check_call',
             "    raise CalledProcessError(retcode, cmd)",
             "torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:",
             f"CalledProcessError: Command '['/usr/bin/gcc', '{tmp}/main.c', '-O3', '-shared', '-fPIC', '-o', '{tmp}/cuda_utils.cpython-310-x86_64-linux-gnu.so', '-lcuda', '-L{site}/triton/backends/nvidia/lib', '-L/lib/x86_64-linux-gnu', '-I{site}/triton/backends/nvidia/include', '-I{tmp}', '-I/usr/include/python3.10']' returned non-zero exit status 1.",
             "",
             'Set TORCH_LOGS="+dynamo" and TORCHDYNAMO_VERBOSE=1 for more information',
             "",
             "",
             "You can suppress this exception and fall back to eager by setting:",
             "    import torch._dynamo",
             "    torch._dynamo.config.suppress_errors = True",
             "",
             "  0%|          | 0/3000 [00:41<?, ?it/s]",
             "Traceback (most recent call last):",
             *accelerate_launch_frames("/usr/local/bin/accelerate", site, 46, 1075, "simple_launcher", 681),
             "    raise subprocess.CalledProcessError(returncode=process.returncode, cmd=cmd)",
             "subprocess.CalledProcessError: Command '['/usr/bin/python', 'train.py', '--model', 'Qwen/Qwen1.5-1.8B', '--data', 'data/summaries.jsonl', '--torch_compile', '--per_device_train_batch_size', '8', '--max_steps', '3000']' returned non-zero exit status 1.",
             "root@finetune-a10g:/workspace# "]
    write_case("torch-compile-failure-python-h-missing-02", dict(
        label="torch-compile-failure", difficulty="medium",
        description="HF Trainer with torch_compile on an A10G in an image without python3-dev: Triton cannot build its "
                    "cuda_utils launcher (gcc: Python.h missing); Dynamo wraps it as BackendCompilerFailed / "
                    "CalledProcessError and accelerate ends with its own CalledProcessError.",
        facts=dict(gpu_model="A10G", torch_version="2.4.0", cuda_version="12.1", transformers_version="4.42.4",
                   launcher="accelerate", precision="bf16"),
        must_mention=["Python.h", "python3-dev"]), {"train.log": "\n".join(lines)})


@case
def compile_inductor_cache_perm_srun_03():
    rng = random.Random(603)
    venv = "/opt/venvs/pt21"
    site = f"{venv}/lib/python3.10/site-packages"
    clock = Clock("2024-02-27 13:40:02", rng)
    W = 2
    pfx = lambda r: f"{r:>{W}}: "
    lines = [f"[prolog] job 88122 user svcml partition h100 nodes gpu-h[01-02] started {clock.iso()}",
             "+ srun -l --ntasks-per-node=1 nvidia-smi -L"]
    for n in range(2):
        for g in range(8):
            lines.append(f"{n}: GPU {g}: NVIDIA H100 80GB HBM3 (UUID: GPU-{hex_token(rng, 8)}-{hex_token(rng, 4)}-{hex_token(rng, 4)}-{hex_token(rng, 4)}-{hex_token(rng, 12)})")
    lines += ["+ export NCCL_DEBUG=INFO TORCH_NCCL_ASYNC_ERROR_HANDLING=1",
              "+ srun -l --ntasks-per-node=8 --cpus-per-task=12 python train_ddp.py --config configs/vit_h14_in21k.yaml --compile --pg-timeout 600"]
    clock.at(8)
    hosts = lambda r: "gpu-h01" if r < 8 else "gpu-h02"
    pids = {r: (212340 if r < 8 else 98410) + r % 8 for r in range(16)}
    st = []
    for r in range(16):
        st.append([f"{pfx(r)}[{clock.ds(0.01, 0.2)}][train_ddp.py:58] rank={r} local_rank={r % 8} world_size=16 host={hosts(r)} torch=2.1.2+cu121"])
    lines += interleave(rng, st, 1)
    lines += [f"{pfx(0)}{hosts(0)}:{pids[0]}:{pids[0]} [0] NCCL INFO Bootstrap : Using bond0:10.18.4.21<0>",
              f"{pfx(0)}{hosts(0)}:{pids[0]}:{pids[0]} [0] NCCL INFO NET/Plugin : dlerror=libnccl-net.so: cannot open shared object file: No such file or directory No plugin found (libnccl-net.so), using internal implementation",
              f"{pfx(0)}{hosts(0)}:{pids[0]}:{pids[0]} [0] NCCL INFO cudaDriverVersion 12020",
              f"{pfx(0)}NCCL version 2.18.1+cuda12.1"]
    clock.at(3)
    ini = []
    for r in range(16):
        tid = pids[r] + 611
        ini.append([f"{pfx(r)}{hosts(r)}:{pids[r]}:{tid} [{r % 8}] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_3:1/IB [2]mlx5_4:1/IB [3]mlx5_5:1/IB [4]mlx5_6:1/IB [5]mlx5_9:1/IB [6]mlx5_10:1/IB [7]mlx5_11:1/IB ; OOB bond0:10.18.4.{21 if r < 8 else 22}<0>",
                    f"{pfx(r)}{hosts(r)}:{pids[r]}:{tid} [{r % 8}] NCCL INFO Using network IB",
                    f"{pfx(r)}{hosts(r)}:{pids[r]}:{tid} [{r % 8}] NCCL INFO comm 0x{0x55b1c2a0e000 + r * 0x2a40:x} rank {r} nranks 16 cudaDev {r % 8} nvmlDev {r % 8} busId {BUSES_8[r % 8][4:].lower()} commId 0x9c3f1e07a2d54b61 - Init START"])
    lines += interleave(rng, ini, 2)
    clock.at(4)
    for r in range(16):
        lines.append(f"{pfx(r)}{hosts(r)}:{pids[r]}:{pids[r] + 611} [{r % 8}] NCCL INFO comm 0x{0x55b1c2a0e000 + r * 0x2a40:x} rank {r} nranks 16 cudaDev {r % 8} nvmlDev {r % 8} busId {BUSES_8[r % 8][4:].lower()} commId 0x9c3f1e07a2d54b61 - Init COMPLETE")
    lines += [f"{pfx(0)}[{clock.ds(0.5, 1)}][train_ddp.py:131] model ViT-H/14 params=632.0M, DDP(bucket_cap_mb=100, static_graph=False)",
              f"{pfx(0)}[{clock.ds()}][train_ddp.py:140] torch.compile(mode='max-autotune-no-cudagraphs', dynamic=False)",
              f"{pfx(0)}[{clock.ds()}][train_ddp.py:162] epoch 0: 10905 steps/epoch, global batch 4096, lr 1.5e-3 warmup 10000"]
    clock.at(71)
    err = "/tmp/torchinductor_svcml/fx"
    tb = ["Traceback (most recent call last):",
          '  File "/home/svcml/vision/train_ddp.py", line 247, in <module>',
          "    main(cfg)",
          '  File "/home/svcml/vision/train_ddp.py", line 188, in main',
          "    loss = train_step(model, batch, optimizer, scaler)",
          '  File "/home/svcml/vision/train_ddp.py", line 97, in train_step',
          "    logits = model(images)",
          *module_call_frames(site, "2.1"),
          f'  File "{site}/torch/_dynamo/eval_frame.py", line 328, in _fn',
          "    return fn(*args, **kwargs)",
          *module_call_frames(site, "2.1"),
          f'  File "{site}/torch/nn/parallel/distributed.py", line 1519, in forward',
          "    else self._run_ddp_forward(*inputs, **kwargs)",
          f'  File "{site}/torch/nn/parallel/distributed.py", line 1355, in _run_ddp_forward',
          "    return self.module(*inputs, **kwargs)  # type: ignore[index]",
          *module_call_frames(site, "2.1"),
          f'  File "{site}/torch/_dynamo/eval_frame.py", line 490, in catch_errors',
          "    return callback(frame, cache_entry, hooks, frame_state)",
          f'  File "{site}/torch/_dynamo/convert_frame.py", line 641, in _convert_frame',
          "    result = inner_convert(frame, cache_size, hooks, frame_state)",
          f'  File "{site}/torch/_dynamo/convert_frame.py", line 133, in _fn',
          "    return fn(*args, **kwargs)",
          f'  File "{site}/torch/_dynamo/convert_frame.py", line 389, in _convert_frame_assert',
          "    return _compile(",
          f'  File "{site}/torch/_dynamo/convert_frame.py", line 569, in _compile',
          "    guarded_code = compile_inner(code, one_graph, hooks, transform)",
          f'  File "{site}/torch/_dynamo/utils.py", line 189, in time_wrapper',
          "    r = func(*args, **kwargs)",
          f'  File "{site}/torch/_dynamo/convert_frame.py", line 491, in compile_inner',
          "    out_code = transform_code_object(code, transform)",
          f'  File "{site}/torch/_dynamo/bytecode_transformation.py", line 1028, in transform_code_object',
          "    transformations(instructions, code_options)",
          f'  File "{site}/torch/_dynamo/convert_frame.py", line 458, in transform',
          "    tracer.run()",
          f'  File "{site}/torch/_dynamo/symbolic_convert.py", line 2074, in run',
          "    super().run()",
          f'  File "{site}/torch/_dynamo/symbolic_convert.py", line 724, in run',
          "    and self.step()",
          f'  File "{site}/torch/_dynamo/symbolic_convert.py", line 688, in step',
          "    getattr(self, inst.opname)(inst)",
          f'  File "{site}/torch/_dynamo/symbolic_convert.py", line 2162, in RETURN_VALUE',
          "    self.output.compile_subgraph(",
          f'  File "{site}/torch/_dynamo/output_graph.py", line 857, in compile_subgraph',
          "    self.compile_and_call_fx_graph(tx, list(reversed(stack_values)), root)",
          '  File "/usr/lib/python3.10/contextlib.py", line 79, in inner',
          "    return func(*args, **kwds)",
          f'  File "{site}/torch/_dynamo/output_graph.py", line 957, in compile_and_call_fx_graph',
          "    compiled_fn = self.call_user_compiler(gm)",
          f'  File "{site}/torch/_dynamo/utils.py", line 189, in time_wrapper',
          "    r = func(*args, **kwargs)",
          f'  File "{site}/torch/_dynamo/output_graph.py", line 1024, in call_user_compiler',
          "    raise BackendCompilerFailed(self.compiler_fn, e).with_traceback(",
          f'  File "{site}/torch/_dynamo/output_graph.py", line 1009, in call_user_compiler',
          "    compiled_fn = compiler_fn(gm, self.example_inputs())",
          f'  File "{site}/torch/_dynamo/backends/distributed.py", line 436, in compile_fn',
          "    submod_compiler.run(*example_inputs)",
          f'  File "{site}/torch/fx/interpreter.py", line 138, in run',
          "    self.env[node] = self.run_node(node)",
          f'  File "{site}/torch/_dynamo/backends/distributed.py", line 417, in run_node',
          "    compiled_submod_real = self.compile_submod(real_mod, new_args, kwargs)",
          f'  File "{site}/torch/_dynamo/backends/distributed.py", line 361, in compile_submod',
          "    self.compiler(input_mod, args),",
          f'  File "{site}/torch/_dynamo/repro/after_dynamo.py", line 117, in debug_wrapper',
          "    compiled_gm = compiler_fn(gm, example_inputs)",
          f'  File "{site}/torch/__init__.py", line 1568, in __call__',
          "    return compile_fx(model_, inputs_, config_patches=self.config)",
          f'  File "{site}/torch/_inductor/compile_fx.py", line 1150, in compile_fx',
          "    return aot_autograd(",
          f'  File "{site}/torch/_dynamo/backends/common.py", line 55, in compiler_fn',
          "    cg = aot_module_simplified(gm, example_inputs, **kwargs)",
          f'  File "{site}/torch/_functorch/aot_autograd.py", line 3891, in aot_module_simplified',
          "    compiled_fn = create_aot_dispatcher_function(",
          f'  File "{site}/torch/_dynamo/utils.py", line 189, in time_wrapper',
          "    r = func(*args, **kwargs)",
          f'  File "{site}/torch/_functorch/aot_autograd.py", line 3429, in create_aot_dispatcher_function',
          "    compiled_fn = compiler_fn(flat_fn, fake_flat_args, aot_config, fw_metadata=fw_metadata)",
          f'  File "{site}/torch/_functorch/aot_autograd.py", line 2212, in aot_wrapper_dedupe',
          "    return compiler_fn(flat_fn, leaf_flat_args, aot_config, fw_metadata=fw_metadata)",
          f'  File "{site}/torch/_functorch/aot_autograd.py", line 2392, in aot_wrapper_synthetic_base',
          "    return compiler_fn(flat_fn, flat_args, aot_config, fw_metadata=fw_metadata)",
          f'  File "{site}/torch/_functorch/aot_autograd.py", line 2917, in aot_dispatch_autograd',
          "    compiled_fw_func = aot_config.fw_compiler(",
          f'  File "{site}/torch/_dynamo/utils.py", line 189, in time_wrapper',
          "    r = func(*args, **kwargs)",
          f'  File "{site}/torch/_inductor/compile_fx.py", line 1092, in fw_compiler_base',
          "    return inner_compile(",
          f'  File "{site}/torch/_dynamo/repro/after_aot.py", line 80, in debug_wrapper',
          "    inner_compiled_fn = compiler_fn(gm, example_inputs)",
          f'  File "{site}/torch/_inductor/debug.py", line 228, in inner',
          "    return fn(*args, **kwargs)",
          '  File "/usr/lib/python3.10/contextlib.py", line 79, in inner',
          "    return func(*args, **kwds)",
          f'  File "{site}/torch/_inductor/compile_fx.py", line 54, in newFunction',
          "    return old_func(*args, **kwargs)",
          f'  File "{site}/torch/_inductor/compile_fx.py", line 341, in compile_fx_inner',
          "    compiled_graph: CompiledFxGraph = fx_codegen_and_compile(",
          f'  File "{site}/torch/_inductor/compile_fx.py", line 565, in fx_codegen_and_compile',
          "    compiled_fn = graph.compile_to_fn()",
          f'  File "{site}/torch/_inductor/graph.py", line 970, in compile_to_fn',
          "    return self.compile_to_module().call",
          f'  File "{site}/torch/_dynamo/utils.py", line 189, in time_wrapper',
          "    r = func(*args, **kwargs)",
          f'  File "{site}/torch/_inductor/graph.py", line 939, in compile_to_module',
          "    key, path = PyCodeCache.write(code)",
          f'  File "{site}/torch/_inductor/codecache.py", line 1019, in write',
          '    return write(source_code, "py", extra=extra)',
          f'  File "{site}/torch/_inductor/codecache.py", line 248, in write',
          "    os.makedirs(subdir, exist_ok=True)",
          '  File "/usr/lib/python3.10/os.py", line 225, in makedirs',
          "    mkdir(name, mode)",
          "torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:",
          f"PermissionError: [Errno 13] Permission denied: '{err}'",
          "",
          'Set TORCH_LOGS="+dynamo" and TORCHDYNAMO_VERBOSE=1 for more information',
          "",
          "",
          "You can suppress this exception and fall back to eager by setting:",
          "    import torch._dynamo",
          "    torch._dynamo.config.suppress_errors = True",
          ""]
    order = [11, 8, 14, 9, 12, 15, 10, 13]
    lines += interleave(rng, [[pfx(r) + ln for ln in tb] for r in order], 5)
    clock.at(1.4)
    lines.append("srun: error: gpu-h02: tasks 8-15: Exited with exit code 1")
    # ranks 0-7 compiled fine (their /tmp is writable) and now wait in the first backward all-reduce
    clock.at(600.5)
    wd = []
    for r in range(8):
        ran = 600000 + rng.randint(180, 900)
        msg = f"[Rank {r}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=3, OpType=ALLREDUCE, NumelIn=26214400, NumelOut=26214400, Timeout(ms)=600000) ran for {ran} milliseconds before timing out."
        wd.append([f"{pfx(r)}[E ProcessGroupNCCL.cpp:475] {msg}",
                   f"{pfx(r)}[E ProcessGroupNCCL.cpp:489] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.",
                   f"{pfx(r)}[E ProcessGroupNCCL.cpp:495] To avoid data inconsistency, we are taking the entire process down.",
                   f"{pfx(r)}[E ProcessGroupNCCL.cpp:916] [Rank {r}] NCCL watchdog thread terminated with exception: {msg}",
                   f"{pfx(r)}terminate called after throwing an instance of 'std::runtime_error'",
                   f"{pfx(r)}  what():  [Rank {r}] NCCL watchdog thread terminated with exception: {msg}"])
    lines += interleave(rng, wd, 2)
    clock.at(3)
    lines += ["srun: error: gpu-h01: tasks 0-7: Aborted (core dumped)",
              f"[epilog] job 88122 finished {clock.iso()} state=FAILED exit=134"]
    write_case("torch-compile-failure-inductor-cache-perm-srun-03", dict(
        label="torch-compile-failure", difficulty="hard",
        description="2-node, 16-rank srun DDP job with torch.compile: on gpu-h02 /tmp/torchinductor_svcml is not "
                    "writable, so ranks 8-15 fail compilation with BackendCompilerFailed/PermissionError; ranks 0-7 "
                    "wait in the first all-reduce and 10 minutes later die of NCCL watchdog timeouts, which end the log.",
        initiating_rank=11,
        facts=dict(gpu_model="H100 80GB HBM3", torch_version="2.1.2", cuda_version="12.1", nccl_version="2.18.1",
                   launcher="srun", world_size="16", num_nodes="2"),
        must_mention=["TORCHINDUCTOR_CACHE_DIR", "Permission denied"], secrets=["svcml"]), {"slurm-88122.out": "\n".join(lines)})


# ================================================================================================================
# hf-hub-unreachable
# ================================================================================================================

def requests_conn_chain(site: str, py: str, url_path: str, obj: str, req_id: str) -> list[str]:
    return ["Traceback (most recent call last):",
            f'  File "{site}/urllib3/connection.py", line 198, in _new_conn',
            "    sock = connection.create_connection(",
            f'  File "{site}/urllib3/util/connection.py", line 60, in create_connection',
            "    for res in socket.getaddrinfo(host, port, family, socket.SOCK_STREAM):",
            f'  File "{py}/socket.py", line 955, in getaddrinfo',
            "    for res in _socket.getaddrinfo(host, port, family, type, proto, flags):",
            "socket.gaierror: [Errno -3] Temporary failure in name resolution",
            "",
            "The above exception was the direct cause of the following exception:",
            "",
            "Traceback (most recent call last):",
            f'  File "{site}/urllib3/connectionpool.py", line 793, in urlopen',
            "    response = self._make_request(",
            f'  File "{site}/urllib3/connectionpool.py", line 491, in _make_request',
            "    raise new_e",
            f'  File "{site}/urllib3/connectionpool.py", line 467, in _make_request',
            "    self._validate_conn(conn)",
            f'  File "{site}/urllib3/connectionpool.py", line 1099, in _validate_conn',
            "    conn.connect()",
            f'  File "{site}/urllib3/connection.py", line 616, in connect',
            "    self.sock = sock = self._new_conn()",
            f'  File "{site}/urllib3/connection.py", line 205, in _new_conn',
            "    raise NameResolutionError(self.host, self, e) from e",
            f"urllib3.exceptions.NameResolutionError: <urllib3.connection.HTTPSConnection object at {obj}>: Failed to resolve 'huggingface.co' ([Errno -3] Temporary failure in name resolution)",
            "",
            "The above exception was the direct cause of the following exception:",
            "",
            "Traceback (most recent call last):",
            f'  File "{site}/requests/adapters.py", line 486, in send',
            "    resp = conn.urlopen(",
            f'  File "{site}/urllib3/connectionpool.py", line 847, in urlopen',
            "    retries = retries.increment(",
            f'  File "{site}/urllib3/util/retry.py", line 515, in increment',
            "    raise MaxRetryError(_pool, url, reason) from reason  # type: ignore[arg-type]",
            f"urllib3.exceptions.MaxRetryError: HTTPSConnectionPool(host='huggingface.co', port=443): Max retries exceeded with url: {url_path} (Caused by NameResolutionError(\"<urllib3.connection.HTTPSConnection object at {obj}>: Failed to resolve 'huggingface.co' ([Errno -3] Temporary failure in name resolution)\"))",
            "",
            "During handling of the above exception, another exception occurred:",
            "",
            "Traceback (most recent call last):",
            f'  File "{site}/huggingface_hub/file_download.py", line 1261, in hf_hub_download',
            "    metadata = get_hf_file_metadata(",
            f'  File "{site}/huggingface_hub/utils/_validators.py", line 118, in _inner_fn',
            "    return fn(*args, **kwargs)",
            f'  File "{site}/huggingface_hub/file_download.py", line 1674, in get_hf_file_metadata',
            "    r = _request_wrapper(",
            f'  File "{site}/huggingface_hub/file_download.py", line 369, in _request_wrapper',
            "    response = _request_wrapper(",
            f'  File "{site}/huggingface_hub/file_download.py", line 392, in _request_wrapper',
            "    response = get_session().request(method=method, url=url, **params)",
            f'  File "{site}/requests/sessions.py", line 589, in request',
            "    resp = self.send(prep, **send_kwargs)",
            f'  File "{site}/requests/sessions.py", line 703, in send',
            "    r = adapter.send(request, **kwargs)",
            f'  File "{site}/huggingface_hub/utils/_http.py", line 67, in send',
            "    return super().send(request, *args, **kwargs)",
            f'  File "{site}/requests/adapters.py", line 519, in send',
            "    raise ConnectionError(e, request=request)",
            f"requests.exceptions.ConnectionError: (MaxRetryError('HTTPSConnectionPool(host=\\'huggingface.co\\', port=443): Max retries exceeded with url: {url_path} (Caused by NameResolutionError(\"<urllib3.connection.HTTPSConnection object at {obj}>: Failed to resolve \\'huggingface.co\\' ([Errno -3] Temporary failure in name resolution)\"))'), '(Request ID: {req_id})')"]


@case
def hf_offline_compute_node_01():
    venv = "/home/lwang/venvs/ft"
    site = f"{venv}/lib/python3.10/site-packages"
    model = "mistralai/Mistral-7B-v0.1"
    lines = ["==== SLURM job 5120931 | user lwang | node cn-g07 | partition gpu | start 2024-01-30T16:41:05 ====",
             "HF_HOME=/scratch/lwang/hf_cache",
             "TRANSFORMERS_CACHE=",
             "python: /home/lwang/venvs/ft/bin/python (Python 3.10.12)",
             "torch 2.1.2+cu121, transformers 4.36.2, huggingface_hub 0.20.2, 1 x NVIDIA A100-SXM4-40GB",
             f"+ python finetune.py --model_name_or_path {model} --train_file data/clinical_notes_train.jsonl --bf16 --output_dir /scratch/lwang/runs/mistral-clin-01"]
    lines += requests_conn_chain(site, "/usr/lib/python3.10", f"/{model}/resolve/main/config.json", "0x7f1c2b3e5a50",
                                 "5b0d7e44-21c9-4c6e-9a7f-0f3b2d8e6a11")
    lines += ["",
              "The above exception was the direct cause of the following exception:",
              "",
              "Traceback (most recent call last):",
              f'  File "{site}/transformers/utils/hub.py", line 389, in cached_file',
              "    resolved_file = hf_hub_download(",
              f'  File "{site}/huggingface_hub/utils/_validators.py", line 118, in _inner_fn',
              "    return fn(*args, **kwargs)",
              f'  File "{site}/huggingface_hub/file_download.py", line 1406, in hf_hub_download',
              "    raise LocalEntryNotFoundError(",
              "huggingface_hub.utils._errors.LocalEntryNotFoundError: Connection error, and we cannot find the requested files in the disk cache. Please try again or make sure your Internet connection is on.",
              "",
              "The above exception was the direct cause of the following exception:",
              "",
              "Traceback (most recent call last):",
              '  File "/home/lwang/projects/clin-ft/finetune.py", line 64, in <module>',
              "    config = AutoConfig.from_pretrained(args.model_name_or_path)",
              f'  File "{site}/transformers/models/auto/configuration_auto.py", line 1082, in from_pretrained',
              "    config_dict, unused_kwargs = PretrainedConfig.get_config_dict(pretrained_model_name_or_path, **kwargs)",
              f'  File "{site}/transformers/configuration_utils.py", line 644, in get_config_dict',
              "    config_dict, kwargs = cls._get_config_dict(pretrained_model_name_or_path, **kwargs)",
              f'  File "{site}/transformers/configuration_utils.py", line 699, in _get_config_dict',
              "    resolved_config_file = cached_file(",
              f'  File "{site}/transformers/utils/hub.py", line 429, in cached_file',
              "    raise EnvironmentError(",
              f"OSError: We couldn't connect to 'https://huggingface.co' to load this file, couldn't find it in the cached files and it looks like {model} is not the path to a directory containing a file named config.json.",
              "Checkout your internet connection or see how to run the library in offline mode at 'https://huggingface.co/docs/transformers/installation#offline-mode'.",
              "==== job 5120931 exit code 1 at 2024-01-30T16:41:19 ===="]
    write_case("hf-hub-unreachable-offline-compute-node-01", dict(
        label="hf-hub-unreachable", difficulty="easy",
        description="Slurm compute node without DNS/internet; the job points HF_HOME at an empty scratch cache, so "
                    "AutoConfig.from_pretrained('mistralai/Mistral-7B-v0.1') cannot reach huggingface.co and fails "
                    "with 'We couldn't connect to https://huggingface.co'.",
        facts=dict(gpu_model="A100-SXM4-40GB", torch_version="2.1.2", cuda_version="12.1",
                   transformers_version="4.36.2", python_version="3.10.12", launcher="python"),
        must_mention=["offline", "cache"], secrets=["lwang"]), {"slurm-5120931.out": "\n".join(lines)})


@case
def hf_gated_vllm_403_02():
    rng = random.Random(702)
    site = "/usr/local/lib/python3.10/dist-packages"
    tok = hf_token(rng)
    model = "meta-llama/Meta-Llama-3-8B-Instruct"
    rid = f"Root=1-{hex_token(rng, 8)}-{hex_token(rng, 24)};{hex_token(rng, 8)}-{hex_token(rng, 4)}-{hex_token(rng, 4)}-{hex_token(rng, 4)}-{hex_token(rng, 12)}"
    clock = Clock("2024-06-12 09:14:08", rng)
    lines = ["+ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader",
             "NVIDIA A10G, 535.183.01, 23028 MiB",
             "+ env | grep -E '^(HF_|HUGGING|VLLM|CUDA)' | sort",
             "CUDA_VERSION=12.4.1",
             "HF_HOME=/models/.cache",
             f"HF_TOKEN={tok}",
             "VLLM_WORKER_MULTIPROC_METHOD=spawn",
             f"+ exec python3 -m vllm.entrypoints.openai.api_server --model {model} --port 8000 --max-model-len 8192 --gpu-memory-utilization 0.90 --served-model-name llama3-8b-chat",
             f"INFO {clock.vllm(2, 3)} api_server.py:177] vLLM API server version 0.5.0.post1",
             f"INFO {clock.vllm()} api_server.py:178] args: Namespace(host=None, port=8000, uvicorn_log_level='info', allow_credentials=False, allowed_origins=['*'], allowed_methods=['*'], allowed_headers=['*'], api_key=None, lora_modules=None, chat_template=None, response_role='assistant', ssl_keyfile=None, ssl_certfile=None, ssl_ca_certs=None, ssl_cert_reqs=0, root_path=None, middleware=[], model='{model}', tokenizer=None, skip_tokenizer_init=False, revision=None, code_revision=None, tokenizer_revision=None, tokenizer_mode='auto', trust_remote_code=False, download_dir=None, load_format='auto', dtype='auto', kv_cache_dtype='auto', quantization_param_path=None, max_model_len=8192, guided_decoding_backend='outlines', distributed_executor_backend=None, worker_use_ray=False, pipeline_parallel_size=1, tensor_parallel_size=1, max_parallel_loading_workers=None, ray_workers_use_nsight=False, block_size=16, enable_prefix_caching=False, disable_sliding_window=False, use_v2_block_manager=False, num_lookahead_slots=0, seed=0, swap_space=4, gpu_memory_utilization=0.9, num_gpu_blocks_override=None, max_num_batched_tokens=None, max_num_seqs=256, max_logprobs=20, disable_log_stats=False, quantization=None, rope_scaling=None, rope_theta=None, enforce_eager=False, max_context_len_to_capture=None, max_seq_len_to_capture=8192, disable_custom_all_reduce=False, tokenizer_pool_size=0, tokenizer_pool_type='ray', tokenizer_pool_extra_config=None, enable_lora=False, max_loras=1, max_lora_rank=16, lora_extra_vocab_size=256, lora_dtype='auto', long_lora_scaling_factors=None, max_cpu_loras=None, fully_sharded_loras=False, device='auto', image_input_type=None, image_token_id=None, image_input_shape=None, image_feature_size=None, image_processor=None, image_processor_revision=None, disable_image_processor=False, scheduler_delay_factor=0.0, enable_chunked_prefill=False, speculative_model=None, num_speculative_tokens=None, speculative_draft_tensor_parallel_size=None, speculative_max_model_len=None, speculative_disable_by_batch_size=None, ngram_prompt_lookup_max=None, ngram_prompt_lookup_min=None, spec_decoding_acceptance_method='rejection_sampler', typical_acceptance_sampler_posterior_threshold=None, typical_acceptance_sampler_posterior_alpha=None, model_loader_extra_config=None, preemption_mode=None, served_model_name=['llama3-8b-chat'], qlora_adapter_name_or_path=None, engine_use_ray=False, disable_log_requests=False, max_log_len=None)",
             "Traceback (most recent call last):",
             f'  File "{site}/huggingface_hub/utils/_errors.py", line 304, in hf_raise_for_status',
             "    response.raise_for_status()",
             f'  File "{site}/requests/models.py", line 1021, in raise_for_status',
             "    raise HTTPError(http_error_msg, response=self)",
             f"requests.exceptions.HTTPError: 403 Client Error: Forbidden for url: https://huggingface.co/{model}/resolve/main/config.json",
             "",
             "The above exception was the direct cause of the following exception:",
             "",
             "Traceback (most recent call last):",
             f'  File "{site}/transformers/utils/hub.py", line 399, in cached_file',
             "    resolved_file = hf_hub_download(",
             f'  File "{site}/huggingface_hub/utils/_validators.py", line 114, in _inner_fn',
             "    return fn(*args, **kwargs)",
             f'  File "{site}/huggingface_hub/file_download.py", line 1221, in hf_hub_download',
             "    return _hf_hub_download_to_cache_dir(",
             f'  File "{site}/huggingface_hub/file_download.py", line 1325, in _hf_hub_download_to_cache_dir',
             "    _raise_on_head_call_error(head_call_error, force_download, local_files_only)",
             f'  File "{site}/huggingface_hub/file_download.py", line 1817, in _raise_on_head_call_error',
             "    raise head_call_error",
             f'  File "{site}/huggingface_hub/file_download.py", line 1722, in _get_metadata_or_catch_error',
             "    metadata = get_hf_file_metadata(url=url, proxies=proxies, timeout=etag_timeout, headers=headers)",
             f'  File "{site}/huggingface_hub/utils/_validators.py", line 114, in _inner_fn',
             "    return fn(*args, **kwargs)",
             f'  File "{site}/huggingface_hub/file_download.py", line 1645, in get_hf_file_metadata',
             "    r = _request_wrapper(",
             f'  File "{site}/huggingface_hub/file_download.py", line 372, in _request_wrapper',
             "    response = _request_wrapper(",
             f'  File "{site}/huggingface_hub/file_download.py", line 396, in _request_wrapper',
             "    hf_raise_for_status(response)",
             f'  File "{site}/huggingface_hub/utils/_errors.py", line 321, in hf_raise_for_status',
             "    raise GatedRepoError(message, response) from e",
             f"huggingface_hub.utils._errors.GatedRepoError: 403 Client Error. (Request ID: {rid})",
             "",
             f"Cannot access gated repo for url https://huggingface.co/{model}/resolve/main/config.json.",
             f"Access to model {model} is restricted and you are not in the authorized list. Visit https://huggingface.co/{model} to ask for access.",
             "",
             "The above exception was the direct cause of the following exception:",
             "",
             "Traceback (most recent call last):",
             '  File "/usr/lib/python3.10/runpy.py", line 196, in _run_module_as_main',
             "    return _run_code(code, main_globals, None,",
             '  File "/usr/lib/python3.10/runpy.py", line 86, in _run_code',
             "    exec(code, run_globals)",
             f'  File "{site}/vllm/entrypoints/openai/api_server.py", line 196, in <module>',
             "    engine = AsyncLLMEngine.from_engine_args(",
             f'  File "{site}/vllm/engine/async_llm_engine.py", line 371, in from_engine_args',
             "    engine_config = engine_args.create_engine_config()",
             f'  File "{site}/vllm/engine/arg_utils.py", line 633, in create_engine_config',
             "    model_config = ModelConfig(",
             f'  File "{site}/vllm/config.py", line 126, in __init__',
             "    self.hf_config = get_config(self.model, trust_remote_code, revision,",
             f'  File "{site}/vllm/transformers_utils/config.py", line 23, in get_config',
             "    config = AutoConfig.from_pretrained(",
             f'  File "{site}/transformers/models/auto/configuration_auto.py", line 928, in from_pretrained',
             "    config_dict, unused_kwargs = PretrainedConfig.get_config_dict(pretrained_model_name_or_path, **kwargs)",
             f'  File "{site}/transformers/configuration_utils.py", line 631, in get_config_dict',
             "    config_dict, kwargs = cls._get_config_dict(pretrained_model_name_or_path, **kwargs)",
             f'  File "{site}/transformers/configuration_utils.py", line 686, in _get_config_dict',
             "    resolved_config_file = cached_file(",
             f'  File "{site}/transformers/utils/hub.py", line 417, in cached_file',
             "    raise EnvironmentError(",
             "OSError: You are trying to access a gated repo.",
             f"Make sure to have access to it at https://huggingface.co/{model}.",
             f"403 Client Error. (Request ID: {rid})",
             "",
             f"Cannot access gated repo for url https://huggingface.co/{model}/resolve/main/config.json.",
             f"Access to model {model} is restricted and you are not in the authorized list. Visit https://huggingface.co/{model} to ask for access."]
    write_case("hf-hub-unreachable-gated-vllm-403-02", dict(
        label="hf-hub-unreachable", difficulty="easy",
        description="vLLM 0.5.0 OpenAI server pod for Llama-3-8B-Instruct: HF_TOKEN is set (printed by the entrypoint) "
                    "but that account was not granted access to the gated repo, so AutoConfig gets 403 and the server "
                    "exits before loading anything.",
        facts=dict(gpu_model="A10G", driver_version="535.183.01", launcher="python"),
        must_mention=["gated", "access"], secrets=[tok]), {"vllm-server.log": "\n".join(lines)})


@case
def hf_relative_path_eval_03():
    rng = random.Random(703)
    home = "/home/jdoe/proj/llm-sft"
    site = "/home/jdoe/.conda/envs/sft/lib/python3.10/site-packages"
    clock = Clock("2024-02-18 23:38:52", rng)
    lines = [f"[pipeline] {clock.iso()} host gpu-b03 python 3.10.13 torch 2.1.2+cu121 transformers 4.38.2 8 x NVIDIA A100-SXM4-80GB",
             f"[pipeline] {clock.iso()} stage 1/2: train (cwd={home})"]
    total = 6000
    loss = 1.12
    for step in range(5550, 6001, 50):
        loss = max(0.61, loss * rng.uniform(0.985, 1.004))
        lr = 2e-5 * 0.5 * (1 + __import__("math").cos(__import__("math").pi * step / total))
        el = step * 2.31
        lines.append(" " + tqdm_bar(step, total, f"{int(el // 3600)}:{int(el % 3600 // 60):02d}:{int(el % 60):02d}",
                                   f"{int((total - step) * 2.31 // 60):02d}:{int((total - step) * 2.31 % 60):02d}", f"{rng.uniform(2.2, 2.4):.2f}s/it"))
        lines.append(hf_loss_dict(rng, loss, lr, round(step / 2000, 2)))
    clock.at(6000 * 2.31 + 25)
    lines += [f"[INFO|trainer.py:3067] {clock.ds()} >> Saving model checkpoint to outputs/llama2-13b-sft/checkpoint-6000",
              f"[INFO|configuration_utils.py:473] {clock.ds()} >> Configuration saved in outputs/llama2-13b-sft/checkpoint-6000/config.json",
              f"[INFO|configuration_utils.py:614] {clock.ds()} >> Configuration saved in outputs/llama2-13b-sft/checkpoint-6000/generation_config.json",
              f"[INFO|modeling_utils.py:2462] {clock.ds(20, 30)} >> The model is bigger than the maximum size per checkpoint (5GB) and is going to be split in 6 checkpoint shards. You can find where each parameters has been saved in the index located at outputs/llama2-13b-sft/checkpoint-6000/model.safetensors.index.json.",
              f"[INFO|tokenization_utils_base.py:2459] {clock.ds()} >> tokenizer config file saved in outputs/llama2-13b-sft/checkpoint-6000/tokenizer_config.json",
              f"[INFO|tokenization_utils_base.py:2468] {clock.ds()} >> Special tokens file saved in outputs/llama2-13b-sft/checkpoint-6000/special_tokens_map.json",
              f"[INFO|trainer.py:2163] {clock.ds(1, 2)} >> ",
              "",
              "Training completed. Do not forget to share your model on huggingface.co/models =)",
              "",
              "",
              "{'train_runtime': 13874.2143, 'train_samples_per_second': 27.676, 'train_steps_per_second': 0.432, 'train_loss': 0.8126153717041016, 'epoch': 3.0}",
              f" {tqdm_bar(6000, 6000, '3:51:14', '00:00', '2.31s/it')}",
              f"[pipeline] {clock.iso(5, 6)} stage 2/2: eval (cwd={home}/eval)",
              "+ cd eval",
              "+ python run_eval.py --model outputs/llama2-13b-sft/checkpoint-6000 --tasks mt_bench,alpaca_eval --batch-size 8 --out results/llama2-13b-sft-ckpt6000.json",
              "Traceback (most recent call last):",
              f'  File "{site}/transformers/utils/hub.py", line 398, in cached_file',
              "    resolved_file = hf_hub_download(",
              f'  File "{site}/huggingface_hub/utils/_validators.py", line 110, in _inner_fn',
              "    validate_repo_id(arg_value)",
              f'  File "{site}/huggingface_hub/utils/_validators.py", line 158, in validate_repo_id',
              "    raise HFValidationError(",
              "huggingface_hub.utils._validators.HFValidationError: Repo id must be in the form 'repo_name' or 'namespace/repo_name': 'outputs/llama2-13b-sft/checkpoint-6000'. Use `repo_type` argument if needed.",
              "",
              "The above exception was the direct cause of the following exception:",
              "",
              "Traceback (most recent call last):",
              f'  File "{home}/eval/run_eval.py", line 41, in <module>',
              "    tokenizer = AutoTokenizer.from_pretrained(args.model, padding_side=\"left\")",
              f'  File "{site}/transformers/models/auto/tokenization_auto.py", line 782, in from_pretrained',
              "    tokenizer_config = get_tokenizer_config(pretrained_model_name_or_path, **kwargs)",
              f'  File "{site}/transformers/models/auto/tokenization_auto.py", line 614, in get_tokenizer_config',
              "    resolved_config_file = cached_file(",
              f'  File "{site}/transformers/utils/hub.py", line 462, in cached_file',
              "    raise EnvironmentError(",
              "OSError: Incorrect path_or_model_id: 'outputs/llama2-13b-sft/checkpoint-6000'. Please provide either the path to a local folder or the repo_id of a model on the Hub.",
              f"[pipeline] {clock.iso(1, 2)} stage 2/2 failed (exit 1); stage 1 artifacts kept in {home}/outputs"]
    write_case("hf-hub-unreachable-relative-path-eval-03", dict(
        label="hf-hub-unreachable", difficulty="medium",
        description="Train-then-eval pipeline: training saves outputs/llama2-13b-sft/checkpoint-6000 relative to the "
                    "project root, the eval stage runs after `cd eval` with the same relative path, which does not "
                    "exist there, so transformers treats it as a Hub repo id and fails with 'Incorrect path_or_model_id'.",
        facts=dict(gpu_model="A100-SXM4-80GB", python_version="3.10.13", torch_version="2.1.2",
                   transformers_version="4.38.2"),
        must_mention=["path", "cd eval"], secrets=["jdoe"]), {"pipeline.log": "\n".join(lines)})


@case
def hf_rank_timeout_srun_04():
    rng = random.Random(704)
    venv = "/opt/venvs/llm"
    site = f"{venv}/lib/python3.10/site-packages"
    clock = Clock("2024-08-27 09:58:31", rng)
    pfx = lambda r: f"{r:>2}: "
    hosts = lambda r: "gpu-b11" if r < 8 else "gpu-b12"
    pids = {r: (301220 if r < 8 else 144870) + r % 8 for r in range(16)}
    tok_name = "meta-llama/Meta-Llama-3.1-8B"
    lines = [f"job 733104 (cpt-llama31-8b) nodes=gpu-b[11-12] ntasks=16 start={clock.iso()}",
             "HF_HOME=/tmp/hf_home_733104 (node-local)",
             "+ srun -l --ntasks-per-node=8 python -u cpt_train.py --init /shared/ckpt/llama31-8b-cpt/step_20000 --tokenizer meta-llama/Meta-Llama-3.1-8B --data /shared/data/code_mix_v2 --seq-len 8192"]
    st = [[f"{pfx(r)}[{clock.ds(0.02, 0.3)}] rank {r}/16 on {hosts(r)} cuda:{r % 8} torch 2.3.1+cu121"] for r in range(16)]
    lines += interleave(rng, st, 1)
    clock.at(38)
    lines += [f"{pfx(0)}[{clock.ds()}] loaded LlamaForCausalLM from /shared/ckpt/llama31-8b-cpt/step_20000 (8.03B params, bf16) in 37.6s",
              f"{pfx(0)}{hosts(0)}:{pids[0]}:{pids[0]} [0] NCCL INFO Bootstrap : Using ens1f0np0:10.20.6.11<0>",
              f"{pfx(0)}{hosts(0)}:{pids[0]}:{pids[0]} [0] NCCL INFO cudaDriverVersion 12040",
              f"{pfx(0)}NCCL version 2.20.5+cuda12.4"]
    ini = []
    for r in range(16):
        ini.append([f"{pfx(r)}{hosts(r)}:{pids[r]}:{pids[r] + 388} [{r % 8}] NCCL INFO Using network IB",
                    f"{pfx(r)}{hosts(r)}:{pids[r]}:{pids[r] + 388} [{r % 8}] NCCL INFO comm 0x{0x5601d3e4a000 + r * 0x3c80:x} rank {r} nranks 16 cudaDev {r % 8} nvmlDev {r % 8} busId {BUSES_SXM4[r % 8][4:].lower()} commId 0x51d8a0c3e67b2f94 - Init COMPLETE"])
    lines += interleave(rng, ini, 2)
    lines.append(f"{pfx(0)}[{clock.ds(1, 2)}] DDP ready (broadcast of 8.03B params done), building data pipeline")
    # tokenizer from the Hub; node-local cache is cold on both nodes
    clock.at(2)
    # gpu-b11 gets fast answers; from gpu-b12 the Hub answers slowly (see below)
    lines += [f"{pfx(0)}tokenizer_config.json: 100%|██████████| 50.6k/50.6k [00:00<00:00, {rng.uniform(2.1, 9.8):.1f}MB/s]",
              f"{pfx(0)}tokenizer.json: 100%|██████████| 9.09M/9.09M [00:00<00:00, 31.7MB/s]",
              f"{pfx(0)}special_tokens_map.json: 100%|██████████| 73.0/73.0 [00:00<00:00, 412kB/s]"]
    clock.at(10.3)
    tb = ["Traceback (most recent call last):",
          f'  File "{site}/urllib3/connectionpool.py", line 537, in _make_request',
          "    response = conn.getresponse()",
          f'  File "{site}/urllib3/connection.py", line 466, in getresponse',
          "    httplib_response = super().getresponse()",
          '  File "/usr/lib/python3.10/http/client.py", line 1375, in getresponse',
          "    response.begin()",
          '  File "/usr/lib/python3.10/http/client.py", line 318, in begin',
          "    version, status, reason = self._read_status()",
          '  File "/usr/lib/python3.10/http/client.py", line 279, in _read_status',
          '    line = str(self.fp.readline(_MAXLINE + 1), "iso-8859-1")',
          '  File "/usr/lib/python3.10/socket.py", line 705, in readinto',
          "    return self._sock.recv_into(b)",
          '  File "/usr/lib/python3.10/ssl.py", line 1303, in recv_into',
          "    return self.read(nbytes, buffer)",
          '  File "/usr/lib/python3.10/ssl.py", line 1159, in read',
          "    return self._sslobj.read(len, buffer)",
          "TimeoutError: The read operation timed out",
          "",
          "The above exception was the direct cause of the following exception:",
          "",
          "Traceback (most recent call last):",
          f'  File "{site}/requests/adapters.py", line 667, in send',
          "    resp = conn.urlopen(",
          f'  File "{site}/urllib3/connectionpool.py", line 843, in urlopen',
          "    retries = retries.increment(",
          f'  File "{site}/urllib3/util/retry.py", line 474, in increment',
          "    raise reraise(type(error), error, _stacktrace)",
          f'  File "{site}/urllib3/util/util.py", line 39, in reraise',
          "    raise value",
          f'  File "{site}/urllib3/connectionpool.py", line 789, in urlopen',
          "    response = self._make_request(",
          f'  File "{site}/urllib3/connectionpool.py", line 538, in _make_request',
          "    self._raise_timeout(err=e, url=url, timeout_value=read_timeout)",
          f'  File "{site}/urllib3/connectionpool.py", line 369, in _raise_timeout',
          "    raise ReadTimeoutError(",
          "urllib3.exceptions.ReadTimeoutError: HTTPSConnectionPool(host='huggingface.co', port=443): Read timed out. (read timeout=10)",
          "",
          "During handling of the above exception, another exception occurred:",
          "",
          "Traceback (most recent call last):",
          f'  File "{site}/huggingface_hub/file_download.py", line 1722, in _get_metadata_or_catch_error',
          "    metadata = get_hf_file_metadata(url=url, proxies=proxies, timeout=etag_timeout, headers=headers)",
          f'  File "{site}/huggingface_hub/utils/_validators.py", line 114, in _inner_fn',
          "    return fn(*args, **kwargs)",
          f'  File "{site}/huggingface_hub/file_download.py", line 1645, in get_hf_file_metadata',
          "    r = _request_wrapper(",
          f'  File "{site}/huggingface_hub/file_download.py", line 372, in _request_wrapper',
          "    response = _request_wrapper(",
          f'  File "{site}/huggingface_hub/file_download.py", line 395, in _request_wrapper',
          "    response = get_session().request(method=method, url=url, **params)",
          f'  File "{site}/requests/sessions.py", line 589, in request',
          "    resp = self.send(prep, **send_kwargs)",
          f'  File "{site}/requests/sessions.py", line 703, in send',
          "    r = adapter.send(request, **kwargs)",
          f'  File "{site}/huggingface_hub/utils/_http.py", line 66, in send',
          "    return super().send(request, *args, **kwargs)",
          f'  File "{site}/requests/adapters.py", line 713, in send',
          "    raise ReadTimeout(e, request=request)",
          f"requests.exceptions.ReadTimeout: (ReadTimeoutError(\"HTTPSConnectionPool(host='huggingface.co', port=443): Read timed out. (read timeout=10)\"), '(Request ID: {hex_token(rng, 8)}-{hex_token(rng, 4)}-{hex_token(rng, 4)}-{hex_token(rng, 4)}-{hex_token(rng, 12)})')",
          "",
          "The above exception was the direct cause of the following exception:",
          "",
          "Traceback (most recent call last):",
          f'  File "{site}/transformers/utils/hub.py", line 402, in cached_file',
          "    resolved_file = hf_hub_download(",
          f'  File "{site}/huggingface_hub/utils/_deprecation.py", line 101, in inner_f',
          "    return f(*args, **kwargs)",
          f'  File "{site}/huggingface_hub/utils/_validators.py", line 114, in _inner_fn',
          "    return fn(*args, **kwargs)",
          f'  File "{site}/huggingface_hub/file_download.py", line 1221, in hf_hub_download',
          "    return _hf_hub_download_to_cache_dir(",
          f'  File "{site}/huggingface_hub/file_download.py", line 1325, in _hf_hub_download_to_cache_dir',
          "    _raise_on_head_call_error(head_call_error, force_download, local_files_only)",
          f'  File "{site}/huggingface_hub/file_download.py", line 1826, in _raise_on_head_call_error',
          "    raise LocalEntryNotFoundError(",
          "huggingface_hub.errors.LocalEntryNotFoundError: An error happened while trying to locate the file on the Hub and we cannot find the requested files in the local cache. Please check your connection and try again or make sure your Internet connection is on.",
          "",
          "The above exception was the direct cause of the following exception:",
          "",
          "Traceback (most recent call last):",
          '  File "/shared/proj/cpt/cpt_train.py", line 412, in <module>',
          "    main(parse_args())",
          '  File "/shared/proj/cpt/cpt_train.py", line 201, in main',
          "    train_loader = build_loader(args, rank, world_size)",
          '  File "/shared/proj/cpt/data.py", line 57, in build_loader',
          "    tok = AutoTokenizer.from_pretrained(args.tokenizer)",
          f'  File "{site}/transformers/models/auto/tokenization_auto.py", line 854, in from_pretrained',
          "    tokenizer_config = get_tokenizer_config(pretrained_model_name_or_path, **kwargs)",
          f'  File "{site}/transformers/models/auto/tokenization_auto.py", line 686, in get_tokenizer_config',
          "    resolved_config_file = cached_file(",
          f'  File "{site}/transformers/utils/hub.py", line 445, in cached_file',
          "    raise EnvironmentError(",
          f"OSError: We couldn't connect to 'https://huggingface.co' to load this file, couldn't find it in the cached files and it looks like {tok_name} is not the path to a directory containing a file named tokenizer_config.json.",
          "Checkout your internet connection or see how to run the library in offline mode at 'https://huggingface.co/docs/transformers/installation#offline-mode'."]
    lines += [pfx(11) + ln for ln in tb]
    lines += [f"{pfx(8)}tokenizer_config.json: 100%|██████████| 50.6k/50.6k [00:00<00:00, 1.2MB/s]",
              f"{pfx(8)}tokenizer.json: 100%|██████████| 9.09M/9.09M [00:04<00:00, 2.11MB/s]",
              f"{pfx(8)}special_tokens_map.json: 100%|██████████| 73.0/73.0 [00:00<00:00, 96.4kB/s]"]
    clock.at(0.9)
    lines.append("srun: error: gpu-b12: task 11: Exited with exit code 1")
    for r in (0, 8):
        lines.append(f"{pfx(r)}[{clock.ds(0.5, 1.5)}] data: 48 shards, 1,912,604 sequences of 8192 tokens, 37357 steps/epoch")
    lines.append(f"{pfx(0)}[{clock.ds(3, 5)}] step 0 starting (global batch 128 x 8192 tokens, lr warmup 500)")
    clock.at(1800.4)
    wd = []
    for r in [r for r in range(16) if r != 11]:
        ran = 1800000 + rng.randint(60, 700)
        msg = f"[Rank {r}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=3, OpType=ALLREDUCE, NumelIn=134217728, NumelOut=134217728, Timeout(ms)=1800000) ran for {ran} milliseconds before timing out."
        wd.append([f"{pfx(r)}[rank{r}]:[E ProcessGroupNCCL.cpp:563] {msg}",
                   f"{pfx(r)}[rank{r}]:[E ProcessGroupNCCL.cpp:1537] [PG 0 Rank {r}] Timeout at NCCL work: 3, last enqueued NCCL work: 3, last completed NCCL work: 2.",
                   f"{pfx(r)}[rank{r}]:[E ProcessGroupNCCL.cpp:577] [Rank {r}] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.",
                   f"{pfx(r)}[rank{r}]:[E ProcessGroupNCCL.cpp:583] [Rank {r}] To avoid data inconsistency, we are taking the entire process down.",
                   f"{pfx(r)}[rank{r}]:[E ProcessGroupNCCL.cpp:1414] [PG 0 Rank {r}] Process group watchdog thread terminated with exception: {msg}",
                   f"{pfx(r)}terminate called after throwing an instance of 'c10::DistBackendError'",
                   f"{pfx(r)}  what():  [PG 0 Rank {r}] Process group watchdog thread terminated with exception: {msg}"])
    lines += interleave(rng, wd, 2)
    clock.at(4)
    lines += ["srun: error: gpu-b11: tasks 0-7: Aborted (core dumped)",
              "srun: error: gpu-b12: tasks 8-10,12-15: Aborted (core dumped)",
              f"job 733104 end={clock.iso()} exit=134"]
    write_case("hf-hub-unreachable-rank-timeout-srun-04", dict(
        label="hf-hub-unreachable", difficulty="hard",
        description="16-rank srun continued pre-training: each rank loads the tokenizer from the Hub into a cold "
                    "node-local HF_HOME; rank 11's HEAD request times out and it exits with 'We couldn't connect to "
                    "huggingface.co'. The other 15 ranks enter the first all-reduce and die 30 minutes later with NCCL "
                    "watchdog timeouts that end the log.",
        initiating_rank=11,
        facts=dict(torch_version="2.3.1", cuda_version="12.1", nccl_version="2.20.5", launcher="srun",
                   world_size="16", num_nodes="2"),
        must_mention=["rank 11", "huggingface.co"]), {"slurm-733104.out": "\n".join(lines)})


# ================================================================================================================
# vllm-kv-cache-too-small
# ================================================================================================================

def with_carets(frames: list[str]) -> list[str]:
    """Add Python 3.11+/3.12 caret lines under single-line call expressions, as the interpreter prints them."""
    out = []
    for ln in frames:
        out.append(ln)
        if ln.lstrip().startswith(("File ", "Traceback", "^")) or not ln.startswith("    "):
            continue
        code = ln.strip()
        if code.endswith(("(", ",", "[", ":")) or code.startswith(("raise ", "for ", "if ", "async with ", "with ")):
            continue
        indent = len(ln) - len(ln.lstrip())
        start = 0
        if code.startswith("return "):
            start = len("return ")
        elif code.startswith("await "):
            start = len("await ")
        else:
            eq = code.find(" = ")
            par = code.find("(")
            if eq != -1 and (par == -1 or eq < par):
                start = eq + 3
        seg = code[start:]
        if start == 0 or "(" not in seg:
            continue
        out.append(" " * (indent + start) + "^" * len(seg))
    return out


@case
def kv_mistral_a10g_01():
    rng = random.Random(801)
    site = "/home/ubuntu/.venvs/vllm/lib/python3.10/site-packages"
    clock = Clock("2024-05-09 11:02:09", rng)
    model = "mistralai/Mistral-7B-Instruct-v0.2"
    v = lambda lvl="INFO", lo=0.01, hi=0.3: f"{lvl} {clock.vllm(lo, hi)}"
    lines = [f"(vllm) ubuntu@ip-172-31-20-144:~/synth$ python gen_synthetic.py --model {model} --prompts data/seed_prompts.jsonl --n 4 --out data/synth_v2.jsonl",
             "[gen] loading prompts: 12,400 seeds",
             f"{v(lo=2, hi=3)} llm_engine.py:100] Initializing an LLM engine (v0.4.2) with config: model='{model}', speculative_config=None, tokenizer='{model}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=32768, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=1, disable_custom_all_reduce=False, quantization=None, enforce_eager=False, kv_cache_dtype=auto, quantization_param_path=None, device_config=cuda, decoding_config=DecodingConfig(guided_decoding_backend='outlines'), seed=1234, served_model_name={model})",
             f"{v(lo=0.5, hi=1)} utils.py:660] Found nccl from library /home/ubuntu/.config/vllm/nccl/cu12/libnccl.so.2.18.1",
             f"{v(lo=1, hi=2)} selector.py:81] Cannot use FlashAttention-2 backend because the flash_attn package is not found. Please install it for better performance.",
             f"{v()} selector.py:32] Using XFormers backend.",
             f"{v(lo=1, hi=2)} weight_utils.py:199] Using model weights format ['*.safetensors']",
             f"{v(lo=5, hi=7)} model_runner.py:175] Loading model weights took 13.4966 GB",
             f"{v(lo=2, hi=3)} gpu_executor.py:114] # GPU blocks: 1638, # CPU blocks: 2048"]
    lines += ["Traceback (most recent call last):",
              '  File "/home/ubuntu/synth/gen_synthetic.py", line 31, in <module>',
              '    llm = LLM(model=args.model, dtype="bfloat16", seed=1234)',
              f'  File "{site}/vllm/entrypoints/llm.py", line 123, in __init__',
              "    self.llm_engine = LLMEngine.from_engine_args(",
              f'  File "{site}/vllm/engine/llm_engine.py", line 292, in from_engine_args',
              "    engine = cls(",
              f'  File "{site}/vllm/engine/llm_engine.py", line 172, in __init__',
              "    self._initialize_kv_caches()",
              f'  File "{site}/vllm/engine/llm_engine.py", line 262, in _initialize_kv_caches',
              "    self.model_executor.initialize_cache(num_gpu_blocks, num_cpu_blocks)",
              f'  File "{site}/vllm/executor/gpu_executor.py", line 117, in initialize_cache',
              "    self.driver_worker.initialize_cache(num_gpu_blocks, num_cpu_blocks)",
              f'  File "{site}/vllm/worker/worker.py", line 172, in initialize_cache',
              "    raise_if_cache_size_invalid(num_gpu_blocks,",
              f'  File "{site}/vllm/worker/worker.py", line 336, in raise_if_cache_size_invalid',
              "    raise ValueError(",
              "ValueError: The model's max seq len (32768) is larger than the maximum number of tokens that can be stored in KV cache (26208). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.",
              "(vllm) ubuntu@ip-172-31-20-144:~/synth$ "]
    smi = nvidia_smi("Thu May  9 11:01:58 2024", "535.161.07", "12.2",
                     [gpu("A10G", 23028, "00000000:00:1E.0", rng, cap=300, fan="0%", perf="P8", pwr=17, used=0)], style="535")
    pre = ["(vllm) ubuntu@ip-172-31-20-144:~/synth$ nvidia-smi"] + smi.split("\n")
    write_case("vllm-kv-cache-too-small-mistral-a10g-01", dict(
        label="vllm-kv-cache-too-small", difficulty="easy",
        description="Offline vLLM 0.4.2 generation with Mistral-7B-Instruct-v0.2 on an empty 24 GB A10G: max_model_len "
                    "defaults to 32768 but only 1638 blocks (26208 tokens) fit after weights and profiling.",
        facts=dict(gpu_model="A10G", driver_version="535.161.07", launcher="python", gpu_count="1"),
        must_mention=["max_model_len"]), {"gen.log": "\n".join(pre + lines)})


@case
def kv_llama31_v1_l4_02():
    rng = random.Random(802)
    site = "/usr/local/lib/python3.12/dist-packages"
    clock = Clock("2025-05-02 14:03:09", rng)
    model = "meta-llama/Llama-3.1-8B-Instruct"
    core_pid = 233

    def v(lvl="INFO", src="", lo=0.01, hi=0.3, p=None):
        t = clock.vllm(lo, hi)
        pre = f"(EngineCore_0 pid={core_pid}) " if p == "core" else ""
        return f"{pre}{lvl} {t} [{src}]"

    lines = [f"{v(src='__init__.py:239', lo=1, hi=2)} Automatically detected platform cuda.",
             f"{v(src='api_server.py:1043', lo=2, hi=3)} vLLM API server version 0.8.5",
             f"{v(src='api_server.py:1044')} args: Namespace(subparser='serve', model_tag='{model}', config='', host=None, port=8000, uvicorn_log_level='info', disable_uvicorn_access_log=False, allow_credentials=False, allowed_origins=['*'], allowed_methods=['*'], allowed_headers=['*'], api_key=None, lora_modules=None, prompt_adapters=None, chat_template=None, chat_template_content_format='auto', response_role='assistant', ssl_keyfile=None, ssl_certfile=None, ssl_ca_certs=None, enable_ssl_refresh=False, ssl_cert_reqs=0, root_path=None, middleware=[], return_tokens_as_token_ids=False, disable_frontend_multiprocessing=False, enable_request_id_headers=False, enable_auto_tool_choice=False, tool_call_parser=None, tool_parser_plugin='', model='{model}', task='auto', tokenizer=None, hf_config_path=None, skip_tokenizer_init=False, revision=None, code_revision=None, tokenizer_revision=None, tokenizer_mode='auto', trust_remote_code=False, allowed_local_media_path=None, load_format='auto', download_dir=None, model_loader_extra_config={{}}, use_tqdm_on_load=True, config_format=<ConfigFormat.AUTO: 'auto'>, dtype='auto', max_model_len=None, guided_decoding_backend='auto', logits_processor_pattern=None, model_impl='auto', distributed_executor_backend=None, pipeline_parallel_size=1, tensor_parallel_size=1, data_parallel_size=1, enable_expert_parallel=False, max_parallel_loading_workers=None, ray_workers_use_nsight=False, disable_custom_all_reduce=False, block_size=None, gpu_memory_utilization=0.9, swap_space=4, kv_cache_dtype='auto', num_gpu_blocks_override=None, enable_prefix_caching=None, prefix_caching_hash_algo='builtin', cpu_offload_gb=0, calculate_kv_scales=False, disable_sliding_window=False, use_v2_block_manager=True, seed=None, max_logprobs=20, disable_log_stats=False, quantization=None, rope_scaling=None, rope_theta=None, hf_token=None, hf_overrides=None, enforce_eager=False, max_seq_len_to_capture=8192, max_num_batched_tokens=None, max_num_seqs=None, max_num_partial_prefills=1, max_long_partial_prefills=1, long_prefill_token_threshold=0, num_lookahead_slots=0, scheduler_delay_factor=0.0, preemption_mode=None, num_scheduler_steps=1, multi_step_stream_outputs=True, scheduling_policy='fcfs', enable_chunked_prefill=None, disable_chunked_mm_input=False, scheduler_cls='vllm.core.scheduler.Scheduler', served_model_name=['llama31-8b'], disable_async_output_proc=False, speculative_config=None, additional_config=None, enable_reasoning=False, reasoning_parser=None, disable_log_requests=True, max_log_len=None, disable_fastapi_docs=False, enable_prompt_tokens_details=False, enable_server_load_tracking=False, dispatch_function=<function ServeSubcommand.cmd at 0x7f0c1a7b2ca0>)",
             f"{v(src='config.py:717', lo=6, hi=8)} This model supports multiple tasks: {{'generate', 'embed', 'score', 'reward', 'classify'}}. Defaulting to 'generate'.",
             f"{v(src='config.py:2003')} Chunked prefill is enabled with max_num_batched_tokens=8192.",
             f"{v(src='__init__.py:239', p='core', lo=3, hi=4)} Automatically detected platform cuda.",
             f"{v(src='core.py:58', p='core', lo=1, hi=2)} Initializing a V1 LLM engine (v0.8.5) with config: model='{model}', speculative_config=None, tokenizer='{model}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, override_neuron_config=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=131072, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=1, pipeline_parallel_size=1, disable_custom_all_reduce=False, quantization=None, enforce_eager=False, kv_cache_dtype=auto,  device_config=cuda, decoding_config=DecodingConfig(guided_decoding_backend='auto', reasoning_backend=None), observability_config=ObservabilityConfig(show_hidden_metrics=False, otlp_traces_endpoint=None, collect_model_forward_time=False, collect_model_execute_time=False), seed=None, served_model_name=llama31-8b, num_scheduler_steps=1, multi_step_stream_outputs=True, enable_prefix_caching=True, chunked_prefill_enabled=True, use_async_output_proc=True, disable_mm_preprocessor_cache=False, mm_processor_kwargs=None, pooler_config=None, compilation_config={{\"level\":3,\"custom_ops\":[\"none\"],\"splitting_ops\":[\"vllm.unified_attention\",\"vllm.unified_attention_with_output\"],\"use_inductor\":true,\"compile_sizes\":[],\"use_cudagraph\":true,\"cudagraph_num_of_warmups\":1,\"cudagraph_capture_sizes\":[512,504,496,488,480,472,464,456,448,440,432,424,416,408,400,392,384,376,368,360,352,344,336,328,320,312,304,296,288,280,272,264,256,248,240,232,224,216,208,200,192,184,176,168,160,152,144,136,128,120,112,104,96,88,80,72,64,56,48,40,32,24,16,8,4,2,1],\"max_capture_size\":512}}",
             f"{v(lvl='WARNING', src='utils.py:2522', p='core')} Methods determine_num_available_blocks,device_config,get_cache_block_size_bytes,initialize_cache not implemented in <vllm.v1.worker.gpu_worker.Worker object at 0x7f3a5d1c2de0>",
             f"{v(src='parallel_state.py:1004', p='core', lo=0.5, hi=1)} rank 0 in world size 1 is assigned as DP rank 0, PP rank 0, TP rank 0",
             f"{v(src='cuda.py:221', p='core')} Using Flash Attention backend on V1 engine.",
             f"{v(lvl='WARNING', src='topk_topp_sampler.py:69', p='core')} FlashInfer is not available. Falling back to the PyTorch-native implementation of top-p & top-k sampling. For the best performance, please install FlashInfer.",
             f"{v(src='gpu_model_runner.py:1329', p='core')} Starting to load model {model}...",
             f"{v(src='weight_utils.py:265', p='core', lo=1, hi=2)} Using model weights format ['*.safetensors']",
             f"(EngineCore_0 pid={core_pid}) Loading safetensors checkpoint shards:   0% Completed | 0/4 [00:00<?, ?it/s]",
             f"(EngineCore_0 pid={core_pid}) Loading safetensors checkpoint shards:  25% Completed | 1/4 [00:01<00:04,  1.52s/it]",
             f"(EngineCore_0 pid={core_pid}) Loading safetensors checkpoint shards:  50% Completed | 2/4 [00:02<00:02,  1.11s/it]",
             f"(EngineCore_0 pid={core_pid}) Loading safetensors checkpoint shards:  75% Completed | 3/4 [00:03<00:01,  1.18s/it]",
             f"(EngineCore_0 pid={core_pid}) Loading safetensors checkpoint shards: 100% Completed | 4/4 [00:03<00:00,  1.02it/s]",
             f"(EngineCore_0 pid={core_pid}) Loading safetensors checkpoint shards: 100% Completed | 4/4 [00:03<00:00,  1.08it/s]",
             f"(EngineCore_0 pid={core_pid}) ",
             f"{v(src='loader.py:458', p='core', lo=3, hi=4)} Loading weights took 3.79 seconds",
             f"{v(src='gpu_model_runner.py:1347', p='core')} Model loading took 14.9889 GiB and 4.412891 seconds",
             f"{v(src='backends.py:420', p='core', lo=4, hi=6)} Using cache directory: /root/.cache/vllm/torch_compile_cache/5c1f0a9e3b/rank_0_0 for vLLM's torch.compile",
             f"{v(src='backends.py:430', p='core')} Dynamo bytecode transform time: 6.07 s",
             f"{v(src='backends.py:136', p='core', lo=2, hi=3)} Cache the graph of shape None for later use",
             f"{v(src='backends.py:148', p='core', lo=20, hi=22)} Compiling a graph for general shape takes 21.38 s",
             f"{v(src='monitor.py:33', p='core', lo=1, hi=2)} torch.compile takes 27.45 s in total",
             f"{v(src='gpu_worker.py:184', p='core', lo=1, hi=2)} Available KV cache memory: 4.21 GiB"]
    err = ["Traceback (most recent call last):",
           f'  File "{site}/vllm/v1/engine/core.py", line 387, in run_engine_core',
           "    engine_core = EngineCoreProc(*args, **kwargs)",
           f'  File "{site}/vllm/v1/engine/core.py", line 329, in __init__',
           "    super().__init__(vllm_config, executor_class, log_stats,",
           f'  File "{site}/vllm/v1/engine/core.py", line 71, in __init__',
           "    self._initialize_kv_caches(vllm_config)",
           f'  File "{site}/vllm/v1/engine/core.py", line 133, in _initialize_kv_caches',
           "    kv_cache_configs = [",
           f'  File "{site}/vllm/v1/core/kv_cache_utils.py", line 699, in get_kv_cache_config',
           "    check_enough_kv_cache_memory(vllm_config, kv_cache_spec, available_memory)",
           f'  File "{site}/vllm/v1/core/kv_cache_utils.py", line 527, in check_enough_kv_cache_memory',
           "    raise ValueError(",
           "ValueError: To serve at least one request with the models's max seq len (131072), (16.00 GiB KV cache is needed, which is larger than the available KV cache memory (4.21 GiB). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine."]
    err = with_carets(err)
    t = clock.vllm(1, 2)
    lines += [f"(EngineCore_0 pid={core_pid}) ERROR {t} [core.py:396] EngineCore failed to start."]
    lines += [f"(EngineCore_0 pid={core_pid}) ERROR {t} [core.py:396] {ln}" for ln in err]
    lines += [f"(EngineCore_0 pid={core_pid}) Process EngineCore_0:",
              f"(EngineCore_0 pid={core_pid}) Traceback (most recent call last):",
              f'(EngineCore_0 pid={core_pid})   File "/usr/lib/python3.12/multiprocessing/process.py", line 314, in _bootstrap',
              f"(EngineCore_0 pid={core_pid})     self.run()",
              f'(EngineCore_0 pid={core_pid})   File "/usr/lib/python3.12/multiprocessing/process.py", line 108, in run',
              f"(EngineCore_0 pid={core_pid})     self._target(*self._args, **self._kwargs)",
              f'(EngineCore_0 pid={core_pid})   File "{site}/vllm/v1/engine/core.py", line 400, in run_engine_core',
              f"(EngineCore_0 pid={core_pid})     raise e"]
    lines += [f"(EngineCore_0 pid={core_pid}) {ln}" for ln in err[1:]]
    lines.append(f"[rank0]:[W502 {clock.vllm(0.3, 0.5)[6:]}.431219127 ProcessGroupNCCL.cpp:1496] Warning: WARNING: destroy_process_group() was not called before program exit, which can leak resources. For more info, please see https://pytorch.org/docs/stable/distributed.html#shutdown (function operator())")
    front = ["Traceback (most recent call last):",
             '  File "/usr/local/bin/vllm", line 10, in <module>',
             "    sys.exit(main())",
             f'  File "{site}/vllm/entrypoints/cli/main.py", line 53, in main',
             "    args.dispatch_function(args)",
             f'  File "{site}/vllm/entrypoints/cli/serve.py", line 27, in cmd',
             "    uvloop.run(run_server(args))",
             *uvloop_run_frames(site),
             f'  File "{site}/vllm/entrypoints/openai/api_server.py", line 1078, in run_server',
             "    async with build_async_engine_client(args) as engine_client:",
             '  File "/usr/lib/python3.12/contextlib.py", line 210, in __aenter__',
             "    return await anext(self.gen)",
             f'  File "{site}/vllm/entrypoints/openai/api_server.py", line 146, in build_async_engine_client',
             "    async with build_async_engine_client_from_engine_args(",
             '  File "/usr/lib/python3.12/contextlib.py", line 210, in __aenter__',
             "    return await anext(self.gen)",
             f'  File "{site}/vllm/entrypoints/openai/api_server.py", line 178, in build_async_engine_client_from_engine_args',
             "    async_llm = AsyncLLM.from_vllm_config(",
             f'  File "{site}/vllm/v1/engine/async_llm.py", line 150, in from_vllm_config',
             "    return cls(",
             f'  File "{site}/vllm/v1/engine/async_llm.py", line 118, in __init__',
             "    self.engine_core = core_client_class(",
             f'  File "{site}/vllm/v1/engine/core_client.py", line 642, in __init__',
             "    super().__init__(",
             f'  File "{site}/vllm/v1/engine/core_client.py", line 398, in __init__',
             "    self._wait_for_engine_startup()",
             f'  File "{site}/vllm/v1/engine/core_client.py", line 430, in _wait_for_engine_startup',
             '    raise RuntimeError("Engine core initialization failed. "',
             "RuntimeError: Engine core initialization failed. See root cause above."]
    lines += with_carets(front)
    hdr = ["ubuntu@g6-xlarge-serve:~$ nvidia-smi -L",
           f"GPU 0: NVIDIA L4 (UUID: GPU-{hex_token(rng, 8)}-{hex_token(rng, 4)}-{hex_token(rng, 4)}-{hex_token(rng, 4)}-{hex_token(rng, 12)})",
           "ubuntu@g6-xlarge-serve:~$ vllm serve meta-llama/Llama-3.1-8B-Instruct --served-model-name llama31-8b --disable-log-requests"]
    write_case("vllm-kv-cache-too-small-llama31-v1-l4-02", dict(
        label="vllm-kv-cache-too-small", difficulty="medium",
        description="vLLM 0.8.5 (V1 engine) serving Llama-3.1-8B-Instruct on a 24 GB L4 without --max-model-len: "
                    "one 131072-token request needs 16 GiB of KV cache but only 4.21 GiB is available; the engine "
                    "core dies and the API server ends with the generic 'Engine core initialization failed'.",
        facts=dict(gpu_model="L4", gpu_count="1"),
        must_mention=["max-model-len", "131072"]), {"vllm.log": "\n".join(hdr + lines)})


@case
def kv_llama70b_ray_tp4_03():
    rng = random.Random(803)
    site = "/usr/local/lib/python3.10/dist-packages"
    clock = Clock("2024-07-25 10:09:41", rng)
    model = "meta-llama/Meta-Llama-3.1-70B-Instruct"
    workers = [48812, 48957, 49101]
    v = lambda lvl="INFO", lo=0.01, hi=0.3: f"{lvl} {clock.vllm(lo, hi)}"
    rw = lambda pid, lvl="INFO", lo=0.0, hi=0.05: f"(RayWorkerWrapper pid={pid}) {lvl} {clock.vllm(lo, hi)}"
    smi = nvidia_smi("Thu Jul 25 10:09:38 2024", "550.90.07", "12.4",
                     [gpu("L40S", 46068, b, rng, cap=350, used=1, pm="On") for b in BUSES_8[:4]], style="550")
    lines = ["+ nvidia-smi"] + smi.split("\n")
    lines += [f"+ python3 -m vllm.entrypoints.openai.api_server --model {model} --tensor-parallel-size 4 --distributed-executor-backend ray --gpu-memory-utilization 0.90 --port 8000",
              f"{v(lo=3, hi=4)} api_server.py:219] vLLM API server version 0.5.3.post1",
              f"{v()} api_server.py:220] args: Namespace(host=None, port=8000, uvicorn_log_level='info', allow_credentials=False, allowed_origins=['*'], allowed_methods=['*'], allowed_headers=['*'], api_key=None, lora_modules=None, prompt_adapters=None, chat_template=None, response_role='assistant', ssl_keyfile=None, ssl_certfile=None, ssl_ca_certs=None, ssl_cert_reqs=0, root_path=None, middleware=[], return_tokens_as_token_ids=False, model='{model}', tokenizer=None, skip_tokenizer_init=False, revision=None, code_revision=None, tokenizer_revision=None, tokenizer_mode='auto', trust_remote_code=False, download_dir=None, load_format='auto', dtype='auto', kv_cache_dtype='auto', quantization_param_path=None, max_model_len=None, guided_decoding_backend='outlines', distributed_executor_backend='ray', worker_use_ray=False, pipeline_parallel_size=1, tensor_parallel_size=4, max_parallel_loading_workers=None, ray_workers_use_nsight=False, block_size=16, enable_prefix_caching=False, disable_sliding_window=False, use_v2_block_manager=False, num_lookahead_slots=0, seed=0, swap_space=4, cpu_offload_gb=0, gpu_memory_utilization=0.9, num_gpu_blocks_override=None, max_num_batched_tokens=None, max_num_seqs=256, max_logprobs=20, disable_log_stats=False, quantization=None, rope_scaling=None, rope_theta=None, enforce_eager=False, max_context_len_to_capture=None, max_seq_len_to_capture=8192, disable_custom_all_reduce=False, tokenizer_pool_size=0, tokenizer_pool_type='ray', tokenizer_pool_extra_config=None, enable_lora=False, max_loras=1, max_lora_rank=16, lora_extra_vocab_size=256, lora_dtype='auto', long_lora_scaling_factors=None, max_cpu_loras=None, fully_sharded_loras=False, enable_prompt_adapter=False, max_prompt_adapters=1, max_prompt_adapter_token=0, device='auto', scheduler_delay_factor=0.0, enable_chunked_prefill=None, speculative_model=None, num_speculative_tokens=None, speculative_draft_tensor_parallel_size=None, speculative_max_model_len=None, speculative_disable_by_batch_size=None, ngram_prompt_lookup_max=None, ngram_prompt_lookup_min=None, spec_decoding_acceptance_method='rejection_sampler', typical_acceptance_sampler_posterior_threshold=None, typical_acceptance_sampler_posterior_alpha=None, disable_logprobs_during_spec_decoding=None, model_loader_extra_config=None, ignore_patterns=[], preemption_mode=None, served_model_name=None, qlora_adapter_name_or_path=None, otlp_traces_endpoint=None, engine_use_ray=False, disable_log_requests=False, max_log_len=None)",
              f"{clock.t.strftime('%Y-%m-%d %H:%M:%S')},{rng.randint(100, 999)}\tINFO worker.py:1781 -- Started a local Ray instance. View the dashboard at \x1b[1m\x1b[32m127.0.0.1:8265 \x1b[39m\x1b[22m",
              f"{v(lo=2, hi=3)} llm_engine.py:176] Initializing an LLM engine (v0.5.3.post1) with config: model='{model}', speculative_config=None, tokenizer='{model}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, rope_scaling=None, rope_theta=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=131072, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=4, pipeline_parallel_size=1, disable_custom_all_reduce=False, quantization=None, enforce_eager=False, kv_cache_dtype=auto, quantization_param_path=None, device_config=cuda, decoding_config=DecodingConfig(guided_decoding_backend='outlines'), observability_config=ObservabilityConfig(otlp_traces_endpoint=None), seed=0, served_model_name={model}, use_v2_block_manager=False, enable_prefix_caching=False)",
              f"{v(lo=4, hi=6)} utils.py:784] Found nccl from library libnccl.so.2"]
    for p in workers:
        lines.append(f"{rw(p)} utils.py:784] Found nccl from library libnccl.so.2")
    lines.append(f"{v()} pynccl.py:63] vLLM is using nccl==2.20.5")
    for p in workers:
        lines.append(f"{rw(p)} pynccl.py:63] vLLM is using nccl==2.20.5")
    lines.append(f"{v(lo=1, hi=2)} custom_all_reduce_utils.py:232] reading GPU P2P access cache from /root/.cache/vllm/gpu_p2p_access_cache_for_0,1,2,3.json")
    for p in workers:
        lines.append(f"{rw(p)} custom_all_reduce_utils.py:232] reading GPU P2P access cache from /root/.cache/vllm/gpu_p2p_access_cache_for_0,1,2,3.json")
    lines.append(f"{v('WARNING')} custom_all_reduce.py:127] Custom allreduce is disabled because your platform lacks GPU P2P capability or P2P test failed. To silence this warning, specify disable_custom_all_reduce=True explicitly.")
    for p in workers:
        lines.append(f"{rw(p, 'WARNING')} custom_all_reduce.py:127] Custom allreduce is disabled because your platform lacks GPU P2P capability or P2P test failed. To silence this warning, specify disable_custom_all_reduce=True explicitly.")
    lines.append(f"{v()} model_runner.py:680] Starting to load model {model}...")
    for p in workers:
        lines.append(f"{rw(p)} model_runner.py:680] Starting to load model {model}...")
    lines.append(f"{v(lo=0.5, hi=1)} weight_utils.py:224] Using model weights format ['*.safetensors']")
    for p in workers:
        lines.append(f"{rw(p)} weight_utils.py:224] Using model weights format ['*.safetensors']")
    shards = 30
    prog = []
    for i in range(0, shards + 1, 3):
        prog.append(f"Loading safetensors checkpoint shards: {int(i / shards * 100):3d}% Completed | {i}/{shards} [{int(i * 2.4) // 60:02d}:{int(i * 2.4) % 60:02d}<{int((shards - i) * 2.4) // 60:02d}:{int((shards - i) * 2.4) % 60:02d},  2.41s/it]")
    lines += prog
    lines.append("")
    clock.at(72)
    lines.append(f"{v()} model_runner.py:692] Loading model weights took 32.8894 GB")
    for p in workers:
        lines.append(f"{rw(p, lo=0.3, hi=1.5)} model_runner.py:692] Loading model weights took 32.8894 GB")
    lines.append(f"{v(lo=9, hi=12)} distributed_gpu_executor.py:56] # GPU blocks: 4301, # CPU blocks: 3276")
    tb = ["Traceback (most recent call last):",
          f'  File "{site}/vllm/worker/worker_base.py", line 374, in execute_method',
          "    return executor(*args, **kwargs)",
          f'  File "{site}/vllm/worker/worker.py", line 214, in initialize_cache',
          "    raise_if_cache_size_invalid(num_gpu_blocks,",
          f'  File "{site}/vllm/worker/worker.py", line 374, in raise_if_cache_size_invalid',
          "    raise ValueError(",
          "ValueError: The model's max seq len (131072) is larger than the maximum number of tokens that can be stored in KV cache (68816). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine."]
    t = clock.vllm(0.01, 0.05)
    lines.append(f"ERROR {t} worker_base.py:382] Error executing method initialize_cache. This might cause deadlock in distributed execution.")
    lines += [f"ERROR {t} worker_base.py:382] {ln}" for ln in tb]
    lines += ["Traceback (most recent call last):",
              '  File "/usr/lib/python3.10/runpy.py", line 196, in _run_module_as_main',
              "    return _run_code(code, main_globals, None,",
              '  File "/usr/lib/python3.10/runpy.py", line 86, in _run_code',
              "    exec(code, run_globals)",
              f'  File "{site}/vllm/entrypoints/openai/api_server.py", line 317, in <module>',
              "    run_server(args)",
              f'  File "{site}/vllm/entrypoints/openai/api_server.py", line 231, in run_server',
              "    if llm_engine is not None else AsyncLLMEngine.from_engine_args(",
              f'  File "{site}/vllm/engine/async_llm_engine.py", line 466, in from_engine_args',
              "    engine = cls(",
              f'  File "{site}/vllm/engine/async_llm_engine.py", line 380, in __init__',
              "    self.engine = self._init_engine(*args, **kwargs)",
              f'  File "{site}/vllm/engine/async_llm_engine.py", line 547, in _init_engine',
              "    return engine_class(*args, **kwargs)",
              f'  File "{site}/vllm/engine/llm_engine.py", line 265, in __init__',
              "    self._initialize_kv_caches()",
              f'  File "{site}/vllm/engine/llm_engine.py", line 377, in _initialize_kv_caches',
              "    self.model_executor.initialize_cache(num_gpu_blocks, num_cpu_blocks)",
              f'  File "{site}/vllm/executor/distributed_gpu_executor.py", line 62, in initialize_cache',
              '    self._run_workers("initialize_cache",',
              f'  File "{site}/vllm/executor/ray_gpu_executor.py", line 335, in _run_workers',
              "    self.driver_worker.execute_method(method, *driver_args,",
              f'  File "{site}/vllm/worker/worker_base.py", line 383, in execute_method',
              "    raise e"] + tb[1:]
    # teardown: Ray workers get SIGTERM and dump their stacks after the real error
    clock.at(1.2)
    epoch = calendar.timegm(clock.t.timetuple())
    def ms():
        clock.tick(0.001, 0.004)
        return f"{clock.t.strftime('%Y-%m-%d %H:%M:%S')},{clock.t.microsecond // 1000:03d}"

    for p, cpu in zip(workers, (37, 61, 12)):
        pc, a1 = "0x7f" + hex_token(rng, 10), "0x7f" + hex_token(rng, 10)
        lines += [f"(RayWorkerWrapper pid={p}) *** SIGTERM received at time={epoch} on cpu {cpu} ***",
                  f"(RayWorkerWrapper pid={p}) PC: @     {pc}  (unknown)  pthread_cond_timedwait@@GLIBC_2.3.2",
                  f"(RayWorkerWrapper pid={p})     @     {a1}  (unknown)  (unknown)",
                  f"(RayWorkerWrapper pid={p}) [{ms()} E {p} {p}] logging.cc:440: *** SIGTERM received at time={epoch} on cpu {cpu} ***",
                  f"(RayWorkerWrapper pid={p}) [{ms()} E {p} {p}] logging.cc:440: PC: @     {pc}  (unknown)  pthread_cond_timedwait@@GLIBC_2.3.2",
                  f"(RayWorkerWrapper pid={p}) [{ms()} E {p} {p}] logging.cc:440:     @     {a1}  (unknown)  (unknown)"]
    clock.at(0.6)
    pc, a1 = "0x7f" + hex_token(rng, 10), "0x7f" + hex_token(rng, 10)
    lines += ["/usr/lib/python3.10/multiprocessing/resource_tracker.py:224: UserWarning: resource_tracker: There appear to be 1 leaked shared_memory objects to clean up at shutdown",
              "  warnings.warn('resource_tracker: There appear to be %d '",
              f"*** SIGTERM received at time={epoch + 1} on cpu 3 ***",
              f"PC: @     {pc}  (unknown)  epoll_wait",
              f"    @     {a1}  (unknown)  (unknown)",
              f"[{ms()} E 47311 47311] logging.cc:440: *** SIGTERM received at time={epoch + 1} on cpu 3 ***",
              f"[{ms()} E 47311 47311] logging.cc:440: PC: @     {pc}  (unknown)  epoll_wait",
              f"[{ms()} E 47311 47311] logging.cc:440:     @     {a1}  (unknown)  (unknown)"]
    write_case("vllm-kv-cache-too-small-llama70b-ray-tp4-03", dict(
        label="vllm-kv-cache-too-small", difficulty="hard",
        description="vLLM 0.5.3 serving Llama-3.1-70B-Instruct with TP=4 over Ray on 4x L40S: weights take 32.9 GB per "
                    "GPU and the default 131072-token max_model_len needs more KV than the 4301 blocks (68816 tokens) "
                    "left; the ValueError is followed by Ray SIGTERM stack dumps and resource-tracker warnings.",
        facts=dict(gpu_model="L40S", gpu_count="4", driver_version="550.90.07", nccl_version="2.20.5",
                   launcher="python"),
        must_mention=["max_model_len", "KV cache"]), {"server.log": "\n".join(lines)})


@case
def kv_wrapped_pipeline_04():
    rng = random.Random(804)
    site = "/opt/conda/envs/eval/lib/python3.10/site-packages"
    clock = Clock("2024-10-21 09:12:31", rng)
    model = "mistralai/Mistral-7B-Instruct-v0.3"
    v = lambda lvl="INFO", lo=0.01, hi=0.3: f"{lvl} {clock.vllm(lo, hi)}"
    lines = ["[evalkit] 2024-10-21 09:12:31 run=judge-sweep-1021 suite=helpfulness_v4 backend=vllm gpu=NVIDIA L4 (23034 MiB)",
             "[evalkit] 2024-10-21 09:12:31 backend options: {'gpu_memory_utilization': 0.8, 'dtype': 'bfloat16', 'enable_prefix_caching': False, 'seed': 17}",
             f"{v(lo=3, hi=4)} config.py:1670] Downcasting torch.float32 to torch.bfloat16.",
             f"{v(lo=0.5, hi=1)} llm_engine.py:237] Initializing an LLM engine (v0.6.3.post1) with config: model='{model}', speculative_config=None, tokenizer='{model}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, override_neuron_config=None, rope_scaling=None, rope_theta=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=32768, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=1, pipeline_parallel_size=1, disable_custom_all_reduce=False, quantization=None, enforce_eager=False, kv_cache_dtype=auto, quantization_param_path=None, device_config=cuda, decoding_config=DecodingConfig(guided_decoding_backend='outlines'), observability_config=ObservabilityConfig(otlp_traces_endpoint=None, collect_model_forward_time=False, collect_model_execute_time=False), seed=17, served_model_name={model}, num_scheduler_steps=1, chunked_prefill_enabled=False multi_step_stream_outputs=True, enable_prefix_caching=False, use_async_output_proc=True, use_cached_outputs=False, mm_processor_kwargs=None)",
             f"{v(lo=1, hi=2)} model_runner.py:1056] Starting to load model {model}...",
             f"{v(lo=0.5, hi=1)} weight_utils.py:243] Using model weights format ['*.safetensors']",
             "Loading safetensors checkpoint shards:   0% Completed | 0/3 [00:00<?, ?it/s]",
             "Loading safetensors checkpoint shards:  33% Completed | 1/3 [00:01<00:03,  1.91s/it]",
             "Loading safetensors checkpoint shards:  67% Completed | 2/3 [00:04<00:02,  2.05s/it]",
             "Loading safetensors checkpoint shards: 100% Completed | 3/3 [00:06<00:00,  2.10s/it]",
             "Loading safetensors checkpoint shards: 100% Completed | 3/3 [00:06<00:00,  2.07s/it]",
             "",
             f"{v(lo=6, hi=7)} model_runner.py:1067] Loading model weights took 13.5083 GB",
             f"{v(lo=3, hi=4)} gpu_executor.py:122] # GPU blocks: 551, # CPU blocks: 2048",
             f"{v()} gpu_executor.py:126] Maximum concurrency for 32768 tokens per request: 0.27x",
             "Traceback (most recent call last):",
             f'  File "{site}/evalkit/backends/vllm_backend.py", line 58, in __init__',
             "    self.llm = LLM(model=model, **opts)",
             f'  File "{site}/vllm/entrypoints/llm.py", line 177, in __init__',
             "    self.llm_engine = LLMEngine.from_engine_args(",
             f'  File "{site}/vllm/engine/llm_engine.py", line 573, in from_engine_args',
             "    engine = cls(",
             f'  File "{site}/vllm/engine/llm_engine.py", line 348, in __init__',
             "    self._initialize_kv_caches()",
             f'  File "{site}/vllm/engine/llm_engine.py", line 496, in _initialize_kv_caches',
             "    self.model_executor.initialize_cache(num_gpu_blocks, num_cpu_blocks)",
             f'  File "{site}/vllm/executor/gpu_executor.py", line 129, in initialize_cache',
             "    self.driver_worker.initialize_cache(num_gpu_blocks, num_cpu_blocks)",
             f'  File "{site}/vllm/worker/worker.py", line 258, in initialize_cache',
             "    raise_if_cache_size_invalid(num_gpu_blocks,",
             f'  File "{site}/vllm/worker/worker.py", line 483, in raise_if_cache_size_invalid',
             "    raise ValueError(",
             "ValueError: The model's max seq len (32768) is larger than the maximum number of tokens that can be stored in KV cache (8816). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.",
             "",
             "The above exception was the direct cause of the following exception:",
             "",
             "Traceback (most recent call last):",
             '  File "/opt/conda/envs/eval/bin/evalkit", line 8, in <module>',
             "    sys.exit(main())",
             f'  File "{site}/evalkit/cli.py", line 112, in main',
             "    return run_suite(cfg)",
             f'  File "{site}/evalkit/runner.py", line 74, in run_suite',
             "    judge = make_backend(cfg.judge)",
             f'  File "{site}/evalkit/backends/__init__.py", line 31, in make_backend',
             "    return VLLMBackend(spec.model, **spec.options)",
             f'  File "{site}/evalkit/backends/vllm_backend.py", line 63, in __init__',
             '    raise BackendInitError(f"could not start vLLM backend for {model} on {torch.cuda.get_device_name()}") from e',
             f"evalkit.errors.BackendInitError: could not start vLLM backend for {model} on NVIDIA L4",
             "[evalkit] 2024-10-21 09:13:02 suite helpfulness_v4 aborted: 0/1200 items scored"]
    write_case("vllm-kv-cache-too-small-wrapped-pipeline-04", dict(
        label="vllm-kv-cache-too-small", difficulty="medium",
        description="An eval harness starts vLLM 0.6.3 for Mistral-7B-Instruct-v0.3 on an L4 with "
                    "gpu_memory_utilization=0.8 and no max_model_len: 551 blocks (8816 tokens, 'Maximum concurrency "
                    "0.27x') cannot hold one 32768-token sequence; the harness re-raises it as BackendInitError.",
        facts=dict(gpu_model="L4", launcher="python", precision="bf16"),
        must_mention=["max_model_len", "32768"]), {"eval.log": "\n".join(lines)})


# ================================================================================================================
# vllm-gpu-memory-in-use
# ================================================================================================================

def v0_engine_init(v, model, version, max_len, extra=""):
    return (f"{v(lo=1, hi=2)} llm_engine.py:213] Initializing an LLM engine (v{version}) with config: model='{model}', "
            f"speculative_config=None, tokenizer='{model}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, "
            f"override_neuron_config=None, rope_scaling=None, rope_theta=None, tokenizer_revision=None, trust_remote_code=False, "
            f"dtype=torch.bfloat16, max_seq_len={max_len}, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=1, "
            f"pipeline_parallel_size=1, disable_custom_all_reduce=False, quantization=None, enforce_eager=False, kv_cache_dtype=auto, "
            f"quantization_param_path=None, device_config=cuda, decoding_config=DecodingConfig(guided_decoding_backend='outlines'), "
            f"observability_config=ObservabilityConfig(otlp_traces_endpoint=None), seed=0, served_model_name={model}, "
            f"use_v2_block_manager=False, num_scheduler_steps=1, enable_prefix_caching=False, use_async_output_proc=True{extra})")


@case
def mem_sequential_engines_01():
    rng = random.Random(901)
    site = "/home/rtanaka/miniconda3/envs/vllm061/lib/python3.10/site-packages"
    clock = Clock("2024-09-12 16:20:03", rng)
    v = lambda lvl="INFO", lo=0.01, hi=0.3: f"{lvl} {clock.vllm(lo, hi)}"
    models = ["Qwen/Qwen2-7B-Instruct", "meta-llama/Meta-Llama-3.1-8B-Instruct"]
    lines = ["(vllm061) rtanaka@dgx-a100-03:~/judge-bench$ CUDA_VISIBLE_DEVICES=5 python compare_models.py --models Qwen/Qwen2-7B-Instruct meta-llama/Meta-Llama-3.1-8B-Instruct --prompts data/arena_hard_500.jsonl",
             "[compare] device: NVIDIA A100-SXM4-80GB | torch 2.4.0+cu121 | vllm 0.6.1.post2",
             "[compare] 500 prompts, max_tokens=1024, temperature=0.0",
             f"[compare] === model 1/2: {models[0]} ==="]
    lines += [v0_engine_init(v, models[0], "0.6.1.post2", 32768),
              f"{v(lo=1, hi=2)} model_runner.py:915] Starting to load model {models[0]}...",
              f"{v()} weight_utils.py:236] Using model weights format ['*.safetensors']",
              "Loading safetensors checkpoint shards:   0% Completed | 0/4 [00:00<?, ?it/s]",
              "Loading safetensors checkpoint shards:  25% Completed | 1/4 [00:00<00:02,  1.07it/s]",
              "Loading safetensors checkpoint shards:  50% Completed | 2/4 [00:01<00:01,  1.08it/s]",
              "Loading safetensors checkpoint shards:  75% Completed | 3/4 [00:02<00:00,  1.10it/s]",
              "Loading safetensors checkpoint shards: 100% Completed | 4/4 [00:03<00:00,  1.25it/s]",
              "Loading safetensors checkpoint shards: 100% Completed | 4/4 [00:03<00:00,  1.18it/s]",
              "",
              f"{v(lo=3, hi=4)} model_runner.py:926] Loading model weights took 14.2487 GB",
              f"{v(lo=2, hi=3)} gpu_executor.py:122] # GPU blocks: 64982, # CPU blocks: 4681",
              f"{v(lo=1, hi=2)} model_runner.py:1217] Capturing the model for CUDA graphs. This may lead to unexpected consequences if the model is not static. To run the model in eager mode, set 'enforce_eager=True' or use '--enforce-eager' in the CLI.",
              f"{v()} model_runner.py:1221] CUDA graphs can take additional 1~3 GiB memory per GPU. If you are running out of memory, consider decreasing `gpu_memory_utilization` or enforcing eager mode. You can also reduce the `max_num_seqs` as needed to decrease memory usage.",
              f"{v(lo=11, hi=13)} model_runner.py:1335] Graph capturing finished in 12 secs.",
              "Processed prompts:   0%|          | 0/500 [00:00<?, ?it/s, est. speed input: 0.00 toks/s, output: 0.00 toks/s]",
              "Processed prompts: 100%|██████████| 500/500 [00:41<00:00, 12.07it/s, est. speed input: 2718.43 toks/s, output: 6904.11 toks/s]",
              f"[compare] {models[0]}: done in 41.4s, mean output 572.0 tokens",
              "[compare] releasing engine: del llm; gc.collect(); torch.cuda.empty_cache()",
              f"[compare] === model 2/2: {models[1]} ==="]
    clock.at(45)
    lines += [v0_engine_init(v, models[1], "0.6.1.post2", 131072),
              f"{v(lo=1, hi=2)} model_runner.py:915] Starting to load model {models[1]}...",
              f"{v()} weight_utils.py:236] Using model weights format ['*.safetensors']",
              "Loading safetensors checkpoint shards:   0% Completed | 0/4 [00:00<?, ?it/s]",
              "Loading safetensors checkpoint shards:  25% Completed | 1/4 [00:00<00:02,  1.12it/s]",
              "Loading safetensors checkpoint shards:  50% Completed | 2/4 [00:01<00:01,  1.10it/s]",
              "Loading safetensors checkpoint shards:  75% Completed | 3/4 [00:02<00:00,  1.11it/s]",
              "Loading safetensors checkpoint shards: 100% Completed | 4/4 [00:03<00:00,  1.31it/s]",
              "Loading safetensors checkpoint shards: 100% Completed | 4/4 [00:03<00:00,  1.22it/s]",
              "",
              f"{v(lo=3, hi=4)} model_runner.py:926] Loading model weights took 14.9888 GB",
              "Traceback (most recent call last):",
              '  File "/home/rtanaka/judge-bench/compare_models.py", line 88, in <module>',
              "    main()",
              '  File "/home/rtanaka/judge-bench/compare_models.py", line 61, in main',
              "    llm = LLM(model=name, gpu_memory_utilization=0.9, seed=0)",
              f'  File "{site}/vllm/entrypoints/llm.py", line 178, in __init__',
              "    self.llm_engine = LLMEngine.from_engine_args(",
              f'  File "{site}/vllm/engine/llm_engine.py", line 550, in from_engine_args',
              "    engine = cls(",
              f'  File "{site}/vllm/engine/llm_engine.py", line 331, in __init__',
              "    self._initialize_kv_caches()",
              f'  File "{site}/vllm/engine/llm_engine.py", line 460, in _initialize_kv_caches',
              "    self.model_executor.determine_num_available_blocks())",
              f'  File "{site}/vllm/executor/gpu_executor.py", line 114, in determine_num_available_blocks',
              "    return self.driver_worker.determine_num_available_blocks()",
              f'  File "{site}/torch/utils/_contextlib.py", line 116, in decorate_context',
              "    return func(*args, **kwargs)",
              f'  File "{site}/vllm/worker/worker.py", line 222, in determine_num_available_blocks',
              "    assert peak_memory > 0, (",
              "AssertionError: Error in memory profiling. Initial free memory 23846387712, current free memory 69534744576. This happens when the GPU memory was not properly cleaned up before initializing the vLLM instance.",
              "[rank0]:[W912 16:22:17.613529061 ProcessGroupNCCL.cpp:1168] Warning: WARNING: process group has NOT been destroyed before we destruct ProcessGroupNCCL. On normal program exit, the application MUST call destroy_process_group to ensure that any pending NCCL operations have finished in this process. In rare cases this process can exit before this point and block the progress of another member of the process group. This constraint has always been present,  but this warning has only recently been added since PyTorch 2.4 (function operator())"]
    write_case("vllm-gpu-memory-in-use-sequential-engines-01", dict(
        label="vllm-gpu-memory-in-use", difficulty="easy",
        description="A script builds two vLLM 0.6.1 engines one after the other on the same A100; the first engine's "
                    "memory is still held when the second one takes its baseline and is released during profiling, "
                    "so vLLM asserts 'Error in memory profiling ... GPU memory was not properly cleaned up'.",
        facts=dict(gpu_model="A100-SXM4-80GB", torch_version="2.4.0", cuda_version="12.1", launcher="python"),
        must_mention=["separate process", "memory"], secrets=["rtanaka"]), {"compare.log": "\n".join(lines)})


@case
def mem_v1_free_memory_02():
    rng = random.Random(902)
    site = "/usr/local/lib/python3.12/dist-packages"
    clock = Clock("2025-06-30 08:41:12", rng)
    model = "Qwen/Qwen2.5-14B-Instruct"
    core_pid = 187
    smi = nvidia_smi("Mon Jun 30 08:41:10 2025", "560.35.03", "12.6",
                     [gpu("H100 80GB HBM3", 81559, "00000000:9A:00.0", rng, cap=700, used=46339, util=97, pwr=611, temp=63)],
                     None, style="550")

    def v(lvl="INFO", src="", lo=0.01, hi=0.3, core=False):
        pre = f"(EngineCore_0 pid={core_pid}) " if core else ""
        return f"{pre}{lvl} {clock.vllm(lo, hi)} [{src}]"

    lines = ["[entrypoint] pod qwen14b-serve-6d7b9c-p4x2k starting; nvidia-smi:"] + smi.split("\n")
    lines += [f"{v(src='__init__.py:244', lo=2, hi=3)} Automatically detected platform cuda.",
              f"{v(src='api_server.py:1395', lo=2, hi=3)} vLLM API server version 0.9.1",
              f"{v(src='cli_args.py:325')} non-default args: {{'model': '{model}', 'max_model_len': 16384, 'served_model_name': ['qwen14b']}}",
              f"{v(src='config.py:823', lo=5, hi=7)} This model supports multiple tasks: {{'classify', 'generate', 'embed', 'score', 'reward'}}. Defaulting to 'generate'.",
              f"{v(src='config.py:2195')} Chunked prefill is enabled with max_num_batched_tokens=8192.",
              f"{v(src='__init__.py:244', core=True)} Automatically detected platform cuda.",
              f"{v(src='core.py:455', core=True, lo=1, hi=2)} Waiting for init message from front-end.",
              f"{v(src='core.py:70', core=True)} Initializing a V1 LLM engine (v0.9.1) with config: model='{model}', speculative_config=None, tokenizer='{model}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, override_neuron_config={{}}, tokenizer_revision=None, trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=16384, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=1, pipeline_parallel_size=1, disable_custom_all_reduce=False, quantization=None, enforce_eager=False, kv_cache_dtype=auto,  device_config=cuda, seed=0, served_model_name=qwen14b, num_scheduler_steps=1, multi_step_stream_outputs=True, enable_prefix_caching=True, chunked_prefill_enabled=True, use_async_output_proc=True, pooler_config=None, compilation_config={{\"level\":3,\"use_cudagraph\":true,\"max_capture_size\":512}}"]
    err = ["Traceback (most recent call last):",
           f'  File "{site}/vllm/v1/engine/core.py", line 506, in run_engine_core',
           "    engine_core = EngineCoreProc(*args, **kwargs)",
           f'  File "{site}/vllm/v1/engine/core.py", line 390, in __init__',
           "    super().__init__(vllm_config, executor_class, log_stats,",
           f'  File "{site}/vllm/v1/engine/core.py", line 76, in __init__',
           "    self.model_executor = executor_class(vllm_config)",
           f'  File "{site}/vllm/executor/executor_base.py", line 53, in __init__',
           "    self._init_executor()",
           f'  File "{site}/vllm/executor/uniproc_executor.py", line 47, in _init_executor',
           '    self.collective_rpc("init_device")',
           f'  File "{site}/vllm/executor/uniproc_executor.py", line 57, in collective_rpc',
           "    answer = run_method(self.driver_worker, method, args, kwargs)",
           f'  File "{site}/vllm/utils.py", line 2671, in run_method',
           "    return func(*args, **kwargs)",
           f'  File "{site}/vllm/worker/worker_base.py", line 606, in init_device',
           "    self.worker.init_device()  # type: ignore",
           f'  File "{site}/vllm/v1/worker/gpu_worker.py", line 140, in init_device',
           "    raise ValueError(",
           "ValueError: Free memory on device (33.36/79.19 GiB) on startup is less than desired GPU memory utilization (0.9, 71.27 GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes."]
    err = with_carets(err)
    t = clock.vllm(1, 2)
    lines.append(f"(EngineCore_0 pid={core_pid}) ERROR {t} [core.py:515] EngineCore failed to start.")
    lines += [f"(EngineCore_0 pid={core_pid}) ERROR {t} [core.py:515] {ln}" for ln in err]
    lines += [f"(EngineCore_0 pid={core_pid}) Process EngineCore_0:",
              f"(EngineCore_0 pid={core_pid}) Traceback (most recent call last):",
              f'(EngineCore_0 pid={core_pid})   File "/usr/lib/python3.12/multiprocessing/process.py", line 314, in _bootstrap',
              f"(EngineCore_0 pid={core_pid})     self.run()",
              f'(EngineCore_0 pid={core_pid})   File "/usr/lib/python3.12/multiprocessing/process.py", line 108, in run',
              f"(EngineCore_0 pid={core_pid})     self._target(*self._args, **self._kwargs)",
              f'(EngineCore_0 pid={core_pid})   File "{site}/vllm/v1/engine/core.py", line 519, in run_engine_core',
              f"(EngineCore_0 pid={core_pid})     raise e"]
    lines += [f"(EngineCore_0 pid={core_pid}) {ln}" for ln in err[1:]]
    front = ["Traceback (most recent call last):",
             '  File "<frozen runpy>", line 198, in _run_module_as_main',
             '  File "<frozen runpy>", line 88, in _run_code',
             f'  File "{site}/vllm/entrypoints/openai/api_server.py", line 1495, in <module>',
             "    uvloop.run(run_server(args))",
             *uvloop_run_frames(site),
             f'  File "{site}/vllm/entrypoints/openai/api_server.py", line 1431, in run_server',
             "    await run_server_worker(listen_address, sock, args, **uvicorn_kwargs)",
             f'  File "{site}/vllm/entrypoints/openai/api_server.py", line 1451, in run_server_worker',
             "    async with build_async_engine_client(args, client_config) as engine_client:",
             '  File "/usr/lib/python3.12/contextlib.py", line 210, in __aenter__',
             "    return await anext(self.gen)",
             f'  File "{site}/vllm/entrypoints/openai/api_server.py", line 158, in build_async_engine_client',
             "    async with build_async_engine_client_from_engine_args(",
             '  File "/usr/lib/python3.12/contextlib.py", line 210, in __aenter__',
             "    return await anext(self.gen)",
             f'  File "{site}/vllm/entrypoints/openai/api_server.py", line 194, in build_async_engine_client_from_engine_args',
             "    async_llm = AsyncLLM.from_vllm_config(",
             f'  File "{site}/vllm/v1/engine/async_llm.py", line 162, in from_vllm_config',
             "    return cls(",
             f'  File "{site}/vllm/v1/engine/async_llm.py", line 124, in __init__',
             "    self.engine_core = EngineCoreClient.make_async_mp_client(",
             f'  File "{site}/vllm/v1/engine/core_client.py", line 93, in make_async_mp_client',
             "    return AsyncMPClient(vllm_config, executor_class, log_stats,",
             f'  File "{site}/vllm/v1/engine/core_client.py", line 716, in __init__',
             "    super().__init__(",
             f'  File "{site}/vllm/v1/engine/core_client.py", line 422, in __init__',
             "    self._init_engines_direct(vllm_config, local_only,",
             f'  File "{site}/vllm/v1/engine/core_client.py", line 491, in _init_engines_direct',
             "    self._wait_for_engine_startup(handshake_socket, input_address,",
             f'  File "{site}/vllm/v1/engine/core_client.py", line 511, in _wait_for_engine_startup',
             "    wait_for_engine_startup(",
             f'  File "{site}/vllm/v1/utils.py", line 494, in wait_for_engine_startup',
             '    raise RuntimeError("Engine core initialization failed. "',
             "RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}"]
    lines += with_carets(front)
    lines.append("[entrypoint] vllm exited with status 1; restarting in 10s (attempt 4/5)")
    write_case("vllm-gpu-memory-in-use-v1-free-memory-02", dict(
        label="vllm-gpu-memory-in-use", difficulty="medium",
        description="Kubernetes pod running vLLM 0.9.1 (V1) on an H100 that another workload already uses (nvidia-smi "
                    "in the pod shows 46 GiB used and no visible processes); the engine core refuses to start because "
                    "free memory is below 0.9 x total and the server ends with 'Engine core initialization failed'.",
        facts=dict(gpu_model="H100 80GB HBM3", driver_version="560.35.03", launcher="python"),
        must_mention=["other process", "gpu_memory_utilization"]), {"pod.log": "\n".join(lines)})


@case
def mem_tp2_hidden_process_03():
    rng = random.Random(903)
    site = "/usr/local/lib/python3.10/dist-packages"
    clock = Clock("2024-08-14 02:17:44", rng)
    model = "Qwen/Qwen2-72B-Instruct-AWQ"
    wpid = 2411
    redis_pw = alnum(rng, 24)
    v = lambda lvl="INFO", lo=0.01, hi=0.3: f"{lvl} {clock.vllm(lo, hi)}"
    wv = lambda lvl="INFO", lo=0.0, hi=0.05: f"(VllmWorkerProcess pid={wpid}) {lvl} {clock.vllm(lo, hi)}"
    smi = nvidia_smi("Wed Aug 14 02:17:41 2024", "535.183.01", "12.2",
                     [gpu("A100-SXM4-80GB", 81920, "00000000:07:00.0", rng, used=1),
                      gpu("A100-SXM4-80GB", 81920, "00000000:0F:00.0", rng, used=39537)], None, style="535")
    lines = ["[serve] starting qwen72b-awq on GPUs 0,1 (tensor parallel 2)",
             f"[serve] router: upstream=http://127.0.0.1:8000 cache=redis://default:{redis_pw}@redis-cache.svc.internal:6379/3 ttl=900",
             "[serve] nvidia-smi:"] + smi.split("\n")
    lines += [f"{v(lo=3, hi=4)} api_server.py:339] vLLM API server version 0.5.4",
              f"{v()} api_server.py:340] args: Namespace(model='{model}', tensor_parallel_size=2, gpu_memory_utilization=0.9, max_model_len=32768, quantization='awq_marlin', distributed_executor_backend=None, port=8000, served_model_name=['qwen72b'], enforce_eager=False, disable_log_requests=True)",
              f"{v(lo=5, hi=6)} awq_marlin.py:89] The model is convertible to awq_marlin during runtime. Using awq_marlin kernel.",
              f"{v()} config.py:820] Defaulting to use mp for distributed inference",
              f"{v()} llm_engine.py:174] Initializing an LLM engine (v0.5.4) with config: model='{model}', speculative_config=None, tokenizer='{model}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, rope_scaling=None, rope_theta=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.float16, max_seq_len=32768, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=2, pipeline_parallel_size=1, disable_custom_all_reduce=False, quantization=awq_marlin, enforce_eager=False, kv_cache_dtype=auto, quantization_param_path=None, device_config=cuda, decoding_config=DecodingConfig(guided_decoding_backend='outlines'), observability_config=ObservabilityConfig(otlp_traces_endpoint=None), seed=0, served_model_name=qwen72b, use_v2_block_manager=False, enable_prefix_caching=False)",
              f"{v('WARNING')} multiproc_gpu_executor.py:59] Reducing Torch parallelism from 32 threads to 1 to avoid unnecessary CPU contention. Set OMP_NUM_THREADS in the external environment to tune this value as needed.",
              f"{v()} custom_cache_manager.py:17] Setting Triton cache manager to: vllm.triton_utils.custom_cache_manager:CustomCacheManager",
              f"{wv(lo=2, hi=3)} multiproc_worker_utils.py:215] Worker ready; awaiting tasks",
              f"{v(lo=0.5, hi=1)} utils.py:841] Found nccl from library libnccl.so.2",
              f"{wv()} utils.py:841] Found nccl from library libnccl.so.2",
              f"{v()} pynccl.py:63] vLLM is using nccl==2.20.5",
              f"{wv()} pynccl.py:63] vLLM is using nccl==2.20.5",
              f"{v(lo=0.5, hi=1)} custom_all_reduce_utils.py:234] reading GPU P2P access cache from /root/.cache/vllm/gpu_p2p_access_cache_for_0,1.json",
              f"{wv()} custom_all_reduce_utils.py:234] reading GPU P2P access cache from /root/.cache/vllm/gpu_p2p_access_cache_for_0,1.json",
              f"{v()} shm_broadcast.py:235] vLLM message queue communication handle: Handle(connect_ip='127.0.0.1', local_reader_ranks=[1], buffer=<vllm.distributed.device_communicators.shm_broadcast.ShmRingBuffer object at 0x7f8e2c1b3d60>, local_subscribe_port=51733, remote_subscribe_port=None)",
              f"{v()} model_runner.py:720] Starting to load model {model}...",
              f"{wv()} model_runner.py:720] Starting to load model {model}...",
              f"{v(lo=0.5, hi=1)} weight_utils.py:225] Using model weights format ['*.safetensors']",
              f"{wv()} weight_utils.py:225] Using model weights format ['*.safetensors']",
              "Loading safetensors checkpoint shards:   0% Completed | 0/11 [00:00<?, ?it/s]",
              "Loading safetensors checkpoint shards:  27% Completed | 3/11 [00:04<00:11,  1.45s/it]",
              "Loading safetensors checkpoint shards:  55% Completed | 6/11 [00:08<00:07,  1.41s/it]",
              "Loading safetensors checkpoint shards:  82% Completed | 9/11 [00:12<00:02,  1.38s/it]",
              "Loading safetensors checkpoint shards: 100% Completed | 11/11 [00:15<00:00,  1.36s/it]",
              "Loading safetensors checkpoint shards: 100% Completed | 11/11 [00:15<00:00,  1.39s/it]",
              ""]
    clock.at(16)
    lines += [f"{v()} model_runner.py:732] Loading model weights took 19.4178 GB",
              f"{wv(lo=0.2, hi=0.6)} model_runner.py:732] Loading model weights took 19.4178 GB",
              f"{v(lo=6, hi=8)} distributed_gpu_executor.py:56] # GPU blocks: 20768, # CPU blocks: 1638"]
    oom = ("CUDA out of memory. Tried to allocate 649.00 MiB. GPU 1 has a total capacity of 79.15 GiB of which 391.56 MiB is free. "
           "Process 41877 has 38.61 GiB memory in use. Including non-PyTorch memory, this process has 40.12 GiB memory in use. "
           "Of the allocated memory 39.12 GiB is allocated by PyTorch, and 217.40 MiB is reserved by PyTorch but unallocated. "
           "If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid "
           "fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)")
    wtb = [f'  File "{site}/vllm/executor/multiproc_worker_utils.py", line 223, in _run_worker_process',
           "    output = executor(*args, **kwargs)",
           f'  File "{site}/vllm/worker/worker.py", line 240, in initialize_cache',
           "    self._init_cache_engine()",
           f'  File "{site}/vllm/worker/worker.py", line 246, in _init_cache_engine',
           "    self.cache_engine = [",
           f'  File "{site}/vllm/worker/worker.py", line 247, in <listcomp>',
           "    CacheEngine(self.cache_config, self.model_config,",
           f'  File "{site}/vllm/worker/cache_engine.py", line 63, in __init__',
           "    self.gpu_cache = self._allocate_kv_cache(",
           f'  File "{site}/vllm/worker/cache_engine.py", line 82, in _allocate_kv_cache',
           "    torch.zeros(kv_cache_shape,",
           f"torch.OutOfMemoryError: {oom}"]
    t = clock.vllm(3, 4)
    lines.append(f"(VllmWorkerProcess pid={wpid}) ERROR {t} multiproc_worker_utils.py:226] Exception in worker VllmWorkerProcess while processing method initialize_cache: {oom}, Traceback (most recent call last):")
    lines += [f"(VllmWorkerProcess pid={wpid}) ERROR {t} multiproc_worker_utils.py:226] {ln}" for ln in wtb]
    lines.append(f"(VllmWorkerProcess pid={wpid}) ERROR {t} multiproc_worker_utils.py:226] ")
    lines += ["Process Process-1:",
              "Traceback (most recent call last):",
              '  File "/usr/lib/python3.10/multiprocessing/process.py", line 314, in _bootstrap',
              "    self.run()",
              '  File "/usr/lib/python3.10/multiprocessing/process.py", line 108, in run',
              "    self._target(*self._args, **self._kwargs)",
              f'  File "{site}/vllm/entrypoints/openai/rpc/server.py", line 217, in run_rpc_server',
              "    server = AsyncEngineRPCServer(async_engine_args, usage_context, port)",
              f'  File "{site}/vllm/entrypoints/openai/rpc/server.py", line 25, in __init__',
              "    self.engine = AsyncLLMEngine.from_engine_args(async_engine_args,",
              f'  File "{site}/vllm/engine/async_llm_engine.py", line 471, in from_engine_args',
              "    engine = cls(",
              f'  File "{site}/vllm/engine/async_llm_engine.py", line 381, in __init__',
              "    self.engine = self._init_engine(*args, **kwargs)",
              f'  File "{site}/vllm/engine/async_llm_engine.py", line 552, in _init_engine',
              "    return engine_class(*args, **kwargs)",
              f'  File "{site}/vllm/engine/llm_engine.py", line 263, in __init__',
              "    self._initialize_kv_caches()",
              f'  File "{site}/vllm/engine/llm_engine.py", line 375, in _initialize_kv_caches',
              "    self.model_executor.initialize_cache(num_gpu_blocks, num_cpu_blocks)",
              f'  File "{site}/vllm/executor/distributed_gpu_executor.py", line 62, in initialize_cache',
              '    self._run_workers("initialize_cache",',
              f'  File "{site}/vllm/executor/multiproc_gpu_executor.py", line 185, in _run_workers',
              "    return [driver_worker_output] + [output.get() for output in worker_outputs]",
              f'  File "{site}/vllm/executor/multiproc_gpu_executor.py", line 185, in <listcomp>',
              "    return [driver_worker_output] + [output.get() for output in worker_outputs]",
              f'  File "{site}/vllm/executor/multiproc_worker_utils.py", line 58, in get',
              "    raise self.result.exception",
              f"torch.OutOfMemoryError: {oom}"]
    clock.at(2)
    lines += [f"{v('ERROR', lo=0.5, hi=1)} multiproc_worker_utils.py:120] Worker VllmWorkerProcess pid {wpid} died, exit code: -15",
              f"{v()} multiproc_worker_utils.py:123] Killing local vLLM worker processes",
              f"{v('ERROR', lo=8, hi=10)} api_server.py:171] RPCServer process died before responding to readiness probe",
              "/usr/lib/python3.10/multiprocessing/resource_tracker.py:224: UserWarning: resource_tracker: There appear to be 1 leaked semaphore objects to clean up at shutdown",
              "  warnings.warn('resource_tracker: There appear to be %d '",
              "/usr/lib/python3.10/multiprocessing/resource_tracker.py:224: UserWarning: resource_tracker: There appear to be 1 leaked shared_memory objects to clean up at shutdown",
              "  warnings.warn('resource_tracker: There appear to be %d '",
              "[serve] vllm exited (code 1); marking replica qwen72b-awq-1 unhealthy"]
    write_case("vllm-gpu-memory-in-use-tp2-hidden-process-03", dict(
        label="vllm-gpu-memory-in-use", difficulty="hard",
        description="vLLM 0.5.4 with TP=2 on GPUs 0,1: 38.6 GiB of GPU 1 is held by an orphaned process from an earlier "
                    "run (nvidia-smi in the container shows the memory but no process). V0 sizes the KV cache from "
                    "0.9 x total, so the worker on GPU 1 OOMs in initialize_cache (the OOM lists 'Process 41877'); the "
                    "log ends with worker-death, readiness-probe and leaked-semaphore noise.",
        initiating_rank=1,
        facts=dict(gpu_model="A100-SXM4-80GB", gpu_count="2", driver_version="535.183.01", nccl_version="2.20.5",
                   oom_tried_to_allocate="649.00 MiB", oom_total_capacity="79.15 GiB", oom_free="391.56 MiB",
                   launcher="python"),
        must_mention=["41877", "GPU 1"], secrets=[redis_pw]), {"serve.log": "\n".join(lines)})


def main() -> None:
    _cases.run(parser(__doc__).parse_args().out)


if __name__ == "__main__":
    main()
