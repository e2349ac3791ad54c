"""Image decoding and batching: any PNG/JPEG (greyscale, RGBA, palette, 16-bit, odd sizes) to RGB, then
the model's preprocessing, batched with a prefetching loader so decoding overlaps the forward pass."""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import torch
from PIL import Image, UnidentifiedImageError

from ..files import atomic_write
from ..trials.stimuli import StimulusError

BACKGROUND = (255, 255, 255)


def load_rgb(path) -> Image.Image:
    """Decode an image file to an RGB PIL image.

    Transparent pixels are composited onto white (a stimulus shown on a white screen); greyscale,
    palette and 16-bit images become 8-bit RGB. Errors name the file.

    Parameters
    ----------
    path : path
        An image file.

    Returns
    -------
    PIL.Image.Image
        Mode ``"RGB"``.

    Raises
    ------
    StimulusError
        If the file is missing or cannot be decoded.

    Examples
    --------
    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "clear.png"
    >>> Image.new("RGBA", (2, 2), (0, 0, 0, 0)).save(path)  # fully transparent
    >>> image = load_rgb(path)
    >>> image.mode, image.getpixel((0, 0))
    ('RGB', (255, 255, 255))
    """
    path = Path(path)
    try:
        with Image.open(path) as image:
            image.load()
            return to_rgb(image)
    except FileNotFoundError:
        raise StimulusError(f"{path}: image file not found") from None
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError) as err:
        raise StimulusError(f"{path}: cannot decode image ({err})") from None


def to_rgb(image: Image.Image) -> Image.Image:
    """8-bit RGB of any image: 16-bit and float scaled, palettes expanded, transparency composited onto white.

    Parameters
    ----------
    image : PIL.Image.Image
        An image of any mode.

    Returns
    -------
    PIL.Image.Image
        Mode ``"RGB"`` (a copy).

    Examples
    --------
    >>> to_rgb(Image.new("I;16", (1, 1), 65535)).getpixel((0, 0))  # 16-bit white
    (255, 255, 255)
    >>> to_rgb(Image.new("LA", (1, 1), (0, 128))).getpixel((0, 0))  # half-transparent black on white
    (127, 127, 127)
    """
    if image.mode in ("I;16", "I;16B", "I;16L", "I"):
        array = np.asarray(image, dtype=np.float64)
        top = 65535.0 if image.mode.startswith("I;16") or array.max() > 255 else 255.0
        image = Image.fromarray(np.clip(array / top * 255.0 + 0.5, 0, 255).astype(np.uint8), mode="L")
    elif image.mode == "F":
        array = np.asarray(image, dtype=np.float64)
        image = Image.fromarray(np.clip(array * (255.0 if array.max() <= 1.0 else 1.0) + 0.5, 0, 255)
                                .astype(np.uint8), mode="L")
    if image.mode == "P" and "transparency" in image.info:
        image = image.convert("RGBA")
    if image.mode in ("RGBA", "LA", "PA", "RGBa", "La"):
        rgba = image.convert("RGBA")
        canvas = Image.new("RGB", rgba.size, BACKGROUND)
        canvas.paste(rgba, mask=rgba.getchannel("A"))
        return canvas
    return image.convert("RGB") if image.mode != "RGB" else image.copy()


class StimulusDataset(torch.utils.data.Dataset):
    """Paths -> preprocessed tensors (the model's transform on the RGB image).

    A ``torch.utils.data.Dataset``: item ``i`` is ``transform(load_rgb(paths[i]))``.

    Parameters
    ----------
    paths : sequence of str
        Image files.
    transform : callable
        PIL RGB image -> float tensor.
    cached : sequence of str, optional
        Per image, a ``.npy`` file of its preprocessed tensor: read if present, else written (atomically).

    Raises
    ------
    StimulusError
        (on access) If an image cannot be decoded, or the transform returns no tensor or a uint8 tensor.

    Examples
    --------
    >>> import tempfile
    >>> from torchvision.transforms import v2
    >>> path = Path(tempfile.mkdtemp()) / "grey.png"
    >>> Image.new("L", (4, 6), 255).save(path)
    >>> as_tensor = v2.Compose([v2.PILToTensor(), v2.ToDtype(torch.float32, scale=True)])
    >>> data = StimulusDataset([str(path)], as_tensor)
    >>> len(data), data[0].shape, float(data[0].max())
    (1, torch.Size([3, 6, 4]), 1.0)
    """

    def __init__(self, paths: Sequence[str], transform, cached: Sequence[str] | None = None):
        self.paths = list(paths)
        self.transform = transform
        # Decoded-tensor cache: one .npy per (image content, preprocessing), shared by every model that
        # uses the same preprocessing (a model zoo decodes each image once).
        self.cached = list(cached) if cached is not None else None

    def __len__(self) -> int:
        return len(self.paths)

    def __getitem__(self, index: int) -> torch.Tensor:
        if self.cached is not None:
            stored = Path(self.cached[index])
            if stored.is_file():
                return torch.from_numpy(np.load(stored))
        path = self.paths[index]
        tensor = self.transform(load_rgb(path))
        if not isinstance(tensor, torch.Tensor):
            raise StimulusError(f"{path}: the preprocessing returned {type(tensor).__name__}, not a tensor")
        if tensor.dtype == torch.uint8:
            raise StimulusError(f"{path}: the preprocessing returned uint8; add ToDtype(float32, scale=True)")
        if self.cached is not None:
            _save_atomic(Path(self.cached[index]), tensor)
        return tensor


def _save_atomic(path: Path, tensor: torch.Tensor) -> None:
    values = tensor.detach().cpu().numpy()
    atomic_write(path, lambda tmp: np.save(tmp, values), suffix=".tmp.npy")


def _collate(tensors: list[torch.Tensor]) -> torch.Tensor:
    shapes = {tuple(t.shape) for t in tensors}
    if len(shapes) > 1:
        raise StimulusError(f"the preprocessing gives images of different shapes {sorted(shapes)}; add a "
                            "resize and centre crop to a fixed size")
    return torch.stack(tensors)


def batches(paths: Sequence[str], transform, *, batch_size: int, num_workers: int = 0,
            pin_memory: bool = False, cached: Sequence[str] | None = None) -> Iterator[torch.Tensor]:
    """Preprocessed batches in order.

    ``num_workers > 0`` decodes in that many worker processes (a torch DataLoader, started the platform's
    default way: ``fork`` on Linux, also once CUDA is initialised, as in PyTorch's own ImageNet example; the
    workers only decode and never touch CUDA); ``num_workers == 0`` decodes in one background thread, two
    batches ahead, so decoding still overlaps the forward pass.

    Parameters
    ----------
    paths : sequence of str
        Image files.
    transform : callable
        PIL RGB image -> float tensor of one fixed shape.
    batch_size : int
        Images per batch (the last batch may be smaller).
    num_workers : int, default 0
        Decoding processes.
    pin_memory : bool, default False
        Pin the batches (for fast copies to a GPU).
    cached : sequence of str, optional
        Per image, a ``.npy`` file of its preprocessed tensor, read if present, else written.

    Yields
    ------
    torch.Tensor, (batch, C, H, W)
        The preprocessed images, in the order of ``paths``.

    Raises
    ------
    StimulusError
        If an image cannot be decoded, or the transform gives tensors of different shapes.

    Examples
    --------
    >>> import tempfile
    >>> from torchvision.transforms import v2
    >>> folder = Path(tempfile.mkdtemp())
    >>> paths = [str(folder / f"{k}.png") for k in range(5)]
    >>> for k, path in enumerate(paths):
    ...     Image.new("L", (4, 4), 50 * k).save(path)
    >>> as_tensor = v2.Compose([v2.PILToTensor(), v2.ToDtype(torch.float32, scale=True)])
    >>> [tuple(b.shape) for b in batches(paths, as_tensor, batch_size=2)]
    [(2, 3, 4, 4), (2, 3, 4, 4), (1, 3, 4, 4)]
    """
    dataset = StimulusDataset(paths, transform, cached)
    if num_workers > 0:
        # Not "spawn": a spawned worker re-imports torch and the caller's script, which cost about 4 s per
        # work unit for 2 workers here and made 8 workers on an H100 slower than one decoding thread
        # (docs/measures/model-evaluation.md), and it fails in scripts without a __main__ guard.
        loader = torch.utils.data.DataLoader(
            dataset, batch_size=batch_size, shuffle=False, num_workers=num_workers, collate_fn=_collate,
            pin_memory=pin_memory, prefetch_factor=2)
        yield from loader
        return
    yield from _threaded(dataset, batch_size, pin_memory)


_DONE = object()


def _threaded(dataset: StimulusDataset, batch_size: int, pin_memory: bool) -> Iterator[torch.Tensor]:
    slots: queue.Queue = queue.Queue(maxsize=2)
    stop = threading.Event()

    def produce():
        try:
            for start in range(0, len(dataset), batch_size):
                if stop.is_set():
                    return
                batch = _collate([dataset[i] for i in range(start, min(start + batch_size, len(dataset)))])
                slots.put(batch.pin_memory() if pin_memory else batch)
            slots.put(_DONE)
        except BaseException as err:  # handed to the consumer, raised there
            slots.put(err)

    worker = threading.Thread(target=produce, name="humanlike-image-loader", daemon=True)
    worker.start()
    try:
        while True:
            item = slots.get()
            if item is _DONE:
                return
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        stop.set()
        while worker.is_alive():  # unblock a producer waiting on a full queue
            try:
                slots.get_nowait()
            except queue.Empty:
                pass
            worker.join(timeout=0.05)
