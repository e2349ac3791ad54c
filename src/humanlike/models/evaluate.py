"""From a model and a folder of images to trial-table rows (response, correct, decision margin) and
representations (features of named layers)."""

from __future__ import annotations

import hashlib
import json
import re
import tempfile
from collections.abc import Mapping, Sequence
from concurrent.futures import as_completed
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from ..data.representations import Representation
from ..data.schema import validate_trials
from ..data.stimuli import discover_stimuli
from ..metrics.margins import AggregationRule, load_imagenet16_mapping, margins_from_outputs
from .executors import open_executor
from .runner import (WorkUnit, check_pool, check_precision, read_unit_layer, read_unit_outputs,
                     resolve_device, run_unit)
from .spec import ModelSpec, resolve_model

RULES = {"mean-logit": AggregationRule.LOGIT, "logit": AggregationRule.LOGIT,
         "mean-probability": AggregationRule.PROBABILITY, "probability": AggregationRule.PROBABILITY}
DEFAULT_SHARD_SIZE = 1024


@dataclass(eq=False)
class EvaluationResult:
    """A model's run on a stimulus set.

    Attributes
    ----------
    model : the observer name.
    trials : trial table (observer = model name, observer_kind ``"model"``, experiment, condition, item,
        label, response, correct, decision_margin, trial), validated.
    features : layer name -> :class:`~humanlike.data.representations.Representation` (images x units).
    outputs : (images x outputs) float32 raw model outputs (logits), rows in ``manifest`` order.
    manifest : the stimulus manifest the model ran on.
    units : the work-unit folders the results came from (in the cache).
    info : model key, weights, preprocessing, rule, mapping, device, precision.
    """

    model: str
    trials: pd.DataFrame
    features: dict[str, Representation]
    outputs: np.ndarray
    manifest: pd.DataFrame
    units: list[str] = field(default_factory=list)
    info: dict = field(default_factory=dict)

    def to_frame(self) -> pd.DataFrame:
        """The trial table."""
        return self.trials


# --------------------------------------------------------------------------------------------------
# Mapping, rule, decisions
# --------------------------------------------------------------------------------------------------


def resolve_rule(rule) -> AggregationRule:
    if isinstance(rule, AggregationRule):
        return rule
    if rule not in RULES:
        raise ValueError(f"unknown rule {rule!r}; use mean-logit or mean-probability")
    return RULES[rule]


def resolve_category_mapping(mapping) -> dict[str, list[int]] | None:
    """``"imagenet16"`` (the packaged table), a dict category -> output indices, a JSON file holding
    such a dict (or ``{"categories": {...}}``), or ``None``/``"identity"`` (outputs are the categories)."""
    if mapping is None or mapping == "identity":
        return None
    if isinstance(mapping, Mapping):
        return {str(k): [int(i) for i in v] for k, v in mapping.items()}
    if mapping == "imagenet16":
        return load_imagenet16_mapping()
    path = Path(mapping)
    if path.suffix.lower() == ".json":
        if not path.is_file():
            raise ValueError(f"mapping file {path} not found")
        try:
            raw = json.loads(path.read_text())
        except json.JSONDecodeError as err:
            raise ValueError(f"mapping file {path} is not valid JSON ({err})") from None
        raw = raw.get("categories", raw) if isinstance(raw, dict) else raw
        if not isinstance(raw, dict):
            raise ValueError(f"mapping file {path} must hold {{category: [output indices]}}")
        return {str(k): [int(i) for i in v] for k, v in raw.items()}
    raise ValueError(f"unknown mapping {mapping!r}; use imagenet16, identity or a JSON file")


def decisions(outputs: np.ndarray, manifest: pd.DataFrame, observer: str, *, mapping="imagenet16",
              rule="mean-logit") -> pd.DataFrame:
    """Trial-table rows from raw outputs: category scores, response (argmax), decision margin.

    The choice is among the mapping's categories that occur as stimulus labels (all 16 for the
    model-vs-human sets): a forced choice over the experiment's alternatives, as for the humans.
    A target tied with the best other category has margin 0 and is wrong; its response is then the
    first tied non-target category, so ``correct == (response == label) == (margin > 0)`` always holds.
    """
    resolved = resolve_category_mapping(mapping)
    categories = list(resolved) if resolved is not None else [str(i) for i in range(outputs.shape[1])]
    labels = manifest["label"].astype(str).to_numpy()
    unknown = sorted(set(labels) - set(categories))
    if unknown:
        raise ValueError(f"label(s) {unknown[:5]} of the stimuli are not categories of the mapping "
                         f"({', '.join(categories[:16])}{', ...' if len(categories) > 16 else ''}); pass a "
                         "mapping whose categories are the stimulus labels")
    if resolved is not None and len(set(labels)) < len(resolved):
        # A forced choice among the experiment's alternatives: the categories that occur as labels.
        present = set(labels)
        resolved = {c: idx for c, idx in resolved.items() if c in present}
    if len(set(labels)) < 2 and resolved is not None:
        raise ValueError(f"all stimuli have the label {labels[0]!r}: a decision needs at least two categories "
                         "among the labels (use extract_features for features only)")
    result = margins_from_outputs(np.asarray(outputs, dtype=np.float64), labels, resolved, resolve_rule(rule))
    cats = np.asarray(result.categories, dtype=object)
    response = cats[result.predicted].copy()
    tied_target = result.tie & (result.predicted == result.target)
    if tied_target.any():
        scores, _ = _scores(outputs, resolved, rule)
        for row in np.flatnonzero(tied_target):
            top = np.flatnonzero(scores[row] == scores[row].max())
            response[row] = cats[next(i for i in top if i != result.target[row])]
    trials = pd.DataFrame({
        "observer": observer, "observer_kind": "model",
        "experiment": manifest["experiment"].to_numpy(), "condition": manifest["condition"].to_numpy(),
        "item": manifest["item"].to_numpy(), "label": labels, "response": response,
        "correct": result.correct, "decision_margin": result.margin,
        "trial": np.arange(1, len(manifest) + 1),
    })
    return validate_trials(trials)


def _scores(outputs, resolved, rule):
    from ..metrics.margins import aggregate_outputs

    return aggregate_outputs(np.asarray(outputs, dtype=np.float64), resolved, resolve_rule(rule))


# --------------------------------------------------------------------------------------------------
# Work units
# --------------------------------------------------------------------------------------------------


def _content_hashes(paths: Sequence[str]) -> list[str]:
    hashes = []
    for path in paths:
        h = hashlib.blake2b(digest_size=16)
        try:
            with open(path, "rb") as handle:
                for block in iter(lambda: handle.read(1 << 20), b""):
                    h.update(block)
        except OSError as err:
            from ..data.stimuli import StimulusError

            raise StimulusError(f"{path}: cannot read image ({err.strerror or err})") from None
        hashes.append(h.hexdigest())
    return hashes


def feature_ids(manifest: pd.DataFrame) -> np.ndarray:
    """Row ids for representations: the item, or ``experiment/condition/item`` where items repeat."""
    items = manifest["item"].astype(str)
    if not items.duplicated().any():
        return items.to_numpy()
    return (manifest["experiment"] + "/" + manifest["condition"] + "/" + items).to_numpy()


def _slug(name: str) -> str:
    return re.sub(r"[^\w.\-]", "_", name)[:60]


def plan_units(spec: ModelSpec, manifest: pd.DataFrame, cache_root: Path, *, layers=(), pool="flatten",
               batch_size=64, num_workers=0, device="auto", precision="float32",
               shard_size=DEFAULT_SHARD_SIZE, hashes=None, tensor_cache: Path | None = None) -> list[WorkUnit]:
    """Split a model's run into units of ``shard_size`` images, each keyed by the model and weights, the
    preprocessing, layers, pooling, precision and the content of its images."""
    hashes = _content_hashes(manifest["path"]) if hashes is None else hashes
    ids, labels, paths = feature_ids(manifest), manifest["label"].tolist(), manifest["path"].tolist()
    model_dir = cache_root / f"{_slug(spec.name)}-{spec.key()[:12]}"
    tensor_dir = None if tensor_cache is None else Path(tensor_cache) / spec.preprocessing_key()[:16]
    common = (spec.key(), spec.preprocessing_key(), tuple(layers), pool, precision)
    units = []
    for start in range(0, len(manifest), shard_size):
        rows = slice(start, start + shard_size)
        key = hashlib.blake2b(repr((common, list(zip(ids[rows], labels[rows], hashes[rows])))).encode(),
                              digest_size=16).hexdigest()
        units.append(WorkUnit(spec, list(ids[rows]), paths[rows], labels[rows], str(model_dir / f"unit-{key}"),
                              tuple(layers), pool, batch_size, num_workers, device, precision,
                              metadata={"model_key": spec.key()},
                              tensor_files=None if tensor_dir is None else
                              [str(tensor_dir / f"{h}.npy") for h in hashes[rows]]))
    return units


def run_units(units: list[WorkUnit], *, executor=None, workers=None, progress=False) -> None:
    """Run the units that are not finished yet (in this process, or through ``executor``)."""
    from .runner import OUTPUTS_FILE

    pending = [u for u in units if not (Path(u.target) / OUTPUTS_FILE).is_file()]
    if not pending:
        return
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=sum(len(u.items) for u in pending), unit="img", desc="evaluate")
    try:
        with open_executor(executor, workers) as pool:
            if pool is None:
                for unit in pending:
                    run_unit(unit, progress=bar.update if bar is not None else None)
                return
            futures = {pool.submit(run_unit, unit): unit for unit in pending}
            for future in as_completed(futures):
                future.result()
                if bar is not None:
                    bar.update(len(futures[future].items))
    finally:
        if bar is not None:
            bar.close()


# --------------------------------------------------------------------------------------------------
# Public API
# --------------------------------------------------------------------------------------------------


def _collect(spec: ModelSpec, units: list[WorkUnit], layers) -> tuple[np.ndarray, dict[str, Representation]]:
    outputs = np.concatenate([read_unit_outputs(u.target)[0] for u in units])
    features = {}
    for layer in layers:
        parts = [read_unit_layer(u.target, layer) for u in units]
        features[layer] = Representation(
            np.concatenate([p.features for p in parts]), np.concatenate([p.items for p in parts]),
            np.concatenate([p.labels for p in parts]), name=f"{spec.name}:{layer}",
            metadata={**parts[0].metadata, "model_key": spec.key()})
    return outputs, features


def evaluate_many(models: Sequence, stimuli, *, experiment=None, weights="default", transform=None,
                  layers=None, pool="flatten", batch_size=64, num_workers=0, device="auto",
                  precision="float32", mapping="imagenet16", rule="mean-logit", cache_dir=None, executor=None,
                  workers=None, shard_size=DEFAULT_SHARD_SIZE, tensor_cache=False, progress=False,
                  decide=True) -> list[EvaluationResult]:
    """Run several models on one stimulus set; all their units go to the executor together.

    Parameters are those of :func:`evaluate`; ``decide=False`` skips the trial table (features only).
    """
    layers = tuple(layers or ())
    check_pool(pool)
    precision = check_precision(precision)
    if device != "auto":
        resolve_device(device)  # a clear error before any work; "auto" is resolved inside each worker
    if batch_size < 1 or shard_size < 1:
        raise ValueError("batch_size and shard_size must be >= 1")
    if decide:
        resolve_rule(rule)
        resolve_category_mapping(mapping)
    specs = [resolve_model(m, weights=weights, transform=transform) for m in models]
    names = [s.name for s in specs]
    if len(set(names)) != len(names):
        raise ValueError(f"two models share an observer name: {names}; name them (ModelSpec name=)")
    manifest = discover_stimuli(stimuli, experiment=experiment)
    hashes = _content_hashes(manifest["path"])
    with tempfile.TemporaryDirectory(prefix="humanlike-units-") if cache_dir is None else _nullpath(cache_dir) as root:
        root = Path(root)
        plans = [plan_units(s, manifest, root, layers=layers, pool=pool, batch_size=batch_size,
                            num_workers=num_workers, device=device, precision=precision, shard_size=shard_size,
                            hashes=hashes, tensor_cache=root / "tensors" if tensor_cache else None)
                 for s in specs]
        run_units([u for plan in plans for u in plan], executor=executor, workers=workers, progress=progress)
        results = []
        for spec, units in zip(specs, plans):
            outputs, features = _collect(spec, units, layers)
            trials = decisions(outputs, manifest, spec.name, mapping=mapping, rule=rule) if decide else None
            info = {"model": spec.name, "source": spec.source, "arch": spec.arch, "weights": spec.weights,
                    "model_key": spec.key(), "preprocessing": repr(spec.preprocessing()),
                    "rule": str(rule), "mapping": mapping if isinstance(mapping, str) or mapping is None else "custom",
                    "pool": pool, "precision": precision, "device": device}
            results.append(EvaluationResult(spec.name, trials, features, outputs, manifest,
                                            [u.target for u in units] if cache_dir is not None else [], info))
    return results


class _nullpath:
    def __init__(self, path):
        self.path = Path(path)

    def __enter__(self):
        self.path.mkdir(parents=True, exist_ok=True)
        return self.path

    def __exit__(self, *exc):
        return False


def evaluate(model, stimuli, *, experiment=None, name=None, weights="default", transform=None, layers=None,
             pool="flatten", batch_size=64, num_workers=0, device="auto", precision="float32",
             mapping="imagenet16", rule="mean-logit", cache_dir=None, executor=None, workers=None,
             shard_size=DEFAULT_SHARD_SIZE, tensor_cache=False, progress=False) -> EvaluationResult:
    """Run a vision model on stimuli: decisions as trial-table rows, and features of named layers.

    Parameters
    ----------
    model : str, nn.Module, callable or ModelSpec
        ``"torchvision:resnet50"``, ``"timm:vit_base_patch16_224"``, a module, or a zero-argument factory
        (see :func:`~humanlike.models.spec.resolve_model`).
    stimuli : folder, manifest CSV path or manifest DataFrame (see :mod:`humanlike.data.stimuli`).
    experiment : experiment name (default: the stimulus folder's name) or the one to select.
    name : observer name (default: the architecture's or the module's class name).
    weights : ``"default"`` (the library's pretrained weights from the local cache), ``None``/``"none"``
        (random initialisation, fixed seed), a torchvision weights name, or a local weights file.
    transform : preprocessing override (PIL RGB image -> CHW float tensor).
    layers : layer names (``model.named_modules()``) whose activations to keep.
    pool : ``"flatten"``, ``"avg"``, ``"max"`` (over space or tokens) or ``"cls"`` (first token).
    batch_size, num_workers : batching; ``num_workers`` decoding processes (0: one background thread).
    device : ``"auto"`` (CUDA, else MPS, else CPU), ``"cpu"``, ``"cuda[:N]"``, ``"mps"``.
    precision : ``"float32"``, ``"bf16"`` or ``"fp16"`` (autocast; outputs and margins in float32 or wider).
    mapping : ``"imagenet16"`` (1000 ImageNet outputs -> the 16 model-vs-human categories), a dict
        category -> output indices (models with their own label set), a JSON file, or ``"identity"``.
    rule : ``"mean-logit"`` (mean raw logit over a category's outputs; the decision-margin paper) or
        ``"mean-probability"`` (mean softmax probability; the model-vs-human benchmark).
    cache_dir : folder for the resumable work-unit cache (default: a temporary folder, no reuse).
    executor : ``None``/``"local"``, ``"dask"``, ``"dask:ADDRESS"``, a ``distributed.Client`` or any
        ``concurrent.futures``-style executor.
    workers : local Dask workers (default 2).
    shard_size : images per work unit.
    tensor_cache : keep each image's preprocessed tensor under ``cache_dir/tensors`` (float32 ``.npy``,
        ~0.6 MB per 224 x 224 image), so further models with the same preprocessing skip decoding.
    progress : show a progress bar.

    Returns
    -------
    EvaluationResult
        ``.trials`` (a valid trial table) and ``.features`` (layer -> Representation).

    Examples
    --------
    >>> result = evaluate("torchvision:resnet18", "stimuli/edges", experiment="edge",
    ...                   weights=None, layers=["avgpool"])  # doctest: +SKIP
    >>> result.trials[["item", "response", "decision_margin"]].head()  # doctest: +SKIP
    """
    if name is not None:
        model = resolve_model(model, weights=weights, transform=transform, name=name)
    return evaluate_many([model], stimuli, experiment=experiment, weights=weights, transform=transform,
                         layers=layers, pool=pool, batch_size=batch_size, num_workers=num_workers, device=device,
                         precision=precision, mapping=mapping, rule=rule, cache_dir=cache_dir, executor=executor,
                         workers=workers, shard_size=shard_size, tensor_cache=tensor_cache,
                         progress=progress)[0]


def extract_features(model, stimuli, layers, *, experiment=None, weights="default", transform=None,
                     pool="flatten", batch_size=64, num_workers=0, device="auto", precision="float32",
                     cache_dir=None, executor=None, workers=None, shard_size=DEFAULT_SHARD_SIZE,
                     progress=False) -> dict[str, Representation]:
    """Activations of named layers for every stimulus: layer name -> Representation (images x units).

    ``stimuli`` may be a folder, a manifest CSV path or a manifest DataFrame; the other parameters are
    those of :func:`evaluate`. Labels need not be categories of any mapping.

    Examples
    --------
    >>> reps = extract_features("torchvision:resnet18", "stimuli/edges", ["layer4"], pool="avg",
    ...                         weights=None)  # doctest: +SKIP
    >>> reps["layer4"].features.shape  # doctest: +SKIP
    (160, 512)
    """
    if isinstance(layers, str):
        layers = [layers]
    if not layers:
        raise ValueError("extract_features needs at least one layer name")
    return evaluate_many([model], stimuli, experiment=experiment, weights=weights, transform=transform,
                         layers=layers, pool=pool, batch_size=batch_size, num_workers=num_workers,
                         device=device, precision=precision, cache_dir=cache_dir, executor=executor,
                         workers=workers, shard_size=shard_size, progress=progress, decide=False)[0].features
