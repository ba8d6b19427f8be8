"""Error lines: each classified as a cause candidate or as collateral, with why it is collateral.

``ERROR_PATTERNS`` is the registry, collateral first: a line that matches a collateral pattern is collateral even
if it also says "Error". Order matters.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class ErrorPattern:
    kind: str
    pattern: re.Pattern[str]
    collateral: bool
    why: str = ""


def _err(kind: str, pattern: str, collateral: bool = False, why: str = "") -> ErrorPattern:
    return ErrorPattern(kind, re.compile(pattern), collateral, why)


ERROR_PATTERNS: tuple[ErrorPattern, ...] = (
    # "[Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1021, OpType=ALLREDUCE, ...)";
    # gloo "Timed out waiting 1800000ms for recv operation to complete"; "Rank 1 failed to pass monitoredBarrier"
    _err("collective-timeout",
         r"Watchdog caught collective operation timeout|Some NCCL operations have failed or timed out|collective operation timeout|"
         r"ran for \d+ milliseconds before timing out|Timed out waiting \d+ms for (?:send|recv) operation|ProcessGroupGloo.*[Tt]imed out|"
         r"Timeout at NCCL work|Heartbeat monitor timed out|failed to pass monitoredBarrier|Application timeout caused pair closure",
         True, "a rank waiting in a collective times out when another rank stopped participating"),
    # gloo "RuntimeError: [../third_party/gloo/.../pair.cc:534] Connection closed by peer [10.0.0.2]:12345"; NCCL
    # "remote process exited or there was a network error"; c10d store "Connection reset by peer" / "Broken pipe"
    _err("peer-gone",
         r"Connection (?:reset|closed) by (?:remote )?peer|Broken pipe|NCCL communicator was aborted|\bSocket Timeout\b|"
         r"remote process exited or there was a network error|ECONNRESET|recv: Connection refused|peer has closed|"
         r"Connection refused\) \(|failed to recv, got 0 bytes|Failed to recv, got 0 bytes|Stop_waiting response is expected",
         True, "the connection broke because the peer process had already died"),
    # torchrun's agent saw a worker killed by a signal: "failed (exitcode: -9) local_rank: 5 (pid: 88535) of binary: ..." (SIGKILL,
    # SIGSEGV, SIGBUS, SIGILL, SIGFPE): the only trace of a kill that printed nothing itself
    _err("killed", r"failed \(exitcode: -(?:9|11|7|4|8)\) local_rank"),
    # torchrun "Sending process 1234 closing signal SIGTERM"; DeepSpeed "[launch.py:316:sigkill_handler] Killing subprocess 1234"
    _err("launcher-sigterm",
         r"closing signal SIG(?:TERM|HUP|INT)\b|Received SIGTERM|SignalException: Process \d+ got signal: 15|got signal: 15\b|"
         r"Signal 15 \(SIGTERM\)|exitcode\s*:\s*-15\b|Received (?:15|Signals\.SIGTERM) death signal|sigkill_handler\] Killing subprocess|"
         r"srun: (?:forcing job termination|error: .*: task \d+: Terminated)|(?:STEP|JOB) [\d.]+ ON \S+ CANCELLED AT (?!.*DUE TO)",
         True, "the launcher (or the scheduler, cancelled by hand) terminates the ranks that were still running"),
    # torchrun's summary: "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:", "failed (exitcode: 1) local_rank: 0";
    # DeepSpeed "[launch.py:322:sigkill_handler] [...] exits with return code = 1"; srun "srun: error: node-1: task 3: Exited with exit code 1",
    # and srun on the tasks that aborted once the job was torn down: "srun: error: hpc-g101: tasks 0-7: Aborted (core dumped)"
    _err("launcher-summary",
         r"ChildFailedError|failed \(exitcode: -?\d+\) local_rank|^\s*Root Cause \(first observed failure\)|^\s*Failures:|"
         r"subprocess\.CalledProcessError|exits with return code = |: tasks? [\d,-]+: Exited with exit code|"
         r"^srun: error: \S+: tasks? [\d,-]+: Aborted\b|"
         r"Worker group FAILED|FAILED with no error file|RayTaskError|TrainingFailedError",
         True, "the launcher's summary of a rank's exit, not a cause"),
    # Ctrl-C or the launcher's SIGINT: "KeyboardInterrupt" (a hang stopped by hand, not a failure of its own)
    _err("interrupt", r"^(?:[\w<>.-]+: )?(?:\[(?:rank|default)\d+\]:\s*)?KeyboardInterrupt\s*$|Received (?:2|Signals\.SIGINT) death signal", True,
         "the run was interrupted (by hand or by the launcher), usually to stop a hang"),
    # The watchdog ends because this rank's own GPU faulted (the fault is sticky to the process that caused it):
    # "[rank3]:[E ProcessGroupNCCL.cpp:1414] [PG 2 Rank 3] Process group watchdog thread terminated with exception: CUDA error:
    # an illegal memory access was encountered"
    _err("cuda-error", r"Process group watchdog thread terminated with exception: (?:CUDA error|CUDA out of memory|"
                       r"Triton Error \[CUDA\]|.{0,40}illegal memory access)"),
    # DeepSpeed "exception raised in another rank"; "ProcessGroupNCCL is aborting"; the watchdog's abort
    _err("aborted",
         r"exception raised in another rank|another rank (?:failed|exited)|ProcessGroupNCCL is aborting|Process group watchdog thread terminated|"
         r"To avoid data inconsistency, we are taking the entire process down|Aborting process group|ncclCommAbort|TCPStore.*(?:Broken|closed)|"
         r"DistNetworkError|terminate called after throwing an instance of 'c10::DistBackendError'|"
         r"Stopping worker group|Rendezvous .* closed|Rendezvous is closed",
         True, "teardown after another rank's failure"),
    # Cause candidates.
    _err("cuda-error", r"CUDA error|CUDA out of memory|OutOfMemoryError|CUBLAS_STATUS|CUDNN_STATUS|cudaError|device-side assert|illegal memory access|no kernel image"),
    # the survivor's view of a broken link: NET/IB completion errors, ncclRemoteError, socket timeouts towards a peer
    _err("network", r"NET/IB ?: Got completion|ncclRemoteError|socketProgress\w*: |Call to recv from \S+ failed|NET/Socket.*(?:reset|closed|timed out)"),
    _err("nccl-error", r"ncclUnhandledCudaError|ncclSystemError|ncclInternalError|ncclInvalidUsage|ncclRemoteError|NCCL error|NET/IB.*error|Duplicate GPU detected|NCCL WARN"),
    _err("killed", r"^(?!.*signals_to_handle)(?:.*(?:\bKilled\b|exitcode\s*:\s*-9\b|Signal 9 \(SIGKILL\)|oom-kill|Out of memory: Killed process|"
                   r"OOMKilled|exit code 137|SIGKILL))"),
    # (not torchrun's own config print "signals_to_handle : SIGTERM,SIGINT,SIGHUP,SIGQUIT")
    _err("signal", r"^(?!.*signals_to_handle)(?:.*(?:Signal \d+ \(SIG\w+\) received|Fatal Python error|Segmentation fault|SIGSEGV|SIGBUS|Bus error|"
                   r"core dumped|SIGHUP|death signal|exitcode\s*:\s*-\d+\b))"),
    # dmesg "NVRM: Xid (PCI:0000:3b:00): 79, ..."; nvidia-smi afterwards "Unable to determine the device handle for GPU0000:00:1D.0: GPU is lost"
    _err("hardware", r"NVRM: Xid|fallen off the bus|uncorrectable ECC|ECC error|GPU is lost|Unable to determine the device handle"),
    # C++ aborts: "terminate called after throwing an instance of 'gloo::EnforceNotMet'" / "[enforce fail at pair.cc:456] ..."
    _err("abort", r"terminate called after throwing an instance of|\[enforce fail at |Assertion `.*' failed\.$"),
    # Open MPI's fatal error handler (errhandler_predefined.c and help-mpi-errors.txt, read in libmpi 4.1.4 and 5.0.11):
    # before MPI_Init completes, unprefixed "*** An error occurred in MPI_Init"; after it, with the process's host and pid,
    # "[gpu-a017:81234] *** An error occurred in MPI_Allreduce" (its rank follows: "*** reported by process [3415277569,1]")
    _err("mpi-error", r"\*\*\* An error occurred in MPI_\w+"),
    # argparse: "run_summarization.py: error: unrecognized arguments: --lr_sheduler_type cosine"
    _err("usage", r"^(?:\S+: )?\S+\.py: error: "),
    _err("scheduler", r"CANCELLED AT .* DUE TO|DUE TO TIME LIMIT|DUE TO PREEMPTION|JOB \d+ ON \S+ CANCELLED"),
    # A Python exception line: "RuntimeError: ...", "torch.OutOfMemoryError: ...", "ValueError: ..." (the line that ends
    # a traceback; the header and `raise` frames are not events)
    _err("exception", r"^(?:\[?[\w<>.:, -]*\]?(?:<std\w+>)?:? ?)?(?:[a-z_][\w.]*\.)?[A-Z]\w*(?:Error|Exception|Interrupt)\b(?::|$)"),
)
_CHEAP = re.compile(r"KeyboardInterrupt|[Ee]rror|terminate called|GPU is lost|device handle|enforce fail|NET/|socketProgress|Call to recv|[Ee]xception|Interrupt|[Kk]ill|[Ss]ignal|SIG|[Tt]imed? ?out|[Ff]ail|peer|Broken|CANCELLED|Xid|NCCL WARN|"
                    r"ECC|fault|core dumped|Bus error|exitcode|return code|exit code|abort|Abort|closing signal|OOM|Out of memory")

def classify(text: str) -> ErrorPattern | None:
    if not _CHEAP.search(text):
        return None
    for ep in ERROR_PATTERNS:
        if ep.pattern.search(text):
            return ep
    return None


@dataclass(frozen=True)
class Explains:
    """A cause on one rank that explains an error on others: the effect becomes collateral, with why."""

    cause: re.Pattern[str]
    effect: re.Pattern[str]
    why: str


# Errors that explain others, listed once; an effect is collateral only when a cause line is present elsewhere.
EXPLAINS: tuple[Explains, ...] = (
    # one rank JIT-builds an op and fails: "RuntimeError: Error building extension 'cpu_adam'"; the ranks that waited for
    # the build then cannot load it: "ImportError: .../torch_extensions/py312_cu124/cpu_adam/cpu_adam.so: cannot open shared
    # object file: No such file or directory"
    Explains(re.compile(r"Error building extension '(?P<op>\w+)'"),
             re.compile(r"/(?P<op>\w+)\.so: cannot open shared object file"),
             "the rank that built this op failed to build it, so the others found no library to load"),
    # DeepSpeed's optimizer destructor after a failed op build: "AttributeError: 'DeepSpeedCPUAdam' object has no attribute
    # 'ds_opt_adam'" (from "Exception ignored in: <function DeepSpeedCPUAdam.__del__ ...>")
    Explains(re.compile(r"Error building extension '(?:cpu_adam|fused_adam|cpu_adagrad|cpu_lion)'|cpu_adam\.so: cannot open shared object file"),
             re.compile(r"object has no attribute 'ds_opt_(?:adam|adagrad|lion)'"),
             "the optimizer's destructor runs after its op failed to load: a consequence, not a cause"),
)

