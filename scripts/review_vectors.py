#!/usr/bin/env python3
"""Recompute the test vectors of the review loop's statistics independently.

    pip install numpy scipy && python3 scripts/review_vectors.py

- Fleiss' kappa (src/stats/agreement.rs) from the items x categories count
  table, as in Fleiss (1971), eq. 2-9, not from the Rust code's pairwise form.
- The prediction-powered mean (src/stats/ppi.rs) as in Angelopoulos et al.
  (2023), Science 382:669, written from the paper's mean-estimation example:
  theta = mean(f(X~)) - mean(f(X) - Y), interval theta +- z sqrt(s_f^2/N + s_d^2/n).
- Cohen's kappa of two reviewers, with sklearn's formula (po - pe)/(1 - pe)
  computed from the confusion matrix.

The Rust tests carry the printed numbers as literals.
"""

import numpy as np
from scipy import stats

print("## fleiss")
# Rows are items, columns raters (1 = conveyed / the item passes).
FLEISS_TABLE = np.array(
    [
        [1, 1, 1],
        [1, 1, 0],
        [0, 0, 0],
        [1, 1, 1],
        [0, 1, 0],
        [1, 1, 1],
        [0, 0, 0],
        [1, 0, 1],
        [1, 1, 1],
        [0, 0, 1],
    ]
)
N, n = FLEISS_TABLE.shape
counts = np.stack([(FLEISS_TABLE == 1).sum(1), (FLEISS_TABLE == 0).sum(1)], axis=1)  # n_ij
p_j = counts.sum(0) / (N * n)
P_i = (np.square(counts).sum(1) - n) / (n * (n - 1))
P_bar, P_e = P_i.mean(), np.square(p_j).sum()
print("fleiss_kappa", repr(float((P_bar - P_e) / (1 - P_e))))

print("## ppi")
f_all = np.array([1.0] * 80 + [0.0] * 20)
pairs = [(1.0, 1.0)] * 13 + [(1.0, 0.0)] * 3 + [(0.0, 0.0)] * 3 + [(0.0, 1.0)] * 1
f_lab = np.array([p[0] for p in pairs])
y_lab = np.array([p[1] for p in pairs])
theta = f_all.mean() - (f_lab - y_lab).mean()
se = np.sqrt(f_all.var(ddof=1) / len(f_all) + (f_lab - y_lab).var(ddof=1) / len(f_lab))
z = stats.norm.ppf(0.975)
print("estimate", repr(float(theta)))
print("se", repr(float(se)))
print("lo", repr(float(max(0.0, theta - z * se))))
print("hi", repr(float(min(1.0, theta + z * se))))

print("## cohen (two reviewers, the first two columns of FLEISS_TABLE)")
a, b = FLEISS_TABLE[:, 0], FLEISS_TABLE[:, 1]
cm = np.array([[np.sum((a == i) & (b == j)) for j in (0, 1)] for i in (0, 1)], float)
po = np.trace(cm) / cm.sum()
pe = (cm.sum(0) * cm.sum(1)).sum() / cm.sum() ** 2
print("cohen_kappa", repr(float((po - pe) / (1 - pe))))
