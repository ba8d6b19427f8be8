"""Run the blind masking corpus through `crashdoc mask FILE` and report.

Usage: python3 run.py [--seeds 0-4] [--mode auto|case|batch] [--jobs N]

leak      : a 6-char window of a secret (the whole secret if shorter) occurs in
            the masked output more often than in the input with every secret
            removed (so windows that also occur in ordinary text do not count).
            Windows lying wholly inside a public vendor prefix / constant DER
            header (hf_, sk-ant-api03-, MIIEpAIBAAKCAQEA, ...) are ignored.
leak8     : same with 8-char windows.
full      : the whole secret survives.
damaged   : a keep token occurs fewer times in the output than in the input.
nm_changed: a near-miss line (keep = the whole line) is not in the output unchanged.
"""
import argparse
import collections
import concurrent.futures as cf
import hashlib
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import corpus  # noqa: E402

CRASHDOC = os.environ.get("CRASHDOC", os.path.join(os.path.dirname(sys.executable), "crashdoc"))
PUBLIC_PREFIXES = [
    "hf_", "sk-proj-", "sk-ant-api03-", "sk-", "nvapi-", "ghp_", "ghs_", "github_pat_", "glpat-", "xoxb-", "xapp-1-",
    "sk_live_", "rk_live_", "pypi-AgEIcHlwaS5vcmcCJ", "npm_", "dapi", "SG.", "key-", "AKIA", "ASIA", "ya29.",
    "IQoJb3JpZ2luX2VjE", "local-", "https://hooks.slack.com/services/",
    "MIIEpAIBAAKCAQEA", "MHcCAQEEI", "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW",
    "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ", "MIIFHDBOBgkqhkiG9w0BBQ0wQTApBgkqhkiG9w0BBQwwHAQI",
    "LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQo", "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSURCVENDQWUyZ0F3SUJBZ0lJ",
    "ewogICJ0eXBlIjogInNlcnZpY2VfYWNjb3VudCIsCiAgInByb2plY3RfaWQiOiAi", "eyJ0eXBlIjogInNlcnZpY2VfYWNjb3VudCIsICJwcm9qZWN0X2lkIjogIm1sLW",
    "eyJhcGlfYWRkcmVzcyI6ICJodHRwczovL2FwcC5uZXB0dW5lLmFpIiwgImFwaV91cmwiOiAiaHR0cHM6Ly9hcHAubmVwdHVuZS5haSIsICJhcGlfa2V5IjogIi",
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.", "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.",
]
PUBLIC_SUFFIXES = [".internal"]
W = 6


def count(hay, needle):
    n, i = 0, hay.find(needle)
    while i != -1:
        n += 1
        i = hay.find(needle, i + 1)
    return n


def windows(secret, w):
    if len(secret) <= w:
        return [secret]
    lo = 0
    for p in PUBLIC_PREFIXES:
        if secret.startswith(p):
            lo = max(lo, len(p))
    hi = len(secret)
    for s in PUBLIC_SUFFIXES:
        if secret.endswith(s):
            hi = min(hi, len(secret) - len(s))
    out = []
    for i in range(len(secret) - w + 1):
        if i + w <= lo or i >= hi:
            continue
        out.append(secret[i:i + w])
    return out or [secret]


def evaluate(case, masked):
    orig = case["line"]
    base = orig
    for s in sorted(case["secrets"], key=len, reverse=True):
        base = base.replace(s, "\x00")
    res = {"secrets": [], "damaged": [], "nm_changed": False}
    for s in case["secrets"]:
        r = {"secret": s, "full": count(masked, s) > 0}
        for name, w in (("leak", W), ("leak8", 8)):
            surv = [x for x in windows(s, w) if count(masked, x) > count(base, x)]
            r[name] = bool(surv)
            if name == "leak":
                r["windows"] = surv[:5]
        res["secrets"].append(r)
    for k in case["keep"]:
        if count(masked, k) < count(orig, k):
            res["damaged"].append(k)
    if case["syntax"] == "near_miss" and res["damaged"]:
        res["nm_changed"] = True
    return res


def mask_file(path, timeout=300):
    t = time.time()
    env = dict(os.environ)
    deps = os.path.join(HERE, ".deps")  # google-re2, declared by crashdoc but missing from its venv
    if os.path.isdir(deps):
        env["PYTHONPATH"] = deps + os.pathsep + env.get("PYTHONPATH", "")
    p = subprocess.run([CRASHDOC, "mask", path], capture_output=True, text=True, timeout=timeout, env=env)
    return p.returncode, p.stdout, p.stderr, time.time() - t


def run_case(case):
    with tempfile.NamedTemporaryFile("w", suffix=".log", delete=False) as f:
        f.write(case["line"] + "\n")
        path = f.name
    try:
        return mask_file(path)
    finally:
        os.unlink(path)


SEP = "==== corpus separator {:05d} ===="


def run_batch(cs):
    """One file holding all cases, separated by marker lines; split the output back."""
    with tempfile.NamedTemporaryFile("w", suffix=".log", delete=False) as f:
        for i, c in enumerate(cs):
            f.write(SEP.format(i) + "\n" + c["line"] + "\n")
        f.write(SEP.format(len(cs)) + "\n")
        path = f.name
    try:
        rc, out, err, dt = mask_file(path, timeout=1800)
    finally:
        os.unlink(path)
    if rc != 0:
        return None, (rc, err)
    parts = []
    for i in range(len(cs)):
        a, b = SEP.format(i), SEP.format(i + 1)
        ia, ib = out.find(a), out.find(b)
        if ia == -1 or ib == -1:
            return None, (rc, f"separator {i} lost")
        parts.append(out[ia + len(a) + 1: ib])
    return parts, (rc, err)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", default="0-4")
    ap.add_argument("--mode", default="auto", choices=["auto", "case", "batch"])
    ap.add_argument("--jobs", type=int, default=max(2, os.cpu_count() or 2))
    ap.add_argument("--budget", type=float, default=1200, help="seconds allowed for per-case mode in auto")
    a = ap.parse_args()
    lo, _, hi = a.seeds.partition("-")
    seeds = list(range(int(lo), int(hi or lo) + 1))
    all_cases = [(s, i, c) for s in seeds for i, c in enumerate(corpus.cases(s))]
    digest = hashlib.sha256(open(os.path.join(HERE, "corpus.py"), "rb").read()).hexdigest()
    print(f"{len(all_cases)} cases, corpus.py sha256 {digest[:16]}", flush=True)

    mode = a.mode
    results = {}
    errors = []
    if mode in ("auto", "case"):
        rc, out, err, dt = run_case(all_cases[0][2])
        print(f"first call: rc={rc} {dt:.1f}s", flush=True)
        if rc != 0:
            print("crashdoc mask failed:\n" + err[-3000:], flush=True)
        est = dt * len(all_cases) / a.jobs
        if mode == "auto":
            mode = "case" if est <= a.budget else "batch"
        print(f"estimated per-case time {est:.0f}s -> mode {mode}", flush=True)
    if mode == "batch":
        for s in seeds:
            cs = [c for (ss, i, c) in all_cases if ss == s]
            parts, (rc, err) = run_batch(cs)
            if parts is None:
                errors.append(f"seed {s}: batch failed ({rc}): {err[-2000:]}")
                print(errors[-1], flush=True)
                continue
            for i, p in enumerate(parts):
                results[(s, i)] = (0, p, "")
            print(f"seed {s}: batch done", flush=True)
    else:
        with cf.ThreadPoolExecutor(a.jobs) as ex:
            futs = {ex.submit(run_case, c): (s, i) for (s, i, c) in all_cases}
            done = 0
            for f in cf.as_completed(futs):
                rc, out, err, dt = f.result()
                results[futs[f]] = (rc, out, err)
                done += 1
                if done % 100 == 0:
                    print(f"{done}/{len(all_cases)}", flush=True)
    report(all_cases, results, errors, mode, digest)


def report(all_cases, results, errors, mode, digest):
    by_kind = collections.defaultdict(collections.Counter)
    by_syn = collections.defaultdict(collections.Counter)
    leaks, damage, nms, failed = [], [], [], []
    tot = collections.Counter()
    for (s, i, c) in all_cases:
        if (s, i) not in results:
            failed.append((s, i, c, "not run"))
            continue
        rc, out, err = results[(s, i)]
        if rc != 0:
            failed.append((s, i, c, err[-300:]))
            continue
        r = evaluate(c, out)
        for K, key in ((by_kind, c["kind"]), (by_syn, c["syntax"])):
            K[key]["cases"] += 1
            K[key]["secrets"] += len(r["secrets"])
            K[key]["leak"] += sum(x["leak"] for x in r["secrets"])
            K[key]["leak8"] += sum(x["leak8"] for x in r["secrets"])
            K[key]["full"] += sum(x["full"] for x in r["secrets"])
            K[key]["keep"] += len(c["keep"]) if c["syntax"] != "near_miss" else 0
            K[key]["damaged"] += len(r["damaged"]) if c["syntax"] != "near_miss" else 0
            K[key]["near_miss"] += c["syntax"] == "near_miss"
            K[key]["nm_changed"] += r["nm_changed"]
        tot["cases"] += 1
        tot["secrets"] += len(r["secrets"])
        tot["leak"] += sum(x["leak"] for x in r["secrets"])
        tot["leak8"] += sum(x["leak8"] for x in r["secrets"])
        tot["full"] += sum(x["full"] for x in r["secrets"])
        if c["syntax"] != "near_miss":
            tot["keep"] += len(c["keep"])
            tot["damaged"] += len(r["damaged"])
        tot["near_miss"] += c["syntax"] == "near_miss"
        tot["nm_changed"] += r["nm_changed"]
        for x in r["secrets"]:
            if x["leak"]:
                leaks.append((s, i, c, x, out))
        if c["syntax"] != "near_miss" and r["damaged"]:
            damage.append((s, i, c, r["damaged"], out))
        if r["nm_changed"]:
            nms.append((s, i, c, out))

    def table(K, title):
        rows = [f"| {title} | cases | secrets | leaked (6) | leaked (8) | whole | keep | damaged | near-miss | nm changed |",
                "|---|---|---|---|---|---|---|---|---|---|"]
        for k in sorted(K, key=lambda k: (-K[k]["leak"], -K[k]["damaged"] - K[k]["nm_changed"], k)):
            v = K[k]
            rows.append(f"| {k} | {v['cases']} | {v['secrets']} | {v['leak']} | {v['leak8']} | {v['full']} | {v['keep']} | {v['damaged']} | {v['near_miss']} | {v['nm_changed']} |")
        return "\n".join(rows)

    def trunc(t, n=400):
        t = t.replace("\n", "⏎")
        return t if len(t) <= n else t[:n] + "…"

    def context(out, secret, windows):
        w = windows[0] if windows else secret[:6]
        j = out.find(w)
        if j == -1:
            return trunc(out, 300)
        ls = out.rfind("\n", 0, j) + 1
        le = out.find("\n", j)
        le = len(out) if le == -1 else le
        return trunc(out[ls:le], 300)

    summary = (f"cases {tot['cases']} (failed {len(failed)}), secrets {tot['secrets']}: leaked {tot['leak']} "
               f"(6-char windows), {tot['leak8']} (8-char), {tot['full']} whole; keep tokens {tot['keep']}: damaged {tot['damaged']}; "
               f"near misses {tot['near_miss']}: changed {tot['nm_changed']}")
    print(summary)
    print()
    print(table(by_syn, "syntax"))
    lines = ["# Blind masking corpus: results", "",
             f"corpus.py sha256 `{digest}`, seeds 0..4, mode `{mode}` (`crashdoc mask FILE`).", "",
             "## Summary", "", summary, ""]
    if errors or failed:
        lines += ["## Failures", ""] + [f"- {e}" for e in errors] + \
                 [f"- seed {s} case {i} {c['kind']}/{c['syntax']}: {trunc(e, 200)}" for s, i, c, e in failed[:20]] + [""]
    lines += ["## Leaks by form (syntax)", "", table(by_syn, "syntax"), "", "## By kind", "", table(by_kind, "kind"), ""]
    lines += ["## Leaked secrets (first 80; all values are fake)", ""]
    for s, i, c, x, out in leaks[:80]:
        lines.append(f"- seed {s} #{i} **{c['kind']} / {c['syntax']}**{' (whole)' if x['full'] else ''}: secret `{trunc(x['secret'], 80)}` "
                     f"surviving `{x['windows'][:3]}` in: `{context(out, x['secret'], x['windows'])}`")
    lines += ["", "## Damaged diagnostic tokens", ""]
    for s, i, c, d, out in damage[:60]:
        lines.append(f"- seed {s} #{i} {c['kind']} / {c['syntax']}: {d[:4]}")
    lines += ["", "## Near misses changed", ""]
    for s, i, c, out in nms[:60]:
        lines.append(f"- seed {s} #{i} {c['kind']}: `{trunc(c['keep'][0], 160)}`")
    open(os.path.join(HERE, "report.md"), "w").write("\n".join(lines) + "\n")
    print("\nwrote report.md")


if __name__ == "__main__":
    main()
