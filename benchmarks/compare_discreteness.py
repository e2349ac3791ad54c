"""How conservative must a difference interval of two single-table ECs be where shared errors are rare?

One command (prints a markdown table; the numbers are exact, no simulation; a few seconds)::

    PYTHONPATH=src python benchmarks/compare_discreteness.py

For the kappa-0 cells of the EC difference grid (docs/compare_calibration.md: one human, models A and B with
the same accuracy, independent given the human), what separates kappa_A from kappa_B is the trials on which
the human and exactly one of the two models err (a shared error of A only, or of B only). Conditioning on
their number N, the exact test of equal shared-error rates is the binomial test of N trials at 1/2 (the
standard way to remove the nuisance margins, as Fisher's exact test does for a 2x2 table). Its size at a
nominal 0.05, summed exactly over the binomial distribution of N, says how often ANY interval obtained by
inverting that test could exclude a true difference of 0: where it is far below 0.05, such an interval covers
far above 0.95, because the data hold too few shared errors to separate the two kappas. The table sets it
beside the coverage MOVER reached in the calibration (docs/compare_calibration.md).
"""

from __future__ import annotations

import numpy as np
from scipy import stats

#: (trials, human accuracy, model accuracy, MOVER's coverage in docs/compare_calibration.md), kappa 0.
CELLS = ((100, 0.98, 0.98, 1.000), (200, 0.98, 0.98, 1.000), (100, 0.95, 0.98, 1.000), (400, 0.98, 0.98, 1.000),
         (200, 0.95, 0.98, 0.999), (800, 0.98, 0.98, 1.000), (400, 0.95, 0.98, 1.000), (100, 0.90, 0.95, 0.993),
         (1600, 0.98, 0.98, 0.996), (800, 0.95, 0.98, 0.990), (200, 0.90, 0.95, 0.986), (1600, 0.95, 0.98, 0.964),
         (400, 0.90, 0.95, 0.967), (800, 0.90, 0.95, 0.939), (1600, 0.90, 0.95, 0.957))


def conditional_test_size(n: int, accuracy_human: float, accuracy_models: float, alpha: float = 0.05) -> float:
    """Exact size of the conditional binomial test of equal shared-error rates (see the module docstring).

    Parameters
    ----------
    n : int
        Trials.
    accuracy_human, accuracy_models : float
        The human's accuracy and each model's (kappa 0: errors independent).
    alpha : float
        Nominal level.

    Returns
    -------
    float
        The probability that the test rejects a true equality.

    Examples
    --------
    >>> round(conditional_test_size(200, 0.9, 0.95), 4)
    0.0003
    """
    e_human, e_model = 1.0 - accuracy_human, 1.0 - accuracy_models
    one_only = 2.0 * e_human * e_model * (1.0 - e_model)   # human and exactly one model wrong
    size = 0.0
    for n_discordant in range(1, n + 1):
        weight = stats.binom.pmf(n_discordant, n, one_only)
        k = np.arange(n_discordant + 1)
        rejects = np.array([stats.binomtest(int(x), n_discordant, 0.5).pvalue <= alpha for x in k])
        size += weight * stats.binom.pmf(k, n_discordant, 0.5)[rejects].sum()
        if stats.binom.sf(n_discordant, n, one_only) < 1e-12:
            break
    return float(size)


def main() -> int:
    print("| trials | acc. human | acc. models | expected shared errors per table | exact conditional test: size "
          "| its interval covers at least | MOVER's coverage |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for n, a_h, a_m, mover in CELLS:
        size = conditional_test_size(n, a_h, a_m)
        print(f"| {n} | {a_h} | {a_m} | {n * (1 - a_h) * (1 - a_m):.2f} | {size:.4f} | {1 - size:.4f} | {mover:.3f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
