"""The errors of a model specification: :class:`ModelSpecError` (a model name, weights option or layer
name that cannot be resolved) and its subclass :class:`WeightsUnavailableError` (pretrained weights that are
neither cached nor downloadable).

They are raised wherever a spec is resolved, built or run: :mod:`humanlike.models.spec`,
:mod:`humanlike.models.weights`, :mod:`humanlike.models.activations` and :mod:`humanlike.models.runner`.
"""

from __future__ import annotations


class ModelSpecError(ValueError):
    """A model name, weights option or layer name cannot be resolved; the message says what to pass.

    A subclass of ``ValueError``.

    Examples
    --------
    >>> from humanlike.models.spec import resolve_model
    >>> resolve_model("torchvision:resnet19")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    humanlike.models.errors.ModelSpecError: unknown torchvision model 'resnet19'; did you mean resnet18, ...?
    """


class WeightsUnavailableError(ModelSpecError):
    """Pretrained weights are neither in the local cache nor downloadable (offline).

    A :class:`ModelSpecError`; the message names the URL, where to put the file, and the ``weights=``
    alternatives (a local file, or ``None`` for random weights).

    Examples
    --------
    >>> issubclass(WeightsUnavailableError, ModelSpecError)
    True
    >>> from humanlike.models.spec import resolve_model
    >>> resolve_model("torchvision:resnet18").build()  # doctest: +SKIP
    Traceback (most recent call last):
        ...
    humanlike.models.errors.WeightsUnavailableError: torchvision:resnet18: pretrained weights are not in the local cache ...

    (skipped: whether it raises depends on the network and the local weights cache)
    """
