#!/usr/bin/env python3
"""bench/tools/coverage_summary.py — one line per cell of two sections of
bench/results/linear_coverage.md (bench/linear_coverage.sh), side by side.

    python3 bench/tools/coverage_summary.py FILE "BASELINE TITLE PREFIX" "NEW TITLE PREFIX"

Per cell and section: the smallest coverage count over the variables (of
reps), the largest |mean z| (bias in posterior sd units), and a verdict:
FAIL when some variable's Wilson 95% upper end is below 85%, low when some
count is below 85% of reps (but not clearly), bias when some |mean z| >= 0.5,
else ok.  "prior-dom." names the variables whose mean posterior sd is at
least half their prior sd under the weak prior at the grid's y_bound 1 and
B = 1 (no bounds: the coordinate bound is the clip): slopes 2, intercept 1,
sigma 0.164 (sd of sqrt(Exp(mean 1/8))).  Prints markdown.
"""
import math
import re
import sys

PRIOR_SD = [1.0, 2.0, 2.0,
            math.sqrt(0.125 - (math.sqrt(math.pi * 0.125) / 2) ** 2)]
NAMES = ["θ₀", "θ₁", "θ₂", "σ"]
CELL = re.compile(r"(\d+) \((\d+)–(\d+)\) ([+-]\d+\.\d+)±(\d+\.\d+) (\S+)")


def sections(path):
    out, cur = {}, None
    for line in open(path, encoding="utf-8"):
        if line.startswith("## "):
            cur = line[3:].strip()
            out[cur] = {}
        elif cur and line.startswith("| central") or cur and line.startswith("| ldp"):
            f = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(f) != 11:
                continue        # a side-by-side table's row, not a run's
            label, reps = f[0], int(f[1])
            vs = []
            for k, c in enumerate(f[3:7]):
                m = CELL.match(c)
                vs.append(None if m is None else
                          (int(m.group(1)), int(m.group(3)), float(m.group(4)), float(m.group(6))))
            out[cur][label] = (reps, vs, int(f[7]), float(f[8]), int(f[9]))
    return out


def verdict(row):
    reps, vs, conv, rhat, div = row
    worst = min(v[0] for v in vs if v)
    zmax = max(abs(v[2]) for v in vs if v)
    if any(v and v[1] < 85 for v in vs):
        vd = "FAIL"
    elif any(v and v[0] < 0.85 * reps for v in vs):
        vd = "low"
    elif zmax >= 0.5:
        vd = "bias"
    else:
        vd = "ok"
    pd = [NAMES[k] for k, v in enumerate(vs) if v and v[3] >= 0.5 * PRIOR_SD[k]]
    return worst, zmax, vd, conv, pd


def find(secs, prefix):
    for k in secs:
        if k.startswith(prefix):
            return secs[k]
    sys.exit("no section starting with %r" % prefix)


def main():
    secs = sections(sys.argv[1])
    a, b = find(secs, sys.argv[2]), find(secs, sys.argv[3])
    print("| cell | baseline: min covered | max \\|z\\| | verdict | new: min covered | max \\|z\\| | verdict | converged (new) | prior-dominated (new) |")
    print("|---|---|---|---|---|---|---|---|---|")
    tally = {"a": {}, "b": {}}
    for label in a:
        if label not in b:
            continue
        va, vb = verdict(a[label]), verdict(b[label])
        tally["a"][va[2]] = tally["a"].get(va[2], 0) + 1
        tally["b"][vb[2]] = tally["b"].get(vb[2], 0) + 1
        print("| %s | %d | %.2f | %s | %d | %.2f | %s | %d | %s |" % (
            label, va[0], va[1], va[2], vb[0], vb[1], vb[2], vb[3], ", ".join(vb[4]) or "—"))
    print()
    print("Verdicts, baseline: %s; new: %s" % (tally["a"], tally["b"]))


if __name__ == "__main__":
    main()
