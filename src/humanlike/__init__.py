"""humanlike: how alike are humans, brains and machines in their decisions, with honest uncertainty.

The trial table (:mod:`humanlike.data.schema`) is the one data model; loaders produce it, analyses consume
it. Layers: data -> metrics -> stats -> analyses -> presentation.
"""

from .analyses.benchmark import BenchmarkResult, run_benchmark
from .analyses.dmc import DMCResult, decision_margin_consistency
from .analyses.errorconsistency import (
    MODELVSHUMAN_EXCLUSIONS, ErrorConsistencyResult, error_consistency,
)
from .data.loaders import load_modelvshuman, load_trials
from .data.schema import COLUMNS, TrialTableError, validate_trials
from .data.simulate import simulate_benchmark, simulate_copy_pair
from .metrics.ec import UndefinedPolicy, kappa

__version__ = "0.1.0"

__all__ = [
    "BenchmarkResult", "COLUMNS", "DMCResult", "decision_margin_consistency", "ErrorConsistencyResult", "MODELVSHUMAN_EXCLUSIONS", "TrialTableError",
    "UndefinedPolicy", "error_consistency", "kappa", "load_modelvshuman", "load_trials", "run_benchmark",
    "simulate_benchmark", "simulate_copy_pair", "validate_trials", "__version__",
]
