"""Networks as difference-scaling observers: a network cut at a named layer judges every triad or
quadruple of a blend sequence by the ℓ2 distance between its feature vectors at that layer
(RichardWebster et al. 2023). Features come from :func:`humanlike.models.extract_features`, the
judgements from :func:`humanlike.measures.mlds.observers.judgements_from_distances`.

Flattened early-layer features are large (resnet18 ``layer1``: 200,704 values per image), so the
sequences are processed in batches and only the levels × levels distance matrix of each sequence is
kept. The network is cut for real: the forward pass stops after the deepest requested layer (an early
layer of resnet18 costs a third of the full pass).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ..measures.mlds.observers import judgements_from_distances, pairwise_distances
from ..measures.psychscore.sequences import read_sequence_manifest


class _Stop(Exception):
    pass


def truncated_network(model, layers, weights=None):
    """A module that runs ``model`` only up to the deepest of ``layers`` and returns that activation.

    Parameters
    ----------
    model : str, torch.nn.Module, callable or ModelSpec
        The network (see :func:`humanlike.models.spec.resolve_model`).
    layers : sequence of str
        Layer names (``named_modules()``) to cut at.
    weights : None, "default" or a weights file, default None
        ``None``: random initialisation with the model layer's fixed seed.

    Returns
    -------
    factory : callable
        Zero-argument factory returning the truncated module (whose forward returns the deepest layer's
        activation).
    transform : callable
        The model's own preprocessing.
    runner_layers : dict of str to str
        The requested layers under the names the module exposes (the deepest is the wrapper's ``cut``,
        the others ``net.<layer>``).
    name : str
        The model's observer name.

    Raises
    ------
    ValueError
        For a layer name the network does not have.

    Examples
    --------
    >>> import torch
    >>> factory, transform, runner_layers, name = truncated_network("torchvision:squeezenet1_1",
    ...                                                             ["features.0", "features.3"])
    >>> name, runner_layers
    ('squeezenet1_1', {'features.0': 'net.features.0', 'features.3': 'cut'})
    >>> factory()(torch.zeros(1, 3, 32, 32)).shape  # stops after the fire module features.3
    torch.Size([1, 128, 7, 7])
    """
    import torch.nn as nn

    from .spec import resolve_model

    spec = resolve_model(model, weights=weights)
    net = spec.build() if spec.module is None else spec.module
    order = [name for name, _ in net.named_modules() if name]
    missing = [layer for layer in layers if layer not in order]
    if missing:
        raise ValueError(f"{spec.name}: no layers named {missing}; layers include {order[:12]}")
    deepest = max(layers, key=order.index)

    class Truncated(nn.Module):
        def __init__(self):
            super().__init__()
            self.net = net
            self.cut = nn.Identity()
            self._held = None

        def _stop(self, module, inputs, output):
            self._held = output
            raise _Stop

        def forward(self, x):
            # The stop hook lives only for this call: the user's module is left as it was given.
            handle = self.net.get_submodule(deepest).register_forward_hook(self._stop)
            try:
                self.net(x)
            except _Stop:
                pass
            finally:
                handle.remove()
            held, self._held = self._held, None
            return self.cut(held)

    runner_layers = {layer: ("cut" if layer == deepest else f"net.{layer}") for layer in layers}
    truncated = Truncated().eval()

    def build_truncated():
        # Handed over as a factory, not a module: the model layer's module digest cannot hash 0-dim
        # buffers such as BatchNorm's num_batches_tracked.
        return truncated

    build_truncated.__qualname__ = f"truncated:{spec.key()}:{deepest}"
    return build_truncated, spec.preprocessing(), runner_layers, spec.name


def _manifest(stimuli) -> pd.DataFrame:
    if isinstance(stimuli, pd.DataFrame):
        frame = stimuli.copy()
        missing = [c for c in ("item", "path", "sequence", "class_a", "class_b", "level") if c not in frame]
        if missing:
            raise ValueError(f"sequence manifest lacks columns {missing}")
        return frame
    return read_sequence_manifest(Path(stimuli))


def network_distances(model, stimuli, layers, *, weights=None, pool: str = "flatten",
                      batch_sequences: int = 40, batch_size: int = 64, device: str = "auto",
                      progress: bool = False) -> tuple[dict[str, np.ndarray], pd.DataFrame]:
    """Feature distances between the levels of every sequence, per layer.

    Parameters
    ----------
    model : str or torch.nn.Module
        A model spec (``"torchvision:resnet18"``) or a module.
    stimuli : path or DataFrame
        A sequence manifest (:func:`humanlike.measures.psychscore.sequences.write_sequences`).
    layers : str or list of str
        Layer names to cut the network at.
    weights : None, "default", or a weights file
        ``None``: random initialisation with the model layer's fixed seed.
    pool : str
        ``"flatten"`` (every unit, as in the paper) or a pooling of the model layer.
    batch_sequences : int
        Sequences whose features are held at once.
    batch_size : int, default 64
        Images per forward pass.
    device : str, default "auto"
        See :func:`humanlike.models.devices.resolve_device`.
    progress : bool, default False
        Show a progress bar.

    Returns
    -------
    distances : dict of str to numpy.ndarray
        Layer -> (sequences, levels, levels) ℓ2 distances.
    pairs : pandas.DataFrame
        The sequences (``sequence, class_a, class_b``), sorted, in the row order of the distances.

    Examples
    --------
    >>> import tempfile
    >>> from humanlike.measures.psychscore.sequences import ObjectImages, build_sequences, write_sequences
    >>> square = np.full((32, 32), 255.0); square[8:24, 8:24] = 0
    >>> bar = np.full((32, 32), 255.0); bar[4:28, 12:20] = 0
    >>> objects = ObjectImages({"bar": bar[None], "square": square[None]},
    ...                        {"bar": bar[None] < 128, "square": square[None] < 128},
    ...                        {"bar": ["bar1"], "square": ["square1"]})
    >>> manifest = write_sequences(build_sequences(objects, n_levels=3, blur=0), tempfile.mkdtemp())
    >>> distances, pairs = network_distances("torchvision:squeezenet1_1", manifest, "features.0")
    >>> d = distances["features.0"]
    >>> d.shape, pairs["sequence"].tolist(), bool(np.allclose(d[0], d[0].T) and (np.diag(d[0]) == 0).all())
    ((1, 3, 3), ['bar-square-00'], True)
    """
    from .evaluate import extract_features

    layers = [layers] if isinstance(layers, str) else list(layers)
    module, transform, runner_layers, _ = truncated_network(model, layers, weights)
    manifest = _manifest(stimuli)
    pairs = (manifest.drop_duplicates("sequence")[["sequence", "class_a", "class_b"]]
             .sort_values("sequence").reset_index(drop=True))
    n_levels = int(manifest["level"].max())
    out = {layer: np.empty((len(pairs), n_levels, n_levels)) for layer in layers}
    for start in range(0, len(pairs), batch_sequences):
        chunk = pairs["sequence"].iloc[start:start + batch_sequences]
        part = manifest[manifest["sequence"].isin(set(chunk))]
        reps = extract_features(module, part[["item", "path", "label", "experiment", "condition"]],
                                list(runner_layers.values()), transform=transform, pool=pool,
                                batch_size=batch_size, device=device, progress=progress)
        order = {item: k for k, item in enumerate(part["item"])}
        for layer in layers:
            rep = reps[runner_layers[layer]]
            row_of = {item: k for k, item in enumerate(rep.items)}
            for j, seq in enumerate(chunk):
                items = part[part["sequence"] == seq].sort_values("level")["item"]
                rows = [row_of[i] for i in items if i in order]
                feats = rep.features[rows].astype(np.float64)
                out[layer][start + j] = pairwise_distances(feats)
    return out, pairs


def network_judgements(model, stimuli, layers, *, name: str | None = None, weights=None, design: str = "triads",
                       seed: int = 0, **kwargs) -> pd.DataFrame:
    """Difference judgements of a network cut at each layer: one observer ``<name>/<layer>`` per layer.

    Parameters
    ----------
    model : str or torch.nn.Module
        A model spec or a module.
    stimuli : path or DataFrame
        A sequence manifest.
    layers : str or list of str
        Layer names to cut the network at.
    name : str, optional
        Observer name prefix (default: the architecture of a spec string, or the module's class name).
    weights : None, "default", or a weights file, default None
        ``None``: random initialisation with a fixed seed.
    design : {"triads", "quads"}, default "triads"
        The trials judged.
    seed : int, default 0
        Seed of the coin flips that break ties.
    **kwargs
        ``pool``, ``batch_sequences``, ``batch_size``, ``device``, ``progress`` of
        :func:`network_distances`.

    Returns
    -------
    pandas.DataFrame
        Judgement rows of every layer's observer (see
        :func:`humanlike.measures.mlds.observers.judgements_from_distances`).

    Examples
    --------
    >>> import tempfile
    >>> from humanlike.measures.psychscore.sequences import ObjectImages, build_sequences, write_sequences
    >>> square = np.full((32, 32), 255.0); square[8:24, 8:24] = 0
    >>> bar = np.full((32, 32), 255.0); bar[4:28, 12:20] = 0
    >>> objects = ObjectImages({"bar": bar[None], "square": square[None]},
    ...                        {"bar": bar[None] < 128, "square": square[None] < 128},
    ...                        {"bar": ["bar1"], "square": ["square1"]})
    >>> manifest = write_sequences(build_sequences(objects, n_levels=3, blur=0), tempfile.mkdtemp())
    >>> j = network_judgements("torchvision:squeezenet1_1", manifest, ["features.0", "features.3"])
    >>> j["observer"].unique().tolist(), len(j)  # one triad per sequence of 3 levels, per layer
    (['squeezenet1_1/features.0', 'squeezenet1_1/features.3'], 2)
    """
    distances, pairs = network_distances(model, stimuli, layers, weights=weights, **kwargs)
    if name is None:
        name = model.split(":")[-1] if isinstance(model, str) else type(model).__name__.lower()
    frames = [judgements_from_distances(d, pairs, f"{name}/{layer}", design=design, seed=seed)
              for layer, d in distances.items()]
    return pd.concat(frames, ignore_index=True)
