"""Difference scaling (MLDS) registered as a measure (docs/measures/mlds.md).

Importing this module imports nothing but the contract: every part is named by its dotted path.
"""

from __future__ import annotations

from ..contract import Example, Measure


def analysis(judgements, *, settings=None, **options):
    """:func:`~humanlike.measures.mlds.analysis.analyse_mlds` with the one settings object: a parametric
    bootstrap of ``settings.n_resamples`` resamples at ``settings.level``, seeded by ``settings.seed``.

    Parameters
    ----------
    judgements : pandas.DataFrame
        A judgement table.
    settings : ResamplingSettings, optional
        Defaults to ``ResamplingSettings()``.
    **options
        Other keywords of ``analyse_mlds`` (``link``, ``method``, ``observer``, ...).

    Returns
    -------
    MldsResults

    Examples
    --------
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> results = analysis(simulate(0).data, settings=ResamplingSettings(n_resamples=20, seed=1))
    >>> len(results), results.to_frame()["measure"].iloc[0]
    (2, 'mlds')
    """
    from ...resampling.settings import ResamplingSettings
    from .analysis import analyse_mlds

    settings = ResamplingSettings() if settings is None else settings
    return analyse_mlds(judgements, settings=settings, **options)


def simulate(seed: int = 0) -> Example:
    """Quadruple judgements of two simulated observers on a 7-level scale.

    Parameters
    ----------
    seed : int
        Seed of the simulation.

    Returns
    -------
    Example
        The data and the options that keep the analysis small.

    Examples
    --------
    >>> sorted(simulate(0).data["observer"].unique())
    ['a', 'b']
    """
    import numpy as np
    import pandas as pd

    from .simulate import simulate_judgements

    levels = np.linspace(0, 1, 7)
    tables = [simulate_judgements(levels ** 2, 0.3, repeats=3, seed=seed, observer="a"),
              simulate_judgements(levels ** 0.7, 0.3, repeats=3, seed=seed + 1, observer="b")]
    return Example(pd.concat(tables, ignore_index=True))


def bad_inputs(example: Example) -> list[tuple[str, Example]]:
    """Broken copies of the example: a missing column and an unknown observer.

    Parameters
    ----------
    example : Example
        From :func:`simulate`.

    Returns
    -------
    list of (str, Example)
        What the error must name, and the broken example.

    Examples
    --------
    >>> [what for what, _ in bad_inputs(simulate(0))]
    ['response', 'no-such-observer']
    """
    table = example.data
    return [("response", Example(table.drop(columns=["response"]), example.options)),
            ("no-such-observer", Example(table, {**example.options, "observer": "no-such-observer"}))]


MEASURE = Measure(
    name="mlds",
    title="Difference scaling (MLDS)",
    citation=('Maloney & Yang (2003), Maximum likelihood difference scaling, Journal of Vision 3(8); Knoblauch '
              '& Maloney (2008), MLDS: Maximum likelihood difference scaling in R, Journal of Statistical '
              'Software 25(2)'),
    summary="Maximum-likelihood difference scales from triad or quadruple judgements (Maloney & Yang), as R's "
            "MLDS fits them",
    docs="docs/measures/mlds.md",
    order=50,
    analysis="humanlike.measures.mlds.measure:analysis",
    cli="humanlike.measures.mlds.cli:register",
    report_run="humanlike.measures.mlds.report:report_analysis",
    report_section="humanlike.measures.mlds.report:mlds_section",
    report_input="judgements",
    simulate="humanlike.measures.mlds.measure:simulate",
    bad_inputs="humanlike.measures.mlds.measure:bad_inputs",
)
