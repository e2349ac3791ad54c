"""Simulated systems with a planted decision-variable correlation (DVC), for tests, figures and benchmarks.

* :func:`planted_representations`: two representations (images x units) of the same images whose
  task-relevant latent variables correlate within class by a known ``rho`` (the true DVC), seen through
  random unit mixtures and independent unit noise (what split-half normalisation corrects).
* :func:`appendix_a3_decisions`: Qian, Geisler & Wei's Appendix A.3: class scores = one-hot + Gaussian noise +
  a class-wise bias shared by the two systems (kappa of the choices rises with the shared bias, DVC does not).
"""

from __future__ import annotations

import numpy as np

from ...trials.streams import generator


def _rng(seed: int, tag: int) -> np.random.Generator:
    # The seed and a per-simulator tag are the entropy of the stream (trials.streams.generator of [seed, tag]),
    # so the simulated numbers are those of before.
    return generator([int(seed), tag])


def planted_representations(rho: float, *, n_classes: int = 4, n_per_class: int = 200, n_units: int = 200,
                            latent_dim: int = 6, separation: float = 1.5, unit_noise: float = 1.0,
                            seed: int = 0, system_seed: int | None = None
                            ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Two representations with planted within-class DV correlation ``rho``.

    Each image has a class mean ``mu_c`` (latent_dim), a shared variable ``g`` and each system a private one
    ``e``: ``latent_A = mu_c + sqrt(|rho|) g + sqrt(1-|rho|) e_A``, ``latent_B = mu_c + sign(rho) sqrt(|rho|) g
    + sqrt(1-|rho|) e_B`` (within-class covariance I in both), so the correlation of any fixed linear read-out
    of the two latents, in particular the LDA decision variable ``(mu_j - mu_i)' latent``, is ``rho``. Units
    are random mixtures of the latent plus independent Gaussian noise of SD ``unit_noise``.

    With ``system_seed`` the two systems (class means, unit mixtures) come from ``system_seed`` and only the
    images (latents, unit noise) from ``seed``: repeated ``seed`` values are then new image samples seen by the
    same two systems (for coverage studies, whose truth is the systems' DVC on unlimited images).

    Parameters
    ----------
    rho : float
        The planted DV correlation, in [-1, 1].
    n_classes : int, default 4
        Number of classes.
    n_per_class : int, default 200
        Images per class.
    n_units : int, default 200
        Units of each representation.
    latent_dim : int, default 6
        Dimension of the latent space.
    separation : float, default 1.5
        SD of the class means in the latent space.
    unit_noise : float, default 1.0
        SD of the independent unit noise.
    seed : int, default 0
        Seed of every draw (with ``system_seed``: of the images only).
    system_seed : int, optional
        Seed of the two systems (class means, unit mixtures).

    Returns
    -------
    features_a, features_b : numpy.ndarray of float32, (images, n_units)
        The two representations, images in the same order.
    labels : numpy.ndarray of str, (images,)
        Classes ``"c0"``, ``"c1"``, ...

    Raises
    ------
    ValueError
        If ``rho`` lies outside [-1, 1].

    Examples
    --------
    >>> a, b, labels = planted_representations(0.5, n_classes=3, n_per_class=10, n_units=8, seed=1)
    >>> a.shape, b.shape, a.dtype, sorted(set(labels.tolist()))
    ((30, 8), (30, 8), dtype('float32'), ['c0', 'c1', 'c2'])
    """
    if not -1.0 <= rho <= 1.0:
        raise ValueError(f"rho must lie in [-1, 1], got {rho}")
    n = n_classes * n_per_class
    labels = np.repeat(np.arange(n_classes), n_per_class)
    if system_seed is not None:
        return _fixed_systems(rho, labels, n_units, latent_dim, separation, unit_noise, seed, system_seed)
    rng = _rng(seed, 1)
    means = rng.normal(scale=separation, size=(n_classes, latent_dim))
    shared = rng.standard_normal((n, latent_dim))
    out = []
    for sign in (1.0, np.sign(rho) or 1.0):
        private = rng.standard_normal((n, latent_dim))
        latent = means[labels] + sign * np.sqrt(abs(rho)) * shared + np.sqrt(1 - abs(rho)) * private
        mixing = rng.standard_normal((latent_dim, n_units)) / np.sqrt(latent_dim)
        out.append((latent @ mixing + unit_noise * rng.standard_normal((n, n_units))).astype(np.float32))
    return out[0], out[1], np.array([f"c{k}" for k in labels])


def _fixed_systems(rho, labels, n_units, latent_dim, separation, unit_noise, seed, system_seed):
    system = _rng(system_seed, 4)
    n_classes = int(labels.max()) + 1
    means = system.normal(scale=separation, size=(n_classes, latent_dim))
    mixings = [system.standard_normal((latent_dim, n_units)) / np.sqrt(latent_dim) for _ in range(2)]
    rng = _rng(seed, 5)
    shared = rng.standard_normal((labels.size, latent_dim))
    out = []
    for sign, mixing in zip((1.0, np.sign(rho) or 1.0), mixings):
        private = rng.standard_normal((labels.size, latent_dim))
        latent = means[labels] + sign * np.sqrt(abs(rho)) * shared + np.sqrt(1 - abs(rho)) * private
        out.append((latent @ mixing + unit_noise * rng.standard_normal((labels.size, n_units))).astype(np.float32))
    return out[0], out[1], np.array([f"c{k}" for k in labels])


def appendix_a3_decisions(bias_sd: float, *, n_classes: int = 10, n_per_class: int = 100, noise: float = 1.0,
                          seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Class scores of two systems: one-hot(true class) + independent N(0, noise^2) + a shared class-wise bias.

    The bias (one value per class, N(0, bias_sd^2), the same for both systems) shifts every image's score of
    that class: both systems then favour the same classes, so their errors agree more (kappa rises), while
    the within-class correlations of the DVs, which a constant shift cannot change, stay at their true 0.

    Parameters
    ----------
    bias_sd : float
        SD of the shared class-wise bias (0: none).
    n_classes : int, default 10
        Number of classes.
    n_per_class : int, default 100
        Images per class.
    noise : float, default 1.0
        SD of each system's independent score noise.
    seed : int, default 0
        Seed of every draw.

    Returns
    -------
    scores_a, scores_b : numpy.ndarray, (images, n_classes)
        Class scores of the two systems.
    labels : numpy.ndarray of int, (images,)
        True class of each image.

    Examples
    --------
    >>> a, b, labels = appendix_a3_decisions(2.0, n_classes=3, n_per_class=4)
    >>> a.shape, labels.tolist()
    ((12, 3), [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2])
    >>> a0, b0, _ = appendix_a3_decisions(2.0, n_classes=3, n_per_class=4, noise=0.0)
    >>> bool((a0 == b0).all())  # without noise both systems score alike: only the shared bias remains
    True
    """
    rng = _rng(seed, 2)
    labels = np.repeat(np.arange(n_classes), n_per_class)
    onehot = np.eye(n_classes)[labels]
    bias = rng.normal(scale=bias_sd, size=n_classes) if bias_sd > 0 else np.zeros(n_classes)
    a = onehot + noise * rng.standard_normal(onehot.shape) + bias
    b = onehot + noise * rng.standard_normal(onehot.shape) + bias
    return a, b, labels


def simulate_choice_pair(rho: float, *, n_per_category: int = 500, dprime=(1.5, 1.0), criterion=(0.0, 0.3),
                         passes: int = 1, seed: int = 0):
    """Two observers' binary choices (Sebastian & Geisler's model) with DV correlation ``rho`` per category.

    Each observer's DV is unit-variance Gaussian with mean -d'/2 (category "a") or +d'/2 ("b"); it answers
    "b" iff DV > criterion. The two DVs correlate by ``rho`` within each category.

    Parameters
    ----------
    rho : float
        Within-category correlation of the two decision variables, in [-1, 1].
    n_per_category : int, default 500
        Trials per category.
    dprime : tuple of float, default (1.5, 1.0)
        Sensitivity of each observer (or pass).
    criterion : tuple of float, default (0.0, 0.3)
        Decision criterion of each observer (or pass).
    passes : {1, 2}, default 1
        1: two observers ``"obs-1"``, ``"obs-2"``; 2: a single observer ``"obs-1"`` whose two passes' DVs
        correlate by ``rho`` (the double-pass design), with a ``repeat`` column.
    seed : int, default 0
        Seed of the draws.

    Returns
    -------
    pandas.DataFrame
        A trial table (experiment ``"sim"``, condition ``"0"``, labels ``"a"``/``"b"``).

    Examples
    --------
    >>> t = simulate_choice_pair(0.6, n_per_category=50)
    >>> len(t), sorted(t["observer"].unique()), sorted(t["label"].unique())
    (200, ['obs-1', 'obs-2'], ['a', 'b'])
    >>> sorted(simulate_choice_pair(0.6, n_per_category=50, passes=2)["repeat"].unique().tolist())
    [0, 1]
    """
    import pandas as pd

    rng = _rng(seed, 3)
    labels = np.repeat(["a", "b"], n_per_category)
    sign = np.where(labels == "b", 0.5, -0.5)
    cov = np.array([[1.0, rho], [rho, 1.0]])
    dv = rng.multivariate_normal(np.zeros(2), cov, size=labels.size)
    frames = []
    for k in range(2):
        d = dv[:, k] + sign * dprime[k]
        response = np.where(d > criterion[k], "b", "a")
        frames.append(pd.DataFrame({
            "observer": "obs-1" if passes == 2 else f"obs-{k + 1}", "observer_kind": "human", "experiment": "sim",
            "condition": "0", "item": [f"i{j:05d}" for j in range(labels.size)], "label": labels,
            "response": response, "correct": response == labels, **({"repeat": k} if passes == 2 else {})}))
    return pd.concat(frames, ignore_index=True)
