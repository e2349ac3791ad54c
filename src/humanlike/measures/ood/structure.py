"""Structure across the OOD spectrum: alignment profiles, the CLED matrix between conditions, its embedding."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from ...trials.schema import NO_ANSWER, first_presentations
from .alignment_divergence import class_level_error_divergence_batch
from ...stats.permutation import PermutationResult, grouping_contrast_cohens_d
from .common import class_names
from ..pairs.aggregation import HUMANS


def alignment_profiles(alignment, metrics: Sequence[str] = ("ec", "ma")) -> pd.DataFrame:
    """Model x (metric, distortion type) profile: each model's mean over humans, averaged over the type's
    conditions. Columns with a NaN for any model are dropped (a profile distance needs every feature).

    Parameters
    ----------
    alignment : OODAlignment
        An alignment result; its ``groups`` table (group, experiment, condition and one column per metric)
        is used, human–human rows left out.
    metrics : sequence of str
        The metric columns to profile (``"ec"``, ``"ma"``, ``"cled"``).

    Returns
    -------
    pandas.DataFrame
        Index ``model``; columns a (metric, experiment) MultiIndex.

    Examples
    --------
    >>> import types
    >>> groups = pd.DataFrame({"group": ["humans", "m1", "m1", "m2", "m2"],
    ...                        "experiment": ["blur", "blur", "blur", "blur", "blur"],
    ...                        "ec": [0.5, 0.2, 0.4, 0.1, np.nan], "ma": [0.9, 0.8, 0.6, 0.5, 0.7]})
    >>> profile = alignment_profiles(types.SimpleNamespace(groups=groups))
    >>> profile.round(2).to_dict()   # the NaN of m2 is skipped in its mean over conditions
    {('ec', 'blur'): {'m1': 0.3, 'm2': 0.1}, ('ma', 'blur'): {'m1': 0.7, 'm2': 0.6}}
    """
    g = alignment.groups[alignment.groups["group"] != HUMANS]
    table = g.groupby(["group", "experiment"])[list(metrics)].mean().unstack("experiment")
    table = table.dropna(axis=1, how="any")
    table.index.name = "model"
    return table


def condition_cled_matrix(trials: pd.DataFrame, conditions: pd.DataFrame, *, alpha: float = 0.5,
                          mixture: str = "average", log_base: float | None = None,
                          weighting: str = "errors", na_as_class: bool = False) -> np.ndarray:
    """CLED between every two conditions, confusions pooled over the human observers (conditions x conditions).

    Trials without an answer are left out of the confusion tables (``na_as_class``: 'na' is a class). The
    diagonal is 0.

    Parameters
    ----------
    trials : pandas.DataFrame
        A trial table.
    conditions : pandas.DataFrame
        The (experiment, condition) rows to compare, in matrix order.
    alpha, mixture, log_base, weighting
        The CLED options (see :func:`humanlike.measures.ood.alignment_divergence.class_level_error_divergence`).
    na_as_class : bool
        Treat the no-answer code as a class.

    Returns
    -------
    numpy.ndarray
        Symmetric (conditions x conditions) CLED, zero diagonal.

    Examples
    --------
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> trials = simulate_benchmark(seed=0)
    >>> conditions = pd.DataFrame({"experiment": "sim-noise", "condition": ["0.00", "0.10", "0.35"]})
    >>> condition_cled_matrix(trials, conditions).round(3).tolist()
    [[0.0, 0.144, 0.145], [0.144, 0.0, 0.119], [0.145, 0.119, 0.0]]
    """
    trials = first_presentations(trials)
    humans = trials[trials["observer_kind"] == "human"]
    if not na_as_class:
        humans = humans[humans["response"] != NO_ANSWER]
    classes = class_names(trials, na_as_class)
    k = len(classes)
    code = {c: i for i, c in enumerate(classes)}
    keys = list(zip(conditions["experiment"], conditions["condition"]))
    wanted = pd.MultiIndex.from_arrays([conditions["experiment"].to_numpy(), conditions["condition"].to_numpy()])
    if wanted.is_unique:   # one hashed lookup for all trials (a dict lookup per trial took ~0.3 s on real data)
        cidx = wanted.get_indexer(pd.MultiIndex.from_arrays([humans["experiment"].to_numpy(),
                                                              humans["condition"].to_numpy()]))
    else:
        pos = {kk: j for j, kk in enumerate(keys)}
        cidx = np.array([pos.get(kk, -1) for kk in zip(humans["experiment"], humans["condition"])], dtype=np.int64)
    keep = cidx >= 0
    lab = humans["label"].map(code).to_numpy()[keep]
    res = humans["response"].map(code).to_numpy()[keep]
    flat = cidx[keep] * k * k + lab * k + res
    conf = np.bincount(flat, minlength=len(keys) * k * k).reshape(len(keys), k, k).astype(float)
    n = len(keys)
    i, j = np.triu_indices(n, k=1)
    d = np.zeros((n, n))
    vals = class_level_error_divergence_batch(conf[i], conf[j], alpha=alpha, mixture=mixture,
                                              log_base=log_base, weighting=weighting)
    d[i, j] = d[j, i] = vals
    return d


def regime_structure_test(trials: pd.DataFrame, conditions: pd.DataFrame, *, n_permutations: int, seed: int,
                          alpha: float = 0.5, mixture: str = "average", log_base: float | None = None,
                          na_as_class: bool = False) -> tuple[np.ndarray, PermutationResult]:
    """The human CLED matrix between conditions and the test of its structure: regime versus distortion type.

    Cohen's d of the CLED between conditions of different regimes minus that between conditions of different
    distortion types (:func:`humanlike.stats.permutation.grouping_contrast_cohens_d`), over the conditions
    with a defined OOD score and CLED to every other condition, against relabelled regimes.

    Parameters
    ----------
    trials : pandas.DataFrame
        The trial table.
    conditions : pandas.DataFrame
        The spectrum's conditions (experiment, condition, ood_score, regime_label).
    n_permutations : int
        Permutations of the test.
    seed : int
        Root seed of the permutations.
    alpha, mixture, log_base, na_as_class
        CLED options (see :func:`condition_cled_matrix`).

    Returns
    -------
    matrix : numpy.ndarray
        (conditions x conditions) CLED between the humans' error patterns of every two conditions.
    test : PermutationResult
        The structure test.

    Examples
    --------
    >>> from humanlike.measures.ood.spectrum import spectrum_regimes
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> trials = simulate_benchmark(seed=0)
    >>> reference = {e: sorted(trials.loc[trials["experiment"] == e, "condition"].unique())[0]
    ...              for e in trials["experiment"].unique()}
    >>> fitted = spectrum_regimes(trials, reference, n_observer_resamples=0)
    >>> matrix, test = regime_structure_test(trials, fitted.conditions, n_permutations=19, seed=0)
    >>> matrix.shape, test.n_permutations
    ((16, 16), 19)
    """
    matrix = condition_cled_matrix(trials, conditions, alpha=alpha, mixture=mixture, log_base=log_base,
                                   na_as_class=na_as_class)
    defined = np.isfinite(conditions["ood_score"].to_numpy()) & np.all(
        np.isfinite(matrix) | np.eye(len(matrix), dtype=bool), axis=1)
    idx = np.flatnonzero(defined)
    test = grouping_contrast_cohens_d(
        matrix[np.ix_(idx, idx)], conditions["regime_label"].to_numpy()[idx], conditions["experiment"].to_numpy()[idx],
        n_permutations=n_permutations, seed=seed)
    return matrix, test


def classical_mds(distances, n_components: int = 2) -> np.ndarray:
    """Classical (Torgerson) MDS of a distance matrix by eigendecomposition of the double-centred B.

    Parameters
    ----------
    distances : array_like
        Symmetric (n x n) distance matrix.
    n_components : int
        Dimensions of the embedding (largest eigenvalues first; negative eigenvalues give 0 coordinates).

    Returns
    -------
    numpy.ndarray
        Coordinates, shape (n, n_components), unique up to rotation and reflection.

    Examples
    --------
    Euclidean distances of points in the plane are reproduced exactly (here a 3-4-5 triangle):

    >>> points = np.array([[0.0, 0.0], [3.0, 0.0], [0.0, 4.0]])
    >>> distances = np.linalg.norm(points[:, None] - points[None], axis=-1)
    >>> coords = classical_mds(distances)
    >>> np.linalg.norm(coords[:, None] - coords[None], axis=-1).round(6).tolist()
    [[0.0, 3.0, 4.0], [3.0, 0.0, 5.0], [4.0, 5.0, 0.0]]
    """
    d = np.asarray(distances, dtype=float)
    n = d.shape[0]
    j = np.eye(n) - np.ones((n, n)) / n
    b = -0.5 * j @ (d**2) @ j
    vals, vecs = np.linalg.eigh(b)
    order = np.argsort(vals)[::-1][:n_components]
    return vecs[:, order] * np.sqrt(np.clip(vals[order], 0.0, None))
