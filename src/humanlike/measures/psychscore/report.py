"""The Psychophysical-Score on the report page: its section."""

from __future__ import annotations

from ..sections import ReportFigure, ReportSection, ReportTable, SectionResult, settings_text


def psychscore_section(result) -> SectionResult:
    """The Psychophysical-Score as a report section.

    Parameters
    ----------
    result : PsychScoreResult
        From :func:`humanlike.measures.psychscore.analysis.psychophysical_score`.

    Returns
    -------
    SectionResult
        Tables ``psychscore`` and ``psychscore-chance`` and the skewness/score figure; no headline measure.

    Examples
    --------
    >>> from humanlike.measures.psychscore.analysis import psychophysical_score
    >>> from humanlike.measures.psychscore.simulate import simulate_psychscore_demo
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> result = psychophysical_score(simulate_psychscore_demo(n_classes=3, n_humans=2), settings=ResamplingSettings(n_resamples=20))
    >>> [t.key for t in psychscore_section(result).section.tables]
    ['psychscore', 'psychscore-chance']
    >>> import matplotlib.pyplot as plt
    >>> plt.close("all")
    """
    from .plot import psychscore_figure

    section = ReportSection(
        "psychophysical-score", "Psychophysical-Score",
        "Skewness of every class-level perceptual scale per observer, and the |Spearman correlation| of each "
        f"observer's skewness values with the reference's ({result.reference}) over class pairs "
        "(RichardWebster et al.).",
        tables=[ReportTable("psychscore", "Scores", result.to_wide()),
                ReportTable("psychscore-chance", "Are the scales more than chance?", result.chance)],
        figures=[ReportFigure("psychscore", "Skewness distributions and scores", psychscore_figure(result),
                              alt="Per observer, the distribution of scale skewness over class pairs, and each "
                                  "observer's Psychophysical-Score with its interval.")],
        methods=settings_text(result.settings))
    return SectionResult(section)
