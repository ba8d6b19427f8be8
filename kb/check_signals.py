"""Check every kb/ signal fragment against the released artifacts of the libraries its entry names.

A maintainers' tool, not part of the test run: it downloads wheels and sdists with pip (into a cache
outside the repo) at development time, reads them, and writes kb/signals-report.md. With
--write-seen-in it also records, in each entry's front matter, the releases where each fragment was
found (`signals.seen_in`).

    python kb/check_signals.py                      # all entries; cache in ~/.cache/crashdoc-signals
    python kb/check_signals.py --only nccl-invalid-usage --cache /tmp/wheels
    python kb/check_signals.py --write-seen-in

Where a local pip constraint caps a library below its newest release, run it with
PIP_CONFIG_FILE=/dev/null. The releases read are listed once, in retrieval/signal_check.py (RELEASES).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from retrieval.kb import load_kb  # noqa: E402
from retrieval.signal_check import (  # noqa: E402
    RELEASES,
    Haystack,
    check_entries,
    library_of,
    load_haystack,
    releases_for,
    render_report,
    seen_in_of,
    write_seen_in,
)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kb", type=Path, default=REPO / "kb")
    ap.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "crashdoc-signals")
    ap.add_argument("--report", type=Path, default=REPO / "kb" / "signals-report.md")
    ap.add_argument("--only", action="append", help="an entry id; repeat for several")
    ap.add_argument("--write-seen-in", action="store_true", help="record seen_in in the entries' front matter")
    args = ap.parse_args(argv)

    kb = load_kb(args.kb)
    ids = args.only or sorted(kb.entries)
    needed = {
        a
        for eid in ids
        for sw in kb.entries[eid].meta.affected.software
        if (lib := library_of(sw.name))
        for a in releases_for(sw.versions, lib)
    }
    haystacks: dict[str, Haystack] = {}
    for lib_releases in RELEASES.values():
        for artifact in lib_releases:
            if artifact in needed:
                print(f"reading {artifact.label} ...", file=sys.stderr, flush=True)
                haystacks[artifact.label] = load_haystack(artifact, args.cache)
    results = check_entries(kb, haystacks, ids)
    args.report.write_text(render_report(results, kb), encoding="utf-8")
    if args.write_seen_in:
        write_seen_in(args.kb, seen_in_of(results))
    unexplained = sum(
        1
        for r in results
        for f in r.fragments
        if f.checked and not f.found_in and f.fragment not in kb.entries[r.entry_id].meta.signals.printed_by
    )
    print(f"wrote {args.report}; {unexplained} fragments found in no release read and not explained", file=sys.stderr)
    return 1 if unexplained else 0


if __name__ == "__main__":
    raise SystemExit(main())
