"""``crashdoc eval``: run the pipeline on every labelled case and report, or gate CI on the figures."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from service.errors import InputError
from service.settings import REPO_ROOT


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("eval", help="score the pipeline on the labelled eval cases")
    p.add_argument(
        "--cases", type=Path, action="append",
        help="a directory of cases; repeat for several (default: evals/cases, evals/reworded and the out-of-catalogue "
             "evals/unknown, reported per directory)",
    )
    p.add_argument("--format", choices=("text", "json", "markdown"), default="text")
    p.add_argument("--gate", action="store_true", help="exit 1 when the figures fall under evals/thresholds.yaml")
    p.add_argument("--thresholds", type=Path, default=REPO_ROOT / "evals" / "thresholds.yaml")
    p.add_argument("--calibrate", action="store_true", help="fit the confidence model on these cases and save it (service/compose/calibration.json)")
    p.add_argument("--output", type=Path, help="also write the JSON report to this file")
    p.add_argument("--only", help="run only cases whose id contains this text")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from service.compose import calibration
    from service.evaluation import gate, metrics, report
    from service.evaluation.cases import load_cases
    from service.evaluation.chat_eval import run_chat_eval
    from service.evaluation.runner import run_all, summarise
    from service.pipeline import Engine
    from service.settings import get_settings

    engine = Engine(get_settings())
    dirs: list[Path] = args.cases or [REPO_ROOT / "evals" / d for d in ("cases", "reworded", "unknown")
                                      if (REPO_ROOT / "evals" / d).is_dir()]
    if len({d.name for d in dirs}) < len(dirs):
        raise InputError("Each --cases directory needs its own name: the report groups cases by it.")
    cases = [c for d in dirs for c in load_cases(d, set(engine.kb.entries))]
    if args.only:
        cases = [c for c in cases if args.only in c.id]
    t0 = time.perf_counter()
    engine.warm()

    def progress(i: int, n: int) -> None:
        if sys.stderr.isatty() and (i % 10 == 0 or i == n):
            print(f"\rcrashdoc eval: {i}/{n} cases", end="" if i < n else "\n", file=sys.stderr, flush=True)

    results = run_all(engine, cases, progress)
    if args.calibrate:
        # Whether the top candidate was right, against what the retrieval stage knew about it.
        rows = [calibration.vector(r.features) for r in results]
        weights, bias = metrics.fit_logistic(rows, [r.top_right for r in results])
        table = {"kind": "logistic", "features": list(calibration.FEATURES), "weights": weights, "bias": bias,
                 "fitted_on": len(rows), "splits": sorted({r.split for r in results})}
        calibration.TABLE_PATH.write_text(json.dumps(table, indent=1) + "\n")
        print(f"crashdoc: confidence model fitted on {len(rows)} cases -> {calibration.TABLE_PATH}; "
              "run the eval again to report with it", file=sys.stderr)
    summary = summarise(results)
    summary["seconds"] = round(time.perf_counter() - t0, 1)
    summary["chat"] = run_chat_eval(engine, dirs[0].parent / "chat.yaml")
    from service.evaluation.injection import run_injection_eval

    summary["injection"] = run_injection_eval(engine, REPO_ROOT / "evals" / "injection.yaml", REPO_ROOT / "evals" / "cases")
    if args.output:
        args.output.write_text(report.to_json(summary))
    if args.format == "json":
        sys.stdout.write(report.to_json(summary))
    else:
        sys.stdout.write(report.to_text(summary, markdown=args.format == "markdown"))
    if args.gate:
        failures = gate.check(summary, args.thresholds)
        for f in failures:
            print(f"crashdoc eval: GATE FAILED: {f}", file=sys.stderr)
        if failures:
            return 1
        unk = summary["selective"]["unknown"]
        print(f"crashdoc eval: gate passed ({summary['n']} cases, top-1 {summary['top1']:.3f}, top-3 {summary['top3']:.3f}; "
              f"{unk['n']} unknown cases, {unk['answered_unknown']:.3f} answered unknown, {unk['confident_answers']} confident)",
              file=sys.stderr)
    return 0
