"""EC, MA and CLED of many observer pairs as per-item sufficient statistics and a reduction (docs/measures/ood-spectrum.md).

A bootstrap resample of the items of one condition is a weight vector ``w``; every quantity the three metrics
need is a weighted sum over items. :class:`PairAlignmentSums` builds, once per condition, the per-item
statistics (an items x S matrix) and reduces any (R x S) matrix of weighted sums to the metrics of every pair:

- EC: per pair, both correct, first correct, second correct and trials on the items both answered;
- MA: per pair, joint errors, joint errors with the same answer, and joint errors one-hot by each observer's
  answer, from which ``N_E``, the trace and the row / column marginals of the weighted joint-error matrix
  follow without forming the K x K matrices;
- CLED: per observer, error counts by (true class, wrong answer) — the weighted confusion tables — then
  Dirichlet posteriors, their entropies per observer and the mixture entropy per pair.

The estimate is the reduction of the plain sums (all weights 1), a resample the reduction of ``W @ S``, a
leave-one-item-out row the reduction of ``total - S[i]``: one code path for all three, in numpy, no
randomness. :meth:`PairAlignmentSums.resample` computes the same reduction for bootstrap weights in compiled
loops (:mod:`humanlike.measures.ood.compiled`, numba, loaded only then): EC and MA to the bit, CLED in float32.

Sparsity: resampling items can only lower counts, never create a count the data do not have, so columns that
are zero on the data are dropped. For CLED each pair's JSD then runs only over the (class, wrong answer) cells
where either observer erred on the data; the remaining cells of a class share one posterior value and enter in
closed form.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from .alignment_divergence import REASON_NO_ERRORS
from .alignment_metric import REASON_DEGENERATE_MA, REASON_NO_JOINT_ERRORS
from ..pairs.metric import UndefinedPolicy, kappa_from_counts_and_margins

NOT_OBSERVED = -2
NO_ANSWER_CODE = -1
MA_UNDEFINED = ("nan", "one")
CLED_MIXTURES = ("average", "pooled")
CLED_WEIGHTINGS = ("errors", "uniform")


@dataclass(frozen=True)
class AlignmentOptions:
    """How EC, MA and CLED treat their undefined cases and which CLED variant is computed.

    Parameters
    ----------
    policy : UndefinedPolicy or str
        Undefined EC (both observers constant), see :class:`humanlike.measures.pairs.metric.UndefinedPolicy`.
    ma_undefined : {"nan", "one"}
        MA without joint errors (or with expected agreement 1): NaN, or 1 as in the published code.
    cled_alpha : float
        Dirichlet prior of the CLED posteriors.
    cled_mixture : {"average", "pooled"}
        ``(P+Q)/2`` (a proper JSD) or the published code's pooled-count posterior.
    cled_log_base : float or None
        Logarithm base; None: 2 for ``"average"``, e for ``"pooled"``.
    cled_weighting : {"errors", "uniform"}
        Class weights of CLED.

    Examples
    --------
    >>> AlignmentOptions(cled_mixture="pooled").log_base == np.e
    True
    """

    policy: UndefinedPolicy | str = UndefinedPolicy.STRICT
    ma_undefined: str = "nan"
    cled_alpha: float = 0.5
    cled_mixture: str = "average"
    cled_log_base: float | None = None
    cled_weighting: str = "errors"

    def __post_init__(self) -> None:
        object.__setattr__(self, "policy", UndefinedPolicy(self.policy))
        for value, allowed, name in ((self.ma_undefined, MA_UNDEFINED, "ma_undefined"),
                                     (self.cled_mixture, CLED_MIXTURES, "cled_mixture"),
                                     (self.cled_weighting, CLED_WEIGHTINGS, "cled_weighting")):
            if value not in allowed:
                raise ValueError(f"{name} must be one of {allowed}, got {value!r}")
        if not self.cled_alpha > 0:
            raise ValueError(f"cled_alpha must be > 0, got {self.cled_alpha}")
        if self.cled_log_base is not None and not self.cled_log_base > 1:
            raise ValueError(f"cled_log_base must be > 1, got {self.cled_log_base}")

    @property
    def log_base(self) -> float:
        """Base of the logarithm in CLED (e for natural logs, 2 for bits)."""
        if self.cled_log_base is not None:
            return float(self.cled_log_base)
        return 2.0 if self.cled_mixture == "average" else float(np.e)


def pair_indices(n_humans: int, n_observers: int) -> tuple[np.ndarray, np.ndarray, int]:
    """Human-human pairs (i < j), then model-human pairs (model, human) in model-major order.

    Observers ``0..n_humans-1`` are the humans, the rest models.

    Parameters
    ----------
    n_humans : int
        Number of human observers (the first observers).
    n_observers : int
        Number of observers, humans and models.

    Returns
    -------
    first, second : numpy.ndarray
        Observer indices of each pair.
    n_human_pairs : int
        The first ``n_human_pairs`` pairs are human-human.

    Examples
    --------
    >>> f, s, n = pair_indices(2, 3)
    >>> f.tolist(), s.tolist(), n
    ([0, 2, 2], [1, 0, 1], 1)
    """
    hi, hj = np.triu_indices(n_humans, k=1)
    models = np.arange(n_humans, n_observers)
    mi = np.repeat(models, n_humans)
    mj = np.tile(np.arange(n_humans), models.size)
    return np.concatenate([hi, mi]).astype(int), np.concatenate([hj, mj]).astype(int), int(hi.size)


def _segment_matrix(group_of_row: np.ndarray, n_groups: int):
    """Sparse (n_groups x L) indicator whose product with an (L x R) array sums the rows of each group."""
    from scipy import sparse

    n = group_of_row.size
    return sparse.csr_matrix((np.ones(n), (group_of_row, np.arange(n))), shape=(n_groups, n))


def _segment_sums(values: np.ndarray, seg) -> np.ndarray:
    return np.asarray(seg @ values)


class PairAlignmentSums:
    """Per-item sufficient statistics of EC, MA and CLED for given observer pairs of one condition.

    Parameters
    ----------
    labels : array of int, shape (items,)
        True class codes ``0..K-1``.
    responses : array of int, shape (items, observers)
        Chosen class codes; ``-1`` no answer (wrong for EC, left out of MA and CLED), ``-2`` not observed.
    n_classes : int
        K.
    first, second : array of int
        Observer indices of the pairs.

    Attributes
    ----------
    statistics : numpy.ndarray
        (items x S) per-item statistics; weighted column sums go to :meth:`reduce`.

    Notes
    -----
    :meth:`resample` gives the same numbers as ``reduce(W @ statistics)`` for integer weights (a bootstrap
    resample), faster: the weighted sums skip the zeros of the sparse columns and the duplicates of the dense
    ones, EC and MA run in compiled loops (the same numbers), and CLED in a compiled float32 loop (resamples only:
    the estimate and jackknife rows go through :meth:`reduce` in float64).

    Examples
    --------
    >>> labels = np.array([0, 1, 2, 0])
    >>> resp = np.array([[0, 0], [2, 2], [1, 0], [1, 2]])
    >>> sums = PairAlignmentSums(labels, resp, 3, np.array([0]), np.array([1]))
    >>> ec, ma, cled = sums.reduce(sums.statistics.sum(axis=0, keepdims=True), AlignmentOptions())
    >>> round(float(ec[0, 0]), 3), round(float(ma[0, 0]), 3)   # same correctness; 1 of 3 joint errors agree
    (1.0, 0.143)
    """

    def __init__(self, labels, responses, n_classes: int, first, second):
        labels = np.asarray(labels, dtype=np.int64)
        responses = np.asarray(responses, dtype=np.int64)
        first = np.asarray(first, dtype=np.int64)
        second = np.asarray(second, dtype=np.int64)
        k = int(n_classes)
        if k < 2:
            raise ValueError(f"need at least 2 classes, got {k}")
        if responses.ndim != 2 or responses.shape[0] != labels.size:
            raise ValueError(f"responses must be (items x observers) with {labels.size} items, got {responses.shape}")
        if np.any((labels < 0) | (labels >= k)) or np.any(responses >= k) or np.any(responses < NOT_OBSERVED):
            raise ValueError(f"class codes must lie in 0..{k - 1} (responses: -1 no answer, -2 not observed)")
        self.k = k
        self.first, self.second = first, second
        n_items, n_obs = responses.shape
        self.n_items, self.n_obs, self.n_pairs = n_items, n_obs, first.size
        observed = responses != NOT_OBSERVED
        correct = (responses == labels[:, None]) & observed
        answered = responses >= 0
        wrong = answered & ~correct
        r = np.where(answered, responses, 0)
        p = first.size

        # EC: both correct, first correct, second correct, trials over the items both answered
        m1, m2 = observed[:, first], observed[:, second]
        x1, x2 = correct[:, first], correct[:, second]
        ec_block = np.concatenate([x1 & x2, x1 & m2, m1 & x2, m1 & m2], axis=1)

        # MA: joint error, same answer, joint error one-hot by each observer's answer
        jw = wrong[:, first] & wrong[:, second]
        same = jw & (r[:, first] == r[:, second])
        eye = np.eye(k, dtype=bool)
        rows = (jw[:, :, None] & eye[r[:, first]]).reshape(n_items, -1)
        cols = (jw[:, :, None] & eye[r[:, second]]).reshape(n_items, -1)
        ma_block = np.concatenate([jw, same, rows, cols], axis=1)
        self.ec_width, self.ma_width = ec_block.shape[1], ma_block.shape[1]

        # CLED: per observer error counts by (true class, wrong answer); wrong answers indexed 0..K-2
        km1 = k - 1
        cell = np.where(r < labels[:, None], r, r - 1)
        flat = labels[:, None] * km1 + cell
        ii, oo = np.nonzero(wrong)
        e0 = np.zeros((n_obs, k * km1), dtype=np.int64)
        np.add.at(e0, (oo, flat[ii, oo]), 1)
        nz_o, nz_c = np.nonzero(e0)
        self.n_nz = nz_o.size
        colid = np.full((n_obs, k * km1), self.n_nz, dtype=np.int64)
        colid[nz_o, nz_c] = np.arange(self.n_nz)
        cled_block = np.zeros((n_items, self.n_nz), dtype=bool)
        cled_block[ii, colid[oo, flat[ii, oo]]] = True
        oc = nz_o * k + nz_c // km1
        self.oc_of_col = oc
        nnz_oc = np.bincount(oc, minlength=n_obs * k)
        self.zero_cells_oc = (km1 - nnz_oc).astype(float)
        union = (e0[first] + e0[second]) > 0
        up, uc = np.nonzero(union)
        ci_col, cj_col = colid[first[up], uc], colid[second[up], uc]
        self.u_i = np.where(ci_col < self.n_nz, ci_col, self.n_nz + first[up] * k + uc // km1)
        self.u_j = np.where(cj_col < self.n_nz, cj_col, self.n_nz + second[up] * k + uc // km1)
        pc = up * k + uc // km1
        self.u_pc = pc
        nnz_pc = np.bincount(pc, minlength=p * k)
        self.zero_cells_pc = (km1 - nnz_pc).astype(float)
        self.pc_first = np.repeat(first * k, k) + np.tile(np.arange(k), p)
        self.pc_second = np.repeat(second * k, k) + np.tile(np.arange(k), p)
        self.n_union = pc.size

        # keep only the columns that are non-zero on the data: a resample cannot make them non-zero
        full = np.concatenate([ec_block, ma_block], axis=1)
        self.kept = np.flatnonzero(full.any(axis=0))
        self._indicators = np.concatenate([full[:, self.kept], cled_block], axis=1)
        self.n_dense = self.kept.size
        self._plan_resamples(ec_block, union)

    # Made on first use: the resamples need none of them (only the estimate and the numpy reduction do), so a
    # set-up run beside other work (the OOD spectrum's fit) does not spend its time on them.
    @cached_property
    def statistics(self) -> np.ndarray:
        """(items x S) per-item statistics, float32 (0/1); weighted column sums go to :meth:`reduce`."""
        return self._indicators.astype(np.float32)

    @cached_property
    def oc_seg(self):
        """Sparse (class rows x cells) indicator: its product sums the cells of each observer's class row."""
        return _segment_matrix(self.oc_of_col, self.n_obs * self.k)

    @cached_property
    def pc_seg(self):
        """Sparse ((pair, class) x union cells) indicator: its product sums each pair's and class's union cells."""
        return _segment_matrix(self.u_pc, self.n_pairs * self.k)

    @cached_property
    def _ma_dot_seg(self):
        return _segment_matrix(self._ma_dot_pair, self.n_pairs)

    def weighted_sums(self, weights) -> np.ndarray:
        """``weights @ statistics`` in float64 (R x S): exact whole numbers for bootstrap counts.

        The statistics are 0/1 indicators: with whole-number weights whose sums stay below 2**24, the float32
        product is exact, hence equal to the float64 one to the bit, without a float64 copy of the statistics.

        Parameters
        ----------
        weights : numpy.ndarray
            Item weights (R x items).

        Returns
        -------
        numpy.ndarray of float64
            Shape (R x S).

        Examples
        --------
        >>> sums = PairAlignmentSums(np.array([0, 1, 2]), np.array([[0, 1], [1, 1], [2, 0]]), 3, np.array([0]),
        ...                          np.array([1]))
        >>> w = np.array([[1.0, 2.0, 0.0], [0.5, 0.25, 1.0]])
        >>> bool(np.array_equal(sums.weighted_sums(w), w @ sums.statistics.astype(np.float64)))
        True
        """
        from .compiled import whole_and_largest

        w = np.asarray(weights)
        whole, largest = whole_and_largest(w)
        if whole and self.n_items * largest < 2**24:
            return (w.astype(np.float32) @ self.statistics).astype(np.float64)
        return w.astype(np.float64) @ self.statistics.astype(np.float64)

    def _plan_resamples(self, ec_block: np.ndarray, union: np.ndarray) -> None:
        """Index arrays of :meth:`resample` (computed once): which statistics each weighted sum needs."""
        p, k = self.n_pairs, self.k
        is_ec = self.kept < self.ec_width
        self._ec_pos, self._ec_cols = self.kept[is_ec], np.flatnonzero(is_ec)
        # rest = the sparse statistics, cells-major: MA columns kept, then the CLED columns
        self._rest_cols = np.concatenate([np.flatnonzero(~is_ec), self.n_dense + np.arange(self.n_nz)])
        ma_row = np.full(self.ma_width, -1)
        ma_row[self.kept[~is_ec] - self.ec_width] = np.arange(int((~is_ec).sum()))
        self._ma_n_rows, self._ma_trace_rows = ma_row[:p], ma_row[p:2 * p]
        r_rows = ma_row[2 * p:2 * p + p * k].reshape(p, k)
        c_rows = ma_row[2 * p + p * k:].reshape(p, k)
        both = (r_rows >= 0) & (c_rows >= 0)
        self._ma_r, self._ma_c = r_rows[both], c_rows[both]
        self._ma_dot_pair = np.nonzero(both)[0]
        self._ma_dot_start = np.searchsorted(self._ma_dot_pair, np.arange(p + 1)).astype(np.int64)
        self._n_ma_rest = int((~is_ec).sum())
        # dense EC columns: distinct columns only, expanded after the product (all-zero columns included)
        packed = np.ascontiguousarray(np.packbits(ec_block.T, axis=1))     # one byte string per column
        keys = packed.view(np.dtype((np.void, max(packed.shape[1], 1)))).ravel() if packed.size else \
            np.zeros(ec_block.shape[1], dtype=np.int8)
        _, first_of, expand = np.unique(keys, return_index=True, return_inverse=True)
        self._ec_unique = np.ascontiguousarray(ec_block[:, first_of], dtype=np.float32)
        self._ec_expand = expand.ravel()
        self._ec_rows = self._ec_expand.reshape(4, p).astype(np.int64)   # both, first, second correct, trials
        # The sparse sums of a resample: the joint errors of a pair are the sum of its row marginals, so only the
        # traces, the row marginals and the column marginals that meet a row marginal are summed (MA rows, in
        # rest order), then the CLED counts.
        trace = self._ma_trace_rows
        needed = np.unique(np.concatenate([trace[trace >= 0], r_rows[r_rows >= 0], self._ma_c]))
        position = np.full(self._n_ma_rest + 1, -1)
        position[needed] = np.arange(needed.size)
        self._fast_trace = position[trace].astype(np.int64)                 # -1 stays -1
        self._fast_n_rows = position[r_rows[r_rows >= 0]].astype(np.int64)  # pair-major
        self._fast_n_start = np.searchsorted(np.nonzero(r_rows >= 0)[0], np.arange(p + 1)).astype(np.int64)
        self._fast_dot_r = position[self._ma_r].astype(np.int64)
        self._fast_dot_c = position[self._ma_c].astype(np.int64)
        self._fast_n_ma = int(needed.size)
        fast_cols = np.concatenate([np.flatnonzero(~is_ec)[needed], self.n_dense + np.arange(self.n_nz)])
        # the (cells x items) 0/1 statistics summed per resample, as rows of item lists (CSR without values)
        item, cell = np.nonzero(self._indicators[:, fast_cols])
        by_cell = np.argsort(cell, kind="stable")
        self._fast_items = item[by_cell].astype(np.int64)
        self._fast_starts = np.concatenate([[0], np.cumsum(np.bincount(cell, minlength=fast_cols.size))]).astype(
            np.int64)
        # CLED of the resamples (compiled): only (pair, class) cells with an error on the data (the others have
        # weight 0 in every resample), each with its run of union cells (u_pc is sorted)
        pc_active, start = np.unique(self.u_pc, return_index=True)
        self._apc_first, self._apc_second = self.pc_first[pc_active], self.pc_second[pc_active]
        self._apc_pair = pc_active // k
        self._apc_union_start = np.append(start, self.u_pc.size).astype(np.int64)
        self._oc_start = np.searchsorted(self.oc_of_col, np.arange(self.n_obs * k + 1)).astype(np.int64)

    @property
    def width(self) -> int:
        """Columns of :attr:`statistics`."""
        return int(self._indicators.shape[1])

    def work_per_resample(self, cled_mixture: str = "average") -> int:
        """Floats (8 bytes) one resample needs inside :meth:`resample` (its largest temporaries), for memory budgets.

        Counted: the transposed weights, the dense and sparse weighted sums (float32) and the three outputs
        (float64). The compiled loops work in fixed blocks of resamples (a few hundred kB whatever the chunk);
        the ``'pooled'`` mixture runs the float32 numpy reduction, whose cell arrays (posteriors, counts, the
        union cells four times) are counted then.

        Parameters
        ----------
        cled_mixture : {"average", "pooled"}
            The CLED mixture the resamples will use.

        Returns
        -------
        int
            Number of float64-sized values per resample row.

        Examples
        --------
        >>> labels = np.array([0, 1, 2, 0])
        >>> resp = np.array([[0, 0], [2, 2], [1, 0], [1, 2]])
        >>> sums = PairAlignmentSums(labels, resp, 3, np.array([0]), np.array([1]))
        >>> sums.work_per_resample("average") <= sums.work_per_resample("pooled")
        True
        """
        float32 = self.n_items + self._ec_unique.shape[1] + self._fast_starts.size - 1
        if cled_mixture != "average":
            float32 += 4 * (self.n_nz + self.n_obs * self.k) + 4 * self.n_union + 4 * self.n_pairs * self.k
        return int(3 * self.n_pairs + (float32 + 1) // 2)

    def reduce(self, sums, options: AlignmentOptions) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """EC, MA and CLED of every pair from weighted sums of :attr:`statistics`.

        Parameters
        ----------
        sums : array, shape (R, S)
            Weighted column sums of :attr:`statistics` (float64 for the estimate; float32 is accepted).
        options : AlignmentOptions

        Returns
        -------
        ec, ma, cled : numpy.ndarray
            Each (R x pairs); NaN where undefined (see :func:`alignment_reasons`).
        """
        sums = np.asarray(sums)
        ec_sums = np.zeros((self.ec_width, sums.shape[0]), dtype=np.float64)
        ec_sums[self._ec_pos] = sums[:, self._ec_cols].T
        rest = np.ascontiguousarray(sums[:, self._rest_cols].T)
        return self._reduce_cells(ec_sums, rest, options)

    def resample(self, weights, options: AlignmentOptions) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """EC, MA and CLED of every pair under integer item weights: ``reduce(weights @ statistics)``, faster.

        The weighted sums are exact (integers below 2**24 in float32): the distinct dense columns by one matrix
        product, the sparse ones (MA, CLED) as sums over item lists
        (:func:`humanlike.measures.ood.compiled.indicator_sums`). EC and MA then come from compiled loops with
        :meth:`reduce`'s float64 formulas (the same numbers to the bit), CLED of the ``'average'`` mixture from a
        compiled float32 loop (:func:`humanlike.measures.ood.compiled.cled_average_resamples`, within float32
        rounding of :meth:`reduce`; the ``'pooled'`` mixture through the numpy reduction in float32). Weights
        that are not whole numbers >= 0, or too large for float32, go through :meth:`reduce`.

        Parameters
        ----------
        weights : array, shape (R, items)
            Bootstrap weights (multinomial counts), e.g. from :func:`humanlike.resampling.draws.item_weights`.
        options : AlignmentOptions

        Returns
        -------
        ec, ma, cled : numpy.ndarray
            Each (R x pairs); NaN where undefined.

        Examples
        --------
        >>> labels = np.array([0, 1, 2, 0, 1])
        >>> resp = np.array([[0, 0], [2, 2], [1, 0], [1, 2], [1, 0]])
        >>> sums = PairAlignmentSums(labels, resp, 3, np.array([0]), np.array([1]))
        >>> w = np.array([[1.0, 1, 1, 1, 1], [2, 0, 1, 1, 1]])
        >>> fast, plain = sums.resample(w, AlignmentOptions()), sums.reduce(w @ sums.statistics, AlignmentOptions())
        >>> bool(np.array_equal(fast[0], plain[0])), bool(np.allclose(fast[2], plain[2], atol=1e-6))
        (True, True)
        """
        from .compiled import cled_average_resamples, ec_ma_resamples, indicator_sums, whole_weights_transposed

        w = np.asarray(weights)
        wt, whole, largest = whole_weights_transposed(w)            # items x R
        if not whole or self.n_items * largest >= 2**24:
            return self.reduce(self.weighted_sums(w), options)
        rest = indicator_sums(self._fast_starts, self._fast_items, wt)
        ec, ma = ec_ma_resamples(self._ec_unique.T @ wt, self._ec_rows, rest, self._fast_trace, self._fast_n_start,
                                 self._fast_n_rows, self._ma_dot_start, self._fast_dot_r, self._fast_dot_c,
                                 options.policy.value, options.ma_undefined)
        ec, ma = ec.T, ma.T
        counts = rest[self._fast_n_ma:]
        if options.cled_mixture == "average":
            cled = cled_average_resamples(counts, self._oc_start, self._apc_first, self._apc_second,
                                          self._apc_pair, self._apc_union_start, self.u_i, self.u_j,
                                          self.n_pairs, self.k, options.cled_alpha, options.cled_weighting,
                                          options.log_base)
        else:
            cled = self._cled(counts, options)
        return ec, ma, cled

    def _reduce_cells(self, ec_sums, rest, options):
        """EC, MA, CLED from the EC sums (4 pairs x R) and the sparse sums (cells x R, MA then CLED rows)."""
        ec, ma = self._ec_ma(ec_sums, rest, options)
        return ec, ma, self._cled(rest[self._n_ma_rest:], options)

    def _ec_ma(self, ec_sums, rest, options):
        """EC and MA from the EC sums (4 pairs x R) and the sparse sums (cells x R, MA rows first)."""
        p = self.n_pairs
        both, one, two, trials = (ec_sums[i * p:(i + 1) * p].T for i in range(4))
        with np.errstate(invalid="ignore", divide="ignore"):
            ec = kappa_from_counts_and_margins(both, one, two, trials, options.policy)
        ec = np.where(trials > 0, ec, np.nan)
        b = rest.shape[1]
        ma_rest = rest[:self._n_ma_rest].astype(np.float64)
        n, trace = np.zeros((p, b)), np.zeros((p, b))
        for out, rows in ((n, self._ma_n_rows), (trace, self._ma_trace_rows)):
            present = rows >= 0
            out[present] = ma_rest[rows[present]]
        dot = _segment_sums(ma_rest[self._ma_r] * ma_rest[self._ma_c], self._ma_dot_seg)
        return ec, ma_from_agreement(n.T, trace.T, dot.T, options.ma_undefined)

    def _cled(self, c, options: AlignmentOptions) -> np.ndarray:
        # Cells-major layout (cells x resamples): gathers copy contiguous rows, segment sums run over rows.
        k, km1, p, o = self.k, self.k - 1, self.n_pairs, self.n_obs
        alpha = options.cled_alpha
        dt = np.float64 if c.shape[1] == 1 or c.dtype == np.float64 else np.float32
        b = c.shape[1]
        nz = self.n_nz
        c = np.ascontiguousarray(c, dtype=dt)
        n_oc = _segment_sums(c, self.oc_seg).astype(dt)
        d_oc = n_oc + dt(km1 * alpha)
        p0 = dt(alpha) / d_oc
        post = np.empty((nz + o * k, b), dtype=dt)
        post[:nz] = (c + dt(alpha)) / d_oc[self.oc_of_col]
        post[nz:] = p0
        ent = -_segment_sums(post[:nz] * np.log(post[:nz]), self.oc_seg)
        ent -= self.zero_cells_oc[:, None] * p0 * np.log(p0)
        mid = post[self.u_i]
        mid += post[self.u_j]
        mid *= 0.5
        m0 = 0.5 * (p0[self.pc_first] + p0[self.pc_second])
        if options.cled_mixture == "average":
            t = np.log(mid)
            t *= mid
            cross = -_segment_sums(t, self.pc_seg)
            cross -= self.zero_cells_pc[:, None] * m0 * np.log(m0)
        else:
            full = np.zeros((nz + o * k, b), dtype=dt)
            full[:nz] = c
            n_pool = n_oc[self.pc_first] + n_oc[self.pc_second] + dt(km1 * alpha)
            pooled = (full[self.u_i] + full[self.u_j] + dt(alpha)) / n_pool[self.u_pc]
            cross = -_segment_sums(mid * np.log(pooled), self.pc_seg)
            cross -= self.zero_cells_pc[:, None] * m0 * np.log(alpha / n_pool)
        jsd = np.maximum(cross - 0.5 * (ent[self.pc_first] + ent[self.pc_second]), 0.0) / np.log(options.log_base)
        ni, nj = n_oc[self.pc_first], n_oc[self.pc_second]
        any_err = (ni + nj) > 0
        w_raw = (ni + nj if options.cled_weighting == "errors" else any_err).astype(np.float64).reshape(p, k, b)
        total = w_raw.sum(axis=1)
        contrib = (w_raw * np.where(any_err, jsd, 0.0).reshape(p, k, b)).sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            value = contrib / total
        return np.where(total > 0, value, np.nan).T


def ma_from_sums(n, trace, rows, cols, undefined: str = "nan") -> np.ndarray:
    """MA from weighted joint-error counts ``n``, the trace and the row / column marginals (..., K).

    Same rules as :func:`humanlike.measures.ood.alignment_metric.misclassification_agreement`: undefined (NaN, or 1 with
    ``undefined='one'``) without joint errors or when the expected agreement is 1.

    Parameters
    ----------
    n : array_like, (...)
        Weighted number of joint errors.
    trace : array_like, (...)
        Weighted number of joint errors with the same wrong answer.
    rows, cols : array_like, (..., K)
        Weighted marginals of the joint-error matrix (observer 1's and observer 2's wrong answers).
    undefined : {"nan", "one"}, default "nan"
        The value where MA is undefined.

    Returns
    -------
    numpy.ndarray
        MA, shape of ``n``.

    Examples
    --------
    >>> float(ma_from_sums(np.array(4.0), np.array(2.0), np.array([2.0, 2.0]), np.array([2.0, 2.0])))
    0.0
    >>> float(ma_from_sums(np.array(8.0), np.array(6.0), np.array([4.0, 4.0]), np.array([4.0, 4.0])))
    0.5
    """
    return ma_from_agreement(n, trace, np.sum(rows * cols, axis=-1), undefined)


def ma_from_agreement(n, trace, rows_dot_cols, undefined: str = "nan") -> np.ndarray:
    """MA from joint-error counts ``n``, the trace and the dot product of the row and column marginals.

    The form of :func:`ma_from_sums` that needs only the classes where both marginals can be non-zero.

    Parameters
    ----------
    n : array_like
        Weighted joint-error counts per pair.
    trace : array_like
        Weighted joint errors with the same wrong answer (the trace of the joint-error matrix).
    rows_dot_cols : array_like
        Sum over classes of the row marginal times the column marginal of the joint-error matrix.
    undefined : {"nan", "one"}
        Value where MA is undefined (no joint errors, or expected agreement 1).

    Returns
    -------
    numpy.ndarray
        MA, (p_o - p_e) / (1 - p_e) with p_o = trace / n and p_e = rows_dot_cols / n².

    Examples
    --------
    >>> float(ma_from_agreement(np.array(4.0), np.array(2.0), np.array(8.0)))
    0.0
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        p_o = trace / n
        p_e = rows_dot_cols / (n * n)
        value = (p_o - p_e) / (1.0 - p_e)
    undefined_mask = (n <= 0) | (np.abs(1.0 - p_e) < 1e-12)
    return np.where(undefined_mask, 1.0 if undefined == "one" else np.nan, value)


#: Why a pair's alignment metric is undefined; a group mean, ratio or regime ratio is undefined when every value
#: it averages is.
UNDEFINED_REASONS = {
    "ec": "EC undefined: both observers constant, or no item both answered",
    "ma": f"MA undefined: {REASON_NO_JOINT_ERRORS} or {REASON_DEGENERATE_MA}",
    "cled": f"CLED undefined: {REASON_NO_ERRORS}",
    "ratio": "ratio undefined: EC + MA of the model or of the humans is undefined, or the humans' is 0 (in every "
             "condition averaged)",
}


def alignment_reasons(sums: PairAlignmentSums, ec, ma, cled) -> list[np.ndarray]:
    """Why each pair's EC, MA and CLED estimate is undefined (``''`` where defined), from the estimates.

    Parameters
    ----------
    sums : PairAlignmentSums
        The statistics the estimates came from.
    ec, ma, cled : array_like, (R, pairs)
        The estimates from :meth:`PairAlignmentSums.reduce`.

    Returns
    -------
    list of numpy.ndarray of str
        Three arrays (EC, MA, CLED), each shaped like the estimates.

    Examples
    --------
    >>> labels = np.array([0, 1, 2])
    >>> always_right = np.array([[0, 0], [1, 1], [2, 2]])
    >>> sums = PairAlignmentSums(labels, always_right, 3, np.array([0]), np.array([1]))
    >>> ec, ma, cled = sums.reduce(sums.statistics.sum(axis=0, keepdims=True), AlignmentOptions())
    >>> [str(r[0, 0]).split(":")[0] for r in alignment_reasons(sums, ec, ma, cled)]
    ['EC undefined', 'MA undefined', 'CLED undefined']
    """
    out = []
    for values, metric in ((ec, "ec"), (ma, "ma"), (cled, "cled")):
        out.append(np.where(np.isnan(np.asarray(values, dtype=float)), UNDEFINED_REASONS[metric], ""))
    return out
