"""Decision-variable correlation (DVC) of two representations of the same images (Qian, Geisler & Wei 2025).

Pipeline (docs/measures/decision-variable-correlation.md), per split repeat:

1. the units of each system are split at random into two halves (A1, A2; B1, B2), one stream per repeat;
2. each half is reduced to its first ``n_components`` principal components, **fitted on all images** (of all
   classes), units centred and, with ``standardize=True``, z-scored first (default: not z-scored, like
   scikit-learn's PCA). PCA is a randomized range finder (Halko et al. 2011) with ``pca_iterations`` power
   iterations; LDA only depends on the PC *subspace*, which that finds accurately;
3. per class pair (i, j) and half, a two-class LDA axis ``w = S^-1 (mu_j - mu_i)`` (pooled within-class
   covariance S), oriented so the class-j mean is above the class-i mean; an image's DV is
   ``w . (z - midpoint of the two training means)``, fitted in-sample or by stratified K-fold
   cross-validation (``cv=K``: each image's DV comes from the axis fitted without its fold);
4. within each class of the pair, the correlations of the DVs of the four halves (Pearson; Spearman as an
   option): the four cross-system ones and the two split-half reliabilities;
5. the split normalisation (signed by default; ``absolute=True`` is the paper's absolute-value formula; both
   are always computed and reported);
6. the mean over the 2 x C(K, 2) (class, pair) values, then the mean over split repeats.

Every quantity is a function of per-class weighted sums of the PCA scores ``z`` and ``z z'`` (including the
cross-covariances of A's and B's components). A bootstrap resample of images within class (paired: the same
images for both systems) is therefore one weight-matrix product per class, followed by batched solves over
resamples x class pairs x halves: the LDA is refitted in every resample, with no Python loop per resample. The
PCA basis stays fixed per split (it is fitted on all images, unsupervised).

Split repeats and the bootstrap: with ``split_bootstrap="rotate"`` (default) resample r goes through split
``r mod n_splits`` and is re-centred on that split's estimate, so its spread is the image-sampling spread of
*one* split's DVC — an upper bound on that of the split average (it is at least as variable), at 1/n_splits of
the cost. ``split_bootstrap="all"`` pushes every resample through every split (exact, n_splits times slower).
The spread over split repeats is reported separately (``split_sd``).

Here: the pipeline (:func:`dvc_representations`, :func:`representation_kernel`) and its result
(:class:`DVCResult`). Its options and input error are in :mod:`humanlike.measures.dvc.representations_options`,
the kappa of the two systems' cross-validated choices (``DVCResult.kappa``) in
:mod:`humanlike.measures.dvc.representations_kappa`.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ...trials.representations import Representation, align_representations
from ..measure_result import MeasureResult
from ...resampling.engine import bootstrap
from ...resampling.kernels import Output
from ...resampling.weights import nanmean_quiet
from ...resampling.results import Resampled
from ...resampling.rng import stream
from ...resampling.settings import ResamplingSettings
from .aggregation import DVCAggregation
from .kernel import HALVES, DVCKernel, View, class_design, class_scores
from .representations_kappa import choice_kappa
from .representations_options import DVCInputError, DVCOptions
from .split import run_pca_jobs, split_jobs

HALF_NAMES = ("A1", "A2", "B1", "B2")


@dataclass(frozen=True, repr=False)
class DVCResult(MeasureResult):
    """DVC of two representations with bootstrap intervals and the spread over split repeats.

    Attributes
    ----------
    resampled : Resampled
        Columns labelled (table, class_i, class_j, normalisation): the overall DVC (table ``"overall"``), per
        class pair (``"pair"``) and per class (``"class"``, class_j empty), for the signed and the absolute
        normalisation.
    kappa : Resampled or None
        Cohen's kappa (error consistency) of the two systems' cross-validated choices, their accuracies and
        the bound (1-d)^2/(1+d^2) for their accuracy difference d.
    split_values : pandas.DataFrame
        The overall DVC of every split repeat (both normalisations).
    options : DVCOptions
        The pipeline choices of the run.
    classes : list of str
        The classes, sorted.
    n_images : int
        Images analysed.
    names : tuple of str
        Names of the two systems (``("A", "B")`` for arrays).
    correlations : pandas.DataFrame
        Per class pair and side, the six within-class correlations between the halves.
    split_sd : numpy.ndarray or None
        SD over the split repeats of every column of :attr:`resampled`.

    Examples
    --------
    >>> from humanlike.measures.dvc.simulate import planted_representations
    >>> fa, fb, labels = planted_representations(rho=0.6, n_classes=3, n_per_class=150, seed=1)
    >>> result = dvc_representations(fa, fb, labels, n_components=5, n_splits=2, kappa_folds=0,
    ...                              settings=ResamplingSettings(n_resamples=20, seed=0))
    >>> round(result.dvc, 3), result.n_images, result.kappa is None   # planted rho = 0.6
    (0.586, 450, True)
    >>> result.table("class")["estimate"].round(3).tolist()
    [0.549, 0.617, 0.593]
    """

    resampled: Resampled
    kappa: Resampled | None
    split_values: pd.DataFrame
    options: DVCOptions
    classes: list[str]
    n_images: int
    names: tuple[str, str] = ("A", "B")
    correlations: pd.DataFrame = field(default_factory=pd.DataFrame, repr=False)
    split_sd: np.ndarray | None = field(default=None, repr=False)

    @property
    def normalisation(self) -> str:
        """Which split normalisation the estimate uses: ``signed`` or ``abs``."""
        return "abs" if self.options.absolute else "signed"

    scope_label = "table"

    @property
    def dvc(self) -> float:
        """The overall DVC under the chosen normalisation (one number; :attr:`estimate` holds every row's)."""
        row = self.table("overall")
        return float(row["estimate"].iloc[0])

    def table(self, which: str = "overall", normalisation: str | None = None) -> pd.DataFrame:
        """Tidy rows of one table (``"overall"``, ``"pair"``, ``"class"``) with estimate, interval, split SD.

        Parameters
        ----------
        which : {"overall", "pair", "class"}
            The table.
        normalisation : {"signed", "abs"}, optional
            Default: the result's own (:attr:`normalisation`).

        Returns
        -------
        pandas.DataFrame
            The rows of :meth:`summary_frame` of that table and normalisation.
        """
        frame = self.summary_frame()
        normalisation = normalisation or self.normalisation
        keep = (frame["table"] == which) & (frame["normalisation"] == normalisation)
        return frame[keep].reset_index(drop=True)

    def frame_rows(self, level: float | None = None, method: str | None = None) -> pd.DataFrame:
        """The tidy frame's rows (``scope`` is the table: overall, pair, class), with ``split_sd``.

        Parameters
        ----------
        level : float, optional
            Confidence level of ``ci_low``/``ci_high`` (default: the result's).
        method : {"percentile", "bca"}, optional
            Interval method (default: the result's).

        Returns
        -------
        pandas.DataFrame
            One row per estimate.
        """
        frame = self.resampled.to_frame(level, method)
        frame["split_sd"] = self.split_sd if self.split_sd is not None else np.nan
        return frame

    def summary_frame(self) -> pd.DataFrame:
        """The table ``humanlike dvc represent`` writes, one row per estimate.

        Returns
        -------
        pandas.DataFrame
            Columns table, class_i, class_j, normalisation, estimate, ci_low, ci_high, undefined_share, reason,
            split_sd.
        """
        return self.frame_rows()

    def to_json_dict(self) -> dict:
        """``dvc`` {estimate, ci_low, ci_high, split_sd}, the alternative normalisation, per pair and class
        tables, kappa and its bound, and the settings.

        Returns
        -------
        dict
            Keys names, n_images, classes, normalisation, dvc, dvc_abs or dvc_signed, pairs, classes_table,
            split_values, kappa (when computed) and settings.
        """
        overall = self.table("overall")
        other = self.table("overall", "signed" if self.options.absolute else "abs")

        def entry(row):
            return {"estimate": row["estimate"], "ci_low": row["ci_low"], "ci_high": row["ci_high"],
                    "split_sd": row["split_sd"], "undefined_share": row["undefined_share"]}

        doc = {"names": list(self.names), "n_images": self.n_images, "classes": self.classes,
               "normalisation": self.normalisation, "dvc": entry(overall.iloc[0]),
               ("dvc_abs" if not self.options.absolute else "dvc_signed"): entry(other.iloc[0])}
        pairs = self.table("pair")[["class_i", "class_j", "estimate", "ci_low", "ci_high", "split_sd"]]
        doc["pairs"] = pairs.rename(columns={"estimate": "dvc"}).to_dict("records")
        classes = self.table("class")[["class_i", "estimate", "ci_low", "ci_high", "split_sd"]]
        doc["classes_table"] = classes.rename(columns={"class_i": "class", "estimate": "dvc"}).to_dict("records")
        doc["split_values"] = self.split_values.to_dict("records")
        if self.kappa is not None:
            k = self.kappa.to_frame().set_index("statistic")
            doc["kappa"] = {name: {"estimate": k.loc[name, "estimate"], "ci_low": k.loc[name, "ci_low"],
                                   "ci_high": k.loc[name, "ci_high"]} for name in k.index}
        doc["settings"] = {**self.resampled.settings, **self.options.__dict__}
        return doc


# --------------------------------------------------------------------------------------------------
# Inputs
# --------------------------------------------------------------------------------------------------


def _inputs(a, b, labels):
    if isinstance(a, Representation) and isinstance(b, Representation):
        if labels is not None:
            raise DVCInputError("labels come with the representations; do not pass labels as well")
        a, b = align_representations(a, b)
        return a.features, b.features, a.labels, (a.name or "A", b.name or "B")
    if isinstance(a, Representation) or isinstance(b, Representation):
        raise DVCInputError("give two Representations, or two arrays and labels")
    if labels is None:
        raise DVCInputError("arrays need labels (one class label per image)")
    fa = np.asarray(a, dtype=np.float32)
    fb = np.asarray(b, dtype=np.float32)
    labels = np.asarray(labels).astype(str)
    for name, f in (("A", fa), ("B", fb)):
        if f.ndim != 2:
            raise DVCInputError(f"representation {name} must be 2-D (images x units), got shape {f.shape}")
        if f.shape[0] != labels.size:
            raise DVCInputError(f"representation {name} has {f.shape[0]} images but there are {labels.size} labels")
        if not np.isfinite(f).all():
            raise DVCInputError(f"representation {name} contains NaN or inf")
    return fa, fb, labels, ("A", "B")


def _check(fa, fb, labels, options: DVCOptions):
    classes, counts = np.unique(labels, return_counts=True)
    if classes.size < 2:
        raise DVCInputError(f"DVC needs at least two classes; got {list(classes)}")
    need = max(3, options.cv or 0, options.kappa_folds)
    small = classes[counts < need]
    if small.size:
        raise DVCInputError(f"class(es) {list(small)} have fewer than {need} images (needed for the "
                            "within-class correlations and the folds)")
    for name, f in (("A", fa), ("B", fb)):
        half = f.shape[1] // 2
        if half < options.n_components:
            raise DVCInputError(f"representation {name} has {f.shape[1]} units: a half has {half}, fewer than "
                                f"{options.n_components} principal components; use n_components <= {half}")
    if labels.size <= options.n_components + 2:
        raise DVCInputError(f"{labels.size} images are too few for {options.n_components} components")
    if counts.min() < 8 * options.n_components:
        # A resample repeats images; an LDA on few distinct images per component overfits more in the
        # resamples than in the data, which pushes the replicates (and the interval) away from the estimate.
        warnings.warn(f"class(es) with {counts.min()} images for {options.n_components} components per half: "
                      "the bootstrap interval can be biased; use n_components <= "
                      f"{max(1, counts.min() // 8)}", RuntimeWarning, stacklevel=3)
    return classes, counts


# --------------------------------------------------------------------------------------------------
# The analysis
# --------------------------------------------------------------------------------------------------


def dvc_representations(a, b, labels=None, *, options: DVCOptions | None = None,
                        settings: ResamplingSettings | None = None, **option_overrides) -> DVCResult:
    """Decision-variable correlation of two representations, with intervals through the whole pipeline.

    Parameters
    ----------
    a, b : Representation or (images, units) arrays
        The two systems' features of the same images. Representations are aligned on their item ids;
        arrays must have the same rows, and ``labels`` gives each row's class.
    labels : array of str, optional
        Class of each image (only with arrays).
    options : DVCOptions, optional
        Pipeline choices; keyword arguments (``n_components=10``, ``cv=5``, ...) override single fields.
    settings : ResamplingSettings, optional
        Resamples, level, interval (percentile or BCa), seed, memory budget (default: the engine's defaults).

    Returns
    -------
    DVCResult
        The overall, per-pair and per-class DVC with intervals and split SDs, and kappa.

    Raises
    ------
    DVCInputError
        On unusable inputs or options (e.g. a non-percentile interval).

    Examples
    --------
    >>> from humanlike.measures.dvc.simulate import planted_representations
    >>> fa, fb, labels = planted_representations(rho=0.6, n_classes=3, n_per_class=150, seed=1)
    >>> r = dvc_representations(fa, fb, labels, n_components=5, n_splits=2,
    ...                         settings=ResamplingSettings(n_resamples=0))
    >>> 0.4 < r.dvc < 0.8
    True
    """
    options = options or DVCOptions()
    if option_overrides:
        options = DVCOptions(**{**options.__dict__, **option_overrides})
    settings = settings or ResamplingSettings()
    if settings.observer_level != "none":
        raise DVCInputError("DVC resamples images only: observer_level must be 'none'")
    fa, fb, labels, names = _inputs(a, b, labels)
    order = np.argsort(labels, kind="stable")
    fa, fb, labels = fa[order], fb[order], labels[order]
    classes, counts = _check(fa, fb, labels, options)
    kernel = representation_kernel(fa, fb, classes, counts, options, settings)
    aggregation = DVCAggregation(kernel, cv=options.cv is not None, ridge=options.ridge,
                                 correlation=options.correlation, workers=settings.threads)
    design = class_design(list(classes), counts)
    point = {s.key: kernel.evaluate(s, np.ones((1, s.n_items))) for s in design}
    point_arrays = [point[key] for key in aggregation.keys]
    per_split = np.concatenate(aggregation.split_columns(point_arrays))          # (S, K)
    estimate = nanmean_quiet(per_split, axis=0)
    aggregation.recentre = (per_split, estimate)
    split_sd = (np.nanstd(per_split, axis=0, ddof=1) if per_split.shape[0] > 1 else np.full(estimate.size, np.nan))

    def reasons(values):
        return np.where(np.isnan(values), "every (class, pair) value undefined: "
                        "a split-half reliability is not positive", "")

    output = Output(aggregation.labels(), ("table", "class_i", "class_j", "normalisation"), reasons)
    summary = bootstrap(design, kernel, aggregation, output, settings)
    split_rows = pd.DataFrame({"split": np.arange(per_split.shape[0]), "dvc_signed": per_split[:, 0],
                               "dvc_abs": per_split[:, estimate.size // 2]})
    corr_mean = np.mean([aggregation.correlations(point_arrays, s, rotated=False)[0]
                         for s in range(aggregation.n_splits)], axis=0)             # (P, 2, 6)
    corr_frame = _correlation_frame(corr_mean, list(classes), aggregation.pairs_i, aggregation.pairs_j)
    kappa = None
    if options.kappa_folds:
        kappa = choice_kappa(fa, fb, labels, classes, counts, options, settings)
    return DVCResult(summary, kappa, split_rows, options, list(classes), int(labels.size), names, corr_frame,
                     split_sd)


def representation_kernel(fa, fb, classes, counts, options: DVCOptions, settings: ResamplingSettings) -> DVCKernel:
    """The PCA of every split (and class pair, with ``pca_scope="pair"``) and the kernel over them.

    ``fa``, ``fb`` and the class counts are in class-sorted image order. Folds: per class a random
    permutation modulo K from ``stream(seed, "dvc-folds", class)``.

    Parameters
    ----------
    fa, fb : numpy.ndarray
        (images x units) features of the two systems, rows sorted by class.
    classes : numpy.ndarray of str
        The sorted classes.
    counts : numpy.ndarray of int
        Images per class (in ``classes`` order).
    options : DVCOptions
        Components, splits, folds, PCA scope and iterations, correlation, split bootstrap.
    settings : ResamplingSettings
        Seed (halves, test matrices, folds), threads and memory budget (the kernel's cache).

    Returns
    -------
    DVCKernel
        Per split its views of the class scores; ``rotate`` with ``split_bootstrap="rotate"``.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> fa, fb = rng.standard_normal((12, 8)), rng.standard_normal((12, 6))
    >>> kernel = representation_kernel(fa, fb, np.array(["a", "b"]), np.array([6, 6]),
    ...                                DVCOptions(n_components=1, n_splits=3, cv=2),
    ...                                ResamplingSettings(n_resamples=0, seed=0))
    >>> len(kernel.views), kernel.fold_bounds(0).tolist(), kernel.slot_width(0)   # 2 folds x (1 + 4 + 10)
    (3, [0, 3, 6], 30)
    """
    bounds = np.concatenate([[0], np.cumsum(counts)])
    n_folds = options.cv or 1
    orders, fold_bounds = [], []
    for c, n in zip(classes, counts):
        fold = (stream(settings.seed, "dvc-folds", c).permutation(n) % n_folds) if options.cv else np.zeros(n, int)
        order = np.argsort(fold, kind="stable")
        orders.append(order)
        fold_bounds.append(np.searchsorted(fold[order], np.arange(n_folds + 1)))
    pairs_i, pairs_j = np.triu_indices(classes.size, k=1)
    pair_rows = pair_keys = None
    if options.pca_scope == "pair":
        pair_rows = [np.r_[bounds[i]:bounds[i + 1], bounds[j]:bounds[j + 1]] for i, j in zip(pairs_i, pairs_j)]
        pair_keys = [(classes[i], classes[j]) for i, j in zip(pairs_i, pairs_j)]
    jobs = split_jobs((fa.shape[1], fb.shape[1]), fa.shape[0], options.n_splits, settings.seed,
                      options.n_components, pair_rows, pair_keys)
    flat = [job for split in jobs for job in split]
    results = run_pca_jobs(flat, (fa, fb), options.n_components, iterations=options.pca_iterations,
                           standardize=options.standardize, workers=settings.threads)
    views, k = [], 0
    for s, split in enumerate(jobs):
        if pair_rows is None:
            scores = np.concatenate(results[k:k + HALVES], axis=1)
            k += HALVES
            views.append([View(s, np.arange(pairs_i.size), {
                c: class_scores(scores[bounds[c]:bounds[c + 1]], orders[c], fold_bounds[c])
                for c in range(classes.size)})])
            continue
        split_views = []
        for pair, (i, j) in enumerate(zip(pairs_i, pairs_j)):
            scores = np.concatenate(results[k:k + HALVES], axis=1)
            k += HALVES
            ni = counts[i]
            split_views.append(View(s, np.array([pair]), {
                i: class_scores(scores[:ni], orders[i], fold_bounds[i]),
                j: class_scores(scores[ni:], orders[j], fold_bounds[j])}))
        views.append(split_views)
    cache = min(settings.memory_budget // 2, 1024**3)
    return DVCKernel(views, list(classes), orders, rotate=options.split_bootstrap == "rotate",
                     with_weights=options.correlation == "spearman", cache_bytes=cache)


def _correlation_frame(corr, classes, pairs_i, pairs_j) -> pd.DataFrame:
    from .metric import CORRELATION_PAIRS

    rows = []
    for k, (i, j) in enumerate(zip(pairs_i, pairs_j)):
        for side, c in enumerate((i, j)):
            row = {"class_i": classes[i], "class_j": classes[j], "within_class": classes[c]}
            for m, (h, g) in enumerate(CORRELATION_PAIRS):
                row[f"r_{HALF_NAMES[h]}_{HALF_NAMES[g]}"] = corr[k, side, m]
            rows.append(row)
    return pd.DataFrame(rows)
