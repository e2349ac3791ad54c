"""Self-consistency of observers who saw items more than once (a ``repeat`` column): how much of a single
response is noise, and how reliable an item index built from one presentation per observer is."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ...trials.schema import TrialTableError, validate_trials
from ...stats.correlation import constant_reason, spearman_brown
from ..pairs.metric import UndefinedPolicy, kappa, kappa_reason


def _nanmean(values: np.ndarray) -> float:
    values = values[~np.isnan(values)]
    return float(values.mean()) if values.size else float("nan")


@dataclass(frozen=True)
class SelfConsistencyResult:
    """Self-consistency of observers who saw items more than once (``repeat`` column).

    ``observers``: per (experiment, condition, observer): n_items with a first and a second presentation,
    accuracy_first / accuracy_second, error_consistency (kappa of first vs second response, with
    ``ec_reason``), phi (Pearson correlation of the first and second correctness, with ``phi_reason``),
    noise_share (share of single-trial variance that is noise, see :func:`self_consistency`).
    ``conditions``: per (experiment, condition), pooled over observers: accuracy_first / accuracy_second
    (item level, mean over items), item_r (correlation over items of the first- and second-presentation
    item accuracies; a test-retest reliability of the pooled human index from single presentations),
    item_r_sb (its Spearman–Brown step-up to both presentations), noise_share (pooled), n_items,
    n_observers, reason. ``experiments``: the same averaged over conditions (and per observer).
    Made by :func:`self_consistency`.

    Parameters
    ----------
    observers : pandas.DataFrame
        One row per (experiment, condition, observer), columns as above.
    conditions : pandas.DataFrame
        One row per (experiment, condition), columns as above.
    experiments : pandas.DataFrame
        One ``(pooled)`` row per experiment (item_r, item_r_sb, noise_share) and one row per observer
        (error_consistency, phi, noise_share), each the mean over conditions.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> first = [1, 1, 1, 0, 0, 1, 0, 1]   # correctness at the first presentation of items i0..i7
    >>> second = [1, 1, 0, 0, 1, 1, 0, 1]  # and at the second: i2 and i4 changed
    >>> trials = pd.DataFrame({
    ...     "observer": "s1", "observer_kind": "human", "experiment": "e", "condition": "c",
    ...     "item": [f"i{k}" for k in range(8)] * 2, "label": "cat",
    ...     "response": ["cat" if x else "dog" for x in first + second],
    ...     "correct": np.array(first + second, dtype=bool), "repeat": [0] * 8 + [1] * 8})
    >>> result = self_consistency(trials)
    >>> result.observers.loc[0, ["n_items", "accuracy_first", "accuracy_second"]].tolist()
    [8.0, 0.625, 0.625]
    >>> result.experiments["observer"].tolist()
    ['(pooled)', 's1']
    """

    observers: pd.DataFrame
    conditions: pd.DataFrame
    experiments: pd.DataFrame

    def to_frame(self) -> pd.DataFrame:
        """The three tables stacked in long form, one row per (level, unit, metric).

        Returns
        -------
        pandas.DataFrame
            Columns level (``observer`` / ``condition`` / ``experiment``), experiment, condition, observer
            (``""`` where the level has none), metric, estimate.
        """
        frames = []
        for lvl, frame, ids, metrics in (
            ("observer", self.observers, ["experiment", "condition", "observer"],
             ["error_consistency", "phi", "noise_share", "accuracy_first", "accuracy_second"]),
            ("condition", self.conditions, ["experiment", "condition"],
             ["item_r", "item_r_sb", "noise_share", "accuracy_first", "accuracy_second"]),
            ("experiment", self.experiments, ["experiment", "observer"],
             ["error_consistency", "phi", "noise_share", "item_r", "item_r_sb"]),
        ):
            if frame.empty:
                continue
            long = frame.melt(id_vars=ids, value_vars=[m for m in metrics if m in frame], var_name="metric",
                              value_name="estimate")
            long.insert(0, "level", lvl)
            frames.append(long)
        if not frames:
            return pd.DataFrame(columns=["level", "experiment", "condition", "observer", "metric", "estimate"])
        out = pd.concat(frames, ignore_index=True)
        for col in ("condition", "observer"):
            out[col] = out[col].fillna("") if col in out else ""
        return out[["level", "experiment", "condition", "observer", "metric", "estimate"]]

    def to_json_dict(self) -> dict:
        """The experiment and condition tables as lists of records.

        Returns
        -------
        dict
            ``{"experiments": [record, ...], "conditions": [record, ...]}``, one dict per table row (undefined
            values stay NaN).
        """
        return {"experiments": self.experiments.to_dict("records"),
                "conditions": self.conditions.to_dict("records")}


_RETEST_NAMES = {"": "", "x constant": "first-presentation index constant",
                 "y constant": "second-presentation index constant",
                 "x and y constant": "first- and second-presentation indices constant"}


def _phi(a, b, c, d):
    a, b, c, d = (np.asarray(v, dtype=float) for v in (a, b, c, d))
    den = np.sqrt((a + b) * (c + d) * (a + c) * (b + d))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, (a * d - b * c) / den, np.nan)


def self_consistency(trials: pd.DataFrame, *, kinds: tuple[str, ...] = ("human",),
                     validate: bool = True) -> SelfConsistencyResult:
    """Consistency of observers with themselves across repeated presentations of the same item.

    Uses, per observer and item, the first presentation (smallest ``repeat``) and the second (the next
    one); items shown only once are left out. Per observer and condition:

    * ``error_consistency``: kappa (:func:`humanlike.measures.pairs.metric.kappa`) between first and second
      correctness; NaN with a reason when both are constant.
    * ``phi``: Pearson correlation of the two binary correctness vectors; NaN when either is constant.
    * ``noise_share``: the share of single-trial variance that is noise. With x1, x2 the two responses to
      the same item, E[(x1 - x2)^2] / 2 = E[p(1 - p)] is the mean within-item (trial-to-trial) variance
      whatever the observer's item probabilities p, so noise = mean((x1 - x2)^2) / 2 = (b + c) / (2n), and
      the total single-trial variance is pbar (1 - pbar) over all 2n responses. noise_share = noise / total,
      which equals 1 - Scott's pi of first vs second (1 - the test-retest reliability of a single trial).
      1 is pure noise; 0 means every response is repeated exactly. NaN when every response is the same.

    Per condition, pooled over observers: item accuracies from first and from second presentations,
    their correlation over items (``item_r``, a test-retest reliability of an index built from one
    presentation per observer; ``item_r_sb`` = 2r/(1+r), the reliability of the index from both) and the
    pooled noise share (noise pooled over observers, total variance over all responses of the condition,
    so between-observer differences count as signal). Experiment rows average conditions.

    Parameters
    ----------
    trials : pandas.DataFrame
        A trial table with a ``repeat`` column (presentation index of the item to the observer).
    kinds : tuple of str
        The observer kinds to analyse (default humans only).
    validate : bool
        Validate the trial table first.

    Returns
    -------
    SelfConsistencyResult
        Per-observer, per-condition and per-experiment tables (empty when no item was shown twice).

    Raises
    ------
    TrialTableError
        When the table has no ``repeat`` column (or fails validation).

    Examples
    --------
    One observer, eight items shown twice, two answers changed (a = 4 both correct, b = c = 1 changed,
    d = 2 both wrong): noise = (b + c) / (2n) = 0.125, total variance 0.625 * 0.375, noise share 8/15.

    >>> import numpy as np, pandas as pd
    >>> first = [1, 1, 1, 0, 0, 1, 0, 1]   # correctness at the first presentation of items i0..i7
    >>> second = [1, 1, 0, 0, 1, 1, 0, 1]  # and at the second: i2 and i4 changed
    >>> trials = pd.DataFrame({
    ...     "observer": "s1", "observer_kind": "human", "experiment": "e", "condition": "c",
    ...     "item": [f"i{k}" for k in range(8)] * 2, "label": "cat",
    ...     "response": ["cat" if x else "dog" for x in first + second],
    ...     "correct": np.array(first + second, dtype=bool), "repeat": [0] * 8 + [1] * 8})
    >>> result = self_consistency(trials)
    >>> row = result.observers.iloc[0]
    >>> round(float(row["noise_share"]), 4), round(float(row["error_consistency"]), 4)
    (0.5333, 0.4667)
    >>> round(float(result.conditions.loc[0, "item_r_sb"]), 4)
    0.6364
    """
    if validate:
        trials = validate_trials(trials)
    if "repeat" not in trials.columns:
        raise TrialTableError("self-consistency needs a 'repeat' column (repeated presentations)")
    rows = trials[trials["observer_kind"].isin(kinds)]
    order = rows.groupby(["experiment", "observer", "item"])["repeat"].rank(method="first")
    first = rows[order == 1].set_index(["experiment", "condition", "observer", "item"])["correct"]
    second = rows[order == 2].set_index(["experiment", "condition", "observer", "item"])["correct"]
    both = pd.concat([first.rename("x1"), second.rename("x2")], axis=1, join="inner").astype(bool)
    obs_cols = ["experiment", "condition", "observer", "n_items", "accuracy_first", "accuracy_second",
                "error_consistency", "ec_reason", "phi", "phi_reason", "noise_share"]
    cond_cols = ["experiment", "condition", "n_items", "n_observers", "accuracy_first", "accuracy_second",
                 "item_r", "item_r_sb", "noise_share", "reason"]
    if both.empty:
        return SelfConsistencyResult(pd.DataFrame(columns=obs_cols), pd.DataFrame(columns=cond_cols),
                                     pd.DataFrame(columns=["experiment", "observer"]))
    x1, x2 = both["x1"], both["x2"]
    cells = pd.DataFrame({"a": x1 & x2, "b": x1 & ~x2, "c": ~x1 & x2, "d": ~x1 & ~x2}).astype(int)
    counts = cells.groupby(level=["experiment", "condition", "observer"]).sum()
    a, b, c, d = (counts[k].to_numpy(float) for k in "abcd")
    n = a + b + c + d
    pbar = (2 * a + b + c) / (2 * n)
    total = pbar * (1 - pbar)
    with np.errstate(divide="ignore", invalid="ignore"):
        noise_share = np.where(total > 0, ((b + c) / (2 * n)) / total, np.nan)
    ec = kappa(a, b, c, d, UndefinedPolicy.STRICT)
    phi = _phi(a, b, c, d)
    observers = counts.reset_index()[["experiment", "condition", "observer"]]
    observers["n_items"] = n.astype(int)
    observers["accuracy_first"] = (a + b) / n
    observers["accuracy_second"] = (a + c) / n
    observers["error_consistency"] = ec
    observers["ec_reason"] = np.asarray(kappa_reason(a, b, c, d), dtype=object)
    observers["phi"] = phi
    observers["phi_reason"] = np.where(np.isnan(phi), "first or second responses constant", "")
    observers["noise_share"] = noise_share
    observers = observers[obs_cols]

    cond_rows = []
    for (experiment, condition), group in both.groupby(level=["experiment", "condition"], sort=True):
        per_item = group.groupby(level="item").agg(["mean", "size"])
        f, s = per_item[("x1", "mean")].to_numpy(float), per_item[("x2", "mean")].to_numpy(float)
        reason = _RETEST_NAMES[str(constant_reason(f, s))] if f.size >= 2 else "fewer than 2 items"
        r = float(np.corrcoef(f, s)[0, 1]) if not reason else np.nan
        gx1, gx2 = group["x1"].to_numpy(), group["x2"].to_numpy()
        p = (gx1.sum() + gx2.sum()) / (2 * gx1.size)
        tot = p * (1 - p)
        noise = np.mean(gx1 != gx2) / 2
        cond_rows.append(dict(
            experiment=experiment, condition=condition, n_items=int(f.size),
            n_observers=int(group.index.get_level_values("observer").nunique()),
            accuracy_first=float(f.mean()), accuracy_second=float(s.mean()), item_r=r,
            item_r_sb=float(spearman_brown(r)) if np.isfinite(r) else np.nan,
            noise_share=noise / tot if tot > 0 else np.nan, reason=reason))
    conditions = pd.DataFrame(cond_rows, columns=cond_cols)
    per_obs = observers.groupby(["experiment", "observer"])[["error_consistency", "phi", "noise_share"]].agg(
        lambda v: _nanmean(v.to_numpy(float))).reset_index()
    per_exp = conditions.groupby("experiment")[["item_r", "item_r_sb", "noise_share"]].agg(
        lambda v: _nanmean(v.to_numpy(float))).reset_index()
    per_exp.insert(1, "observer", "(pooled)")
    experiments = pd.concat([per_exp, per_obs], ignore_index=True)
    return SelfConsistencyResult(observers, conditions, experiments)
