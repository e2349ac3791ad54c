"""Decision margins for decision-margin consistency (DMC; Alvarez & Konkle 2024, docs/measures/decision-margin-consistency.md).

Model side: the margin of an item is ``(S_target - max_{j != target} S_j) / sqrt(2)`` on the scores ``S``
of one row (raw logits, or scores aggregated to categories). Human side: the item's mean correctness over
all responses (observers x repeats), optionally mapped to d' of an m-alternative forced choice.

Everything is numpy in, numpy out, vectorised over items; no pandas, no I/O, no randomness.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache
from importlib import resources

import numpy as np

MAPPING_RESOURCE = "imagenet_16class_indices.json"
IMAGENET_N_OUTPUTS = 1000
_SQRT2 = np.sqrt(2.0)


# --------------------------------------------------------------------------------------------------
# Model margins
# --------------------------------------------------------------------------------------------------


def decision_margin(logits, target) -> np.ndarray:
    """Decision margin per row: ``(S_target - max_{j != target} S_j) / sqrt(2)``.

    Ties: when the target ties with the best non-target class the margin is exactly 0, and an item counts as
    correct only when its margin is > 0, so a tie is *not* correct (even if an argmax happens to pick the
    target).

    Parameters
    ----------
    logits : array_like, (items, classes)
        Scores (raw activations) per item and class; at least two classes.
    target : array_like of int, (items,)
        Index of each row's true class.

    Returns
    -------
    numpy.ndarray, (items,)
        The decision margins (float).

    Raises
    ------
    ValueError
        For non-finite scores, fewer than two classes, or targets out of range.

    Examples
    --------
    >>> decision_margin([[2.0, 1.0, 0.0], [0.0, 1.0, 1.0]], [0, 1]).round(4).tolist()
    [0.7071, 0.0]
    """
    s = np.asarray(logits, dtype=float)
    if s.ndim != 2:
        raise ValueError(f"logits must be (items x classes), got shape {s.shape}")
    n_items, n_classes = s.shape
    if n_classes < 2:
        raise ValueError("a decision margin needs at least two classes")
    if not np.all(np.isfinite(s)):
        raise ValueError("logits contain NaN or inf")
    t = _as_index(target, n_classes, "target")
    if t.shape != (n_items,):
        raise ValueError(f"target must have one entry per row ({n_items}), got shape {t.shape}")
    rows = np.arange(n_items)
    s_target = s[rows, t]
    others = s.copy()
    others[rows, t] = -np.inf
    best_other = others.max(axis=1)
    return (s_target - best_other) / _SQRT2


def margin_correct(margin) -> np.ndarray:
    """Correctness implied by a margin: ``margin > 0`` (a tie, margin 0, is not correct).

    Parameters
    ----------
    margin : array_like
        Decision margins.

    Returns
    -------
    numpy.ndarray of bool
        True where the margin is positive.

    Examples
    --------
    >>> margin_correct([0.5, 0.0, -1.0]).tolist()
    [True, False, False]
    """
    return np.asarray(margin, dtype=float) > 0


def _as_index(values, n: int, what: str) -> np.ndarray:
    arr = np.asarray(values)
    if arr.dtype.kind == "b" or arr.dtype.kind not in "iuf":
        raise ValueError(f"{what} must be integer indices")
    if arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)) or np.any(arr != np.round(arr)):
            raise ValueError(f"{what} must be integer indices")
    arr = arr.astype(np.int64)
    bad = (arr < 0) | (arr >= n)
    if np.any(bad):
        raise ValueError(f"{what} index {int(arr[bad].flat[0])} out of range [0, {n})")
    return arr


# --------------------------------------------------------------------------------------------------
# Category mapping (1000 ImageNet outputs -> 16 model-vs-human categories, or any user mapping)
# --------------------------------------------------------------------------------------------------


class AggregationRule(str, Enum):
    """How the outputs belonging to one category are combined into one score.

    ``PROBABILITY``: softmax over *all* outputs, then the mean probability over the category's indices
    (the model-vs-human benchmark). ``LOGIT``: the mean of the raw logits over the category's indices (the
    decision-margin paper's variant). Margins on the two scales are not comparable: probabilities lie in
    [0, 1] (margins in [-1/sqrt 2, 1/sqrt 2]) while logit margins are unbounded; the argmax may differ too.

    Examples
    --------
    >>> AggregationRule("logit") is AggregationRule.LOGIT
    True
    >>> aggregate_outputs([[0.0, 2.0, 1.0]], {"a": [0, 1], "b": [2]}, AggregationRule.LOGIT)[0].tolist()
    [[1.0, 1.0]]
    """

    PROBABILITY = "probability"
    LOGIT = "logit"


def load_imagenet16_mapping() -> dict[str, list[int]]:
    """The packaged ImageNet-1k -> 16-category mapping: category name -> list of output indices.

    Categories come in file order (alphabetical, the model-vs-human order). Source: model-vs-human's
    ``human_categories.py`` (see the JSON's ``source`` key).

    Returns
    -------
    dict of str to list of int
        A fresh copy (safe to modify) of the mapping.

    Examples
    --------
    >>> mapping = load_imagenet16_mapping()
    >>> len(mapping), list(mapping)[:3], mapping["airplane"]
    (16, ['airplane', 'bear', 'bicycle'], [404])
    """
    return {k: list(v) for k, v in _packaged_mapping().items()}


@lru_cache(maxsize=1)
def _packaged_mapping() -> dict[str, tuple[int, ...]]:
    text = resources.files("humanlike.trials").joinpath(MAPPING_RESOURCE).read_text(encoding="utf-8")
    raw = json.loads(text)
    if "categories" not in raw:
        raise ValueError(f"{MAPPING_RESOURCE} has no 'categories' key")
    return {str(k): tuple(int(i) for i in v) for k, v in raw["categories"].items()}


def validate_mapping(mapping: Mapping[str, Sequence[int]], n_outputs: int | None = None) -> dict[str, list[int]]:
    """Check a category -> output-indices mapping and return it as a plain dict of int lists.

    Parameters
    ----------
    mapping : Mapping of str to sequence of int
        Category name -> indices of the model outputs that belong to it.
    n_outputs : int, optional
        Number of model outputs; when given, every index must be below it.

    Returns
    -------
    dict of str to list of int
        The mapping, in its original order.

    Raises
    ------
    ValueError
        Naming the category, for: an empty index list, non-integer or negative indices, indices
        >= ``n_outputs`` (when given), an index repeated within a category, or an index shared by two
        categories.

    Examples
    --------
    >>> validate_mapping({"cat": (0, 1), "dog": [2]}, n_outputs=3)
    {'cat': [0, 1], 'dog': [2]}
    >>> validate_mapping({"cat": [0, 1], "dog": [1]})
    Traceback (most recent call last):
        ...
    ValueError: category 'dog': duplicate index 1 (also in category 'cat')
    """
    if not isinstance(mapping, Mapping) or len(mapping) == 0:
        raise ValueError("a mapping must be a non-empty dict: category -> list of output indices")
    out: dict[str, list[int]] = {}
    owner: dict[int, str] = {}
    for name, indices in mapping.items():
        idx = list(indices) if not isinstance(indices, (str, bytes)) else None
        if not idx:
            raise ValueError(f"category {name!r} has no output indices")
        clean = []
        for i in idx:
            if isinstance(i, (bool, np.bool_)) or not isinstance(i, (int, np.integer)):
                raise ValueError(f"category {name!r}: index {i!r} is not an integer")
            i = int(i)
            if i < 0 or (n_outputs is not None and i >= n_outputs):
                bound = f"[0, {n_outputs})" if n_outputs is not None else ">= 0"
                raise ValueError(f"category {name!r}: index {i} out of range {bound}")
            if i in owner:
                where = "repeated" if owner[i] == name else f"also in category {owner[i]!r}"
                raise ValueError(f"category {name!r}: duplicate index {i} ({where})")
            owner[i] = name
            clean.append(i)
        out[str(name)] = clean
    return out


def _resolve_mapping(mapping, n_outputs: int) -> dict[str, list[int]] | None:
    if mapping is None:
        return None
    if isinstance(mapping, str):
        if mapping != "imagenet16":
            raise ValueError(f"unknown mapping name {mapping!r} (the packaged one is 'imagenet16')")
        mapping = _packaged_mapping()
    return validate_mapping(mapping, n_outputs)


def aggregate_outputs(logits, mapping="imagenet16", rule: AggregationRule | str = AggregationRule.PROBABILITY):
    """Aggregate (items x outputs) raw logits to (items x categories) scores.

    Outputs not named by the mapping still enter the softmax of the probability rule but are otherwise
    ignored.

    Parameters
    ----------
    logits : array_like, (items, outputs)
        Raw model outputs (finite).
    mapping : "imagenet16", dict or None, default "imagenet16"
        ``"imagenet16"`` (the packaged 16-category mapping, needs 1000 outputs), a dict category -> output
        indices (validated with :func:`validate_mapping`), or ``None`` (identity: every output is its own
        category, named ``"0"``, ``"1"``, ...).
    rule : AggregationRule or str, default "probability"
        See :class:`AggregationRule`.

    Returns
    -------
    scores : numpy.ndarray, (items, categories)
        The aggregated scores.
    categories : tuple of str
        Category names in column order (mapping order).

    Raises
    ------
    ValueError
        For a non-2-D or non-finite input, or an invalid mapping.

    Examples
    --------
    >>> scores, cats = aggregate_outputs(np.log([[1.0, 1.0, 2.0]]), {"a": [0, 1], "b": [2]})
    >>> scores.round(6).tolist(), cats
    ([[0.25, 0.5]], ('a', 'b'))
    """
    from scipy import special
    rule = AggregationRule(rule)
    x = np.asarray(logits, dtype=float)
    if x.ndim != 2:
        raise ValueError(f"outputs must be (items x outputs), got shape {x.shape}")
    if not np.all(np.isfinite(x)):
        raise ValueError("outputs contain NaN or inf")
    n_outputs = x.shape[1]
    resolved = _resolve_mapping(mapping, n_outputs)
    if rule is AggregationRule.PROBABILITY:
        x = special.softmax(x, axis=1)
    if resolved is None:
        return x, tuple(str(i) for i in range(n_outputs))
    # One (outputs x categories) averaging matrix: the aggregation of all items is one matrix product.
    weights = np.zeros((n_outputs, len(resolved)))
    for col, idx in enumerate(resolved.values()):
        weights[idx, col] = 1.0 / len(idx)
    return x @ weights, tuple(resolved)


@dataclass(frozen=True, eq=False)
class OutputMargins:
    """Margins, predictions and correctness of a model on items, in category space.

    Built by :func:`margins_from_outputs`.

    Attributes
    ----------
    margin : numpy.ndarray, (items,)
        Decision margin per item (scale depends on ``rule``, see :class:`AggregationRule`).
    predicted : numpy.ndarray of int, (items,)
        Index of the argmax category (ties go to the first category in mapping order).
    target : numpy.ndarray of int, (items,)
        Index of the true category.
    correct : numpy.ndarray of bool, (items,)
        ``margin > 0``.
    tie : numpy.ndarray of bool, (items,)
        The top score is shared by two or more categories; on such items ``predicted == target`` may hold
        while ``correct`` is False (a tied target is not correct).
    categories : tuple of str
        Category names in column order.
    rule : str
        The aggregation rule used (``"logit"`` or ``"probability"``).

    Examples
    --------
    >>> m = margins_from_outputs([[0.0, 1.0, 1.0]], ["b"], mapping={"a": [0], "b": [1], "c": [2]})
    >>> m.predicted.tolist(), m.tie.tolist(), m.correct.tolist()
    ([1], [True], [False])
    """

    margin: np.ndarray
    predicted: np.ndarray
    target: np.ndarray
    correct: np.ndarray
    tie: np.ndarray
    categories: tuple[str, ...]
    rule: str

    def to_frame(self):
        """One row per item: target, predicted (category names), margin, correct, tie.

        Returns
        -------
        pandas.DataFrame
            Columns ``item_index``, ``target``, ``predicted``, ``decision_margin``, ``correct``, ``tie``,
            ``rule``.
        """
        import pandas as pd

        cats = np.asarray(self.categories, dtype=object)
        return pd.DataFrame(
            {
                "item_index": np.arange(self.margin.shape[0]),
                "target": cats[self.target],
                "predicted": cats[self.predicted],
                "decision_margin": self.margin,
                "correct": self.correct,
                "tie": self.tie,
                "rule": self.rule,
            }
        )


def margins_from_outputs(
    outputs, targets, mapping=None, rule: AggregationRule | str = AggregationRule.LOGIT
) -> OutputMargins:
    """Aggregate outputs to categories (see :func:`aggregate_outputs`), then margin and argmax per item.

    The predicted category is the argmax; ties go to the first category in mapping order. ``correct`` is
    ``margin > 0``, so a target tied for the top is wrong.

    Parameters
    ----------
    outputs : array_like, (items, outputs)
        Raw model outputs.
    targets : array_like, (items,)
        True categories: indices (column positions) or category names.
    mapping : "imagenet16", dict or None, default None
        ``None`` means the outputs already are per-category scores (identity mapping); pass ``"imagenet16"``
        or a dict to aggregate.
    rule : AggregationRule or str, default "logit"
        ``"logit"`` (the DMC paper); ``"probability"`` takes the margin on the aggregated probabilities, a
        different scale.

    Returns
    -------
    OutputMargins
        Margins, predictions, correctness and ties per item.

    Raises
    ------
    ValueError
        For a target name not in the mapping, a target index out of range, or bad outputs.

    Examples
    --------
    >>> m = margins_from_outputs([[2.0, 1.0, 0.0], [0.0, 1.0, 1.0]], ["b", "c"],
    ...                          mapping={"a": [0], "b": [1], "c": [2]})
    >>> m.margin.round(4).tolist(), m.to_frame()["predicted"].tolist()
    ([-0.7071, 0.0], ['a', 'b'])
    """
    rule = AggregationRule(rule)
    scores, categories = aggregate_outputs(outputs, mapping, rule)
    tgt = np.asarray(targets)
    if tgt.dtype.kind in "USO":
        lookup = {c: i for i, c in enumerate(categories)}
        unknown = [t for t in tgt.ravel().tolist() if t not in lookup]
        if unknown:
            raise ValueError(f"target category {unknown[0]!r} is not in the mapping")
        tgt = np.array([lookup[t] for t in tgt.ravel().tolist()], dtype=np.int64).reshape(tgt.shape)
    tgt = _as_index(tgt, len(categories), "target")
    margin = decision_margin(scores, tgt)
    top = scores.max(axis=1, keepdims=True)
    return OutputMargins(
        margin=margin,
        predicted=np.argmax(scores, axis=1),  # np.argmax returns the first maximum: mapping order
        target=tgt,
        correct=margin > 0,
        tie=(scores == top).sum(axis=1) > 1,
        categories=categories,
        rule=rule.value,
    )


# --------------------------------------------------------------------------------------------------
# Human margin index: item accuracy and m-AFC d'
# --------------------------------------------------------------------------------------------------


def item_accuracy(correct_counts, trial_counts) -> np.ndarray:
    """Mean correctness per item, pooled over observers and repeats.

    The result is ``sum(correct) / sum(trials)`` per item (each response weighs the same, not each
    observer).

    Parameters
    ----------
    correct_counts : array_like, (items,) or (observers, items)
        Number of correct responses; 2-D inputs are summed over observers first.
    trial_counts : array_like, same shape
        Number of responses.

    Returns
    -------
    numpy.ndarray, (items,)
        Proportion correct per item.

    Raises
    ------
    ValueError
        For differing shapes, negative counts, correct > trials, NaN, or an item with no trials at all (its
        accuracy would be undefined).

    Examples
    --------
    >>> item_accuracy([[1, 0], [2, 1]], [[1, 1], [3, 3]]).tolist()
    [0.75, 0.25]
    """
    c = np.asarray(correct_counts, dtype=float)
    t = np.asarray(trial_counts, dtype=float)
    if c.shape != t.shape:
        raise ValueError(f"correct and trial counts differ in shape: {c.shape} vs {t.shape}")
    if c.ndim not in (1, 2):
        raise ValueError("counts must be (items,) or (observers x items)")
    if np.isnan(c).any() or np.isnan(t).any():
        raise ValueError("counts contain NaN")
    if np.any(c < 0) or np.any(c > t):
        raise ValueError("counts must satisfy 0 <= correct <= trials")
    if c.ndim == 2:
        c, t = c.sum(axis=0), t.sum(axis=0)
    empty = t <= 0
    if np.any(empty):
        raise ValueError(f"item {int(np.flatnonzero(empty)[0])} has no trials")
    return c / t


# The d' table: Pc(d') on a grid, per m. Linear interpolation gives a starting value good to ~1e-3 in d',
# and Newton steps with the exact (quadrature) derivative take it far below 1e-6.
_D_MIN, _D_MAX, _D_STEP = -10.0, 20.0, 0.05
_X = np.linspace(-9.0, 9.0, 901)  # quadrature nodes for x = z - d'; phi(9) ~ 1e-18
_W = np.full(_X.size, _X[1] - _X[0])
_W[[0, -1]] *= 0.5  # trapezoid: spectrally accurate for smooth, Gaussian-decaying integrands
_LOG_PHI_X = -0.5 * _X**2 - 0.5 * np.log(2.0 * np.pi)
_CHUNK = 4096


def _check_m(m) -> int:
    if isinstance(m, (bool, np.bool_)) or int(m) != m or m < 2:
        raise ValueError(f"m (number of alternatives) must be an integer >= 2, got {m!r}")
    return int(m)


def _pc_and_slope(d: np.ndarray, m: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Pc(d') = ∫ φ(x) Φ(x + d')^(m-1) dx, its complement 1 - Pc and its derivative, for a 1-D ``d``."""
    from scipy import special
    pc = np.empty(d.shape)
    comp = np.empty(d.shape)
    slope = np.empty(d.shape)
    for lo in range(0, d.size, _CHUNK):
        sl = slice(lo, lo + _CHUNK)
        u = d[sl, None] + _X[None, :]
        # Φ^(m-1) in log space: stable for large m and far tails.
        log_cdf = special.log_ndtr(u)
        log_pow = (m - 1) * log_cdf
        pc[sl] = np.exp(_LOG_PHI_X + log_pow) @ _W
        # The complement straight from -expm1 keeps its relative accuracy when Pc is within 1e-9 of 1.
        comp[sl] = (np.exp(_LOG_PHI_X) * -np.expm1(log_pow)) @ _W
        log_pdf = -0.5 * u**2 - 0.5 * np.log(2.0 * np.pi)
        log_pow_m2 = (m - 2) * log_cdf
        slope[sl] = (m - 1) * (np.exp(_LOG_PHI_X + log_pdf + log_pow_m2) @ _W)
    return pc, comp, slope


@lru_cache(maxsize=32)
def _table(m: int) -> tuple[np.ndarray, np.ndarray]:
    d = np.arange(_D_MIN, _D_MAX + _D_STEP / 2, _D_STEP)
    pc, _, _ = _pc_and_slope(d, m)
    # Keep the strictly increasing part: in the far tails Pc is 0 or 1 to double precision.
    keep = np.concatenate([[True], np.diff(pc) > 0])
    d, pc = d[keep], pc[keep]
    d.setflags(write=False)
    pc.setflags(write=False)
    return d, pc


def dprime_to_accuracy(d, m: int) -> np.ndarray:
    """Proportion correct of an m-alternative forced choice at sensitivity ``d'``.

    ``Pc(d') = ∫ φ(z - d') Φ(z)^(m-1) dz`` by fine-grid quadrature (error < 1e-9). Any real d' is allowed;
    d' = 0 gives chance 1/m, negative d' gives below-chance accuracy. NaN passes through.

    Parameters
    ----------
    d : array_like
        Sensitivities d'.
    m : int
        Number of alternatives (at least 2).

    Returns
    -------
    numpy.ndarray or float
        Proportion correct, same shape as ``d``.

    Raises
    ------
    ValueError
        If ``m`` is not an integer >= 2.

    Examples
    --------
    >>> round(float(dprime_to_accuracy(1.0, 2)), 6)  # 2AFC: Phi(d' / sqrt 2)
    0.76025
    >>> round(float(dprime_to_accuracy(0.0, 4)), 6)  # chance
    0.25
    """
    m = _check_m(m)
    d = np.asarray(d, dtype=float)
    flat = d.ravel()
    out = np.full(flat.shape, np.nan)
    ok = np.isfinite(flat)
    pc, comp, _ = _pc_and_slope(flat[ok], m)
    out[ok] = np.where(pc > 0.5, 1.0 - comp, pc)  # the complement is the more accurate one near 1
    out[flat == np.inf] = 1.0
    out[flat == -np.inf] = 0.0
    out = out.reshape(d.shape)
    return out[()] if out.ndim == 0 else out


def accuracy_to_dprime(pc, m: int, n_trials=None, below_chance: str = "zero") -> np.ndarray:
    """Sensitivity d' of an m-alternative forced choice from proportion correct (inverse of Pc(d')).

    Corrections (never an infinite d'):

    * Pc = 1 or Pc = 0: with ``n_trials`` the standard 1/(2N) rule replaces 1 by 1 - 1/(2N) and 0 by
      1/(2N). Without ``n_trials`` a Pc of exactly 1 (or 0 when negative d' are asked for) raises
      ``ValueError``.
    * Pc <= chance (1/m): ``below_chance="zero"`` (default) clips to chance, d' = 0;
      ``below_chance="negative"`` solves for the negative d' instead.

    Solved by interpolation in a table of Pc over d' in [-10, 20] refined with Newton steps on the exact
    derivative (accuracy far below 1e-6 in d'). NaN passes through.

    Parameters
    ----------
    pc : array_like
        Proportions correct in [0, 1].
    m : int
        Number of alternatives (at least 2).
    n_trials : array_like, optional
        Number of responses behind each proportion (broadcastable to ``pc``), for the 1/(2N) correction.
    below_chance : {"zero", "negative"}, default "zero"
        What a proportion at or below chance gives.

    Returns
    -------
    numpy.ndarray or float
        d', same shape as ``pc``.

    Raises
    ------
    ValueError
        For Pc outside [0, 1], a Pc of 1 (or 0) without ``n_trials``, ``n_trials < 1``, or a bad ``m`` or
        ``below_chance``.

    Examples
    --------
    >>> round(float(accuracy_to_dprime(0.7602499389065284, 2)), 6)
    1.0
    >>> round(float(accuracy_to_dprime(1.0, 2, n_trials=10)), 4)  # Pc 0.95 after the 1/(2N) rule
    2.3262
    >>> float(accuracy_to_dprime(0.2, 4))  # below chance clips to d' = 0
    0.0
    """
    m = _check_m(m)
    if below_chance not in ("zero", "negative"):
        raise ValueError("below_chance must be 'zero' or 'negative'")
    p = np.asarray(pc, dtype=float)
    finite = ~np.isnan(p)
    if np.any((p[finite] < 0) | (p[finite] > 1)):
        raise ValueError("proportions correct must lie in [0, 1]")
    if n_trials is not None:
        n = np.broadcast_to(np.asarray(n_trials, dtype=float), p.shape)
        if np.any(~(n[finite] >= 1)):
            raise ValueError("n_trials must be >= 1")
        p = np.where(p >= 1.0, 1.0 - 0.5 / n, p)
        p = np.where(p <= 0.0, 0.5 / n, p)
    chance = 1.0 / m
    if below_chance == "zero":
        p = np.where(finite & (p <= chance), chance, p)
    if np.any(p[finite] >= 1.0) or np.any(p[finite] <= 0.0):
        raise ValueError("Pc of 1 (or 0) gives an infinite d'; pass n_trials for the 1/(2N) correction")

    flat = p.ravel()
    out = np.full(flat.shape, np.nan)
    todo = np.isfinite(flat)
    out[todo & (flat == chance)] = 0.0
    todo &= flat != chance
    if np.any(todo):
        out[todo] = _invert(flat[todo], m)
    out = out.reshape(p.shape)
    return out[()] if out.ndim == 0 else out


def _invert(p: np.ndarray, m: int) -> np.ndarray:
    d_tab, pc_tab = _table(m)
    if np.any(p < pc_tab[0]) or np.any(p > pc_tab[-1]):
        raise ValueError(
            f"proportion correct outside what d' in [{d_tab[0]:.2f}, {d_tab[-1]:.2f}] can give for m={m} "
            "(use n_trials for the 1/(2N) correction)"
        )
    d = np.interp(p, pc_tab, d_tab)
    # Bracket from the table (one cell of slack each side, the table is exact only to ~1e-14); Newton steps
    # are clipped to it so a flat tail cannot throw them out.
    k = np.searchsorted(pc_tab, p)
    lo = d_tab[np.clip(k - 2, 0, d_tab.size - 1)]
    hi = d_tab[np.clip(k + 1, 0, d_tab.size - 1)]
    upper = p > 0.5
    q = 1.0 - p  # exact in floating point for p > 0.5
    for _ in range(6):
        f, comp, slope = _pc_and_slope(d, m)
        # Residual on the complement near 1, where Pc itself has lost its relative precision.
        resid = np.where(upper, q - comp, f - p)
        step = np.where(slope > 0, resid / np.where(slope > 0, slope, 1.0), 0.0)
        d = np.clip(d - step, lo, hi)
    return d
