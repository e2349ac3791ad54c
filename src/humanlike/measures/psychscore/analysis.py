"""The Psychophysical-Score (RichardWebster et al. 2023): how alike are the perceptual scales of a
model and of people on image blend sequences?

Pipeline: difference judgements (one row per trial) → pooled counts per observer and class pair
(every instance sequence, and for the reference every person, pooled into one class-level scale) →
MLDS fits of all scales at once (:func:`humanlike.measures.psychscore.scales.fit_count_scales`) → skewness S of every
standard scale → per observer the Psychophysical-Score |Spearman ρ(S_model, S_reference)| over class
pairs, and the variance of S over class pairs against a random observer.

Uncertainty: a bootstrap that resamples class pairs (the same draw for every observer) and, within
every scale, its trials (so every replicate refits every scale; all refits of a chunk are one batched
fit). The test that the reference scales are not chance is a likelihood-ratio test of every class-level
scale against the flat scale (χ², n_levels − 1 df), combined over class pairs by summing G (χ² with
the summed df), plus Benjamini-Hochberg per class pair.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ...trials.judgements import JudgementTableError, design_levels, from_presentation_order, validate_judgements
from ...stats.correlation import spearman_rows
from .metric import scale_skewness
from ...resampling.draws import BLOCK, item_weights
from ..measure_result import MeasureResult
from ...resampling.engine import warn_undefined
from ..mlds.glm import is_separable
from ...stats.multiple import benjamini_hochberg
from ...resampling.results import Resampled
from ...resampling.rng import stream
from ...resampling.settings import ResamplingSettings
from .scales import ScaleFits, design_matrix, fit_count_scales, flat_scale_test

RANDOM_BASELINE = "random"
DEFAULT_RESAMPLES = 1000
#: The default settings of :func:`psychophysical_score`: 1,000 resamples, level 0.95, seed 0.
DEFAULT_SETTINGS = ResamplingSettings(n_resamples=DEFAULT_RESAMPLES)


class JudgementError(JudgementTableError):
    """A difference-judgement table the Psychophysical-Score cannot use (names the column/row at fault).

    A :class:`humanlike.trials.judgements.JudgementTableError` (the tables are validated as MLDS validates
    them).

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"observer": "a", "class_a": "cat", "class_b": "dog", "s1": [1], "s2": [2],
    ...                       "s3": [3], "s4": [4], "response": [2]})
    >>> try:
    ...     normalise_judgements(table)
    ... except JudgementError as err:
    ...     print(err)
    column 'response' must be 0 or 1; 1 row(s), e.g. row 1 (observer=a, scale=cat-dog, s1=1, s2=2, s3=3, s4=4, response=2)
    """


@dataclass(frozen=True)
class ClassCounts:
    """Pooled counts: ``successes``/``totals`` (observers, class pairs, trial types) over ``trials``
    ((m, 4) ascending levels, S4 = 0 for triads). Made by :func:`pool_class_counts`.

    Parameters
    ----------
    observers : list of str
        Observer names, the reference first.
    kinds : list of str
        Each observer's kind (``human``, ``model``, ``random``).
    class_pairs : list of tuple of str
        The (class_a, class_b) pairs, sorted.
    trials : numpy.ndarray
        The distinct trial types, (m, 4) ascending stimulus levels (s4 = 0 for a triad).
    n_levels : int
        Levels per sequence.
    successes, totals : numpy.ndarray
        Responses 1 and trials per (observer, class pair, trial type), float arrays of the same shape.

    Examples
    --------
    >>> from humanlike.measures.psychscore.simulate import simulate_psychscore_demo
    >>> judgements = simulate_psychscore_demo(n_classes=3, n_humans=2)   # 3 class pairs, 2 humans, 2 models
    >>> counts = pool_class_counts(judgements)
    >>> counts.observers, counts.class_pairs[0], counts.totals.shape
    (['humans', 'model-alien', 'model-humanlike'], ('class-01', 'class-02'), (3, 3, 35))
    """

    observers: list
    kinds: list
    class_pairs: list
    trials: np.ndarray
    n_levels: int
    successes: np.ndarray
    totals: np.ndarray


def normalise_judgements(judgements: pd.DataFrame, *, units: str = "class pairs",
                         source: str | None = None) -> pd.DataFrame:
    """The judgement table in canonical form, through the one validation of judgement tables
    (:func:`humanlike.trials.judgements.validate_judgements`, which MLDS uses too).

    Columns in R's layout (``S1``..``S4``) are rows in presentation order and are put into physical
    order (:func:`humanlike.trials.judgements.from_presentation_order`); the tidy layout (``s1``..``s4``)
    is in physical order by definition, and a descending row there is an error, never silently flipped.

    Parameters
    ----------
    judgements : pandas.DataFrame
        A difference-judgement table (observer, class_a/class_b, scale or sequence, s1..s4/S1..S4, response).
    units : {"class pairs", "scales"}
        ``"class pairs"`` (the Psychophysical-Score): ``class_a`` and ``class_b`` are required, in every
        row. ``"scales"``: a table without class pairs makes every ``scale`` its own unit (``class_a`` =
        ``class_b`` = the scale id), e.g. MLDS data sets that are not blend sequences.
    source : str, optional
        File name used in error messages.

    Returns
    -------
    pandas.DataFrame
        The canonical, validated table.

    Raises
    ------
    JudgementError
        Naming the missing columns, or the rows (1-based) and column at fault.

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"observer": "a", "scale": "x", "S1": [1, 2], "S2": [2, 3], "S3": [3, 4],
    ...                       "S4": [4, 5], "response": [1, 0]})
    >>> normalise_judgements(table, units="scales")[["s1", "s4", "class_a", "class_b"]].values.tolist()
    [[1, 4, 'x', 'x'], [2, 5, 'x', 'x']]
    """
    if units not in ("class pairs", "scales"):
        raise ValueError(f"units must be 'class pairs' or 'scales', not {units!r}")
    where = f"{source}: " if source else ""
    presentation = any(f"S{k}" in judgements for k in range(1, 5))
    frame = judgements.rename(columns={f"S{k}": f"s{k}" for k in range(1, 5)})
    if "scale" not in frame and "sequence" in frame:
        frame = frame.rename(columns={"sequence": "scale"})
    has_classes = [c for c in ("class_a", "class_b") if c in frame]
    if units == "scales" and not has_classes and "scale" in frame:
        # Each scale its own unit, named (scale, scale): equal names are never mirrored.
        frame = frame.assign(class_a=frame["scale"].astype(str), class_b=frame["scale"].astype(str))
    elif len(has_classes) < 2:
        missing = [c for c in ("class_a", "class_b") if c not in frame]
        raise JudgementError(
            f"{where}judgement table lacks columns {missing}: the Psychophysical-Score pools every "
            "sequence of a class pair into one scale and needs class_a and class_b in every row "
            "(without class pairs, skewness_table treats each scale id as its own unit)")
    if "scale" not in frame and "class_a" in frame and "class_b" in frame:
        frame = frame.assign(scale=frame["class_a"].astype(str) + "-" + frame["class_b"].astype(str))
    try:
        if presentation:
            frame = from_presentation_order(frame, source=source)
        return validate_judgements(frame, source=source, required=("class_a", "class_b"))
    except JudgementTableError as err:
        raise JudgementError(str(err)) from None


def orient_judgements(judgements: pd.DataFrame, n_levels: int) -> pd.DataFrame:
    """Orient every class pair by sorted class names (physical order of the rows is assumed).

    A sequence running from the later to the earlier class name (class_a > class_b) is mirrored
    (level L → n + 1 − L, the tuple reversed so it stays ascending; its two pairs trade places, so the
    response flips) and its class names swapped. Skewness changes sign under this reversal, so without
    it the score would depend on how each sequence happened to be labelled.

    Parameters
    ----------
    judgements : pandas.DataFrame
        A normalised judgement table (:func:`normalise_judgements`).
    n_levels : int
        Levels per sequence.

    Returns
    -------
    pandas.DataFrame
        A copy with every class pair oriented (class_a < class_b).

    Raises
    ------
    JudgementError
        When a table mixing triads and quadruples would need mirroring.

    Examples
    --------
    A dog→cat sequence of 5 levels becomes cat→dog: (1, 2, 3, 5) turns into (1, 3, 4, 5), the response flips.

    >>> import pandas as pd
    >>> table = pd.DataFrame({"observer": "a", "class_a": "dog", "class_b": "cat", "s1": [1], "s2": [2],
    ...                       "s3": [3], "s4": [5], "response": [1]})
    >>> oriented = orient_judgements(table, n_levels=5)
    >>> oriented[["class_a", "class_b", "s1", "s2", "s3", "s4", "response"]].values.tolist()
    [['cat', 'dog', 1, 3, 4, 5, 0]]
    """
    frame = judgements.copy()
    quads = frame["s4"].notna().to_numpy()
    mirror = (frame["class_a"].astype(str) > frame["class_b"].astype(str)).to_numpy()
    if not mirror.any():
        return frame
    if quads.any() and not quads.all():
        raise JudgementError("a table mixing triads and quadruples cannot be mirrored; orient it first")
    cols = ["s1", "s2", "s3", "s4"] if quads.all() else ["s1", "s2", "s3"]
    levels = frame[cols].to_numpy(dtype=np.int64, copy=True)
    levels[mirror] = (n_levels + 1 - levels[mirror])[:, ::-1]
    for k, col in enumerate(cols):
        frame[col] = pd.array(levels[:, k], dtype="Int64")
    resp = frame["response"].to_numpy(dtype=np.int64, copy=True)
    frame["response"] = np.where(mirror, 1 - resp, resp)
    a = frame["class_a"].astype(str).to_numpy()
    b = frame["class_b"].astype(str).to_numpy()
    frame["class_a"] = np.where(mirror, b, a)
    frame["class_b"] = np.where(mirror, a, b)
    return frame


def pool_class_counts(judgements: pd.DataFrame, reference: str = "humans", n_levels: int | None = None,
                      *, units: str = "class pairs") -> ClassCounts:
    """Validate, orient and pool a judgement table into counts per observer and class pair.

    Parameters
    ----------
    judgements : DataFrame
        The difference-judgement table (:mod:`humanlike.trials.judgements`: observer, scale, s1..s4,
        response; the R layout's ``S1``..``S4`` are accepted) with ``class_a``/``class_b`` (without them
        every scale is its own unit) and ``observer_kind`` (``human``/``model``/``random``) when
        ``reference="humans"``.
    reference : str
        ``"humans"``: all observers of kind ``human`` pooled into one population observer ``humans``;
        otherwise the name of one observer.
    n_levels : int, optional
        Levels per sequence (default: the highest level in the table).
    units : {"class pairs", "scales"}
        See :func:`normalise_judgements`.

    Returns
    -------
    ClassCounts
        The reference is the first observer.

    Raises
    ------
    JudgementError
        On a malformed table, levels above ``n_levels``, a missing reference, or an observer without trials
        for some class pair.

    Examples
    --------
    >>> from humanlike.measures.psychscore.simulate import simulate_psychscore_demo
    >>> judgements = simulate_psychscore_demo(n_classes=3, n_humans=2)   # 3 class pairs, 2 humans, 2 models
    >>> counts = pool_class_counts(judgements)   # the two humans pooled into "humans"
    >>> counts.observers, counts.kinds, counts.n_levels
    (['humans', 'model-alien', 'model-humanlike'], ['human', 'model', 'model'], 7)
    """
    frame = normalise_judgements(judgements, units=units)
    level_cols = ["s1", "s2", "s3", "s4"]
    try:
        n_levels = design_levels(frame, n_levels=n_levels)
    except JudgementTableError as err:
        raise JudgementError(str(err)) from None
    frame = orient_judgements(frame, n_levels)
    frame["observer"] = frame["observer"].astype(str)
    if reference == "humans":
        if "observer_kind" not in frame:
            raise JudgementError("reference 'humans' needs an observer_kind column (human/model/random)")
        is_human = frame["observer_kind"].astype(str) == "human"
        if not is_human.any():
            raise JudgementError("reference 'humans': no observer of kind 'human' in the table")
        frame.loc[is_human, "observer"] = "humans"
    elif reference not in set(frame["observer"]):
        raise JudgementError(f"reference observer {reference!r} is not in the table")
    try:   # every scale (observer, class pair) must show every level: else a stray level voids them all
        design_levels(frame, ("observer", "class_a", "class_b"), n_levels=n_levels)
    except JudgementTableError as err:
        raise JudgementError(str(err)) from None
    kinds = (frame.groupby("observer")["observer_kind"].first().astype(str).to_dict()
             if "observer_kind" in frame else {})
    observers = [reference] + sorted(o for o in frame["observer"].unique() if o != reference)
    unique_pairs = frame[["class_a", "class_b"]].astype(str).drop_duplicates()
    class_pairs = sorted(zip(unique_pairs["class_a"], unique_pairs["class_b"]))
    tuples = frame[level_cols].fillna(0).to_numpy(dtype=np.int64)          # s4 = 0 marks a triad
    trials, trial_index = np.unique(tuples, axis=0, return_inverse=True)
    obs_index = pd.Categorical(frame["observer"], categories=observers).codes
    pair_keys = frame["class_a"].astype(str) + "\x00" + frame["class_b"].astype(str)
    pair_index = pd.Categorical(pair_keys, categories=[f"{a}\x00{b}" for a, b in class_pairs]).codes
    shape = (len(observers), len(class_pairs), len(trials))
    flat = np.ravel_multi_index((obs_index, pair_index, trial_index.ravel()), shape)
    totals = np.bincount(flat, minlength=np.prod(shape)).reshape(shape).astype(np.float64)
    successes = np.bincount(flat, weights=frame["response"].to_numpy(dtype=float),
                            minlength=np.prod(shape)).reshape(shape)
    empty = np.argwhere(totals.sum(axis=2) == 0)
    if len(empty):
        o, p = empty[0]
        raise JudgementError(f"observer {observers[o]!r} has no trials for class pair {class_pairs[p]}; "
                             "every observer must judge every class pair")
    return ClassCounts(observers, [kinds.get(o, "human" if o == "humans" else "model") for o in observers],
                       class_pairs, trials, n_levels, successes, totals)


def _add_random_observer(counts: ClassCounts, seed: int, name: str = RANDOM_BASELINE) -> ClassCounts:
    """Add a coin-flip observer judging each trial type as often as the first non-reference observer
    (or the reference when there is none): the chance baseline of the skewness variance."""
    if name in counts.observers:
        return counts
    template = counts.totals[1] if len(counts.observers) > 1 else counts.totals[0]
    rng = stream(seed, "random-baseline", name)
    k = rng.binomial(template.astype(np.int64), 0.5).astype(np.float64)
    return ClassCounts(counts.observers + [name], counts.kinds + ["random"], counts.class_pairs, counts.trials,
                       counts.n_levels, np.concatenate([counts.successes, k[None]]),
                       np.concatenate([counts.totals, template[None]]))


def _resampled_counts(counts: ClassCounts, seed: int, start: int, stop: int):
    """Trials resampled within every scale: resampling N trials from a scale's N is a multinomial draw
    over its (trial type × response) cells, which is what is drawn here (the same distribution as
    multinomial trial weights, 50x cheaper). Blocks of ``BLOCK`` resamples per key keep every
    replicate independent of the chunking."""
    n_obs, n_pairs, m = counts.totals.shape
    k_out = np.empty((stop - start, n_obs, n_pairs, m))
    n_out = np.empty_like(k_out)
    blocks = range(start // BLOCK, (stop - 1) // BLOCK + 1)
    for o, name in enumerate(counts.observers):
        for p, pair in enumerate(counts.class_pairs):
            cells = np.concatenate([counts.successes[o, p], counts.totals[o, p] - counts.successes[o, p]])
            total = int(round(cells.sum()))
            probs = cells / cells.sum()
            parts = []
            for b in blocks:
                draw = stream(seed, "trials", name, *pair, b).multinomial(total, probs, size=BLOCK)
                lo, hi = max(start - b * BLOCK, 0), min(stop - b * BLOCK, BLOCK)
                parts.append(draw[lo:hi])
            draws = np.concatenate(parts).astype(np.float64)
            k_out[:, o, p] = draws[:, :m]
            n_out[:, o, p] = draws[:, :m] + draws[:, m:]
    return k_out, n_out


def _confirm_separation(counts: ClassCounts, fit):
    """Cross-check the numerical separation flags with the exact linear-programming test
    (:func:`humanlike.measures.mlds.glm.is_separable`) on every point-estimate scale; a scale the LP finds
    separable but the iterations did not is refitted with the smoothing too."""
    x = design_matrix(counts.trials, counts.n_levels)
    lp = np.zeros(fit.separated.shape, dtype=bool)
    for o, p in np.ndindex(*fit.separated.shape):
        k, n = counts.successes[o, p], counts.totals[o, p]
        ones, zeros = k > 0, (n - k) > 0
        rows = np.concatenate([x[ones], x[zeros]])
        y = np.concatenate([np.ones(ones.sum()), np.zeros(zeros.sum())])
        lp[o, p] = is_separable(rows, y)
    extra = lp & ~fit.separated
    if not extra.any():
        return fit
    smoothed = fit_count_scales(counts.trials, counts.n_levels, counts.successes, counts.totals, separated=extra)
    psi = np.where(extra[..., None], smoothed.psi, fit.psi)
    return ScaleFits(psi, fit.loglik, fit.separated | lp, fit.n_trials, fit.converged)


def _pair_indices(weights: np.ndarray) -> np.ndarray:
    """Multinomial class-pair counts (R, P) → drawn indices (R, P)."""
    r, p = weights.shape
    counts = np.rint(weights).astype(np.int64)
    return np.repeat(np.tile(np.arange(p), r), counts.ravel()).reshape(r, p)


def _scores(skew: np.ndarray):
    """|ρ|, ρ and the variance of S over class pairs; ``skew`` (..., observers, pairs), reference first."""
    rho = spearman_rows(skew[..., 1:, :], skew[..., :1, :])
    with np.errstate(invalid="ignore"):
        var = np.var(skew, axis=-1, ddof=1)
    return np.abs(rho), rho, var


@dataclass(frozen=True, repr=False)
class PsychScoreResult(MeasureResult):
    """Psychophysical-Scores with bootstrap intervals, the class-level scales and the chance test.

    Attributes
    ----------
    scores : Resampled
        Columns labelled (observer, metric): ``psychophysical_score`` (|ρ|), ``rho`` (signed Spearman ρ)
        for every non-reference observer; ``skewness_variance`` for every observer incl. the reference
        and the random baseline.
    scales : DataFrame
        One row per observer and class pair: skewness with its bootstrap interval, sigma, separated,
        n_trials, the flat-scale LR test (G, p, p_bh) and the standard scale psi_1..psi_n.
    chance : DataFrame
        Per observer: the combined LR test against flat scales (G, df, p) and the number of class pairs
        rejecting flatness after Benjamini-Hochberg (α = 0.05).
    reference : str
        The reference observer (``"humans"`` for the pooled humans).
    settings : dict
        The options the score ran with (resamples, level, seed, separation handling, unconverged refits).

    Examples
    --------
    >>> from humanlike.measures.psychscore.simulate import simulate_psychscore_demo
    >>> judgements = simulate_psychscore_demo(n_classes=3, n_humans=2)   # 3 class pairs, 2 humans, 2 models
    >>> result = psychophysical_score(judgements, settings=ResamplingSettings(n_resamples=20, seed=0))
    >>> result.reference, result.scales.shape[0]   # 4 observers (with "random") x 3 class pairs
    ('humans', 12)
    >>> result.chance.set_index("observer")["class_pairs_not_flat"].to_dict()["humans"]
    3
    """

    scores: Resampled
    scales: pd.DataFrame
    chance: pd.DataFrame
    reference: str
    settings: dict = field(default_factory=dict)

    measure = "psychscore"
    text_formatter = "humanlike.measures.psychscore.cli:format_result"   # what its command prints
    resampled_field = "scores"
    group_label = "observer"

    @property
    def score(self) -> pd.Series:
        """Psychophysical-Score per observer (:attr:`estimate` holds every row of :meth:`to_frame`)."""
        frame = self.scores.to_frame()
        rows = frame[frame["metric"] == "psychophysical_score"]
        return pd.Series(rows["estimate"].to_numpy(), index=rows["observer"].to_numpy(), name="score")

    def to_wide(self, level: float | None = None) -> pd.DataFrame:
        """One row per observer (wide): score, its interval, ρ, variance of S with interval, separated scales, as
        ``humanlike psychscore`` writes it; :meth:`to_frame` is the tidy table (one row per estimate).

        Parameters
        ----------
        level : float, optional
            Confidence level of the intervals; defaults to the result's.

        Returns
        -------
        pandas.DataFrame
            Columns observer, score, score_ci_low, score_ci_high, undefined_share, reason, rho (and interval),
            variance_S (and interval), separated_scales; the reference has only the variance columns.
        """
        tidy = self.scores.to_frame(level)
        wide = []
        for observer, group in tidy.groupby("observer", sort=False):
            row = {"observer": observer}
            for rec in group.itertuples(index=False):
                prefix = {"psychophysical_score": "score", "rho": "rho", "skewness_variance": "variance_S"}[rec.metric]
                row[prefix] = rec.estimate
                row[f"{prefix}_ci_low"] = rec.ci_low
                row[f"{prefix}_ci_high"] = rec.ci_high
                if prefix == "score":
                    row["undefined_share"] = rec.undefined_share
                    row["reason"] = rec.reason
            wide.append(row)
        out = pd.DataFrame(wide)
        sep = self.scales.groupby("observer", sort=False)["separated"].sum().rename("separated_scales")
        return out.merge(sep, left_on="observer", right_index=True, how="left")

    def to_json_dict(self, level: float | None = None) -> dict:
        """The result as a dict of records, with the settings.

        Parameters
        ----------
        level : float, optional
            Confidence level of the intervals; defaults to the result's.

        Returns
        -------
        dict
            Keys reference, settings, observers (records of :meth:`to_wide`), chance and scales (records of
            those tables).
        """
        frame = self.to_wide(level)
        return {"reference": self.reference, "settings": dict(self.settings),
                "observers": frame.to_dict(orient="records"),
                "chance": self.chance.to_dict(orient="records"),
                "scales": self.scales.to_dict(orient="records")}


def psychophysical_score(judgements: pd.DataFrame, *, settings: ResamplingSettings | None = None,
                         reference: str = "humans", random_baseline: bool = True,
                         n_levels: int | None = None, chunk: int = BLOCK) -> PsychScoreResult:
    """Psychophysical-Score of every observer against the reference's class-level scales.

    Parameters
    ----------
    judgements : DataFrame
        The difference-judgement table (see :func:`pool_class_counts`), e.g. humans from
        :func:`humanlike.measures.psychscore.simulate.simulate_population` plus machine observers from
        :mod:`humanlike.measures.mlds.observers` / :mod:`humanlike.models.observer`.
    settings : ResamplingSettings, optional
        Resamples (0: estimates only), level of the percentile intervals, and the one seed for the random
        baseline and every resample (each from its own stream). Default :data:`DEFAULT_SETTINGS`
        (1,000 resamples). The intervals are percentile intervals over class pairs and the trials within
        every scale: ``interval`` must be ``"percentile"`` and ``observer_level`` ``"none"``.
    reference : str
        ``"humans"`` (all human observers pooled) or one observer's name.
    random_baseline : bool
        Add a coin-flip observer (``random``) unless the table has one.
    n_levels : int, optional
        Levels per sequence (default: the highest level in the table).
    chunk : int
        Resamples fitted together (memory ∝ chunk × observers × class pairs × trial types).

    Returns
    -------
    PsychScoreResult
        Scores with intervals, the class-level scales and the chance test.

    Raises
    ------
    JudgementError
        On a table that cannot be used (see :func:`pool_class_counts`) or fewer than 3 class pairs.

    Examples
    --------
    The demo's "humanlike" model shares the humans' skewness pattern over class pairs; the "alien" one
    reverses it (ρ = -1), so both score |ρ| = 1 but with opposite signs:

    >>> from humanlike.measures.psychscore.simulate import simulate_psychscore_demo
    >>> judgements = simulate_psychscore_demo(n_classes=3, n_humans=2)   # 3 class pairs, 2 humans, 2 models
    >>> result = psychophysical_score(judgements, settings=ResamplingSettings(n_resamples=20, seed=0))
    >>> result.to_wide().set_index("observer").loc[["model-humanlike", "model-alien"], "rho"].tolist()
    [1.0, -1.0]
    """
    settings = DEFAULT_SETTINGS if settings is None else settings
    if settings.interval != "percentile" or settings.observer_level != "none":
        raise ValueError("the Psychophysical-Score resamples class pairs and the trials within every scale, with "
                         "percentile intervals: interval must be 'percentile' and observer_level 'none', not "
                         f"{settings.interval!r} and {settings.observer_level!r}")
    n_resamples, level, seed = settings.n_resamples, settings.level, settings.seed
    counts = pool_class_counts(judgements, reference, n_levels)
    if random_baseline:
        counts = _add_random_observer(counts, seed)
    n_obs, n_pairs, _ = counts.totals.shape
    if n_pairs < 3:
        raise JudgementError(f"a rank correlation over class pairs needs at least 3 class pairs, got {n_pairs}")
    fit = _confirm_separation(counts, fit_count_scales(counts.trials, counts.n_levels, counts.successes, counts.totals))
    skew = scale_skewness(fit.psi)                                     # (observers, pairs)
    score, rho, var = _scores(skew)
    rep_skew = np.full((n_resamples, n_obs, n_pairs), np.nan)
    rep_score = np.full((n_resamples, n_obs - 1), np.nan)
    rep_rho = np.full((n_resamples, n_obs - 1), np.nan)
    rep_var = np.full((n_resamples, n_obs), np.nan)
    n_unconverged = 0
    for start in range(0, n_resamples, chunk):
        stop = min(start + chunk, n_resamples)
        k, n = _resampled_counts(counts, seed, start, stop)
        refit = fit_count_scales(counts.trials, counts.n_levels, k, n, start=fit.psi, tol=1e-8,
                                 separated=fit.separated)
        s = scale_skewness(refit.psi)                                  # (R, observers, pairs)
        s = np.where(refit.converged, s, np.nan)        # a fit that did not settle is no replicate
        n_unconverged += int(np.sum(~refit.converged))
        rep_skew[start:stop] = s
        idx = _pair_indices(item_weights(seed, ("class-pairs",), n_pairs, start, stop))
        drawn = np.take_along_axis(s, idx[:, None, :], axis=2)
        rep_score[start:stop], rep_rho[start:stop], rep_var[start:stop] = _scores(drawn)
    labels, estimate, reasons, columns = [], [], [], []
    for j, name in enumerate(counts.observers[1:]):
        reason = _score_reason(skew[j + 1], skew[0], name, counts.observers[0])
        for metric, est, rep in (("psychophysical_score", score[j], rep_score[:, j]), ("rho", rho[j], rep_rho[:, j])):
            labels.append((name, metric))
            estimate.append(est)
            reasons.append(reason)
            columns.append(rep)
    for j, name in enumerate(counts.observers):
        labels.append((name, "skewness_variance"))
        estimate.append(var[j])
        reasons.append("" if np.isfinite(var[j]) else "skewness undefined in some class pair")
        columns.append(rep_var[:, j])
    settings = {"n_resamples": n_resamples, "level": level, "seed": seed, "reference": reference,
                "resampling": "class pairs, and trials within every scale", "n_levels": counts.n_levels,
                "link": "probit",
                "separation": "detected (iterations and the LP test); refitted with +1/2 success and failure per "
                              "trial type"}
    settings["unconverged_replicate_fits"] = n_unconverged
    scores = Resampled(np.array(estimate), np.column_stack(columns) if n_resamples else np.zeros((0, len(labels))),
                       labels, ("observer", "metric"), np.array(reasons, dtype=object), settings=settings, level=level)
    warn_undefined(scores, "Psychophysical-Score")
    scales, chance = _scale_tables(counts, fit, skew, rep_skew, level)
    return PsychScoreResult(scores, scales, chance, counts.observers[0], settings)


def _score_reason(model_skew, ref_skew, name, ref) -> str:
    if not np.all(np.isfinite(model_skew)):
        return f"skewness of {name} undefined in some class pair (ψ_p = 0)"
    if not np.all(np.isfinite(ref_skew)):
        return f"skewness of {ref} undefined in some class pair (ψ_p = 0)"
    if np.ptp(model_skew) == 0:
        return f"skewness of {name} is the same in every class pair: rank correlation undefined"
    if np.ptp(ref_skew) == 0:
        return f"skewness of {ref} is the same in every class pair: rank correlation undefined"
    return ""


def _scale_tables(counts: ClassCounts, fit, skew, rep_skew, level):
    from scipy import stats as sps
    g, df, p = flat_scale_test(fit.loglik, fit.n_trials, counts.n_levels)
    n_obs, n_pairs = skew.shape
    if len(rep_skew) >= 2:
        with np.errstate(invalid="ignore"):
            lo, hi = np.nanquantile(rep_skew, [(1 - level) / 2, (1 + level) / 2], axis=0)
    else:
        lo = hi = np.full_like(skew, np.nan)
    standard = fit.standard
    rows, chance = [], []
    for o, name in enumerate(counts.observers):
        bh = benjamini_hochberg(p[o], 0.05)
        for q, (a, b) in enumerate(counts.class_pairs):
            row = {"observer": name, "observer_kind": counts.kinds[o], "class_a": a, "class_b": b,
                   "skewness": skew[o, q], "ci_low": lo[o, q], "ci_high": hi[o, q], "sigma": fit.sigma[o, q],
                   "separated": bool(fit.separated[o, q]), "n_trials": int(fit.n_trials[o, q]),
                   "G": g[o, q], "p_flat": p[o, q], "p_flat_bh": bh.adjusted[q]}
            row.update({f"psi_{k + 1}": standard[o, q, k] for k in range(counts.n_levels)})
            rows.append(row)
        total_g = float(np.sum(g[o]))
        total_df = df * n_pairs
        chance.append({"observer": name, "observer_kind": counts.kinds[o], "G": total_g, "df": total_df,
                       "p": float(sps.chi2.sf(total_g, total_df)), "class_pairs": n_pairs,
                       "class_pairs_not_flat": int(np.sum(bh.reject)), "separated_scales": int(fit.separated[o].sum())})
    return pd.DataFrame(rows), pd.DataFrame(chance)


def skewness_table(judgements: pd.DataFrame, n_levels: int | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Skewness, σ, separation and the flat-scale test of every (observer, class pair) scale, without a
    reference or a bootstrap — e.g. for MLDS data sets that are not class-pair blends (each ``scale``
    is then its own unit).

    Parameters
    ----------
    judgements : pandas.DataFrame
        A difference-judgement table (see :func:`pool_class_counts`); every observer counts on its own.
    n_levels : int, optional
        Levels per sequence (default: the highest level in the table).

    Returns
    -------
    (scales, chance) : tuple of pandas.DataFrame
        The tables of :class:`PsychScoreResult` (intervals NaN).

    Examples
    --------
    >>> from humanlike.measures.psychscore.simulate import simulate_psychscore_demo
    >>> scales, chance = skewness_table(simulate_psychscore_demo(n_classes=3, n_humans=2))
    >>> sorted(scales["observer"].unique())[:2], bool(chance["p"].lt(0.05).all())
    (['model-alien', 'model-humanlike'], True)
    """
    frame = judgements.copy()
    first = str(frame["observer"].iloc[0])
    counts = pool_class_counts(frame, reference=first, n_levels=n_levels, units="scales")
    fit = _confirm_separation(counts, fit_count_scales(counts.trials, counts.n_levels, counts.successes, counts.totals))
    skew = scale_skewness(fit.psi)
    return _scale_tables(counts, fit, skew, np.zeros((0,) + skew.shape), 0.95)
