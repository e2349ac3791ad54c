"""The exact label-exchange test of two models' error consistency with one human on one table (docs/compare.md).

Two models A and B answer the same trials as one human. Under the null that A and B are exchangeable on every
trial (given the human's correctness), swapping the labels A and B on any trial leaves the distribution of the
data unchanged; the test enumerates every swap pattern exactly (it is McNemar's idea applied to the two
models' EC with the human).
"""

from __future__ import annotations

import numpy as np

from ..pairs.metric import kappa


def exchange_counts(human, model_a, model_b) -> np.ndarray:
    """The 8 joint counts of (human, A, B) correctness on one table, as (human correct?, A, B) bits.

    Parameters
    ----------
    human, model_a, model_b : array_like of bool
        Correctness per trial, aligned.

    Returns
    -------
    numpy.ndarray
        Shape (2, 2, 2): ``counts[h, a, b]`` trials with human correct ``h``, A correct ``a``, B correct ``b``.

    Examples
    --------
    >>> exchange_counts([1, 1, 0], [1, 0, 0], [1, 1, 1])[1].tolist()
    [[0, 1], [0, 1]]
    """
    h, a, b = (np.asarray(x, dtype=bool).astype(int) for x in (human, model_a, model_b))
    counts = np.zeros((2, 2, 2), dtype=np.int64)
    np.add.at(counts, (h, a, b), 1)
    return counts


def _kappa_with_human(counts: np.ndarray, which: int) -> np.ndarray:
    """EC of model A (which=0) or B (1) with the human, from joint counts with leading batch axes."""
    table = counts.sum(axis=-1 if which == 0 else -2)  # [..., human, model]
    # kappa(a, b, c, d): both correct, only 1 (human) correct, only 2 (model) correct, both wrong
    return kappa(table[..., 1, 1], table[..., 1, 0], table[..., 0, 1], table[..., 0, 0])


def ec_label_exchange_test(human, model_a, model_b) -> tuple[float, float, str]:
    """Exact test that models A and B are exchangeable on every trial of one table (one human, one condition).

    Null: on each trial, the pair (A's correctness, B's correctness) is as likely as (B's, A's), given the
    human's — so A and B have the same accuracy and the same EC with the human. Under it, the labels A and B
    may be swapped on every trial independently; only discordant trials change anything: with ``d_h`` trials
    where A and B disagree among those where the human is correct (``h = 1``) or wrong (``h = 0``), the count
    of "A correct, B wrong" among them is Binomial(d_h, 1/2), the two independent. The statistic is
    ``|EC(A, human) - EC(B, human)|``; the p-value is the exact probability of a statistic at least as large
    as the observed one (relative tolerance 1e-12), summed over all ``(d_1 + 1)(d_0 + 1)`` outcomes; outcomes
    with an undefined statistic count as at least as large (conservative). Identical models (no discordant
    trial) give p = 1.

    Parameters
    ----------
    human, model_a, model_b : array_like of bool
        Correctness per trial, aligned.

    Returns
    -------
    (difference, p_value, reason) : tuple
        ``EC(A) - EC(B)``, the exact p-value, and why it is undefined ("" when defined).

    Examples
    --------
    >>> h = [1] * 30 + [0] * 10
    >>> diff, p, why = ec_label_exchange_test(h, h, h)
    >>> diff, p, why
    (0.0, 1.0, '')
    """
    return exchange_test_from_counts(exchange_counts(human, model_a, model_b))


def exchange_test_from_counts(counts) -> tuple[float, float, str]:
    """The exact label-exchange test (:func:`ec_label_exchange_test`) from the joint counts of one table.

    Parameters
    ----------
    counts : array_like of int
        Shape (2, 2, 2): trials by (human correct, A correct, B correct), as :func:`exchange_counts` gives.

    Returns
    -------
    (difference, p_value, reason) : tuple
        As :func:`ec_label_exchange_test`.

    Examples
    --------
    >>> counts = np.zeros((2, 2, 2), dtype=int)
    >>> counts[1, 1, 1], counts[0, 0, 0], counts[1, 1, 0], counts[0, 0, 1] = 30, 10, 5, 5
    >>> diff, p, why = exchange_test_from_counts(counts)
    >>> round(diff, 3), round(p, 4)   # kappa_A = 1, kappa_B = 0.524; p = 2 / 2^10 (the two extreme swaps)
    (0.476, 0.002)
    """
    from scipy import stats

    counts = np.asarray(counts, dtype=np.int64)
    observed = _kappa_with_human(counts, 0) - _kappa_with_human(counts, 1)
    if not np.isfinite(observed):
        return float("nan"), float("nan"), "EC of a model with the human undefined"
    d1 = int(counts[1, 1, 0] + counts[1, 0, 1])
    d0 = int(counts[0, 1, 0] + counts[0, 0, 1])
    x1 = np.arange(d1 + 1)[:, None]
    x0 = np.arange(d0 + 1)[None, :]
    prob = stats.binom.pmf(x1, d1, 0.5) * stats.binom.pmf(x0, d0, 0.5)
    # Only the discordant cells move: (1, 1, 0) = x1, (1, 0, 1) = d1 - x1, (0, 1, 0) = x0, (0, 0, 1) = d0 - x0.
    both, human_only = counts[1, 1, 1], counts[1, 0, 0]
    models_only, neither = counts[0, 1, 1], counts[0, 0, 0]
    with np.errstate(divide="ignore", invalid="ignore"):
        kappa_a = kappa(both + x1, human_only + (d1 - x1), models_only + x0, neither + (d0 - x0))
        kappa_b = kappa(both + (d1 - x1), human_only + x1, models_only + (d0 - x0), neither + x0)
        stat = np.abs(kappa_a - kappa_b)
    extreme = ~(stat < abs(observed) * (1 - 1e-12) - 1e-15)   # NaN counts as extreme
    return float(observed), float(min(1.0, prob[extreme].sum())), ""
