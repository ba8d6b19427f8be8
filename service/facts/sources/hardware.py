"""GPU model, compute capability, driver and the CUDA the driver supports."""

from __future__ import annotations

import re

from service.facts.sources.base import FactRule, gpu_name, rule

RULES: tuple[FactRule, ...] = (
    # --- GPU model, most authoritative first ---
    # collect_env / nvidia-smi -L: "GPU 0: NVIDIA H100 80GB HBM3" / "GPU 0: NVIDIA A10G (UUID: GPU-...)";
    # collect_env with one GPU: "GPU models and configuration: GPU 0: NVIDIA GeForce RTX 4090"
    rule("collect_env.gpu", "gpu_model", r"^\s*(?:GPU models and configuration:\s*)?GPU \d+: ((?:NVIDIA|Tesla|Quadro) [^\n(]+?)\s*(?:\(UUID|$)",
         gpu_name, keep="best", prefilter="GPU "),
    # accelerate env / transformers-cli env: "- GPU type: NVIDIA A100-SXM4-80GB"
    rule("env_report.gpu", "gpu_model", r"^\s*- GPU type: (.+?)\s*$", gpu_name, keep="best", prefilter="GPU type"),
    # nvidia-smi table: "|   0  NVIDIA A100-SXM4-80GB          On  | 00000000:07:00.0 Off |"; older "|   0  Tesla V100-SXM2...  On   |"
    # and without a vendor: "|   0  A10G                On   |"; Windows "|   0  NVIDIA GeForce RTX 3070 ...  WDDM  |"
    rule("nvidia_smi.gpu", "gpu_model", r"^\|\s+\d+\s+([A-Za-z][\w .-]*?)\s{2,}(?:On|Off|WDDM|TCC)\s+\|",
         gpu_name, keep="best", prefilter="|"),
    # nvidia-smi --query-gpu CSV rows: "0, NVIDIA A100-PCIE-40GB, 40960 MiB, 4 MiB"; "Tesla T4, 7.5, 535.104.05"
    rule("nvidia_smi_csv.gpu", "gpu_model", r"^(?:\d+, )?((?:NVIDIA|Tesla|Quadro) [\w .-]+?), (?:\d+ MiB|\d+\.\d+, \d+\.\d+)", gpu_name, keep="best"),
    # torch / DeepSpeed / accelerate start-up and custom banners: "device name: NVIDIA GeForce RTX 4090", "GPU: NVIDIA L4",
    # "device NVIDIA A10G", "CUDA:0 (NVIDIA L4, 22478MiB)", "2 x NVIDIA H100 80GB HBM3"
    rule("startup.gpu", "gpu_model",
         r"(?:device name|GPU name|GPU type|GPU|device|CUDA:\d \(|\d+ x)\s*[:=]?\s*'?((?:NVIDIA|Tesla|Quadro) [\w .-]+?)'?\s*(?:[,)|(]|\s+x\s*\d|\s*$)",
         gpu_name, keep="best", flags=re.I),
    # anywhere else: "CUDA error ... on device NVIDIA H100 80GB HBM3", "Your Tesla T4 GPU has compute capability 7.5"
    rule("inline.gpu", "gpu_model",
         r"\b((?:NVIDIA |Tesla )(?:GeForce |Tesla |RTX |Quadro )?(?:[ABHLTVKP]\d{1,3}[A-Z]?|RTX ?(?:A?\d{4}|PRO \d{4})|GB?\d{3})(?:[\w-]*)"
         r"(?: \d+GB)?(?: (?:HBM3e?|PCIe|SXM\d?|NVL|Ada Generation|Laptop GPU))*)(?![\w-]*\s?\.\.\.)", gpu_name, keep="best"),
    # --- compute capability stated outright (the device's, not a requirement) ---
    # torch: "NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible"; "Found GPU0 ... which is of cuda capability 3.7"
    rule("printed.arch", "gpu_arch", r"with CUDA capability (sm_\d+)"),
    # vLLM: "Your Tesla T4 GPU has compute capability 7.5"; CSV "Tesla T4, 7.5, 535.104.05"; "Device compute capability: 8.0";
    # "compute capability (8, 0)"; not "compute capability 8.9 or higher required"
    rule("printed.cc", "compute_capability",
         r"(?:has|is of|device|Device|GPU)[^\n]{0,20}?(?:cuda |compute )capability[ :=]*\(?(\d+)[.,] ?(\d)\)?(?![\d.]* or (?:higher|above))(?! required)",
         lambda m: f"{m.group(1)}.{m.group(2)}", flags=re.I),
    rule("csv.cc", "compute_capability", r"^(?:NVIDIA |Tesla |Quadro )[\w .-]+, (\d+)\.(\d), \d+\.\d+", lambda m: f"{m.group(1)}.{m.group(2)}"),
    # --- driver ---
    # nvidia-smi header: "| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2 |"
    rule("nvidia_smi.driver", "driver_version", r"Driver Version:\s*([\d.]+)", prefilter="Driver Version"),
    # collect_env: "Nvidia driver version: 535.104.05"
    rule("collect_env.driver", "driver_version", r"Nvidia driver version:\s*([\d.]+)", flags=re.I),
    # dmesg / modinfo: "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 ..."
    rule("dmesg.driver", "driver_version", r"NVIDIA UNIX \S+ Kernel Module\s+([\d.]+)"),
    # nvidia-smi CSV: "Tesla T4, 7.5, 535.104.05"
    rule("csv.driver", "driver_version", r"^(?:NVIDIA |Tesla |Quadro )[\w .-]+, \d+\.\d, (\d{3}\.\d+(?:\.\d+)?)\s*$"),
    # --- the newest CUDA the driver supports ---
    # nvidia-smi header "CUDA Version: 12.2"; NCCL "NCCL INFO cudaDriverVersion 12020"; torch "found version 11040" (driver too old)
    rule("nvidia_smi.driver_cuda", "driver_cuda_version", r"Driver Version:\s*[\d.]+\s+CUDA Version:\s*(\d+\.\d+)"),
    rule("nccl.driver_cuda", "driver_cuda_version", r"cudaDriverVersion (\d+)\b", lambda m: f"{int(m.group(1)) // 1000}.{int(m.group(1)) % 1000 // 10}"),
    rule("torch.driver_cuda", "driver_cuda_version", r"driver on your system is too old \(found version (\d{4,5})\)",
         lambda m: f"{int(m.group(1)) // 1000}.{int(m.group(1)) % 1000 // 10}"),
)
