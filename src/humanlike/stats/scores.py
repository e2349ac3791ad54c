"""What a measure's result hands to a paired comparison: :class:`Scores` (one score per model, the human
ceiling, paired bootstrap replicates, and the intervals the measure reports), and the ceiling-normalised scales
of those scores (:func:`normalised_scores`: the ratio to the ceiling, :func:`ceiling_ratio`, and Brain-Score's
ceiled score, :func:`brainscore_ceiled`; docs/compare.md). The comparison itself is
:func:`humanlike.stats.comparison.compare_scores`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from ..resampling.weights import nanmean_quiet


@dataclass(frozen=True)
class Scores:
    """What a measure's result hands to the comparison: one score per model, the human ceiling, paired replicates.

    Attributes
    ----------
    measure : str
        The measure's name (``"error_consistency"``, ...).
    scope : str
        Which score (``"overall"`` or an experiment).
    models : tuple of str
        Model names.
    estimate : numpy.ndarray
        Scores, shape (M,).
    replicates : numpy.ndarray
        Their bootstrap replicates, shape (R, M), row r of every model from the same resampled data.
    ceiling : float
        The human–human score (NaN where the measure has none).
    ceiling_replicates : numpy.ndarray
        Its replicates, shape (R,), from the same resamples.
    chance : float
        The score of an observer unrelated to the humans (0 for a kappa or a correlation).
    settings : dict
        The settings of the result the scores come from.
    per_experiment : dict or None
        For the Brain-Score convention: ``{"experiments": names, "estimate": (E, M), "replicates": (R, E, M),
        "ceiling": (E,), "ceiling_replicates": (R, E)}``.
    reasons : tuple of str
        Why a model's score is undefined ("" where it is defined), one per model.
    ceiling_fixed : bool
        The ceiling is a fixed reference (e.g. 1 for a score that is already a ratio to the humans): models are
        compared with it, but it is not tested against chance.
    low, high : numpy.ndarray or None
        Each model's interval as the measure's own result reports it (shape (M,)); None: the percentile interval
        of :attr:`replicates` is shown instead.
    interval_method : tuple of str or None
        The method of each of those intervals (e.g. ``"profile likelihood"``, ``"percentile bootstrap"``).
    ceiling_low, ceiling_high : float
        The ceiling's interval as the measure's result reports it (used where ``ceiling_interval_method`` is set).
    ceiling_interval_method : str
        Its method; ``""``: the percentile interval of :attr:`ceiling_replicates` is shown instead.
    interval_level : float or None
        The level of the given intervals; :func:`compare_scores` refuses another level.

    Examples
    --------
    >>> s = Scores("error_consistency", "overall", ("a", "b", "c"), [0.3, 0.2, 0.1], np.zeros((4, 3)), 0.4,
    ...            np.full(4, 0.4))
    >>> s.select(["c", "a"]).estimate.tolist(), s.n_resamples
    ([0.1, 0.3], 4)
    """

    measure: str
    scope: str
    models: tuple
    estimate: np.ndarray
    replicates: np.ndarray
    ceiling: float = float("nan")
    ceiling_replicates: np.ndarray | None = None
    chance: float = 0.0
    settings: dict = field(default_factory=dict)
    per_experiment: dict | None = None
    reasons: tuple = ()
    ceiling_fixed: bool = False
    low: np.ndarray | None = None
    high: np.ndarray | None = None
    interval_method: tuple | None = None
    ceiling_low: float = float("nan")
    ceiling_high: float = float("nan")
    ceiling_interval_method: str = ""
    interval_level: float | None = None

    def __post_init__(self) -> None:
        estimate = np.asarray(self.estimate, dtype=float).reshape(-1)
        replicates = np.asarray(self.replicates, dtype=float)
        if replicates.ndim == 1:
            replicates = replicates[:, None]
        if replicates.size == 0:
            replicates = np.zeros((0, estimate.size))
        if replicates.shape[1] != estimate.size or len(self.models) != estimate.size:
            raise ValueError(f"{len(self.models)} models, {estimate.size} scores and {replicates.shape[1]} "
                             "replicate columns do not match")
        ceiling_replicates = (np.full(replicates.shape[0], np.nan) if self.ceiling_replicates is None
                              else np.asarray(self.ceiling_replicates, dtype=float).reshape(-1))
        if ceiling_replicates.size != replicates.shape[0]:
            raise ValueError(f"{ceiling_replicates.size} ceiling replicates for {replicates.shape[0]} resamples")
        object.__setattr__(self, "models", tuple(str(m) for m in self.models))
        object.__setattr__(self, "estimate", estimate)
        object.__setattr__(self, "replicates", replicates)
        object.__setattr__(self, "ceiling_replicates", ceiling_replicates)
        object.__setattr__(self, "reasons", tuple(self.reasons) if self.reasons else ("",) * estimate.size)
        given = [self.low is not None, self.high is not None, self.interval_method is not None]
        if any(given) and not all(given):
            raise ValueError("a score interval needs low, high and interval_method together")
        if all(given):
            low = np.asarray(self.low, dtype=float).reshape(-1)
            high = np.asarray(self.high, dtype=float).reshape(-1)
            methods = tuple(str(m) for m in self.interval_method)
            if not low.size == high.size == len(methods) == estimate.size:
                raise ValueError(f"{low.size} interval ends and {len(methods)} methods for {estimate.size} scores")
            object.__setattr__(self, "low", low)
            object.__setattr__(self, "high", high)
            object.__setattr__(self, "interval_method", methods)
        if (all(given) or self.ceiling_interval_method) and self.interval_level is None:
            raise ValueError("given score intervals need their interval_level")

    @property
    def n_resamples(self) -> int:
        """Number of paired replicates."""
        return int(self.replicates.shape[0])

    def select(self, models) -> Scores:
        """The scores of some models, in the order given.

        Parameters
        ----------
        models : sequence of str
            Model names, each one of :attr:`models`.

        Returns
        -------
        Scores

        Raises
        ------
        ValueError
            Naming a model that has no score, or naming one twice.
        """
        models = [str(m) for m in models]
        missing = [m for m in models if m not in self.models]
        if missing:
            raise ValueError(f"no {self.measure} score for model(s) {missing}; models: {list(self.models)}")
        if len(set(models)) != len(models):
            raise ValueError(f"a model is named twice in {models}")
        idx = [self.models.index(m) for m in models]
        per = self.per_experiment
        if per is not None:
            per = dict(per, estimate=per["estimate"][:, idx], replicates=per["replicates"][:, :, idx])
        given = self.interval_method is not None
        return replace(self, models=tuple(models), estimate=self.estimate[idx], replicates=self.replicates[:, idx],
                       per_experiment=per, reasons=tuple(self.reasons[k] for k in idx),
                       low=self.low[idx] if given else None, high=self.high[idx] if given else None,
                       interval_method=tuple(self.interval_method[k] for k in idx) if given else None)


def ceiling_ratio(estimate, replicates, ceiling, ceiling_replicates) -> tuple[np.ndarray, np.ndarray]:
    """Scores over the ceiling, ``a / c``, with the same ratio in every paired replicate.

    Parameters
    ----------
    estimate : array_like
        Scores, shape (M,).
    replicates : array_like
        Their replicates, shape (R, M).
    ceiling : float
        The human–human score.
    ceiling_replicates : array_like
        Its replicates, shape (R,).

    Returns
    -------
    (ratio, ratio_replicates) : tuple of numpy.ndarray
        Shapes (M,) and (R, M); NaN where the ceiling (or its replicate) is 0 or undefined.

    Examples
    --------
    >>> ratio, reps = ceiling_ratio([0.2, 0.4], [[0.2, 0.4], [0.1, 0.5]], 0.5, [0.5, 0.25])
    >>> ratio.tolist(), reps.tolist()
    ([0.4, 0.8], [[0.4, 0.8], [0.4, 2.0]])
    """
    c = float(ceiling)
    cr = np.asarray(ceiling_replicates, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.asarray(estimate, dtype=float) / (c if c != 0 else np.nan)
        reps = np.asarray(replicates, dtype=float) / np.where(cr != 0, cr, np.nan)[:, None]
    return ratio, reps


def brainscore_ceiled(raw, ceiling) -> np.ndarray:
    """Brain-Score's ceiled score of one Geirhos et al. (2021) error-consistency benchmark.

    ``clip(|raw| / |ceiling|, 0, 1)``, where ``raw`` is the model's EC with the humans (mean over conditions,
    then over subjects) and ``ceiling`` the human–human EC (mean over conditions, then over subject pairs). The
    absolute values are Brain-Score's ``ErrorConsistency.aggregate`` (``abs`` of the mean, applied to both);
    the division and the clipping to [0, 1] its ``_Geirhos2021ErrorConsistency.__call__`` (``raw_score /
    ceiling`` then ``bound_score``). A ceiling of 0 gives 1 (inf clipped), an undefined one NaN. Source:
    brain-score/vision, ``brainscore_vision/benchmarks/geirhos2021/benchmark.py`` and
    ``brainscore_vision/metrics/error_consistency/metric.py`` (docs/compare.md).

    Parameters
    ----------
    raw : array_like
        Model–human EC, any shape.
    ceiling : array_like
        Human–human EC, broadcastable against ``raw``.

    Returns
    -------
    numpy.ndarray
        Ceiled scores in [0, 1] (NaN where an input is NaN).

    Examples
    --------
    >>> brainscore_ceiled([0.1, -0.1, 0.5], 0.4).tolist()
    [0.25, 0.25, 1.0]
    """
    raw = np.abs(np.asarray(raw, dtype=float))
    ceiling = np.abs(np.asarray(ceiling, dtype=float))
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = raw / ceiling
    ratio = np.where(np.isnan(raw) | np.isnan(ceiling), np.nan, ratio)
    return np.clip(ratio, 0.0, 1.0)


#: Normalisations offered (None = the raw scores).
NORMALISATIONS = ("ceiling", "brainscore")


def normalised_scores(scores: Scores, normalise: str) -> tuple[np.ndarray, np.ndarray, str]:
    """The models' scores on a ceiling-normalised scale, with paired replicates.

    ``"ceiling"``: model score / human ceiling (:func:`ceiling_ratio`), on the scope's scores.
    ``"brainscore"``: per experiment :func:`brainscore_ceiled`, then the mean over experiments (how the
    Brain-Score leaderboard averages a parent's benchmarks; experiments where a model's score is undefined are
    left out of its mean), in every replicate alike.

    Parameters
    ----------
    scores : Scores
        The models' scores (``per_experiment`` needed for ``"brainscore"``).
    normalise : {"ceiling", "brainscore"}
        The normalisation.

    Returns
    -------
    (estimate, replicates, scale) : tuple
        Shapes (M,) and (R, M), and the scale's name for the output.

    Raises
    ------
    ValueError
        On an unknown normalisation, or ``"brainscore"`` for a measure without per-experiment scores.

    Examples
    --------
    >>> s = Scores("error_consistency", "overall", ("a",), [0.2], [[0.2], [0.1]], 0.4, [0.4, 0.5])
    >>> est, reps, scale = normalised_scores(s, "ceiling")
    >>> est.tolist(), reps[:, 0].tolist(), scale
    ([0.5], [0.5, 0.2], 'ratio to human ceiling')
    """
    if normalise == "ceiling":
        est, reps = ceiling_ratio(scores.estimate, scores.replicates, scores.ceiling, scores.ceiling_replicates)
        return est, reps, "ratio to human ceiling"
    if normalise == "brainscore":
        per = scores.per_experiment
        if per is None:
            raise ValueError(f"--normalise brainscore is Brain-Score's convention for the error-consistency "
                             f"benchmarks; {scores.measure} has no such convention (use --normalise ceiling)")
        est = nanmean_quiet(brainscore_ceiled(per["estimate"], per["ceiling"][:, None]), axis=0)
        reps = (nanmean_quiet(brainscore_ceiled(per["replicates"], per["ceiling_replicates"][:, :, None]), axis=1)
                if per["replicates"].shape[0] else np.zeros((0, est.size)))
        return est, reps, "Brain-Score ceiled (mean over experiments)"
    raise ValueError(f"normalise must be one of {NORMALISATIONS} or None, not {normalise!r}")
