"""Difference scaling on the report page: its section and what the report computes for it."""

from __future__ import annotations

import pandas as pd

from ..sections import ReportFigure, ReportSection, ReportTable, SectionResult
from ...resampling.settings import ResamplingSettings


def mlds_section(results) -> SectionResult:
    """Difference scales as a report section.

    Parameters
    ----------
    results : MldsResults
        From :func:`humanlike.measures.mlds.analysis.analyse_mlds`.

    Returns
    -------
    SectionResult
        Tables ``mlds-fits`` and ``mlds-scales`` and the scale figure; no headline measure.

    Examples
    --------
    >>> import numpy as np
    >>> from humanlike.measures.mlds.analysis import analyse_mlds
    >>> from humanlike.measures.mlds.simulate import simulate_judgements
    >>> table = simulate_judgements(np.linspace(0, 1, 7) ** 2, 0.15, repeats=3, seed=0)
    >>> made = mlds_section(analyse_mlds(table))
    >>> [t.key for t in made.section.tables], made.headline
    (['mlds-fits', 'mlds-scales'], [])
    >>> import matplotlib.pyplot as plt
    >>> plt.close("all")
    """
    from .plot import mlds_scale_figure

    fits = pd.DataFrame([{k: doc.get(k) for k in ("observer", "scale_id", "sigma", "loglik", "aic", "daf",
                                                   "n_trials", "status")} for doc in results.to_json_dict()["results"]])
    section = ReportSection(
        "difference-scaling", "Difference scaling (MLDS)",
        "Maximum-likelihood difference scales (Maloney & Yang; as R's MLDS computes them): the perceptual scale "
        "of each observer and stimulus sequence, with parametric-bootstrap intervals where asked.",
        tables=[ReportTable("mlds-fits", "Fits", fits),
                ReportTable("mlds-scales", "Scales", results.scale_table())],
        figures=[ReportFigure("mlds-scales", "Perceptual scales", mlds_scale_figure(results),
                              alt="The fitted perceptual scale of each observer against the stimulus level.")])
    return SectionResult(section)


def report_analysis(judgements, *, settings, exclusions=None):  # noqa: ARG001 - judgements have no conditions
    """What ``humanlike report --judgements`` (or ``report STUDY`` of a triad/quadruple study) computes: the
    difference scales with a parametric bootstrap of ``settings.n_resamples`` resamples; a study's scales are
    fitted as ``humanlike mlds STUDY`` fits them (pooled across participants where its design asks for it).

    Parameters
    ----------
    judgements : pandas.DataFrame
        A judgement table (:func:`humanlike.trials.judgement_files.load_judgements`).
    settings : ResamplingSettings
        The report's one settings object (resamples, seed, level).
    exclusions : None
        Not used.

    Returns
    -------
    MldsResults

    Examples
    --------
    >>> import numpy as np
    >>> from humanlike.measures.mlds.simulate import simulate_judgements
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> table = simulate_judgements(np.linspace(0, 1, 7) ** 2, 0.15, repeats=3, seed=0)
    >>> len(report_analysis(table, settings=ResamplingSettings(n_resamples=0)))
    1
    """
    from .analysis import analyse_mlds
    from .cli import study_pooling

    # a `humanlike serve` study is fitted as `humanlike mlds STUDY` fits it (--pool auto); judgement files as before
    designs = judgements.attrs.get("study_designs", {})
    return analyse_mlds(judgements, settings=ResamplingSettings(n_resamples=settings.n_resamples, seed=settings.seed, level=settings.level),
                        pool=study_pooling("auto", designs) if designs else "never")
