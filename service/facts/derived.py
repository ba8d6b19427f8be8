"""Facts that no single line states: counted across lines, or computed from other facts. Each cites a line.

- ``gpu_count``: the rows of an nvidia-smi table, ``GPU k:`` lines of collect_env / ``nvidia-smi -L``, CSV queries
- ``compute_capability`` / ``gpu_arch``: from the GPU model (or from each other)
- ``oom_fragmented``: reserved-but-unallocated memory larger than the request and a sizable share of the GPU
- ``memory_growth``: allocated memory rising reading after reading before the failure
- ``tensor_over_int32``: a tensor or ZeRO partition with more than 2^31 - 1 elements
- ``collectives_differ``: ranks timed out in different collectives (OpType or SeqNum)
- ``failure_step``: the last training step the log reports (progress lines, else the training progress bar)
- ``precision`` from a pretty-printed DeepSpeed JSON config (``"bf16": {`` then ``"enabled": true``), when no line said
- ``world_size`` as nodes x ranks per node, when no line said
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from service.facts.gpus import arch, compute_capability
from service.models import Fact, MaskedLog

_UNITS = {"B": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40, "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12,
          "K": 2**10, "M": 2**20, "G": 2**30}
_INT32_MAX = 2**31 - 1

# nvidia-smi table row: "|   3  NVIDIA H100 80GB HBM3          On  | 00000000:5D:00.0 Off |"; collect_env / nvidia-smi -L:
# "GPU 3: NVIDIA H100 80GB HBM3"; CSV: "3, NVIDIA A100-PCIE-40GB, 40960 MiB, 4 MiB"
_GPU_ROWS = (
    re.compile(r"^\|\s+(\d+)\s+(?:NVIDIA|Tesla|Quadro|GeForce)\b[^|]*\|\s*[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.\d"),
    re.compile(r"^\s*GPU (\d+): (?:NVIDIA|Tesla|Quadro|GeForce)\b"),
    re.compile(r"^(\d+), (?:NVIDIA|Tesla|Quadro|GeForce) [^,]+, \d+ MiB"),
)
# DeepSpeed ZeRO-1/2: "Rank: 0 partition count [2] and sizes[(3369207808, False)]"; config "sub_group_size": 1e10 /
# "sub_group_size ............... 10000000000"; explicit numels: "numel=3369207808", "3,369,207,808 elements"
_BIG_TENSOR = (
    re.compile(r"partition count \[\d+\] and sizes\[\((\d+), "),
    re.compile(r"sub_group_size[\"']?\s*(?::|\.{2,})\s*([\d.e+]+)"),
    re.compile(r"\bnumel[= :]+(\d{10,})"),
    re.compile(r"\b(\d{1,3}(?:,\d{3}){3,}) elements\b"),
)
# Memory readings on progress lines: "epoch 0 step 100/1251 loss 6.887 mem 7.87GiB", "[mem] step=20 allocated=7.30GiB",
# "val 10/1563 running_loss 6.426 mem 31.12GiB", DeepSpeed "MemAllocated=12.3GB", "memory_allocated: 1234.5 MiB", "gpu_mem 12.3G"
_MEM_READING = re.compile(
    r"(?:\bMA|MemAllocated|\bmem(?:ory)?(?:[_ ]?alloc(?:ated)?)?|memory_allocated(?:\(\))?|gpu_mem(?:ory)?|cuda_mem|\ballocated)"
    r"\s*[=:]?\s*(\d+(?:\.\d+)?)\s*([KMGT]i?B|[KMG])\b",
    re.I,
)
# a counter on the same line ties a reading to the loop: "step 100", "step=20", "iter: 3999", "batch 12", "val 5/1563", "epoch 3"
_COUNTER = re.compile(r"\b(?:step|iter(?:ation)?|batch|val|eval|epoch|it)\b\s*[=:]?\s*\d+", re.I)
# progress lines: "step 8410 | loss 2.43", "[step 1200] loss=...", "global_step=1200,", "'step': 500}", "Step 1200/5000 ...",
# "iteration 1200/ 5000 |" (Megatron); not "at step 8423" in a message, not "max_steps=5000"
_STEP = re.compile(r"(?<![\w.])(?<!at )(?<!after )(?:global_step|step|iteration|iter)\b['\"]?\s*[=:]?\s*\(?(\d+)\b(?![.%])", re.I)
# tqdm: " 37%|███▋      | 1850/5000 [1:02:11<1:45:50,  2.02s/it]"
_TQDM = re.compile(r"\|\s*(\d+)/(\d+) \[")
# pretty-printed DeepSpeed / accelerate JSON: '    "bf16": {' followed by '        "enabled": true'
_JSON_PRECISION = re.compile(r'^\s*"(bf16|fp16)":\s*\{\s*$')
_JSON_ENABLED = re.compile(r'"enabled":\s*(true|false|"auto")', re.I)
# "WorkNCCL(SeqNum=1021, OpType=ALLREDUCE, ..."
_WATCHDOG_OP = re.compile(r"WorkNCCL\(SeqNum=(\d+), OpType=(\w+)")


def _bytes(figure: str) -> float | None:
    m = re.match(r"([\d.]+) ?([KMGT]i?B|[KMG])\b", figure)
    return float(m.group(1)) * _UNITS[m.group(2)] if m and m.group(2) in _UNITS else None


def _lines(log: MaskedLog) -> Iterator[tuple[str, int, str]]:
    """The non-empty lines (no derived fact reads an empty one; the prefilter leaves millions of them)."""
    for f in log.files:
        for i, text in f.numbered():
            yield f.name, i, text


def _fact(name: str, value: str, file: str, line: int, source: str) -> Fact:
    return Fact(name=name, value=value, file=file, line=line, source=source)


def _gpu_count(log: MaskedLog) -> Fact | None:
    best: tuple[set[int], str, int] | None = None
    for f in log.files:
        seen: set[int] = set()
        first_line = 0
        for i, text in f.numbered():
            if "GPU" not in text and "|" not in text and ", " not in text:
                continue
            for pattern in _GPU_ROWS:
                m = pattern.match(text)
                if m:
                    seen.add(int(m.group(1)))
                    first_line = first_line or i
                    break
        if seen and (best is None or len(seen) > len(best[0])):
            best = (seen, f.name, first_line)
    if best is None:
        return None
    return _fact("gpu_count", str(len(best[0])), best[1], best[2], "count.gpu_rows")


def _fragmented(values: dict[str, Fact]) -> Fact | None:
    """New format: "X is reserved by PyTorch but unallocated"; old: "Y reserved in total" minus "Z already allocated"."""
    total, tried = values.get("oom_total_capacity"), values.get("oom_tried_to_allocate")
    unalloc = values.get("oom_reserved_unallocated")
    cite = unalloc
    u = _bytes(unalloc.value) if unalloc else None
    if u is None:
        reserved, allocated = values.get("oom_reserved"), values.get("oom_allocated")
        r, a = (_bytes(reserved.value) if reserved else None), (_bytes(allocated.value) if allocated else None)
        if r is None or a is None:
            return None
        u, cite = r - a, reserved
    t = _bytes(total.value) if total else None
    req = _bytes(tried.value) if tried else None
    if cite is None or (req is not None and u < req):
        return None
    if (t and u / t >= 0.05) or (not t and u >= 2**30):
        return cite.model_copy(update={"name": "oom_fragmented", "value": "yes", "source": "derived.oom"})
    return None


def _memory_growth(log: MaskedLog) -> Fact | None:
    """The readings the loop printed rise without a dip at the end: at least three, ending 20% (and 256 MiB) higher.

    Only readings on lines with a step, batch or epoch counter count: set-up reports (a model, then its optimizer
    states) rise too, and that is not a leak.
    """
    readings: list[tuple[float, str, int]] = []
    for file, line, text in _lines(log):
        lowered = text.lower()
        if ("mem" not in lowered and "alloc" not in lowered and "ma " not in lowered) or "tried to allocate" in lowered:
            continue
        m = _MEM_READING.search(text)
        if m and _COUNTER.search(text):
            value = _bytes(f"{m.group(1)} {m.group(2)}")
            if value is not None:
                readings.append((value, file, line))
    tail = readings[-1:]
    for reading in reversed(readings[:-1]):
        if reading[0] > tail[0][0]:
            break
        tail.insert(0, reading)
    if len(tail) < 3:
        return None
    first, last = tail[0][0], tail[-1][0]
    if last >= first * 1.2 and last - first >= 256 * 2**20:
        _, file, line = tail[-1]
        return _fact("memory_growth", "yes", file, line, "derived.memory_readings")
    return None


def _over_int32(log: MaskedLog) -> Fact | None:
    for file, line, text in _lines(log):
        if not any(k in text for k in ("partition count", "sub_group_size", "numel", "elements")):
            continue
        for pattern in _BIG_TENSOR:
            m = pattern.search(text)
            if not m:
                continue
            try:
                n = float(m.group(1).replace(",", ""))
            except ValueError:
                continue
            if n > _INT32_MAX:
                return _fact("tensor_over_int32", "yes", file, line, "derived.tensor_size")
    return None


def _collectives_differ(log: MaskedLog) -> Fact | None:
    ops: dict[tuple[str, str], tuple[str, int]] = {}
    for file, line, text in _lines(log):
        if "WorkNCCL(" in text and "Watchdog" in text:
            m = _WATCHDOG_OP.search(text)
            if m:
                ops.setdefault((m.group(1), m.group(2)), (file, line))
    if len({op for _, op in ops}) > 1 or len(ops) > 1:
        file, line = next(iter(ops.values()))
        return _fact("collectives_differ", "yes", file, line, "derived.watchdog_ops")
    return None


def _failure_step(log: MaskedLog) -> Fact | None:
    """The highest step the run reached: progress lines, and the training bar (the longest unfinished one)."""
    best: tuple[int, str, int, str] | None = None
    bars: dict[int, tuple[int, str, int]] = {}
    for file, line, text in _lines(log):
        if "tep" in text or "ter" in text:
            for found in _STEP.finditer(text):
                step = int(found.group(1))
                if best is None or step >= best[0]:
                    best = (step, file, line, "progress.step")
        if "/" in text and "[" in text and (bar := _TQDM.search(text)):
            n, total = int(bar.group(1)), int(bar.group(2))
            if n < total:  # a finished bar is a data pass or a download, not the run that failed
                bars[total] = (n, file, line)
    if bars:
        n, file, line = bars[max(bars)]  # the training bar: the longest one, not an evaluation loop's
        if best is None or n > best[0]:
            best = (n, file, line, "progress.tqdm")
    return _fact("failure_step", str(best[0]), best[1], best[2], best[3]) if best else None


def _json_precision(log: MaskedLog) -> Fact | None:
    for f in log.files:
        for i, text in f.numbered():
            if '"' not in text or not (m := _JSON_PRECISION.match(text)):
                continue
            for after in f.lines[i : i + 3]:
                e = _JSON_ENABLED.search(after)
                if e:
                    if e.group(1).lower() == "true":
                        return _fact("precision", m.group(1).lower(), f.name, i, "ds_json.precision")
                    break
    return None


def _world_from_topology(values: dict[str, Fact]) -> Fact | None:
    """torchrun: nodes x ranks per node; srun starting the ranks itself: its task count."""
    launcher = values.get("launcher")
    tasks, tasks_per_node = values.get("slurm_ntasks"), values.get("slurm_ntasks_per_node")
    if launcher and launcher.value in ("srun", "mpirun", "python"):
        if tasks and tasks.value.isdigit():
            return tasks.model_copy(update={"name": "world_size", "source": "derived.slurm_ntasks"})
        nodes = values.get("num_nodes")
        if tasks_per_node and nodes and tasks_per_node.value.isdigit() and nodes.value.isdigit():
            return tasks_per_node.model_copy(update={"name": "world_size", "value": str(int(nodes.value) * int(tasks_per_node.value)),
                                                     "source": "derived.slurm_tasks_per_node"})
    nodes, per_node = values.get("num_nodes"), values.get("nproc_per_node")
    if nodes and per_node and nodes.value.isdigit() and per_node.value.isdigit():
        return per_node.model_copy(update={"name": "world_size", "value": str(int(nodes.value) * int(per_node.value)),
                                           "source": "derived.nodes_x_nproc"})
    if per_node and per_node.value.isdigit() and not nodes:
        return per_node.model_copy(update={"name": "world_size", "value": per_node.value, "source": "derived.nproc_single_node"})
    return None


def _toolkit_differs(values: dict[str, Fact]) -> Fact | None:
    """nvcc (the toolkit that builds extensions) is another CUDA release than the one torch was built with."""
    toolkit, torch_cuda = values.get("cuda_toolkit_version"), values.get("cuda_version")
    if toolkit and torch_cuda and toolkit.value.split(".")[:2] != torch_cuda.value.split(".")[:2]:
        return toolkit.model_copy(update={"name": "toolkit_differs", "value": "yes", "source": "derived.toolkit_vs_torch"})
    return None


def _plain_python(log: MaskedLog) -> Fact | None:
    """No launcher in the log but a Python traceback: a plain Python process."""
    for file, line, text in _lines(log):
        if "Traceback (most recent call last)" in text:
            return _fact("launcher", "python", file, line, "derived.traceback_no_launcher")
    return None


def derive(values: dict[str, Fact], log: MaskedLog) -> None:
    """Add the counted and computed facts to ``values`` (never overriding a fact a line stated)."""
    if "gpu_count" not in values and (fact := _gpu_count(log)):
        values["gpu_count"] = fact
    gpu = values.get("gpu_model")
    if gpu and "compute_capability" not in values:
        cap = compute_capability(gpu.value)
        if cap:
            values["compute_capability"] = gpu.model_copy(update={"name": "compute_capability", "value": cap, "source": "derived.gpu_model"})
    cap_fact = values.get("compute_capability")
    if cap_fact and "gpu_arch" not in values:
        values["gpu_arch"] = cap_fact.model_copy(update={"name": "gpu_arch", "value": arch(cap_fact.value), "source": "derived.compute_capability"})
    if "gpu_arch" in values and "compute_capability" not in values:
        digits = values["gpu_arch"].value.removeprefix("sm_")
        values["compute_capability"] = values["gpu_arch"].model_copy(
            update={"name": "compute_capability", "value": f"{digits[:-1]}.{digits[-1]}", "source": "derived.gpu_arch"}
        )
    for name, compute in (("oom_fragmented", lambda: _fragmented(values)), ("memory_growth", lambda: _memory_growth(log)),
                          ("tensor_over_int32", lambda: _over_int32(log)), ("collectives_differ", lambda: _collectives_differ(log)),
                          ("failure_step", lambda: _failure_step(log)), ("precision", lambda: _json_precision(log)),
                          ("launcher", lambda: _plain_python(log)), ("toolkit_differs", lambda: _toolkit_differs(values)), ("world_size", lambda: _world_from_topology(values))):
        if name not in values and (fact := compute()):
            values[name] = fact
