"""Infrastructure: file descriptors, full disks, the scheduler, signals from outside the process."""

from __future__ import annotations

from service.facts.rules.base import Boost, Rule
from service.facts.rules.memory import OOM_KILLER, SCHEDULER_KILL, SIGKILLED

# a full /dev/shm, the DataLoader's shared memory or NCCL's, is the shm entries' and not a full disk:
# "unable to write to file </torch_1234_567_0>: No space left on device (28)" | "posix_fallocate failed"
_SHM_WRITE = r"/dev/shm|</torch_|posix_fallocate"

RULES: tuple[Rule, ...] = (
    Rule(
        "too-many-open-files",
        "too-many-open-files",
        (
            # "OSError: [Errno 24] Too many open files: '/data/shards/part-01234.parquet'"
            r"\[Errno 24\] Too many open files|Too many open files",
            # DataLoader with the file_descriptor sharing strategy: "RuntimeError: received 0 items of ancdata"
            r"received 0 items of ancdata",
        ),
        0.9,
    ),
    Rule(
        "disk-full",
        "disk-full",
        (
            # "OSError: [Errno 28] No space left on device: '/checkpoints/step_1200/pytorch_model.bin'" (not /dev/shm: see the shm entries)
            r"\[Errno 28\] No space left on device",
            # torch.save on a full disk: "RuntimeError: [enforce fail at inline_container.cc:595] . unexpected pos 1493571328 vs 1493571216";
            # "PytorchStreamWriter failed writing file data/123: file write failed"
            r"unexpected pos \d+ vs \d+|PytorchStreamWriter failed writing file",
            # quotas: "OSError: [Errno 122] Disk quota exceeded"
            r"\[Errno 122\] Disk quota exceeded",
        ),
        0.88,
        boosts=(
            Boost(-0.4, "the full device is /dev/shm (see the shm and NCCL entries)", line=r"/dev/shm/|posix_fallocate failed|unable to write to file </torch_"),
        ),
        not_with=(_SHM_WRITE,),
    ),
    Rule(
        "no-space-left",
        "disk-full",
        # without the errno: "tar: ...: Cannot write: No space left on device" (tar, git, pip, the kernel); not /dev/shm
        # ("unable to write to file </torch_1234_567_0>: No space left on device (28)" is the DataLoader's shared memory)
        (r"No space left on device",),
        0.6,
        not_with=(_SHM_WRITE,),
        boosts=(
            Boost(-0.4, "the full device is /dev/shm (see the shm and NCCL entries)", line=r"/dev/shm/|posix_fallocate failed|unable to write to file </torch_"),
        ),
    ),
    Rule(
        "slurm-time-limit",
        "slurm-time-limit",
        (
            # Slurm: "slurmstepd: error: *** JOB 123456 ON gpu-01 CANCELLED AT 2024-05-01T10:00:00 DUE TO TIME LIMIT ***"
            # (not "DUE TO NODE FAILURE": a node or GPU fault, which the entry names as a look-alike, not itself)
            r"CANCELLED AT \S+ DUE TO (?:TIME LIMIT|PREEMPTION)",
            # LSF: "TERM_RUNLIMIT: job killed after reaching LSF run time limit."; PBS: "PBS: job killed: walltime 86410 exceeded limit 86400"
            r"TERM_RUNLIMIT: job killed after reaching LSF run time limit|PBS: job killed: walltime \d+ exceeded limit",
        ),
        0.95,
    ),
    Rule(
        "slurm-cancelled",
        "slurm-time-limit",
        (
            # scancel or the scheduler without a reason: "slurmstepd: error: *** STEP 4242.0 ON gpu-01 CANCELLED AT 2024-05-01T10:00:00 ***"
            r"\*\*\* (?:JOB|STEP) [\d.]+ ON \S+ CANCELLED AT",
            # "srun: Job step aborted: Waiting up to 32 seconds for job step to finish."; "srun: error: Timed out waiting for job step to complete"
            r"Job step aborted: Waiting up to \d+ seconds for job step to finish",
        ),
        0.55,
        consequence=True,
        # "... CANCELLED AT 2026-11-30T01:19:33 DUE TO NODE FAILURE ***": the scheduler gave a reason that is not this entry's
        not_with=(r"DUE TO NODE FAILURE",),
        boosts=(
            # srun --kill-on-bad-exit cancels the step because a task failed first
            Boost(-0.3, "a task had already exited with an error (srun --kill-on-bad-exit cancels the rest)",
                  line=r"failed \(exitcode: [1-9]\d*\) local_rank|task \d+: Exited with exit code [1-9]|exits with return code = [1-9]"),
        ),
    ),
    Rule(
        "sighup",
        "sighup-session-hangup",
        (
            # torchrun: "torch.distributed.elastic.multiprocessing.api: [WARNING] Received 1 death signal, shutting down workers"
            r"Received 1 death signal, shutting down workers",
            # torchrun: "torch.distributed.elastic.multiprocessing.api.SignalException: Process 1234 got signal: 1"
            r"SignalException: Process \d+ got signal: 1\b",
            # torch >= 2.2 "Received Signals.SIGHUP death signal"; the summary "exitcode  : -1 (pid: 1234)"/"Signal 1 (SIGHUP) received by PID";
            # "Received SIGHUP"; the shell: "Hangup" (a foreground job killed by SIGHUP). Not torchrun's config print
            # "signals_to_handle : SIGTERM,SIGINT,SIGHUP,SIGQUIT".
            r"Received Signals\.SIGHUP death signal|Signal 1 \(SIGHUP\) received|exitcode\s*:\s*-1 \(pid|Received SIGHUP|^\s*Hangup\s*$",
        ),
        0.9,
    ),
    Rule(
        "sigkill",
        "process-killed-sigkill",
        # torchrun "exitcode  : -9", "Signal 9 (SIGKILL) received by PID 1234"; bash "Killed"; "exit code 137"
        (SIGKILLED,),
        0.55,
        consequence=True,
        unless=(OOM_KILLER, SCHEDULER_KILL),
        boosts=(
            Boost(-0.25, "a DataLoader worker, not a rank, was killed", line=r"DataLoader worker \(pid \d+\) is killed by signal: Killed"),
        ),
    ),
    Rule(
        "k8s-liveness-kill",
        "process-killed-sigkill",
        # kubelet: "Container trainer failed liveness probe, will be restarted" (SIGTERM, then SIGKILL after the grace period);
        # "Liveness probe failed:"
        (r"failed liveness probe, will be restarted|Liveness probe failed",),
        0.8,
        unless=(OOM_KILLER,),
    ),
)
