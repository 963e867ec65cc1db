#!/usr/bin/env python3
"""Test vectors for src/calibrate/bounds.rs, computed independently with SciPy.

Clopper-Pearson (1934): two-sided 1-a interval [beta.ppf(a/2, k, n-k+1), beta.ppf(1-a/2, k+1, n-k)];
one-sided upper bound at confidence c: beta.ppf(c, k+1, n-k).
Conformal / PAC allowance (Vovk 2012, Prop. 2a): the largest k with binom.cdf(k, n, alpha) <= delta.

    pip install scipy && python3 scripts/calibrate_vectors.py
"""
from scipy.stats import beta, binom


def cp(k, n, conf=0.95):
    a = 1 - conf
    lo = 0.0 if k == 0 else beta.ppf(a / 2, k, n - k + 1)
    hi = 1.0 if k == n else beta.ppf(1 - a / 2, k + 1, n - k)
    return lo, hi


def upper(k, n, conf):
    return 1.0 if k >= n else beta.ppf(conf, k + 1, n - k)


def allowance(n, alpha, delta):
    best = None
    for k in range(n):
        if binom.cdf(k, n, alpha) <= delta:
            best = k
        else:
            break
    return best


def needed(alpha, delta, k):
    n = k + 1
    while binom.cdf(k, n, alpha) > delta:
        n += 1
    return n


print("clopper_pearson 95% two-sided")
for k, n in [(0, 12), (0, 59), (3, 10), (42, 42), (46, 52), (1, 12)]:
    lo, hi = cp(k, n)
    print(f"  ({k}, {n}, {lo:.8f}, {hi:.8f})")
print("one-sided upper 95%")
for k, n in [(0, 12), (2, 40)]:
    print(f"  upper_bound({k}, {n}) = {upper(k, n, 0.95):.8f}")
print("binomial cdf")
for k, n, p in [(0, 12, 0.05), (3, 100, 0.05), (7, 2000, 0.01)]:
    print(f"  binom.cdf({k}, {n}, {p}) = {binom.cdf(k, n, p):.8e}")
print("conformal allowance")
for n, a, d in [(12, 0.05, 0.05), (58, 0.05, 0.05), (59, 0.05, 0.05), (200, 0.05, 0.05), (12, 0.25, 0.05)]:
    print(f"  allowance({n}, {a}, {d}) = {allowance(n, a, d)}")
print("questions needed")
for a, d, k in [(0.05, 0.05, 0), (0.05, 0.05, 1), (0.01, 0.05, 0), (0.05, 0.10, 0)]:
    print(f"  needed({a}, {d}, {k}) = {needed(a, d, k)}")
