"""Psychometric-function fits (threshold, slope, lapse per observer and experiment) registered as a measure
(docs/measures/psychometric-fits.md).

Importing this module imports nothing but the contract: every part is named by its dotted path.
"""

from __future__ import annotations

from ..contract import Example, Measure


def simulate(seed: int = 0) -> Example:
    """Trials from known psychometric functions (3 humans and 2 models, one contrast experiment, 9 levels).

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
    >>> simulate(0).options
    {'experiments': ['sim-contrast']}
    """
    from .simulate import simulate_psychometric

    return Example(simulate_psychometric(seed=seed, trials_per_level=24), {"experiments": ["sim-contrast"]})


MEASURE = Measure(
    name="psychfit",
    title="Psychometric functions",
    summary="Threshold, slope and lapse of a psychometric function fitted per observer and experiment whose "
            "conditions are stimulus levels (contrast, noise, filters), humans beside models",
    docs="docs/measures/psychometric-fits.md",
    order=85,
    citation=("Wichmann & Hill (2001), The psychometric function: I. Fitting, sampling, and goodness of fit, "
              "Perception & Psychophysics 63(8); Schütt, Harmeling, Macke & Wichmann (2016), Painfree and accurate "
              "Bayesian estimation of psychometric functions for (potentially) overdispersed data, Vision Research "
              "122 (psignifit 4); Geirhos et al. (2021), Partial success in closing the gap between human and "
              "machine vision, NeurIPS (the data)"),
    analysis=".analysis:psychometric_fits",
    cli=".cli:register",
    report_run=".report:report_analysis",
    report_section=".report:psychfit_section",
    demo=".demo:demo",
    simulate=".measure:simulate",
    bad_inputs="humanlike.measures.contract:trial_table_bad_inputs",
    api_intro=("Psychometric functions: the maximum-likelihood fit, the stimulus axis, the pipeline, simulation, "
               "command, report section and figure."),
)
