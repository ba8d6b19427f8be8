"""MPI launchers: Open MPI's mpirun refusing root or failing to start its remote daemons, and an Open MPI program
started by srun with no PMIx server."""

from __future__ import annotations

from service.facts.rules.base import Rule

RULES: tuple[Rule, ...] = (
    Rule(
        "mpirun-run-as-root",
        "mpirun-run-as-root",
        (
            # Open MPI 4.x orterun (libopen-rte.so.40 of 4.1.4): "mpirun has detected an attempt to run as root."
            # Open MPI 5.x PRRTE (libprrte.so.3 of 5.0.11), even when started as mpirun: "prterun has detected an attempt to run as root."
            r"\b(?:mpirun|mpiexec|orterun|prterun|prte|oshrun) has detected an attempt to run as root\b",
            # 4.x's next lines, for a log that lost the first one: "You can override this protection by adding the
            # --allow-run-as-root option" / "the variable OMPI_ALLOW_RUN_AS_ROOT=1 to indicate the desire to override this"
            r"the variable OMPI_ALLOW_RUN_AS_ROOT=1 to indicate the desire to override this",
        ),
        0.95,
    ),
    Rule(
        "mpi-srun-without-pmix",
        "mpi-srun-without-pmix",
        (
            # Open MPI help-ess-base.txt [slurm-error]/[slurm-error2] (4.1.4; the same text in PRRTE 5.0.11):
            # 'The application appears to have been direct launched using "srun",'
            r'The application appears to have been direct launched using "srun"',
            # the second line, when a task prefix or interleaving split the first from the log
            r"but OMPI was not built with SLURM(?:'s PMI)? support",
        ),
        0.93,
    ),
    Rule(
        "mpirun-remote-daemon-launch-failed",
        "mpirun-remote-daemon-launch-failed",
        (
            # help-errmgr-base.txt [failed-daemon-launch]: "ORTE was unable to reliably start one or more daemons." (4.1.4);
            # "%s was unable to reliably start one or more daemons." with the launcher's name (PRRTE of 5.0.11)
            r"\b\w+ was unable to reliably start one or more daemons\.",
        ),
        0.92,
    ),
)
