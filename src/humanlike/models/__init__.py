"""Running vision models on stimuli (optional extra: ``pip install humanlike[models]``).

torch, torchvision and timm are imported only inside this subpackage; the rest of humanlike never
imports it.
"""

from __future__ import annotations

#: The measures' modules the models' code imports, each by the module that uses it for a method (the reason
#: beside it); tests/test_architecture.py refuses any other.
MEASURE_METHODS = {
    ("humanlike.models.forced_choice", "humanlike.measures.dmc.margins"):
        "a network's outputs as 16-class decisions and decision margins",
    ("humanlike.models.spec", "humanlike.measures.dmc.margins"): "the ImageNet-to-16-class mapping",
    ("humanlike.models.observer", "humanlike.measures.mlds.observers"):
        "a network observer's difference judgements from its distances",
    ("humanlike.models.observer", "humanlike.measures.psychscore.sequences"):
        "the sequence manifest a network observer is run on",
}

try:
    import torch  # noqa: F401
except ImportError as err:  # pragma: no cover - exercised where torch is absent
    raise ImportError("humanlike.models needs torch: pip install humanlike[models]") from err

from .activations import pool_activation
from .devices import DeviceError, resolve_device
from .errors import ModelSpecError, WeightsUnavailableError
from .evaluate import EvaluationResult, evaluate, evaluate_many, extract_features
from .forced_choice import decisions, resolve_category_mapping
from .output import read_evaluation, write_evaluation
from .spec import ModelSpec, resolve_model

__all__ = [
    "DeviceError", "EvaluationResult", "ModelSpec", "ModelSpecError", "WeightsUnavailableError", "decisions",
    "evaluate", "evaluate_many", "extract_features", "pool_activation", "read_evaluation", "resolve_category_mapping",
    "resolve_device", "resolve_model", "write_evaluation",
]
