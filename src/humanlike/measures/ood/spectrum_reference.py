"""The reference pool of the OOD spectrum (docs/measures/ood-spectrum.md): which conditions are the undistorted
reference of each experiment, and the refusal of a pool whose spread is only an artefact of the logit correction.

The spectrum itself (scores, tests, regimes) is :mod:`humanlike.measures.ood.spectrum`; the scores under observer
resampling :mod:`humanlike.measures.ood.spectrum_bootstrap`.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from ...trials.names import match_conditions, warn_unmatched
from ...trials.schema import TrialTableError
from .common import DEFAULT_REFERENCE


def resolve_reference(trials: pd.DataFrame, reference) -> dict[str, tuple[str, ...]]:
    """{experiment: (conditions,)}; the default keeps the DEFAULT_REFERENCE entries present in the data.

    Conditions match by the number they spell (``0.0`` names the data's ``0``), else case-insensitively
    (:func:`humanlike.trials.names.condition_key`); the data's spellings are returned.

    Parameters
    ----------
    trials : pandas.DataFrame
        A trial table.
    reference : mapping, iterable of (experiment, condition) pairs, or None
        ``{experiment: condition or conditions}``, or pairs; None: the model-vs-human defaults
        (:data:`~humanlike.measures.ood.common.DEFAULT_REFERENCE`) found in the data.

    Returns
    -------
    dict of str to tuple of str
        The reference conditions per experiment.

    Raises
    ------
    TrialTableError
        When a reference condition is not in the data (naming the experiment's conditions), or none is left.

    Examples
    --------
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> trials = simulate_benchmark(seed=0)
    >>> resolve_reference(trials, {"sim-noise": "0.00", "sim-blur": ["0", "3"]})
    {'sim-noise': ('0.00',), 'sim-blur': ('0', '3')}
    >>> resolve_reference(trials, {"sim-noise": "0.5"})
    Traceback (most recent call last):
    ...
    humanlike.trials.schema.TrialTableError: reference condition sim-noise=0.5 is not in the data (conditions of 'sim-noise': ['0.00', '0.10', '0.20', '0.35'])
    """
    present = trials[["experiment", "condition"]].drop_duplicates()
    conditions_of = present.groupby("experiment", sort=False)["condition"].agg(list).to_dict()
    if reference is None:
        # Matched by the number a label spells (a pandas-written "0.0" is the reference "0"); a default whose
        # experiment is in the data but names none of its conditions is said, not silently dropped.
        out = {}
        for e, c in DEFAULT_REFERENCE.items():
            hits = match_conditions(conditions_of.get(e, []), [c])[c]
            if hits:
                out[e] = tuple(hits)
            elif e in conditions_of:
                warn_unmatched("default reference", e, [c], conditions_of[e])
        if not out:
            raise TrialTableError(
                "none of the default reference conditions (model-vs-human: "
                + ", ".join(f"{e}={c}" for e, c in DEFAULT_REFERENCE.items())
                + ") is in the data; pass reference={experiment: condition} (humanlike ood --reference EXP=COND)")
        return out
    if isinstance(reference, Mapping):
        items = [(e, c) for e, cs in reference.items() for c in ((cs,) if isinstance(cs, str) else cs)]
    else:
        items = [tuple(x) for x in reference]
    out: dict[str, list[str]] = {}
    for e, c in items:
        e, c = str(e), str(c)
        hits = match_conditions(conditions_of.get(e, []), [c])[c]
        if not hits:
            avail = sorted(conditions_of.get(e, []))
            where = (f"conditions of '{e}': {avail}" if avail
                     else f"experiments: {sorted(present['experiment'].unique())}")
            raise TrialTableError(f"reference condition {e}={c} is not in the data ({where})")
        out.setdefault(e, []).extend(h for h in hits if h not in out.get(e, []))
    if not out:
        raise TrialTableError("the reference is empty")
    return {e: tuple(cs) for e, cs in out.items()}


def check_reference_spread(reference_rows: pd.DataFrame, logit_correction: str) -> None:
    """Refuse a reference pool whose logit SD comes only from the logit correction.

    When every human in the reference conditions has the same accuracy (typically all 100% correct), the
    pool has no spread between observers; yet reference conditions of different length give different
    corrected logits (``ln((n + 0.5) / 0.5)`` grows with the trial count ``n``), so the SD is nonzero and
    every OOD score is measured in units of that artefact (an SD of 0.740 in issue 22's example): the
    scores are arbitrary and land in one regime. Equal trial counts already give SD 0 (the scores are NaN
    with :data:`~humanlike.measures.ood.spectrum_statistics.REASON_ZERO_SD`). Documented on docs/measures/ood-spectrum.md.

    Parameters
    ----------
    reference_rows : pandas.DataFrame
        Per human observer and reference condition: experiment, condition, observer, accuracy, trials, logit.
    logit_correction : str
        The correction in force (named in the message).

    Raises
    ------
    TrialTableError
        Naming the reference conditions, their trial counts and the common accuracy.

    Examples
    --------
    >>> rows = pd.DataFrame({"experiment": ["a", "a", "b", "b"], "condition": ["0", "0", "0", "0"],
    ...                      "observer": ["s1", "s2", "s1", "s2"], "accuracy": [1.0, 1.0, 1.0, 1.0],
    ...                      "trials": [80, 80, 320, 320], "logit": [5.08, 5.08, 6.47, 6.47]})
    >>> check_reference_spread(rows, "half")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    humanlike.trials.schema.TrialTableError: every human in the reference conditions has accuracy 100% ...
    """
    accuracy = reference_rows["accuracy"].to_numpy(dtype=float)
    logits = reference_rows["logit"].to_numpy(dtype=float)
    if accuracy.size < 2 or np.ptp(accuracy) > 0 or not np.ptp(logits) > 0:
        return
    lengths = reference_rows.groupby(["experiment", "condition"], sort=True)["trials"].agg(["min", "max"])
    where = "; ".join(f"{e} / {c}: {lo}" + ("" if lo == hi else f"-{hi}") + " trials"
                      for (e, c), (lo, hi) in lengths.iterrows())
    raise TrialTableError(
        f"every human in the reference conditions has accuracy {accuracy[0]:.0%} ({where}), so the reference "
        f"pool has no spread between observers: its logit SD {np.std(logits, ddof=1):.3f} comes only from the "
        f"'{logit_correction}' logit correction of different trial counts, and OOD scores in units of it would "
        "be an artefact. Choose reference conditions in which the humans make errors (humanlike ood "
        "--reference), or equal trial counts (the scores are then undefined, with that reason)")
