"""humanlike: how alike are humans, brains and machines in their decisions, with honest uncertainty.

The trial table (:mod:`humanlike.trials.schema`) is the one data model; loaders produce it, analyses consume
it. Layers: trials -> resampling -> stats -> files -> measures (one folder per measure) -> app.
"""

from .measures.ec.benchmark import BenchmarkResult, run_benchmark
from .measures.compare.adapters import compare
from .measures.dmc.consistency_accuracy import consistency_vs_accuracy
from .measures.dmc.analysis import decision_margin_consistency
from .measures.dmc.result import DMCResult
from .measures.dvc.choices import ChoiceDVCResult, choice_dvc, latent_correctness_correlation
from .measures.dvc.choices_benchmark import LatentBenchmarkResult
from .measures.dvc.choices_probit import margin_probit_correlation
from .measures.dvc.representations import DVCResult, dvc_representations
from .measures.ec.result import ErrorConsistencyResult
from .measures.ec.analysis import error_consistency
from .measures.mlds.analysis import MldsResult, MldsResults, analyse_mlds
from .measures.ood.analysis import OODResult, ood_analysis
from .measures.pairs.kernels import ErrorConsistencyKernel, ErrorOverlapKernel
from .measures.pairs.aggregation import PairAggregation
from .measures.psychfit.analysis import PsychometricFitResult, psychometric_fits
from .measures.psychscore.analysis import PsychScoreResult, psychophysical_score
from .measures.dmc.self_consistency import SelfConsistencyResult, self_consistency
from .trials.design import Design, Stratum, build_design
from .trials.judgement_files import load_judgements
from .trials.judgements import validate_judgements
from .trials.loaders import load_trials
from .trials.modelvshuman import load_modelvshuman
from .trials.representations import Representation, load_representation, save_representation
from .trials.schema import COLUMNS, TrialTableError, validate_trials
from .trials.selection import MODELVSHUMAN_EXCLUSIONS
from .trials.simulate import simulate_benchmark, simulate_copy_pair
from .measures.pairs.metric import UndefinedPolicy, error_overlap, kappa
from .resampling.engine import ResourceError, bootstrap
from .resampling.kernels import Output, SufficientStatisticKernel
from .resampling.results import Resampled
from .resampling.settings import ResamplingSettings, set_progress
from .measures.contract import Measure
from .measures.measure_result import MeasureResult
from .measures.registry import get_measure

__version__ = "0.1.0"

__all__ = [
    "BenchmarkResult", "COLUMNS", "ChoiceDVCResult", "DMCResult", "DVCResult", "Design", "ErrorConsistencyKernel",
    "ErrorConsistencyResult", "ErrorOverlapKernel", "LatentBenchmarkResult", "MODELVSHUMAN_EXCLUSIONS",
    "MldsResult", "MldsResults", "OODResult", "Output", "PairAggregation", "PsychScoreResult", "Representation",
    "Resampled", "ResamplingSettings", "ResourceError", "SelfConsistencyResult", "Stratum",
    "SufficientStatisticKernel", "TrialTableError", "UndefinedPolicy", "analyse_mlds", "bootstrap", "build_design",
    "choice_dvc", "set_progress", "compare", "consistency_vs_accuracy", "decision_margin_consistency", "dvc_representations",
    "error_consistency", "error_overlap", "kappa", "latent_correctness_correlation", "load_judgements",
    "load_modelvshuman", "load_representation", "load_trials", "margin_probit_correlation", "ood_analysis",
    "psychophysical_score", "run_benchmark", "save_representation", "self_consistency", "simulate_benchmark",
    "simulate_copy_pair", "validate_judgements", "validate_trials", "__version__",
    "Measure", "MeasureResult", "get_measure", "PsychometricFitResult", "psychometric_fits",
]
