# src/humanlike/measures/overlap/analysis.py
"""Error overlap: the Jaccard index of two observers' error sets, d / (b + c + d), per pair, condition,
experiment and group, with bootstrap intervals."""

from __future__ import annotations

from dataclasses import dataclass

from ...resampling.engine import bootstrap
from ...resampling.results import Resampled
from ...resampling.settings import ResamplingSettings
from ...trials.selection import select_trials
from ..measure_result import MeasureResult
from ..pairs.aggregation import PairAggregation
from ..pairs.design import pair_design
from ..pairs.kernels import ErrorOverlapKernel


@dataclass(frozen=True, repr=False)   # the one result base prints it (a short summary)
class OverlapResult(MeasureResult):
    """Error overlap per experiment and group (and overall), labelled (scope, group, metric)."""

    resampled: Resampled
    settings: dict


def error_overlap_analysis(trials, *, settings=None, experiments=None) -> OverlapResult:
    """Error overlap of every pair of observers, averaged over conditions, experiments and groups.

    Parameters
    ----------
    trials : pandas.DataFrame
        A trial table.
    settings : ResamplingSettings, optional
        The one settings object.
    experiments : list of str, optional
        Only these experiments.

    Returns
    -------
    OverlapResult
    """
    settings = settings or ResamplingSettings()
    design = pair_design(select_trials(trials, experiments=experiments))
    kernel = ErrorOverlapKernel()
    aggregation = PairAggregation(design, kernel.measures)     # pairs -> conditions -> groups -> overall
    values = bootstrap(design, kernel, aggregation, aggregation.output, settings)
    return OverlapResult(values, settings.to_dict())
