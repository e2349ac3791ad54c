"""The MLDS pipeline: a judgement table in, one fitted difference scale per observer and scale out, with
bootstrap intervals and the goodness-of-fit tests where asked.

>>> from humanlike.data.simulate_mlds import simulate_judgements
>>> table = simulate_judgements(np.linspace(0, 1, 7) ** 2, 0.15, repeats=3, seed=0)
>>> results = analyse_mlds(table, bootstrap=200, seed=1)
>>> round(float(results[0].sigma), 3) > 0, list(results.to_frame().columns)[:4]
(True, ['observer', 'scale_id', 'level', 'stimulus'])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..data.judgements import validate_judgements
from ..stats.mlds import LINKS, METHODS, MldsFit, fit_mlds
from ..stats.mlds_diagnostics import (MldsBootstrap, RunsDiagnostics, SixPointTest, bootstrap_mlds,
                                      runs_diagnostics, six_point_test)


@dataclass
class MldsResult:
    """One difference scale with its uncertainty and tests.

    Attributes
    ----------
    observer, scale_id : str
    fit : MldsFit
        The fit of the requested method (``scale``, ``standard_scale``, ``sigma`` ... are forwarded).
    bootstrap, six_point, runs : optional
        Present where asked for; they simulate from and refit the glm fit (``glm_fit``), as R's MLDS.
    glm_fit : MldsFit
    level : float
    notes : list of str
        Why something asked for is missing (e.g. a separated fit has no bootstrap).
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

    def __getattr__(self, name):
        if name in ("scale", "standard_scale", "sigma", "loglik", "aic", "daf", "n_trials", "misclassified",
                    "stimulus", "status", "reason", "link", "method", "n_levels"):
            return getattr(self.fit, name)
        raise AttributeError(name)

    def intervals(self, level: float | None = None) -> dict:
        """Percentile intervals: ``{"standard_scale": (low, high), "scale": ..., "sigma": (low, high)}``."""
        if self.bootstrap is None:
            return {}
        level = self.level if level is None else level
        out = {}
        for quantity in ("standard_scale", "scale", "sigma"):
            low, high = self.bootstrap.result.where(quantity=quantity).interval(level)
            out[quantity] = (low[0], high[0]) if quantity == "sigma" else (low, high)
        return out

    def to_frame(self) -> pd.DataFrame:
        """One row per level: ids, level, stimulus, scale, standard_scale, its interval and undefined share."""
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
        """The result as a JSON-ready dict (numbers as plain floats, NaN as None), with the settings."""
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
                                "separated_share": self.bootstrap.separated_share,
                                "not_converged_share": self.bootstrap.not_converged_share}
        if self.six_point is not None:
            out["six_point"] = self.six_point.to_json_dict()
        if self.runs is not None:
            out["runs"] = self.runs.to_json_dict()
        if self.notes:
            out["notes"] = list(self.notes)
        return out


class MldsResults(list):
    """The results of :func:`analyse_mlds`, one per (observer, scale), with tidy and JSON views."""

    def to_frame(self) -> pd.DataFrame:
        """The result as a tidy table (one row per estimate: labels, estimate, interval and reason where they apply)."""
        return pd.concat([r.to_frame() for r in self], ignore_index=True) if self else pd.DataFrame()

    def to_json_dict(self) -> dict:
        """The result as a JSON-ready dict (numbers as plain floats, NaN as None), with the settings."""
        return {"results": [r.to_json_dict() for r in self]}


def analyse_mlds(table: pd.DataFrame, *, link: str = "probit", method: str = "glm", bootstrap: int = 0,
                 six_point: int = 0, runs: int = 0, seed: int = 0, level: float = 0.95,
                 observer: str | Sequence[str] | None = None, scale: str | Sequence[str] | None = None,
                 penalty: str | None = None) -> MldsResults:
    """Fit a difference scale per (observer, scale) of a judgement table, with optional diagnostics.

    Parameters
    ----------
    table : pandas.DataFrame
        A judgement table (:func:`humanlike.data.judgements.load_judgements`).
    link : {"probit", "logit", "cauchit"}
    method : {"glm", "optim", "power"}
    bootstrap, six_point, runs : int
        Simulations for the parametric bootstrap, the six-point test and the runs test (0: skip).
    seed : int
        One seed for all simulations (each diagnostic and group has its own stream).
    level : float
        Interval level.
    observer, scale : str or list of str, optional
        Keep only these observers / scale ids.
    penalty : {None, "firth"}
        See :func:`humanlike.stats.mlds.fit_mlds`.

    Returns
    -------
    MldsResults
    """
    if link not in LINKS:
        raise ValueError(f"unknown link {link!r}; use one of {LINKS}")
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; use one of {METHODS}")
    for name, value in (("bootstrap", bootstrap), ("six_point", six_point), ("runs", runs)):
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
            result.bootstrap = bootstrap_mlds(glm, bootstrap, seed=seed, level=level, key=key)
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
