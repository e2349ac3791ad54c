"""The MLDS pipeline: a judgement table in, one fitted difference scale per observer and scale out, with
bootstrap intervals and the goodness-of-fit tests where asked.

>>> from humanlike.measures.mlds.simulate import simulate_judgements
>>> table = simulate_judgements(np.linspace(0, 1, 7) ** 2, 0.15, repeats=3, seed=0)
>>> results = analyse_mlds(table, settings=ResamplingSettings(n_resamples=200, seed=1))
>>> round(float(results[0].sigma), 3) > 0, list(results.scale_table().columns)[:4]
(True, ['observer', 'scale_id', 'level', 'stimulus'])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ...resampling.settings import ResamplingSettings
from ...trials.judgements import validate_judgements
from .fit import METHODS, MldsFit, fit_mlds
from .glm import LINKS
from ..measure_result import MeasureResult
from ...resampling.results import Resampled
from .diagnostics import (MldsBootstrap, RunsDiagnostics, SixPointTest, bootstrap_mlds,
                                      runs_diagnostics, six_point_test)

#: The default settings of :func:`analyse_mlds`: no parametric bootstrap, level 0.95, seed 0.
DEFAULT_SETTINGS = ResamplingSettings(n_resamples=0)

@dataclass(repr=False)
class MldsResult(MeasureResult):
    """One difference scale with its uncertainty and tests.

    Made by :func:`analyse_mlds`.

    Attributes
    ----------
    observer, scale_id : str
        The observer and the scale id (``scale`` column) of the judgement table.
    fit : MldsFit
        The fit of the requested method (``scale``, ``standard_scale``, ``sigma`` ... are forwarded).
    glm_fit : MldsFit
        The glm fit the diagnostics simulate from (``fit`` itself when the method is ``"glm"``).
    bootstrap, six_point, runs : MldsBootstrap, SixPointTest, RunsDiagnostics or None
        Present where asked for; they simulate from and refit the glm fit (``glm_fit``), as R's MLDS.
    level : float
        Interval level.
    notes : list of str
        Why something asked for is missing (e.g. a separated fit has no bootstrap).

    Examples
    --------
    A scale that grows as the square of the stimulus level (true standard scale 0, 0.028, 0.111, 0.25, ...):

    >>> import numpy as np
    >>> from humanlike.measures.mlds.simulate import simulate_judgements
    >>> table = simulate_judgements(np.linspace(0, 1, 7) ** 2, 0.15, repeats=3, seed=0)  # 105 quadruples
    >>> results = analyse_mlds(table, settings=ResamplingSettings(n_resamples=20, seed=1))
    >>> result = results[0]
    >>> result.observer, result.scale_id, result.standard_scale.round(3).tolist()
    ('simulated', 'scale', [0.0, 0.074, 0.131, 0.233, 0.421, 0.667, 1.0])
    """

    observer: str
    scale_id: str
    fit: MldsFit
    glm_fit: MldsFit
    bootstrap: MldsBootstrap | None = None
    six_point: SixPointTest | None = None
    runs: RunsDiagnostics | None = None
    level: float = 0.95
    notes: list = field(default_factory=list)
    measure = "mlds"
    scope_label = "scale_id"
    settings: dict | None = None
    group_label = "observer"

    def __getattr__(self, name):
        if name in ("scale", "standard_scale", "sigma", "loglik", "aic", "daf", "n_trials", "misclassified",
                    "stimulus", "status", "reason", "link", "method", "n_levels"):
            return getattr(self.fit, name)
        raise AttributeError(name)

    def intervals(self, level: float | None = None) -> dict:
        """Percentile intervals of the bootstrap.

        Parameters
        ----------
        level : float, optional
            Confidence level in (0, 1); defaults to :attr:`level`.

        Returns
        -------
        dict
            ``{"standard_scale": (low, high), "scale": (low, high), "sigma": (low, high)}``: arrays with one
            value per stimulus level for the scales, floats for sigma; ``{}`` without a bootstrap.
        """
        if self.bootstrap is None:
            return {}
        level = self.level if level is None else level
        out = {}
        for quantity in ("standard_scale", "scale", "sigma"):
            low, high = self.bootstrap.result.where(quantity=quantity).interval(level)
            out[quantity] = (low[0], high[0]) if quantity == "sigma" else (low, high)
        return out

    def resampled_values(self) -> Resampled:
        """The scale values (``standard_scale`` and ``scale`` per stimulus level, ``sigma``) with the bootstrap's
        replicates (none without a bootstrap), labelled (observer, scale_id, quantity, level).

        Returns
        -------
        Resampled
        """
        if self.bootstrap is not None:
            values = self.bootstrap.result
        else:
            p = len(self.fit.scale)
            labels = ([("standard_scale", k) for k in range(1, p + 1)] + [("scale", k) for k in range(1, p + 1)]
                      + [("sigma", 0)])
            estimate = np.concatenate([self.fit.standard_scale, self.fit.scale, [self.fit.sigma]])
            values = Resampled(estimate, np.zeros((0, estimate.size)), labels, ("quantity", "level"),
                               level=self.level)
        reasons = np.where(np.isfinite(values.estimate), values.reasons, self.fit.reason or "undefined")
        return Resampled(values.estimate, values.replicates, [(self.observer, self.scale_id, *lab)
                                                              for lab in values.labels],
                         ("observer", "scale_id", *values.label_names), reasons, values.jackknife,
                         values.settings, values.level, values.method)

    def scale_table(self) -> pd.DataFrame:
        """One row per stimulus level (wide: scale, standard scale and the interval side by side), as
        ``humanlike mlds --out`` writes it; :meth:`to_frame` is the tidy table (one row per estimate).

        Returns
        -------
        pandas.DataFrame
            Columns observer, scale_id, level, stimulus, scale, standard_scale, scale_se, and with a bootstrap
            ci_low, ci_high (of the standard scale) and undefined_share (share of separated resamples); reason.
        """
        frame = self.fit.to_frame()
        frame.insert(0, "observer", self.observer)
        frame.insert(1, "scale_id", self.scale_id)
        if self.bootstrap is not None:
            low, high = self.intervals()["standard_scale"]
            frame["ci_low"], frame["ci_high"] = low, high
            frame["undefined_share"] = self.bootstrap.separated_share
        frame["reason"] = self.fit.reason
        return frame

    def to_json_dict(self) -> dict:
        """The result as a JSON-ready dict.

        Returns
        -------
        dict
            observer, scale_id and the fit's fields (:meth:`humanlike.measures.mlds.fit.MldsFit.to_json_dict`), plus
            level, intervals and bootstrap shares, six_point, runs and notes where present.
        """
        out = {"observer": self.observer, "scale_id": self.scale_id, **self.fit.to_json_dict()}
        if self.bootstrap is not None:
            iv = self.intervals()
            out["level"] = self.level
            out["intervals"] = {
                "standard_scale": {"low": iv["standard_scale"][0].tolist(), "high": iv["standard_scale"][1].tolist()},
                "scale": {"low": iv["scale"][0].tolist(), "high": iv["scale"][1].tolist()},
                "sigma": {"low": float(iv["sigma"][0]), "high": float(iv["sigma"][1])},
            }
            out["bootstrap"] = {"n_resamples": self.bootstrap.result.n_resamples,
                                "separated_replicates": self.bootstrap.result.settings.get("separated_replicates",
                                                                                            "exclude"),
                                "separated_share": self.bootstrap.separated_share,
                                "not_converged_share": self.bootstrap.not_converged_share}
        if self.six_point is not None:
            out["six_point"] = self.six_point.to_json_dict()
        if self.runs is not None:
            out["runs"] = self.runs.to_json_dict()
        if self.notes:
            out["notes"] = list(self.notes)
        return out


class MldsResults(list, MeasureResult):
    """The results of :func:`analyse_mlds`, one per (observer, scale), with tidy and JSON views.

    A list of :class:`MldsResult`, sorted by observer and scale id; :attr:`settings` records the settings
    of the run (its seed the normalised int that reproduces it).

    Examples
    --------
    >>> import numpy as np
    >>> from humanlike.measures.mlds.simulate import simulate_judgements
    >>> table = simulate_judgements(np.linspace(0, 1, 7) ** 2, 0.15, repeats=3, seed=0)  # 105 quadruples
    >>> results = analyse_mlds(table, settings=ResamplingSettings(n_resamples=20, seed=1))
    >>> len(results), results.scale_table().shape, results.to_frame().shape
    (1, (7, 11), (15, 10))
    """

    measure = "mlds"
    scope_label = "scale_id"
    group_label = "observer"
    # the summary, not list's dump of every result's arrays
    __repr__ = MeasureResult.__repr__
    __str__ = MeasureResult.__str__

    def resampled_values(self) -> Resampled:
        """Every result's values (:meth:`MldsResult.resampled_values`) side by side; a result with fewer
        resamples (none: no bootstrap) gets undefined (NaN) replicates to fill.

        Returns
        -------
        Resampled
        """
        parts = [r.resampled_values() for r in self]
        if not parts:
            return Resampled(np.zeros(0), np.zeros((0, 0)), [], ("observer", "scale_id", "quantity", "level"))
        n = max(part.n_resamples for part in parts)
        replicates = [np.vstack([part.replicates, np.full((n - part.n_resamples, len(part)), np.nan)])
                      for part in parts]
        first = parts[0]
        return Resampled(np.concatenate([part.estimate for part in parts]), np.hstack(replicates),
                         [lab for part in parts for lab in part.labels], first.label_names,
                         np.concatenate([part.reasons for part in parts]), None, first.settings, first.level,
                         first.method)

    def scale_table(self) -> pd.DataFrame:
        """Every result's :meth:`MldsResult.scale_table`, stacked (what ``humanlike mlds --out`` writes).

        Returns
        -------
        pandas.DataFrame
            One row per (observer, scale, stimulus level); empty when there are no results.
        """
        return pd.concat([r.scale_table() for r in self], ignore_index=True) if self else pd.DataFrame()

    def to_json_dict(self) -> dict:
        """Every result as a JSON-ready dict.

        Returns
        -------
        dict
            ``{"results": [MldsResult.to_json_dict(), ...], "settings": {...}}`` (settings when recorded).
        """
        out = {"results": [r.to_json_dict() for r in self]}
        if self.settings is not None:
            out["settings"] = self.settings
        return out


def analyse_mlds(table: pd.DataFrame, *, settings: ResamplingSettings | None = None, link: str = "probit",
                 method: str = "glm", six_point: int = 0, runs: int = 0,
                 observer: str | Sequence[str] | None = None, scale: str | Sequence[str] | None = None,
                 penalty: str | None = None, separated_replicates: str = "exclude") -> MldsResults:
    """Fit a difference scale per (observer, scale) of a judgement table, with optional diagnostics.

    Parameters
    ----------
    table : pandas.DataFrame
        A judgement table (:func:`humanlike.trials.judgement_files.load_judgements`).
    link : {"probit", "logit", "cauchit"}
        The link of the binomial model.
    method : {"glm", "optim", "power"}
        How the scale is fitted (see :func:`humanlike.measures.mlds.fit.fit_mlds`).
    settings : ResamplingSettings, optional
        ``n_resamples``: parametric bootstrap refits (0, the default of :data:`DEFAULT_SETTINGS`: none);
        ``level``: interval level; ``seed``: one seed for all simulations (each diagnostic and group has its
        own stream); ``memory_budget``: memory of one chunk of refits. The refits simulate from the fit
        (percentile intervals, no observer level).
    six_point, runs : int
        Simulations for the six-point test and the runs test (0: skip).
    observer, scale : str or list of str, optional
        Keep only these observers / scale ids.
    penalty : {None, "firth"}
        See :func:`humanlike.measures.mlds.fit.fit_mlds`.
    separated_replicates : {"exclude", "keep"}
        Bootstrap replicates without a finite maximum: left out (default) or kept where IRLS stopped, as
        R's ``boot.mlds`` (see :func:`humanlike.measures.mlds.diagnostics.bootstrap_mlds`).

    Returns
    -------
    MldsResults
        One :class:`MldsResult` per (observer, scale), sorted.

    Raises
    ------
    ValueError
        On an unknown link or method, a simulation count of 1 or below 0, or an observer/scale not in the
        table.

    Examples
    --------
    >>> import numpy as np
    >>> from humanlike.measures.mlds.simulate import simulate_judgements
    >>> table = simulate_judgements(np.linspace(0, 1, 7) ** 2, 0.15, repeats=3, seed=0)  # 105 quadruples
    >>> results = analyse_mlds(table, settings=ResamplingSettings(n_resamples=20, seed=1))
    >>> low, high = results[0].intervals()["sigma"]
    >>> bool(low < results[0].sigma < high)
    True
    """
    if link not in LINKS:
        raise ValueError(f"unknown link {link!r}; use one of {LINKS}")
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; use one of {METHODS}")
    settings = DEFAULT_SETTINGS if settings is None else settings
    bootstrap, seed, level = settings.n_resamples, settings.seed, settings.level
    for name, value in (("six_point", six_point), ("runs", runs)):
        if value < 0 or value == 1:
            raise ValueError(f"{name} must be 0 (skip) or at least 2 simulations, got {value}")
    frame = validate_judgements(table)
    for column, wanted in (("observer", observer), ("scale", scale)):
        if wanted is None:
            continue
        keep = [wanted] if isinstance(wanted, str) else list(wanted)
        missing = sorted(set(keep) - set(frame[column]))
        if missing:
            raise ValueError(f"{column}(s) {missing} not in the data; present: {sorted(frame[column].unique())}")
        frame = frame[frame[column].isin(keep)]
    results = MldsResults()
    results.settings = dict(n_resamples=settings.n_resamples, level=settings.level, seed=settings.seed,
                            six_point=six_point, runs=runs)
    for (obs, sid), group in frame.groupby(["observer", "scale"], sort=True):
        key = (str(obs), str(sid))  # every group draws from its own stream of the one seed
        fit = fit_mlds(group, link=link, method=method, penalty=penalty)
        glm = fit if method == "glm" else fit_mlds(group, link=link)
        result = MldsResult(str(obs), str(sid), fit, glm, level=level)
        if method != "glm" and (bootstrap or six_point or runs):
            result.notes.append("diagnostics simulate from and refit the glm fit (as R's boot.mlds does for "
                                "optim fits)")
        usable = glm.status in ("ok", "not_converged")
        if not usable and (bootstrap or six_point or runs):
            result.notes.append(f"no diagnostics: the glm fit is {glm.status!r} ({glm.reason})")
        if usable and bootstrap:
            result.bootstrap = bootstrap_mlds(glm, bootstrap, seed=seed, level=level, key=key,
                                              separated=separated_replicates, memory_budget=settings.memory_budget)
        if usable and six_point:
            if np.any(glm.levels[:, 3] == 0):
                result.notes.append("no six-point test: it is defined for quadruples, this scale has triads")
            else:
                try:
                    result.six_point = six_point_test(glm, six_point, seed=seed, key=key)
                except ValueError as err:
                    result.notes.append(f"no six-point test: {err}")
        if usable and runs:
            result.runs = runs_diagnostics(glm, runs, seed=seed, level=level, key=key)
        results.append(result)
    return results
