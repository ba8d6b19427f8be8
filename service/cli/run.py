"""``crashdoc run [--] COMMAND...``: run a training command; on failure, diagnose what it printed."""

from __future__ import annotations

import argparse
import signal
import sys
import time
from pathlib import Path

from service.cli.inputs import progress
from service.cli.output import add_output_args, emit

EPILOG = """\
The command's output goes through unchanged; a bounded copy (its first MB and its last --tail-mb MB) and the
files torchrun writes with --log-dir are kept in the capture folder. When the command exits non-zero, what it
printed is masked and diagnosed here (or sent to --server), and the diagnosis printed on stderr (-o FILE to
keep it). When it prints nothing for --hang-after seconds, every rank's Python stack is recorded (py-spy, when
installed: pip install 'crashdoc[hang]'), a Flight Recorder dump is asked for when the run turned it on
(TORCH_FR_BUFFER_SIZE), and the rank that looks stuck is named; the run is not stopped.

Exit code: the command's (128 + N when it was killed by signal N); 2 when crashdoc itself could not start it.
Ctrl-C and SIGTERM are passed on to the command's whole process group.

  crashdoc run -- torchrun --nproc-per-node 8 --log-dir logs --tee 3 train.py
  crashdoc run --hang-after 120 -o diagnosis.md --format markdown -- python train.py
"""


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("run", help="run a training command and diagnose it when it fails or hangs",
                       description="Run COMMAND, pass its output through, and diagnose it when it fails.",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("command", nargs=argparse.REMAINDER, metavar="COMMAND", help="the command and its arguments (after --)")
    p.add_argument("--hang-after", type=float, default=300.0, metavar="SECONDS",
                   help="no output for this long counts as a hang (default 300; 0: never)")
    p.add_argument("--capture-dir", metavar="DIR", help="where the copy, stacks and dumps go (default: the data dir's runs/)")
    p.add_argument("--tail-mb", type=float, default=16.0, help="MB of the end of the output kept (default 16)")
    p.add_argument("--collect", action="append", default=[], metavar="PATH",
                   help="another file or folder of the run to diagnose with the output (repeatable)")
    p.add_argument("--server", metavar="URL", help="send the masked log to this crashdoc service instead of diagnosing here")
    p.add_argument("--no-store", action="store_true", help="do not keep the masked diagnosis in the local database")
    p.add_argument("--comment-key", default="crashdoc", metavar="KEY", help="the PR comment's marker in --format markdown")
    add_output_args(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from service.errors import BadRequest
    from service.runner import RunOptions
    from service.runner import run as run_command
    from service.settings import get_settings

    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        raise BadRequest("No command to run.", hint="Give it after --: crashdoc run -- torchrun ... train.py")
    settings = get_settings()
    folder = Path(args.capture_dir) if args.capture_dir else settings.data_dir / "runs" / time.strftime("%Y%m%d-%H%M%S")
    options = RunOptions(command=command, capture_dir=folder, hang_after_s=args.hang_after or None,
                         tail_bytes=int(args.tail_mb * (1 << 20)), collect=[Path(p) for p in args.collect])
    try:
        result = run_command(options, on_hang=lambda report: print(report.text(), end="", file=sys.stderr, flush=True))
    except (FileNotFoundError, PermissionError) as exc:
        raise BadRequest(f"Could not start {command[0]!r}: {exc.strerror}.", hint="Check the command and its PATH.") from exc
    if result.returncode == 0 or signal.SIGINT in result.forwarded:  # a person stopped it: nothing to explain
        return result.returncode
    files = result.sources()
    progress(f"crashdoc run: the command exited with {result.returncode}; diagnosing what it left "
             f"({len(files)} file(s) in {folder})…", args.quiet)
    d = _diagnose(args, settings, files)
    emit(d, args, stream=sys.stderr)
    return result.returncode


def _diagnose(args: argparse.Namespace, settings, files):  # type: ignore[no-untyped-def]
    """Here through diagnose(), or on --server (masked here first, only masked lines sent), as crashdoc diagnose does."""
    from service.cli.diagnose import on_server
    from service.pipeline import Engine, diagnose

    engine = Engine(settings, local=True)
    if args.server:
        return on_server(engine, files, args.server, args.quiet)
    return diagnose(engine, files, store=not args.no_store)
