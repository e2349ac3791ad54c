"""``humanlike serve --demo``: two small studies (classification and triads) on stimuli generated at run time.

Classification: four shapes (circle, square, triangle, cross), three instances each, shown clean or with
pixel noise (two conditions). Triads: alpha-blend sequences between pairs of those shapes, made by the
package's own sequence builder (:func:`humanlike.measures.psychscore.sequences.build_sequences`).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

from ..files import atomic_write, write_table
from ..measures.psychscore.sequences import ObjectImages, build_sequences, object_mask, write_sequences
from ..resampling.rng import stream
from .config import StudyConfig, write_config

SHAPES = ("circle", "cross", "square", "triangle")
SIZE = 96
CONDITIONS = {"clean": 0.0, "noisy": 0.35}


def _shape_image(shape: str, instance: int) -> np.ndarray:
    """A grey (SIZE, SIZE) uint8 image: a dark shape on white, its size and position varying by instance."""
    image = Image.new("L", (SIZE, SIZE), 255)
    draw = ImageDraw.Draw(image)
    r = 26 + 5 * instance
    cx = cy = SIZE // 2 + (instance - 1) * 4
    if shape == "circle":
        draw.ellipse([cx - r, cy - r, cx + r, cy + r], fill=0)
    elif shape == "square":
        draw.rectangle([cx - r, cy - r, cx + r, cy + r], fill=0)
    elif shape == "triangle":
        draw.polygon([(cx, cy - r), (cx - r, cy + r), (cx + r, cy + r)], fill=0)
    else:
        w = r // 3
        draw.rectangle([cx - r, cy - w, cx + r, cy + w], fill=0)
        draw.rectangle([cx - w, cy - r, cx + w, cy + r], fill=0)
    return np.asarray(image)


def write_classification_stimuli(folder: Path, seed: int = 0) -> Path:
    """``folder/<condition>/<shape>/<shape><k>.png`` and their stimulus manifest (docs/formats.md).

    Parameters
    ----------
    folder : pathlib.Path
        Where to write (created).
    seed : int
        Seed of the pixel noise.

    Returns
    -------
    pathlib.Path
        The manifest CSV (item, path, label, experiment, condition).

    Examples
    --------
    >>> import tempfile
    >>> import pandas as pd
    >>> manifest = write_classification_stimuli(Path(tempfile.mkdtemp()))
    >>> table = pd.read_csv(manifest)
    >>> len(table), sorted(table["condition"].unique()), sorted(table["label"].unique())
    (24, ['clean', 'noisy'], ['circle', 'cross', 'square', 'triangle'])
    """
    import pandas as pd

    rows = []
    for condition, noise in CONDITIONS.items():
        for shape in SHAPES:
            for instance in range(3):
                grey = _shape_image(shape, instance).astype(float)
                rng = stream(seed, "demo-noise", condition, shape, instance)
                noisy = np.clip(grey * (1 - noise) + rng.uniform(0, 255, grey.shape) * noise, 0, 255)
                path = folder / condition / shape / f"{shape}{instance + 1}.png"
                image = Image.fromarray(noisy.astype(np.uint8))
                atomic_write(path, lambda tmp, image=image: image.save(tmp, format="PNG"))
                rows.append({"item": f"{shape}{instance + 1}", "path": path.relative_to(folder).as_posix(),
                             "label": shape, "experiment": "demo-shapes", "condition": condition})
    manifest = folder / "manifest.csv"
    return write_table(pd.DataFrame(rows), manifest)


def write_sequence_stimuli(folder: Path) -> Path:
    """Blend sequences (5 levels) between three of the shapes, by the package's sequence builder.

    Parameters
    ----------
    folder : pathlib.Path
        Where to write (created).

    Returns
    -------
    pathlib.Path
        The sequence manifest (the layout ``humanlike sequences`` writes).

    Examples
    --------
    >>> import tempfile
    >>> import pandas as pd
    >>> table = pd.read_csv(write_sequence_stimuli(Path(tempfile.mkdtemp())))
    >>> sorted(table["sequence"].unique()), int(table["level"].max())
    (['circle-cross-00', 'circle-square-00', 'cross-square-00'], 5)
    """
    grey = {s: np.stack([_shape_image(s, k).astype(np.float32) for k in range(2)]) for s in SHAPES[:3]}
    masks = {s: np.stack([object_mask(g) for g in grey[s]]) for s in grey}
    names = {s: [f"{s}{k + 1}" for k in range(2)] for s in grey}
    sequences = build_sequences(ObjectImages(grey, masks, names), pairs_per_class_pair=1, n_levels=5, blur=1.0)
    return write_sequences(sequences, folder)


def make_demo(folder: Path) -> dict[str, Path]:
    """Write the two demo studies (stimuli and study.toml) into ``folder``.

    Parameters
    ----------
    folder : pathlib.Path
        Where to write.

    Returns
    -------
    dict of str to pathlib.Path
        ``{"classify": study folder, "triads": study folder}``.

    Examples
    --------
    >>> import tempfile
    >>> from humanlike.web.config import load_config
    >>> studies = make_demo(Path(tempfile.mkdtemp()))
    >>> load_config(studies["classify"]).labels, load_config(studies["triads"]).task
    (['circle', 'cross', 'square', 'triangle'], 'triads')
    """
    folder = Path(folder)
    classify = folder / "classify"
    manifest = write_classification_stimuli(classify / "stimuli")
    write_config(StudyConfig(title="humanlike demo: what shape is it?", task="classify",
                             stimuli=str(manifest.relative_to(classify)), labels=list(SHAPES),
                             practice_trials=2, catch_trials=1, break_every=6,
                             instructions="A shape appears briefly, then noise. Choose the shape you saw: click its "
                                          "button or press the key shown on it."), classify)
    triads = folder / "triads"
    sequence_manifest = write_sequence_stimuli(triads / "sequences")
    write_config(StudyConfig(title="humanlike demo: which pair differs more?", task="triads",
                             stimuli=str(sequence_manifest.relative_to(triads)), practice_trials=1,
                             catch_trials=1, trials_per_participant=12, break_every=0), triads)
    return {"classify": classify, "triads": triads}
