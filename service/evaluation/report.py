"""The eval report: text for a person, markdown for the README/PR, JSON for scripts."""

from __future__ import annotations

import json
from typing import Any


def _pct(x: float) -> str:
    return f"{x * 100:5.1f}%"


def to_json(summary: dict[str, Any]) -> str:
    return json.dumps(summary, indent=2) + "\n"


def to_text(s: dict[str, Any], *, markdown: bool = False) -> str:
    h = (lambda t: f"\n### {t}\n") if markdown else (lambda t: f"\n{t}\n" + "-" * len(t))
    out: list[str] = []
    out.append(("## " if markdown else "") + f"crashdoc eval: {s['n']} cases")
    out.append(f"top-1 {_pct(s['top1'])}   top-3 {_pct(s['top3'])}   MRR {s['mrr']:.3f}   unknown {_pct(s['unknown_rate'])}")
    out.append(h("By retrieval source (each alone, reciprocal-rank fusion, the fused ranking)"))
    splits = list(s.get("by_split_source", {}))
    tables = [("all", s["by_source"])] + ([(k, s["by_split_source"][k]) for k in splits] if len(splits) > 1 else [])
    out.append(f"{'source':<10}" + "".join(f" {name + ' top-1':>15} {'top-3':>7} {'MRR':>6}" for name, _ in tables))
    for source in s["by_source"]:
        cells = [(t[source]["top1"], t[source]["top3"], t[source]["mrr"]) for _, t in tables]
        out.append(f"{source:<10}" + "".join(f" {_pct(a):>15} {_pct(b):>7} {c:6.3f}" for a, b, c in cells))
    for title, key in (("By directory", "by_split"), ("By difficulty", "by_difficulty"), ("By category", "by_category")):
        out.append(h(title))
        for name, m in s[key].items():
            out.append(f"{name:<14} n={m['n']:<4} top-1 {_pct(m['top1'])}  top-3 {_pct(m['top3'])}  MRR {m['mrr']:.3f}")
    out.append(h("Initiating rank"))
    ir = s["initiating_rank"]
    out.append(f"{ir['n']} cases with ranks: {_pct(ir['accuracy'])} named the right rank")
    out.append(h("Facts"))
    f = s["facts"]
    out.append(f"precision {_pct(f['precision'])}   recall {_pct(f['recall'])}   ({f['expected']} expected facts)")
    weak = [(k, v) for k, v in f["per_fact"].items() if v["correct"] < v["expected"]]
    for k, v in sorted(weak, key=lambda kv: kv[1]["correct"] - kv[1]["expected"])[:8]:
        out.append(f"  {k:<24} {v['correct']}/{v['expected']} right ({v['extracted']} extracted)")
    cal = s["calibration"]
    out.append(h("Calibration (confidence of the top candidate vs how often it is right)"))
    for title, part in (("shipped model (in sample when fitted on these cases)", cal),
                        (f"{cal['cross_validated']['folds']}-fold cross-validated (out of sample)", cal["cross_validated"])):
        out.append(f"  {title}: expected calibration error {part['ece']:.3f}")
        for row in part["table"]:
            if row["n"]:
                out.append(f"    [{row['lo']:.1f}, {row['hi']:.1f})  n={row['n']:<4} mean confidence {row['mean_confidence']:.2f}"
                           f"  right {row['accuracy']:.2f}")
    out.append(f"  answered {cal['answered']}, right {_pct(cal['answered_accuracy'])} of them; declined (unknown) {cal['declined']},"
               f" of which the top candidate was wrong in {cal['declined_top_wrong']}")
    out.append("  an unknown threshold at t would answer (share of cases, how often right):")
    out.append("    " + "   ".join(f"t={row['threshold']:.2f}: {_pct(row['answered']).strip()}, {_pct(row['accuracy']).strip()}" for row in cal["selective"]))
    by_kind = cal["cross_validated"].get("by_kind") or {}
    for kind, table in by_kind.items():
        out.append(f"  cross-validated, {kind.replace('_', '-')} cases only:")
        for row in table:
            if row["n"]:
                out.append(f"    [{row['lo']:.1f}, {row['hi']:.1f})  n={row['n']:<4} mean confidence {row['mean_confidence']:.2f}"
                           f"  right {row['accuracy']:.2f}")
    sel = s.get("selective")
    if sel:
        u = sel["unknown"]
        out.append(h("Selective accuracy (in-catalogue and out-of-catalogue cases together)"))
        out.append(f"  answers given (an entry named): {sel['answered']}, right {_pct(sel['answered_right']).strip()}; "
                   f"confident (>= 0.8): {sel['confident']}, right {_pct(sel['confident_right']).strip()}")
        ic = sel["in_catalogue"]
        out.append(f"  in-catalogue: {ic['n']} cases, answered {_pct(ic['answered']).strip()}, right {_pct(ic['right']).strip()}")
        out.append(f"  out-of-catalogue: {u['n']} cases, answered \"unknown\" {_pct(u['answered_unknown']).strip()} "
                   f"(acceptable {_pct(u['acceptable']).strip()}), answered wrongly with confidence >= 0.8: {u['confident_answers']} "
                   f"(and {u.get('confident_acceptable', 0)} with an acceptable entry), "
                   f"decisive line named {_pct(u['decisive_named']).strip()}")
        for a in u["answered"][:12]:
            out.append(f"    {a['case']} [{a['kind']}]: answered {a['predicted']} ({a['confidence']:.2f})"
                       f"{' (acceptable)' if a['acceptable'] else ''}; decisive {a['decisive']}")
    out.append(h("Latency per stage (ms)"))
    for stage, m in s["latency_ms"].items():
        out.append(f"  {stage:<10} p50 {m['p50']:8.1f}   p95 {m['p95']:8.1f}")
    out.append(h("Masking on the cases"))
    out.append(f"  {len(s['leaks'])} planted secret(s) leaked" + (": " + ", ".join(leak["case"] for leak in s["leaks"]) if s["leaks"] else ""))
    if "chat" in s:
        c = s["chat"]
        out.append(h("Chat eval"))
        out.append(f"  {c['n']} questions: {_pct(c['pass_rate'])} answered with every must-mention term")
        for f in c["failing"][:12]:
            out.append(f"  FAIL {f['case']}: {f['question']!r} missing {f.get('missing')} (intent {f.get('intent')})")
    if "injection" in s:
        inj = s["injection"]
        out.append(h("Injection eval (an obedient model; planted instructions)"))
        out.append(f"  {inj['n']} cases: {inj['moved']} diagnoses moved, {inj['harmful']} with a planted link or command in the"
                   f" answer, page or chat; benign answers used {inj['benign']['accepted']} of {inj['benign']['n']}")
        for tactic, row in inj["by_tactic"].items():
            out.append(f"  {tactic:<24} {row['n']:>3} cases   moved {row['moved']}   harmful {row['harmful']}")
        for f in inj["failing"][:12]:
            out.append(f"  FAIL {f['tactic']} on {f['case']}: {f}")
    if s["confusions"]:
        out.append(h("Most confused (expected -> predicted)"))
        for c in s["confusions"]:
            out.append(f"  {c['count']} x  {c['expected']} -> {c['predicted']}")
    if s["failing"]:
        out.append(h(f"Failing cases ({len(s['failing'])})"))
        for r in s["failing"]:
            out.append(f"  {r['case']} [{r['difficulty']}]: expected {r['expected']}, got {r['predicted']} ({r['confidence']:.2f}); top-3 {r['top3']}")
            for e in r["evidence"][:2]:
                out.append(f"      {e}")
    if s["errors"]:
        out.append(h("Errors"))
        out += [f"  {e['case']}: {e['error']}" for e in s["errors"]]
    return "\n".join(out) + "\n"
