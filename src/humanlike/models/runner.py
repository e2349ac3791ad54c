"""Work units: one model on one shard of images, run wherever the executor puts it, written atomically.

A unit's result is a folder ``<cache>/<model>-<key>/unit-<key>/`` holding ``outputs.npz`` (raw model
outputs as float32, with the items) and one representation file per requested layer. The folder is
written under a temporary name and renamed into place, so it either exists complete or not at all: a
rerun skips finished units and a crash loses at most the unit in flight.

Here: the :class:`WorkUnit`, the per-process model cache (:func:`loaded_model`), the forward pass with its
out-of-memory retry (:func:`forward_unit`) and the unit folder (:func:`run_unit` writes it, :func:`read_unit_outputs`
and :func:`read_unit_layer` read it). Devices and precision are in :mod:`humanlike.models.devices`; the
logits, layers and pooling in :mod:`humanlike.models.activations`; planning and collecting units in
:mod:`humanlike.models.evaluate`.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch
from torch import nn

from ..trials.representations import Representation, load_representation, save_representation
from .activations import find_layers, model_outputs, pool_activation
from .devices import check_precision, forward_precision, resolve_device
from .errors import ModelSpecError
from .images import batches
from .spec import ModelSpec

OUTPUTS_FILE = "outputs.npz"


def is_out_of_memory(err: BaseException) -> bool:
    """Whether an exception is a device or host out-of-memory error (the unit then retries with half the batch).

    Parameters
    ----------
    err : BaseException
        The exception raised by a forward pass.

    Returns
    -------
    bool
        True for ``torch.cuda.OutOfMemoryError`` and for RuntimeErrors whose message says out of memory.

    Examples
    --------
    >>> is_out_of_memory(RuntimeError("CUDA out of memory. Tried to allocate 2.00 GiB"))
    True
    >>> is_out_of_memory(ValueError("out of memory"))  # only RuntimeErrors count
    False
    """
    oom = getattr(torch.cuda, "OutOfMemoryError", ())
    if oom and isinstance(err, oom):
        return True
    text = str(err).lower()
    return isinstance(err, RuntimeError) and ("out of memory" in text or "can't allocate memory" in text)


@dataclass
class WorkUnit:
    """One model on one shard of images. Everything a worker needs; picklable for named models.

    Usually made by :func:`humanlike.models.evaluate.plan_units`.

    Attributes
    ----------
    spec : ModelSpec
        The model.
    items, paths, labels : list of str
        Item id, image file and label of each image.
    target : str
        The unit's final folder (written atomically by :func:`run_unit`).
    layers : tuple of str
        Layers whose activations to keep.
    pool : str, default "flatten"
        Pooling of the activations (see :func:`pool_activation`).
    batch_size : int, default 64
        Images per forward pass (halved on out-of-memory).
    num_workers : int, default 0
        Decoding processes (0: one background thread).
    device : str, default "auto"
        Device name (see :func:`resolve_device`).
    precision : str, default "float32"
        ``"float32"``, ``"tf32"``, ``"bf16"`` or ``"fp16"`` (see :func:`check_precision`).
    metadata : dict
        Facts written into the layer representations.
    tensor_files : list of str, optional
        Decoded-tensor cache files, one per image.

    Examples
    --------
    >>> import tempfile
    >>> from PIL import Image
    >>> root = Path(tempfile.mkdtemp())
    >>> for label, grey in (("cat", 40), ("dog", 200)):  # two 32 x 32 stimuli in the category layout
    ...     (root / label).mkdir()
    ...     Image.new("RGB", (32, 32), (grey, grey, grey)).save(root / label / f"{label}1.png")
    >>> from humanlike.trials.stimuli import discover_stimuli
    >>> from humanlike.models.spec import resolve_model
    >>> from torchvision.transforms import v2
    >>> as_tensor = v2.Compose([v2.PILToTensor(), v2.ToDtype(torch.float32, scale=True)])  # no resize: fast
    >>> spec = resolve_model("torchvision:squeezenet1_1", weights="none", transform=as_tensor)  # random weights
    >>> manifest = discover_stimuli(root)
    >>> unit = WorkUnit(spec, manifest["item"].tolist(), manifest["path"].tolist(), manifest["label"].tolist(),
    ...                 str(root / "cache" / "unit-0"), layers=("features.0",), pool="avg", device="cpu")
    >>> logits, features = forward_unit(unit)
    >>> logits.shape, features["features.0"].shape  # 1000 ImageNet outputs; 64 channels, averaged over space
    ((2, 1000), (2, 64))
    """

    spec: ModelSpec
    items: list[str]
    paths: list[str]
    labels: list[str]
    target: str  # the unit's final folder
    layers: tuple[str, ...] = ()
    pool: str = "flatten"
    batch_size: int = 64
    num_workers: int = 0
    device: str = "auto"
    precision: str = "float32"
    metadata: dict = field(default_factory=dict)
    tensor_files: list[str] | None = None  # decoded-tensor cache files, one per image (optional)


# One built model per process: units of the same model reuse it; a new model replaces it (bounded memory).
_LOADED: dict = {}
_LOADING = threading.Lock()


def loaded_model(spec: ModelSpec, device: torch.device) -> nn.Module:
    """The model of ``spec`` on ``device``, built once per process and kept (a caller's own module is never cached).

    Parameters
    ----------
    spec : ModelSpec
        The model.
    device : torch.device
        Where to put it.

    Returns
    -------
    torch.nn.Module
        The model in eval mode on ``device``; for a named model the same object on every call with the
        same spec and device (a new model replaces the cached one, so memory stays bounded).

    Examples
    --------
    >>> from humanlike.models.spec import resolve_model
    >>> spec = resolve_model("torchvision:squeezenet1_1", weights="none")
    >>> loaded_model(spec, torch.device("cpu")) is loaded_model(spec, torch.device("cpu"))
    True
    >>> own = nn.Linear(2, 2)
    >>> loaded_model(resolve_model(own), torch.device("cpu")) is own  # a given module is used as is
    True
    """
    if spec.source == "module":  # the caller's own object, never a look-alike from the cache
        return spec.build().to(device)
    key = (spec.key(), str(device))
    with _LOADING:
        if key not in _LOADED:
            _LOADED.clear()
            if device.type == "cuda":
                torch.cuda.empty_cache()
            _LOADED[key] = spec.build().to(device)
        return _LOADED[key]


def forward_unit(unit: WorkUnit, progress: Callable[[int], None] | None = None) -> tuple[np.ndarray, dict]:
    """Run the unit: (outputs (images x outputs) float32, {layer: (images x units) float32}).

    On out-of-memory the remaining images are retried with half the batch size, down to 1.

    Parameters
    ----------
    unit : WorkUnit
        The model and images.
    progress : callable, optional
        Called with the number of images after every batch.

    Returns
    -------
    outputs : numpy.ndarray of float32, (images, outputs)
        Raw model outputs (logits), in the unit's image order.
    features : dict of str to numpy.ndarray
        Layer name -> (images, units) pooled activations.

    Raises
    ------
    ModelSpecError
        For an unknown layer, or a layer the forward pass does not call.

    Examples
    --------
    >>> import tempfile
    >>> from PIL import Image
    >>> root = Path(tempfile.mkdtemp())
    >>> for label, grey in (("cat", 40), ("dog", 200)):  # two 32 x 32 stimuli in the category layout
    ...     (root / label).mkdir()
    ...     Image.new("RGB", (32, 32), (grey, grey, grey)).save(root / label / f"{label}1.png")
    >>> from humanlike.trials.stimuli import discover_stimuli
    >>> from humanlike.models.spec import resolve_model
    >>> from torchvision.transforms import v2
    >>> as_tensor = v2.Compose([v2.PILToTensor(), v2.ToDtype(torch.float32, scale=True)])  # no resize: fast
    >>> spec = resolve_model("torchvision:squeezenet1_1", weights="none", transform=as_tensor)  # random weights
    >>> manifest = discover_stimuli(root)
    >>> unit = WorkUnit(spec, manifest["item"].tolist(), manifest["path"].tolist(), manifest["label"].tolist(),
    ...                 str(root / "cache" / "unit-0"), layers=("features.0",), pool="avg", device="cpu")
    >>> seen = []
    >>> logits, features = forward_unit(unit, progress=seen.append)
    >>> logits.dtype, sorted(features), sum(seen)
    (dtype('float32'), ['features.0'], 2)
    """
    device = resolve_device(unit.device)
    precision = check_precision(unit.precision)
    model = loaded_model(unit.spec, device)
    modules = find_layers(model, unit.layers, unit.spec.name)
    transform = unit.spec.preprocessing()
    outputs: list[torch.Tensor] = []
    features: dict[str, list[torch.Tensor]] = {layer: [] for layer in unit.layers}
    captured: dict[str, torch.Tensor] = {}

    owner = threading.get_ident()

    def hook_for(layer):
        def hook(_module, _inputs, output):
            # Units on executor threads may share one module: each keeps only its own thread's forwards.
            if threading.get_ident() == owner:
                captured[layer] = pool_activation(output, unit.pool).cpu()
        return hook

    handles = [m.register_forward_hook(hook_for(layer)) for layer, m in zip(unit.layers, modules)]
    batch_size, done = max(1, int(unit.batch_size)), 0
    try:
        while done < len(unit.paths):
            try:
                cached = unit.tensor_files[done:] if unit.tensor_files is not None else None
                for batch in batches(unit.paths[done:], transform, batch_size=batch_size,
                                     num_workers=unit.num_workers, pin_memory=device.type == "cuda",
                                     cached=cached):
                    with torch.inference_mode(), forward_precision(device, precision):
                        logits = model_outputs(model(batch.to(device, non_blocking=True)))
                    # Margins are taken in float32 (later float64) whatever the autocast precision.
                    outputs.append(logits.float().cpu())
                    for layer in unit.layers:
                        if layer not in captured:
                            raise ModelSpecError(f"{unit.spec.name}: layer {layer!r} did not run in the forward "
                                                 "pass (it exists but the model does not call it)")
                        features[layer].append(captured.pop(layer))
                    done += batch.shape[0]
                    if progress is not None:
                        progress(batch.shape[0])
            except Exception as err:
                if not is_out_of_memory(err) or batch_size == 1:
                    raise
                batch_size //= 2
                captured.clear()
                if device.type == "cuda":
                    torch.cuda.empty_cache()
    finally:
        for handle in handles:
            handle.remove()
    logits = torch.cat(outputs).numpy().astype(np.float32, copy=False)
    return logits, {layer: torch.cat(parts).numpy() for layer, parts in features.items()}




def layer_file(layer: str) -> str:
    """File name of a layer's representation inside a unit folder (characters unsafe in file names replaced).

    Parameters
    ----------
    layer : str
        Layer name.

    Returns
    -------
    str
        The file name.

    Examples
    --------
    >>> layer_file("features.0"), layer_file("blocks/3:attn")
    ('features.0.npz', 'blocks_3_attn.npz')
    """
    return re.sub(r"[^\w.\-]", "_", layer) + ".npz"


def run_unit(unit: WorkUnit, progress: Callable[[int], None] | None = None) -> str:
    """Run a unit unless its folder exists; write the folder atomically; return its path.

    This is the function executors call (in this process, a process pool, or a Dask worker).

    Parameters
    ----------
    unit : WorkUnit
        The unit.
    progress : callable, optional
        Called with the number of images after every batch.

    Returns
    -------
    str
        The unit's folder, holding ``outputs.npz`` and one representation file per layer.

    Examples
    --------
    >>> import tempfile
    >>> from PIL import Image
    >>> root = Path(tempfile.mkdtemp())
    >>> for label, grey in (("cat", 40), ("dog", 200)):  # two 32 x 32 stimuli in the category layout
    ...     (root / label).mkdir()
    ...     Image.new("RGB", (32, 32), (grey, grey, grey)).save(root / label / f"{label}1.png")
    >>> from humanlike.trials.stimuli import discover_stimuli
    >>> from humanlike.models.spec import resolve_model
    >>> from torchvision.transforms import v2
    >>> as_tensor = v2.Compose([v2.PILToTensor(), v2.ToDtype(torch.float32, scale=True)])  # no resize: fast
    >>> spec = resolve_model("torchvision:squeezenet1_1", weights="none", transform=as_tensor)  # random weights
    >>> manifest = discover_stimuli(root)
    >>> unit = WorkUnit(spec, manifest["item"].tolist(), manifest["path"].tolist(), manifest["label"].tolist(),
    ...                 str(root / "cache" / "unit-0"), layers=("features.0",), pool="avg", device="cpu")
    >>> folder = run_unit(unit)
    >>> sorted(p.name for p in Path(folder).iterdir())
    ['features.0.npz', 'outputs.npz']
    >>> run_unit(unit) == folder  # finished: not run again
    True
    """
    target = Path(unit.target)
    if (target / OUTPUTS_FILE).is_file():
        return str(target)
    logits, features = forward_unit(unit, progress)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}."))
    try:
        np.savez(tmp / OUTPUTS_FILE, outputs=logits, items=np.asarray(unit.items, dtype=str),
                 labels=np.asarray(unit.labels, dtype=str))
        for layer, values in features.items():
            rep = Representation(values, np.asarray(unit.items), np.asarray(unit.labels),
                                 name=f"{unit.spec.name}:{layer}",
                                 metadata={"model": unit.spec.name, "layer": layer, "pool": unit.pool,
                                           **unit.metadata})
            save_representation(rep, tmp / layer_file(layer))
        try:
            os.rename(tmp, target)
        except OSError:
            if not (target / OUTPUTS_FILE).is_file():  # lost a race to an identical unit: theirs is as good
                raise
            shutil.rmtree(tmp, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return str(target)


def read_unit_outputs(folder) -> tuple[np.ndarray, np.ndarray]:
    """The raw outputs (images x outputs) and item ids stored in a finished unit folder.

    Parameters
    ----------
    folder : path
        A folder written by :func:`run_unit`.

    Returns
    -------
    outputs : numpy.ndarray of float32, (images, outputs)
        The raw outputs.
    items : numpy.ndarray of str, (images,)
        The item ids, in row order.

    Examples
    --------
    >>> import tempfile
    >>> from PIL import Image
    >>> root = Path(tempfile.mkdtemp())
    >>> for label, grey in (("cat", 40), ("dog", 200)):  # two 32 x 32 stimuli in the category layout
    ...     (root / label).mkdir()
    ...     Image.new("RGB", (32, 32), (grey, grey, grey)).save(root / label / f"{label}1.png")
    >>> from humanlike.trials.stimuli import discover_stimuli
    >>> from humanlike.models.spec import resolve_model
    >>> from torchvision.transforms import v2
    >>> as_tensor = v2.Compose([v2.PILToTensor(), v2.ToDtype(torch.float32, scale=True)])  # no resize: fast
    >>> spec = resolve_model("torchvision:squeezenet1_1", weights="none", transform=as_tensor)  # random weights
    >>> manifest = discover_stimuli(root)
    >>> unit = WorkUnit(spec, manifest["item"].tolist(), manifest["path"].tolist(), manifest["label"].tolist(),
    ...                 str(root / "cache" / "unit-0"), layers=("features.0",), pool="avg", device="cpu")
    >>> outputs, items = read_unit_outputs(run_unit(unit))
    >>> outputs.shape, items.tolist()
    ((2, 1000), ['cat1.png', 'dog1.png'])
    """
    with np.load(Path(folder) / OUTPUTS_FILE, allow_pickle=False) as data:
        return data["outputs"], data["items"]


def read_unit_layer(folder, layer: str) -> Representation:
    """The representation of one layer stored in a finished unit folder.

    Parameters
    ----------
    folder : path
        A folder written by :func:`run_unit`.
    layer : str
        The layer name.

    Returns
    -------
    Representation
        Images x units, with the unit's items and labels.

    Examples
    --------
    >>> import tempfile
    >>> from PIL import Image
    >>> root = Path(tempfile.mkdtemp())
    >>> for label, grey in (("cat", 40), ("dog", 200)):  # two 32 x 32 stimuli in the category layout
    ...     (root / label).mkdir()
    ...     Image.new("RGB", (32, 32), (grey, grey, grey)).save(root / label / f"{label}1.png")
    >>> from humanlike.trials.stimuli import discover_stimuli
    >>> from humanlike.models.spec import resolve_model
    >>> from torchvision.transforms import v2
    >>> as_tensor = v2.Compose([v2.PILToTensor(), v2.ToDtype(torch.float32, scale=True)])  # no resize: fast
    >>> spec = resolve_model("torchvision:squeezenet1_1", weights="none", transform=as_tensor)  # random weights
    >>> manifest = discover_stimuli(root)
    >>> unit = WorkUnit(spec, manifest["item"].tolist(), manifest["path"].tolist(), manifest["label"].tolist(),
    ...                 str(root / "cache" / "unit-0"), layers=("features.0",), pool="avg", device="cpu")
    >>> rep = read_unit_layer(run_unit(unit), "features.0")
    >>> rep.name, rep.features.shape, rep.labels.tolist(), rep.metadata["pool"]
    ('squeezenet1_1:features.0', (2, 64), ['cat', 'dog'], 'avg')
    """
    return load_representation(Path(folder) / layer_file(layer))
