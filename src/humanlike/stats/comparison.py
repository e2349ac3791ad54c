"""Paired comparisons of scores that share their bootstrap replicates (docs/compare.md).

Every measure's resampling runs all its output columns through the same resampled items (and observers), so
replicate ``r`` of model A and replicate ``r`` of model B come from the same resampled data set. The
difference of two scores therefore has its own bootstrap distribution, ``d*_r = a*_r - b*_r``, whose spread
includes the (usually positive) correlation of the two estimates; overlapping marginal intervals say little
about it.

Definitions (one place; docs/compare.md states the same):

* **difference** ``d = a - b`` of the two point estimates, its interval the percentile interval of the
  defined ``d*_r`` at the chosen level (a measure may hand better intervals for some pairs, ``pair_intervals``:
  EC on one table per pair uses MOVER, :mod:`humanlike.measures.compare.mover`; the ``interval`` column names
  each row's method), widened where needed to contain ``d`` (as every interval is:
  :func:`humanlike.resampling.intervals.containing_estimate`).
* **p-value** of ``d = 0``: the two-sided bootstrap test obtained by inverting the percentile interval, with
  the usual +1 correction,
  ``p = min(1, 2 (1 + min(#{d*_r <= 0}, #{d*_r >= 0})) / (1 + R))`` over the ``R`` defined replicates.
  Uncorrected, ``2 min(#{d* <= 0}, #{d* >= 0}) / R`` is the smallest ``alpha`` at which the ``1 - alpha``
  percentile interval excludes 0; the +1 keeps p above 0 (at least ``2 / (R + 1)``) and is never smaller.
  Identical scores (``d*_r = 0`` for every r) give exactly p = 1.
* **family** and **correction**: the p-values of one family (all pairs of the models compared; the models
  against the ceiling; the ceiling against chance) are adjusted together, by Holm's step-down (default, controls
  the family-wise error rate under any dependence) or Benjamini-Hochberg (false discovery rate,
  :func:`humanlike.stats.multiple.benjamini_hochberg`). A comparison is **resolved** when its adjusted p-value
  is at most ``alpha = 1 - level``.
* **ratio** to a ceiling: ``a / c`` with the percentile interval of ``a*_r / c*_r`` (same replicates).
* **a score's own interval**: each model's (and the ceiling's) raw score carries the interval the measure's own
  result reports for that number (``Scores.low``/``high``/``interval_method``, given by the adapters in
  :mod:`humanlike.measures.compare.adapters`), so one number never has two intervals; only where none is given
  is it the percentile interval of the replicates. The ceiling against chance (a constant) is the ceiling
  shifted, so its row carries the ceiling's own interval shifted by chance (its p-value stays the bootstrap's).

This module holds the p-value, the intervals and :func:`compare_scores` with its result; the scores handed to it
and their normalisations are in :mod:`humanlike.stats.scores`, Holm's and the other family corrections in
:mod:`humanlike.stats.multiple`, the compact letter display in :mod:`humanlike.stats.letters`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..resampling.intervals import containing_estimate, percentile_interval
from ..resampling.levels import check_level
from .letters import compact_letters
from .multiple import CORRECTIONS, adjust
from .scores import NORMALISATIONS, Scores, normalised_scores

#: Columns of :meth:`ComparisonResult.to_frame`.
COMPARISON_COLUMNS = ["measure", "scope", "comparison", "model_a", "model_b", "estimate_a", "estimate_b",
                      "difference", "ci_low", "ci_high", "p_value", "p_adjusted", "resolved", "family",
                      "family_size", "correction", "test", "interval", "scale", "undefined_share", "reason"]

#: Columns of :meth:`ComparisonResult.scores_frame`.
SCORE_COLUMNS = ["measure", "scope", "model", "estimate", "ci_low", "ci_high", "interval", "normalised",
                 "normalised_low", "normalised_high", "scale", "rank", "letters", "undefined_share", "reason"]

#: The bootstrap test of a zero difference, as named in the output's ``test`` column.
BOOTSTRAP_TEST = "paired bootstrap (percentile-interval inversion)"
#: The interval of a difference by default, as named in the output's ``interval`` column.
PERCENTILE_INTERVAL = "percentile (paired bootstrap)"
#: The ``interval`` of a row without an interval for want of resamples.
NO_RESAMPLES = "none (no resamples)"


def bootstrap_p_value(replicates, null: float = 0.0) -> np.ndarray:
    """Two-sided bootstrap p-value of ``difference == null`` from the replicates of the difference.

    ``p = min(1, 2 (1 + min(#{d* <= null}, #{d* >= null})) / (1 + R))`` per column over its ``R`` defined
    (non-NaN) replicates: the percentile-interval inversion with a +1 correction (see the module docstring).
    NaN where no replicate is defined.

    Parameters
    ----------
    replicates : array_like
        Replicates of the difference, shape (R,) or (R, K).
    null : float
        The value tested (0 for a difference; 1 for a ratio).

    Returns
    -------
    numpy.ndarray
        One p-value per column, shape (K,) (or a 0-d array for 1-d input).

    Examples
    --------
    >>> bootstrap_p_value(np.zeros(999)).tolist()   # identical scores
    1.0
    >>> float(bootstrap_p_value(np.arange(1.0, 1000.0)))   # every replicate above 0
    0.002
    """
    d = np.asarray(replicates, dtype=float)
    one = d.ndim == 1
    d = d[:, None] if one else d
    defined = ~np.isnan(d)
    n = defined.sum(axis=0)
    below = np.sum(defined & (d <= null), axis=0)
    above = np.sum(defined & (d >= null), axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.minimum(1.0, 2.0 * (1.0 + np.minimum(below, above)) / (1.0 + n))
    p = np.where(n > 0, p, np.nan)
    return p[0] if one else p


def _percentile_interval_containing(replicates: np.ndarray, estimate: np.ndarray,
                                    level: float) -> tuple[np.ndarray, np.ndarray]:
    if replicates.shape[0] < 2:
        nan = np.full(replicates.shape[1], np.nan)
        return nan, nan.copy()
    low, high = containing_estimate(*percentile_interval(replicates, level), estimate)   # as Resampled.interval
    defined = (np.sum(~np.isnan(replicates), axis=0) >= 2) & np.isfinite(estimate)
    return np.where(defined, low, np.nan), np.where(defined, high, np.nan)


def _score_intervals(scores: Scores, order: list, replicates: np.ndarray, estimate: np.ndarray,
                     level: float) -> tuple[np.ndarray, np.ndarray, list]:
    """The models' intervals (in ``order``) and their methods: the measure's own where :class:`Scores` carries
    them, else the percentile interval of the replicates."""
    if scores.interval_method is not None:
        return scores.low[order], scores.high[order], [scores.interval_method[k] for k in order]
    low, high = _percentile_interval_containing(replicates, estimate, level)
    method = PERCENTILE_INTERVAL if replicates.shape[0] >= 2 else NO_RESAMPLES
    return low, high, [method] * len(order)


def _undefined_share(replicates: np.ndarray) -> np.ndarray:
    if replicates.shape[0] == 0:
        return np.full(replicates.shape[1], np.nan)
    return np.isnan(replicates).mean(axis=0)


@dataclass(frozen=True)
class ComparisonResult:
    """Paired comparisons of models on one measure: every pair, each model against the ceiling, the ceiling
    against chance, and the scores (optionally ceiling-normalised) with a compact letter display.

    Attributes
    ----------
    comparisons : pandas.DataFrame
        One row per comparison, columns :data:`COMPARISON_COLUMNS`; ``comparison`` is ``"pair"``,
        ``"model vs ceiling"`` or ``"ceiling vs chance"``; ``family`` names the family the correction ran over.
    scores : pandas.DataFrame
        One row per model (by score, best first), columns :data:`SCORE_COLUMNS`; ``ci_low``/``ci_high`` are the
        interval the measure's own result reports for the score where the adapter gave it (``interval`` names
        its method), else the percentile interval of the replicates.
    ceiling : dict
        The human ceiling: estimate, ci_low, ci_high, interval (its method, chosen as for the models), chance.
    settings : dict
        The level, correction, normalisation and the settings of the measure's result.

    Examples
    --------
    >>> reps = np.array([0.5, 0.1]) + np.random.default_rng(0).normal(0, 0.01, (300, 2))
    >>> c = compare_scores(Scores("error_consistency", "overall", ("a", "b"), [0.5, 0.1], reps, 0.6,
    ...                           np.full(300, 0.6)))
    >>> c.resolved_pairs() == {frozenset({"a", "b"})}, sorted(c.to_frame()["comparison"].unique())
    (True, ['ceiling vs chance', 'model vs ceiling', 'pair'])
    """

    comparisons: pd.DataFrame
    scores: pd.DataFrame
    ceiling: dict
    settings: dict

    def to_frame(self) -> pd.DataFrame:
        """The tidy comparison table (:attr:`comparisons`).

        Returns
        -------
        pandas.DataFrame
            Columns :data:`COMPARISON_COLUMNS`.
        """
        return self.comparisons

    @property
    def pairs(self) -> pd.DataFrame:
        """The pairwise rows of :meth:`to_frame`."""
        c = self.comparisons
        return c[c["comparison"] == "pair"].reset_index(drop=True)

    def resolved_pairs(self) -> set:
        """The pairs whose difference is resolved.

        Returns
        -------
        set of frozenset
            Each a frozenset of two model names.
        """
        p = self.pairs
        return {frozenset((a, b)) for a, b in p.loc[p["resolved"], ["model_a", "model_b"]].itertuples(index=False)}

    def to_json_dict(self) -> dict:
        """JSON-ready: settings, ceiling, scores and comparisons (non-finite numbers as None).

        Returns
        -------
        dict
            Keys ``settings``, ``ceiling``, ``scores``, ``comparisons``.
        """
        return {"settings": _plain_dict(self.settings), "ceiling": _plain_dict(self.ceiling),
                "scores": _records(self.scores), "comparisons": _records(self.comparisons)}


def _plain(value):
    if isinstance(value, (float, np.floating)):
        return None if not math.isfinite(value) else float(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.bool_):
        return bool(value)
    return value


def _plain_dict(d: dict) -> dict:
    return {k: _plain(v) for k, v in d.items()}


def _records(frame: pd.DataFrame) -> list[dict]:
    return [{k: _plain(v) for k, v in row.items()} for row in frame.to_dict("records")]


def _replace_intervals(pairs: pd.DataFrame, intervals: pd.DataFrame) -> None:
    """Put ``intervals`` (of ``model_a - model_b``, either order) into the pair rows, in place."""
    given = {}
    for row in intervals.to_dict("records"):
        given[(row["model_a"], row["model_b"])] = (row["ci_low"], row["ci_high"], row["interval"])
        given[(row["model_b"], row["model_a"])] = (-row["ci_high"], -row["ci_low"], row["interval"])
    for k, (a, b) in enumerate(zip(pairs["model_a"], pairs["model_b"])):
        if (a, b) in given:
            low, high, name = given[(a, b)]
            pairs.loc[k, ["ci_low", "ci_high", "interval"]] = [float(low), float(high), name]


def compare_scores(scores: Scores, *, correction: str = "holm", level: float = 0.95,
                   normalise: str | None = None, extra_tests: pd.DataFrame | None = None,
                   pair_intervals: pd.DataFrame | None = None) -> ComparisonResult:
    """Every pair of models, each model against the ceiling, and the ceiling against chance.

    Pairs are formed in order of score (best first), so ``difference = estimate_a - estimate_b >= 0``. With
    ``normalise``, the scores and their pairwise differences are on the normalised scale
    (:func:`normalised_scores`) and each model is compared with the ceiling as ``normalised - 1``; the ceiling
    against chance stays on the raw scale. Definitions: module docstring and docs/compare.md.

    Parameters
    ----------
    scores : Scores
        The models' scores with paired replicates.
    correction : {"holm", "bh", "none"}
        The correction within each family.
    level : float
        Confidence level of the intervals; ``alpha = 1 - level`` decides "resolved".
    normalise : {"ceiling", "brainscore"} or None
        Compare normalised scores (None: raw).
    extra_tests : pandas.DataFrame, optional
        Further pairwise tests (columns model_a, model_b, p_value, test, reason), e.g. the exact label-exchange
        test of one EC table: added as rows with comparison ``"pair"`` and their own family, corrected alike.
    pair_intervals : pandas.DataFrame, optional
        Intervals of pairwise differences that replace the percentile interval (columns model_a, model_b,
        ci_low, ci_high, interval: the interval of ``model_a - model_b`` and its method's name), e.g. MOVER for
        two single-table EC values (:func:`humanlike.measures.compare.mover.ec_difference_interval`). Used on
        the raw scale only (ignored with ``normalise``); the p-values stay the bootstrap's.

    Returns
    -------
    ComparisonResult

    Raises
    ------
    ValueError
        On an unknown correction or normalisation, a level outside (0, 1), or fewer than two models.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> common = rng.normal(size=(400, 1))
    >>> reps = np.c_[0.5, 0.3, 0.29] + 0.02 * common + 0.01 * rng.normal(size=(400, 3))
    >>> s = Scores("error_consistency", "overall", ("a", "b", "c"), [0.5, 0.3, 0.29], reps, 0.6,
    ...            0.6 + 0.02 * common[:, 0])
    >>> result = compare_scores(s)
    >>> result.pairs[["model_a", "model_b", "resolved"]].values.tolist()
    [['a', 'b', True], ['a', 'c', True], ['b', 'c', False]]
    >>> result.scores["letters"].tolist()
    ['a', 'b', 'b']
    """
    _check_options(scores, correction, level, normalise)
    if normalise is None:
        est, reps, scale = scores.estimate, scores.replicates, "raw"
    else:
        est, reps, scale = normalised_scores(scores, normalise)
    order = _best_first(est)
    names = [scores.models[k] for k in order]
    est, reps = est[order], reps[:, order]
    reasons = [scores.reasons[k] for k in order]
    family = _ComparisonFamily(scores, level, correction, scale,
                     BOOTSTRAP_TEST if scores.n_resamples else NO_RESAMPLES)
    pairs = _pair_rows(family, names, est, reps, reasons)
    if pair_intervals is not None and len(pair_intervals) and normalise is None:
        _replace_intervals(pairs, pair_intervals)
    frames = [pairs]
    if extra_tests is not None and len(extra_tests):
        frames.append(_extra_test_rows(family, extra_tests, names, pairs))
    if np.isfinite(scores.ceiling):
        frames.append(_model_vs_ceiling_rows(family, names, est, reps, reasons, normalised=normalise is not None))
        if not scores.ceiling_fixed:
            frames.append(_ceiling_vs_chance_row(family))
    comparisons = pd.concat(frames, ignore_index=True)[COMPARISON_COLUMNS]
    score_frame = _score_table(scores, order, names, est, reps, reasons, pairs, level, scale,
                               normalised=normalise is not None)
    settings = dict(scores.settings, level=level, correction=correction, normalise=normalise,
                    notes=_resolution_notes(scores, pairs, level, correction),
                    measure=scores.measure, scope=scores.scope, n_resamples=scores.n_resamples,
                    p_value="bootstrap: min(1, 2 (1 + min(#{d* <= 0}, #{d* >= 0})) / (1 + R))")
    return ComparisonResult(comparisons, score_frame, _ceiling_summary(scores, level), settings)


def _check_options(scores: Scores, correction: str, level: float, normalise: str | None) -> None:
    """Refuse a level, correction or normalisation :func:`compare_scores` does not know, intervals given at
    another level, and fewer than two models."""
    check_level(level)
    given = scores.interval_method is not None or scores.ceiling_interval_method
    if given and float(scores.interval_level) != float(level):
        raise ValueError(f"the scores carry their measure's intervals at level {scores.interval_level}; compare "
                         f"them at that level, or take the scores from the result at level {level}")
    if correction not in CORRECTIONS:
        raise ValueError(f"correction must be one of {CORRECTIONS}, not {correction!r}")
    if normalise is not None and normalise not in NORMALISATIONS:
        raise ValueError(f"normalise must be one of {NORMALISATIONS} or None, not {normalise!r}")
    if len(scores.models) < 2:
        raise ValueError(f"a comparison needs at least two models; got {list(scores.models)}")


def _best_first(estimates: np.ndarray) -> list[int]:
    """The models' positions by score, best first (undefined last), ties in the order given."""
    return sorted(range(len(estimates)), key=lambda k: (not np.isfinite(estimates[k]), -np.nan_to_num(estimates[k])))


@dataclass(frozen=True)
class _ComparisonFamily:
    """What every family of comparisons of one call shares: the scores, the level, the correction, the scale
    and the name of the test."""

    scores: Scores
    level: float
    correction: str
    scale: str
    test: str

    def rows(self, kind, family, a_names, b_names, est_a, est_b, diff, diff_reps, reasons, null: float = 0.0,
             scale: str | None = None) -> pd.DataFrame:
        """One family's rows: each difference with its percentile interval and bootstrap p-value, the p-values
        adjusted together (:data:`COMPARISON_COLUMNS`)."""
        low, high = _percentile_interval_containing(diff_reps, diff, self.level)
        p = bootstrap_p_value(diff_reps, null) if diff_reps.shape[0] else np.full(diff.size, np.nan)
        p = np.where(np.isfinite(diff), p, np.nan)
        padj = adjust(p, self.correction)
        size = int(np.isfinite(p).sum())
        return pd.DataFrame({
            "measure": self.scores.measure, "scope": self.scores.scope, "comparison": kind,
            "model_a": list(a_names), "model_b": list(b_names), "estimate_a": est_a, "estimate_b": est_b,
            "difference": diff, "ci_low": low, "ci_high": high, "p_value": p, "p_adjusted": padj,
            "resolved": np.nan_to_num(padj, nan=2.0) <= 1 - self.level,
            "family": f"{family} ({size} test{'s' if size != 1 else ''})", "family_size": size,
            "correction": self.correction, "test": self.test,
            "interval": PERCENTILE_INTERVAL if diff_reps.shape[0] >= 2 else NO_RESAMPLES,
            "scale": self.scale if scale is None else scale,
            "undefined_share": _undefined_share(diff_reps), "reason": list(reasons),
        })


def _pair_rows(family: _ComparisonFamily, names: list, est: np.ndarray, reps: np.ndarray,
               reasons: list) -> pd.DataFrame:
    """Every pair of models (best first, so ``difference >= 0``), one family."""
    ia, ib = np.triu_indices(len(names), k=1)
    pair_reasons = [("; ".join(r for r in (reasons[i], reasons[j]) if r)) for i, j in zip(ia, ib)]
    return family.rows("pair", f"all pairs of {len(names)} models", [names[i] for i in ia], [names[j] for j in ib],
                       est[ia], est[ib], est[ia] - est[ib], reps[:, ia] - reps[:, ib], pair_reasons)


def _extra_test_rows(family: _ComparisonFamily, extra_tests: pd.DataFrame, names: list,
                     pairs: pd.DataFrame) -> pd.DataFrame:
    """A measure's further pairwise tests as rows of their own family, in the order of the pair rows, each pair
    best first, corrected alike (no interval: the test gives a p-value only)."""
    m = len(names)
    extra = extra_tests.copy()
    size = int(np.isfinite(extra["p_value"].to_numpy(dtype=float)).sum())
    position = {n: k for k, n in enumerate(names)}
    flip = extra["model_a"].map(position) > extra["model_b"].map(position)
    extra.loc[flip, ["model_a", "model_b"]] = extra.loc[flip, ["model_b", "model_a"]].to_numpy()
    pair_order = {(a, b): k for k, (a, b) in enumerate(zip(pairs["model_a"], pairs["model_b"]))}
    extra = extra.assign(_order=[pair_order.get((a, b), len(pair_order))
                                 for a, b in zip(extra["model_a"], extra["model_b"])])
    extra = extra.sort_values("_order", kind="stable").drop(columns="_order").reset_index(drop=True)
    padj = adjust(extra["p_value"].to_numpy(dtype=float), family.correction)
    diff_lookup = {(f["model_a"], f["model_b"]): (f["estimate_a"], f["estimate_b"], f["difference"])
                   for f in pairs.to_dict("records")}
    values = [diff_lookup.get((a, b), (np.nan, np.nan, np.nan)) for a, b in zip(extra["model_a"], extra["model_b"])]
    return pd.DataFrame({
        "measure": family.scores.measure, "scope": family.scores.scope, "comparison": "pair",
        "model_a": extra["model_a"].to_numpy(), "model_b": extra["model_b"].to_numpy(),
        "estimate_a": [v[0] for v in values], "estimate_b": [v[1] for v in values],
        "difference": [v[2] for v in values], "ci_low": np.nan, "ci_high": np.nan,
        "p_value": extra["p_value"].to_numpy(dtype=float), "p_adjusted": padj,
        "resolved": np.nan_to_num(padj, nan=2.0) <= 1 - family.level,
        "family": f"{extra['test'].iloc[0]}: all pairs of {m} models ({size} test{'s' if size != 1 else ''})",
        "family_size": size, "correction": family.correction, "test": extra["test"].to_numpy(), "interval": "",
        "scale": family.scale,
        "undefined_share": np.nan, "reason": extra["reason"].to_numpy()})


def _model_vs_ceiling_rows(family: _ComparisonFamily, names: list, est: np.ndarray, reps: np.ndarray,
                           reasons: list, *, normalised: bool) -> pd.DataFrame:
    """Each model against the human ceiling, one family; on the normalised scale the ceiling is 1 (Brain-Score's
    clipped scores reach it, never exceed)."""
    scores, m = family.scores, len(names)
    if normalised:
        ceiling_est, ceiling_reps = 1.0, 1.0
    else:
        ceiling_est, ceiling_reps = scores.ceiling, scores.ceiling_replicates[:, None]
    return family.rows("model vs ceiling", f"{m} models vs the human ceiling", names, ["human ceiling"] * m,
                       est, np.full(m, ceiling_est), est - ceiling_est, reps - ceiling_reps, reasons)


def _ceiling_vs_chance_row(family: _ComparisonFamily) -> pd.DataFrame:
    """The human ceiling against chance, on the raw scale."""
    scores = family.scores
    row = family.rows("ceiling vs chance", "the human ceiling vs chance", ["human ceiling"], ["chance"],
                      np.array([scores.ceiling]), np.array([scores.chance]), np.array([scores.ceiling - scores.chance]),
                      scores.ceiling_replicates[:, None] - scores.chance, [""], scale="raw")
    if scores.ceiling_interval_method:
        # chance is a constant: the difference's interval is the ceiling's own, shifted (one number, one
        # interval); the p-value stays the bootstrap test's, named in ``test``
        row[["ci_low", "ci_high", "interval"]] = [scores.ceiling_low - scores.chance,
                                                  scores.ceiling_high - scores.chance, scores.ceiling_interval_method]
    return row


def _score_table(scores: Scores, order: list, names: list, est: np.ndarray, reps: np.ndarray, reasons: list,
                 pairs: pd.DataFrame, level: float, scale: str, *, normalised: bool) -> pd.DataFrame:
    """One row per model, best first: its raw score with its own interval, the normalised score, its rank and
    its letters (models that share a letter are not resolved apart)."""
    m = len(names)
    resolved = {frozenset((a, b)) for a, b, r in pairs[["model_a", "model_b", "resolved"]].itertuples(index=False)
                if r}
    letters = compact_letters(names, resolved)
    raw_est, raw_reps = scores.estimate[order], scores.replicates[:, order]
    raw_low, raw_high, raw_methods = _score_intervals(scores, order, raw_reps, raw_est, level)
    if normalised:
        n_low, n_high = _percentile_interval_containing(reps, est, level)
        n_est = est
    else:
        n_est, n_low, n_high = np.full(m, np.nan), np.full(m, np.nan), np.full(m, np.nan)
    return pd.DataFrame({
        "measure": scores.measure, "scope": scores.scope, "model": names, "estimate": raw_est, "ci_low": raw_low,
        "ci_high": raw_high, "interval": raw_methods, "normalised": n_est, "normalised_low": n_low,
        "normalised_high": n_high, "scale": scale, "rank": np.arange(1, m + 1), "letters": [letters[n] for n in names],
        "undefined_share": _undefined_share(reps), "reason": reasons})[SCORE_COLUMNS]


def _ceiling_summary(scores: Scores, level: float) -> dict:
    """The human ceiling with its own interval where the measure gave one, else the percentile interval of its
    replicates (none without two)."""
    ceiling = {"estimate": scores.ceiling, "ci_low": np.nan, "ci_high": np.nan, "interval": "",
               "chance": scores.chance}
    has_ceiling = np.isfinite(scores.ceiling)
    if has_ceiling and scores.ceiling_interval_method:
        ceiling.update(ci_low=float(scores.ceiling_low), ci_high=float(scores.ceiling_high),
                       interval=scores.ceiling_interval_method)
    elif has_ceiling and scores.n_resamples >= 2:
        lo, hi = _percentile_interval_containing(scores.ceiling_replicates[:, None], np.array([scores.ceiling]), level)
        ceiling.update(ci_low=float(lo[0]), ci_high=float(hi[0]), interval=PERCENTILE_INTERVAL)
    return ceiling


def _resolution_notes(scores: Scores, pairs: pd.DataFrame, level: float, correction: str) -> list[str]:
    """A note where the resamples are too few for any pair to be resolved after the correction."""
    if not scores.n_resamples:
        return []
    floor = 2.0 / (scores.n_resamples + 1)
    n_pairs = int(pairs["p_value"].notna().sum())
    best = floor * (n_pairs if correction == "holm" else 1)
    if best <= 1 - level:
        return []
    return [f"with {scores.n_resamples} resamples the smallest bootstrap p-value is {floor:.2g}; "
            f"after {correction} over {n_pairs} pairs no pair can be resolved at alpha "
            f"{1 - level:.2g}: use more resamples (at least {math.ceil(2 * n_pairs / (1 - level))})"]
