"""The training run: precision, optimizer, ZeRO stage, OOM figures, exit codes and signals, Xid codes, /dev/shm."""

from __future__ import annotations

import re

from service.facts.sources.base import FactRule, const, first_group, rule

_FIG = r"(\d+(?:\.\d+)? [KMGT]i?B)"
_HF_OPTIM = {
    "adamw_hf": "AdamW", "adamw_torch": "AdamW", "adamw_torch_fused": "AdamW (fused)", "adamw_apex_fused": "FusedAdam",
    "adamw_bnb_8bit": "AdamW8bit", "adamw_8bit": "AdamW8bit", "paged_adamw_8bit": "PagedAdamW8bit", "paged_adamw_32bit": "PagedAdamW",
    "adafactor": "Adafactor", "sgd": "SGD", "adagrad": "Adagrad", "lion_32bit": "Lion", "lion_8bit": "Lion8bit", "rmsprop": "RMSprop",
}
_SIGNALS = {"1": "SIGHUP", "2": "SIGINT", "4": "SIGILL", "6": "SIGABRT", "7": "SIGBUS", "8": "SIGFPE", "9": "SIGKILL", "11": "SIGSEGV", "15": "SIGTERM"}


def _precision(m: re.Match[str]) -> str | None:
    word = (first_group(m) or "").lower()
    if word in ("fp8", "float8", "e4m3", "hybrid"):
        return "fp8"
    if word in ("bf16", "bfloat16", "torch.bfloat16", "bf16-mixed"):
        return "bf16"
    if word in ("fp16", "float16", "half", "torch.float16", "16", "16-mixed", "amp", "cuda_amp", "apex"):
        return "fp16"
    if word in ("fp32", "float32", "32", "no"):
        return "fp32"
    return None


def _hf_optim(m: re.Match[str]) -> str | None:
    name = (first_group(m) or "").lower()
    return _HF_OPTIM.get(name)


def _signal_name(m: re.Match[str]) -> str:
    word = (first_group(m) or "").upper()
    return word if word.startswith("SIG") else "SIG" + word


def _signal_of_code(m: re.Match[str]) -> str | None:
    code = int(first_group(m) or "0")
    number = -code if code < 0 else code - 128 if code > 128 else 0
    return _SIGNALS.get(str(number))


RULES: tuple[FactRule, ...] = (
    # --- precision: what the engine reports, then flags and arguments, then hints ---
    # DeepSpeed: "Creating torch.bfloat16 ZeRO stage 2 optimizer", "Creating fp16 ZeRO stage 3 optimizer";
    # config print "bfloat16_enabled ............. True" / "bf16_enabled .... True" / "fp16_enabled ..... True"
    rule("ds.creating", "precision", r"Creating (torch\.bfloat16|torch\.float16|fp16|bf16) ZeRO stage", _precision, keep="best"),
    rule("ds_print.bf16", "precision", r"\b(?:bfloat16|bf16)_enabled \.+ True", const("bf16"), keep="best"),
    rule("ds_print.fp16", "precision", r"\bfp16_enabled \.+ True", const("fp16"), keep="best"),
    # accelerate: "Mixed precision type: fp16"; accelerate env "- mixed_precision: bf16"; HF Trainer "Using cuda_amp half precision backend";
    # Lightning "Using 16bit Automatic Mixed Precision (AMP)" / "Using bfloat16 Automatic Mixed Precision (AMP)"; TE "fp8: enabled"
    rule("accelerate.mixed", "precision", r"Mixed precision type: (fp16|bf16|fp8|no)|- mixed_precision: (fp16|bf16|fp8)", _precision, keep="best"),
    rule("hf.amp_backend", "precision", r"Using (cuda_amp|apex|amp) half precision backend", const("fp16"), keep="best"),
    rule("lightning.amp", "precision", r"Using (16|bfloat16)(?:bit)? (?:native )?Automatic Mixed Precision", _precision, keep="best"),
    rule("te.fp8", "precision", r"\bfp8(?: recipe)?: (?:enabled|DelayedScaling)|fp8_autocast\(enabled=True|convert_to_float8_training|Float8LinearConfig|quantization=['\"]?fp8",
         const("fp8"), keep="best"),
    # HF TrainingArguments: "bf16=True,", "fp16=True,"; DeepSpeed JSON on one line '"bf16": {"enabled": true'; fairseq "'fp16': True"
    rule("hf.bf16", "precision", r"^\s*bf16\s*=\s*True\b|\"bf16\":\s*\{\s*\"enabled\":\s*true|'bf16': True", const("bf16"), keep="best", flags=re.I),
    rule("hf.fp16", "precision", r"^\s*fp16\s*=\s*True\b|\"fp16\":\s*\{\s*\"enabled\":\s*true|'fp16': True", const("fp16"), keep="best", flags=re.I),
    # command lines: "--bf16", "--bf16 True", "--fp16", "--fp8 hybrid", "--float8", "--mixed_precision bf16", "--precision bf16-mixed",
    # "--precision 16-mixed", "--amp"
    rule("flag.precision", "precision", r"(?:^|\s)--(?:mixed[_-]precision|precision|dtype)[= ](fp16|bf16|fp8|bf16-mixed|16-mixed|half|bfloat16|float16)\b",
         _precision, keep="best"),
    rule("flag.bool", "precision", r"(?:^|\s)--(bf16|fp16|fp8|float8)\b(?!\s+False)(?![-_\w])", _precision, keep="best"),
    rule("flag.amp", "precision", r"(?:^|\s)--(amp)\b(?![-_\w])", _precision, keep="best"),
    # banners: "amp fp16", "amp=fp16", "fp16 amp", "fp16 (amp)", "| bf16", "dtype bfloat16", "dtype=torch.bfloat16", "(bf16)"
    rule("banner.amp", "precision", r"\bamp[ =:](fp16|bf16|bfloat16|float16)\b|\b(fp16|bf16) \(?amp\)?", _precision, keep="best"),
    rule("banner.dtype", "precision", r"\bdtype[ =:]+(?:torch\.)?(bfloat16|float16|half)\b|\| (bf16|fp16|fp8)\b|\((bf16|fp16)\)|\b(bf16|fp16|fp8) params", _precision, keep="best"),
    # the config file the run was given: "--deepspeed configs/ds_zero2_bf16.json", "ds_fp16_z2.json", "llama-8b-fp8.yaml"
    rule("config_name.precision", "precision", r"[\w/.-]*[_-](bf16|fp16|fp8)(?:[_-][\w.-]*)?\.(?:json|ya?ml)\b", _precision, keep="best"),
    # the weights' own dtype, weakest: from_pretrained "torch_dtype=float16", config.json '"torch_dtype": "float16"', "-FP8" checkpoints
    rule("weights.dtype", "precision", r"torch_dtype[\"']?[=:]\s*[\"']?(?:torch\.)?(float16|bfloat16)\b|/[\w.-]+-(FP8)\b", _precision, keep="best"),
    # --- optimizer ---
    # DeepSpeed: "DeepSpeed Basic Optimizer = FusedAdam"; "DeepSpeed Final Optimizer = FusedAdam"; ZeRO-Offload "DeepSpeedCPUAdam"
    rule("ds.optimizer", "optimizer", r"(?:Basic|Final) Optimizer = (\w+)", keep="best"),
    rule("ds.cpu_adam", "optimizer", r"\b(DeepSpeedCPUAdam)\b", keep="best"),
    # a traceback or a banner naming the fused class: "deepspeed/ops/adam/fused_adam.py", "apex.optimizers.FusedAdam", "FusedLamb"
    rule("trace.fused_adam", "optimizer", r"\b(FusedAdam|FusedLamb)\b|ops/adam/(fused_adam)\.py", lambda m: "FusedAdam" if m.group(2) else m.group(1), keep="best"),
    # HF TrainingArguments: "optim=OptimizerNames.ADAMW_TORCH" / "optim=adamw_torch"; "--optim adamw_bnb_8bit"
    rule("hf.optim", "optimizer", r"(?:\boptim\s*=\s*(?:OptimizerNames\.)?|--optim[= ])(\w+)", _hf_optim, keep="best"),
    # torch / custom banners: "optimizer: AdamW", "Optimizer: SGD", "fused AdamW"
    rule("banner.optimizer", "optimizer", r"\b[Oo]ptimizer[ =:]+(AdamW|Adam|SGD|Adafactor|Lion|LAMB|RMSprop|Adagrad)\b", keep="best"),
    # --- ZeRO ---
    # DeepSpeed: "Creating torch.bfloat16 ZeRO stage 2 optimizer"; config print "zero_optimization_stage ...... 2";
    # JSON '"zero_optimization": {"stage": 3'; "ZeRO Stage 3"; HF/accelerate "zero_stage: 3"
    rule("ds.zero_creating", "zero_stage", r"ZeRO stage (\d) optimizer", keep="best"),
    rule("ds_print.zero", "zero_stage", r"zero_optimization_stage \.+ (\d)", keep="best"),
    rule("ds.zero_stage", "zero_stage", r"zero_optimization\"?:\s*\{\s*\"stage\":\s*(\d)|ZeRO[ -]?[Ss]tage[ :=]*(\d)|zero_stage[\"']?\s*[=: ]+(\d)", keep="best"),
    rule("ds.stage_json", "zero_stage", r"^\s*\"stage\":\s*(\d),?\s*$", keep="best"),
    # --- GPU OOM figures ---
    # "Tried to allocate 2.50 GiB. GPU 0 has a total capacity of 79.15 GiB of which 1.02 GiB is free. Including non-PyTorch memory,
    #  this process has 78.11 GiB memory in use. Of the allocated memory 60.12 GiB is allocated by PyTorch, and 14.20 GiB is
    #  reserved by PyTorch but unallocated."; old "(GPU 0; 15.78 GiB total capacity; 14.21 GiB already allocated; 3.19 MiB free;
    #  14.53 GiB reserved in total by PyTorch)"
    rule("oom.tried", "oom_tried_to_allocate", rf"Tried to allocate {_FIG}", prefilter="Tried to allocate"),
    rule("oom.total", "oom_total_capacity", rf"total capacity of {_FIG}|{_FIG} total capacity"),
    rule("oom.free_new", "oom_free", rf"of which {_FIG} is free"),
    rule("oom.free_old", "oom_free", rf"{_FIG} free;"),
    rule("oom.allocated", "oom_allocated", rf"{_FIG} (?:is )?allocated by PyTorch|{_FIG} already allocated"),
    rule("oom.reserved_unalloc", "oom_reserved_unallocated", rf"{_FIG} is reserved by PyTorch but unallocated"),
    rule("oom.reserved", "oom_reserved", rf"{_FIG} reserved in total by PyTorch"),
    # --- exit codes: the launcher's record of the first failure, then the others ---
    # torchrun agent: "failed (exitcode: -6) local_rank: 0 (pid: 1234) of binary: ..."; summary "exitcode  : -9 (pid: 31337)"
    rule("torchrun.failed", "exit_code", r"failed \(exitcode: (-?\d+)\) local_rank", keep="best"),
    rule("torchrun.exitcode", "exit_code", r"\bexitcode\s*:\s*(-?\d+) \(pid", keep="best"),
    # DeepSpeed launcher: "... exits with return code = -9"; mp.spawn "process 1 terminated with exit code 1"/"with signal SIGKILL"
    rule("ds.return_code", "exit_code", r"exits with return code = (-?\d+)", keep="best"),
    # Kubernetes "Exit Code:    137"; srun "task 3: Exited with exit code 1"; shell "exited with code 137", "exit status 137"
    rule("k8s.exit", "exit_code", r"^\s*Exit Code:\s+(\d+)", keep="best"),
    rule("shell.exit", "exit_code", r"(?<!ssh )exited with (?:exit )?code (-?\d+)|(?:returned non-zero )?exit status (-?\d+)|terminated with exit code (-?\d+)", keep="best"),
    # --- signals: the one that ended the failing process, not the launcher's SIGTERM to the others ---
    # torchrun summary "traceback : Signal 9 (SIGKILL) received by PID 1234"; "exitcode : -6 (pid: 1234)  (SIGABRT)";
    # multiprocessing "died with <Signals.SIGKILL: 9>"; mp.spawn "terminated with signal SIGSEGV"; "Fatal Python error: Segmentation fault"
    rule("signal.received", "signal", r"Signal \d+ \((SIG(?!TERM)\w+)\) received|\((SIG(?!TERM)[A-Z]+)\)\s*$|<Signals\.(SIG(?!TERM)\w+): \d+>|terminated with signal (SIG(?!TERM)\w+)",
         _signal_name, keep="best"),
    rule("signal.code", "signal", r"failed \(exitcode: (-(?:[1-9]|1[0-4]))\) local_rank|exits with return code = (-(?:[1-9]|1[0-4]))\b", _signal_of_code, keep="best"),
    rule("signal.fatal", "signal", r"Fatal Python error: (Segmentation fault|Aborted|Bus error)|\b(Segmentation fault|Bus error) \(core dumped\)",
         lambda m: {"segmentation fault": "SIGSEGV", "aborted": "SIGABRT", "bus error": "SIGBUS"}[(first_group(m) or "").lower()], keep="best"),
    # any other mention, but not torchrun's config print "signals_to_handle : SIGTERM,SIGINT,SIGHUP,SIGQUIT"
    rule("signal.name", "signal", r"^(?!.*signals_to_handle).*?\b(SIGKILL|SIGSEGV|SIGABRT|SIGBUS|SIGHUP|SIGINT|SIGILL|SIGFPE)\b", _signal_name, keep="best"),
    # death signals to the launcher: "Received 1 death signal, shutting down workers"; "Received Signals.SIGHUP death signal"
    rule("signal.death", "signal", r"Received (?:Signals\.)?(\d+|SIG\w+) death signal", lambda m: _SIGNALS.get(m.group(1), m.group(1)), keep="best"),
    rule("signal.exit137", "signal", r"(?:exit code|Exit Code:|exit status)\s*(137|139|134|135)\b", _signal_of_code, keep="best"),
    # SIGTERM itself, but not the launcher terminating the survivors ("closing signal SIGTERM", "exitcode : -15 ... (SIGTERM)")
    rule("signal.term", "signal", r"^(?!.*(?:signals_to_handle|closing signal|exitcode\s*:\s*-15|Signal 15 \(SIGTERM\) received by PID)).*?(\bSIGTERM\b)",
         lambda m: "SIGTERM", keep="best"),
    # --- hardware and host ---
    # dmesg: "NVRM: Xid (PCI:0000:3b:00): 79, pid=0, name=python, GPU has fallen off the bus."
    rule("dmesg.xid", "xid", r"NVRM: Xid \([^)]*\): (\d+)", prefilter="Xid"),
    # dmesg / cgroup: "Out of memory: Killed process 1234 (python)"; "Memory cgroup out of memory: Killed process 1234 (python)"
    rule("dmesg.oom_kill", "oom_killed_process", r"(?:Out of memory|out of memory): Kill(?:ed)? process (\d+ \([^)]+\))"),
    # ds_report "shared memory (/dev/shm) size .... 64.00 MB"; df "shm  64M  64M  0 100% /dev/shm"
    rule("ds_report.shm", "shm_size", r"shared memory \(/dev/shm\) size \.+ ([\d.]+ ?[KMGT]i?B)"),
    rule("df.shm", "shm_size", r"^(?:shm|tmpfs)\s+(\d+(?:\.\d+)?[KMGT])\s+\S+\s+\S+\s+\d+%\s+/dev/shm\s*$"),
)
