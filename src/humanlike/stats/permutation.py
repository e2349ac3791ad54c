"""Seeded, vectorised permutation tests on pairwise distances.

p-values are +1 corrected: ``(1 + #{null statistic at least as extreme as the observed}) / (1 + n_perm)``,
so they lie in (0, 1] and are valid (never anti-conservative) for any number of permutations.
With an int seed, permutation r is drawn from the stream ``stream(seed, "permutations", name, r // 100)``
(so nothing depends on the chunk size); a Generator is used as given. Permutations are evaluated in chunks
as matrix products (no Python loop over single permutations).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from humanlike.resampling.rng import SeedLike, make_rng, stream

_ALTERNATIVES = ("greater", "less", "two-sided")
_REL_TOL = 1e-12


@dataclass(frozen=True)
class PermutationResult:
    """A permutation test: observed statistic, +1-corrected p-value and a summary of the null.

    Attributes
    ----------
    statistic : float
        The reported statistic (NaN when undefined).
    p_value : float
        +1-corrected permutation p-value, in (0, 1].
    n_permutations : int
        Number of permutations drawn.
    alternative : str
        ``"greater"``, ``"less"`` or ``"two-sided"``.
    null_mean, null_sd, null_q025, null_q975 : float
        Summary of the permutation null (on the scale of ``statistic``).
    reason : str
        Why the test is undefined ("" when defined).
    name : str
        What the statistic is.
    observed : float
        The raw observed statistic (differs from ``statistic`` only for a centred statistic).

    Examples
    --------
    >>> profiles = [[0.0], [0.1], [0.2], [5.0], [5.1], [5.2]]
    >>> result = within_vs_between_groups(profiles, [0, 0, 0, 1, 1, 1], n_permutations=199, seed=0)
    >>> round(result.statistic, 4), result.n_permutations
    (4.8667, 199)
    """

    statistic: float
    p_value: float
    n_permutations: int
    alternative: str
    null_mean: float
    null_sd: float
    null_q025: float
    null_q975: float
    reason: str = ""
    name: str = ""
    observed: float = float("nan")

    def to_frame(self):
        """The result as a one-row tidy table.

        Returns
        -------
        pandas.DataFrame
            One row, one column per field (``statistic``, ``p_value``, ..., ``observed``).
        """
        import pandas as pd

        return pd.DataFrame([self.__dict__])


def _undefined(name, alternative, n_perm, reason):
    nan = float("nan")
    return PermutationResult(nan, nan, int(n_perm), alternative, nan, nan, nan, nan, reason, name)


def _distances(data, metric: str) -> np.ndarray:
    x = np.asarray(data, dtype=float)
    if metric == "precomputed":
        if x.ndim != 2 or x.shape[0] != x.shape[1]:
            raise ValueError(f"a distance matrix must be square, got shape {x.shape}")
        if not np.allclose(x, x.T, equal_nan=True):
            raise ValueError("the distance matrix is not symmetric")
        return x
    if metric == "euclidean":
        if x.ndim != 2:
            raise ValueError(f"profiles must be 2-D (items x features), got shape {x.shape}")
        diff = x[:, None, :] - x[None, :, :]
        return np.sqrt(np.sum(diff * diff, axis=-1))
    raise ValueError(f"metric must be 'euclidean' or 'precomputed', got {metric!r}")


def _group_codes(groups, n: int, name: str) -> np.ndarray:
    g = np.asarray(groups)
    if g.shape != (n,):
        raise ValueError(f"{name} must have one entry per item ({n}), got shape {g.shape}")
    _, codes = np.unique(g, return_inverse=True)
    return codes.ravel()


def _p_value(null: np.ndarray, obs: float, alternative: str) -> float:
    tol = _REL_TOL * max(1.0, abs(obs))
    if alternative == "greater":
        hits = np.sum(null >= obs - tol)
    elif alternative == "less":
        hits = np.sum(null <= obs + tol)
    else:  # the null of both statistics here is centred at 0 (see the functions)
        hits = np.sum(np.abs(null) >= abs(obs) - tol)
    return float((1 + hits) / (1 + null.size))


def _summary(null: np.ndarray):
    return (
        float(np.mean(null)),
        float(np.std(null, ddof=1)) if null.size > 1 else float("nan"),
        float(np.quantile(null, 0.025)),
        float(np.quantile(null, 0.975)),
    )


def _permuted_codes(rng, codes, size):
    """(size, n) arrays, each a uniformly random permutation of ``codes``."""
    return rng.permuted(np.broadcast_to(codes, (size, codes.size)), axis=1)


_BLOCK = 100


class _Permutations:
    """Permutations lo..hi-1 of ``codes``: per-block streams for an int seed, else one Generator in order."""

    def __init__(self, seed, key: str, codes: np.ndarray):
        self.codes = codes
        self.key = key
        if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
            self.seed, self.rng = int(seed), None
        else:
            self.seed, self.rng = None, make_rng(seed)

    def take(self, lo: int, hi: int) -> np.ndarray:
        if self.rng is not None:
            return _permuted_codes(self.rng, self.codes, hi - lo)
        blocks = range(lo // _BLOCK, (hi - 1) // _BLOCK + 1)
        parts = [_permuted_codes(stream(self.seed, "permutations", self.key, b), self.codes, _BLOCK) for b in blocks]
        first = blocks[0] * _BLOCK
        return np.concatenate(parts)[lo - first: hi - first]


def _chunks(n_perm: int, per_perm: int, chunk_elements: int):
    step = max(1, chunk_elements // max(1, per_perm))
    for start in range(0, n_perm, step):
        yield start, min(start + step, n_perm)


def _check(alternative, n_permutations):
    if alternative not in _ALTERNATIVES:
        raise ValueError(f"alternative must be one of {_ALTERNATIVES}, got {alternative!r}")
    if int(n_permutations) < 1:
        raise ValueError("n_permutations must be >= 1")


def within_vs_between_groups(
    data,
    groups,
    *,
    metric: str = "euclidean",
    n_permutations: int = 9999,
    seed: SeedLike = None,
    alternative: str = "greater",
    chunk_elements: int = 4_000_000,
) -> PermutationResult:
    """Are items more alike within groups than across? Permutation test on pairwise distances.

    ``data``: profiles (items x features; Euclidean distances between rows, ``metric='euclidean'``) or a
    symmetric distance matrix (``metric='precomputed'``). Statistic = mean distance over between-group
    pairs - mean distance over within-group pairs (unordered pairs i < j); positive when groups are
    tighter than chance. Null: the group labels are permuted across items (group sizes fixed, distances
    fixed). Under that null every pair is equally likely to be within-group, so the null is centred at 0
    and ``'two-sided'`` compares absolute values. ``'greater'`` (default) tests for group structure.

    Undefined (NaN with a reason) without any within-group pair (all groups singletons) or without any
    between-group pair (one group).

    Parameters
    ----------
    data : array_like of float
        Profiles (items x features), or a symmetric (items x items) distance matrix.
    groups : array_like
        One group label per item.
    metric : {"euclidean", "precomputed"}, default "euclidean"
        How ``data`` is read.
    n_permutations : int, default 9999
        Number of label permutations (>= 1).
    seed : int, numpy.random.Generator, numpy.random.SeedSequence or None
        Seed of the permutations.
    alternative : {"greater", "less", "two-sided"}, default "greater"
        Direction of the test.
    chunk_elements : int, default 4000000
        Largest permutations x pairs block evaluated at once (bounds memory).

    Returns
    -------
    PermutationResult
        The statistic, p-value and null summary.

    Raises
    ------
    ValueError
        For an unknown ``metric`` or ``alternative``, ``n_permutations < 1``, a distance matrix that is not
        square and symmetric, non-finite distances, or ``groups`` of the wrong length.

    Examples
    --------
    Three tight groups far apart; only 2 of the 560 labellings with these group sizes are as tight, so
    the p-value is near its floor 1 / (1 + 199):

    >>> profiles = [[0.0], [0.1], [0.2], [5.0], [5.1], [5.2], [10.0], [10.1]]
    >>> result = within_vs_between_groups(profiles, [0, 0, 0, 1, 1, 1, 2, 2], n_permutations=199, seed=0)
    >>> round(result.statistic, 4), result.p_value
    (6.2714, 0.015)
    >>> within_vs_between_groups(profiles, range(8), n_permutations=9, seed=0).reason
    'no within-group pair (every group has one item)'
    """
    _check(alternative, n_permutations)
    name = "between minus within mean distance"
    d = _distances(data, metric)
    n = d.shape[0]
    codes = _group_codes(groups, n, "groups")
    iu, ju = np.triu_indices(n, k=1)
    dp = d[iu, ju]
    if np.any(~np.isfinite(dp)):
        raise ValueError("distances must be finite")
    same = codes[iu] == codes[ju]
    n_within = int(same.sum())
    n_between = int(dp.size - n_within)
    if n_within == 0:
        return _undefined(name, alternative, n_permutations, "no within-group pair (every group has one item)")
    if n_between == 0:
        return _undefined(name, alternative, n_permutations, "no between-group pair (a single group)")
    total = dp.sum()

    def stat(within_sum):
        return (total - within_sum) / n_between - within_sum / n_within

    obs = float(stat(dp[same].sum()))
    draws = _Permutations(seed, "within-vs-between", codes)
    null = []
    for lo, hi in _chunks(int(n_permutations), dp.size, chunk_elements):
        perm = draws.take(lo, hi)
        same_p = perm[:, iu] == perm[:, ju]
        null.append(stat(same_p.astype(float) @ dp))
    null = np.concatenate(null)
    return PermutationResult(
        obs, _p_value(null, obs, alternative), int(n_permutations), alternative, *_summary(null), "", name, obs
    )


def _cohens_d_from_sums(sa, sa2, na, sb, sb2, nb):
    """d = (mean_B - mean_A) / pooled SD, from sums and sums of squares (vectorised over the A side)."""
    ma, mb = sa / na, sb / nb
    ssa = sa2 - sa * ma  # sum of squared deviations
    ssb = sb2 - sb * mb
    pooled = np.sqrt(np.maximum(ssa + ssb, 0.0) / (na + nb - 2))
    with np.errstate(divide="ignore", invalid="ignore"):
        return (mb - ma) / pooled, pooled


def grouping_contrast_cohens_d(
    distance_matrix,
    grouping_a,
    grouping_b,
    *,
    n_permutations: int = 9999,
    seed: SeedLike = None,
    alternative: str = "greater",
    chunk_elements: int = 4_000_000,
    statistic: str = "excess",
) -> PermutationResult:
    """Is a structure tighter within the groups of partition A than within the groups of partition B?

    Pair sets: ``W_A`` = unordered pairs (i < j) in the same A group, ``W_B`` = pairs in the same B group
    (a pair in the same group of both partitions belongs to both sets). Statistic: Cohen's d
    ``(mean d(W_B) - mean d(W_A)) / s_pooled``, ``s_pooled^2 = (SS_A + SS_B) / (|W_A| + |W_B| - 2)``;
    positive when items sharing an A group are closer than items sharing a B group.

    What is permuted: the A labels across items (A group sizes kept), with the distance matrix and the
    B labels fixed; each permutation recomputes ``W_A`` and d, so ``W_B`` is the same in every
    permutation. The null is "A groups are arbitrary sets of the same sizes". p-value for ``'greater'``
    (default): share of permuted d >= observed, +1 corrected. ``'two-sided'`` uses |d| (the null of d is
    not exactly centred at 0, so prefer a one-sided alternative).

    The null of d is *not* centred at 0 (random A groups of these sizes are looser than the B groups when B
    groups are tight), so d's sign alone does not answer the question its p-value answers. ``statistic=
    'excess'`` (default) reports ``d - mean(null d)`` with the null summary centred the same way: it is > 0
    exactly when d exceeds what random A groups of the same sizes give, the question the permutation p
    answers (the p-value is the same for both, the shift does not change the ranks). ``'d'`` reports d and
    its raw null. ``observed`` always holds d.

    Undefined (NaN with a reason) when either pair set is empty, when ``|W_A| + |W_B| <= 2``, or when the
    pooled SD of the observed sets is 0. Permutations with a pooled SD of 0 count as not extreme.

    Parameters
    ----------
    distance_matrix : array_like of float
        Symmetric (items x items) distances.
    grouping_a, grouping_b : array_like
        One label per item for partition A (permuted) and partition B (fixed).
    n_permutations : int, default 9999
        Number of permutations of the A labels (>= 1).
    seed : int, numpy.random.Generator, numpy.random.SeedSequence or None
        Seed of the permutations.
    alternative : {"greater", "less", "two-sided"}, default "greater"
        Direction of the test.
    chunk_elements : int, default 4000000
        Largest permutations x pairs block evaluated at once (bounds memory).
    statistic : {"excess", "d"}, default "excess"
        Report d minus its null mean, or d itself (see above).

    Returns
    -------
    PermutationResult
        The statistic, p-value and null summary; ``observed`` holds d.

    Raises
    ------
    ValueError
        For an unknown ``alternative`` or ``statistic``, ``n_permutations < 1``, a matrix that is not square
        and symmetric, non-finite distances, or a grouping of the wrong length.

    Examples
    --------
    >>> points = np.array([0.0, 0.1, 0.2, 5.0, 5.1, 5.2])
    >>> distances = np.abs(points[:, None] - points[None, :])
    >>> result = grouping_contrast_cohens_d(distances, [0, 0, 0, 1, 1, 1], [0, 1, 0, 1, 0, 1],
    ...                                     n_permutations=199, seed=0)
    >>> round(result.observed, 3), round(result.statistic, 3), result.null_mean
    (1.862, 1.667, 0.0)
    """
    _check(alternative, n_permutations)
    name = "Cohen's d: within-B minus within-A distance"
    d = _distances(distance_matrix, "precomputed")
    n = d.shape[0]
    a = _group_codes(grouping_a, n, "grouping_a")
    b = _group_codes(grouping_b, n, "grouping_b")
    iu, ju = np.triu_indices(n, k=1)
    dp = d[iu, ju]
    if np.any(~np.isfinite(dp)):
        raise ValueError("distances must be finite")
    dp = dp - dp.mean()  # centring leaves d unchanged and keeps the sums-of-squares form accurate
    dp2 = dp * dp
    in_a = a[iu] == a[ju]
    in_b = b[iu] == b[ju]
    na, nb = int(in_a.sum()), int(in_b.sum())
    if na == 0 or nb == 0:
        return _undefined(name, alternative, n_permutations, "a partition has no within-group pair")
    if na + nb <= 2:
        return _undefined(name, alternative, n_permutations, "too few within-group pairs for a pooled SD")
    sb, sb2 = dp[in_b].sum(), dp2[in_b].sum()
    obs, pooled = _cohens_d_from_sums(dp[in_a].sum(), dp2[in_a].sum(), na, sb, sb2, nb)
    if not pooled > 0:
        return _undefined(name, alternative, n_permutations, "pooled SD of the pair distances is 0")
    if statistic not in ("excess", "d"):
        raise ValueError(f"statistic must be 'excess' or 'd', got {statistic!r}")
    obs = float(obs)
    draws = _Permutations(seed, "grouping-contrast", a)
    null = []
    for lo, hi in _chunks(int(n_permutations), dp.size, chunk_elements):
        perm = draws.take(lo, hi)
        same_p = (perm[:, iu] == perm[:, ju]).astype(float)
        dnull, _ = _cohens_d_from_sums(same_p @ dp, same_p @ dp2, na, sb, sb2, nb)
        null.append(np.where(np.isfinite(dnull), dnull, -np.inf if alternative != "less" else np.inf))
    null = np.concatenate(null)
    finite = null[np.isfinite(null)]
    p = _p_value(null if alternative != "two-sided" else np.where(np.isfinite(null), null, 0.0), obs, alternative)
    summary = _summary(finite) if finite.size else (float("nan"),) * 4
    if statistic == "d":
        return PermutationResult(obs, p, int(n_permutations), alternative, *summary, "", name, obs)
    shift = summary[0]
    centred = (0.0, summary[1], summary[2] - shift, summary[3] - shift)
    return PermutationResult(obs - shift, p, int(n_permutations), alternative, *centred, "",
                             "Cohen's d (within-B minus within-A distance) minus its permutation-null mean", obs)
