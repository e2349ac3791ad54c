"""From a model's raw outputs to a forced choice: the category mapping, the aggregation rule and the trial-table
rows (response, correct, decision margin).

:func:`resolve_category_mapping` reads a mapping option (the packaged ImageNet-16 table, a dict, a JSON file,
the identity), :func:`resolve_rule` an aggregation rule, and :func:`decisions` makes the validated trial
table. Running the models that give the outputs is :mod:`humanlike.models.evaluate`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from ..measures.dmc.margins import AggregationRule, load_imagenet16_mapping, margins_from_outputs
from ..trials.schema import validate_trials

RULES = {"mean-logit": AggregationRule.LOGIT, "logit": AggregationRule.LOGIT,
         "mean-probability": AggregationRule.PROBABILITY, "probability": AggregationRule.PROBABILITY}


def resolve_rule(rule) -> AggregationRule:
    """The aggregation rule for a name (``"mean-logit"``, ``"mean-probability"``) or a rule object; unknown names raise.

    Parameters
    ----------
    rule : str or AggregationRule
        ``"mean-logit"``/``"logit"``, ``"mean-probability"``/``"probability"``, or a rule.

    Returns
    -------
    AggregationRule
        The rule.

    Raises
    ------
    ValueError
        For an unknown name.

    Examples
    --------
    >>> resolve_rule("mean-probability") is AggregationRule.PROBABILITY, resolve_rule("logit").value
    (True, 'logit')
    """
    if isinstance(rule, AggregationRule):
        return rule
    if rule not in RULES:
        raise ValueError(f"unknown rule {rule!r}; use mean-logit or mean-probability")
    return RULES[rule]


def resolve_category_mapping(mapping) -> dict[str, list[int]] | None:
    """The category -> output-indices mapping for a mapping option.

    Parameters
    ----------
    mapping : "imagenet16", "identity", None, dict or path
        ``"imagenet16"`` (the packaged table), a dict category -> output indices, a JSON file holding such
        a dict (or ``{"categories": {...}}``), or ``None``/``"identity"`` (outputs are the categories).

    Returns
    -------
    dict of str to list of int, or None
        The mapping; ``None`` for the identity.

    Raises
    ------
    ValueError
        For an unknown name, a missing or invalid JSON file.

    Examples
    --------
    >>> len(resolve_category_mapping("imagenet16")), resolve_category_mapping("identity")
    (16, None)
    >>> resolve_category_mapping({"cat": (0, 1), "dog": [2]})
    {'cat': [0, 1], 'dog': [2]}
    """
    if mapping is None or mapping == "identity":
        return None
    if isinstance(mapping, Mapping):
        return {str(k): [int(i) for i in v] for k, v in mapping.items()}
    if mapping == "imagenet16":
        return load_imagenet16_mapping()
    path = Path(mapping)
    if path.suffix.lower() == ".json":
        if not path.is_file():
            raise ValueError(f"mapping file {path} not found")
        try:
            raw = json.loads(path.read_text())
        except json.JSONDecodeError as err:
            raise ValueError(f"mapping file {path} is not valid JSON ({err})") from None
        raw = raw.get("categories", raw) if isinstance(raw, dict) else raw
        if not isinstance(raw, dict):
            raise ValueError(f"mapping file {path} must hold {{category: [output indices]}}")
        return {str(k): [int(i) for i in v] for k, v in raw.items()}
    raise ValueError(f"unknown mapping {mapping!r}; use imagenet16, identity or a JSON file")


def decisions(outputs: np.ndarray, manifest: pd.DataFrame, observer: str, *, mapping="imagenet16",
              rule="mean-logit") -> pd.DataFrame:
    """Trial-table rows from raw outputs: category scores, response (argmax), decision margin.

    The choice is among the mapping's categories that occur as stimulus labels (all 16 for the
    model-vs-human sets): a forced choice over the experiment's alternatives, as for the humans.
    A target tied with the best other category has margin 0 and is wrong; its response is then the
    first tied non-target category, so ``correct == (response == label) == (margin > 0)`` always holds.

    Parameters
    ----------
    outputs : numpy.ndarray, (images, outputs)
        Raw model outputs, rows in ``manifest`` order.
    manifest : pandas.DataFrame
        Stimulus manifest with ``experiment, condition, item, label``.
    observer : str
        The observer name.
    mapping : "imagenet16", "identity", None, dict or path, default "imagenet16"
        See :func:`resolve_category_mapping`.
    rule : str, default "mean-logit"
        See :func:`resolve_rule`.

    Returns
    -------
    pandas.DataFrame
        A validated trial table (observer_kind ``"model"``), one row per image.

    Raises
    ------
    ValueError
        If a label is not a category of the mapping, or all labels are equal.

    Examples
    --------
    >>> manifest = pd.DataFrame({"item": ["i1", "i2", "i3"], "label": ["cat", "dog", "dog"],
    ...                          "experiment": "toy", "condition": "0"})
    >>> outputs = np.array([[2.0, 1.0], [3.0, 0.0], [1.0, 1.0]])
    >>> t = decisions(outputs, manifest, "net", mapping={"cat": [0], "dog": [1]})
    >>> t[["response", "correct"]].values.tolist(), t["decision_margin"].round(4).tolist()
    ([['cat', True], ['cat', False], ['cat', False]], [0.7071, -2.1213, 0.0])
    """
    resolved = resolve_category_mapping(mapping)
    categories = list(resolved) if resolved is not None else [str(i) for i in range(outputs.shape[1])]
    labels = manifest["label"].astype(str).to_numpy()
    unknown = sorted(set(labels) - set(categories))
    if unknown:
        raise ValueError(f"label(s) {unknown[:5]} of the stimuli are not categories of the mapping "
                         f"({', '.join(categories[:16])}{', ...' if len(categories) > 16 else ''}); pass a "
                         "mapping whose categories are the stimulus labels")
    if resolved is not None and len(set(labels)) < len(resolved):
        # A forced choice among the experiment's alternatives: the categories that occur as labels.
        present = set(labels)
        resolved = {c: idx for c, idx in resolved.items() if c in present}
    if len(set(labels)) < 2 and resolved is not None:
        raise ValueError(f"all stimuli have the label {labels[0]!r}: a decision needs at least two categories "
                         "among the labels (use extract_features for features only)")
    result = margins_from_outputs(np.asarray(outputs, dtype=np.float64), labels, resolved, resolve_rule(rule))
    cats = np.asarray(result.categories, dtype=object)
    response = cats[result.predicted].copy()
    tied_target = result.tie & (result.predicted == result.target)
    if tied_target.any():
        scores, _ = _scores(outputs, resolved, rule)
        for row in np.flatnonzero(tied_target):
            top = np.flatnonzero(scores[row] == scores[row].max())
            response[row] = cats[next(i for i in top if i != result.target[row])]
    trials = pd.DataFrame({
        "observer": observer, "observer_kind": "model",
        "experiment": manifest["experiment"].to_numpy(), "condition": manifest["condition"].to_numpy(),
        "item": manifest["item"].to_numpy(), "label": labels, "response": response,
        "correct": result.correct, "decision_margin": result.margin,
        "trial": np.arange(1, len(manifest) + 1),
    })
    return validate_trials(trials)


def _scores(outputs, resolved, rule):
    from ..measures.dmc.margins import aggregate_outputs

    return aggregate_outputs(np.asarray(outputs, dtype=np.float64), resolved, resolve_rule(rule))
