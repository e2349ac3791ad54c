"""What a forward pass yields: the logits of a model's output, and the pooled activations of named layers.

:func:`find_layers` finds the submodules a run hooks, :func:`pool_activation` pools what they return
(``flatten``, ``avg``, ``max``, ``cls``; :func:`check_pool` checks the name), and :func:`model_outputs` finds
the logits in whatever a model's forward returns. The work units that call them are in
:mod:`humanlike.models.runner`.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import nn

from .errors import ModelSpecError

POOLS = ("flatten", "avg", "max", "cls")


def check_pool(pool: str) -> str:
    """``pool`` if it is a known pooling (flatten, avg, max, cls); otherwise a ValueError naming the choices.

    Parameters
    ----------
    pool : str
        The pooling name.

    Returns
    -------
    str
        ``pool`` unchanged.

    Raises
    ------
    ValueError
        For an unknown pooling.

    Examples
    --------
    >>> check_pool("avg")
    'avg'
    >>> check_pool("mean")
    Traceback (most recent call last):
        ...
    ValueError: unknown pooling 'mean'; use one of ('flatten', 'avg', 'max', 'cls')
    """
    if pool not in POOLS:
        raise ValueError(f"unknown pooling {pool!r}; use one of {POOLS}")
    return pool


def pool_activation(activation, pool: str) -> torch.Tensor:
    """(batch x ...) activation -> (batch x units), float32.

    ``flatten``: every unit. ``avg``/``max``: over space for (B, C, H, W) maps, over tokens for (B, T, C)
    sequences (transformers), identity for (B, C). ``cls``: the first token of a (B, T, C) sequence.

    Parameters
    ----------
    activation : torch.Tensor, tuple, list or dict
        A layer's output; of a tuple or list the first element is used, of a dict the first value.
    pool : {"flatten", "avg", "max", "cls"}
        The pooling.

    Returns
    -------
    torch.Tensor, (batch, units)
        The pooled activation, detached, float32.

    Raises
    ------
    ValueError
        If ``pool="cls"`` and the activation is not (batch, tokens, units).

    Examples
    --------
    >>> maps = torch.arange(2 * 3 * 4 * 4, dtype=torch.float32).reshape(2, 3, 4, 4)
    >>> pool_activation(maps, "flatten").shape, pool_activation(maps, "avg").shape
    (torch.Size([2, 48]), torch.Size([2, 3]))
    >>> pool_activation(maps, "max")[0].tolist()  # the largest value of each channel's map
    [15.0, 31.0, 47.0]
    >>> pool_activation(torch.zeros(2, 5, 8), "cls").shape  # transformer tokens
    torch.Size([2, 8])
    """
    if isinstance(activation, (tuple, list)):
        activation = activation[0]
    if isinstance(activation, dict):
        activation = next(iter(activation.values()))
    x = activation.detach().float()
    if pool == "flatten" or x.ndim == 2:
        return x.reshape(x.shape[0], -1)
    if pool == "cls":
        if x.ndim != 3:
            raise ValueError(f"pool='cls' needs a (batch, tokens, units) activation, got shape {tuple(x.shape)}")
        return x[:, 0, :]
    dims = tuple(range(2, x.ndim)) if x.ndim == 4 else (1,)
    return x.mean(dim=dims) if pool == "avg" else x.amax(dim=dims)


def model_outputs(output) -> torch.Tensor:
    """The logits tensor of a forward's output (a tensor, ``.logits``, a tuple's first element, a dict).

    Parameters
    ----------
    output : torch.Tensor, object with ``.logits``, tuple, list or dict
        What a model's forward returned.

    Returns
    -------
    torch.Tensor
        The logits.

    Raises
    ------
    TypeError
        If no tensor can be found.

    Examples
    --------
    >>> logits = torch.zeros(2, 3)
    >>> model_outputs((logits, "aux")) is logits, model_outputs({"logits": logits}) is logits
    (True, True)
    """
    if isinstance(output, torch.Tensor):
        return output
    if hasattr(output, "logits"):
        return output.logits
    if isinstance(output, (tuple, list)) and output and isinstance(output[0], torch.Tensor):
        return output[0]
    if isinstance(output, dict) and output:
        return model_outputs(next(iter(output.values())))
    raise TypeError(f"cannot find the logits in a model output of type {type(output).__name__}")


def find_layers(model: nn.Module, layers: Sequence[str], model_name: str) -> list[nn.Module]:
    """The submodules named ``layers`` (dotted names as in ``model.named_modules()``).

    Parameters
    ----------
    model : torch.nn.Module
        The model.
    layers : sequence of str
        Dotted layer names.
    model_name : str
        The model's name, for error messages.

    Returns
    -------
    list of torch.nn.Module
        The submodules, in the order of ``layers``.

    Raises
    ------
    ModelSpecError
        For a name that is not a submodule; the message suggests close names.

    Examples
    --------
    >>> net = nn.Sequential(nn.Conv2d(3, 4, 3), nn.ReLU(), nn.Flatten())
    >>> find_layers(net, ["1", "0"], "toy")
    [ReLU(), Conv2d(3, 4, kernel_size=(3, 3), stride=(1, 1))]
    >>> find_layers(net, ["relu"], "toy")
    Traceback (most recent call last):
        ...
    humanlike.models.errors.ModelSpecError: toy: no layer named 'relu'; top-level layers: ['0', '1', '2']
    """
    names = [n for n, _ in model.named_modules() if n]
    modules = []
    for layer in layers:
        try:
            modules.append(model.get_submodule(layer))
        except AttributeError:
            import difflib

            close = difflib.get_close_matches(layer, names, n=4)
            hint = f"; did you mean {', '.join(close)}?" if close else f"; top-level layers: {names[:12]}"
            raise ModelSpecError(f"{model_name}: no layer named {layer!r}{hint}") from None
    return modules
