#!/usr/bin/env python3
"""Independent reference values for test/test_dnoise.c (zCDP calibration).

delta(rho, eps) = inf_{alpha>1} exp((alpha-1)(alpha rho - eps)) / (alpha-1)
                  * (1-1/alpha)^alpha
(Canonne, Kamath & Steinke 2020, Corollary 13), computed with Python's
decimal module at 50 significant digits, by a method different from
src/core/dnoise.c: golden-section search over u = log(alpha - 1) of the log
of the bound written directly in alpha.  rho(eps, delta) is the largest rho
with delta(rho, eps) <= delta (bisection on log rho).

Run: python3 test/ref/zcdp_ref.py   (prints the C tables of the tests; ~20 s)
"""
from decimal import Decimal as D, getcontext

getcontext().prec = 50
GOLD = (D(5).sqrt() - 1) / 2


def logbound(alpha, rho, eps):
    return ((alpha - 1) * (alpha * rho - eps) - (alpha - 1).ln()
            + alpha * (1 - 1 / alpha).ln())


def delta(rho, eps, iters=160):
    rho, eps = D(rho), D(eps)
    if rho == 0:
        return D(0)
    f = lambda u: logbound(1 + u.exp(), rho, eps)
    a, b = D(-60), D(60)
    c, d = b - GOLD * (b - a), a + GOLD * (b - a)
    fc, fd = f(c), f(d)
    for _ in range(iters):
        if fc < fd:
            b, d, fd = d, c, fc
            c = b - GOLD * (b - a)
            fc = f(c)
        else:
            a, c, fc = c, d, fd
            d = a + GOLD * (b - a)
            fd = f(d)
    return min(D(1), min(fc, fd).exp())


def rho_of(eps, dlt):
    dlt = D(dlt)
    lo, hi = D("1e-6"), D(2)
    assert delta(lo, eps) <= dlt < delta(hi, eps)
    for _ in range(64):
        mid = (lo * hi).sqrt()
        if delta(mid, eps) <= dlt:
            lo = mid
        else:
            hi = mid
    return lo


if __name__ == "__main__":
    print("/* rho, eps, delta */")
    for rho, eps in [(0.025, 1.0), (0.5, 1.0), (0.01, 0.1), (1.0, 8.0),
                     (2.0, 1.0), (1e-4, 0.05), (0.1, 3.0), (5.0, 20.0),
                     (1e-10, 1e-10), (50.0, 100.0)]:
        print("{%r, %r, %.17g}," % (rho, eps, delta(rho, eps)))
    print("/* eps, delta, rho */")
    for eps in [0.1, 0.5, 1, 2, 8]:
        for dlt in [1e-5, 1e-6, 1e-9]:
            print("{%r, %r, %.17g}," % (eps, dlt, rho_of(eps, dlt)))
