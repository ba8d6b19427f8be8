"""What every case generator shares: the case writer, the command line, and the noise real runs print.

Each generator in this folder keeps only its own cases (the logs of one family of failures); the case
model, the one way a case is written to disk, and the helpers for text that many runs print (timestamps,
launcher prefixes, nvidia-smi, collect_env, progress bars, launcher summaries, fake secrets) live here.

A case is validated by the eval's own model (`service.evaluation.cases.Case`) before it is written, so a
generator cannot write a case the eval would refuse. Regenerating writes the same bytes:
`tests/test_generators.py` runs every generator into a temporary folder and compares.
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import textwrap
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]
CASES_DIR = REPO / "evals" / "cases"
if str(REPO) not in sys.path:  # run as `python evals/generators/x.py` from a checkout
    sys.path.insert(0, str(REPO))

from service.evaluation.cases import Case as CaseModel  # noqa: E402


@dataclass
class Case:
    """One eval case as a generator makes it: its id, its case.yaml fields and its log files."""

    case_id: str
    label: str
    difficulty: str
    description: str
    initiating_rank: int | list[int] | None = None  # a list when several ranks fail at once on the same bug
    facts: dict[str, str] = field(default_factory=dict)
    must_mention: list[str] = field(default_factory=list)
    files: dict[str, str] = field(default_factory=dict)  # empty: a real capture whose logs are kept
    also: list[str] = field(default_factory=list)
    secrets: list[str] = field(default_factory=list)

    @classmethod
    def from_meta(cls, case_id: str, meta: dict, files: dict[str, str]) -> Case:
        """A case from a case.yaml-shaped dict (the form some generators build)."""
        extra = set(meta) - {"schema_version", "label", "also", "difficulty", "description", "initiating_rank",
                             "facts", "must_mention", "secrets"}
        if extra:
            raise ValueError(f"{case_id}: unknown case fields {sorted(extra)}")
        return cls(case_id, meta["label"], meta["difficulty"], meta.get("description", ""),
                   meta.get("initiating_rank"), dict(meta.get("facts", {})), list(meta.get("must_mention", [])),
                   files, list(meta.get("also", [])), list(meta.get("secrets", [])))

    def meta(self) -> dict:
        """The case.yaml fields in their documented order, checked by the eval's case model."""
        meta = {
            "schema_version": 1,
            "label": self.label,
            "also": list(self.also),
            "difficulty": self.difficulty,
            "description": self.description,
            "initiating_rank": self.initiating_rank,
            "facts": {k: str(v) for k, v in self.facts.items()},
            "must_mention": list(self.must_mention),
            "secrets": list(self.secrets),
        }
        CaseModel.model_validate(meta)  # raises on a field the eval would refuse
        return meta


def write_case(out: Path, case: Case) -> None:
    """Write one case folder under `out`, replacing whatever an earlier run left in it.

    Text files end with exactly the newline they were given, or one added when they had none. A case
    given no files is a real run whose captured logs are kept: only its case.yaml is rewritten."""
    meta = case.meta()
    text = "".join(case.files.values())
    unplanted = [s for s in case.secrets if case.files and s not in text]
    if unplanted:
        raise ValueError(f"{case.case_id}: secrets listed but not planted in its logs: {unplanted}")
    folder = out / case.case_id
    if case.files and folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in case.files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")
    (folder / "case.yaml").write_text(yaml.safe_dump(meta, sort_keys=False, allow_unicode=True, width=110),
                                      encoding="utf-8")


def write_all(out: Path, cases: list[Case]) -> None:
    """Write the cases of one generator; two cases with one id is a generator's bug."""
    ids = [c.case_id for c in cases]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    if dupes:
        raise ValueError(f"duplicate case ids: {dupes}")
    for c in cases:
        write_case(out, c)
    print(f"wrote {len(cases)} cases under {out}")


def write_selected(out: Path, cases: Iterable[Case], only: str | None = None) -> int:
    """Write the cases whose id contains `only` (all of them when it is empty) and say how many; `cases` may be a
    generator, so a case is made only as it is written."""
    n = 0
    for case in cases:
        if not only or only in case.case_id:
            write_case(out, case)
            n += 1
    return n


class Collector:
    """For generators whose case functions write as they go: `@cases.case` registers a function, and the
    function ends with `cases.add(case_id, meta, files)`; `cases.run(out)` calls them all and writes."""

    def __init__(self) -> None:
        self.functions: list = []
        self.made: list[Case] = []

    def case(self, fn):
        self.functions.append(fn)
        return fn

    def add(self, case_id: str, meta: dict, files: dict[str, str]) -> None:
        self.made.append(Case.from_meta(case_id, meta, files))

    def run(self, out: Path) -> None:
        self.made = []
        for fn in self.functions:
            fn()
        write_all(out, self.made)


def parser(doc: str | None) -> argparse.ArgumentParser:
    """A generator's command line: `--out` (default evals/cases) plus whatever the generator adds."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=CASES_DIR, help="where the case folders go (default: %(default)s)")
    return ap


# --------------------------------------------------------------------------------------------------
# text


def block(text: str) -> str:
    """Dedent a triple-quoted block and drop its first newline."""
    return textwrap.dedent(text).lstrip("\n")


def dedent(s: str) -> str:
    """Dedent a triple-quoted block and strip its leading and trailing newlines."""
    return textwrap.dedent(s).strip("\n")


def prefix(lines: str, pre: str) -> str:
    """Prefix every line (as torchrun --tee, srun -l or torch>=2.3 [rankN]: do)."""
    return "\n".join(pre + ln for ln in lines.rstrip("\n").split("\n")) + "\n"


class Clock:
    """A monotonically advancing wall clock for one log."""

    def __init__(self, start: datetime, rng: random.Random):
        self.t = start
        self.rng = rng

    def tick(self, lo: float = 0.001, hi: float = 0.05) -> datetime:
        self.t += timedelta(seconds=self.rng.uniform(lo, hi))
        return self.t

    def ds(self, lo: float = 0.001, hi: float = 0.05) -> str:
        """DeepSpeed / python logging style: 2024-03-14 09:12:01,233"""
        t = self.tick(lo, hi)
        return t.strftime("%Y-%m-%d %H:%M:%S,") + f"{t.microsecond // 1000:03d}"

    def glog(self, level: str = "I", lo: float = 0.001, hi: float = 0.05, nanos: bool = False) -> str:
        """c10 / glog style: I1130 14:02:11.482913 (torch>=2.4 prints nanoseconds)"""
        t = self.tick(lo, hi)
        frac = f"{t.microsecond:06d}" + (f"{self.rng.randrange(1000):03d}" if nanos else "")
        return f"{level}{t.strftime('%m%d %H:%M:%S')}.{frac}"

    def hf(self, lo: float = 0.001, hi: float = 0.05) -> str:
        """transformers logging: 11/30/2024 14:02:11"""
        return self.tick(lo, hi).strftime("%m/%d/%Y %H:%M:%S")


def collect_env_report(*, torch: str, cuda_build: str, os: str, gcc: str, libc: str, python: str, platform: str,
                       cuda_runtime: str, devices: list[str], libs: list[str], cpu: list[str] | None = None,
                       conda: list[str] | None = None, cmake: str = "version 3.27.9", cuda_available: bool = True,
                       module_loading: str = "LAZY") -> list[str]:
    """What `python -m torch.utils.collect_env` prints, in its order: the build, the OS and compilers, Python and
    CUDA, then `devices` (the GPU models, the driver and cuDNN lines, which releases lay out differently), the
    constant HIP/MIOpen/XNNPACK lines, `cpu` (lscpu's lines; torch 2.0 on) and the pip and conda packages
    (`conda` None: no conda line at all)."""
    lines = [
        "Collecting environment information...",
        f"PyTorch version: {torch}",
        "Is debug build: False",
        f"CUDA used to build PyTorch: {cuda_build}",
        "ROCM used to build PyTorch: N/A",
        "",
        f"OS: {os}",
        f"GCC version: {gcc}",
        "Clang version: Could not collect",
        f"CMake version: {cmake}",
        f"Libc version: {libc}",
        "",
        f"Python version: {python}",
        f"Python platform: {platform}",
        f"Is CUDA available: {cuda_available}",
        f"CUDA runtime version: {cuda_runtime}",
        f"CUDA_MODULE_LOADING set to: {module_loading}",
        *devices,
        "HIP runtime version: N/A",
        "MIOpen runtime version: N/A",
        "Is XNNPACK available: True",
        "",
    ]
    if cpu is not None:
        lines += ["CPU:", *cpu, ""]
    lines += ["Versions of relevant libraries:", *(f"[pip3] {x}" for x in libs)]
    lines += [f"[conda] {x}" for x in conda or []]
    return lines


def pip_metadata_generation_failed() -> list[str]:
    """pip's closing lines when a package's setup.py or build backend fails while pip prepares its
    metadata: the end of the subprocess output and pip's own 'not a problem with pip' notes."""
    return [
        "      [end of output]",
        "  ",
        "  note: This error originates from a subprocess, and is likely not a problem with pip.",
        "error: metadata-generation-failed",
        "",
        "× Encountered error while generating package metadata.",
        "╰─> See above for output.",
        "",
        "note: This is an issue with the package mentioned above, not pip.",
        "hint: See above for details.",
    ]


# nvidia-smi's column heads: drivers before 530 print the narrow table (79 columns), 530 and later the wide one
SMI_HEADS_NARROW = [
    "| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |",
    "| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |",
    "|                               |                      |               MIG M. |",
]
SMI_HEADS_WIDE = [
    "| GPU  Name                 Persistence-M | Bus-Id        Disp.A | Volatile Uncorr. ECC |",
    "| Fan  Temp   Perf          Pwr:Usage/Cap |         Memory-Usage | GPU-Util  Compute M. |",
    "|                                         |                      |               MIG M. |",
]
# and the heads of its processes table, in the same two widths
SMI_PROCESSES_NARROW = [
    "| Processes:                                                                  |",
    "|  GPU   GI   CI        PID   Type   Process name                  GPU Memory |",
    "|        ID   ID                                                   Usage      |",
]
SMI_PROCESSES_WIDE = [
    "| Processes:                                                                            |",
    "|  GPU   GI   CI        PID   Type   Process name                            GPU Memory |",
    "|        ID   ID                                                             Usage      |",
]


def ds_report_header(okay: str = "[OKAY]") -> list[str]:
    """The lines `ds_report` prints before its op table (DeepSpeed 0.9 on); `okay` is ninja's status as printed
    (with or without the terminal's colour codes)."""
    rule = "-" * 50
    return [
        rule,
        "DeepSpeed C++/CUDA extension op report",
        rule,
        "NOTE: Ops not installed will be just-in-time (JIT) compiled at",
        "      runtime if needed. Op compatibility means that your system",
        "      meet the required dependencies to JIT install the op.",
        rule,
        "JIT compiled ops requires ninja",
        f"ninja .................. {okay}",
        rule,
        "op name ................ installed .. compatible",
        rule,
    ]


# --------------------------------------------------------------------------------------------------
# tracebacks many runs share


def uvloop_run_frames(site: str, carets: bool = False) -> list[str]:
    """The frames `uvloop.run(main())` puts between a server's entry point and its coroutine (uvloop over
    Python 3.12's asyncio runner); `carets` adds the marks Python prints under the calls when it can."""
    frames = [
        (f'  File "{site}/uvloop/__init__.py", line 109, in run', "    return __asyncio.run(", 14),
        ('  File "/usr/lib/python3.12/asyncio/runners.py", line 195, in run', "    return runner.run(main)", 16),
        ('  File "/usr/lib/python3.12/asyncio/runners.py", line 118, in run',
         "    return self._loop.run_until_complete(task)", 35),
        ('  File "uvloop/loop.pyx", line 1518, in uvloop.loop.Loop.run_until_complete', None, 0),
        (f'  File "{site}/uvloop/__init__.py", line 61, in wrapper', "    return await main", 10),
    ]
    out = []
    for where, src, width in frames:
        out.append(where)
        if src:
            out.append(src)
            if carets:
                out.append(" " * 11 + "^" * width)
    return out


def vllm_engine_client_frames(site: str) -> str:
    """The frames vLLM 0.11's OpenAI API server prints between `uvloop.run(run_server(args))` and the engine
    config it builds (uvloop, asyncio's runner, the engine client's two async context managers), with the
    relative indent Python gives them; `site` is the site-packages folder."""
    lines = [
        *uvloop_run_frames(site, carets=True),
        f'  File "{site}/vllm/entrypoints/openai/api_server.py", line 1884, in run_server',
        "    await run_server_worker(listen_address, sock, args, **uvicorn_kwargs)",
        f'  File "{site}/vllm/entrypoints/openai/api_server.py", line 1902, in run_server_worker',
        "    async with build_async_engine_client(",
        "               ^^^^^^^^^^^^^^^^^^^^^^^^^^",
        '  File "/usr/lib/python3.12/contextlib.py", line 210, in __aenter__',
        "    return await anext(self.gen)",
        "           ^^^^^^^^^^^^^^^^^^^^^",
        f'  File "{site}/vllm/entrypoints/openai/api_server.py", line 180, in build_async_engine_client',
        "    async with build_async_engine_client_from_engine_args(",
        "               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
        '  File "/usr/lib/python3.12/contextlib.py", line 210, in __aenter__',
        "    return await anext(self.gen)",
        "           ^^^^^^^^^^^^^^^^^^^^^",
        f'  File "{site}/vllm/entrypoints/openai/api_server.py", line 206, in build_async_engine_client_from_engine_args',
        "    vllm_config = engine_args.create_engine_config(usage_context=usage_context)",
        "                  ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
    ]
    return "\n".join(lines) + "\n"


def vllm_model_config_frames(site: str) -> str:
    """The frames vLLM 0.11 prints when its EngineArgs build the ModelConfig and pydantic rejects it (arg_utils'
    create_engine_config and create_model_config, pydantic's dataclass __init__), as Python 3.12 prints them."""
    lines = [
        f'  File "{site}/vllm/engine/arg_utils.py", line 1142, in create_engine_config',
        "    model_config = self.create_model_config()",
        "                   ^^^^^^^^^^^^^^^^^^^^^^^^^^",
        f'  File "{site}/vllm/engine/arg_utils.py", line 994, in create_model_config',
        "    return ModelConfig(",
        "           ^^^^^^^^^^^^",
        f'  File "{site}/pydantic/_internal/_dataclasses.py", line 121, in __init__',
        "    s.__pydantic_validator__.validate_python(ArgsKwargs(args, kwargs), self_instance=s)",
    ]
    return "\n".join(lines) + "\n"


def lightning_fit_frames(site: str, fit: int, handle: int, launch: int, fit_impl: int) -> list[str]:
    """The frames Lightning 2.x's Trainer.fit prints down to _fit_impl when a launcher runs it (the
    subprocess-script launcher of DDP and DeepSpeed under torchrun or Lightning's own spawning); the line numbers
    are the release's."""
    return [
        f'  File "{site}/lightning/pytorch/trainer/trainer.py", line {fit}, in fit',
        "    call._call_and_handle_interrupt(",
        f'  File "{site}/lightning/pytorch/trainer/call.py", line {handle}, in _call_and_handle_interrupt',
        "    return trainer.strategy.launcher.launch(trainer_fn, *args, trainer=trainer, **kwargs)",
        f'  File "{site}/lightning/pytorch/strategies/launchers/subprocess_script.py", line {launch}, in launch',
        "    return function(*args, **kwargs)",
        f'  File "{site}/lightning/pytorch/trainer/trainer.py", line {fit_impl}, in _fit_impl',
        "    self._run(model, ckpt_path=ckpt_path)",
    ]


def torchrun_main_frames(site: str, wrapper: int | str, main: int | str) -> list[str]:
    """The first frames of torchrun's own traceback below its entry script: the `record` wrapper of
    elastic's errors module, then run.py's main(); the line numbers are the release's."""
    return [
        f'  File "{site}/torch/distributed/elastic/multiprocessing/errors/__init__.py", line {wrapper}, in wrapper',
        "    return f(*args, **kwargs)",
        f'  File "{site}/torch/distributed/run.py", line {main}, in main',
        "    run(args)",
    ]


def elastic_launch_frames(site: str, run: int | str, call: int | str, agent: int | str | None = None) -> list[str]:
    """run.py's run() calling elastic_launch, the launcher's __call__ and, given `agent`, launch_agent raising
    ChildFailedError: the frames every torchrun (and accelerate launch) failure prints above its summary."""
    frames = [
        f'  File "{site}/torch/distributed/run.py", line {run}, in run',
        "    elastic_launch(",
        f'  File "{site}/torch/distributed/launcher/api.py", line {call}, in __call__',
        "    return launch_agent(self._config, self._entrypoint, list(args))",
    ]
    if agent is not None:
        frames += [f'  File "{site}/torch/distributed/launcher/api.py", line {agent}, in launch_agent',
                   "    raise ChildFailedError("]
    return frames


# --------------------------------------------------------------------------------------------------
# torchrun's ChildFailedError summary

SIGNALS = {1: "SIGHUP", 6: "SIGABRT", 7: "SIGBUS", 9: "SIGKILL", 11: "SIGSEGV", 15: "SIGTERM"}
ELASTIC_DOCS_HINT = "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"


@dataclass
class RankExit:
    """One worker in torchrun's ChildFailedError summary: which rank, its process, how and when it ended."""

    rank: int
    local_rank: int
    pid: int
    exitcode: int  # negative: the worker was killed by that signal
    time: str  # as torchrun prints it: 2024-03-12_09:14:02
    host: str
    error_file: str = "<N/A>"
    traceback: str | None = None  # the error file's traceback; None: the signal line or the docs hint

    @classmethod
    def of(cls, f: dict) -> RankExit:
        """A worker from the dict form some generators build (time, host, rank, local_rank, exitcode, pid and,
        optionally, error_file and traceback)."""
        return cls(f["rank"], f["local_rank"], f["pid"], f["exitcode"], f["time"], f["host"],
                   f.get("error_file") or "<N/A>", f.get("traceback"))


def torchrun_child_failed_summary(script: str, root: RankExit, others: list[RankExit], *,
                                  signal_names: bool = False, pad: bool = False, width: int = 60) -> list[str]:
    """torchrun's ChildFailedError message (its format_msg, in torch.distributed.elastic's errors module): the
    script FAILED, the other failed workers, then the root cause (the first worker to fail), between '=' rules.

    `signal_names` names a killed worker's signal after its exit code ("-15 (pid: 7)  (SIGTERM)") and `pad` keeps
    the space then left after a plain one ("1 (pid: 7) "): releases whose template reads "(pid: ${pid})
    ${signal_name}" print both (torch 2.13 does; 2.5.1 prints neither). `width` is the rules' length (60 unless
    the terminal was narrower)."""

    def entry(i: int, e: RankExit) -> list[str]:
        code = f"{e.exitcode} (pid: {e.pid})"
        if e.exitcode < 0 and signal_names:
            code += f"  ({SIGNALS[-e.exitcode]})"
        elif e.exitcode >= 0 and pad:
            code += " "
        if e.traceback is not None:
            tb = e.traceback
        elif e.exitcode < 0:
            tb = f"Signal {-e.exitcode} ({SIGNALS[-e.exitcode]}) received by PID {e.pid}"
        else:
            tb = ELASTIC_DOCS_HINT
        return [f"[{i}]:", f"  time      : {e.time}", f"  host      : {e.host}",
                f"  rank      : {e.rank} (local_rank: {e.local_rank})", f"  exitcode  : {code}",
                f"  error_file: {e.error_file}", f"  traceback : {tb}"]

    out = ["=" * width, f"{script} FAILED", "-" * width, "Failures:"]
    for i, e in enumerate(others, 1):
        out += entry(i, e)
    if not others:
        out.append("  <NO_OTHER_FAILURES>")
    out += ["-" * width, "Root Cause (first observed failure):", *entry(0, root), "=" * width]
    return out


def accelerate_launch_frames(accelerate_bin: str, site: str, cli: int, command: int, launcher: str | None = None,
                             launcher_line: int | None = None) -> list[str]:
    """The first frames of `accelerate launch`'s own traceback: the console script, accelerate_cli's main and
    launch_command, then, given `launcher` (simple_launcher, multi_gpu_launcher, deepspeed_launcher), the launcher
    it called and, for the torchrun-based ones, its call into torch.distributed.run; the line numbers are the
    release's."""
    frames = [
        f'  File "{accelerate_bin}", line 8, in <module>',
        "    sys.exit(main())",
        f'  File "{site}/accelerate/commands/accelerate_cli.py", line {cli}, in main',
        "    args.func(args)",
        f'  File "{site}/accelerate/commands/launch.py", line {command}, in launch_command',
    ]
    if launcher is not None:
        frames += [f"    {launcher}(args)", f'  File "{site}/accelerate/commands/launch.py", line {launcher_line}, in {launcher}']
        if launcher != "simple_launcher":
            frames.append("    distrib_run.run(args)")
    return frames


# nn.Module.__call__'s lines in torch's module.py by minor version: (_wrapped_call_impl, _call_impl); before 2.1
# __call__ was _call_impl itself
MODULE_CALL_LINES = {"1.13": (None, 1194), "2.0": (None, 1501), "2.1": (1518, 1527), "2.2": (1511, 1520),
                     "2.3": (1532, 1541), "2.4": (1553, 1562), "2.5": (1736, 1747), "2.6": (1739, 1750)}


def module_call(torch_version: str) -> list[tuple[str, int, str]]:
    """nn.Module.__call__'s frames in that torch minor version, as (function, line, source)."""
    wrapped, call = MODULE_CALL_LINES[torch_version]
    frames = [] if wrapped is None else [("_wrapped_call_impl", wrapped, "return self._call_impl(*args, **kwargs)")]
    args = "*input" if torch_version == "1.13" else "*args"  # 1.13's forward took *input
    return frames + [("_call_impl", call, f"return forward_call({args}, **kwargs)")]


def module_call_frames(site: str, torch_version: str, carets: bool = False) -> list[str]:
    """The frames a call of an nn.Module adds to a traceback (torch's module.py, of that minor version);
    `carets` adds the marks Python 3.11 and later print under each call."""
    out = []
    for fn, line, src in module_call(torch_version):
        out += [f'  File "{site}/torch/nn/modules/module.py", line {line}, in {fn}', f"    {src}"]
        if carets:
            call = src.removeprefix("return ")
            out.append(" " * (4 + len(src) - len(call)) + "^" * len(call))
    return out


# Tensor.backward's frames by torch minor version, (file under site-packages, line, function, source):
# Tensor.backward -> autograd.backward (-> graph._engine_run_backward from 2.3)
BACKWARD_CALL = {
    "1.13": [
        ("torch/_tensor.py", 487, "backward", "torch.autograd.backward("),
        ("torch/autograd/__init__.py", 197, "backward", "Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass"),
    ],
    "2.0": [
        ("torch/_tensor.py", 487, "backward", "torch.autograd.backward("),
        ("torch/autograd/__init__.py", 200, "backward", "Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass"),
    ],
    "2.1": [
        ("torch/_tensor.py", 492, "backward", "torch.autograd.backward("),
        ("torch/autograd/__init__.py", 251, "backward", "Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass"),
    ],
    "2.2": [
        ("torch/_tensor.py", 522, "backward", "torch.autograd.backward("),
        ("torch/autograd/__init__.py", 266, "backward", "_engine_run_backward("),
    ],
    "2.3": [
        ("torch/_tensor.py", 525, "backward", "torch.autograd.backward("),
        ("torch/autograd/__init__.py", 267, "backward", "_engine_run_backward("),
        ("torch/autograd/graph.py", 744, "_engine_run_backward", "return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass"),
    ],
    "2.4": [
        ("torch/_tensor.py", 521, "backward", "torch.autograd.backward("),
        ("torch/autograd/__init__.py", 289, "backward", "_engine_run_backward("),
        ("torch/autograd/graph.py", 768, "_engine_run_backward", "return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass"),
    ],
}


def backward_call_frames(site: str, torch_version: str) -> list[str]:
    """The frames `loss.backward()` adds to a traceback down to the C++ engine, in that torch minor version."""
    out = []
    for rel, line, fn, src in BACKWARD_CALL[torch_version]:
        out += [f'  File "{site}/{rel}", line {line}, in {fn}', f"    {src}"]
    return out
