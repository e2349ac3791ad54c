"""The human-centred OOD spectrum with error alignment per regime (Xu et al.; METHODS.md §4).

Pipeline over a trial table:

1. **Spectrum** (:func:`ood_spectrum`). Per human observer and condition the accuracy and its logit
   (``logit_correction='half'``: ``ln((k+.5)/(n-k+.5))``, so 0 and 1 stay finite). The reference
   distribution pools the human logits of the user-chosen undistorted conditions
   (:data:`DEFAULT_REFERENCE` for model-vs-human: 7 conditions x 4 observers = 28 values). OOD score of a
   condition = Glass's delta of its human logits against that pool (0 = like the reference, negative =
   harder). Tests: two-sided Mann-Whitney U of the condition's observer accuracies against the pooled
   reference accuracies, one-sided exact binomial test of the pooled correct trials against chance 1/K
   (K = classes of the experiment), Benjamini-Hochberg across all conditions (separately per test);
   normality of the reference accuracies and logits. Regimes: Gaussian mixture on the scores
   (:func:`humanlike.stats.spectrum.fit_regimes`, BIC / AICc / fixed), stability across seeded
   initialisations and across bootstrap resamples of the human observers (observers resampled within
   each experiment, the same draw for all its conditions, and the reference pool recomputed from the
   resample).
2. **Alignment** (:func:`ood_alignment`). Per condition, every human-human pair and every model-human pair:
   error consistency (EC), misclassification agreement (MA) and class-level error divergence (CLED), with
   bootstrap intervals (items resampled within the condition, jointly for all observers, so every pair,
   group mean and ratio comes from the same resamples). Alignment ratio of model m in condition c:
   ``(mean_h EC(m,h) + mean_h MA(m,h)) / (mean_pairs EC(h,h') + mean_pairs MA(h,h'))`` — the mean over
   humans of ½(EC+MA) over the same quantity among humans, with EC and MA each averaged over the pairs
   where it is defined. Per regime: the mean ratio over one representative condition per distortion type
   (the type's condition in that regime whose OOD score is closest to the regime's mixture mean); models
   ranked per regime with bootstrap rank intervals.
3. **Permutation tests** (:func:`ood_analysis`): are model alignment profiles (EC and MA per distortion
   type) closer within a model family than across; is the human error structure (CLED between all
   conditions, confusions pooled over the humans) tighter within an OOD regime than within a distortion
   type (Cohen's d with a permutation p-value).

No-answer responses (``'na'``) count as wrong for accuracy and EC; MA and CLED need the class that was
chosen, so a trial without an answer is left out of the joint-error table (MA) and of the confusion
table (CLED).

Vectorisation: a bootstrap resample of the items of one condition is a weight vector ``w``; EC comes from
``W @ correctness`` (:class:`humanlike.stats.resampling.CorrectnessBlock`), MA from ``W @ F`` with per-item
features of every pair (joint error; joint error with the same answer; joint error one-hot by each
observer's answer), from which ``N_E``, the trace and the row / column marginals of the weighted
joint-error matrix follow without forming the K x K matrices; CLED from ``W @ onehot(label, answer)`` per
observer (the weighted confusion tables), Dirichlet posteriors and their entropies per observer, and the
mixture entropy per pair. Resamples are processed in chunks that bound memory.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import stats as sps

from ..data.schema import NO_ANSWER, TrialTableError, first_presentations, validate_trials
from ..metrics.alignment import class_level_error_divergence_batch
from ..metrics.ec import UndefinedPolicy
from ..stats.multiple import benjamini_hochberg
from ..stats.permutation import PermutationResult, grouping_contrast_cohens_d, within_vs_between_groups
from ..stats.ranking import ranking_stability
from ..stats.resampling import group_mean, multinomial_weights, nanmean_quiet, observer_weights, percentile_interval
from .pair_blocks import CorrectnessBlock
from ..stats.rng import SeedLike, make_rng
from ..stats.spectrum import (
    RegimeFit, RegimeStability, binomial_above_chance, chance_flags, fit_regimes, glass_delta,
    logit_accuracy, mannwhitney_vs_reference, normality_tests, regime_stability_bootstrap,
)

HUMANS = "humans"
METRICS = ("ec", "ma", "cled")

#: The undistorted conditions of model-vs-human used as the reference (4 observers each).
DEFAULT_REFERENCE: dict[str, str] = {
    "contrast": "c100",
    "rotation": "0",
    "high-pass": "inf",
    "low-pass": "0",
    "phase-scrambling": "0",
    "power-equalisation": "0",
    "colour": "bw",
}

#: A default family guess for the nine model-vs-human models: architecture lineage and training recipe.
#: The SWAG-pretrained vision transformers, the SWAG-pretrained RegNetYs, and the ResNet-50-style
#: networks (BagNet-33 is a ResNet-50 with small receptive fields; SimCLR uses a ResNet-50 backbone).
DEFAULT_FAMILIES: dict[str, str] = {
    "swag-vit-b16-in1k": "swag-vit",
    "swag-vit-l16-in1k": "swag-vit",
    "swag-vit-h14-in1k": "swag-vit",
    "swag-regnety-16gf-in1k": "swag-regnety",
    "swag-regnety-32gf-in1k": "swag-regnety",
    "swag-regnety-128gf-in1k": "swag-regnety",
    "bagnet33": "resnet",
    "resnet50": "resnet",
    "simclr-resnet50x1": "resnet",
}

MW_VARIANTS = ("asymptotic", "asymptotic-no-continuity", "exact")
LOGIT_CORRECTIONS = ("half", "clip")


# ============================================================================================ helpers


def families_for(models: Sequence[str], families: Mapping[str, str] | None = None) -> dict[str, str]:
    """Family of each model: ``families`` where given, else :data:`DEFAULT_FAMILIES`, else the model itself."""
    table = DEFAULT_FAMILIES if families is None else families
    return {m: str(table.get(m, m)) for m in models}


def _level_key(condition: str):
    s = str(condition).strip().lower()
    if s == "inf":
        return (0, np.inf, s)
    match = re.search(r"-?\d+(?:\.\d+)?", s)
    if match:
        return (0, float(match.group()), s)
    return (1, 0.0, s)


def condition_order(conditions: Sequence[str], reference: str | None = None,
                    accuracy: Mapping[str, float] | None = None) -> list[str]:
    """Distortion levels in order, least distorted first.

    Levels are sorted by the first number in the condition string (``'inf'`` = infinity; non-numeric
    strings after the numeric ones, alphabetically); the order is then reversed when the ``reference``
    condition is last, or (without a reference in the list) when the human ``accuracy`` at the first level
    is below the accuracy at the last.
    """
    order = sorted((str(c) for c in conditions), key=_level_key)
    if len(order) < 2:
        return order
    if reference is not None and str(reference) in order:
        if order[-1] == str(reference):
            order = order[::-1]
    elif accuracy is not None:
        a0, a1 = accuracy.get(order[0], np.nan), accuracy.get(order[-1], np.nan)
        if np.isfinite(a0) and np.isfinite(a1) and a0 < a1:
            order = order[::-1]
    return order


def _classes(trials: pd.DataFrame) -> tuple:
    """Sorted class names: the labels and every chosen class except the no-answer code."""
    found = set(trials["label"].unique().tolist()) | set(trials["response"].unique().tolist())
    return tuple(sorted(found - {NO_ANSWER}))


def _check_choice(value, choices, name):
    if value not in choices:
        raise ValueError(f"{name} must be one of {choices}, got {value!r}")


def _resolve_reference(trials: pd.DataFrame, reference) -> dict[str, tuple[str, ...]]:
    """{experiment: (conditions,)}; the default keeps the DEFAULT_REFERENCE entries present in the data."""
    present = trials[["experiment", "condition"]].drop_duplicates()
    pairs = set(zip(present["experiment"], present["condition"]))
    if reference is None:
        out = {e: (c,) for e, c in DEFAULT_REFERENCE.items() if (e, c) in pairs}
        if not out:
            raise TrialTableError(
                "none of the default reference conditions (model-vs-human: "
                + ", ".join(f"{e}={c}" for e, c in DEFAULT_REFERENCE.items())
                + ") is in the data; pass reference={experiment: condition} (CLI: --reference EXP=COND)")
        return out
    if isinstance(reference, Mapping):
        items = [(e, c) for e, cs in reference.items() for c in ((cs,) if isinstance(cs, str) else cs)]
    else:
        items = [tuple(x) for x in reference]
    out: dict[str, list[str]] = {}
    for e, c in items:
        e, c = str(e), str(c)
        if (e, c) not in pairs:
            avail = sorted(present.loc[present["experiment"] == e, "condition"])
            where = (f"conditions of '{e}': {avail}" if avail
                     else f"experiments: {sorted(present['experiment'].unique())}")
            raise TrialTableError(f"reference condition {e}={c} is not in the data ({where})")
        out.setdefault(e, []).append(c)
    if not out:
        raise TrialTableError("the reference is empty")
    return {e: tuple(cs) for e, cs in out.items()}


# ============================================================================================ spectrum


@dataclass(frozen=True)
class OODSpectrum:
    """The OOD spectrum of a trial table.

    ``conditions``: one row per (experiment, condition) — human accuracy, OOD score (Glass's delta of the
    human logits against the reference pool, with ``ood_reason`` when undefined), regime and its
    stabilities, Mann-Whitney and binomial tests with BH-adjusted p-values, ``above_chance`` /
    ``at_chance``. ``observers``: one row per human and condition (correct, trials, accuracy, logit).
    ``normality``: tests of the reference accuracies (``scale='accuracy'``) and logits (``'logit'``).
    ``regimes``: the mixture fit; ``stability``: its bootstrap stability (``None`` without resamples);
    ``boot_scores``: (resamples x conditions) OOD scores under observer resampling.
    """

    conditions: pd.DataFrame
    observers: pd.DataFrame
    reference: dict
    reference_mean: float
    reference_sd: float
    normality: pd.DataFrame
    regimes: RegimeFit
    stability: RegimeStability | None
    boot_scores: np.ndarray | None = field(repr=False)
    settings: dict

    def to_frame(self) -> pd.DataFrame:
        return self.conditions

    def regime_table(self) -> pd.DataFrame:
        """One row per regime: mixture mean / SD / weight and the number of conditions."""
        comp = self.regimes.components_frame()
        counts = self.conditions["regime"].value_counts()
        comp["n_conditions"] = [int(counts.get(r, 0)) for r in comp["regime"]]
        return comp


def _per_observer(trials: pd.DataFrame) -> pd.DataFrame:
    g = trials.groupby(["experiment", "condition", "observer"], sort=True)["correct"]
    out = g.agg(correct="sum", trials="size").reset_index()
    out["correct"] = out["correct"].astype(int)
    out["accuracy"] = out["correct"] / out["trials"]
    return out


def _mannwhitney(c, r, variant: str):
    if variant == "asymptotic":
        res = mannwhitney_vs_reference(c, r)
        return res.statistic, res.p_value, res.reason
    c = np.asarray(c, dtype=float)
    r = np.asarray(r, dtype=float)
    c, r = c[np.isfinite(c)], r[np.isfinite(r)]
    if c.size == 0 or r.size == 0:
        return np.nan, np.nan, "an empty sample"
    if variant == "exact":
        res = sps.mannwhitneyu(c, r, alternative="two-sided", method="exact")
    else:
        res = sps.mannwhitneyu(c, r, alternative="two-sided", method="asymptotic", use_continuity=False)
    return float(res.statistic), float(res.pvalue), ""


def ood_spectrum(
    trials: pd.DataFrame,
    reference: Mapping[str, str | Sequence[str]] | Sequence[tuple[str, str]] | None = None,
    *,
    regimes: int | str = "bic",
    max_regimes: int = 4,
    n_init: int = 20,
    alpha: float = 0.05,
    mw_variant: str = "asymptotic",
    logit_correction: str = "half",
    n_observer_resamples: int = 500,
    level: float = 0.95,
    seed: SeedLike = 0,
    validate: bool = True,
) -> OODSpectrum:
    """The human-centred OOD spectrum: OOD scores, tests and regimes of every condition.

    Parameters
    ----------
    reference : undistorted conditions as ``{experiment: condition(s)}`` or ``[(experiment, condition)]``;
        ``None`` = the :data:`DEFAULT_REFERENCE` entries present in the data.
    regimes : ``'bic'`` (default), ``'aicc'`` or a fixed number of mixture components.
    max_regimes : largest number of components tried by BIC / AICc.
    n_init : seeded initialisations per candidate number of components.
    alpha : level for BH rejections and the chance flags.
    mw_variant : Mann-Whitney U, two-sided: ``'asymptotic'`` (normal approximation with continuity and tie
        correction, METHODS.md), ``'asymptotic-no-continuity'`` or ``'exact'`` (scipy's exact null,
        which ignores ties).
    logit_correction : ``'half'`` (empirical logit ``ln((k+.5)/(n-k+.5))``, every cell) or ``'clip'``
        (accuracy clipped to ``[1/2n, 1-1/2n]``; only 0 and 1 change).
    n_observer_resamples : bootstrap resamples of the human observers for the regime stability and the
        OOD-score intervals (0 skips). Each resample refits the mixture by vectorised EM (5 starts).
    level : level of the OOD-score percentile intervals.
    """
    _check_choice(mw_variant, MW_VARIANTS, "mw_variant")
    _check_choice(logit_correction, LOGIT_CORRECTIONS, "logit_correction")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha}")
    if isinstance(regimes, str):
        _check_choice(regimes, ("bic", "aicc"), "regimes")
        n_components, criterion = None, regimes
    else:
        n_components, criterion = int(regimes), "bic"
    if validate:
        trials = validate_trials(trials)
    trials = first_presentations(trials)
    humans = trials[trials["observer_kind"] == "human"]
    if humans.empty:
        raise TrialTableError("the OOD spectrum needs human observers (observer_kind == 'human')")
    ref = _resolve_reference(trials, reference)

    obs = _per_observer(humans)
    obs["logit"] = logit_accuracy(obs["correct"].to_numpy(), obs["trials"].to_numpy(), logit_correction)
    is_ref_row = np.zeros(len(obs), dtype=bool)
    for e, cs in ref.items():
        is_ref_row |= ((obs["experiment"] == e) & obs["condition"].isin(cs)).to_numpy()
    obs["is_reference"] = is_ref_row
    ref_logit = obs.loc[is_ref_row, "logit"].to_numpy()
    ref_acc = obs.loc[is_ref_row, "accuracy"].to_numpy()

    n_classes = trials.groupby("experiment")["label"].nunique()
    acc_by = obs.groupby(["experiment", "condition"])["accuracy"].mean()

    # condition list: experiments sorted, levels least distorted first
    keys = []
    for e in sorted(obs["experiment"].unique()):
        conds = obs.loc[obs["experiment"] == e, "condition"].unique()
        ref_c = ref.get(e, (None,))[0]
        acc_e = {c: acc_by.get((e, c), np.nan) for c in conds}
        keys += [(e, c) for c in condition_order(conds, ref_c, acc_e)]

    grouped = {k: g for k, g in obs.groupby(["experiment", "condition"], sort=False)}
    rows = []
    for e, c in keys:
        g = grouped[(e, c)]
        gd = glass_delta(g["logit"].to_numpy(), ref_logit)
        u, p_mw, mw_reason = _mannwhitney(g["accuracy"].to_numpy(), ref_acc, mw_variant)
        k, n = int(g["correct"].sum()), int(g["trials"].sum())
        kk = int(n_classes[e])
        chance = 1.0 / kk if kk >= 2 else np.nan
        p_bin = float(binomial_above_chance(k, n, chance)) if kk >= 2 else np.nan
        rows.append(dict(
            experiment=e, condition=c, is_reference=c in ref.get(e, ()), n_humans=int(len(g)),
            n_trials=n, n_correct=k, human_accuracy=float(g["accuracy"].mean()),
            pooled_accuracy=k / n if n else np.nan, mean_logit=gd.mean_condition, ood_score=gd.value,
            ood_reason=gd.reason, mannwhitney_u=u, mannwhitney_p=p_mw, mannwhitney_reason=mw_reason,
            n_classes=kk, chance=chance, binomial_p=p_bin))
    cond = pd.DataFrame(rows)
    mw = benjamini_hochberg(cond["mannwhitney_p"].to_numpy(), alpha)
    bn = benjamini_hochberg(cond["binomial_p"].to_numpy(), alpha)
    cond["mannwhitney_p_adjusted"] = mw.adjusted
    cond["differs_from_reference"] = mw.reject
    cond["binomial_p_adjusted"] = bn.adjusted
    cond["at_chance"] = chance_flags(bn.adjusted, alpha)
    cond["above_chance"] = ~cond["at_chance"]

    scores = cond["ood_score"].to_numpy()
    if not np.isfinite(scores).any():
        raise TrialTableError("no condition has a defined OOD score: " + "; ".join(sorted(set(cond["ood_reason"]))))
    rng = make_rng(seed)
    fit = fit_regimes(scores, n_components=n_components, criterion=criterion, max_components=max_regimes,
                      n_init=n_init, seed=rng)
    cond["regime_label"] = fit.labels
    cond["regime"] = fit.regimes
    cond["init_stability"] = fit.stability

    boot, stab = None, None
    if n_observer_resamples > 0:
        boot = _observer_bootstrap_scores(obs, keys, ref, n_observer_resamples, rng)
        stab = regime_stability_bootstrap(boot, fit, seed=rng)
        cond["bootstrap_stability"] = stab.stability
        low, high = _interval(boot, level, boot.shape[1])
        cond["ood_score_low"], cond["ood_score_high"] = low, high
    else:
        cond["bootstrap_stability"] = np.nan
        cond["ood_score_low"] = cond["ood_score_high"] = np.nan

    norm = []
    for scale, values in (("accuracy", ref_acc), ("logit", ref_logit)):
        f = normality_tests(values).to_frame()
        f.insert(0, "scale", scale)
        norm.append(f)
    normality = pd.concat(norm, ignore_index=True)

    settings = dict(regimes=regimes, criterion=fit.criterion, n_components=fit.n_components,
                    max_regimes=max_regimes, n_init=n_init, alpha=alpha, mw_variant=mw_variant,
                    logit_correction=logit_correction, n_observer_resamples=n_observer_resamples, level=level,
                    seed=seed if isinstance(seed, int) else None)
    return OODSpectrum(
        conditions=cond, observers=obs, reference={e: list(cs) for e, cs in ref.items()},
        reference_mean=float(np.mean(ref_logit)),
        reference_sd=float(np.std(ref_logit, ddof=1)) if ref_logit.size > 1 else np.nan,
        normality=normality, regimes=fit, stability=stab, boot_scores=boot, settings=settings)


def _observer_bootstrap_scores(obs, keys, ref, n_boot, rng) -> np.ndarray:
    """OOD scores of every condition under resampling of the human observers within each experiment.

    One multinomial draw over the humans of an experiment weights all its conditions (the same people saw
    them); the reference mean and SD are recomputed from the weighted pool (frequency weights, ddof 1).
    """
    col = {k: j for j, k in enumerate(keys)}
    num = np.zeros((n_boot, len(keys)))
    den = np.zeros((n_boot, len(keys)))
    s0 = np.zeros(n_boot)
    s1 = np.zeros(n_boot)
    s2 = np.zeros(n_boot)
    for e, rows in obs.groupby("experiment", sort=True):
        wide = rows.pivot(index="observer", columns="condition", values="logit")
        x = wide.to_numpy(dtype=float)
        mask = np.isfinite(x)
        x0 = np.where(mask, x, 0.0)
        w = observer_weights(x.shape[0], n_boot, rng)
        sw = w @ mask
        sx = w @ x0
        for j, c in enumerate(wide.columns):
            num[:, col[(e, c)]] = sx[:, j]
            den[:, col[(e, c)]] = sw[:, j]
            if c in ref.get(e, ()):
                s0 += sw[:, j]
                s1 += sx[:, j]
                s2 += w @ (x0[:, j] ** 2)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_c = num / den
        m_ref = s1 / s0
        var_ref = (s2 - s0 * m_ref**2) / (s0 - 1.0)
        sd_ref = np.sqrt(np.clip(var_ref, 0.0, None))
        scores = (mean_c - m_ref[:, None]) / sd_ref[:, None]
    scores[~np.isfinite(scores)] = np.nan
    return scores


# =========================================================================================== alignment


@dataclass
class _Cond:
    experiment: str
    condition: str
    observers: list
    n_humans: int
    labels: np.ndarray        # (items,) class codes
    responses: np.ndarray     # (items, observers) class codes; -1 no answer; -2 not observed
    observed: np.ndarray      # (items, observers) bool

    @property
    def correct(self):
        return (self.responses == self.labels[:, None]) & self.observed


def _build_conditions(trials: pd.DataFrame, classes: Sequence[str], keys) -> list[_Cond]:
    index = pd.Index(list(classes))
    label_codes = index.get_indexer(trials["label"]).astype(np.int64)
    resp_codes = index.get_indexer(trials["response"]).astype(np.int64)    # 'na' -> -1
    t = pd.DataFrame({"experiment": trials["experiment"].to_numpy(), "condition": trials["condition"].to_numpy(),
                      "observer": trials["observer"].to_numpy(), "kind": trials["observer_kind"].to_numpy(),
                      "item": trials["item"].to_numpy(), "_label": label_codes, "_resp": resp_codes})
    out = []
    groups = {k: g for k, g in t.groupby(["experiment", "condition"], sort=False)}
    for e, c in keys:
        g = groups.get((e, c))
        if g is None:
            continue
        kinds = g.drop_duplicates("observer").set_index("observer")["kind"]
        humans = sorted(kinds.index[kinds == "human"])
        models = sorted(kinds.index[kinds == "model"])
        observers = humans + models
        g = g.drop_duplicates(["observer", "item"])
        item_idx, items = pd.factorize(g["item"], sort=True)
        o_idx = pd.Index(observers).get_indexer(g["observer"])
        responses = np.full((len(items), len(observers)), -2, dtype=np.int64)
        responses[item_idx, o_idx] = g["_resp"].to_numpy()
        labels = np.empty(len(items), dtype=np.int64)
        labels[item_idx] = g["_label"].to_numpy()
        out.append(_Cond(e, c, observers, len(humans), labels, responses, responses != -2))
    return out


def _pairs(n_humans: int, n_obs: int):
    """Human-human pairs (i<j) then model-human pairs (model, human) in model-major order."""
    hi, hj = np.triu_indices(n_humans, k=1)
    models = np.arange(n_humans, n_obs)
    mi = np.repeat(models, n_humans)
    mj = np.tile(np.arange(n_humans), models.size)
    return np.concatenate([hi, mi]).astype(int), np.concatenate([hj, mj]).astype(int), hi.size


def _segment_matrix(group_of_row, n_groups: int):
    """Sparse (n_groups x L) indicator whose product with an (L x R) array sums the rows of each group."""
    from scipy import sparse

    n = group_of_row.size
    return sparse.csr_matrix((np.ones(n, dtype=np.float32), (group_of_row, np.arange(n))), shape=(n_groups, n))


def _segment_sums(values, seg):
    """Row sums of ``values`` (L x R) within groups: (n_groups x R), dtype kept."""
    return np.asarray(seg.astype(values.dtype) @ values)


class _AlignmentFeatures:
    """Per-item features of one condition whose weighted sums give EC, MA and CLED of all pairs.

    Sparsity: resampling items can only lower counts, never create a count the data do not have, so
    feature columns that are zero on the data are zero in every resample and are dropped. For CLED this
    means each pair's JSD runs only over the (class, wrong answer) cells where either observer erred on
    the data; the remaining cells of a class share one posterior value and enter in closed form.
    """

    def __init__(self, cond: _Cond, k: int, first, second):
        self.k = k
        self.first, self.second = first, second
        n_items, n_obs = cond.responses.shape
        self.n_items, self.n_obs, self.n_pairs = n_items, n_obs, first.size
        correct = cond.correct
        self.block = CorrectnessBlock(correct, cond.observed)
        pos = {(int(a), int(b)): p for p, (a, b) in enumerate(zip(self.block.first, self.block.second))}
        self.block_pairs = np.array([pos[(min(a, b), max(a, b))] for a, b in zip(first, second)], dtype=int)
        answered = cond.responses >= 0
        wrong = answered & ~correct            # wrong with a class answer
        r = np.where(answered, cond.responses, 0)
        p = first.size

        # --- MA: per pair joint error, same answer, and joint error one-hot by each answer
        jw = wrong[:, first] & wrong[:, second]                  # (items, P)
        same = jw & (r[:, first] == r[:, second])
        eye = np.eye(k, dtype=bool)
        rows = (jw[:, :, None] & eye[r[:, first]]).reshape(n_items, -1)
        cols = (jw[:, :, None] & eye[r[:, second]]).reshape(n_items, -1)
        full = np.concatenate([jw, same, rows, cols], axis=1)
        self.ma_width = full.shape[1]
        self.ma_cols = np.flatnonzero(full.any(axis=0))
        self.ma_features = full[:, self.ma_cols].astype(np.float32)

        # --- CLED: per observer error counts by (true class, wrong answer), wrong answers indexed 0..K-2
        km1 = k - 1
        cell = np.where(r < cond.labels[:, None], r, r - 1)
        flat = cond.labels[:, None] * km1 + cell                  # (items, O) index into K*(K-1)
        ii, oo = np.nonzero(wrong)
        e0 = np.zeros((n_obs, k * km1), dtype=np.int64)
        np.add.at(e0, (oo, flat[ii, oo]), 1)
        nz_o, nz_c = np.nonzero(e0)                               # sorted by (observer, class, cell)
        self.n_nz = nz_o.size
        colid = np.full((n_obs, k * km1), self.n_nz, dtype=np.int64)   # n_nz = the all-zero sentinel
        colid[nz_o, nz_c] = np.arange(self.n_nz)
        feats = np.zeros((n_items, self.n_nz), dtype=np.float32)
        feats[ii, colid[oo, flat[ii, oo]]] = 1.0
        self.conf_features_t = np.ascontiguousarray(feats.T)
        # per observer and class: which nz columns (segments by (observer, class))
        oc = nz_o * k + nz_c // km1
        self.oc_seg = _segment_matrix(oc, n_obs * k)
        self.oc_of_col = oc
        nnz_oc = np.bincount(oc, minlength=n_obs * k) if oc.size else np.zeros(n_obs * k, int)
        self.zero_cells_oc = (km1 - nnz_oc).astype(float)        # (O*K,)
        # pairs: union of cells where either observer erred on the data
        union = (e0[first] + e0[second]) > 0                      # (P, K*(K-1))
        up, uc = np.nonzero(union)
        # index of each union cell into [observer cells (n_nz) | per (observer, class) zero cell (O*K)]
        ci_col, cj_col = colid[first[up], uc], colid[second[up], uc]
        self.u_i = np.where(ci_col < self.n_nz, ci_col, self.n_nz + first[up] * k + uc // km1)
        self.u_j = np.where(cj_col < self.n_nz, cj_col, self.n_nz + second[up] * k + uc // km1)
        pc = up * k + uc // km1
        self.u_pc = pc
        self.pc_seg = _segment_matrix(pc, p * k)
        nnz_pc = np.bincount(pc, minlength=p * k) if pc.size else np.zeros(p * k, int)
        self.zero_cells_pc = (km1 - nnz_pc).astype(float)        # (P*K,)
        self.pc_first = np.repeat(first * k, k) + np.tile(np.arange(k), p)   # (P*K,) -> (O*K) index
        self.pc_second = np.repeat(second * k, k) + np.tile(np.arange(k), p)
        self.width = max(pc.size, self.n_nz + n_obs * k, self.ma_cols.size, p * k, n_items)

    def evaluate(self, weights, policy, ma_undefined, alpha, mixture, log_base, weighting):
        """EC, MA, CLED of every pair, (R x P) each, for item weights (R x items); ``None`` = the data."""
        if weights is None:
            weights = np.ones((1, self.n_items), dtype=np.float32)
        w = np.asarray(weights, dtype=np.float32)
        stats = self.block.weighted(w)
        ec = stats.error_consistency(policy)[:, self.block_pairs]
        ma = self._ma(w, ma_undefined)
        cled = self._cled(w, alpha, mixture, log_base, weighting)
        return ec, ma, cled

    def _ma(self, w, undefined):
        p, k = self.n_pairs, self.k
        s = np.zeros((w.shape[0], self.ma_width))
        if self.ma_cols.size:
            s[:, self.ma_cols] = w @ self.ma_features
        n = s[:, :p]
        trace = s[:, p:2 * p]
        rows = s[:, 2 * p:2 * p + p * k].reshape(-1, p, k)
        cols = s[:, 2 * p + p * k:].reshape(-1, p, k)
        return _ma_from_sums(n, trace, rows, cols, undefined)

    def _cled(self, w, alpha, mixture, log_base, weighting):
        # Cells-major layout (cells x resamples): gathers copy contiguous rows and segment sums run over
        # rows. float64 for the estimate on the data, float32 for bootstrap replicates (~1e-6 relative).
        k, km1, p, o = self.k, self.k - 1, self.n_pairs, self.n_obs
        if log_base is None:
            log_base = 2.0 if mixture == "average" else np.e
        b = w.shape[0]
        dt = np.float64 if b == 1 else np.float32
        nz = self.n_nz
        c = (self.conf_features_t @ w.T).astype(dt) if nz else np.zeros((0, b), dtype=dt)   # (nz, R)
        n_oc = _segment_sums(c, self.oc_seg)                # (O*K, R) errors
        d_oc = n_oc + dt(km1 * alpha)
        p0 = dt(alpha) / d_oc                                                      # zero-cell posterior
        post = np.empty((nz + o * k, b), dtype=dt)
        post[:nz] = (c + dt(alpha)) / d_oc[self.oc_of_col]
        post[nz:] = p0
        ent = -_segment_sums(post[:nz] * np.log(post[:nz]), self.oc_seg)
        ent -= self.zero_cells_oc[:, None] * p0 * np.log(p0)
        # pair mixtures on the union cells, closed form on the cells neither observer used
        mid = post[self.u_i]
        mid += post[self.u_j]
        mid *= 0.5
        m0 = 0.5 * (p0[self.pc_first] + p0[self.pc_second])                         # (P*K, R)
        if mixture == "average":
            t = np.log(mid)
            t *= mid
            cross = -_segment_sums(t, self.pc_seg)
            cross -= self.zero_cells_pc[:, None] * m0 * np.log(m0)
        else:
            counts = np.zeros((nz + o * k, b), dtype=dt)
            counts[:nz] = c
            n_pool = n_oc[self.pc_first] + n_oc[self.pc_second] + dt(km1 * alpha)
            pooled = (counts[self.u_i] + counts[self.u_j] + dt(alpha)) / n_pool[self.u_pc]
            cross = -_segment_sums(mid * np.log(pooled), self.pc_seg)
            cross -= self.zero_cells_pc[:, None] * m0 * np.log(alpha / n_pool)
        jsd = np.maximum(cross - 0.5 * (ent[self.pc_first] + ent[self.pc_second]), 0.0) / np.log(log_base)
        ni, nj = n_oc[self.pc_first], n_oc[self.pc_second]
        any_err = (ni + nj) > 0
        w_raw = (ni + nj if weighting == "errors" else any_err).astype(np.float64).reshape(p, k, b)
        total = w_raw.sum(axis=1)
        contrib = (w_raw * np.where(any_err, jsd, 0.0).reshape(p, k, b)).sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            value = contrib / total
        return np.where(total > 0, value, np.nan).T


def _ma_from_sums(n, trace, rows, cols, undefined: str):
    """MA from the weighted joint-error count, trace and marginals (same rules as metrics.alignment)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        p_o = trace / n
        p_e = np.sum(rows * cols, axis=-1) / (n * n)
        value = (p_o - p_e) / (1.0 - p_e)
    undefined_mask = (n <= 0) | (np.abs(1.0 - p_e) < 1e-12)
    return np.where(undefined_mask, 1.0 if undefined == "one" else np.nan, value)


@dataclass(frozen=True)
class OODAlignment:
    """Error alignment per condition across the spectrum.

    ``pairs``: one row per (condition, pair) — EC, MA, CLED with percentile intervals.
    ``groups``: one row per (condition, group), group = ``'humans'`` (mean over human-human pairs) or a
    model (mean over its pairs with each human): accuracy, EC, MA, CLED with intervals, the alignment
    ratio with its interval (models), OOD score and regime.
    ``regime_ratios``: one row per (regime, model): the mean ratio over the regime's representative
    conditions, interval, rank (1 = most human-like), rank interval, probability of being best, the number
    of representatives at chance and the human baseline (mean over representatives of ½(EC+MA) among
    humans). Where the baseline is near 0 (humans at chance share no error structure) the ratio is a
    quotient of noise: its interval says so.
    ``representatives``: the representative condition of each (regime, distortion type).
    ``ratio_replicates``: {regime: (resamples x models)}; ``models``: model names.
    """

    pairs: pd.DataFrame
    groups: pd.DataFrame
    regime_ratios: pd.DataFrame
    representatives: pd.DataFrame
    models: tuple
    ratio_replicates: dict = field(repr=False)
    settings: dict

    def to_frame(self) -> pd.DataFrame:
        return self.groups

    def ratios(self) -> pd.DataFrame:
        """Per model and condition: the alignment ratio with its interval."""
        g = self.groups[self.groups["group"] != HUMANS]
        return g[["experiment", "condition", "group", "family", "ood_score", "regime", "ratio", "ratio_low",
                  "ratio_high"]].rename(columns={"group": "model"}).reset_index(drop=True)


def representative_conditions(conditions: pd.DataFrame, fit: RegimeFit) -> pd.DataFrame:
    """One representative condition per (regime, distortion type).

    Rule: among a distortion type's conditions assigned to a regime, the one whose OOD score is closest
    to the regime's mixture mean (ties: the less distorted, i.e. the first in level order).
    """
    rows = []
    for label, name in enumerate(fit.names):
        centre = fit.means[label]
        sub = conditions[conditions["regime_label"] == label]
        for e, g in sub.groupby("experiment", sort=True):
            j = int(np.argmin(np.abs(g["ood_score"].to_numpy() - centre)))
            r = g.iloc[j]
            rows.append(dict(regime=name, regime_label=label, regime_mean=float(centre), experiment=e,
                             condition=r["condition"], ood_score=float(r["ood_score"])))
    return pd.DataFrame(rows, columns=["regime", "regime_label", "regime_mean", "experiment", "condition",
                                       "ood_score"])


def ood_alignment(
    trials: pd.DataFrame,
    spectrum: OODSpectrum,
    *,
    families: Mapping[str, str] | None = None,
    n_resamples: int = 1000,
    level: float = 0.95,
    seed: SeedLike = 0,
    policy: UndefinedPolicy | str = UndefinedPolicy.STRICT,
    ma_undefined: str = "nan",
    cled_alpha: float = 0.5,
    cled_mixture: str = "average",
    cled_log_base: float | None = None,
    cled_weighting: str = "errors",
    chunk_elements: int = 2_000_000,
    validate: bool = True,
) -> OODAlignment:
    """EC, MA and CLED per condition (human-human and model-human), alignment ratios and regime rankings.

    Intervals: percentile bootstrap with ``n_resamples`` resamples of the items of each condition (jointly
    for all observers). ``policy``: undefined EC (:class:`humanlike.metrics.ec.UndefinedPolicy`);
    ``ma_undefined``: ``'nan'`` or ``'one'`` (the reference code's substitution); ``cled_*``: the CLED
    options of :func:`humanlike.metrics.alignment.class_level_error_divergence`. ``chunk_elements``
    bounds the size of the per-chunk arrays (resamples x the widest per-resample feature set).
    """
    _check_choice(ma_undefined, ("nan", "one"), "ma_undefined")
    _check_choice(cled_mixture, ("average", "pooled"), "cled_mixture")
    _check_choice(cled_weighting, ("errors", "uniform"), "cled_weighting")
    if not cled_alpha > 0:
        raise ValueError("cled_alpha must be > 0")
    policy = UndefinedPolicy(policy)
    if validate:
        trials = validate_trials(trials)
    trials = first_presentations(trials)
    cond_frame = spectrum.conditions
    keys = list(zip(cond_frame["experiment"], cond_frame["condition"]))
    classes = _classes(trials)
    k = len(classes)
    if k < 2:
        raise TrialTableError("need at least two classes")
    models = tuple(sorted(trials.loc[trials["observer_kind"] == "model", "observer"].unique()))
    fam = families_for(models, families)
    info = cond_frame.set_index(["experiment", "condition"])
    conds = _build_conditions(trials, classes, keys)
    rng = make_rng(seed)
    children = rng.spawn(len(conds))
    options = dict(policy=policy, ma_undefined=ma_undefined, alpha=cled_alpha, mixture=cled_mixture,
                   log_base=cled_log_base, weighting=cled_weighting)

    pair_frames, group_rows = [], []
    ratio_reps: dict[tuple, np.ndarray] = {}
    for cond, crng in zip(conds, children):
        n_obs, nh = len(cond.observers), cond.n_humans
        first, second, n_hh = _pairs(nh, n_obs)
        if first.size == 0:
            continue
        feats = _AlignmentFeatures(cond, k, first, second)
        point = feats.evaluate(None, **options)
        point = [m[0] for m in point]
        reps = [[], [], []]
        if n_resamples > 0:
            step = max(1, int(chunk_elements // max(1, feats.width)))
            done = 0
            while done < n_resamples:
                size = min(step, n_resamples - done)
                w = multinomial_weights(feats.n_items, size, crng)
                for lst, v in zip(reps, feats.evaluate(w, **options)):
                    lst.append(v)
                done += size
            reps = [np.concatenate(r) for r in reps]
        else:
            reps = [np.full((0, first.size), np.nan)] * 3

        names = np.array(cond.observers, dtype=object)
        frame = pd.DataFrame({
            "experiment": cond.experiment, "condition": cond.condition,
            "observer_1": names[first], "observer_2": names[second],
            "pair_kind": np.where(np.arange(first.size) < n_hh, "human-human", "model-human"),
        })
        for mname, est, rep in zip(METRICS, point, reps):
            frame[mname] = est
            lo, hi = _interval(rep, level, first.size)
            frame[f"{mname}_low"], frame[f"{mname}_high"] = lo, hi
        pair_frames.append(frame)

        # group means: humans, then each model (over its pairs with the humans)
        model_names = cond.observers[nh:]
        g_mat = np.zeros((first.size, 1 + len(model_names)))
        g_mat[:n_hh, 0] = 1
        for m in range(len(model_names)):
            g_mat[n_hh + m * nh:n_hh + (m + 1) * nh, 1 + m] = 1
        gp = [group_mean(est[None, :], g_mat)[0] for est in point]
        gr = [group_mean(rep, g_mat) for rep in reps]
        ratio_pt = _ratio(gp[0], gp[1])
        ratio_rep = _ratio(gr[0], gr[1]) if n_resamples > 0 else np.full((0, len(model_names)), np.nan)
        acc = cond.correct.sum(axis=0) / np.maximum(cond.observed.sum(axis=0), 1)
        meta = info.loc[(cond.experiment, cond.condition)]
        n_groups = 1 + len(model_names)
        g_int = [_interval(r, level, n_groups) for r in gr]
        r_lo, r_hi = _interval(ratio_rep, level, len(model_names))
        for gi, gname in enumerate([HUMANS] + list(model_names)):
            row = dict(experiment=cond.experiment, condition=cond.condition, group=gname,
                       kind="human-human" if gi == 0 else "model-human",
                       family=HUMANS if gi == 0 else fam.get(gname, gname),
                       accuracy=float(np.mean(acc[:nh])) if gi == 0 else float(acc[nh + gi - 1]),
                       n_pairs=int(g_mat[:, gi].sum()), ood_score=float(meta["ood_score"]),
                       regime=meta["regime"])
            for mi, mname in enumerate(METRICS):
                row[mname], row[f"{mname}_low"], row[f"{mname}_high"] = gp[mi][gi], g_int[mi][0][gi], g_int[mi][1][gi]
            if gi == 0:
                row["ratio"], row["ratio_low"], row["ratio_high"] = 1.0, np.nan, np.nan
            else:
                row["ratio"], row["ratio_low"], row["ratio_high"] = ratio_pt[gi - 1], r_lo[gi - 1], r_hi[gi - 1]
            group_rows.append(row)
        # ratio replicates aligned on the global model list
        full = np.full((max(ratio_rep.shape[0], 1) if n_resamples > 0 else 0, len(models)), np.nan)
        full_pt = np.full(len(models), np.nan)
        for m_local, mname in enumerate(model_names):
            j = models.index(mname)
            full_pt[j] = ratio_pt[m_local]
            if n_resamples > 0:
                full[:, j] = ratio_rep[:, m_local]
        ratio_reps[(cond.experiment, cond.condition)] = (full_pt, full)

    pairs = pd.concat(pair_frames, ignore_index=True) if pair_frames else pd.DataFrame()
    groups = pd.DataFrame(group_rows)
    reps_table = representative_conditions(cond_frame, spectrum.regimes)
    regime_rows, regime_reps = [], {}
    for name in spectrum.regimes.names:
        sub = reps_table[reps_table["regime"] == name]
        keys_r = [(e, c) for e, c in zip(sub["experiment"], sub["condition"]) if (e, c) in ratio_reps]
        if not keys_r or not models:
            continue
        est = nanmean_quiet(np.stack([ratio_reps[kk][0] for kk in keys_r]), axis=0)
        if n_resamples > 0:
            rep = nanmean_quiet(np.stack([ratio_reps[kk][1] for kk in keys_r]), axis=0)
            lo, hi = _interval(rep, level, len(models))
            rs = ranking_stability(list(models), est, rep, level)
            rank, rlo, rhi, pbest = rs.rank, rs.rank_low, rs.rank_high, rs.probability_best
        else:
            rep = np.full((0, len(models)), np.nan)
            lo = hi = rlo = rhi = pbest = np.full(len(models), np.nan)
            rank = ranking_stability(list(models), est, est[None, :], level).rank
        regime_reps[name] = rep
        hg = groups[groups["group"] == HUMANS].set_index(["experiment", "condition"])
        baseline = float(np.nanmean([0.5 * (hg.loc[kk, "ec"] + hg.loc[kk, "ma"]) for kk in keys_r]))
        n_chance = int(sum(bool(info.loc[kk, "at_chance"]) for kk in keys_r))
        for j, mname in enumerate(models):
            regime_rows.append(dict(regime=name, model=mname, family=fam[mname], ratio=est[j], ratio_low=lo[j],
                                    ratio_high=hi[j], rank=rank[j], rank_low=rlo[j], rank_high=rhi[j],
                                    probability_best=pbest[j], n_conditions=len(keys_r),
                                    n_at_chance=n_chance, human_baseline=baseline))
    regime_ratios = pd.DataFrame(regime_rows, columns=[
        "regime", "model", "family", "ratio", "ratio_low", "ratio_high", "rank", "rank_low", "rank_high",
        "probability_best", "n_conditions", "n_at_chance", "human_baseline"])
    if not regime_ratios.empty:
        order = {n: i for i, n in enumerate(spectrum.regimes.names)}
        regime_ratios = (regime_ratios.assign(_o=regime_ratios["regime"].map(order))
                         .sort_values(["_o", "rank"], kind="stable").drop(columns="_o").reset_index(drop=True))
    settings = dict(n_resamples=n_resamples, level=level, seed=seed if isinstance(seed, int) else None,
                    policy=policy.value, ma_undefined=ma_undefined, cled_alpha=cled_alpha,
                    cled_mixture=cled_mixture, cled_log_base=cled_log_base, cled_weighting=cled_weighting,
                    families=fam, n_classes=k)
    return OODAlignment(pairs, groups, regime_ratios, reps_table, models, regime_reps, settings)


def _interval(rep, level, width):
    """Percentile interval per column, NaN replicates ignored (all-NaN columns give NaN)."""
    rep = np.asarray(rep, dtype=float)
    if rep.shape[0] == 0:
        nan = np.full(width, np.nan)
        return nan, nan
    return percentile_interval(rep, level)


def _ratio(ec, ma):
    """(EC_m + MA_m) / (EC_humans + MA_humans) for group columns [humans, models...]."""
    num = ec[..., 1:] + ma[..., 1:]
    den = ec[..., :1] + ma[..., :1]
    with np.errstate(invalid="ignore", divide="ignore"):
        out = num / den
    return np.where(np.isfinite(out), out, np.nan)


# ==================================================================================== structure tests


def alignment_profiles(alignment: OODAlignment, metrics: Sequence[str] = ("ec", "ma")) -> pd.DataFrame:
    """Model x (metric, distortion type) profile: each model's mean over humans, averaged over the type's
    conditions. Columns with a NaN for any model are dropped (a profile distance needs every feature)."""
    g = alignment.groups[alignment.groups["group"] != HUMANS]
    table = g.groupby(["group", "experiment"])[list(metrics)].mean().unstack("experiment")
    table = table.dropna(axis=1, how="any")
    table.index.name = "model"
    return table


def condition_cled_matrix(trials: pd.DataFrame, conditions: pd.DataFrame, *, alpha: float = 0.5,
                          mixture: str = "average", log_base: float | None = None,
                          weighting: str = "errors") -> np.ndarray:
    """CLED between every two conditions, confusions pooled over the human observers (conditions x conditions).

    Trials without an answer are left out of the confusion tables. The diagonal is 0.
    """
    trials = first_presentations(trials)
    humans = trials[(trials["observer_kind"] == "human") & (trials["response"] != NO_ANSWER)]
    classes = _classes(trials)
    k = len(classes)
    code = {c: i for i, c in enumerate(classes)}
    keys = list(zip(conditions["experiment"], conditions["condition"]))
    pos = {kk: j for j, kk in enumerate(keys)}
    cidx = np.array([pos.get(kk, -1) for kk in zip(humans["experiment"], humans["condition"])])
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


def classical_mds(distances, n_components: int = 2) -> np.ndarray:
    """Classical (Torgerson) MDS of a distance matrix by eigendecomposition of the double-centred B."""
    d = np.asarray(distances, dtype=float)
    n = d.shape[0]
    j = np.eye(n) - np.ones((n, n)) / n
    b = -0.5 * j @ (d**2) @ j
    vals, vecs = np.linalg.eigh(b)
    order = np.argsort(vals)[::-1][:n_components]
    return vecs[:, order] * np.sqrt(np.clip(vals[order], 0.0, None))


# ============================================================================================== result


@dataclass(frozen=True)
class OODResult:
    """The whole issue-4 analysis: spectrum, alignment, structure tests.

    ``family_test``: are alignment profiles closer within model families (between minus within mean
    Euclidean distance, +1-corrected permutation p); ``regime_test``: is the human CLED structure tighter
    within OOD regimes than within distortion types (Cohen's d, permutation p). ``condition_cled``: the
    CLED matrix between conditions (rows/columns in ``spectrum.conditions`` order).
    """

    spectrum: OODSpectrum
    alignment: OODAlignment
    family_test: PermutationResult
    regime_test: PermutationResult
    condition_cled: np.ndarray = field(repr=False)
    profiles: pd.DataFrame = field(repr=False)
    settings: dict

    def to_frame(self) -> pd.DataFrame:
        """The per-condition table of the spectrum."""
        return self.spectrum.conditions

    @property
    def conditions(self) -> pd.DataFrame:
        return self.spectrum.conditions

    def to_json_dict(self) -> dict:
        cond = self.spectrum.conditions
        cols = ["experiment", "condition", "ood_score", "regime", "human_accuracy", "mannwhitney_p",
                "mannwhitney_p_adjusted", "binomial_p", "binomial_p_adjusted", "above_chance",
                "ood_score_low", "ood_score_high", "is_reference", "n_humans", "init_stability",
                "bootstrap_stability", "at_chance"]
        conditions = [{c: _py(r[c]) for c in cols} for _, r in cond.iterrows()]
        fit = self.spectrum.regimes
        rr = self.alignment.regime_ratios
        reps = self.alignment.representatives
        regimes = []
        for label, name in enumerate(fit.names):
            sub = rr[rr["regime"] == name]
            rsub = reps[reps["regime"] == name]
            regimes.append({
                "regime": name, "mean": fit.means[label], "sd": fit.sds[label], "weight": fit.weights[label],
                "n_conditions": int((cond["regime_label"] == label).sum()),
                "n_at_chance": int(((cond["regime_label"] == label) & cond["at_chance"]).sum()),
                "human_baseline": _py(sub["human_baseline"].iloc[0]) if len(sub) else None,
                "representatives": [{"experiment": e, "condition": c, "ood_score": s}
                                    for e, c, s in zip(rsub["experiment"], rsub["condition"], rsub["ood_score"])],
                "models": [{k: _py(v) for k, v in r.items() if k not in ("regime", "human_baseline", "n_at_chance")}
                           for r in sub.to_dict("records")],
            })
        return {
            "conditions": conditions,
            "regimes": regimes,
            "regime_selection": {"criterion": fit.criterion, "n_components": fit.n_components,
                                 "candidates": self.spectrum.regimes.criteria_frame().to_dict("records")},
            "reference": {"conditions": self.spectrum.reference, "mean_logit": self.spectrum.reference_mean,
                          "sd_logit": self.spectrum.reference_sd},
            "normality": self.spectrum.normality.to_dict("records"),
            "tests": {"family_profiles": _perm_dict(self.family_test, families=self.alignment.settings["families"]),
                      "regime_vs_distortion": _perm_dict(self.regime_test)},
            "settings": self.settings,
        }


def _py(v):
    if isinstance(v, (np.bool_, bool)):
        return bool(v)
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (np.floating, float)):
        return None if not np.isfinite(v) else float(v)
    return v


def _perm_dict(res: PermutationResult, **extra) -> dict:
    d = {k: _py(v) for k, v in res.__dict__.items()}
    d.update(extra)
    return d


def ood_analysis(
    trials: pd.DataFrame,
    reference=None,
    *,
    families: Mapping[str, str] | None = None,
    regimes: int | str = "bic",
    max_regimes: int = 4,
    n_init: int = 20,
    alpha: float = 0.05,
    mw_variant: str = "asymptotic",
    logit_correction: str = "half",
    n_resamples: int = 1000,
    n_observer_resamples: int = 500,
    n_permutations: int = 9999,
    level: float = 0.95,
    seed: SeedLike = 0,
    policy: UndefinedPolicy | str = UndefinedPolicy.STRICT,
    ma_undefined: str = "nan",
    cled_alpha: float = 0.5,
    cled_mixture: str = "average",
    cled_log_base: float | None = None,
) -> OODResult:
    """The full issue-4 analysis: :func:`ood_spectrum`, :func:`ood_alignment` and the two permutation tests.

    ``n_resamples``: item resamples for the alignment intervals; ``n_observer_resamples``: observer
    resamples for the regime stability (see :func:`ood_spectrum`). ``families``: ``{model: family}`` (default
    :data:`DEFAULT_FAMILIES`; a model missing from the mapping is its own family). Seeds: one Generator
    from ``seed`` is split into independent streams for the observer bootstrap, the item bootstrap and
    the two permutation tests.
    """
    trials = validate_trials(trials)
    rng = make_rng(seed)
    s_spec, s_align, s_fam, s_reg = rng.spawn(4)
    spectrum = ood_spectrum(trials, reference, regimes=regimes, max_regimes=max_regimes, n_init=n_init,
                            alpha=alpha, mw_variant=mw_variant, logit_correction=logit_correction,
                            n_observer_resamples=n_observer_resamples, level=level, seed=s_spec, validate=False)
    alignment = ood_alignment(trials, spectrum, families=families, n_resamples=n_resamples, level=level,
                              seed=s_align, policy=policy, ma_undefined=ma_undefined, cled_alpha=cled_alpha,
                              cled_mixture=cled_mixture, cled_log_base=cled_log_base, validate=False)
    profiles = alignment_profiles(alignment)
    fam = alignment.settings["families"]
    if len(profiles) >= 2 and profiles.shape[1] > 0:
        family_test = within_vs_between_groups(profiles.to_numpy(), [fam[m] for m in profiles.index],
                                               n_permutations=n_permutations, seed=s_fam)
    else:
        family_test = PermutationResult(*([np.nan] * 2), n_permutations, "greater", *([np.nan] * 4),
                                        reason="fewer than two models with a complete profile",
                                        name="between minus within mean distance")
    cond = spectrum.conditions
    d = condition_cled_matrix(trials, cond, alpha=cled_alpha, mixture=cled_mixture, log_base=cled_log_base)
    ok = np.isfinite(cond["ood_score"].to_numpy()) & np.all(np.isfinite(d) | np.eye(len(d), dtype=bool), axis=1)
    idx = np.flatnonzero(ok)
    regime_test = grouping_contrast_cohens_d(
        d[np.ix_(idx, idx)], cond["regime_label"].to_numpy()[idx], cond["experiment"].to_numpy()[idx],
        n_permutations=n_permutations, seed=s_reg)
    settings = {**spectrum.settings, **alignment.settings, "n_permutations": n_permutations,
                "seed": seed if isinstance(seed, int) else None}
    return OODResult(spectrum, alignment, family_test, regime_test, d, profiles, settings)
