"""Where and in which arithmetic a forward pass runs: the torch device and the precision.

:func:`resolve_device` turns a device name (``auto``, ``cpu``, ``cuda[:N]``, ``mps``) into a ``torch.device``
with a clear :class:`DeviceError` when it is not available here; :func:`check_precision` canonicalises a
precision name and :func:`forward_precision` is the context (autocast, or IEEE/TF32 float32 math on CUDA) a
forward pass runs in. The work units that use them are in :mod:`humanlike.models.runner`.
"""

from __future__ import annotations

import contextlib

import torch

# Accepted spellings -> the autocast dtype (None: no autocast, the model's own float32).
PRECISIONS = {"float32": None, "fp32": None, "tf32": None, "bf16": torch.bfloat16, "bfloat16": torch.bfloat16,
              "fp16": torch.float16, "float16": torch.float16}


class DeviceError(ValueError):
    """The requested device does not exist or is not available here.

    A subclass of ``ValueError``.

    Examples
    --------
    >>> resolve_device("tpu")
    Traceback (most recent call last):
        ...
    humanlike.models.devices.DeviceError: unknown device 'tpu'; use auto, cpu, cuda, cuda:N or mps
    """


def resolve_device(device: str = "auto") -> torch.device:
    """The torch device for a device name, with a clear error when it is not available.

    Parameters
    ----------
    device : str, default "auto"
        ``"auto"``: CUDA if available, else Apple MPS, else CPU. ``"cuda"``, ``"cuda:N"``, ``"mps"`` or
        ``"cpu"``: as asked.

    Returns
    -------
    torch.device
        The device.

    Raises
    ------
    DeviceError
        For an unknown device name, or a device that is not available here.

    Examples
    --------
    >>> resolve_device("cpu")
    device(type='cpu')
    >>> resolve_device("auto").type in ("cuda", "mps", "cpu")
    True
    """
    name = str(device).strip().lower()
    if name == "auto":
        if torch.cuda.is_available():
            return torch.device("cuda")
        mps = getattr(torch.backends, "mps", None)
        if mps is not None and mps.is_available():
            return torch.device("mps")
        return torch.device("cpu")
    try:
        dev = torch.device(name)
    except RuntimeError:
        raise DeviceError(f"unknown device {device!r}; use auto, cpu, cuda, cuda:N or mps") from None
    if dev.type == "cuda":
        if not torch.cuda.is_available():
            raise DeviceError(f"device {device!r}: CUDA is not available here (use --device auto or cpu)")
        if dev.index is not None and dev.index >= torch.cuda.device_count():
            raise DeviceError(f"device {device!r}: only {torch.cuda.device_count()} CUDA device(s)")
    elif dev.type == "mps":
        mps = getattr(torch.backends, "mps", None)
        if mps is None or not mps.is_available():
            raise DeviceError(f"device {device!r}: Apple MPS is not available here")
    elif dev.type != "cpu":
        raise DeviceError(f"unsupported device {device!r}; use auto, cpu, cuda, cuda:N or mps")
    return dev


def check_precision(precision: str) -> str:
    """The canonical precision name (``float32``, ``tf32``, ``bf16``, ``fp16``) for an accepted spelling; others raise.

    Parameters
    ----------
    precision : str
        ``"float32"``/``"fp32"`` (IEEE single precision everywhere), ``"tf32"`` (float32 whose CUDA
        convolutions and matrix products may use TF32 tensor cores), ``"bf16"``/``"bfloat16"`` or
        ``"fp16"``/``"float16"`` (autocast).

    Returns
    -------
    str
        ``"float32"``, ``"tf32"``, ``"bf16"`` or ``"fp16"``.

    Raises
    ------
    ValueError
        For any other name.

    Examples
    --------
    >>> check_precision("bfloat16"), check_precision("fp32"), check_precision("tf32")
    ('bf16', 'float32', 'tf32')
    """
    if precision not in PRECISIONS:
        raise ValueError(f"unknown precision {precision!r}; use float32, tf32, bf16 or fp16")
    return {"fp32": "float32", "bfloat16": "bf16", "float16": "fp16"}.get(precision, precision)


def forward_precision(device: torch.device, precision: str):
    """The context a forward pass runs in for ``precision`` on ``device``.

    ``bf16``/``fp16`` autocast. ``float32`` on CUDA turns TF32 off for cuDNN convolutions and matrix
    products: PyTorch's default lets cuDNN run float32 convolutions in TF32, whose 10-bit mantissa moved
    resnet50's decision margins on an H100 by up to 2.2e-2 from the CPU's (9.4e-5 with TF32 off;
    docs/measures/model-evaluation.md), so "float32" would not agree with the CPU. ``tf32`` turns it on for both
    (faster on Ampere and later). The switches are process-wide while the context is open, and restored after.

    Parameters
    ----------
    device : torch.device
        Where the model runs.
    precision : str
        A canonical name from :func:`check_precision`.

    Returns
    -------
    contextlib.AbstractContextManager
        The context to run the forward pass in.

    Examples
    --------
    >>> with forward_precision(torch.device("cpu"), "bf16"):
    ...     torch.get_autocast_dtype("cpu")
    torch.bfloat16
    """
    dtype = PRECISIONS[precision]
    if dtype is not None:
        return torch.autocast(device_type=device.type, dtype=dtype)
    if device.type != "cuda":
        return contextlib.nullcontext()
    return _cuda_float32_math("tf32" if precision == "tf32" else "ieee")


def cuda_float32_switches(mode: str) -> list[tuple[object, str, object]]:
    """PyTorch's process-wide switches of float32 arithmetic on CUDA, each with its value for ``mode``.

    Parameters
    ----------
    mode : {"ieee", "tf32"}
        IEEE float32, or TF32 tensor cores allowed, for cuDNN convolutions and matrix products.

    Returns
    -------
    list of (owner, attribute, value)
        ``setattr(owner, attribute, value)`` sets the mode; ``getattr(owner, attribute)`` reads the current one.
        PyTorch >= 2.9 spells them ``fp32_precision`` (the older ``allow_tf32`` flags are deprecated there).

    Examples
    --------
    >>> [value for _, _, value in cuda_float32_switches("tf32")] in (["tf32", "tf32"], [True, True])
    True
    """
    conv = getattr(torch.backends.cudnn, "conv", None)
    if conv is not None and hasattr(conv, "fp32_precision"):
        return [(conv, "fp32_precision", mode), (torch.backends.cuda.matmul, "fp32_precision", mode)]
    return [(torch.backends.cudnn, "allow_tf32", mode == "tf32"),
            (torch.backends.cuda.matmul, "allow_tf32", mode == "tf32")]


@contextlib.contextmanager
def _cuda_float32_math(mode: str):
    switches = cuda_float32_switches(mode)
    saved = [(owner, name, getattr(owner, name)) for owner, name, _ in switches]
    try:
        for owner, name, value in switches:
            setattr(owner, name, value)
        yield
    finally:
        for owner, name, value in saved:
            setattr(owner, name, value)
