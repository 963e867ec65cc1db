#!/usr/bin/env python3
"""Recompute the test vectors of src/stats/ independently, with numpy/scipy.

    pip install numpy scipy && python3 scripts/stats_vectors.py

Each section prints the figures a Rust test asserts (the numbers are
committed in docs/stats-vectors.txt; the Rust tests carry them as literals).
The formulas here are written from their textbook forms, not ported from the
Rust code: the clustered variance as the OLS sandwich (X'X)^-1 M (X'X)^-1
with M summed over clusters, the paired interval from the 2x2 table
(Agresti & Min 2005), the MDE by root finding, BH by scipy.
"""

import numpy as np
from scipy import optimize, stats


def sandwich_se(y, clusters):
    """Intercept-only OLS with CR1 cluster-robust variance (Stata vce(cluster))."""
    y = np.asarray(y, float)
    X = np.ones((len(y), 1))
    beta = np.linalg.lstsq(X, y, rcond=None)[0]
    e = y - X @ beta
    bread = np.linalg.inv(X.T @ X)
    groups = {}
    for xi, ei, g in zip(X, e, clusters):
        groups[g] = groups.get(g, 0) + xi * ei
    meat = sum(np.outer(s, s) for s in groups.values())
    G = len(groups)
    V = G / (G - 1) * bread @ meat @ bread
    return float(beta[0]), float(np.sqrt(V[0, 0]))


def section(name):
    print(f"\n## {name}")


section("dist")
print("norm.cdf(1.0)", repr(stats.norm.cdf(1.0)))
print("norm.cdf(-2.5)", repr(stats.norm.cdf(-2.5)))
print("norm.cdf(0.3)", repr(stats.norm.cdf(0.3)))
print("norm.ppf(0.975)", repr(stats.norm.ppf(0.975)))
print("norm.ppf(0.8)", repr(stats.norm.ppf(0.8)))
print("t.cdf(2, 5)", repr(stats.t.cdf(2.0, 5)))
print("t.cdf(-1, 48)", repr(stats.t.cdf(-1.0, 48)))
for p, df in [(0.975, 48), (0.8, 48), (0.975, 1), (0.975, 9)]:
    print(f"t.ppf({p}, {df})", repr(stats.t.ppf(p, df)))

section("clustered")
y = [1, 1, 1, 0, 0, 0]
cl = [0, 1, 1, 1, 0, 0]
mean, se_cl = sandwich_se(y, cl)
_, se_iid = sandwich_se(y, list(range(6)))
print(f"mean {mean:.6f} se_iid {se_iid:.6f} se_cl {se_cl:.6f} deff {(se_cl / se_iid) ** 2:.6f}")
y = [1, 1, 1, 0, 0, 0, 1, 0]
cl = ["a", "a", "a", "b", "b", "b", "c", "c"]
mean, se_cl = sandwich_se(y, cl)
_, se_iid = sandwich_se(y, list(range(len(y))))
deff = max(1.0, (se_cl / se_iid) ** 2)
print(f"mean {mean:.6f} se_iid {se_iid:.6f} se_cl {se_cl:.6f} deff {deff:.6f} n_eff {len(y) / deff:.6f}")
# Wilson at the effective n.
n_eff, p, z = len(y) / deff, mean, stats.norm.ppf(0.975)
centre = (p + z * z / (2 * n_eff)) / (1 + z * z / n_eff)
half = z * np.sqrt(p * (1 - p) / n_eff + z * z / (4 * n_eff**2)) / (1 + z * z / n_eff)
print(f"wilson at n_eff [{centre - half:.6f}, {centre + half:.6f}]")
# 49 cases x 3 identical runs, one case failing all three.
runs = [0.0] * 3 + [1.0] * 144
rcl = [i // 3 for i in range(147)]
mean, se_cl = sandwich_se(runs, rcl)
_, se_iid = sandwich_se(runs, list(range(147)))
deff = (se_cl / se_iid) ** 2
print(f"49x3 one case 0/3: mean {mean:.6f} deff {deff:.6f} n_eff {147 / deff:.6f}")


def agresti_min(b, c, n):
    """Agresti-Min pseudo-pairs, studentised: t(0.975; n-1), factor n/(n-1)."""
    nn = n + 2
    centre = (c - b) / nn
    var = n / (n - 1) * ((b + 0.5) + (c + 0.5) - (c - b) ** 2 / nn) / nn**2
    t = stats.t.ppf(0.975, n - 1)
    return max(-1, centre - t * np.sqrt(var)), min(1, centre + t * np.sqrt(var))


section("paired")
for b, c, n in [(4, 0, 49), (0, 0, 49), (1, 0, 49), (10, 2, 49), (0, 0, 10), (30, 10, 500)]:
    lo, hi = agresti_min(b, c, n)
    print(f"b={b} c={c} n={n}: [{lo:.6f}, {hi:.6f}]")
print("binomtest 0 of 4, two-sided:", stats.binomtest(0, 4).pvalue)
print("binomtest 0 of 6, two-sided:", stats.binomtest(0, 6).pvalue)
print("BH [0.01, 0.04, 0.03, 0.20]:", stats.false_discovery_control([0.01, 0.04, 0.03, 0.20]))

section("components")
cases = [(3, 3), (0, 3), (2, 3), (1, 3)]
x = [np.array([1] * p + [0] * (m - p), float) for p, m in cases]
within = np.mean([xi.var(ddof=1) for xi in x])
rates = np.array([xi.mean() for xi in x])
between = max(0.0, rates.var(ddof=1) - within / 3)
print(f"within {within:.6f} between {between:.6f}")

section("mde")


def mde(n, k, within, deff=1.0):
    mult = lambda: stats.t.ppf(0.975, n - 1) + stats.t.ppf(0.8, n - 1)
    f = lambda d: d - mult() * np.sqrt(deff * (d * (1 - d) + 2 * within / k) / n)
    return optimize.brentq(f, 1e-9, 1.0)


for n, k, w in [(49, 1, 0.0), (49, 3, 0.0), (49, 1, 0.1), (49, 3, 0.1), (500, 1, 0.0)]:
    print(f"n={n} K={k} within={w}: mde {mde(n, k, w):.6f}")
