#!/usr/bin/env python3
"""Independent reference values for test/test_dnoise.c (zCDP calibration).

Computes delta(rho, eps) = inf_{alpha>1} exp((alpha-1)(alpha rho - eps))
/ (alpha-1) * (1-1/alpha)^alpha (Canonne, Kamath & Steinke 2020,
Corollary 13) with Python's math module only, by a method different from
src/core/dnoise.c: golden-section search on u = log(alpha - 1) of the log of
the bound written directly in alpha, followed by a dense local grid.
rho(eps, delta) is the largest rho with delta(rho, eps) <= delta (bisection).

Run: python3 test/ref/zcdp_ref.py   (prints the C table used by the tests)
"""
import math


def logbound(alpha, rho, eps):
    return ((alpha - 1) * (alpha * rho - eps) - math.log(alpha - 1)
            + alpha * math.log(1 - 1 / alpha))


def delta(rho, eps):
    if rho == 0:
        return 0.0
    f = lambda u: logbound(1 + math.exp(u), rho, eps)
    a, b = -40.0, 40.0
    # the bound may overflow for huge alpha: shrink b until finite
    while True:
        try:
            f(b)
            break
        except OverflowError:
            b -= 1
    g = (math.sqrt(5) - 1) / 2
    c, d = b - g * (b - a), a + g * (b - a)
    for _ in range(300):
        if f(c) < f(d):
            b = d
        else:
            a = c
        c, d = b - g * (b - a), a + g * (b - a)
    u0 = (a + b) / 2
    best = min(f(u0 + k * 1e-7) for k in range(-50, 51))
    return min(1.0, math.exp(best))


def rho_of(eps, dlt):
    lo, hi = 0.0, 1.0
    while delta(hi, eps) <= dlt:
        lo, hi = hi, hi * 2
    for _ in range(200):
        mid = (lo + hi) / 2
        if delta(mid, eps) <= dlt:
            lo = mid
        else:
            hi = mid
    return lo


if __name__ == "__main__":
    print("/* rho, eps, delta */")
    for rho, eps in [(0.025, 1.0), (0.5, 1.0), (0.01, 0.1), (1.0, 8.0),
                     (2.0, 1.0), (1e-4, 0.05), (0.1, 3.0), (5.0, 20.0)]:
        print("{%.17g, %.17g, %.17g}," % (rho, eps, delta(rho, eps)))
    print("/* eps, delta, rho */")
    for eps in [0.1, 0.5, 1, 2, 8]:
        for dlt in [1e-5, 1e-6, 1e-9]:
            print("{%.17g, %.17g, %.17g}," % (eps, dlt, rho_of(eps, dlt)))
