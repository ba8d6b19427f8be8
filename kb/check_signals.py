"""Check every kb/ signal fragment against the released artifacts of the libraries its entry names.

A maintainers' tool, not part of the test run: it downloads wheels and sdists with pip (into a cache
outside the repo) at development time, reads each one once, streamed, for all the fragments that name
its library, and writes kb/signals-report.md. With --write-seen-in it also records, in each entry's
front matter, the releases where each fragment was found (`signals.seen_in`).

    python kb/check_signals.py --plan               # what it would read, and what pip would download
    python kb/check_signals.py                      # all entries; cache in ~/.cache/crashdoc-signals
    python kb/check_signals.py --only nccl-invalid-usage --cache /tmp/wheels
    python kb/check_signals.py --write-seen-in

Where a local pip constraint or index caps a library below its newest release, run it with
`env -u PIP_FIND_LINKS PIP_CONFIG_FILE=/dev/null`. `pip install 'crashdoc[signals]'` (pyahocorasick)
makes the pass over torch's shared libraries minutes instead of an hour. The releases read are listed
once, in retrieval/signal_check.py (RELEASES). Exit 1 when a fragment is found in no release read and
its entry does not say what prints it (`signals.printed_by`).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from retrieval.kb import load_kb  # noqa: E402
from retrieval.signal_check import (  # noqa: E402
    UnreadableArtifact,
    check_entries,
    fragments_by_artifact,
    plan,
    render_report,
    scan_artifact,
    seen_in_of,
    write_seen_in,
)
from retrieval.signal_scan import have_aho_corasick  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kb", type=Path, default=REPO / "kb")
    ap.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "crashdoc-signals")
    ap.add_argument("--report", type=Path, default=REPO / "kb" / "signals-report.md")
    ap.add_argument("--only", action="append", help="an entry id; repeat for several")
    ap.add_argument("--plan", action="store_true", help="list the artifacts it would read and download nothing")
    ap.add_argument("--write-seen-in", action="store_true", help="record seen_in in the entries' front matter")
    args = ap.parse_args(argv)

    kb = load_kb(args.kb)
    ids = args.only or sorted(kb.entries)
    wanted = fragments_by_artifact(kb, ids)
    if args.plan:
        print("\n".join(plan(wanted, args.cache)))
        return 0
    if not have_aho_corasick():
        print("pyahocorasick is not installed: one str.find sweep per probe (slow over torch)", file=sys.stderr)
    found_of: dict[str, set[str]] = {}
    unreadable: dict[str, str] = {}
    for artifact, fragments in wanted.items():
        began = time.monotonic()
        print(f"reading {artifact.label} for {len(fragments)} fragments ...", file=sys.stderr, flush=True)
        try:
            found_of[artifact.label] = scan_artifact(artifact, fragments, args.cache)
        except UnreadableArtifact as exc:
            unreadable[artifact.label] = str(exc)
            print(f"  could not read it: {exc}", file=sys.stderr, flush=True)
            continue
        print(f"  {len(found_of[artifact.label])} found, {time.monotonic() - began:.0f} s", file=sys.stderr, flush=True)
    results = check_entries(kb, found_of, ids)
    args.report.write_text(render_report(results, kb, unreadable), encoding="utf-8")
    if args.write_seen_in:
        write_seen_in(args.kb, seen_in_of(results))
    unexplained = sum(
        1
        for r in results
        for f in r.fragments
        if f.checked and not f.found_in and f.fragment not in kb.entries[r.entry_id].meta.signals.printed_by
    )
    print(f"wrote {args.report}; {unexplained} fragments found in no release read and not explained;"
          f" {len(unreadable)} artifacts could not be read", file=sys.stderr)
    return 1 if unexplained or unreadable else 0


if __name__ == "__main__":
    raise SystemExit(main())
