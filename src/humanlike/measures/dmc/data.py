"""DMC data assembly: from a trial table, through the design of strata, to the arrays of the DMC kernel.

One stratum per experiment x condition (:func:`humanlike.trials.design.build_design`); its observer group is the
humans of the experiment. Per stratum the kernel gets ``correct`` and ``trials`` (items x humans counts over all
presentations), ``margin`` (items x models, the mean decision margin) and ``model_correct`` (items x models,
share correct). Models without usable margins are skipped with a reason; items not answered by every kept model
or by any human are dropped (with a note); conditions with fewer than 2 items are left out (with a note).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ...trials.design import Design, Stratum, build_design
from ...trials.schema import TrialTableError
from .metric import dprime_table
from ...stats.reliability import choose_splits
from ...resampling.rng import stream


@dataclass
class DMCExperiment:
    """What the kernel needs per experiment besides the strata: the humans, the kept models, the splits.

    Made by :func:`assemble`.

    Parameters
    ----------
    name : str
        The experiment.
    humans : list of str
        Its human observers (the observer group), in column order.
    models : list of str
        The models with usable decision margins, in column order.
    skipped : dict of str to str
        ``{model: why}`` for the models left out.
    keys : list of tuple of str
        Stratum keys (experiment, condition) of the kept conditions, sorted.
    splits : numpy.ndarray of bool
        (S x H) membership of half A of each split of the humans.
    enumerated : bool
        Whether ``splits`` are all unique splits (else a seeded sample).
    n_alternatives : int
        m of the m-AFC d' conversion (default the number of labels).
    table : numpy.ndarray or None
        d' lookup table indexed [trials, correct]; None for the accuracy scale.
    notes : list of str
        What the assembly dropped or skipped, and why.

    Examples
    --------
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> trials = simulate_benchmark(seed=0)
    >>> data = assemble(trials[trials["experiment"] == "sim-blur"])
    >>> experiment = data.experiments["sim-blur"]
    >>> len(experiment.humans), len(experiment.models), experiment.splits.shape  # C(6, 3) / 2 = 10 splits
    (6, 5, (10, 6))
    >>> experiment.keys[:2], experiment.enumerated
    ([('sim-blur', '0'), ('sim-blur', '15')], True)
    """

    name: str
    humans: list[str]
    models: list[str]
    skipped: dict[str, str]
    keys: list[tuple[str, str]]  # stratum keys of the kept conditions, sorted
    splits: np.ndarray = field(repr=False)  # (S x H) membership of half A
    enumerated: bool
    n_alternatives: int
    table: np.ndarray | None = field(repr=False)  # d' lookup table[trials, correct], None for accuracy
    notes: list[str]

    @property
    def group(self) -> tuple[str]:
        """Key of this experiment's observer group in the design (its humans)."""
        return (self.name,)


@dataclass
class DMCData:
    """The design of the DMC strata and the experiments they belong to (sorted by name).

    Made by :func:`assemble`.

    Parameters
    ----------
    design : Design
        One stratum per kept (experiment, condition), humans then models as observers.
    experiments : dict of str to DMCExperiment
        Per experiment, the humans, models, splits and notes.

    Examples
    --------
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> trials = simulate_benchmark(seed=0)
    >>> data = assemble(trials[trials["experiment"] == "sim-blur"])
    >>> len(data.design), list(data.experiments), data.skipped_models
    (4, ['sim-blur'], {})
    """

    design: Design
    experiments: dict[str, DMCExperiment]

    @property
    def notes(self) -> list[str]:
        """Notes from the data assembly (models skipped, items dropped), in order."""
        return [n for e in self.experiments.values() for n in e.notes]

    @property
    def skipped_models(self) -> dict[str, str]:
        """Models left out of DMC, with the reason (e.g. no decision margins)."""
        out: dict[str, str] = {}
        for e in self.experiments.values():
            for model, why in e.skipped.items():
                out.setdefault(model, why)
        return out


def _skipped_models(trials: pd.DataFrame) -> dict[str, dict[str, str]]:
    """experiment -> {model: why} for models without usable decision margins."""
    # Only the columns needed here (taking every column of the whole table costs more than the counts).
    models = trials.loc[trials["observer_kind"] != "human",
                        [c for c in ("experiment", "observer", "decision_margin") if c in trials.columns]]
    out: dict[str, dict[str, str]] = {}
    if "decision_margin" not in models.columns:
        for (experiment, model), _ in models.groupby(["experiment", "observer"], sort=True):
            out.setdefault(str(experiment), {})[str(model)] = "no decision_margin column"
        return out
    missing = models["decision_margin"].isna()
    counts = missing.groupby([models["experiment"], models["observer"]], sort=True).agg(["sum", "size"])
    for (experiment, model), row in counts.iterrows():
        n_nan, n_all = int(row["sum"]), int(row["size"])
        if n_nan == n_all:
            out.setdefault(str(experiment), {})[str(model)] = "no decision margins"
        elif n_nan:
            out.setdefault(str(experiment), {})[str(model)] = (
                f"decision margins missing on {n_nan} of {n_all} responses")
    return out


def assemble(trials: pd.DataFrame, *, dprime: bool = False, n_alternatives: int | None = None,
             max_splits: int = 1000, seed: int = 0) -> DMCData:
    """The DMC strata of a (validated, filtered) trial table.

    Parameters
    ----------
    trials : pandas.DataFrame
        Trial table; models need a ``decision_margin`` column.
    dprime : bool
        Build the d' lookup table of each experiment (m = ``n_alternatives`` or the number of labels).
    n_alternatives : int, optional
        m of the m-AFC d' conversion (default: the number of labels of each experiment).
    max_splits : int
        All unique splits of the humans when there are at most this many, else a sample of this many drawn
        from ``stream(seed, "split-set", experiment)`` (independent of the other experiments).
    seed : int
        Seed of the split samples.

    Returns
    -------
    DMCData
        The strata and, per experiment, humans, kept models, splits and notes.

    Raises
    ------
    TrialTableError
        When no condition has at least 2 items shared by the humans and the kept models, or d' is asked for
        with fewer than 2 alternatives.

    Examples
    --------
    A model without decision margins is skipped, with the reason:

    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> trials = simulate_benchmark(seed=0)
    >>> trials = trials[trials["experiment"] == "sim-blur"]
    >>> trials = trials.assign(decision_margin=trials["decision_margin"].where(trials["observer"] != "model-alien"))
    >>> data = assemble(trials)
    >>> data.skipped_models, data.experiments["sim-blur"].models[:2]
    ({'model-alien': 'no decision margins'}, ['model-humanlike', 'model-medium'])
    """
    design = build_design(trials, by=("experiment", "condition"), group_by=("experiment",), group_kind="human",
                          observer_order="kind", margins=True)
    skipped_by_experiment = _skipped_models(trials)
    labels = trials.groupby("experiment", sort=True)["label"].nunique()
    strata: list[Stratum] = []
    experiments: dict[str, DMCExperiment] = {}
    by_experiment: dict[str, list[Stratum]] = {}
    for s in design:
        by_experiment.setdefault(s.key[0], []).append(s)
    for name, group in by_experiment.items():
        humans = list(design.groups.get((name,), ()))
        skipped = skipped_by_experiment.get(name, {})
        notes = [f"{name}: model '{m}' skipped ({why})" for m, why in skipped.items()]
        observers = group[0].observers
        models = [o for o in observers[len(humans):] if o not in skipped]
        h_cols = np.arange(len(humans))
        m_cols = np.array([observers.index(m) for m in models], dtype=int)
        kept, repeated, max_trials = [], False, 1
        for s in group:
            n_trials, n_correct = s.arrays["n_trials"], s.arrays["n_correct"]
            h_trials = n_trials[:, h_cols]
            m_count = n_trials[:, m_cols]
            keep = h_trials.sum(axis=1) > 0 if len(humans) else np.ones(s.n_items, dtype=bool)
            keep &= (m_count > 0).all(axis=1)
            repeated |= bool((m_count > 1).any())
            n_dropped = int(s.n_items - keep.sum())
            condition = s.key[1]
            if n_dropped:
                notes.append(f"{name}, condition '{condition}': {n_dropped} of {s.n_items} items dropped "
                             "(not answered by every model with margins or by any human)")
            if keep.sum() < 2:
                notes.append(f"{name}, condition '{condition}': fewer than 2 shared items; condition skipped")
                continue
            with np.errstate(divide="ignore", invalid="ignore"):
                model_correct = n_correct[:, m_cols] / m_count
            arrays = {"correct": n_correct[keep][:, h_cols], "trials": h_trials[keep],
                      "margin": s.arrays["margin"][keep][:, m_cols] if models else np.zeros((int(keep.sum()), 0)),
                      "model_correct": model_correct[keep]}
            max_trials = max(max_trials, int(h_trials.max(initial=0)))
            kept.append(Stratum(s.key, s.items[keep], tuple(humans) + tuple(models), arrays, (name,),
                                np.arange(len(humans))))
        if repeated:
            notes.append(f"{name}: models answered some items repeatedly; their margins are averaged")
        if not kept:
            continue
        if len(humans) >= 2:
            splits, enumerated = choose_splits(len(humans), max_splits, stream(seed, "split-set", name))
        else:
            splits, enumerated = np.zeros((0, len(humans)), dtype=bool), True
        m = int(n_alternatives) if n_alternatives is not None else int(labels[name])
        table = None
        if dprime:
            if m < 2:
                raise TrialTableError(f"experiment '{name}': d' needs at least 2 alternatives, found {m} labels")
            table = dprime_table(max_trials * max(len(humans), 1), m)
        strata += kept
        experiments[name] = DMCExperiment(name, humans, models, skipped, [s.key for s in kept], splits,
                                          enumerated, m, table, notes)
    if not experiments:
        raise TrialTableError("no condition has at least 2 items shared by the humans and the models")
    groups = {(name,): tuple(e.humans) for name, e in experiments.items()}
    return DMCData(Design(tuple(sorted(strata, key=lambda st: st.key)), groups), experiments)
