"""DVC of models' decision margins with humans' correctness: the probit variant.

For models with decision margins (docs/measures/decision-variable-correlation.md): per condition, the model's
margin standardised within the condition is a known continuous DV; the probit regression of a human's
correctness on it gives the latent correlation rho = beta / sqrt(1 + beta^2). Replicates take one Newton step
from the full-data fit under the resample's weights (the one-step bootstrap; same first-order accuracy, exact
weighted sums), so the whole bootstrap is one matrix product per condition. Aggregated like the tetrachoric
view (:mod:`humanlike.measures.dvc.choices_benchmark`); the choice views are in
:mod:`humanlike.measures.dvc.choices`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...trials.design import Stratum, build_design, observer_kinds
from ...trials.schema import TrialTableError
from .choices_benchmark import LatentBenchmarkResult, benchmark_aggregate, benchmark_plan
from .choices_metric import probit_fit, probit_score, rho_from_probit
from ...resampling.engine import bootstrap
from ...resampling.kernels import Output, SufficientStatisticKernel
from ...resampling.settings import ResamplingSettings
from ...trials.selection import select_trials


class _MarginProbitKernel(SufficientStatisticKernel):
    """Per stratum and (model with margins, human) pair: the probit score and information of each item at
    the pair's full-data fit; a resample's one-step estimate is a weighted sum of them.

    Parameters
    ----------
    kinds : dict of str to str
        ``{observer: "human" or "model"}``.
    """

    measure = "margin-probit correlation"  # names the engine's undefined-share warning

    def __init__(self, kinds: dict):
        super().__init__()
        self.kinds = kinds
        self.fits: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}

    def pairs(self, stratum: Stratum):
        """(model, human) column pairs of a stratum whose model has decision margins."""
        margin = stratum.arrays.get("margin")
        obs = stratum.observers
        models = [k for k, o in enumerate(obs) if self.kinds[o] == "model" and margin is not None
                  and np.isfinite(margin[:, k]).any()]
        humans = [k for k, o in enumerate(obs) if self.kinds[o] == "human"]
        return [(m, h) for m in models for h in humans]

    def statistics(self, stratum: Stratum) -> np.ndarray:
        """Per-item sufficient statistics of one stratum (items x S); the engine forms weighted sums of them."""
        pairs = self.pairs(stratum)
        n = stratum.n_items
        if not pairs:
            self.fits[stratum.key] = (np.zeros(0), np.zeros(0))
            return np.zeros((n, 0))
        margin = stratum.arrays["margin"]
        observed = stratum.arrays["n_trials"] > 0
        m_idx = np.array([m for m, _ in pairs])
        h_idx = np.array([h for _, h in pairs])
        z = margin[:, m_idx].T                                              # (P, n)
        mask = np.isfinite(z) & observed[:, h_idx].T & observed[:, m_idx].T
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.nansum(np.where(mask, z, 0), axis=1, keepdims=True) / mask.sum(axis=1, keepdims=True)
            sd = np.sqrt(np.sum(np.where(mask, (z - mean) ** 2, 0), axis=1, keepdims=True) / mask.sum(axis=1, keepdims=True))
            z = np.where(mask, (z - mean) / sd, 0.0)
        y = (stratum.arrays["n_correct"][:, h_idx].T > 0).astype(float)
        w = mask.astype(float)
        alpha, beta = probit_fit(z, y, w)
        self.fits[stratum.key] = (alpha, beta)
        a0, b0 = np.nan_to_num(alpha), np.nan_to_num(beta)
        # Per-item score and information at the fit (zero weight where not observed).
        return np.concatenate([part.T for part in _item_terms(a0, b0, z, y, w)], axis=1)   # (n, 5P)

    def reduce(self, stratum, sums, observer_weights):
        """Per-stratum values from weighted sums of the statistics (R x S) -> (R x width)."""
        alpha, beta = self.fits[stratum.key]
        p = alpha.size
        if p == 0:
            return np.zeros((sums.shape[0], 0))
        g_a, g_b, i_aa, i_ab, i_bb = (sums[:, k * p:(k + 1) * p] for k in range(5))
        det = i_aa * i_bb - i_ab ** 2
        with np.errstate(invalid="ignore", divide="ignore"):
            step_b = (i_aa * g_b - i_ab * g_a) / det
        return rho_from_probit(beta + step_b)


def _item_terms(alpha, beta, z, y, w):
    """Per-item probit score (2) and information (3) terms at (alpha, beta): five (P, n) arrays."""
    # probit_score sums over items; evaluate it item by item through a trailing axis of length 1.
    grad, info = probit_score(alpha[:, None], beta[:, None], z[..., None], y[..., None], w[..., None])
    return grad[0], grad[1], info[0], info[1], info[2]


def margin_probit_correlation(trials: pd.DataFrame, *, experiments: list[str] | None = None,
                              exclusions: dict | None = None, pair_intervals: bool = False,
                              settings: ResamplingSettings | None = None,
                              validate: bool = True) -> LatentBenchmarkResult:
    """Latent correlation of each model's decision margin with each human's correctness (probit variant).

    Per (experiment, condition) and (model, human): the model's margin standardised within the condition
    (over the items both answered) is z, the human's correctness y; the probit fit
    P(correct | z) = Phi(alpha + beta z) gives rho = beta / sqrt(1 + beta^2). Mean over conditions per pair,
    over humans per model (group = the model), over experiments. Models without margins are left out.

    Parameters
    ----------
    trials : pandas.DataFrame
        A trial table whose models have a ``decision_margin`` column.
    experiments : list of str, optional
        Restrict to these experiments.
    exclusions : dict, optional
        ``{experiment: conditions}`` to drop first.
    pair_intervals : bool
        Also output every (model, human) pair's condition-averaged value.
    settings : ResamplingSettings, optional
        Resampling settings (``observer_level`` must be ``"none"``).
    validate : bool
        Validate the trial table first.

    Returns
    -------
    LatentBenchmarkResult
        One group per model (its mean over humans), per experiment and overall (metric ``"margin_probit"``).

    Raises
    ------
    ValueError
        When ``settings.observer_level`` is not ``"none"``.
    TrialTableError
        When the data have no decision margins, or no condition has both a model with margins and a human.

    Examples
    --------
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> trials = simulate_benchmark(seed=0)
    >>> result = margin_probit_correlation(trials, experiments=["sim-noise"],
    ...                                    settings=ResamplingSettings(n_resamples=20, seed=0))
    >>> result.groups().set_index("group")["estimate"].round(3).to_dict()
    {'model-alien': -0.055, 'model-humanlike': 0.535, 'model-medium': 0.32, 'model-strong': 0.384, 'model-texture': 0.197}
    """
    settings = settings or ResamplingSettings()
    if settings.observer_level != "none":
        raise ValueError("the probit view resamples items only (observer_level='none')")
    trials = select_trials(trials, experiments=experiments, exclusions=exclusions, validate=validate)
    if "decision_margin" not in trials or trials["decision_margin"].notna().sum() == 0:
        raise TrialTableError("no decision margins in the data: the probit view needs models with a "
                              "'decision_margin' column")
    kinds = observer_kinds(trials)
    design = build_design(trials, by=("experiment", "condition"), group_by=("experiment",), margins=True)
    kernel = _MarginProbitKernel(kinds)
    with_margins = {o for s in design for k, o in enumerate(s.observers)
                    if kinds[o] == "model" and np.isfinite(s.arrays["margin"][:, k]).any()}
    design = design.select(lambda s: bool(kernel.pairs(s)))
    if len(design) == 0:
        raise TrialTableError("no condition has both a model with margins and a human")

    def models_filter(observers, first, second):
        return np.array([(observers[a] in with_margins and kinds[observers[b]] == "human")
                         or (observers[b] in with_margins and kinds[observers[a]] == "human")
                         for a, b in zip(first, second)], dtype=bool)

    plan, labels_out = benchmark_plan(design, kinds, pair_intervals, models_filter)

    def per_stratum(stratum, rho_model_human):
        # Kernel columns are (model, human) pairs; map them onto the plan's (first, second) pair order.
        pairs = kernel.pairs(stratum)
        p = next(q for q in plan if q["experiment"] == stratum.key[0])
        index = {(min(m, h), max(m, h)): k for k, (m, h) in enumerate(pairs)}
        cols = [index.get((a, b)) for a, b in zip(p["first"], p["second"])]
        out = np.full((rho_model_human.shape[0], len(cols)), np.nan)
        have = [k for k, c in enumerate(cols) if c is not None]
        out[:, have] = rho_model_human[:, [cols[k] for k in have]]
        return out

    aggregate = benchmark_aggregate(design, plan, labels_out, per_stratum)
    output = Output(labels_out, ("scope", "group", "kind", "observer_1", "observer_2"))
    result = bootstrap(design, kernel, aggregate, output, settings)
    return LatentBenchmarkResult(result, "margin_probit")
