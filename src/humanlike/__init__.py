"""humanlike: how alike are humans, brains and machines in their decisions, with honest uncertainty.

The trial table (:mod:`humanlike.data.schema`) is the one data model; loaders produce it, analyses consume
it. Layers: data -> metrics -> stats -> analyses -> presentation.
"""

from .analyses.benchmark import BenchmarkResult, run_benchmark
from .analyses.dmc import DMCResult, decision_margin_consistency
from .analyses.errorconsistency import (
    MODELVSHUMAN_EXCLUSIONS, ErrorConsistencyResult, error_consistency,
)
from .analyses.pairwise import ErrorConsistencyKernel, ErrorOverlapKernel, PairAggregation
from .data.design import Design, Stratum, build_design
from .data.loaders import load_modelvshuman, load_trials
from .data.schema import COLUMNS, TrialTableError, validate_trials
from .data.simulate import simulate_benchmark, simulate_copy_pair
from .metrics.ec import UndefinedPolicy, error_overlap, kappa
from .stats.engine import Output, ResamplingSettings, ResourceError, SufficientStatisticKernel, bootstrap
from .stats.results import Resampled

__version__ = "0.1.0"

__all__ = [
    "BenchmarkResult", "COLUMNS", "DMCResult", "Design", "ErrorConsistencyKernel", "ErrorConsistencyResult",
    "ErrorOverlapKernel", "MODELVSHUMAN_EXCLUSIONS", "Output", "PairAggregation", "Resampled", "ResamplingSettings",
    "ResourceError", "Stratum", "SufficientStatisticKernel", "TrialTableError", "UndefinedPolicy", "bootstrap",
    "build_design", "decision_margin_consistency", "error_consistency", "error_overlap", "kappa",
    "load_modelvshuman", "load_trials", "run_benchmark",
    "simulate_benchmark", "simulate_copy_pair", "validate_trials", "__version__",
]
