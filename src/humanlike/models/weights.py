"""Weights files and the identity of weights: which weights options name a file, reading a state dict from
one into an architecture, and the content digests that key the work-unit cache.

Where pretrained weights come from (the libraries' caches, the offline checks) is part of each source's
build in :mod:`humanlike.models.spec`.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import torch
from torch import nn

from .errors import ModelSpecError

WEIGHT_SUFFIXES = (".pth", ".pt", ".bin", ".ckpt", ".safetensors")


def is_weights_file(weights) -> bool:
    """Whether a weights option names a file rather than a library's weights (``"default"``, a weights name).

    Parameters
    ----------
    weights : str, os.PathLike or None
        The weights option.

    Returns
    -------
    bool
        True for a path with a weights-file suffix (.pth, .pt, .bin, .ckpt, .safetensors), one with a path
        separator, or one that exists; False for None and for a name such as ``"IMAGENET1K_V1"``.

    Examples
    --------
    >>> is_weights_file("resnet.pth"), is_weights_file(Path("weights") / "model"), is_weights_file("IMAGENET1K_V1")
    (True, True, False)
    >>> is_weights_file(None), is_weights_file("default")
    (False, False)
    """
    return isinstance(weights, (str, os.PathLike)) and (
        str(weights).lower().endswith(WEIGHT_SUFFIXES) or os.sep in str(weights) or Path(str(weights)).exists())


def file_digest(path: Path) -> str:
    """BLAKE2b digest (128 bits, hex) of a file's content, read in 1 MiB blocks: the cache key of a weights file.

    Parameters
    ----------
    path : pathlib.Path
        The file.

    Returns
    -------
    str
        32 hex characters.

    Examples
    --------
    >>> import hashlib, tempfile
    >>> path = Path(tempfile.mkdtemp()) / "weights.pth"
    >>> _ = path.write_bytes(b"abc")
    >>> file_digest(path) == hashlib.blake2b(b"abc", digest_size=16).hexdigest()
    True
    """
    h = hashlib.blake2b(digest_size=16)
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def module_digest(module: nn.Module) -> str:
    """Content hash of a module's class and state (parameters and buffers).

    Parameters
    ----------
    module : torch.nn.Module
        The module.

    Returns
    -------
    str
        32 hex characters; equal for modules of the same class with equal state.

    Examples
    --------
    >>> a, b = nn.Linear(2, 2), nn.Linear(2, 2)
    >>> _ = b.load_state_dict(a.state_dict())
    >>> module_digest(a) == module_digest(b)
    True
    >>> with torch.no_grad():
    ...     _ = b.weight.add_(1.0)
    >>> module_digest(a) == module_digest(b)
    False
    """
    h = hashlib.blake2b(digest_size=16)
    h.update(f"{type(module).__module__}.{type(module).__qualname__}".encode())
    for name, tensor in module.state_dict().items():
        h.update(name.encode())
        t = tensor.detach().cpu().contiguous()
        h.update(str(t.dtype).encode() + str(tuple(t.shape)).encode())
        h.update(t.reshape(-1).view(torch.uint8).numpy().tobytes() if t.numel() else b"")
    return h.hexdigest()


def load_weights_file(model: nn.Module, path: Path, name: str) -> None:
    """Load a state dict from ``path`` into ``model`` (``state_dict``/``model`` wrappers and a
    ``module.`` prefix from DataParallel are unwrapped). Errors name the file.

    Parameters
    ----------
    model : torch.nn.Module
        The architecture to load into (in place).
    path : pathlib.Path
        A ``.pth``/``.pt``/``.bin``/``.ckpt`` file read with ``torch.load(weights_only=True)``, or a
        ``.safetensors`` file.
    name : str
        The model's name, for error messages.

    Raises
    ------
    ModelSpecError
        If the file is missing, unreadable, holds no state dict, or does not fit the architecture.

    Examples
    --------
    >>> import tempfile
    >>> source = nn.Linear(2, 2)
    >>> path = Path(tempfile.mkdtemp()) / "w.pth"
    >>> torch.save({"state_dict": {f"module.{k}": v for k, v in source.state_dict().items()}}, path)
    >>> target = nn.Linear(2, 2)
    >>> load_weights_file(target, path, "toy")
    >>> bool(torch.equal(target.weight, source.weight))
    True
    >>> load_weights_file(nn.Linear(3, 2), path, "toy")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    humanlike.models.errors.ModelSpecError: toy: weights file ... does not fit the architecture: ...
    """
    if not path.is_file():
        raise ModelSpecError(f"{name}: weights file {path} not found")
    try:
        if path.suffix == ".safetensors":
            from safetensors.torch import load_file

            state = load_file(str(path))
        else:
            state = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as err:  # torch raises several classes for a bad file
        raise ModelSpecError(f"{name}: cannot read weights file {path} ({err})") from None
    for wrapper in ("state_dict", "model", "model_state_dict"):
        if isinstance(state, dict) and wrapper in state and isinstance(state[wrapper], dict):
            state = state[wrapper]
    if not isinstance(state, dict):
        raise ModelSpecError(f"{name}: weights file {path} does not hold a state dict")
    if state and all(k.startswith("module.") for k in state):
        state = {k[len("module."):]: v for k, v in state.items()}
    try:
        model.load_state_dict(state)
    except RuntimeError as err:
        raise ModelSpecError(f"{name}: weights file {path} does not fit the architecture: {err}") from None
