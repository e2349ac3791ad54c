"""OOD scores under resampling of the human observers (docs/measures/ood-spectrum.md): the replicates behind the
regime stability and the OOD-score intervals of :mod:`humanlike.measures.ood.spectrum`.

One multinomial draw of the humans of an experiment weights all its conditions; the reference pool is recomputed
from every resample.
"""

from __future__ import annotations

import numpy as np

from ...resampling.draws import observer_weights


def observer_bootstrap_scores(obs, keys, ref, n_boot: int, seed: int) -> np.ndarray:
    """OOD scores of every condition under resampling of the human observers within each experiment.

    One multinomial draw over the humans of an experiment weights all its conditions (the same people saw
    them); the reference mean and SD are recomputed from the weighted pool (frequency weights, ddof 1).
    Weights come from :func:`humanlike.resampling.draws.observer_weights` with the key ``("spectrum", experiment)``.
    Sums are taken around the data's reference mean, so a reference pool of (nearly) equal values gives an SD
    of 0 (an undefined score), not a rounding residue.

    Parameters
    ----------
    obs : pandas.DataFrame
        Per human and condition: experiment, condition, observer, logit (the spectrum's ``observers`` table).
    keys : list of tuple of str
        The (experiment, condition) of each output column.
    ref : dict
        ``{experiment: (reference conditions,)}``.
    n_boot : int
        Resamples.
    seed : int
        Root seed of the per-experiment observer weights.

    Returns
    -------
    numpy.ndarray
        (n_boot x len(keys)) OOD scores; NaN where undefined.

    Examples
    --------
    >>> from humanlike.measures.ood.spectrum import ood_spectrum
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> trials = simulate_benchmark(seed=0)
    >>> trials = trials[trials["experiment"] == "sim-noise"]
    >>> spectrum = ood_spectrum(trials, {"sim-noise": "0.00"}, n_observer_resamples=0)
    >>> keys = list(zip(spectrum.conditions["experiment"], spectrum.conditions["condition"]))
    >>> scores = observer_bootstrap_scores(spectrum.observers, keys, spectrum.reference, 20, seed=0)
    >>> scores.shape, bool((scores[:, 3] < scores[:, 1]).all())   # 0.35 stays further out than 0.10
    ((20, 4), True)
    """
    col = {k: j for j, k in enumerate(keys)}
    ref_rows = np.zeros(len(obs), dtype=bool)
    for e, cs in ref.items():
        ref_rows |= ((obs["experiment"] == e) & obs["condition"].isin(cs)).to_numpy()
    centre = float(np.mean(obs.loc[ref_rows, "logit"]))
    num = np.zeros((n_boot, len(keys)))
    den = np.zeros((n_boot, len(keys)))
    s0, s1, s2 = np.zeros(n_boot), np.zeros(n_boot), np.zeros(n_boot)
    for e, rows in obs.groupby("experiment", sort=True):
        wide = rows.pivot(index="observer", columns="condition", values="logit")
        x = wide.to_numpy(dtype=float) - centre
        mask = np.isfinite(x)
        x0 = np.where(mask, x, 0.0)
        w = observer_weights(seed, ("spectrum", str(e)), x.shape[0], 0, n_boot)
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
        var_ref = np.where(var_ref > 1e-20 * np.maximum(1.0, s2 / s0), var_ref, np.nan)
        scores = (mean_c - m_ref[:, None]) / np.sqrt(var_ref)[:, None]
    scores[~np.isfinite(scores)] = np.nan
    return scores
