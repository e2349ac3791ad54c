"""The tables of the OOD alignment, as views of its one :class:`~humanlike.resampling.results.Resampled`."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...stats.ranking import ranking_stability
from .common import METRICS
from ..pairs.aggregation import HUMANS

REGIME_COLUMNS = ["regime", "model", "family", "ratio", "ratio_low", "ratio_high", "ratio_undefined_share", "rank",
                  "rank_low", "rank_high", "probability_best", "n_conditions", "n_at_chance", "human_baseline"]


def alignment_tables(res, layout, design, cond_frame: pd.DataFrame, fam: dict, settings):
    """(pairs, groups, regime_ratios, ratio_replicates) from the engine's result.

    Parameters
    ----------
    res : Resampled
        The engine's result over ``layout``'s labels.
    layout : AlignmentLayout
        The alignment's output layout.
    design : Design
        The alignment design.
    cond_frame : pandas.DataFrame
        The spectrum's condition table (OOD score, regime, at_chance per condition).
    fam : dict of str to str
        ``{model: family}``.
    settings : ResamplingSettings
        The settings of the run (level of the rank intervals).

    Returns
    -------
    pairs, groups, regime_ratios : pandas.DataFrame
        The tables of :class:`~humanlike.measures.ood.alignment.OODAlignment`.
    ratio_replicates : dict
        ``{regime: (resamples x models)}``.

    Examples
    --------
    >>> from humanlike.measures.ood.alignment import AlignmentLayout, representative_conditions
    >>> from humanlike.measures.ood.alignment_kernel import AlignmentKernel, alignment_design
    >>> from humanlike.measures.ood.common import class_names
    >>> from humanlike.measures.ood.spectrum import ood_spectrum
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> from humanlike.measures.ood.alignment_sums import AlignmentOptions
    >>> from humanlike.resampling.engine import bootstrap
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> trials = simulate_benchmark(seed=0)
    >>> trials = trials[trials["experiment"] == "sim-noise"]
    >>> spectrum = ood_spectrum(trials, {"sim-noise": "0.00"}, n_observer_resamples=0)
    >>> classes = class_names(trials)
    >>> design = alignment_design(trials, classes)
    >>> kernel = AlignmentKernel(len(classes), AlignmentOptions())
    >>> models = tuple(sorted(trials.loc[trials["observer_kind"] == "model", "observer"].unique()))
    >>> layout = AlignmentLayout(design, kernel, models, representative_conditions(spectrum.conditions,
    ...                          spectrum.regimes), spectrum.regimes.names)
    >>> settings = ResamplingSettings(n_resamples=20, seed=0)
    >>> res = bootstrap(design, kernel, layout.aggregate, layout.output(), settings)
    >>> pairs, groups, regimes, replicates = alignment_tables(res, layout, design, spectrum.conditions,
    ...                                                       {m: m for m in models}, settings)
    >>> len(pairs), len(groups), replicates["reference"].shape   # 45 pairs and 6 groups per condition
    (180, 24, (20, 5))
    """
    low, high = res.interval()
    undefined = res.undefined_share()
    est = res.estimate
    info = cond_frame.set_index(["experiment", "condition"])
    pair_frames, group_rows = [], []
    for s in design:
        cp = layout.pairs[s.key]
        e, c = s.key
        start = layout.offsets[s.key]
        p, g = cp.n_pairs, cp.groups.shape[1]
        names = np.asarray(cp.observers, dtype=object)
        columns = {
            "experiment": np.full(p, e, dtype=object), "condition": np.full(p, c, dtype=object),
            "observer_1": names[cp.first], "observer_2": names[cp.second],
            "pair_kind": np.where(np.arange(p) < cp.n_human_pairs, "human-human", "model-human").astype(object)}
        for m, metric in enumerate(METRICS):
            sl = slice(start + m * p, start + (m + 1) * p)
            columns[metric], columns[f"{metric}_low"], columns[f"{metric}_high"] = est[sl], low[sl], high[sl]
            columns[f"{metric}_undefined_share"] = undefined[sl]
        pair_frames.append(columns)
        n_correct = s.arrays["n_correct"][:, cp.columns].sum(axis=0)
        n_trials = np.maximum(s.arrays["n_trials"][:, cp.columns].sum(axis=0), 1)
        acc = n_correct / n_trials
        meta = info.loc[(e, c)]
        base = start + 3 * p
        ratio_base = base + 3 * g
        for gi, gname in enumerate((HUMANS,) + cp.models):
            row = dict(experiment=e, condition=c, group=gname,
                       kind="human-human" if gi == 0 else "model-human",
                       family=HUMANS if gi == 0 else fam.get(gname, gname),
                       accuracy=float(np.mean(acc[:cp.n_humans])) if gi == 0 else float(acc[cp.n_humans + gi - 1]),
                       n_pairs=int(cp.groups[:, gi].sum()), ood_score=float(meta["ood_score"]),
                       regime=meta["regime"])
            for m, metric in enumerate(METRICS):
                j = base + m * g + gi
                row[metric], row[f"{metric}_low"], row[f"{metric}_high"] = est[j], low[j], high[j]
                row[f"{metric}_undefined_share"] = undefined[j]
            if gi == 0:
                row["ratio"], row["ratio_low"], row["ratio_high"], row["ratio_undefined_share"] = 1.0, np.nan, np.nan, 0.0
            else:
                j = ratio_base + gi - 1
                row["ratio"], row["ratio_low"], row["ratio_high"] = est[j], low[j], high[j]
                row["ratio_undefined_share"] = undefined[j]
            group_rows.append(row)
    # one frame from the columns of every condition (a frame per condition and a concat cost 10 times more)
    pairs = (pd.DataFrame({name: np.concatenate([f[name] for f in pair_frames]) for name in pair_frames[0]})
             if pair_frames else pd.DataFrame())
    groups = pd.DataFrame(group_rows)

    regime_rows, regime_reps = [], {}
    position = layout.n_conditions
    models = layout.models
    hg = groups[groups["group"] == HUMANS].set_index(["experiment", "condition"])
    for name, keys, _ in layout.regimes:
        sl = slice(position, position + len(models))
        position += len(models)
        r_est, rep = est[sl], res.replicates[:, sl]
        if res.n_resamples > 0:
            rs = ranking_stability(list(models), r_est, rep, settings.level)
            rank, rlo, rhi, pbest = rs.rank, rs.rank_low, rs.rank_high, rs.probability_best
        else:
            nan = np.full(len(models), np.nan)
            rlo = rhi = pbest = nan
            rank = ranking_stability(list(models), r_est, r_est[None, :], settings.level).rank
        regime_reps[name] = rep
        baseline = float(np.nanmean([0.5 * (hg.loc[k, "ec"] + hg.loc[k, "ma"]) for k in keys]))
        n_chance = int(sum(bool(info.loc[k, "at_chance"]) for k in keys))
        for j, mname in enumerate(models):
            regime_rows.append(dict(regime=name, model=mname, family=fam[mname], ratio=r_est[j],
                                    ratio_low=low[sl][j], ratio_high=high[sl][j],
                                    ratio_undefined_share=undefined[sl][j], rank=rank[j], rank_low=rlo[j],
                                    rank_high=rhi[j], probability_best=pbest[j], n_conditions=len(keys),
                                    n_at_chance=n_chance, human_baseline=baseline))
    regime_ratios = pd.DataFrame(regime_rows, columns=REGIME_COLUMNS)
    if not regime_ratios.empty:
        order = {n: i for i, (n, _, _) in enumerate(layout.regimes)}
        regime_ratios = (regime_ratios.assign(_o=regime_ratios["regime"].map(order))
                         .sort_values(["_o", "rank"], kind="stable").drop(columns="_o").reset_index(drop=True))
    return pairs, groups, regime_ratios, regime_reps
