"""Gaussian-mixture regimes of OOD scores (Xu et al.; docs/measures/ood-spectrum.md): the fit, its selection by BIC / AICc, its
guards against degenerate components, and the starts of its EM.

Their stability under bootstrap resamples lives in :mod:`humanlike.measures.ood.regime_stability`; the EM both
run (compiled, rows in threads) in :mod:`humanlike.measures.ood.mixture_em`.
Pure numerics; pandas only inside ``to_frame``. Randomness only through an explicit seed (a Generator from
:func:`humanlike.resampling.rng.make_rng`).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from ...resampling.rng import SeedLike, make_rng
from ...trials.streams import generator

REGIME_NAMES = ("reference", "near-OOD", "far-OOD", "extreme-OOD")

# ----------------------------------------------------------------------------------------- regimes


def regime_names(m: int) -> tuple[str, ...]:
    """Names of ``m`` mean-ordered components: the first of REGIME_NAMES, then 'OOD-5', 'OOD-6', ...

    Parameters
    ----------
    m : int
        Number of components.

    Returns
    -------
    tuple of str

    Examples
    --------
    >>> regime_names(5)
    ('reference', 'near-OOD', 'far-OOD', 'extreme-OOD', 'OOD-5')
    """
    return tuple(REGIME_NAMES[i] if i < len(REGIME_NAMES) else f"OOD-{i + 1}" for i in range(m))


def gmm_n_parameters(m):
    """Free parameters of a 1-D Gaussian mixture with m components: m means, m variances, m-1 weights.

    Parameters
    ----------
    m : int or array_like of int
        Number(s) of components.

    Returns
    -------
    numpy.ndarray of int
        ``3 m - 1`` (0-d for a scalar).

    Examples
    --------
    >>> gmm_n_parameters([1, 2, 3]).tolist()
    [2, 5, 8]
    """
    return 3 * np.asarray(m) - 1


def _aicc(loglik, k, n):
    aic = -2.0 * loglik + 2.0 * k
    den = n - k - 1
    return aic + 2.0 * k * (k + 1) / den if den > 0 else float("nan")


@dataclass(frozen=True)
class RegimeFit:
    """A 1-D Gaussian mixture on OOD scores, components ordered by mean and named.

    ``labels[j]`` is the (mean-ordered, see ``order``) component of score j, -1 for a non-finite score.
    ``stability[j]`` is the share of the ``n_init`` seeded initialisations (of the chosen m) whose
    mean-ordered labelling puts score j in its final regime (NaN for non-finite scores).
    ``candidates``/``log_likelihood``/``n_parameters``/``bic``/``aicc`` describe every m tried (NaN where m
    was skipped). Label 0 is 'reference'.

    Attributes
    ----------
    scores : numpy.ndarray
        The scores as given (flattened).
    labels : numpy.ndarray of int
        Component per score (0 = 'reference'), -1 for non-finite scores.
    names : tuple of str
        Regime name per component.
    means, sds, weights : numpy.ndarray
        Mixture parameters per component, mean-ordered.
    candidates : numpy.ndarray of int
        Numbers of components tried.
    log_likelihood, n_parameters, bic, aicc : numpy.ndarray
        Per candidate (NaN where skipped).
    n_components : int
        The chosen number of components.
    criterion : str
        ``"bic"``, ``"aicc"`` or ``"fixed"``.
    stability : numpy.ndarray
        Share of initialisations agreeing with each score's label.
    n_init : int
        Initialisations per candidate.
    converged : bool
        Whether the chosen fit's EM converged.
    order : str
        ``"descending"`` or ``"ascending"`` mean order.

    Examples
    --------
    >>> scores = [0.1, -0.1, 0.0, 0.2, -4.1, -3.9, -4.0, -4.2, float("nan")]
    >>> fit = fit_regimes(scores, max_components=2, n_init=3, seed=0)
    >>> fit.n_components, fit.means.round(2).tolist(), fit.labels.tolist()
    (2, [0.05, -4.05], [0, 0, 0, 0, 1, 1, 1, 1, -1])
    >>> fit.regimes.tolist()[3:5]
    ['reference', 'near-OOD']
    """

    scores: np.ndarray
    labels: np.ndarray
    names: tuple[str, ...]
    means: np.ndarray
    sds: np.ndarray
    weights: np.ndarray
    candidates: np.ndarray
    log_likelihood: np.ndarray
    n_parameters: np.ndarray
    bic: np.ndarray
    aicc: np.ndarray
    n_components: int
    criterion: str
    stability: np.ndarray
    n_init: int
    converged: bool
    order: str = "descending"

    @property
    def regimes(self) -> np.ndarray:
        """Regime name per score ('' for non-finite scores)."""
        names = np.array(self.names + ("",), dtype=object)
        return names[self.labels]

    def predict(self, scores) -> np.ndarray:
        """Mean-ordered component of new scores under the fitted mixture (-1 for non-finite).

        Parameters
        ----------
        scores : array_like of float
            New OOD scores.

        Returns
        -------
        numpy.ndarray of int
            The most probable component per score.

        Examples
        --------
        >>> scores = [0.1, -0.1, 0.0, 0.2, -4.1, -3.9, -4.0, -4.2, float("nan")]
        >>> fit = fit_regimes(scores, max_components=2, n_init=3, seed=0)
        >>> fit.predict([0.3, -3.5, float("inf")]).tolist()
        [0, 1, -1]
        """
        return assign_components(np.asarray(scores, dtype=float), self.means, self.sds**2, self.weights)

    def to_frame(self):
        """One row per score: score, label, regime, stability.

        Returns
        -------
        pandas.DataFrame
            Columns ``index``, ``score``, ``label``, ``regime``, ``stability``, ``n_components``, ``criterion``.
        """
        import pandas as pd

        return pd.DataFrame(
            {
                "index": np.arange(self.scores.size),
                "score": self.scores,
                "label": self.labels,
                "regime": self.regimes,
                "stability": self.stability,
                "n_components": self.n_components,
                "criterion": self.criterion,
            }
        )

    def components_frame(self):
        """One row per mixture component: mean, SD, weight and number of conditions.

        Returns
        -------
        pandas.DataFrame
            Columns ``label``, ``regime``, ``mean``, ``sd``, ``weight``.

        Examples
        --------
        >>> scores = [0.1, -0.1, 0.0, 0.2, -4.1, -3.9, -4.0, -4.2, float("nan")]
        >>> fit = fit_regimes(scores, max_components=2, n_init=3, seed=0)
        >>> fit.components_frame()["weight"].tolist()
        [0.5, 0.5]
        """
        import pandas as pd

        return pd.DataFrame(
            {"label": np.arange(self.n_components), "regime": self.names, "mean": self.means, "sd": self.sds,
             "weight": self.weights}
        )

    def criteria_frame(self):
        """The information criteria (BIC, AICc) of every number of regimes fitted.

        Returns
        -------
        pandas.DataFrame
            Columns ``m``, ``log_likelihood``, ``n_parameters``, ``bic``, ``aicc``, ``chosen``.

        Examples
        --------
        >>> scores = [0.1, -0.1, 0.0, 0.2, -4.1, -3.9, -4.0, -4.2, float("nan")]
        >>> fit = fit_regimes(scores, max_components=2, n_init=3, seed=0)
        >>> fit.criteria_frame()[["m", "n_parameters", "chosen"]].values.tolist()
        [[1, 2, False], [2, 5, True]]
        """
        import pandas as pd

        return pd.DataFrame(
            {"m": self.candidates, "log_likelihood": self.log_likelihood, "n_parameters": self.n_parameters,
             "bic": self.bic, "aicc": self.aicc, "chosen": self.candidates == self.n_components}
        )


def _normal_logpdf(x, mu, var):
    return -0.5 * (np.log(2.0 * np.pi * var) + (x - mu) ** 2 / var)


def assign_components(x, means, variances, weights) -> np.ndarray:
    """Argmax posterior component of each x (components assumed mean-ordered); -1 for non-finite x.

    Parameters
    ----------
    x : array_like of float
        Scores, any shape (``...``); non-finite ones get -1.
    means, variances, weights : numpy.ndarray
        Mixture parameters, components on the last axis, broadcast against ``x[..., None]``.

    Returns
    -------
    numpy.ndarray of int
        The most probable component of each score (shape of ``x``).

    Examples
    --------
    >>> assign_components([0.2, -3.9, float("nan")], np.array([0.0, -4.0]), np.array([1.0, 1.0]),
    ...                   np.array([0.5, 0.5])).tolist()
    [0, 1, -1]
    """
    x = np.asarray(x, dtype=float)
    finite = np.isfinite(x)
    xs = np.where(finite, x, 0.0)[..., None]
    logp = np.log(weights) + _normal_logpdf(xs, means, variances)
    return np.where(finite, np.argmax(logp, axis=-1), -1)


def mean_order_key(means, order: str):
    """The sort key that puts mixture components in ``order`` of their means ('reference' first).

    Parameters
    ----------
    means : numpy.ndarray
        Component means.
    order : {"descending", "ascending"}
        Which end is 'reference': the highest mean (``"descending"``) or the lowest.

    Returns
    -------
    numpy.ndarray
        ``-means`` or ``means``: ``numpy.argsort`` of it gives the component order.

    Examples
    --------
    >>> np.argsort(mean_order_key(np.array([-4.0, 0.1, -1.5]), "descending")).tolist()
    [1, 2, 0]
    """
    return -means if order == "descending" else means


def _fit_one(X, m, random_state, reg_covar, max_iter, tol, order, init_params):
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.mixture import GaussianMixture

    gm = GaussianMixture(
        n_components=m, covariance_type="full", n_init=1, random_state=random_state,
        reg_covar=reg_covar, max_iter=max_iter, tol=tol, init_params=init_params,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        gm.fit(X)
    means = gm.means_.ravel()
    idx = np.argsort(mean_order_key(means, order), kind="stable")
    params = (means[idx], gm.covariances_.ravel()[idx], gm.weights_.ravel()[idx])
    return float(gm.score(X) * X.shape[0]), params, bool(gm.converged_)


def _fit_starts(x, m, rng, n_init, reg_covar, max_iter, tol, order):
    """EM from ``n_init`` starts at once (vectorised over starts), each run to convergence.

    Starts: the first at evenly spaced quantiles of the scores, the others by k-means++ seeding and 10
    k-means steps; every
    start with the scores' variance and equal weights. Returns [(log-likelihood, (means, variances, weights)
    mean-ordered, converged)] per start.
    """
    from .mixture_em import em_rows_in_threads

    n = x.size
    mu0 = np.empty((1, n_init, m))
    mu0[0, 0] = np.quantile(x, (np.arange(m) + 0.5) / m)
    if n_init > 1:
        # k-means++ seeding, vectorised over starts: each next mean is a score drawn with probability
        # proportional to its squared distance from the nearest mean chosen so far
        u = rng.random((n_init - 1, m))
        chosen = np.empty((n_init - 1, m))
        chosen[:, 0] = x[np.minimum((u[:, 0] * n).astype(int), n - 1)]
        for j in range(1, m):
            d2 = np.min((x[None, :, None] - chosen[:, None, :j]) ** 2, axis=2)
            cum = np.cumsum(d2, axis=1)
            total = cum[:, -1:]
            pick = np.where(total[:, 0] > 0, np.argmax(cum >= u[:, j:j + 1] * total, axis=1),
                            np.minimum((u[:, j] * n).astype(int), n - 1))
            chosen[:, j] = x[pick]
        for _ in range(10):   # a few Lloyd (k-means) steps from the seeds, as k-means initialisation does
            onehot = np.eye(m)[np.argmin(np.abs(x[None, :, None] - chosen[:, None, :]), axis=2)]
            counts = onehot.sum(axis=1)
            chosen = np.where(counts > 0, np.einsum("snm,n->sm", onehot, x) / np.maximum(counts, 1), chosen)
        mu0[0, 1:] = chosen
    var0 = np.full((1, n_init, m), max(float(np.var(x)), reg_covar) + reg_covar)
    w0 = np.full((1, n_init, m), 1.0 / m)
    pm, pv, pw = _partition_starts(np.sort(x), m, rng, reg_covar)
    mu0 = np.concatenate([mu0, pm[None]], axis=1)
    var0 = np.concatenate([var0, pv[None]], axis=1)
    w0 = np.concatenate([w0, pw[None]], axis=1)
    # one row per start, so that each start stops as soon as it has converged
    n_starts = mu0.shape[1]
    rows = np.broadcast_to(x, (n_starts, n))
    mu, var, w, ll = em_rows_in_threads(rows, np.ones((n_starts, n), dtype=bool), mu0.reshape(n_starts, 1, m),
                                 var0.reshape(n_starts, 1, m), w0.reshape(n_starts, 1, m), reg_covar, max_iter, tol)
    runs = []
    for i in range(n_starts):
        idx = np.argsort(mean_order_key(mu[i, 0], order), kind="stable")
        runs.append((float(ll[i, 0]), (mu[i, 0][idx], var[i, 0][idx], w[i, 0][idx]), True))
    return runs[:n_init], max(runs, key=lambda r: r[0])


MAX_PARTITION_STARTS = 500


def _partition_starts(xs, m, rng, reg_covar):
    """Starts from contiguous partitions of the sorted scores into m segments (segment mean, variance, share):
    all of them when there are at most :data:`MAX_PARTITION_STARTS`, else that many drawn at random. In one
    dimension every mixture optimum is close to such a partition, so the search cannot miss a tight group."""
    from itertools import combinations
    from math import comb

    n = xs.size
    if m == 1 or n < m:
        return np.zeros((0, m)), np.zeros((0, m)), np.zeros((0, m))
    if comb(n - 1, m - 1) <= MAX_PARTITION_STARTS:
        cuts = np.array(list(combinations(range(1, n), m - 1)), dtype=int).reshape(-1, m - 1)
    else:
        keys = rng.random((MAX_PARTITION_STARTS, n - 1))
        cuts = np.sort(np.argsort(keys, axis=1)[:, :m - 1] + 1, axis=1)
    bounds = np.concatenate([np.zeros((len(cuts), 1), int), cuts, np.full((len(cuts), 1), n)], axis=1)
    c1 = np.concatenate([[0.0], np.cumsum(xs)])
    c2 = np.concatenate([[0.0], np.cumsum(xs * xs)])
    size = np.diff(bounds, axis=1).astype(float)
    s1 = c1[bounds[:, 1:]] - c1[bounds[:, :-1]]
    s2 = c2[bounds[:, 1:]] - c2[bounds[:, :-1]]
    mean = s1 / size
    var = np.maximum(s2 / size - mean**2, 0.0) + reg_covar
    return mean, var, size / n


def fit_regimes(
    scores,
    n_components: int | None = None,
    criterion: str = "bic",
    max_components: int = 4,
    n_init: int = 20,
    seed: SeedLike = None,
    reg_covar: float = 1e-6,
    max_iter: int = 3000,
    tol: float = 1e-8,
    order: str = "descending",
    init_params: str = "random-points",
    min_component_size: int = 3,
    min_sd_fraction: float = 0.02,
) -> RegimeFit:
    """Gaussian-mixture regimes of 1-D OOD scores (sklearn ``GaussianMixture``), ordered by mean.

    For each candidate m = 1..``max_components`` (plus ``n_components`` if larger), ``n_init`` EM fits from
    seeded starts (``init_params='random-points'``, default: one start at evenly spaced quantiles, the others
    by k-means++ seeding, plus every contiguous partition of the sorted scores into m segments (or 500 drawn
    at random when there are more), all EM runs vectorised; ``'sklearn'``: sklearn's ``GaussianMixture`` with
    k-means++ seeding, one fit per start); the fit with the highest log-likelihood is kept. ``reg_covar`` (added to every variance)
    keeps a component from collapsing onto one score; a lone far-off score can still earn its own
    component under BIC/AICc.
    m is chosen by ``criterion``: ``'bic'`` (``-2 lnL + k ln n``) or ``'aicc'`` (``AIC + 2k(k+1)/(n-k-1)``),
    with k = 3m - 1 free parameters; candidates with more components than distinct scores are skipped, and
    for AICc also those with ``n - k - 1 <= 0``. A given ``n_components`` overrides the criterion
    (``criterion`` is then reported as ``'fixed'``; the criteria are still computed for every candidate).

    Components are ordered by mean and named 'reference', 'near-OOD', 'far-OOD', 'extreme-OOD', then
    'OOD-5', ... ``order='descending'`` (default) puts the highest mean first: Glass's delta of
    condition minus reference is ~0 for the reference and negative for harder conditions. Use
    ``'ascending'`` for scores where larger means further out of distribution.

    Degenerate components are guarded in two ways. A variance floor: every component variance gets
    ``max(reg_covar, (min_sd_fraction * SD of the scores)^2)`` added (sklearn's ``reg_covar``), so no
    component can shrink onto a few nearly equal scores (default: 2% of the spread). A minimum size: a
    candidate m > 1 whose best fit assigns fewer than ``min_component_size`` scores to some component is not
    eligible for BIC / AICc (its criteria are still reported), so singleton or two-point components cannot win
    on small inputs. EM runs to convergence (``tol`` 1e-8 on the mean log-likelihood, up to ``max_iter``
    iterations), from ``n_init`` seeded starts per m.

    Assignment stability: every initialisation of the chosen m is mean-ordered (which aligns components
    across initialisations) and the share agreeing with the final label is reported per score.
    Non-finite scores are left out of the fit (label -1, stability NaN).

    Parameters
    ----------
    scores : array_like of float
        OOD scores (e.g. Glass's delta per condition); non-finite ones are left out.
    n_components : int, optional
        Fix the number of components instead of choosing it.
    criterion : {"bic", "aicc"}, default "bic"
        How the number of components is chosen.
    max_components : int, default 4
        Largest number of components tried.
    n_init : int, default 20
        Seeded EM starts per candidate.
    seed : int, numpy.random.Generator, numpy.random.SeedSequence or None
        Seed of the starts.
    reg_covar : float, default 1e-6
        Smallest variance added to every component.
    max_iter : int, default 3000
        EM iteration cap.
    tol : float, default 1e-8
        EM convergence tolerance on the mean log-likelihood.
    order : {"descending", "ascending"}, default "descending"
        Which mean is 'reference'.
    init_params : {"random-points", "sklearn"}, default "random-points"
        How the starts are made (see above).
    min_component_size : int, default 3
        Fewest scores a component of an eligible candidate must hold.
    min_sd_fraction : float, default 0.02
        Variance floor as a fraction of the scores' SD.

    Returns
    -------
    RegimeFit
        The chosen mixture, its labels and the criteria of every candidate.

    Raises
    ------
    ValueError
        For an invalid ``order``, ``criterion``, ``n_components``, ``max_components``, ``n_init`` or guard
        setting, no finite score, or no valid candidate.

    Notes
    -----
    docs/measures/ood-spectrum.md (regimes; AICc = AIC + 2k(k+1)/(n-k-1)).

    Examples
    --------
    Two tight groups: each component has mean 0.05 or -4.05 and SD sqrt(0.0125 + (0.02 * 2.05)^2) = 0.119
    (the group's own variance plus the floor of 2% of the overall SD).

    >>> scores = [0.1, -0.1, 0.0, 0.2, -4.1, -3.9, -4.0, -4.2, float("nan")]
    >>> fit = fit_regimes(scores, max_components=2, n_init=3, seed=0)
    >>> fit.criterion, fit.n_components, fit.sds.round(3).tolist()
    ('bic', 2, [0.119, 0.119])
    """
    if order not in ("descending", "ascending"):
        raise ValueError(f"order must be 'descending' or 'ascending', got {order!r}")
    if criterion not in ("bic", "aicc"):
        raise ValueError(f"criterion must be 'bic' or 'aicc', got {criterion!r}")
    if max_components < 1 or n_init < 1:
        raise ValueError("max_components and n_init must be >= 1")
    s = np.asarray(scores, dtype=float).ravel()
    finite = np.isfinite(s)
    x = s[finite]
    n = x.size
    if n == 0:
        raise ValueError("fit_regimes needs at least one finite score")
    n_unique = np.unique(x).size
    if n_components is not None:
        if n_components < 1:
            raise ValueError("n_components must be >= 1")
        if n_components > n_unique:
            raise ValueError(f"n_components={n_components} exceeds the {n_unique} distinct finite scores")
    if min_component_size < 1 or not 0 <= min_sd_fraction < 1:
        raise ValueError("min_component_size must be >= 1 and min_sd_fraction in [0, 1)")
    rng = make_rng(seed)
    seeds = rng.integers(0, 2**31 - 1, size=n_init)
    start_seed = int(rng.integers(0, 2**31 - 1))
    rng_for_starts = lambda m: generator([start_seed, m])  # noqa: E731 - same starts for a given m
    X = x[:, None]
    spread = float(np.std(x)) if n > 1 else 0.0
    reg_covar = max(float(reg_covar), (min_sd_fraction * spread) ** 2)
    eligible = np.zeros(max(max_components, n_components or 0), dtype=bool)
    best_runs: dict[int, tuple] = {}

    top = max(max_components, n_components or 0)
    candidates = np.arange(1, top + 1)
    k_par = gmm_n_parameters(candidates)
    loglik = np.full(candidates.size, np.nan)
    bic = np.full(candidates.size, np.nan)
    aicc = np.full(candidates.size, np.nan)
    fits: dict[int, list] = {}
    for idx, m in enumerate(candidates):
        m = int(m)
        if m > n_unique:
            continue
        if n_components is None and criterion == "aicc" and n - k_par[idx] - 1 <= 0:
            continue
        if init_params == "sklearn":
            runs = [_fit_one(X, m, int(sd), reg_covar, max_iter, tol, order, "k-means++") for sd in seeds]
        else:
            runs, best_run = _fit_starts(x, m, rng_for_starts(m), n_init, reg_covar, max_iter, tol, order)
            best_runs[m] = best_run
        fits[m] = runs
        best_run = best_runs.get(m, max(runs, key=lambda r: r[0]))
        best, best_params = best_run[0], best_run[1]
        sizes = np.bincount(assign_components(x, *best_params), minlength=m)
        eligible[idx] = m == 1 or sizes.min() >= min_component_size
        loglik[idx] = best
        bic[idx] = -2.0 * best + k_par[idx] * np.log(n)
        aicc[idx] = _aicc(best, k_par[idx], n)

    if n_components is not None:
        chosen, crit_name = int(n_components), "fixed"
    else:
        crit = np.where(eligible, bic if criterion == "bic" else aicc, np.nan)
        if np.all(np.isnan(crit)):
            raise ValueError(f"no candidate number of components is valid for {criterion} with n={n}")
        chosen, crit_name = int(candidates[np.nanargmin(crit)]), criterion

    runs = fits[chosen]
    best_run = best_runs.get(chosen, max(runs, key=lambda r: r[0]))
    means, variances, weights = best_run[1]
    final = assign_components(x, means, variances, weights)
    agree = np.mean([assign_components(x, *r[1]) == final for r in runs], axis=0)

    labels = np.full(s.size, -1, dtype=np.int64)
    labels[finite] = final
    stability = np.full(s.size, np.nan)
    stability[finite] = agree
    return RegimeFit(
        scores=s,
        labels=labels,
        names=regime_names(chosen),
        means=means,
        sds=np.sqrt(variances),
        weights=weights,
        candidates=candidates,
        log_likelihood=loglik,
        n_parameters=k_par,
        bic=bic,
        aicc=aicc,
        n_components=chosen,
        criterion=crit_name,
        stability=stability,
        n_init=int(n_init),
        converged=bool(best_run[2]),
        order=order,
    )
