"""Model specifications: what to build, with which weights and which preprocessing, and the cache key.

A :class:`ModelSpec` is small and picklable when the model is named by a string: workers (processes,
Dask) receive the spec and build the model themselves, so no model is ever pickled across and no CUDA
context exists before a worker starts.
"""

from __future__ import annotations

import hashlib
import os
import socket
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import torch
from torch import nn

RANDOM_INIT_SEED = 0
WEIGHT_SUFFIXES = (".pth", ".pt", ".bin", ".ckpt", ".safetensors")
_HOSTS = {"torchvision": "download.pytorch.org", "timm": "huggingface.co"}


class ModelSpecError(ValueError):
    """A model name, weights option or layer name cannot be resolved; the message says what to pass.

    A subclass of ``ValueError``.

    Examples
    --------
    >>> resolve_model("torchvision:resnet19")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    humanlike.models.spec.ModelSpecError: unknown torchvision model 'resnet19'; did you mean resnet18, ...?
    """


class WeightsUnavailableError(ModelSpecError):
    """Pretrained weights are neither in the local cache nor downloadable (offline).

    A :class:`ModelSpecError`; the message names the URL, where to put the file, and the ``weights=``
    alternatives (a local file, or ``None`` for random weights).

    Examples
    --------
    >>> issubclass(WeightsUnavailableError, ModelSpecError)
    True
    >>> resolve_model("torchvision:resnet18").build()  # doctest: +SKIP
    Traceback (most recent call last):
        ...
    humanlike.models.spec.WeightsUnavailableError: torchvision:resnet18: pretrained weights are not in the local cache ...

    (skipped: whether it raises depends on the network and the local weights cache)
    """


def _digest(*parts) -> str:
    h = hashlib.blake2b(digest_size=16)
    for part in parts:
        h.update(repr(part).encode())
        h.update(b"\x00")
    return h.hexdigest()


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


def imagenet_transform():
    """The standard ImageNet evaluation preprocessing: resize 256, centre crop 224, ImageNet normalisation.

    Returns
    -------
    torchvision.transforms.v2.Compose
        PIL RGB image -> (3, 224, 224) float32 tensor.

    Examples
    --------
    >>> from PIL import Image
    >>> imagenet_transform()(Image.new("RGB", (300, 400))).shape
    torch.Size([3, 224, 224])
    """
    from torchvision.transforms import v2

    return v2.Compose([
        v2.PILToTensor(),
        v2.Resize(256, antialias=True),
        v2.CenterCrop(224),
        v2.ToDtype(torch.float32, scale=True),
        v2.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225]),
    ])


@dataclass
class ModelSpec:
    """What to run: a named model (``torchvision:resnet50``, ``timm:vit_base_patch16_224``), a module, or
    a zero-argument factory returning a module.

    Usually made by :func:`resolve_model`. Small and picklable when the model is named by a string.

    Attributes
    ----------
    name : str
        Observer name used in trial tables (default: the architecture or the module's class name).
    source : str
        ``"torchvision"``, ``"timm"``, ``"module"`` or ``"factory"``.
    arch : str, optional
        Architecture name for the named sources.
    weights : str or None
        ``"default"`` (pretrained defaults of the library, from the local cache), ``None`` (random
        initialisation with a fixed seed, identical in every worker), a torchvision weights name
        (``"IMAGENET1K_V1"``), or a path to a local weights file (a state dict).
    module : torch.nn.Module, optional
        The module of the ``"module"`` source.
    factory : callable, optional
        The zero-argument factory of the ``"factory"`` source.
    transform : callable, optional
        Preprocessing (PIL image -> CHW float tensor); ``None`` uses the library's default.

    Examples
    --------
    >>> spec = resolve_model("torchvision:squeezenet1_1", weights="none")
    >>> spec
    ModelSpec(name='squeezenet1_1', source='torchvision', arch='squeezenet1_1', weights=None)
    >>> len(spec.key()), spec.key() == resolve_model("torchvision:squeezenet1_1", weights=None).key()
    (32, True)
    >>> model = spec.build()
    >>> model.training, sum(p.numel() for p in model.parameters())
    (False, 1235496)
    """

    name: str
    source: str
    arch: str | None = None
    weights: str | None = "default"
    module: nn.Module | None = field(default=None, repr=False)
    factory: Callable[[], nn.Module] | None = field(default=None, repr=False)
    transform: Callable | None = field(default=None, repr=False)
    _key: str | None = field(default=None, repr=False)

    # -- preprocessing ------------------------------------------------------------------------------
    def preprocessing(self):
        """The transform applied to each PIL image (RGB).

        Returns
        -------
        callable
            ``transform`` if given; else the library's own preprocessing for the weights (torchvision, timm),
            or :func:`imagenet_transform` for modules and factories.
        """
        if self.transform is not None:
            return self.transform
        if self.source == "torchvision":
            import torchvision

            enum = torchvision.models.get_model_weights(self.arch)
            chosen = enum.DEFAULT if self.weights in (None, "default") or _is_path(self.weights) else enum[self.weights]
            return chosen.transforms()
        if self.source == "timm":
            import timm
            from timm.data import create_transform, resolve_data_config

            cfg = timm.models.get_pretrained_cfg(self.arch)
            return create_transform(**resolve_data_config(pretrained_cfg=cfg.to_dict() if cfg else {}))
        return imagenet_transform()

    def preprocessing_key(self) -> str:
        """A stable text describing the preprocessing, part of the cache key.

        Returns
        -------
        str
            A digest (32 hex characters) of the transform's ``repr``.
        """
        return _digest(repr(self.preprocessing()))

    # -- identity -----------------------------------------------------------------------------------
    def key(self) -> str:
        """Cache key of the model and its weights (not the preprocessing, see :meth:`preprocessing_key`).

        Returns
        -------
        str
            A digest (32 hex characters) of the source, architecture and weights (the content of a weights
            file, the state of a module, the name of a factory), computed once.
        """
        if self._key is None:
            if _is_path(self.weights):
                weights_id = "file:" + file_digest(Path(self.weights))
            elif self.weights is None:
                weights_id = f"random-seed{RANDOM_INIT_SEED}"
            else:
                weights_id = str(self.weights)
            if self.source == "module":
                weights_id += ":" + module_digest(self.module)
            elif self.source == "factory":
                weights_id += ":" + getattr(self.factory, "__qualname__", repr(self.factory))
            self._key = _digest(self.source, self.arch, weights_id)
        return self._key

    # -- building -----------------------------------------------------------------------------------
    def build(self) -> nn.Module:
        """Build the model on the CPU in eval mode (called inside the worker that runs it).

        Returns
        -------
        torch.nn.Module
            The model, with its weights loaded.

        Raises
        ------
        WeightsUnavailableError
            If pretrained weights are not cached and cannot be downloaded.
        ModelSpecError
            If a factory does not return a module or a weights file does not fit.
        """
        if self.source == "module":
            model = self.module
        elif self.source == "factory":
            model = self.factory()
            if not isinstance(model, nn.Module):
                raise ModelSpecError(f"model factory for {self.name!r} returned {type(model).__name__}, not an nn.Module")
        elif self.source == "torchvision":
            model = self._build_torchvision()
        else:
            model = self._build_timm()
        if _is_path(self.weights):
            load_weights_file(model, Path(self.weights), self.name)
        return model.eval()

    def _random(self, make):
        # Random weights must be the same in every worker and every run: a fixed seed, the global RNG untouched.
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(RANDOM_INIT_SEED)
            return make()

    def _build_torchvision(self) -> nn.Module:
        import torchvision

        if self.weights is None or _is_path(self.weights):
            return self._random(lambda: torchvision.models.get_model(self.arch, weights=None))
        enum = torchvision.models.get_model_weights(self.arch)
        chosen = enum.DEFAULT if self.weights == "default" else enum[self.weights]
        cached = Path(torch.hub.get_dir()) / "checkpoints" / os.path.basename(chosen.url)
        if not cached.is_file():
            _require_online(self, chosen.url, cached)
        try:
            return torchvision.models.get_model(self.arch, weights=chosen)
        except (OSError, RuntimeError) as err:
            raise _offline_error(self, chosen.url, cached, err) from None

    def _build_timm(self) -> nn.Module:
        import timm

        if self.weights is None or _is_path(self.weights):
            return self._random(lambda: timm.create_model(self.arch, pretrained=False))
        if self.weights != "default":
            raise ModelSpecError(f"{self.name}: timm weights must be 'default', None or a local file, not {self.weights!r}")
        cfg = timm.models.get_pretrained_cfg(self.arch)
        hub_id = getattr(cfg, "hf_hub_id", None)
        if not _timm_cached(hub_id):
            _require_online(self, f"https://huggingface.co/{hub_id}", None)
        try:
            return timm.create_model(self.arch, pretrained=True)
        except Exception as err:  # hub errors come in many classes; all mean: no weights here
            raise _offline_error(self, f"https://huggingface.co/{hub_id}", None, err) from None


def _is_path(weights) -> bool:
    return isinstance(weights, (str, os.PathLike)) and (
        str(weights).lower().endswith(WEIGHT_SUFFIXES) or os.sep in str(weights) or Path(str(weights)).exists())


def _timm_cached(hub_id: str | None) -> bool:
    if not hub_id:
        return False
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:  # pragma: no cover
        return False
    return any(isinstance(try_to_load_from_cache(hub_id, f), str)
               for f in ("model.safetensors", "pytorch_model.bin", "open_clip_pytorch_model.bin"))


def _require_online(spec: ModelSpec, url: str, cached: Path | None) -> None:
    # A quick reachability check: hub clients retry for a minute before failing when offline.
    host = _HOSTS[spec.source]
    try:
        socket.create_connection((host, 443), timeout=3).close()
    except OSError as err:
        raise _offline_error(spec, url, cached, err) from None


def _offline_error(spec: ModelSpec, url: str, cached: Path | None, err) -> WeightsUnavailableError:
    where = f" Put the file at {cached}, or" if cached is not None else ""
    return WeightsUnavailableError(
        f"{spec.source}:{spec.arch}: pretrained weights are not in the local cache and cannot be downloaded "
        f"from {url} ({err}).{where} download the weights on a machine with internet and pass the file: "
        f"weights='/path/to/weights.pth' (CLI: --weights /path/to/weights.pth); weights=None (CLI: --weights "
        "none) gives randomly initialised weights.")


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
    humanlike.models.spec.ModelSpecError: toy: weights file ... does not fit the architecture: ...
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


def resolve_model(model, *, weights="default", transform=None, name: str | None = None) -> ModelSpec:
    """Turn what a user passes as a model into a :class:`ModelSpec`.

    Parameters
    ----------
    model : str, nn.Module, callable or ModelSpec
        ``"torchvision:ARCH"``, ``"timm:ARCH"`` (a bare ``ARCH`` is tried in torchvision, then timm), an
        ``nn.Module`` (used as is, in the calling process), or a zero-argument callable returning one
        (built inside each worker).
    weights : ``"default"``, ``None``/``"none"``, a torchvision weights name, or a path to a weights file.
    transform : callable, optional
        Preprocessing (PIL RGB image -> CHW float tensor). Default: the library's own preprocessing for
        named models, the standard ImageNet one (resize 256, crop 224, normalise) for modules.
    name : observer name (default: the architecture, or the module's class name).

    Returns
    -------
    ModelSpec

    Examples
    --------
    >>> spec = resolve_model("torchvision:resnet18", weights=None)  # random weights: no download
    >>> spec.name, spec.source, spec.weights
    ('resnet18', 'torchvision', None)
    """
    if isinstance(weights, str) and weights.lower() == "none":
        weights = None
    if isinstance(weights, os.PathLike):
        weights = str(weights)
    if _is_path(weights) and not Path(weights).is_file():
        raise ModelSpecError(f"weights file {weights} not found")
    if isinstance(model, ModelSpec):
        return model
    if isinstance(model, nn.Module):
        return ModelSpec(name or type(model).__name__.lower(), "module", weights=weights if _is_path(weights) else "given",
                         module=model, transform=transform)
    if callable(model) and not isinstance(model, str):
        label = name or getattr(model, "__name__", "model")
        return ModelSpec(label, "factory", weights=weights if _is_path(weights) else "given", factory=model,
                         transform=transform)
    if not isinstance(model, str) or not model.strip():
        raise ModelSpecError(f"a model must be 'torchvision:NAME', 'timm:NAME', an nn.Module or a factory, not {model!r}")
    source, _, arch = model.strip().partition(":")
    if not arch:
        source, arch = _guess_source(source), source
    if source not in ("torchvision", "timm"):
        raise ModelSpecError(f"unknown model library {source!r} in {model!r}; use torchvision:NAME or timm:NAME")
    _check_arch(source, arch)
    if source == "torchvision" and weights not in (None, "default") and not _is_path(weights):
        import torchvision

        names = [w.name for w in torchvision.models.get_model_weights(arch)]
        if weights not in names:
            raise ModelSpecError(f"torchvision:{arch} has no weights {weights!r}; choose from {names}, "
                                 "'default', 'none' or a file")
    return ModelSpec(name or arch, source, arch, weights, transform=transform)


def _guess_source(arch: str) -> str:
    import torchvision

    if arch in torchvision.models.list_models():
        return "torchvision"
    return "timm"


def _check_arch(source: str, arch: str) -> None:
    import difflib

    if source == "torchvision":
        import torchvision

        known = torchvision.models.list_models()
        found = arch in known
    else:
        import timm

        known = timm.list_models()
        found = timm.is_model(arch.split(".")[0])
    if not found:
        close = difflib.get_close_matches(arch, known, n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise ModelSpecError(f"unknown {source} model {arch!r}{hint}")
