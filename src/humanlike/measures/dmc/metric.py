"""Decision-margin consistency of one condition under item and observer weights (pure numpy; docs/measures/decision-margin-consistency.md).

The values of one condition (items x observers counts of the humans, the models' margins) under a batch of
item weightings ``w`` (R x I; a bootstrap resample, a jackknife row or all ones for the estimate) and observer
weightings ``u`` (R x H, or None for every observer once):

* ``mh`` (R x M): each model's margins against the pooled human index (Pearson, or Spearman on weighted
  midranks);
* ``mm`` (R x P): every pair of models;
* ``hh_r`` / ``hh`` (R x S): the half-vs-half correlation of each split of the humans and its Spearman–Brown
  step-up 2r / (1 + r);
* ``acc_h`` (R,), ``acc_m`` (R x M): pooled human accuracy and each model's accuracy.

Two ways compute them, with the same results (tested):

* :func:`condition_values`, explicit: the item vectors of every row, correlated by batched matrix products.
  Handles every option (Spearman, the d' index, observers with different numbers of responses per item).
* :func:`pooled_statistics` + :func:`values_from_sums`, for the default case (Pearson on the accuracy index,
  every observer with the same number of responses on every item): every value is a function of weighted sums
  of per-item statistics (per-observer counts, their pairwise products, the margins and their products with the
  counts), so a resample is one matrix product ``w @ statistics`` and every split of the humans follows from the
  per-observer sums by small matrix products, whatever the number of items.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from ...stats.correlation import (
    constant_where_flat, fixed_vectors_correlation_matrix, spearman_brown, weighted_correlation_matrix,
    weighted_correlation_rows,
)
from .margins import accuracy_to_dprime

METHODS = ("pearson", "spearman")
# Variance at or below which a vector of counts is constant: counts are integers, so a non-constant vector
# under integer weights of total n has variance >= (n - 1) / n^2, far above this; rounding leaves ~1e-13.
COUNT_TOLERANCE = 1e-9
_CELLS = 1 << 21  # resamples x (vectors or splits) x items per block of the explicit path


def human_index(num: np.ndarray, den: np.ndarray, table: np.ndarray | None = None) -> np.ndarray:
    """Human index from pooled correct / response counts: accuracy, or d' through a lookup ``table``.

    Parameters
    ----------
    num : numpy.ndarray
        Pooled correct counts (e.g. rows x items).
    den : numpy.ndarray
        Pooled response counts; may broadcast against ``num`` (e.g. one response count per half).
    table : numpy.ndarray, optional
        d' lookup table from :func:`dprime_table`; ``None`` for the accuracy.

    Returns
    -------
    numpy.ndarray
        The index, shape of ``num``; NaN where ``den`` is 0.

    Examples
    --------
    >>> human_index(np.array([1.0, 3.0]), np.array([4.0, 4.0])).tolist()
    [0.25, 0.75]
    """
    ok = den > 0
    if table is None:
        if np.all(ok):
            return num / den
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(ok, num / np.where(ok, den, 1.0), np.nan)
    t = np.broadcast_to(np.rint(den).astype(np.int64), num.shape)
    c = np.rint(num).astype(np.int64)
    return np.where(np.broadcast_to(ok, num.shape), table[t, np.minimum(c, t)], np.nan)


def dprime_table(max_trials: int, n_alternatives: int) -> np.ndarray:
    """``table[t, c]`` = m-AFC d' of c correct out of t responses (1/(2t) correction at 0 and t; NaN for t = 0).

    Parameters
    ----------
    max_trials : int
        Largest number of responses per item.
    n_alternatives : int
        Number of alternatives m of the forced choice.

    Returns
    -------
    numpy.ndarray, (max_trials + 1, max_trials + 1)
        The table (NaN above the diagonal, c > t).

    Examples
    --------
    >>> t = dprime_table(4, 2)
    >>> bool(np.isnan(t[0, 0])), round(float(t[4, 2]), 6)
    (True, 0.0)
    """
    table = np.full((max_trials + 1, max_trials + 1), np.nan)
    t, c = np.tril_indices(max_trials + 1)
    keep = t > 0
    t, c = t[keep], c[keep]
    table[t, c] = accuracy_to_dprime(c / t, n_alternatives, n_trials=t)
    return table


def model_pairs(n_models: int) -> tuple[np.ndarray, np.ndarray]:
    """Indices (first, second) of every unordered pair of models, in the order of ``mm``.

    Parameters
    ----------
    n_models : int
        Number of models.

    Returns
    -------
    first, second : numpy.ndarray of int
        The two models of each pair.

    Examples
    --------
    >>> [p.tolist() for p in model_pairs(3)]
    [[0, 0, 1], [1, 2, 2]]
    """
    return _triangle(n_models, 1)


@functools.lru_cache(maxsize=256)
def _triangle(n: int, k: int = 0) -> tuple[np.ndarray, np.ndarray]:
    # np.triu_indices, computed once per size (the kernel asks for it in every chunk of every stratum);
    # read-only, as the arrays are shared.
    i, j = np.triu_indices(n, k=k)
    i.flags.writeable = False
    j.flags.writeable = False
    return i, j


def _aligned(rows: int) -> int:
    """The largest block size <= ``rows`` that divides or is a multiple of 100 (the engine's block of resamples),
    so that sub-blocks of a chunk start at the same positions whatever the chunking."""
    if rows >= 100:
        return rows - rows % 100
    return max(d for d in (1, 2, 4, 5, 10, 20, 25, 50) if d <= rows)


def condition_values(correct: np.ndarray, trials: np.ndarray, margins: np.ndarray, model_correct: np.ndarray,
                     splits: np.ndarray, item_weights: np.ndarray, observer_weights: np.ndarray | None = None,
                     split_index: np.ndarray | None = None, method: str = "pearson",
                     table: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """All values of one condition for each row of the weights, from the item vectors (the explicit path).

    Parameters
    ----------
    correct, trials : numpy.ndarray
        (H x I) correct and response counts per human observer and item.
    margins, model_correct : numpy.ndarray
        (M x I) model margins and share correct.
    splits : numpy.ndarray
        (S x H) boolean membership of half A of each split (S = 0 when fewer than 2 humans).
    item_weights : numpy.ndarray
        (R x I) non-negative weights (multinomial counts for a bootstrap resample).
    observer_weights : numpy.ndarray or None
        (R x H) weights of the humans, or None for each once (the index is then fixed).
    split_index : numpy.ndarray or None
        (R x S') the splits evaluated in each row (None: all).
    method : {"pearson", "spearman"}
    table : numpy.ndarray or None
        d' lookup table (:func:`dprime_table`); None for the accuracy index.

    Returns
    -------
    dict
        ``hh`` and ``hh_r`` (R x S'), ``mh`` and ``acc_m`` (R x M), ``mm`` (R x P), ``acc_h`` (R,).

    Examples
    --------
    >>> c = np.array([[1.0, 0.0, 1.0, 1.0], [1.0, 0.0, 0.0, 1.0]])
    >>> v = condition_values(c, np.ones_like(c), np.array([[2.0, -1.0, 0.5, 1.0]]), np.array([[1.0, 0, 1, 1]]),
    ...                      np.array([[True, False]]), np.ones((1, 4)))
    >>> round(float(v["hh_r"][0, 0]), 4), round(float(v["mh"][0, 0]), 4)
    (0.5774, 0.94)
    """
    w = np.asarray(item_weights, dtype=float)
    n_rows, n_items = w.shape
    n_h, n_m = correct.shape[0], margins.shape[0]
    s_all = splits.shape[0]
    width = max(n_m + 1, s_all if split_index is None else split_index.shape[1], 1)
    block = _aligned(max(1, _CELLS // (width * n_items)))
    if n_rows > block:
        parts = [condition_values(correct, trials, margins, model_correct, splits, w[lo:lo + block],
                                  None if observer_weights is None else observer_weights[lo:lo + block],
                                  None if split_index is None else split_index[lo:lo + block], method, table)
                 for lo in range(0, n_rows, block)]
        return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}

    u = observer_weights
    fixed_index = u is None
    if u is None:
        u = np.ones((n_rows, n_h))
    first, second = model_pairs(n_m)
    out: dict[str, np.ndarray] = {}
    total_w = w.sum(axis=1)
    out["acc_m"] = (w @ model_correct.T) / total_w[:, None] if n_m else np.zeros((n_rows, 0))

    if n_h:
        num, den = u @ correct, u @ trials
        with np.errstate(divide="ignore", invalid="ignore"):
            out["acc_h"] = np.sum(w * num, axis=1) / np.sum(w * den, axis=1)
        index = human_index(num, den, table)
        no_data = np.any(np.isnan(index) & (w > 0), axis=1)
        index = np.where(np.isnan(index), 0.0, index)
    else:
        out["acc_h"] = np.full(n_rows, np.nan)
        index, no_data = np.zeros((n_rows, n_items)), np.ones(n_rows, dtype=bool)

    if fixed_index and method == "pearson":
        # Observers not resampled: every vector is fixed and only the item weights vary.
        corr = fixed_vectors_correlation_matrix(np.concatenate([margins, index[:1]], axis=0), w)
    else:
        vectors = np.concatenate([np.broadcast_to(margins, (n_rows, n_m, n_items)), index[:, None, :]], axis=1)
        corr = weighted_correlation_matrix(vectors, w, method)
    out["mh"] = np.where(no_data[:, None], np.nan, corr[:, :n_m, n_m])
    out["mm"] = corr[:, first, second]

    if n_h >= 2 and s_all:
        members = splits[None] if split_index is None else splits[split_index]  # (1|R x S' x H)
        ua = u[:, None, :] * members
        num_a = ua @ correct  # (R x S' x I); half B is the rest: no second product needed
        num_b = num[:, None, :] - num_a
        uniform = n_items > 0 and bool(np.all(trials == trials[:, :1]))
        if uniform:
            # Every observer has the same number of responses on every item: one count per half.
            per_obs = trials[:, 0]
            den_a = (ua @ per_obs)[..., None]
            den_b = (u @ per_obs)[:, None, None] - den_a
            empty = (den_a[..., 0] <= 0) | (den_b[..., 0] <= 0)
        else:
            den_a = ua @ trials
            den_b = den[:, None, :] - den_a
            live = w[:, None, :] > 0
            empty = np.any((den_a <= 0) & live, axis=-1) | np.any((den_b <= 0) & live, axis=-1)
        half_a, half_b = human_index(num_a, den_a, table), human_index(num_b, den_b, table)
        if empty.any() or not uniform:
            half_a = np.where(np.isnan(half_a), 0.0, half_a)
            half_b = np.where(np.isnan(half_b), 0.0, half_b)
        r = weighted_correlation_rows(half_a, half_b, w, method)
        out["hh_r"] = np.where(empty, np.nan, r)
        out["hh"] = spearman_brown(out["hh_r"], 2.0)
    else:
        out["hh_r"] = out["hh"] = np.full((n_rows, 1), np.nan)
    return out


# --------------------------------------------------------------------------------------------------
# Sufficient statistics (Pearson on the accuracy index, the same number of responses on every item)
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PooledLayout:
    """Where each block of :func:`pooled_statistics` sits, and what the reduction needs besides the sums.

    Attributes
    ----------
    n_humans, n_models : int
        Numbers of human observers H and models M.
    mean_correct : numpy.ndarray, (H,)
        Unweighted item mean of each observer's counts (the centring).
    trials_per_item : numpy.ndarray, (H,)
        Responses of each observer to every item.
    counts, count_products, margins, margin_products, cross, model_correct : slice
        Columns of the statistics: centred counts, their pairwise products, centred margins, their
        pairwise products, margin x per-observer counts (M x H columns; margin x pooled counts, M columns,
        when ``pooled_only``), and the models' shares correct.
    pooled_only : bool, default False
        Whether the statistics are valid only for every observer weighted once.

    Examples
    --------
    >>> c = np.array([[1.0, 0.0, 1.0, 1.0], [1.0, 0.0, 0.0, 1.0]])  # 2 humans x 4 items, one response each
    >>> margins, model_correct = np.array([[2.0, -1.0, 0.5, 1.0]]), np.array([[1.0, 0.0, 1.0, 1.0]])
    >>> stats, layout = pooled_statistics(c, np.ones_like(c), margins, model_correct)
    >>> stats.shape  # 1 + 2 counts + 3 count products + 1 margin + 1 margin product + 2 cross + 1 share correct
    (4, 11)
    >>> layout.n_humans, layout.n_models, int(layout.cross.start), int(layout.cross.stop)
    (2, 1, 8, 10)
    """

    n_humans: int
    n_models: int
    mean_correct: np.ndarray  # (H,) unweighted item mean of each observer's counts (the centring)
    trials_per_item: np.ndarray  # (H,) responses of each observer to every item
    counts: slice
    count_products: slice
    margins: slice
    margin_products: slice
    cross: slice  # margin x per-observer counts (M x H columns), or margin x pooled counts (M) when pooled_only
    model_correct: slice
    pooled_only: bool = False  # statistics valid only for every observer weighted once


def uniform_trials(trials: np.ndarray) -> bool:
    """Whether every observer gave the same number of responses to every item ((H x I) counts).

    Parameters
    ----------
    trials : numpy.ndarray, (H, I)
        Response counts per observer and item.

    Returns
    -------
    bool
        True when each row is constant (and there is at least one item).

    Examples
    --------
    >>> uniform_trials(np.array([[2, 2, 2], [1, 1, 1]])), uniform_trials(np.array([[2, 1, 2]]))
    (True, False)
    """
    return trials.shape[1] > 0 and bool(np.all(trials == trials[:, :1]))


def pooled_statistics(correct: np.ndarray, trials: np.ndarray, margins: np.ndarray,
                      model_correct: np.ndarray, per_observer: bool = True) -> tuple[np.ndarray, PooledLayout]:
    """Per-item statistics (I x S) whose weighted sums give every value of :func:`values_from_sums`.

    Columns: 1; each observer's correct count c_o (centred on its item mean); the products c_o c_p (o <= p);
    each model's margin (centred); the products of margins (j <= k); the products margin_k x c_o; each model's
    share correct. Centring shifts every vector by a constant, which leaves every correlation unchanged and
    keeps the moment formulas exact in floating point. Requires :func:`uniform_trials`. With
    ``per_observer=False`` the margin products are taken with the pooled counts only (M instead of M x H
    columns): enough when every observer is weighted once (item resamples and the item jackknife), not for
    observer weights.

    Parameters
    ----------
    correct, trials : numpy.ndarray, (H, I)
        Correct and response counts per human observer and item.
    margins, model_correct : numpy.ndarray, (M, I)
        Model margins and shares correct.
    per_observer : bool, default True
        Keep the margin x count products per observer (needed for observer weights).

    Returns
    -------
    statistics : numpy.ndarray, (I, S)
        The per-item statistics.
    layout : PooledLayout
        Where each block sits.

    Raises
    ------
    ValueError
        If the observers' response counts differ between items.

    Examples
    --------
    >>> stats, layout = pooled_statistics(np.eye(2), np.ones((2, 2)), np.zeros((0, 2)), np.zeros((0, 2)))
    >>> stats.shape, layout.n_humans
    ((2, 6), 2)
    """
    if not uniform_trials(trials):
        raise ValueError("pooled statistics need the same number of responses on every item for each observer")
    n_h, n_items = correct.shape
    n_m = margins.shape[0]
    mean = correct.mean(axis=1)
    cc = correct - mean[:, None]
    mc = margins - margins.mean(axis=1, keepdims=True) if n_m else margins
    ih, jh = np.triu_indices(n_h)
    im, jm = np.triu_indices(n_m)
    cross = ((mc[:, None, :] * cc[None, :, :]).reshape(n_m * n_h, n_items).T if per_observer
             else (mc * cc.sum(axis=0)).T)
    blocks = [np.ones((n_items, 1)), cc.T, (cc[ih] * cc[jh]).T, mc.T, (mc[im] * mc[jm]).T, cross, model_correct.T]
    edges = np.cumsum([0] + [b.shape[1] for b in blocks])
    layout = PooledLayout(n_h, n_m, mean, trials[:, 0].astype(float),
                          *(slice(edges[k], edges[k + 1]) for k in range(1, 7)), pooled_only=not per_observer)
    return np.concatenate(blocks, axis=1), layout


def _symmetric(flat: np.ndarray, n: int) -> np.ndarray:
    i, j = np.triu_indices(n)
    out = np.empty(flat.shape[:-1] + (n, n))
    out[..., i, j] = flat
    out[..., j, i] = flat
    return out


def values_from_sums(sums: np.ndarray, layout: PooledLayout, margins: np.ndarray, splits: np.ndarray,
                     item_weights, observer_weights: np.ndarray | None = None,
                     split_index: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """The values of :func:`condition_values` (Pearson, accuracy index) from weighted sums of the statistics.

    Parameters
    ----------
    sums : numpy.ndarray
        (R x S) ``item_weights @ statistics`` of :func:`pooled_statistics`.
    layout : PooledLayout
        The layout returned with the statistics.
    margins : numpy.ndarray
        (M x I) model margins, for the exact constancy test of a margin vector with a tiny variance.
    splits : numpy.ndarray
        (S x H) membership of half A.
    item_weights : callable
        ``item_weights(rows) -> (len(rows) x I)``: the weights of some rows (only needed where a margin
        vector may be constant).
    observer_weights, split_index : as in :func:`condition_values`.

    Returns
    -------
    dict
        As :func:`condition_values`.

    Raises
    ------
    ValueError
        If the statistics were made with ``per_observer=False`` and observer weights are given.

    Examples
    --------
    The same values as the explicit path (see :func:`condition_values`):

    >>> c = np.array([[1.0, 0.0, 1.0, 1.0], [1.0, 0.0, 0.0, 1.0]])  # 2 humans x 4 items, one response each
    >>> margins, model_correct = np.array([[2.0, -1.0, 0.5, 1.0]]), np.array([[1.0, 0.0, 1.0, 1.0]])
    >>> stats, layout = pooled_statistics(c, np.ones_like(c), margins, model_correct)
    >>> w = np.ones((1, 4))
    >>> v = values_from_sums(w @ stats, layout, margins, np.array([[True, False]]), lambda rows: w[rows])
    >>> round(float(v["hh_r"][0, 0]), 4), round(float(v["mh"][0, 0]), 4)
    (0.5774, 0.94)
    """
    n_rows = sums.shape[0]
    n_h, n_m = layout.n_humans, layout.n_models
    n = sums[:, 0]
    p = sums[:, layout.counts]
    q_flat = sums[:, layout.count_products]
    t = layout.trials_per_item
    shared = observer_weights is None or (observer_weights.shape[0] == 1 and n_rows != 1)
    u = np.ones(n_h) if observer_weights is None else (observer_weights[0] if shared else observer_weights)
    if layout.pooled_only and not (shared and np.all(u == 1.0)):
        raise ValueError("these statistics hold the pooled counts only; observer weights need per_observer=True")
    ih, jh = _triangle(n_h)
    with np.errstate(divide="ignore", invalid="ignore"):
        if shared:
            # (u' Q)_h and u' Q u straight from the upper triangle of Q (no symmetric R x H x H copy).
            to_rows = np.zeros((ih.size, n_h))
            to_rows[np.arange(ih.size), ih] += u[jh]
            off = ih != jh
            to_rows[np.flatnonzero(off), jh[off]] += u[ih[off]]
            sum_c = p @ u
            qu = q_flat @ to_rows
            sum_cc = qu @ u
            if layout.pooled_only:
                sum_mc = sums[:, layout.cross]
            else:
                sum_mc = sums[:, layout.cross].reshape(n_rows, n_m, n_h) @ u
            total_trials = np.full(n_rows, float(t @ u))
            correct_sum = (p + layout.mean_correct * n[:, None]) @ u
        else:
            q = _symmetric(q_flat, n_h)
            sum_c = np.sum(p * u, axis=1)
            qu = np.einsum("rhg,rg->rh", q, u)
            sum_cc = np.sum(qu * u, axis=1)
            sum_mc = np.einsum("rmh,rh->rm", sums[:, layout.cross].reshape(n_rows, n_m, n_h), u)
            total_trials = u @ t
            correct_sum = np.sum((p + layout.mean_correct * n[:, None]) * u, axis=1)
        no_data = ~(total_trials > 0)
        out: dict[str, np.ndarray] = {}
        out["acc_h"] = np.where(no_data, np.nan, correct_sum / (n * total_trials)) if n_h else np.full(n_rows, np.nan)
        out["acc_m"] = sums[:, layout.model_correct] / n[:, None]
        mean_c = sum_c / n
        var_c = sum_cc / n - mean_c * mean_c
        flat_c = ~(var_c > COUNT_TOLERANCE) | no_data

        # Margin moments straight from the upper triangle: the variances and the model pairs.
        # The same operations as written out in the formulas, in place where a temporary can be reused (these
        # R x pairs arrays are the bulk of the work): every value keeps its bits.
        diagonal_columns, pair_columns = _margin_product_columns(n_m)
        n_column = n[:, None]
        products = sums[:, layout.margin_products]
        sum_m = sums[:, layout.margins]
        mean_m = sum_m / n_column
        var_m = products[:, diagonal_columns]
        var_m /= n_column
        var_m -= mean_m * mean_m
        np.clip(var_m, 0, None, out=var_m)
        first, second = model_pairs(n_m)
        pair_cov = products[:, pair_columns]
        pair_cov /= n_column
        mean_products = mean_m[:, first]
        mean_products *= mean_m[:, second]
        pair_cov -= mean_products
        flat_m = _flat_margins(margins, item_weights, var_m)
        sd_m = np.sqrt(var_m)
        cov_mc = sum_mc / n_column
        cov_mc -= mean_m * mean_c[:, None]
        mh = cov_mc / (sd_m * np.sqrt(np.clip(var_c, 0, None))[:, None])
        np.clip(mh, -1.0, 1.0, out=mh)
        mh[flat_m | flat_c[:, None]] = np.nan
        out["mh"] = mh
        sd_products = sd_m[:, first]
        sd_products *= sd_m[:, second]
        mm = pair_cov
        mm /= sd_products
        np.clip(mm, -1.0, 1.0, out=mm)
        if flat_m.any():
            mm[flat_m[:, first] | flat_m[:, second]] = np.nan
        out["mm"] = mm

        if n_h >= 2 and splits.shape[0]:
            members = splits.astype(float)
            if shared and split_index is None:
                v = members * u  # (S x H)
                sum_x = p @ v.T
                pair_weight = np.where(ih == jh, 1.0, 2.0)
                sum_xx = q_flat @ (v[:, ih] * v[:, jh] * pair_weight).T
                sum_xc = qu @ v.T
                trials_a = np.broadcast_to(v @ t, sum_x.shape)
            else:
                q = _symmetric(q_flat, n_h)
                v = members[None] if split_index is None else members[split_index]  # (1|R x S' x H)
                v = v * (u if shared else u[:, None, :])
                v = np.broadcast_to(v, (n_rows,) + v.shape[1:])
                sum_x = np.einsum("rsh,rh->rs", v, p)
                sum_xx = np.einsum("rsh,rhg,rsg->rs", v, q, v, optimize=True)
                sum_xc = np.einsum("rsh,rh->rs", v, qu)
                trials_a = v @ t
            mean_x = sum_x / n[:, None]
            var_x = sum_xx / n[:, None] - mean_x * mean_x
            cov_xc = sum_xc / n[:, None] - mean_x * mean_c[:, None]
            cov_xy = cov_xc - var_x
            var_y = var_c[:, None] - 2.0 * cov_xc + var_x
            r = cov_xy / np.sqrt(np.clip(var_x, 0, None) * np.clip(var_y, 0, None))
            empty = ~(trials_a > 0) | ~((total_trials[:, None] - trials_a) > 0)
            undefined = empty | ~(var_x > COUNT_TOLERANCE) | ~(var_y > COUNT_TOLERANCE)
            out["hh_r"] = np.where(undefined, np.nan, np.clip(r, -1.0, 1.0))
            out["hh"] = spearman_brown(out["hh_r"], 2.0)
        else:
            out["hh_r"] = out["hh"] = np.full((n_rows, 1), np.nan)
    return out


@functools.lru_cache(maxsize=256)
def _margin_product_columns(n_models: int) -> tuple[np.ndarray, np.ndarray]:
    """Positions of the squares and of the pair products among the margin products (upper triangle, j <= k)."""
    im, jm = _triangle(n_models)
    diagonal = im == jm
    return np.flatnonzero(diagonal), np.flatnonzero(~diagonal)


def _flat_margins(margins: np.ndarray, item_weights, var_m: np.ndarray) -> np.ndarray:
    """Exact constancy of each model's margins over the items with positive weight, where the variance is tiny."""
    out = np.zeros(var_m.shape, dtype=bool)
    rows, cols = np.nonzero(~(var_m > 1e-12))
    if rows.size:
        unique_rows = np.unique(rows)
        w = np.asarray(item_weights(unique_rows), dtype=float)
        position = np.searchsorted(unique_rows, rows)
        out[rows, cols] = constant_where_flat(margins[cols][:, None, :], w[position],
                                              np.zeros((rows.size, 1)))[:, 0]
    return out


def condition_columns(values: dict[str, np.ndarray]) -> np.ndarray:
    """Per-condition values -> (R x (5 + 2M)) columns.

    The columns: ceiling, raw split-half r, human accuracy, mean over model pairs, mean over models, then per
    model its DMC with the humans and its accuracy. Means skip undefined values (NaN only when every value
    is undefined).

    Parameters
    ----------
    values : dict of str to numpy.ndarray
        The output of :func:`condition_values` or :func:`values_from_sums`.

    Returns
    -------
    numpy.ndarray, (R, 5 + 2M)
        One row per row of the weights.

    Examples
    --------
    >>> c = np.array([[1.0, 0.0, 1.0, 1.0], [1.0, 0.0, 0.0, 1.0]])  # 2 humans x 4 items, one response each
    >>> margins, model_correct = np.array([[2.0, -1.0, 0.5, 1.0]]), np.array([[1.0, 0.0, 1.0, 1.0]])
    >>> v = condition_values(c, np.ones_like(c), margins, model_correct, np.array([[True, False]]), np.ones((1, 4)))
    >>> condition_columns(v).round(4).tolist()  # ceiling, r, acc_h, mean mm (no pair), mean mh, mh, acc_m
    [[0.7321, 0.5774, 0.625, nan, 0.94, 0.94, 0.75]]
    """
    n_rows = values["acc_h"].shape[0]
    n_models = values["mh"].shape[1]
    out = np.empty((n_rows, 5 + 2 * n_models))
    out[:, 0] = _nanmean(values["hh"])
    out[:, 1] = _nanmean(values["hh_r"])
    out[:, 2] = values["acc_h"]
    out[:, 3] = _nanmean(values["mm"]) if values["mm"].shape[1] else np.nan
    out[:, 4] = _nanmean(values["mh"]) if n_models else np.nan
    out[:, 5::2] = values["mh"]
    out[:, 6::2] = values["acc_m"]
    return out


def _nanmean(values: np.ndarray) -> np.ndarray:
    """Mean over the last axis skipping NaN; NaN (without a warning) where every value is NaN."""
    missing = np.isnan(values)
    if values.flags.c_contiguous and values.shape[-1] and not missing.any():
        # Nothing to skip: the same sum (same array layout, so the same order of additions) over all values.
        return values.sum(axis=-1) / values.shape[-1]
    ok = ~missing
    count = ok.sum(axis=-1)
    total = np.where(ok, values, 0.0).sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(count > 0, total / np.maximum(count, 1), np.nan)
