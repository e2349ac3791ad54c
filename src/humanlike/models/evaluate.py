"""From a model and a folder of images to trial-table rows (response, correct, decision margin) and
representations (features of named layers).

Here: :func:`evaluate`, :func:`evaluate_many` and :func:`extract_features`, their :class:`EvaluationResult`,
and the work units they plan (:func:`plan_units`), run (:func:`run_units`) and collect. The decisions made from
the raw outputs (category mapping, rule, trial rows) are in :mod:`humanlike.models.forced_choice`; running one
unit in :mod:`humanlike.models.runner`.
"""

from __future__ import annotations

import hashlib
import re
import tempfile
from collections.abc import Sequence
from concurrent.futures import as_completed
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from ..trials.representations import Representation
from ..trials.stimuli import discover_stimuli
from .activations import check_pool
from .devices import check_precision, resolve_device
from .executors import open_executor
from .forced_choice import decisions, resolve_category_mapping, resolve_rule
from .runner import WorkUnit, read_unit_layer, read_unit_outputs, run_unit
from .spec import ModelSpec, resolve_model

DEFAULT_SHARD_SIZE = 1024


@dataclass(eq=False)
class EvaluationResult:
    """A model's run on a stimulus set (returned by :func:`evaluate` and :func:`evaluate_many`).

    Attributes
    ----------
    model : str
        The observer name.
    trials : pandas.DataFrame
        Trial table (observer = model name, observer_kind ``"model"``, experiment, condition, item, label,
        response, correct, decision_margin, trial), validated; ``None`` when run with ``decide=False``.
    features : dict of str to Representation
        Layer name -> :class:`~humanlike.trials.representations.Representation` (images x units).
    outputs : numpy.ndarray of float32, (images, outputs)
        Raw model outputs (logits), rows in ``manifest`` order.
    manifest : pandas.DataFrame
        The stimulus manifest the model ran on.
    units : list of str
        The work-unit folders the results came from (in the cache; empty without ``cache_dir``).
    info : dict
        Model key, weights, preprocessing, rule, mapping, device, precision.

    Examples
    --------
    >>> import tempfile
    >>> from PIL import Image
    >>> root = Path(tempfile.mkdtemp())
    >>> for label, grey in (("cat", 40), ("dog", 200)):  # two 32 x 32 stimuli in the category layout
    ...     (root / label).mkdir()
    ...     Image.new("RGB", (32, 32), (grey, grey, grey)).save(root / label / f"{label}1.png")
    >>> import torch
    >>> from torchvision.transforms import v2
    >>> as_tensor = v2.Compose([v2.PILToTensor(), v2.ToDtype(torch.float32, scale=True)])  # no resize: fast
    >>> result = evaluate("torchvision:squeezenet1_1", root, weights="none", transform=as_tensor)
    >>> result.model, result.outputs.shape, result.info["weights"]
    ('squeezenet1_1', (2, 1000), None)
    >>> result.to_frame()[["item", "label"]].values.tolist()
    [['cat1.png', 'cat'], ['dog1.png', 'dog']]
    """

    model: str
    trials: pd.DataFrame
    features: dict[str, Representation]
    outputs: np.ndarray
    manifest: pd.DataFrame
    units: list[str] = field(default_factory=list)
    info: dict = field(default_factory=dict)

    def to_frame(self) -> pd.DataFrame:
        """The trial table.

        Returns
        -------
        pandas.DataFrame
            :attr:`trials`, one row per image.
        """
        return self.trials


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
            from ..trials.stimuli import StimulusError

            raise StimulusError(f"{path}: cannot read image ({err.strerror or err})") from None
        hashes.append(h.hexdigest())
    return hashes


def feature_ids(manifest: pd.DataFrame) -> np.ndarray:
    """Row ids for representations: the item, or ``experiment/condition/item`` where items repeat.

    Parameters
    ----------
    manifest : pandas.DataFrame
        Stimulus manifest with ``item, experiment, condition``.

    Returns
    -------
    numpy.ndarray of str
        One id per row.

    Examples
    --------
    >>> m = pd.DataFrame({"item": ["a.png", "a.png"], "experiment": "blur", "condition": ["0", "3"]})
    >>> feature_ids(m).tolist(), feature_ids(m.iloc[:1]).tolist()
    (['blur/0/a.png', 'blur/3/a.png'], ['a.png'])
    """
    items = manifest["item"].astype(str)
    if not items.duplicated().any():
        return items.to_numpy()
    return (manifest["experiment"] + "/" + manifest["condition"] + "/" + items).to_numpy()


def _slug(name: str) -> str:
    return re.sub(r"[^\w.\-]", "_", name)[:60]


def plan_units(spec: ModelSpec, manifest: pd.DataFrame, cache_root: Path, *, layers=(), pool="flatten",
               batch_size=64, num_workers=0, device="auto", precision="float32",
               shard_size=DEFAULT_SHARD_SIZE, hashes=None, tensor_cache: Path | None = None) -> list[WorkUnit]:
    """Split a model's run into units of ``shard_size`` images.

    Each unit is keyed by the model and weights, the preprocessing, layers, pooling, precision and the
    content of its images, so a rerun finds its finished units in the cache.

    Parameters
    ----------
    spec : ModelSpec
        The model.
    manifest : pandas.DataFrame
        The stimulus manifest.
    cache_root : pathlib.Path
        Folder of the work-unit cache.
    layers, pool, batch_size, num_workers, device, precision
        As for :func:`evaluate`.
    shard_size : int, default 1024
        Images per unit.
    hashes : list of str, optional
        Content hash of each image (default: computed by reading the files).
    tensor_cache : pathlib.Path, optional
        Folder of the decoded-tensor cache.

    Returns
    -------
    list of WorkUnit
        The units, in manifest order.

    Raises
    ------
    StimulusError
        If an image cannot be read for hashing.

    Examples
    --------
    >>> import tempfile
    >>> from PIL import Image
    >>> root = Path(tempfile.mkdtemp())
    >>> for label, grey in (("cat", 40), ("dog", 200)):  # two 32 x 32 stimuli in the category layout
    ...     (root / label).mkdir()
    ...     Image.new("RGB", (32, 32), (grey, grey, grey)).save(root / label / f"{label}1.png")
    >>> import torch
    >>> from torchvision.transforms import v2
    >>> as_tensor = v2.Compose([v2.PILToTensor(), v2.ToDtype(torch.float32, scale=True)])  # no resize: fast
    >>> from humanlike.trials.stimuli import discover_stimuli
    >>> spec = resolve_model("torchvision:squeezenet1_1", weights="none", transform=as_tensor)
    >>> units = plan_units(spec, discover_stimuli(root), root / "cache", shard_size=1)
    >>> [u.items for u in units], Path(units[0].target).parent.name.startswith("squeezenet1_1-")
    ([['cat1.png'], ['dog1.png']], True)
    >>> plan_units(spec, discover_stimuli(root), root / "cache", shard_size=1)[0].target == units[0].target
    True
    """
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
    """Run the units that are not finished yet (in this process, or through ``executor``).

    Parameters
    ----------
    units : list of WorkUnit
        From :func:`plan_units`.
    executor : optional
        See :func:`humanlike.models.executors.open_executor`.
    workers : int, optional
        Local Dask workers.
    progress : bool, default False
        Show a progress bar (tqdm).

    Examples
    --------
    >>> import tempfile
    >>> from PIL import Image
    >>> root = Path(tempfile.mkdtemp())
    >>> for label, grey in (("cat", 40), ("dog", 200)):  # two 32 x 32 stimuli in the category layout
    ...     (root / label).mkdir()
    ...     Image.new("RGB", (32, 32), (grey, grey, grey)).save(root / label / f"{label}1.png")
    >>> import torch
    >>> from torchvision.transforms import v2
    >>> as_tensor = v2.Compose([v2.PILToTensor(), v2.ToDtype(torch.float32, scale=True)])  # no resize: fast
    >>> from humanlike.trials.stimuli import discover_stimuli
    >>> spec = resolve_model("torchvision:squeezenet1_1", weights="none", transform=as_tensor)
    >>> units = plan_units(spec, discover_stimuli(root), root / "cache", shard_size=1)
    >>> run_units(units)
    >>> [sorted(p.name for p in Path(u.target).iterdir()) for u in units]
    [['outputs.npz'], ['outputs.npz']]
    """
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

    Parameters
    ----------
    models : sequence of str, nn.Module, callable or ModelSpec
        The models (their observer names must differ).
    stimuli : folder, manifest CSV path or manifest DataFrame
        See :mod:`humanlike.trials.stimuli`.
    decide : bool, default True
        ``False`` skips the trial table (features only; ``trials`` is then ``None``).
    experiment, weights, transform, layers, pool, batch_size, num_workers, device, precision : optional
        As for :func:`evaluate`.
    mapping, rule, cache_dir, executor, workers, shard_size, tensor_cache, progress : optional
        As for :func:`evaluate`.

    Returns
    -------
    list of EvaluationResult
        One per model, in the order given.

    Raises
    ------
    ValueError
        For two models with one name, bad batch or shard sizes, an unknown rule, mapping, pooling or
        precision.

    Examples
    --------
    >>> import tempfile
    >>> from PIL import Image
    >>> root = Path(tempfile.mkdtemp())
    >>> for label, grey in (("cat", 40), ("dog", 200)):  # two 32 x 32 stimuli in the category layout
    ...     (root / label).mkdir()
    ...     Image.new("RGB", (32, 32), (grey, grey, grey)).save(root / label / f"{label}1.png")
    >>> import torch
    >>> from torchvision.transforms import v2
    >>> as_tensor = v2.Compose([v2.PILToTensor(), v2.ToDtype(torch.float32, scale=True)])  # no resize: fast
    >>> results = evaluate_many(["torchvision:squeezenet1_0", "torchvision:squeezenet1_1"], root,
    ...                         weights="none", transform=as_tensor)
    >>> [(r.model, len(r.trials)) for r in results]
    [('squeezenet1_0', 2), ('squeezenet1_1', 2)]
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
            # Zero-shot classifiers' outputs are their categories already; ImageNet classifiers go through `mapping`.
            own = spec.category_mapping()
            trials = (decisions(outputs, manifest, spec.name, mapping=own or mapping, rule=rule)
                      if decide else None)
            info = {"model": spec.name, "source": spec.source, "arch": spec.arch, "weights": spec.weights,
                    "model_key": spec.key(), "preprocessing": repr(spec.preprocessing()),
                    "rule": str(rule), "mapping": "prompts" if own else (
                        mapping if isinstance(mapping, str) or mapping is None else "custom"),
                    "pool": pool, "precision": precision, "device": device}
            if own:
                info["prompts"] = spec.clip_prompts()
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
    stimuli : folder, manifest CSV path or manifest DataFrame (see :mod:`humanlike.trials.stimuli`).
    experiment : experiment name (default: the stimulus folder's name) or the one to select.
    name : observer name (default: the architecture's or the module's class name).
    weights : ``"default"`` (the library's pretrained weights from the local cache), ``None``/``"none"``
        (random initialisation, fixed seed), a torchvision weights name, or a local weights file.
    transform : preprocessing override (PIL RGB image -> CHW float tensor).
    layers : layer names (``model.named_modules()``) whose activations to keep.
    pool : ``"flatten"``, ``"avg"``, ``"max"`` (over space or tokens) or ``"cls"`` (first token).
    batch_size, num_workers : batching; ``num_workers`` decoding processes (0: one background thread).
    device : ``"auto"`` (CUDA, else MPS, else CPU), ``"cpu"``, ``"cuda[:N]"``, ``"mps"``.
    precision : ``"float32"`` (IEEE: agrees with the CPU; TF32 off on CUDA), ``"tf32"`` (CUDA tensor cores for
        float32 convolutions and matrix products), ``"bf16"`` or ``"fp16"`` (autocast); outputs and margins
        are float32 or wider whatever the precision.
    mapping : ``"imagenet16"`` (1000 ImageNet outputs -> the 16 model-vs-human categories), a dict
        category -> output indices (models with their own label set), a JSON file, or ``"identity"``.
        Not used for ``clip:`` models, whose outputs are their prompts' categories.
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
    Two 32 x 32 stimuli, squeezenet with random weights (no download) and its own preprocessing:

    >>> import tempfile
    >>> from PIL import Image
    >>> root = Path(tempfile.mkdtemp())
    >>> for label, grey in (("cat", 40), ("dog", 200)):
    ...     (root / label).mkdir()
    ...     Image.new("RGB", (32, 32), (grey, grey, grey)).save(root / label / f"{label}1.png")
    >>> result = evaluate("torchvision:squeezenet1_1", root, weights="none", layers=["classifier.1"], pool="avg")
    >>> result.trials[["observer", "item", "label"]].values.tolist()
    [['squeezenet1_1', 'cat1.png', 'cat'], ['squeezenet1_1', 'dog1.png', 'dog']]
    >>> set(result.trials["response"]) <= {"cat", "dog"}  # a forced choice among the stimulus labels
    True
    >>> bool((result.trials["correct"] == (result.trials["decision_margin"] > 0)).all())
    True
    >>> result.features["classifier.1"].features.shape  # the 1000 output channels, averaged over space
    (2, 1000)
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

    Parameters
    ----------
    model : str, nn.Module, callable or ModelSpec
        See :func:`evaluate`.
    stimuli : folder, manifest CSV path or manifest DataFrame
        The images.
    layers : str or list of str
        Layer names (``model.named_modules()``), at least one.
    experiment, weights, transform, pool, batch_size, num_workers, device, precision : optional
        As for :func:`evaluate`.
    cache_dir, executor, workers, shard_size, progress : optional
        As for :func:`evaluate`.

    Returns
    -------
    dict of str to Representation
        Layer name -> features (images x units), with the stimuli's items and labels.

    Raises
    ------
    ValueError
        If no layer is given.

    Examples
    --------
    >>> import tempfile
    >>> from PIL import Image
    >>> root = Path(tempfile.mkdtemp())
    >>> for label, grey in (("cat", 40), ("dog", 200)):  # two 32 x 32 stimuli in the category layout
    ...     (root / label).mkdir()
    ...     Image.new("RGB", (32, 32), (grey, grey, grey)).save(root / label / f"{label}1.png")
    >>> import torch
    >>> from torchvision.transforms import v2
    >>> as_tensor = v2.Compose([v2.PILToTensor(), v2.ToDtype(torch.float32, scale=True)])  # no resize: fast
    >>> reps = extract_features("torchvision:squeezenet1_1", root, ["features.0"], pool="avg",
    ...                         weights="none", transform=as_tensor)
    >>> rep = reps["features.0"]
    >>> rep.features.shape, rep.items.tolist(), rep.labels.tolist()  # 64 channels, averaged over space
    ((2, 64), ['cat1.png', 'dog1.png'], ['cat', 'dog'])
    """
    if isinstance(layers, str):
        layers = [layers]
    if not layers:
        raise ValueError("extract_features needs at least one layer name")
    return evaluate_many([model], stimuli, experiment=experiment, weights=weights, transform=transform,
                         layers=layers, pool=pool, batch_size=batch_size, num_workers=num_workers,
                         device=device, precision=precision, cache_dir=cache_dir, executor=executor,
                         workers=workers, shard_size=shard_size, progress=progress, decide=False)[0].features
