"""Kappa (error consistency) of two representations' cross-validated choices, beside their DVC.

Each system's images are classified by a K-way logistic regression on its first principal components,
stratified K-fold (:func:`cross_validated_choices`); the choices are then fixed, and the engine resamples the
images within class with the same strata and streams as the DVC (:func:`choice_kappa`, through
:class:`KappaKernel`), so the two intervals are paired. :func:`humanlike.measures.dvc.representations.dvc_representations`
reports it as ``DVCResult.kappa`` (docs/measures/decision-variable-correlation.md).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ..pairs.correctness_sums import consistency_from_sums, correctness_statistics
from ..pairs.kappa_bounds import kappa_bound_from_accuracy_difference
from ...resampling.engine import bootstrap
from ...resampling.kernels import Output, SufficientStatisticKernel
from ...resampling.results import Resampled
from ...resampling.rng import stream
from ...resampling.settings import ResamplingSettings
from .kernel import class_design
from .representations_options import DVCOptions
from .split import half_scores


def cross_validated_choices(features: np.ndarray, labels: np.ndarray, *, n_components: int, folds: int,
                            seed: int, standardize: bool = False, key: str = "A") -> np.ndarray:
    """Choices of a K-way logistic regression on the first principal components, stratified K-fold.

    The PCA (fitted on all images, unsupervised) reduces the units; the classifier (scikit-learn's
    multinomial ``LogisticRegression``, default L2 penalty) is fitted without each fold and predicts it.
    Returns the predicted label of every image.

    Parameters
    ----------
    features : numpy.ndarray
        (images x units) features.
    labels : numpy.ndarray of str
        Class of each image.
    n_components : int
        Principal components kept (at most min(features.shape) - 1).
    folds : int
        Stratified folds.
    seed : int
        Root seed of the PCA and the fold assignment.
    standardize : bool
        z-score units before the PCA.
    key : str
        Names the system in the PCA's random stream.

    Returns
    -------
    numpy.ndarray
        The predicted label of every image, shape (images,).

    Examples
    --------
    >>> from humanlike.measures.dvc.simulate import planted_representations
    >>> fa, fb, labels = planted_representations(rho=0.6, n_classes=3, n_per_class=150, seed=1)
    >>> choices = cross_validated_choices(fa, labels, n_components=5, folds=2, seed=0)
    >>> choices.shape, round(float((choices == labels).mean()), 3)
    ((450,), 0.862)
    """
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold

    rng = stream(seed, "dvc-kappa-pca", key)
    k = min(n_components, min(features.shape) - 1)
    z = half_scores(features, k, rng, standardize=standardize).astype(np.float64)
    choice = np.empty(labels.size, dtype=labels.dtype)
    splitter = StratifiedKFold(folds, shuffle=True, random_state=int(stream(seed, "dvc-kappa-folds").integers(2**31)))
    for train, test in splitter.split(z, labels):
        model = LogisticRegression(max_iter=2000)
        model.fit(z[train], labels[train])
        choice[test] = model.predict(z[test])
    return choice


class KappaKernel(SufficientStatisticKernel):
    """Engine kernel of the kappa of fixed choices: a class's sums of the correctness statistics.

    Examples
    --------
    >>> from humanlike.trials.design import Stratum
    >>> correct = np.array([[1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])          # images x statistics
    >>> stratum = Stratum(("dvc", "a"), np.arange(3).astype(str), ("A", "B"), {"correctness": correct})
    >>> KappaKernel().evaluate(stratum, np.array([[1.0, 1.0, 1.0], [0.0, 3.0, 0.0]]), None).tolist()
    [[2.0, 2.0], [3.0, 3.0]]
    """

    measure = "kappa"  # names the engine's undefined-share warning

    def statistics(self, stratum):
        """The correctness statistics of the class's images (items x S).

        Parameters
        ----------
        stratum : Stratum
            A class's stratum, with array ``"correctness"``.

        Returns
        -------
        numpy.ndarray
            (items x S) the class's correctness statistics.
        """
        return stratum.arrays["correctness"]

    def reduce(self, stratum, sums, observer_weights):
        """The sums themselves: kappa needs the totals over all classes (the aggregation adds them).

        Parameters
        ----------
        stratum : Stratum
            A class's stratum.
        sums : numpy.ndarray
            (R x S) weighted sums of the statistics.
        observer_weights : None
            Unused.

        Returns
        -------
        numpy.ndarray
            ``sums``, unchanged.
        """
        return sums


def choice_kappa(fa, fb, labels, classes, counts, options: DVCOptions, settings: ResamplingSettings) -> Resampled:
    """Kappa (error consistency) of the two systems' cross-validated choices, their accuracies and the bound.

    The choices are fixed; the engine resamples the images within class with the same weights as the DVC
    (the same strata and streams, so the two intervals are paired).

    Parameters
    ----------
    fa, fb : numpy.ndarray
        (images x units) features of the two systems, rows sorted by class.
    labels : numpy.ndarray of str
        Class of each image.
    classes : numpy.ndarray of str
        The sorted classes.
    counts : numpy.ndarray of int
        Images per class (in ``classes`` order).
    options : DVCOptions
        ``n_components``, ``kappa_folds`` and ``standardize`` are used.
    settings : ResamplingSettings
        Resamples, seed, level, memory budget.

    Returns
    -------
    Resampled
        Columns labelled (statistic,): ``kappa``, ``accuracy_a``, ``accuracy_b``, ``kappa_bound``.

    Examples
    --------
    >>> import numpy as np
    >>> from humanlike.measures.dvc.simulate import planted_representations
    >>> fa, fb, labels = planted_representations(rho=0.6, n_classes=3, n_per_class=150, seed=1)
    >>> classes, counts = np.unique(labels, return_counts=True)
    >>> kappa = choice_kappa(fa, fb, labels, classes, counts, DVCOptions(n_components=5, kappa_folds=2),
    ...                      ResamplingSettings(n_resamples=0, seed=0))
    >>> kappa.to_frame().set_index("statistic")["estimate"].round(3).to_dict()
    {'kappa': 0.369, 'accuracy_a': 0.862, 'accuracy_b': 0.84, 'kappa_bound': 0.956}
    """
    def choices(features, key):
        return cross_validated_choices(features, labels, n_components=options.n_components,
                                       folds=options.kappa_folds, seed=settings.seed,
                                       standardize=options.standardize, key=key) == labels

    if settings.threads > 1:
        # The two systems are independent (each PCA on one BLAS thread): the same numbers, on two cores.
        with ThreadPoolExecutor(max_workers=2) as pool:
            ca, cb = pool.map(choices, (fa, fb), ("A", "B"))
    else:
        ca, cb = choices(fa, "A"), choices(fb, "B")
    statistics, masked = correctness_statistics(np.column_stack([ca, cb]))
    bounds = np.concatenate([[0], np.cumsum(counts)])
    design = class_design(list(classes), counts,
                          [{"correctness": statistics[lo:hi]} for lo, hi in zip(bounds[:-1], bounds[1:])])
    keys = [s.key for s in design]

    def aggregate(values):
        r = max(np.shape(values[k])[0] for k in keys)
        sums = sum(np.broadcast_to(values[k], (r, statistics.shape[1])) for k in keys)
        out = consistency_from_sums(sums, 2, masked)
        kappa = out["error_consistency"][:, 0]
        acc = out["correct"] / out["answered"]
        bound = kappa_bound_from_accuracy_difference(np.clip(acc[:, 0] - acc[:, 1], -1, 1))
        return np.column_stack([kappa, acc[:, 0], acc[:, 1], bound])

    names = [("kappa",), ("accuracy_a",), ("accuracy_b",), ("kappa_bound",)]
    return bootstrap(design, KappaKernel(), aggregate, Output(names, ("statistic",)), settings)
