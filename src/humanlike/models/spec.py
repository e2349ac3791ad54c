"""Model specifications: what to build, with which weights and which preprocessing, and the cache key.

A :class:`ModelSpec` is small and picklable when the model is named by a string: workers (processes,
Dask) receive the spec and build the model themselves, so no model is ever pickled across and no CUDA
context exists before a worker starts.

Here: :func:`resolve_model` (what a user passes -> a spec), the spec with each source's build and preprocessing
(torchvision, timm, open_clip, Hugging Face, a module, a factory) and where their pretrained weights come from.
Weights files and the digests of the cache key are in :mod:`humanlike.models.weights`; the errors in
:mod:`humanlike.models.errors`.
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

from ..trials.streams import torch_seeded
from .errors import ModelSpecError, WeightsUnavailableError
from .weights import file_digest, is_weights_file, load_weights_file, module_digest

RANDOM_INIT_SEED = 0
_HOSTS = {"torchvision": "download.pytorch.org", "timm": "huggingface.co", "clip": "huggingface.co",
          "hf": "huggingface.co"}
#: Model libraries a model name may start with (``clip:`` is open_clip, ``hf:`` Hugging Face transformers).
SOURCES = ("torchvision", "timm", "clip", "hf")


def _digest(*parts) -> str:
    h = hashlib.blake2b(digest_size=16)
    for part in parts:
        h.update(repr(part).encode())
        h.update(b"\x00")
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
        ``"torchvision"``, ``"timm"``, ``"clip"`` (open_clip zero-shot), ``"hf"`` (Hugging Face transformers),
        ``"module"`` or ``"factory"``.
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
    prompts : dict of str to list of str, or list of str, optional
        ``clip`` only: category -> prompts, or categories (each gets the default templates) (default: :data:`~humanlike.models.classifiers.DEFAULT_TEMPLATES`
        for each of the 16 model-vs-human categories).

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
    prompts: dict | None = field(default=None, repr=False)
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
            chosen = enum.DEFAULT if self.weights in (None, "default") or is_weights_file(self.weights) else enum[self.weights]
            return chosen.transforms()
        if self.source == "timm":
            import timm
            from timm.data import create_transform, resolve_data_config

            cfg = timm.models.get_pretrained_cfg(self.arch)
            return create_transform(**resolve_data_config(pretrained_cfg=cfg.to_dict() if cfg else {}))
        if self.source == "clip":
            return self._clip_transform()
        if self.source == "hf":
            return self._hf_transform()
        return imagenet_transform()

    def _clip_transform(self):
        import open_clip

        size = (open_clip.get_model_config(self.arch) or {}).get("vision_cfg", {}).get("image_size", 224)
        pretrained = {}
        if isinstance(self.weights, str) and not is_weights_file(self.weights):
            pretrained = open_clip.get_pretrained_cfg(self.arch, self._clip_tag()) or {}
        return open_clip.image_transform(size, is_train=False, mean=pretrained.get("mean"), std=pretrained.get("std"))

    def _hf_transform(self):
        from torchvision.transforms import v2

        processor = _hf_call(self, "AutoImageProcessor", required=False)
        config = _hf_call(self, "AutoConfig")
        if processor is not None:
            size = getattr(processor, "size", {}) or {}
            if "height" in size:
                resize = v2.Resize((size["height"], size["width"]), antialias=True)
            else:
                resize = v2.Resize(size.get("shortest_edge", 224), antialias=True)
            crop = getattr(processor, "crop_size", None) if getattr(processor, "do_center_crop", False) else None
            steps = [v2.PILToTensor(), resize] + ([v2.CenterCrop((crop["height"], crop["width"]))] if crop else [])
            return v2.Compose(steps + [v2.ToDtype(torch.float32, scale=True),
                                       v2.Normalize(list(processor.image_mean), list(processor.image_std))])
        size = int(getattr(config, "image_size", 224))
        return v2.Compose([v2.PILToTensor(), v2.Resize(round(size * 256 / 224), antialias=True), v2.CenterCrop(size),
                           v2.ToDtype(torch.float32, scale=True),
                           v2.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])])

    def category_mapping(self) -> dict[str, list[int]] | None:
        """The model's own category -> outputs mapping, where its outputs are categories (``clip``), else None.

        Returns
        -------
        dict of str to list of int, or None
            ``{category: [output index]}`` in prompt order for zero-shot classifiers; None for models whose
            outputs the ``mapping`` option maps (ImageNet classifiers).
        """
        if self.source != "clip":
            return None
        return {c: [i] for i, c in enumerate(self.clip_prompts())}

    def clip_prompts(self) -> dict[str, list[str]]:
        """The prompts of each category of a zero-shot classifier.

        Returns
        -------
        dict of str to list of str
            ``prompts``, or the default templates for each of the 16 model-vs-human categories.
        """
        from ..measures.dmc.margins import load_imagenet16_mapping
        from .classifiers import category_prompts

        return category_prompts(self.prompts if self.prompts is not None else list(load_imagenet16_mapping()))

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
            if is_weights_file(self.weights):
                weights_id = "file:" + file_digest(Path(self.weights))
            elif self.weights is None:
                weights_id = f"random-seed{RANDOM_INIT_SEED}"
            else:
                weights_id = str(self.weights)
            if self.source == "module":
                weights_id += ":" + module_digest(self.module)
            elif self.source == "factory":
                weights_id += ":" + getattr(self.factory, "__qualname__", repr(self.factory))
            elif self.source == "clip":  # the prompts are part of the classifier
                weights_id += ":" + _digest(sorted(self.clip_prompts().items()))
            elif self.source == "hf" and Path(self.arch).is_dir():  # a local folder: its content
                weights_id += ":" + _digest(*[(p.name, file_digest(p)) for p in sorted(Path(self.arch).iterdir())
                                              if p.is_file()])
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
        elif self.source == "clip":
            return self._build_clip().eval()  # a weights file is loaded into the CLIP model before the prompts
        elif self.source == "hf":
            model = self._build_hf()
        else:
            model = self._build_timm()
        if is_weights_file(self.weights):
            load_weights_file(model, Path(self.weights), self.name)
        return model.eval()

    def _clip_tag(self) -> str:
        import open_clip

        tags = open_clip.list_pretrained_tags_by_model(self.arch)
        if self.weights == "default":
            if not tags:
                raise ModelSpecError(f"clip:{self.arch} has no published weights in open_clip; pass --weights FILE "
                                     "or --weights none")
            return tags[0]
        if self.weights not in tags:
            raise ModelSpecError(f"clip:{self.arch} has no weights {self.weights!r}; choose from {tags}, 'default', "
                                 "'none' or a file")
        return self.weights

    def _build_clip(self) -> nn.Module:
        import open_clip

        from .classifiers import ZeroShotClassifier

        tokenizer = _clip_tokenizer(self)
        if self.weights is None or is_weights_file(self.weights):
            clip = self._random(lambda: open_clip.create_model(self.arch, pretrained=None))
            if is_weights_file(self.weights):
                load_weights_file(clip, Path(self.weights), self.name)
        else:
            tag = self._clip_tag()
            cfg = open_clip.get_pretrained_cfg(self.arch, tag) or {}
            hub_id = (cfg.get("hf_hub") or "").strip("/")
            where = f"https://huggingface.co/{hub_id}" if hub_id else cfg.get("url", "open_clip")
            if not (hub_id and _timm_cached(hub_id)):
                _require_online(self, where, None)
            try:
                clip = open_clip.create_model(self.arch, pretrained=tag)
            except Exception as err:  # hub and download errors come in many classes
                raise _offline_error(self, where, None, err) from None
        return ZeroShotClassifier(clip.eval(), tokenizer, self.clip_prompts())

    def _build_hf(self) -> nn.Module:
        config = _hf_call(self, "AutoConfig")
        if self.weights is None or is_weights_file(self.weights):
            from transformers import AutoModelForImageClassification

            return self._random(lambda: AutoModelForImageClassification.from_config(config))
        if self.weights != "default":
            raise ModelSpecError(f"{self.name}: Hugging Face weights must be 'default', None or a local file, "
                                 f"not {self.weights!r}")
        return _hf_call(self, "AutoModelForImageClassification")

    def _random(self, make):
        # Random weights must be the same in every worker and every run: a fixed seed, the global RNG untouched.
        with torch_seeded(torch, RANDOM_INIT_SEED):
            return make()

    def _build_torchvision(self) -> nn.Module:
        import torchvision

        if self.weights is None or is_weights_file(self.weights):
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

        if self.weights is None or is_weights_file(self.weights):
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


def _hf_call(spec: ModelSpec, loader: str, required: bool = True):
    """``transformers.<loader>.from_pretrained(arch, local_files_only=True)``: never a download; a name that is
    not in the local Hugging Face cache is a clear error (or None where not ``required``)."""
    import transformers

    try:
        return getattr(transformers, loader).from_pretrained(spec.arch, local_files_only=True)
    except (OSError, ValueError) as err:
        if not required:
            return None
        raise WeightsUnavailableError(
            f"hf:{spec.arch}: not in the local Hugging Face cache and humanlike never downloads ({err.__class__.__name__}"
            f": {str(err).splitlines()[0]}). On a machine with internet run `huggingface-cli download {spec.arch}` "
            "(then copy ~/.cache/huggingface, or set HF_HOME), or save the model with save_pretrained(FOLDER) and "
            "pass hf:FOLDER") from None


def _clip_tokenizer(spec: ModelSpec):
    import open_clip

    text_cfg = (open_clip.get_model_config(spec.arch) or {}).get("text_cfg", {})
    hf_name = text_cfg.get("hf_tokenizer_name")
    if hf_name:
        try:
            from huggingface_hub import try_to_load_from_cache
        except ImportError:  # pragma: no cover - a dependency of open_clip
            try_to_load_from_cache = None
        cached = try_to_load_from_cache is not None and any(
            isinstance(try_to_load_from_cache(hf_name, f), str) for f in ("tokenizer.json", "tokenizer_config.json"))
        if not cached:
            raise WeightsUnavailableError(
                f"clip:{spec.arch}: its tokenizer is the Hugging Face tokenizer {hf_name!r}, which is not in the "
                f"local cache (humanlike never downloads). On a machine with internet run `huggingface-cli download "
                f"{hf_name}` and copy ~/.cache/huggingface, or choose a CLIP model with open_clip's built-in "
                "tokenizer (e.g. clip:ViT-B-32, clip:RN50)")
    return open_clip.get_tokenizer(spec.arch)


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


def resolve_model(model, *, weights="default", transform=None, name: str | None = None,
                  prompts=None) -> ModelSpec:
    """Turn what a user passes as a model into a :class:`ModelSpec`.

    Parameters
    ----------
    model : str, nn.Module, callable or ModelSpec
        ``"torchvision:ARCH"``, ``"timm:ARCH"`` (a bare ``ARCH`` is tried in torchvision, then timm),
        ``"clip:ARCH"`` (an open_clip model as a zero-shot classifier over class prompts), ``"hf:REPO"``
        (a Hugging Face image classifier from the local cache, or ``hf:FOLDER`` saved with
        ``save_pretrained``), an ``nn.Module`` (used as is, in the calling process), or a zero-argument
        callable returning one (built inside each worker).
    weights : ``"default"``, ``None``/``"none"``, a torchvision weights name or open_clip pretrained tag,
        or a path to a weights file.
    transform : callable, optional
        Preprocessing (PIL RGB image -> CHW float tensor). Default: the library's own preprocessing for
        named models, the standard ImageNet one (resize 256, crop 224, normalise) for modules.
    name : observer name (default: the architecture, or the module's class name).
    prompts : ``clip`` only: a dict category -> prompts, or a list of categories (each gets the default
        templates); default: the 16 model-vs-human categories.

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
    if is_weights_file(weights) and not Path(weights).is_file():
        raise ModelSpecError(f"weights file {weights} not found")
    if isinstance(model, ModelSpec):
        return model
    if isinstance(model, nn.Module):
        return ModelSpec(name or type(model).__name__.lower(), "module", weights=weights if is_weights_file(weights) else "given",
                         module=model, transform=transform)
    if callable(model) and not isinstance(model, str):
        label = name or getattr(model, "__name__", "model")
        return ModelSpec(label, "factory", weights=weights if is_weights_file(weights) else "given", factory=model,
                         transform=transform)
    if not isinstance(model, str) or not model.strip():
        raise ModelSpecError(f"a model must be 'torchvision:NAME', 'timm:NAME', an nn.Module or a factory, not {model!r}")
    source, _, arch = model.strip().partition(":")
    if not arch:
        source, arch = _guess_source(source), source
    source = {"open_clip": "clip", "huggingface": "hf", "transformers": "hf"}.get(source, source)
    if source not in SOURCES:
        raise ModelSpecError(f"unknown model library {source!r} in {model!r}; use torchvision:NAME, timm:NAME, "
                             "clip:NAME (open_clip) or hf:REPO (Hugging Face transformers)")
    if prompts is not None and source != "clip":
        raise ModelSpecError(f"prompts apply to clip: models (zero-shot classifiers), not {model!r}")
    _check_arch(source, arch)
    if source in ("clip", "hf"):
        label = name or (arch.rstrip("/").split("/")[-1] if source == "hf" else f"clip-{arch}")
        spec = ModelSpec(label, source, arch, weights, transform=transform,
                         prompts=prompts if prompts is None or isinstance(prompts, dict) else list(prompts))
        if source == "clip" and isinstance(weights, str) and not is_weights_file(weights):
            spec._clip_tag()  # an unknown tag is an error now, not in a worker
        return spec
    if source == "torchvision" and weights not in (None, "default") and not is_weights_file(weights):
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

    if source == "hf":
        try:
            import transformers  # noqa: F401
        except ImportError:
            raise ModelSpecError("hf: models need transformers: pip install transformers "
                                 "(or pip install 'humanlike[models]')") from None
        return  # a Hugging Face repository id or a local folder: checked when it is built
    if source == "clip":
        try:
            import open_clip
        except ImportError:
            raise ModelSpecError("clip: models need open_clip: pip install open_clip_torch "
                                 "(or pip install 'humanlike[models]')") from None
        known = open_clip.list_models()
        found = arch in known
    elif source == "torchvision":
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
