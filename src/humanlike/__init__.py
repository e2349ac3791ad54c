"""humanlike: how alike are humans, brains and machines in their decisions, with honest uncertainty.

The trial table (:mod:`humanlike.data.schema`) is the one data model; loaders produce it, analyses consume
it. Layers: data -> metrics -> stats -> analyses -> presentation.
"""

from .analyses.benchmark import BenchmarkResult, run_benchmark
from .analyses.compare import compare
from .analyses.consistency_accuracy import consistency_vs_accuracy
from .analyses.dmc import decision_margin_consistency
from .analyses.dmc_results import DMCResult
from .analyses.dvc_choices import (
    ChoiceDVCResult, LatentBenchmarkResult, choice_dvc, latent_correctness_correlation, margin_probit_correlation,
)
from .analyses.dvc_representations import DVCResult, dvc_representations
from .analyses.ec_result import ErrorConsistencyResult
from .analyses.errorconsistency import MODELVSHUMAN_EXCLUSIONS, error_consistency
from .analyses.mlds import MldsResult, MldsResults, analyse_mlds
from .analyses.ood import OODResult, ood_analysis
from .analyses.pairwise import ErrorConsistencyKernel, ErrorOverlapKernel, PairAggregation
from .analyses.psychscore import PsychScoreResult, psychophysical_score
from .analyses.self_consistency import SelfConsistencyResult, self_consistency
from .data.design import Design, Stratum, build_design
from .data.judgements import load_judgements, validate_judgements
from .data.loaders import load_modelvshuman, load_trials
from .data.representations import Representation, load_representation, save_representation
from .data.schema import COLUMNS, TrialTableError, validate_trials
from .data.simulate import simulate_benchmark, simulate_copy_pair
from .metrics.ec import UndefinedPolicy, error_overlap, kappa
from .stats.engine import ResourceError, bootstrap
from .stats.kernels import Output, SufficientStatisticKernel
from .stats.results import Resampled
from .stats.settings import ResamplingSettings

__version__ = "0.1.0"

__all__ = [
    "BenchmarkResult", "COLUMNS", "ChoiceDVCResult", "DMCResult", "DVCResult", "Design", "ErrorConsistencyKernel",
    "ErrorConsistencyResult", "ErrorOverlapKernel", "LatentBenchmarkResult", "MODELVSHUMAN_EXCLUSIONS",
    "MldsResult", "MldsResults", "OODResult", "Output", "PairAggregation", "PsychScoreResult", "Representation",
    "Resampled", "ResamplingSettings", "ResourceError", "SelfConsistencyResult", "Stratum",
    "SufficientStatisticKernel", "TrialTableError", "UndefinedPolicy", "analyse_mlds", "bootstrap", "build_design",
    "choice_dvc", "compare", "consistency_vs_accuracy", "decision_margin_consistency", "dvc_representations",
    "error_consistency", "error_overlap", "kappa", "latent_correctness_correlation", "load_judgements",
    "load_modelvshuman", "load_representation", "load_trials", "margin_probit_correlation", "ood_analysis",
    "psychophysical_score", "run_benchmark", "save_representation", "self_consistency", "simulate_benchmark",
    "simulate_copy_pair", "validate_judgements", "validate_trials", "__version__",
]
