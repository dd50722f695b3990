#!/usr/bin/env python3
"""bench/tools/posterior_compare.py A.tsv B.tsv — do two samplers' draws of one
posterior (laplace_auto's DUMP files: a chain column, then one column per
variable) agree beyond Monte Carlo error?  Per variable the difference of the
means in units of its Monte Carlo standard error (batch means over each
chain, batches of sqrt(draws per chain)) and the ratio of the sds; prints one
line: the number of variables, the largest |z|, the variable where it falls,
and the range of the sd ratios (B / A).  Standard library only."""
import csv
import math
import statistics as st
import sys


def load(path):
    with open(path) as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    names = [k for k in rows[0] if k != "chain"]
    chains = {}
    for r in rows:
        chains.setdefault(r["chain"], []).append(r)
    return names, chains


def mcse2(chains, name):
    """variance of the mean from batch means within each chain"""
    xs, bm = [], []
    for rows in chains.values():
        x = [float(r[name]) for r in rows]
        xs += x
        b = max(1, int(math.sqrt(len(x))))
        for i in range(len(x) // b):
            bm.append((st.fmean(x[i * b:(i + 1) * b]), b))
    m = st.fmean(xs)
    # sum over batches of b (mean_b - m)^2, over the number of batches, is
    # the asymptotic variance; divided by the draws: the mean's variance
    avar = sum(b * (mb - m) ** 2 for mb, b in bm) / len(bm)
    return m, st.pstdev(xs), avar / len(xs)


def main():
    na, ca = load(sys.argv[1])
    nb, cb = load(sys.argv[2])
    assert na == nb, "the two files hold other variables"
    worst, where, lo, hi = 0.0, "", math.inf, 0.0
    for v in na:
        ma, sa, va = mcse2(ca, v)
        mb, sb, vb = mcse2(cb, v)
        z = (mb - ma) / math.sqrt(va + vb) if va + vb > 0 else 0.0
        if abs(z) > worst:
            worst, where = abs(z), v
        if sa > 0:
            lo, hi = min(lo, sb / sa), max(hi, sb / sa)
        if len(sys.argv) > 3:
            print(f"{v}\t{ma:.5g}\t{mb:.5g}\tz {z:.2f}\tsd {sa:.4g} {sb:.4g}")
    print(f"{len(na)} | {worst:.2f} ({where}) | {lo:.3f}-{hi:.3f}")


main()
