"""How conservative must a difference interval of two single-table ECs be where shared errors are rare?

One command (prints a markdown table; the numbers are exact, no simulation; a few seconds)::

    PYTHONPATH=src python benchmarks/compare_discreteness.py

For the kappa-0 cells of the EC difference grid (docs/compare_calibration.md: one human, models A and B with
the same accuracy, independent given the human), what separates kappa_A from kappa_B is the trials on which
the human and exactly one of the two models err (a shared error of A only, or of B only). Three standard
tests of equal shared-error rates use exactly these trials: the exact binomial test conditional on their
number N (the standard way to remove the nuisance margins, as Fisher's exact test does for a 2x2 table), its
mid-p version, and McNemar's score test, whose inversion is Tango's score interval (the standard interval of
a paired difference). Their sizes at a nominal 0.05, summed exactly over the binomial distribution of N, say
how often an interval obtained by inverting each could exclude a true difference of 0. The table sets them
beside the coverage MOVER reached in the calibration (docs/compare_calibration.md): where the data hold at
most one shared error per table, every one of these tests covers above 0.97, as MOVER does.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

#: (trials, human accuracy, model accuracy, MOVER's coverage in docs/compare_calibration.md), kappa 0.
CELLS = ((100, 0.98, 0.98, 1.000), (200, 0.98, 0.98, 1.000), (100, 0.95, 0.98, 1.000), (400, 0.98, 0.98, 1.000),
         (200, 0.95, 0.98, 0.999), (800, 0.98, 0.98, 1.000), (400, 0.95, 0.98, 1.000), (100, 0.90, 0.95, 0.993),
         (1600, 0.98, 0.98, 0.996), (800, 0.95, 0.98, 0.990), (200, 0.90, 0.95, 0.986), (1600, 0.95, 0.98, 0.964),
         (400, 0.90, 0.95, 0.967), (800, 0.90, 0.95, 0.939), (1600, 0.90, 0.95, 0.957))


def rejection_rates(n: int, accuracy_human: float, accuracy_models: float, alpha: float = 0.05) -> dict:
    """Exact sizes, at a true equality, of three standard tests of equal shared-error rates (module docstring).

    With N the trials on which the human and exactly one model err and K those on which it is model A:

    * ``exact conditional``: the two-sided binomial test of K out of N at 1/2 (conditions on N);
    * ``mid-p``: the same with half the probability of the observed K (less conservative, still exact in
      spirit; Lancaster's mid-p);
    * ``McNemar``: the score test (K - (N - K))^2 / N > chi2_1(1 - alpha), no continuity correction. It is
      the test whose inversion gives Tango's score interval, the standard interval of a paired difference.

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
    dict
        Test name -> the probability that it rejects a true equality.

    Examples
    --------
    >>> sizes = rejection_rates(200, 0.9, 0.95)
    >>> round(sizes["exact conditional"], 4), sizes["exact conditional"] <= sizes["mid-p"] <= 0.05
    (0.0003, True)
    """
    e_human, e_model = 1.0 - accuracy_human, 1.0 - accuracy_models
    one_only = 2.0 * e_human * e_model * (1.0 - e_model)   # human and exactly one model wrong
    critical = stats.chi2.ppf(1.0 - alpha, 1)
    sizes = {"exact conditional": 0.0, "mid-p": 0.0, "McNemar": 0.0}
    for n_discordant in range(1, n + 1):
        weight = stats.binom.pmf(n_discordant, n, one_only)
        k = np.arange(n_discordant + 1)
        pmf = stats.binom.pmf(k, n_discordant, 0.5)
        as_extreme = np.minimum(1.0, 2.0 * np.minimum(stats.binom.cdf(k, n_discordant, 0.5),
                                                      stats.binom.sf(k - 1, n_discordant, 0.5)))
        mid_p = np.minimum(1.0, as_extreme - pmf)  # symmetric null: the two-sided p less the observed point
        mcnemar = (2 * k - n_discordant) ** 2 / n_discordant
        sizes["exact conditional"] += weight * pmf[as_extreme <= alpha].sum()
        sizes["mid-p"] += weight * pmf[mid_p <= alpha].sum()
        sizes["McNemar"] += weight * pmf[mcnemar > critical].sum()
        if stats.binom.sf(n_discordant, n, one_only) < 1e-12:
            break
    return {name: float(size) for name, size in sizes.items()}


def main() -> int:
    print("| trials | acc. human | acc. models | expected shared errors per table | exact conditional test covers "
          "| mid-p test covers | McNemar's test covers | MOVER's coverage |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for n, a_h, a_m, mover in CELLS:
        sizes = rejection_rates(n, a_h, a_m)
        print(f"| {n} | {a_h} | {a_m} | {n * (1 - a_h) * (1 - a_m):.2f} | {1 - sizes['exact conditional']:.4f} "
              f"| {1 - sizes['mid-p']:.4f} | {1 - sizes['McNemar']:.4f} | {mover:.3f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
