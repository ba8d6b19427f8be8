"""Software versions: CUDA (torch's build and the toolkit), torch, NCCL, DeepSpeed, transformers, accelerate,
flash-attn and friends, Python, the OS and glibc."""

from __future__ import annotations

import re

from service.facts.sources.base import FactRule, cuda_from_tag, rule

_V = r"(\d+\.\d+\.\d+(?:\.post\d+)?)"
# Lines that name a version being removed, not the one in use: pip "Found existing installation: torch 2.0.1+cu117",
# "Uninstalling torch-2.0.1+cu117:", "Successfully uninstalled ..."
_NOT_OLD = r"^(?!.*(?:Found existing installation|Uninstalling|uninstalled|Collecting|Downloading|requires \S+==))"
# torch with its build tag: "torch 2.1.2+cu121", "torch==2.1.2+cu118", "PyTorch version: 2.1.2+cu121", "torch-2.6.0+cu124",
# "PyTorch version (GPU?): 2.1.2+cu118 (True)", "torch=2.3.1+cu121"
_TORCH_TAGGED = _NOT_OLD + r".*\b(?:py)?torch(?:\s+version(?: \(GPU\?\))?:?|==|[=: -])\s*v?\d+\.\d+\.\d+\+(cu\d{2,3}|cpu|rocm[\d.]+)\b"


def _lib(name: str, fact: str, priority: str = "best") -> tuple[FactRule, ...]:
    """pip list / freeze, collect_env's [pip3] list, install logs and banners for one package."""
    n = name.replace("_", "[-_]")
    return (
        # pip freeze / collect_env: "torch==2.1.2+cu121", "[pip3] torch==2.1.2"; pip list: "torch                 2.1.2"
        rule(f"pip.{name}", fact, rf"^\s*(?:\[(?:pip3?|conda)\]\s+)?{n}(?:==|\s{{2,}})v?{_V}", keep=priority, flags=re.I),
        # pip: "Successfully installed torch-2.1.2+cu121 triton-2.1.0"; "but you have torch 2.1.2+cu121 which is incompatible"
        rule(f"install.{name}", fact, rf"(?:Successfully installed .*\b|but you have ){n}[- ]{_V}", keep=priority, flags=re.I),
        # banners: "torch 2.1.0+cu121, transformers 4.34.1", "transformers=4.41.2", "torch-2.6.0+cu124", "- `transformers` version: 4.36.2",
        # "Accelerate version: 0.25.0"
        rule(f"banner.{name}", fact, _NOT_OLD + rf".*?(?<![\w/.-])`?{n}`?(?: version)?(?:[ =:-]|: )\s*v?{_V}(?![\w.])",
             keep=priority, flags=re.I),
    )


RULES: tuple[FactRule, ...] = (
    # --- CUDA torch was built with ---
    # collect_env: "CUDA used to build PyTorch: 12.1"
    rule("collect_env.cuda", "cuda_version", r"CUDA used to build PyTorch:\s*(\d+\.\d+)", keep="best"),
    # "PyTorch version: 2.1.2+cu121", "torch 2.1.2+cu121", "Successfully installed torch-2.1.2+cu121", "PyTorch version (GPU?): 2.1.2+cu118"
    rule("torch_tag.cuda", "cuda_version", _TORCH_TAGGED, lambda m: cuda_from_tag(m) if m.group(1).startswith("cu") else None, keep="best", flags=re.I),
    # ds_report: "torch cuda version ............... 12.1"; printed torch.version.cuda: "2.0.1+cu118 11.8 True"
    rule("ds_report.cuda", "cuda_version", r"torch cuda version \.+ (\d+\.\d+)", keep="best"),
    rule("print.cuda", "cuda_version", r"^\d+\.\d+\.\d+\+cu\d+ (\d+\.\d+) (?:True|False)\s*$", keep="best"),
    # NCCL: "NCCL INFO NCCL version 2.18.1+cuda12.1"
    rule("nccl.cuda", "cuda_version", r"NCCL version [\d.]+\+cuda(\d+\.\d+)", keep="best"),
    # NGC / Docker images: "CUDA_VERSION=12.1.1"; "CUDA Version 12.1.1" (the container banner)
    rule("env.cuda", "cuda_version", r"\bCUDA_VERSION=(\d+\.\d+)|^CUDA Version (\d+\.\d+)", keep="best"),
    # --- the CUDA toolkit (nvcc) ---
    # "Cuda compilation tools, release 12.1, V12.1.105"; ds_report "nvcc version ..... 12.1"; collect_env "CUDA runtime version: 12.1.105"
    rule("nvcc.release", "cuda_toolkit_version", r"Cuda compilation tools, release (\d+\.\d+)", keep="best"),
    rule("ds_report.nvcc", "cuda_toolkit_version", r"nvcc version \.+ (\d+\.\d+)", keep="best"),
    rule("collect_env.cuda_rt", "cuda_toolkit_version", r"CUDA runtime version:\s*(\d+\.\d+)", keep="best"),
    # --- torch ---
    # collect_env "PyTorch version: 2.1.2+cu121"; ds_report "torch version .... 2.1.2+cu121"; env "PyTorch version (GPU?): 2.1.2+cu118 (True)"
    rule("collect_env.torch", "torch_version", r"(?:PyTorch version(?: \(GPU\?\))?:|torch version \.+)\s*(\d+\.\d+\.\d+)", keep="best"),
    rule("print.torch", "torch_version", r"^(\d+\.\d+\.\d+)\+(?:cu\d+|cpu|rocm[\d.]+) ", keep="best", prefilter="+"),
    *_lib("torch", "torch_version"),
    # "PyTorch 2.1.2", "pytorch==2.1.2"
    rule("banner.pytorch", "torch_version", _NOT_OLD + r".*?\bpytorch(?: version)?[ =:-]+v?(\d+\.\d+\.\d+)(?![\w.])", keep="best", flags=re.I),
    # the tag itself: "torch 2.1.2+cu121" -> "cu121"
    rule("torch_tag", "torch_cuda_tag", _TORCH_TAGGED, keep="best", flags=re.I),
    # --- NCCL ---
    # "NCCL INFO NCCL version 2.18.1+cuda12.1"; collect_env "NCCL version: 2.18.1"; torch "NCCL version (2, 18, 1)";
    # the error lines "..., NCCL version 2.18.1"; env "NCCL_VERSION=2.21.5"; pip "nvidia-nccl-cu12==2.18.1"
    rule("nccl.version", "nccl_version", r"NCCL version:? ?(\d+\.\d+\.\d+)", keep="best", prefilter="NCCL"),
    rule("nccl.tuple", "nccl_version", r"NCCL version \((\d+), (\d+), (\d+)\)", lambda m: ".".join(m.groups()), keep="best"),
    rule("env.nccl", "nccl_version", r"\bNCCL_VERSION=(\d+\.\d+\.\d+)", keep="best"),
    rule("pip.nccl", "nccl_version", r"nvidia-nccl-cu\d+(?:==|\s{2,})(\d+\.\d+\.\d+)", keep="best"),
    # --- DeepSpeed ---
    # ds_report: "deepspeed info ................... 0.12.6, unknown, unknown"; log "DeepSpeed info: version=0.14.0"
    rule("ds_report.version", "deepspeed_version", r"deepspeed info \.+ (\d+\.\d+\.\d+)", keep="best"),
    rule("ds_info.version", "deepspeed_version", r"DeepSpeed info: version=(\d+\.\d+\.\d+)", keep="best"),
    *_lib("deepspeed", "deepspeed_version"),
    # --- transformers, accelerate, flash-attn and friends ---
    *_lib("transformers", "transformers_version"),
    # config.json printouts: '"transformers_version": "4.27.4"' (the version that SAVED the model: weaker)
    rule("config.transformers", "transformers_version", r"\"transformers_version\": \"(\d+\.\d+\.\d+)", keep="best"),
    *_lib("accelerate", "accelerate_version"),
    *_lib("flash_attn", "flash_attn_version"),
    *_lib("bitsandbytes", "bitsandbytes_version"),
    *_lib("numpy", "numpy_version"),
    *_lib("vllm", "vllm_version"),
    *_lib("xformers", "xformers_version"),
    *_lib("triton", "triton_version"),
    *_lib("peft", "peft_version"),
    # --- Python ---
    # collect_env "Python version: 3.10.12 (main, ...)"; "Python 3.10.12"; banners "python 3.11.7", "Python-3.11.11", "python/3.10.12"
    rule("collect_env.python", "python_version", r"Python version:\s*(\d+\.\d+\.\d+)", keep="best"),
    rule("banner.python", "python_version", r"(?<![\w/.-])[Pp]ython[ /=-]v?(3\.\d+\.\d+)(?![\w.])", keep="best"),
    # --- OS and glibc ---
    # collect_env "OS: Ubuntu 22.04.3 LTS (x86_64)"; /etc/os-release 'PRETTY_NAME="Ubuntu 20.04.6 LTS"'
    rule("collect_env.os", "os", r"^OS: (.+?)(?: \(\w+\))?\s*$", keep="best"),
    rule("os_release.os", "os", r"^PRETTY_NAME=\"(.+)\"", keep="best"),
    # collect_env "Libc version: glibc-2.35"; "Platform: Linux-5.15.0-91-generic-x86_64-with-glibc2.35"; "ldd (Ubuntu GLIBC 2.31-0ubuntu9) 2.31"
    rule("collect_env.glibc", "glibc_version", r"Libc version: glibc-(\d+\.\d+)", keep="best"),
    rule("platform.glibc", "glibc_version", r"-with-glibc(\d+\.\d+)\b", keep="best"),
    rule("ldd.glibc", "glibc_version", r"^ldd \(.*\) (\d+\.\d+)\s*$", keep="best"),
)
