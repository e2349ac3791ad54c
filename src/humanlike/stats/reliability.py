"""Split-half reliability of item-level human data: the DMC noise ceiling (docs/measures/decision-margin-consistency.md).

Split the observers into two halves, pool each half's responses into one item vector, correlate the two
vectors (r), step up with Spearman–Brown (2r / (1 + r)) and average over splits. All unique splits are used
when there are at most ``max_splits`` of them, otherwise a seeded random sample of unique splits. The
splits are a boolean (splits x observers) membership matrix, so pooling every split is one matrix product.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from dataclasses import dataclass

import numpy as np

from humanlike.stats.correlation import constant_reason, pearson_rows, spearman_brown, spearman_rows
from humanlike.resampling.rng import SeedLike, make_rng

REASON_NO_TRIALS = "an item has no trials in one half"
REASON_R_MINUS_ONE = "r = -1 (Spearman-Brown undefined)"
_HALF_NAMES = {
    "x constant": "half A constant",
    "y constant": "half B constant",
    "x and y constant": "both halves constant",
}
_CHUNK_CELLS = 1 << 21  # splits x items cells per chunk: bounds memory for many items and splits
_ENUMERATE_FOR_SAMPLING = 200_000  # below this many unique splits, sample from the full enumeration


def n_unique_splits(n_observers: int) -> int:
    """Number of unique splits into two halves: C(N, N/2)/2 for even N, C(N, floor(N/2)) for odd N.

    Parameters
    ----------
    n_observers : int
        Number of observers N (at least 2).

    Returns
    -------
    int
        The number of unique splits.

    Raises
    ------
    ValueError
        If ``n_observers`` is not an integer >= 2.

    Examples
    --------
    >>> n_unique_splits(4), n_unique_splits(5), n_unique_splits(10)
    (3, 10, 126)
    """
    n = _check_n(n_observers)
    k = n // 2
    return math.comb(n, k) // 2 if n % 2 == 0 else math.comb(n, k)


def _check_n(n) -> int:
    if isinstance(n, (bool, np.bool_)) or int(n) != n or n < 2:
        raise ValueError(f"a split needs at least 2 observers, got {n!r}")
    return int(n)


def enumerate_splits(n_observers: int) -> np.ndarray:
    """All unique splits as a boolean (n_splits x N) array of membership in half A.

    Even N: halves of N/2, each split once (observer 0 is always in half A), C(N, N/2)/2 rows.
    Odd N: half A is the smaller half (floor(N/2) observers), C(N, floor(N/2)) rows.
    Rows are in lexicographic order of half A's members.

    Parameters
    ----------
    n_observers : int
        Number of observers N (at least 2).

    Returns
    -------
    numpy.ndarray of bool
        Membership in half A, shape (n_splits x N).

    Raises
    ------
    ValueError
        If ``n_observers`` is not an integer >= 2.

    Examples
    --------
    >>> enumerate_splits(4).astype(int).tolist()
    [[1, 1, 0, 0], [1, 0, 1, 0], [1, 0, 0, 1]]
    """
    n = _check_n(n_observers)
    k = n // 2
    if n % 2 == 0:
        combos = ((0, *c) for c in itertools.combinations(range(1, n), k - 1))
    else:
        combos = itertools.combinations(range(n), k)
    idx = np.array(list(combos), dtype=np.int64).reshape(-1, k)
    out = np.zeros((idx.shape[0], n), dtype=bool)
    np.put_along_axis(out, idx, True, axis=1)
    return out


def _canonical(members: np.ndarray) -> np.ndarray:
    # Even N: the split {A, B} and {B, A} are the same; keep the orientation with observer 0 in A.
    n = members.shape[1]
    if n % 2 == 0:
        members = np.where(members[:, :1], members, ~members)
    return members


def sample_splits(n_observers: int, n_splits: int, seed: SeedLike = None) -> np.ndarray:
    """A seeded random sample of ``n_splits`` distinct splits (same layout as :func:`enumerate_splits`).

    Raises ``ValueError`` when fewer than ``n_splits`` unique splits exist. When the splits are few enough
    to enumerate they are drawn without replacement from the enumeration; otherwise random halves are drawn
    and duplicates discarded until ``n_splits`` distinct ones are found (in order of drawing).

    Parameters
    ----------
    n_observers : int
        Number of observers N (at least 2).
    n_splits : int
        Number of distinct splits to draw (1 to :func:`n_unique_splits`).
    seed : int, numpy.random.Generator, numpy.random.SeedSequence or None
        Seed of the draw.

    Returns
    -------
    numpy.ndarray of bool
        Membership in half A, shape (n_splits x N).

    Raises
    ------
    ValueError
        If ``n_observers`` < 2 or ``n_splits`` is out of range.

    Examples
    --------
    >>> splits = sample_splits(6, 3, seed=0)
    >>> splits.shape, splits.sum(axis=1).tolist(), bool(splits[:, 0].all())
    ((3, 6), [3, 3, 3], True)
    """
    n = _check_n(n_observers)
    total = n_unique_splits(n)
    if n_splits < 1 or n_splits > total:
        raise ValueError(f"{n_splits} splits requested, {n} observers have {total} unique splits")
    rng = make_rng(seed)
    if total <= _ENUMERATE_FOR_SAMPLING:
        return enumerate_splits(n)[rng.choice(total, size=n_splits, replace=False)]
    k = n // 2
    found = np.zeros((0, n), dtype=bool)
    while found.shape[0] < n_splits:
        batch = 2 * (n_splits - found.shape[0]) + 16
        # Ranks of uniform draws are a random permutation: the k lowest ranks form half A.
        ranks = rng.random((batch, n)).argsort(axis=1).argsort(axis=1)
        found = np.concatenate([found, _canonical(ranks < k)])
        _, first = np.unique(np.packbits(found, axis=1), axis=0, return_index=True)
        found = found[np.sort(first)]
    return found[:n_splits]


def choose_splits(n_observers: int, max_splits: int = 1000, seed: SeedLike = None) -> tuple[np.ndarray, bool]:
    """All unique splits when there are at most ``max_splits``, else a seeded sample of ``max_splits``.

    Parameters
    ----------
    n_observers : int
        Number of observers N (at least 2).
    max_splits : int, default 1000
        Most splits to use (>= 1).
    seed : int, numpy.random.Generator, numpy.random.SeedSequence or None
        Seed of the sample (unused when all splits are enumerated).

    Returns
    -------
    membership : numpy.ndarray of bool
        Membership in half A, shape (n_splits x N).
    enumerated : bool
        True when these are all unique splits.

    Raises
    ------
    ValueError
        If ``max_splits`` < 1 or ``n_observers`` < 2.

    Examples
    --------
    >>> membership, enumerated = choose_splits(4)
    >>> membership.shape, enumerated
    ((3, 4), True)
    >>> membership, enumerated = choose_splits(6, max_splits=5, seed=0)
    >>> membership.shape, enumerated
    ((5, 6), False)
    """
    if max_splits < 1:
        raise ValueError("max_splits must be >= 1")
    if n_unique_splits(n_observers) <= max_splits:
        return enumerate_splits(n_observers), True
    return sample_splits(n_observers, max_splits, seed), False


@dataclass(frozen=True, eq=False)
class SplitHalfResult:
    """Split-half noise ceiling.

    ``ceiling``: mean over defined splits of the Spearman–Brown corrected correlations; ``raw_mean``: mean
    of the raw half-vs-half correlations; ``per_split_r`` / ``per_split_corrected`` / ``split_reasons``:
    one entry per split (NaN and a reason where undefined); ``splits``: the (n_splits x N) membership
    matrix; ``enumerated``: all unique splits were used; ``reason``: '' when every split is defined,
    otherwise how many splits were undefined and why (the ceiling is NaN only when all are).

    Attributes
    ----------
    ceiling : float
        Mean Spearman-Brown corrected split-half correlation over defined splits.
    raw_mean : float
        Mean uncorrected half-vs-half correlation over defined splits.
    per_split_r, per_split_corrected : numpy.ndarray
        Raw and corrected correlation per split (NaN where undefined).
    split_reasons : numpy.ndarray of object
        Why each split is undefined ("" where defined).
    splits : numpy.ndarray of bool
        Membership in half A, shape (n_splits x N).
    n_splits : int
        Number of splits used.
    enumerated : bool
        Whether all unique splits were used.
    method : str
        ``"pearson"`` or ``"spearman"``.
    reason : str
        Summary of undefined splits ("" when all are defined).

    Examples
    --------
    >>> result = split_half_ceiling([[1.0, 2.0, 3.0], [1.0, 3.0, 2.0]])
    >>> result.raw_mean, round(result.ceiling, 4), result.n_splits
    (0.5, 0.6667, 1)
    """

    ceiling: float
    raw_mean: float
    per_split_r: np.ndarray
    per_split_corrected: np.ndarray
    split_reasons: np.ndarray
    splits: np.ndarray
    n_splits: int
    enumerated: bool
    method: str
    reason: str

    @property
    def n_defined(self) -> int:
        """Number of splits with a defined correlation."""
        return int(np.sum(~np.isnan(self.per_split_corrected)))

    def to_frame(self, per_split: bool = False):
        """One summary row, or with ``per_split=True`` one row per split (r, corrected, reason).

        Parameters
        ----------
        per_split : bool, default False
            One row per split instead of the summary.

        Returns
        -------
        pandas.DataFrame
            Summary columns ``ceiling``, ``raw_mean``, ``n_splits``, ``n_defined``, ``enumerated``, ``method``,
            ``reason``; per-split columns ``split``, ``half_a`` (comma-separated observer indices), ``r``,
            ``corrected``, ``reason``.
        """
        import pandas as pd

        if per_split:
            return pd.DataFrame(
                {
                    "split": np.arange(self.n_splits),
                    "half_a": [",".join(map(str, np.flatnonzero(row))) for row in self.splits],
                    "r": self.per_split_r,
                    "corrected": self.per_split_corrected,
                    "reason": self.split_reasons,
                }
            )
        return pd.DataFrame(
            [
                {
                    "ceiling": self.ceiling,
                    "raw_mean": self.raw_mean,
                    "n_splits": self.n_splits,
                    "n_defined": self.n_defined,
                    "enumerated": self.enumerated,
                    "method": self.method,
                    "reason": self.reason,
                }
            ]
        )


def split_half_ceiling(
    correct,
    trials=None,
    *,
    seed: SeedLike = None,
    max_splits: int = 1000,
    method: str = "pearson",
) -> SplitHalfResult:
    """Split-half (Spearman–Brown) reliability of the pooled item vector of a group of observers.

    ``correct``: (observers x items), every cell filled (NaN raises). Without ``trials`` each half's item
    value is the plain mean over its observers (``correct`` may be accuracies or counts with equal trials).
    With ``trials`` (observers x items, counts >= ``correct``) it is pooled correct / pooled trials, so every
    response weighs the same; an item with no trials in a half makes that split undefined.

    Per split: r = correlation (``"pearson"`` or ``"spearman"``) of the halves' item vectors, corrected
    2r / (1 + r). For odd N the halves differ by one observer and the factor-2 step-up is approximate (as
    in the published procedure). A split is NaN with a reason when a half's vector is constant (e.g. a half
    at 100% on every item, or a single-observer half that is constant) or r = -1. ``seed`` only matters when
    the splits are sampled (more than ``max_splits`` unique splits).

    Parameters
    ----------
    correct : array_like of float
        Item values per observer, shape (observers x items): accuracies, or correct counts.
    trials : array_like of float, optional
        Trials per observer and item, same shape; pooling then weighs every response equally.
    seed : int, numpy.random.Generator, numpy.random.SeedSequence or None
        Seed for sampling splits.
    max_splits : int, default 1000
        Most splits used (all unique splits when there are no more).
    method : {"pearson", "spearman"}, default "pearson"
        Correlation between the halves.

    Returns
    -------
    SplitHalfResult
        The ceiling, per-split values and reasons.

    Raises
    ------
    ValueError
        For an unknown ``method``, a matrix that is not 2-d or holds NaN, fewer than 2 observers or items,
        or ``trials`` of another shape or below ``correct``.

    Notes
    -----
    docs/measures/decision-margin-consistency.md (the DMC noise ceiling).

    Examples
    --------
    Two observers give one split; r = 0.5 steps up to 2 * 0.5 / 1.5:

    >>> result = split_half_ceiling([[1.0, 2.0, 3.0], [1.0, 3.0, 2.0]])
    >>> round(result.ceiling, 4)
    0.6667
    >>> correct = [[1, 0, 1, 0], [1, 0, 1, 1], [1, 1, 0, 0], [1, 0, 1, 0]]
    >>> split_half_ceiling(correct).to_frame(per_split=True)["half_a"].tolist()
    ['0,1', '0,2', '0,3']
    """
    if method not in ("pearson", "spearman"):
        raise ValueError("method must be 'pearson' or 'spearman'")
    c = np.asarray(correct, dtype=float)
    if c.ndim != 2:
        raise ValueError(f"correct must be (observers x items), got shape {c.shape}")
    if not np.all(np.isfinite(c)):
        raise ValueError("correct must be a full (observers x items) matrix without NaN")
    n_obs, n_items = c.shape
    if n_obs < 2:
        raise ValueError(f"a split-half ceiling needs at least 2 observers, got {n_obs}")
    if n_items < 2:
        raise ValueError(f"a correlation over items needs at least 2 items, got {n_items}")
    t = None
    if trials is not None:
        t = np.asarray(trials, dtype=float)
        if t.shape != c.shape:
            raise ValueError(f"trials has shape {t.shape}, correct has {c.shape}")
        if not np.all(np.isfinite(t)) or np.any(t < 0) or np.any(c < 0) or np.any(c > t):
            raise ValueError("with trials, counts must satisfy 0 <= correct <= trials (finite)")

    splits, enumerated = choose_splits(n_obs, max_splits, seed)
    corr = pearson_rows if method == "pearson" else spearman_rows
    n_splits = splits.shape[0]
    r = np.empty(n_splits)
    reasons = np.empty(n_splits, dtype=object)
    step = max(1, _CHUNK_CELLS // n_items)
    for lo in range(0, n_splits, step):
        m_a = splits[lo : lo + step].astype(float)
        m_b = 1.0 - m_a
        # Pool every split of the chunk at once: (splits x observers) @ (observers x items).
        if t is None:
            half_a = (m_a @ c) / m_a.sum(axis=1, keepdims=True)
            half_b = (m_b @ c) / m_b.sum(axis=1, keepdims=True)
            empty = np.zeros(m_a.shape[0], dtype=bool)
        else:
            ta, tb = m_a @ t, m_b @ t
            empty = np.any(ta <= 0, axis=1) | np.any(tb <= 0, axis=1)
            with np.errstate(divide="ignore", invalid="ignore"):
                half_a = np.where(ta > 0, (m_a @ c) / ta, 0.0)
                half_b = np.where(tb > 0, (m_b @ c) / tb, 0.0)
        rr = np.where(empty, np.nan, corr(half_a, half_b))
        why = np.array([_HALF_NAMES.get(s, s) for s in constant_reason(half_a, half_b)], dtype=object)
        r[lo : lo + step] = rr
        reasons[lo : lo + step] = np.where(empty, REASON_NO_TRIALS, why)
    reasons = np.where((reasons == "") & (r == -1.0), REASON_R_MINUS_ONE, reasons)
    corrected = spearman_brown(r, 2.0)
    defined = ~np.isnan(corrected)
    r = np.where(defined, r, np.nan)
    reasons = np.where(defined, "", reasons)

    n_def = int(defined.sum())
    if n_def == 0:
        ceiling = raw_mean = float("nan")
        reason = f"all {n_splits} splits undefined: {_summarise(reasons)}"
    else:
        ceiling = float(corrected[defined].mean())
        raw_mean = float(r[defined].mean())
        reason = "" if n_def == n_splits else (
            f"{n_splits - n_def} of {n_splits} splits undefined ({_summarise(reasons)}); mean over the rest"
        )
    return SplitHalfResult(
        ceiling=ceiling,
        raw_mean=raw_mean,
        per_split_r=r,
        per_split_corrected=corrected,
        split_reasons=reasons,
        splits=splits,
        n_splits=n_splits,
        enumerated=enumerated,
        method=method,
        reason=reason,
    )


def _summarise(reasons: np.ndarray) -> str:
    counts = Counter(s for s in reasons.tolist() if s)
    return "; ".join(f"{why} x{k}" for why, k in counts.most_common())


@dataclass(frozen=True)
class TInterval:
    """Mean and t-interval of a set of values (``reason`` non-empty when the interval is undefined).

    Attributes
    ----------
    mean : float
        Mean of the finite values.
    low, high : float
        Interval bounds (NaN when undefined).
    n : int
        Number of finite values.
    level : float
        Confidence level.
    reason : str
        Why the interval is undefined ("" when defined).

    Examples
    --------
    >>> t_interval([1.0]).reason
    'fewer than 2 finite values'
    """

    mean: float
    low: float
    high: float
    n: int
    level: float
    reason: str = ""

    def to_frame(self):
        """One row: mean, low, high, n, level, reason.

        Returns
        -------
        pandas.DataFrame
            A one-row table.
        """
        import pandas as pd

        return pd.DataFrame([self.__dict__])


def t_interval(values, level: float = 0.95) -> TInterval:
    """The published t-interval over splits (or pairs): mean ± t_{n-1} · sd / sqrt(n), NaNs dropped.

    For compatibility figures only: it treats the values as independent draws, but split-half values share
    observers (every observer is in every split) and pairwise values share members, so their spread says
    little about the uncertainty of the mean and this interval is too narrow; bootstrap over observers and
    items for honest uncertainty. Undefined (NaN with a reason) for fewer than two finite values.

    Parameters
    ----------
    values : array_like of float
        The values; non-finite ones are dropped.
    level : float, default 0.95
        Confidence level, in (0, 1).

    Returns
    -------
    TInterval
        Mean, bounds and the number of values used.

    Raises
    ------
    ValueError
        If ``level`` is outside (0, 1).

    Examples
    --------
    Mean 2, SD 1, n = 3: half-width t_{2, 0.975} / sqrt(3) = 4.303 / 1.732:

    >>> interval = t_interval([1.0, 2.0, 3.0, float("nan")])
    >>> interval.mean, round(interval.low, 3), round(interval.high, 3), interval.n
    (2.0, -0.484, 4.484, 3)
    """
    from scipy import special   # special.stdtrit(df, q) is scipy.stats.t.ppf(q, df), without importing scipy.stats

    if not 0 < level < 1:
        raise ValueError("level must lie in (0, 1)")
    v = np.asarray(values, dtype=float).ravel()
    v = v[np.isfinite(v)]
    n = int(v.size)
    if n == 0:
        return TInterval(float("nan"), float("nan"), float("nan"), 0, level, "no finite values")
    mean = float(v.mean())
    if n < 2:
        return TInterval(mean, float("nan"), float("nan"), n, level, "fewer than 2 finite values")
    half = special.stdtrit(n - 1, 0.5 + level / 2) * v.std(ddof=1) / np.sqrt(n)
    return TInterval(mean, float(mean - half), float(mean + half), n, level)
