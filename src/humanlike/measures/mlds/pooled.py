"""One difference scale pooled across participants, with an interval that resamples participants.

Crowd designs give each participant part of the judgements (20 of 105 triads): no participant's own scale is
identified, but the pooled judgements identify one. Trials of one participant are not independent of each
other (one criterion, one attention level), so the pooled scale's interval resamples *participants* (each
with all their trials), through the resampling engine (:func:`humanlike.resampling.engine.bootstrap`): one
stratum per scale whose "items" are the participants, and a kernel that refits the scale to each resample's
participants (a participant drawn twice counts twice).

:func:`choose_fits` decides, per scale, between per-participant fits and the pooled one (``pool="auto"``:
pooled where some participant's own scale is not identified or separated); the choice and its reason are
recorded in the results' settings (``fits``) and so in the run's manifest.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from ...resampling.engine import bootstrap
from ...resampling.kernels import Output
from ...resampling.settings import ResamplingSettings
from ...trials.design import Design, Stratum
from ...trials.judgements import JudgementTableError, canonical_order, level_arrays, validate_judgements
from .diagnostics import MldsBootstrap
from .fit import MldsFit, design_matrix, fit_mlds
from .refit import refit_many

#: How :func:`choose_fits` pools: per participant where every one is identified (auto), always, or never.
POOLING = ("auto", "always", "never")
#: The observer name of a pooled scale.
POOLED = "pooled"


class ParticipantRefitKernel:
    """Refit one pooled scale per resample of the participants (a kernel of the resampling engine).

    Parameters
    ----------
    data : dict
        Stratum key -> (design matrix (n x p-1), responses (n,), participant of each row (n,), p).
    link : str
        The GLM link.

    Examples
    --------
    >>> from humanlike.measures.mlds.simulate import simulate_judgements
    >>> table = simulate_judgements(np.linspace(0, 1, 5), 0.1, repeats=2, seed=0)
    >>> table["observer"] = np.arange(len(table)) % 4
    >>> stratum, data = participant_stratum(table, "scale")
    >>> kernel = ParticipantRefitKernel({stratum.key: data}, "probit")
    >>> kernel.evaluate(stratum, np.ones((1, 4)), None).shape      # standard scale, scale (5 each), sigma
    (1, 11)
    """

    def __init__(self, data: dict, link: str) -> None:
        self.data = data
        self.link = link

    def width(self, stratum: Stratum) -> int:
        """Values per resample: the standard scale and the scale per level, and sigma.

        Parameters
        ----------
        stratum : Stratum
            One scale's stratum.

        Returns
        -------
        int
        """
        return 2 * self.data[stratum.key][3] + 1

    def bytes_per_resample(self, stratum: Stratum) -> int:
        """Working memory of one refit (the repeated design and a dozen trial vectors).

        Parameters
        ----------
        stratum : Stratum
            One scale's stratum.

        Returns
        -------
        int
            Bytes.
        """
        x = self.data[stratum.key][0]
        return 8 * 12 * x.shape[0] * (x.shape[1] + 1)

    def evaluate(self, stratum: Stratum, item_weights: np.ndarray, observer_weights) -> np.ndarray:
        """Refit the scale to each resample's participants (a participant drawn twice counts twice).

        Parameters
        ----------
        stratum : Stratum
            One scale's stratum (its items are the participants).
        item_weights : numpy.ndarray
            (R x participants) multinomial counts.
        observer_weights : None
            Unused (no observer level).

        Returns
        -------
        numpy.ndarray
            (R x :meth:`width`); NaN rows where the resample leaves a level without trials or is separated.
        """
        x, y, participant, p = self.data[stratum.key]
        out = np.full((item_weights.shape[0], 2 * p + 1), np.nan)
        counts = np.rint(item_weights).astype(np.int64)
        for r, weights in enumerate(counts):
            repeats = weights[participant]
            x_r, y_r = np.repeat(x, repeats, axis=0), np.repeat(y, repeats)
            if x_r.shape[0] == 0 or np.linalg.matrix_rank(x_r) < x.shape[1]:
                continue             # these participants leave a level without trials: no scale
            scale = refit_many(x_r, y_r[None], self.link).scale[0]
            with np.errstate(invalid="ignore", divide="ignore"):
                out[r] = np.concatenate([scale / scale[-1], scale, [1.0 / scale[-1]]])
        return out


def participant_stratum(table: pd.DataFrame, scale_id: str) -> tuple[Stratum, tuple]:
    """The stratum of one pooled scale (its items are the participants) and the kernel's data for it.

    Parameters
    ----------
    table : pandas.DataFrame
        The judgement rows of this scale, every participant's.
    scale_id : str
        The scale.

    Returns
    -------
    stratum : Stratum
    data : tuple
        (design matrix, responses, participant index of each row, number of levels).

    Examples
    --------
    >>> from humanlike.measures.mlds.simulate import simulate_judgements
    >>> table = simulate_judgements(np.linspace(0, 1, 5), 0.1, seed=0).assign(observer=lambda t: t.index % 3)
    >>> stratum, data = participant_stratum(table, "scale")
    >>> stratum.items.tolist(), data[3]
    (['0', '1', '2'], 5)
    """
    frame = canonical_order(validate_judgements(table))
    levels, y = level_arrays(frame)
    p = int(levels.max())
    codes, participants = pd.factorize(frame["observer"].astype(str), sort=True)
    stratum = Stratum((str(scale_id),), np.asarray(participants, dtype=str), (POOLED,),
                      {"participant": np.arange(len(participants), dtype=float)})
    return stratum, (design_matrix(levels, p), np.asarray(y, float), codes, p)


def participant_bootstrap(table: pd.DataFrame, scale_id: str, fit: MldsFit, settings: ResamplingSettings,
                          link: str = "probit") -> MldsBootstrap:
    """The pooled scale's bootstrap over participants (percentile intervals; undefined resamples left out).

    Parameters
    ----------
    table : pandas.DataFrame
        The judgement rows of this scale, every participant's.
    scale_id : str
        The scale (it names the stratum's random stream).
    fit : MldsFit
        The pooled fit (its values are the estimate).
    settings : ResamplingSettings
        ``n_resamples``, ``seed``, ``level``, ``memory_budget``.
    link : str
        The GLM link.

    Returns
    -------
    MldsBootstrap
        ``separated_share``: resamples without a finite scale (separated, or a level without trials).

    Examples
    --------
    >>> from humanlike.measures.mlds.fit import fit_mlds
    >>> from humanlike.measures.mlds.simulate import simulate_judgements
    >>> table = simulate_judgements(np.linspace(0, 1, 6) ** 2, 0.15, design="triad", repeats=4, seed=0)
    >>> table["observer"] = np.arange(len(table)) % 8                       # 8 participants, 10 trials each
    >>> boot = participant_bootstrap(table, "scale", fit_mlds(table), ResamplingSettings(n_resamples=50, seed=1))
    >>> low, high = boot.result.where(quantity="standard_scale").interval(0.95)
    >>> bool(low[2] < 0.16 < high[2])                                       # the true value at level 3
    True
    """
    stratum, data = participant_stratum(table, scale_id)
    p = data[3]
    labels = [("standard_scale", k) for k in range(1, p + 1)] + [("scale", k) for k in range(1, p + 1)] + [("sigma", 0)]
    key = stratum.key
    chosen = ResamplingSettings(n_resamples=settings.n_resamples, level=settings.level, seed=settings.seed,
                                memory_budget=settings.memory_budget, interval="percentile", workers=1)
    result = bootstrap(Design((stratum,)), ParticipantRefitKernel({key: data}, link), lambda values: values[key],
                       Output(labels, ("quantity", "level")), chosen)
    # the pooled fit's own values as the estimate (the kernel's unit-weight refit agrees to ~1e-10)
    result = dataclasses.replace(result, estimate=np.concatenate([fit.standard_scale, fit.scale, [fit.sigma]]))
    undefined = float(np.isnan(result.replicates[:, -1]).mean()) if result.n_resamples else 0.0
    return MldsBootstrap(result, undefined, 0.0)


def own_fit(rows: pd.DataFrame, pool: str, **options) -> MldsFit | None:
    """One participant's own fit of a scale; None where a level has no trial of theirs and pooling may help
    (``pool`` other than ``never``, under which the error names the participant and the level as before).

    Parameters
    ----------
    rows : pandas.DataFrame
        The participant's rows of the scale.
    pool : {"auto", "always", "never"}
        The pooling asked for.
    **options
        Passed to :func:`humanlike.measures.mlds.fit.fit_mlds`.

    Returns
    -------
    MldsFit or None

    Examples
    --------
    >>> rows = pd.DataFrame({"observer": "a", "scale": "s", "s1": [1, 1], "s2": [2, 2], "s3": [3, 5],
    ...                      "response": [1, 0]})                        # level 4 without a trial
    >>> own_fit(rows, "auto") is None
    True
    """

    try:
        return fit_mlds(rows, **options)
    except JudgementTableError:
        if pool == "never":
            raise
        return None


def fit_choice(per_participant: list[MldsFit], pool: str) -> tuple[str, str]:
    """Per-participant or pooled fits for one scale, and why.

    Parameters
    ----------
    per_participant : list of MldsFit
        Every participant's own glm fit of the scale (None: a level without trials, :func:`own_fit`).
    pool : {"auto", "always", "never"}
        ``auto``: pooled where some participant's scale is not identified or separated.

    Returns
    -------
    fit : {"per-participant", "pooled"}
    why : str

    Examples
    --------
    >>> class Fit:
    ...     def __init__(self, status): self.status = status
    >>> fit_choice([Fit("ok"), Fit("not_identified")], "auto")
    ('pooled', "1 of 2 participants' own scales are not identified or separated (not_identified 1)")
    >>> fit_choice([Fit("ok"), Fit("ok")], "auto")
    ('per-participant', "every participant's own scale is identified")
    """
    if pool not in POOLING:
        raise ValueError(f"unknown pooling {pool!r}; use one of {POOLING}")
    if pool == "always":
        return "pooled", "asked for (--pool always)"
    statuses = ["level without trials" if fit is None else fit.status for fit in per_participant]
    bad = [s for s in statuses if s not in ("ok", "not_converged")]
    if pool == "never" or not bad:
        why = ("asked for (--pool never)" if pool == "never" else "every participant's own scale is identified")
        return "per-participant", why
    kinds = ", ".join(f"{s} {bad.count(s)}" for s in sorted(set(bad)))
    return "pooled", (f"{len(bad)} of {len(statuses)} participants' own scales are not identified or separated "
                      f"({kinds})")
