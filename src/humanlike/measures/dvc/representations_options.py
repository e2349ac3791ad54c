"""The options of DVC of representations (:class:`DVCOptions`: the choices the paper leaves open) and the error
of unusable inputs (:class:`DVCInputError`).

The pipeline that uses them is :func:`humanlike.measures.dvc.representations.dvc_representations`
(docs/measures/decision-variable-correlation.md); the kappa of the two systems' cross-validated choices is
:mod:`humanlike.measures.dvc.representations_kappa`.
"""

from __future__ import annotations

from dataclasses import dataclass

CORRELATIONS = ("pearson", "spearman")
SPLIT_BOOTSTRAPS = ("rotate", "all")
PCA_SCOPES = ("all", "pair")


class DVCInputError(ValueError):
    """The inputs of a DVC analysis are unusable; the message names what is wrong.

    Examples
    --------
    >>> try:
    ...     DVCOptions(cv=1)
    ... except DVCInputError as err:
    ...     print(err)
    cv must be None (in-sample) or at least 2 folds, got 1
    """


@dataclass(frozen=True)
class DVCOptions:
    """The choices of the DVC pipeline that the paper leaves open (see :mod:`humanlike.measures.dvc.representations`).

    Parameters
    ----------
    n_components : int
        Principal components per half (the paper: 25; robustness 10 and 50).
    n_splits : int
        Random unit split-halves (repeats).
    cv : int or None
        None: LDA fitted and evaluated on the same images; K: stratified K-fold cross-validated DVs.
    absolute : bool
        Report the paper's absolute-value normalisation as ``dvc`` (the signed one is the alternative).
    correlation : {"pearson", "spearman"}
        Within-class correlation of the DVs.
    standardize : bool
        z-score units (over all images) before the PCA.
    split_bootstrap : {"rotate", "all"}
        How bootstrap resamples meet split repeats (see :mod:`humanlike.measures.dvc.representations`).
    pca_iterations : int
        Power iterations of the randomized PCA.
    ridge : float
        Shrinkage of the pooled covariance toward its mean eigenvalue (0: plain LDA).
    kappa_folds : int
        Folds of the cross-validated logistic-regression choices behind kappa (0: no kappa).
    pca_scope : {"all", "pair"}
        PCA of each half fitted on all images (one per split) or on the two classes of each pair (one per
        split and pair: C(K, 2) times the PCA work and K - 1 times the moments per class).

    Raises
    ------
    DVCInputError
        On a value outside its allowed range (naming the option).

    Examples
    --------
    >>> options = DVCOptions(n_components=10, cv=5)
    >>> options.n_components, options.cv, options.n_splits   # the rest keeps the defaults
    (10, 5, 10)
    """

    n_components: int = 25
    n_splits: int = 10
    cv: int | None = None
    absolute: bool = False
    correlation: str = "pearson"
    standardize: bool = False
    split_bootstrap: str = "rotate"
    pca_iterations: int = 2
    ridge: float = 0.0
    kappa_folds: int = 5
    pca_scope: str = "all"

    def __post_init__(self) -> None:
        if self.n_components < 1:
            raise DVCInputError(f"n_components must be at least 1, got {self.n_components}")
        if self.n_splits < 1:
            raise DVCInputError(f"n_splits must be at least 1, got {self.n_splits}")
        if self.cv is not None and self.cv < 2:
            raise DVCInputError(f"cv must be None (in-sample) or at least 2 folds, got {self.cv}")
        if self.correlation not in CORRELATIONS:
            raise DVCInputError(f"correlation must be one of {CORRELATIONS}, not {self.correlation!r}")
        if self.split_bootstrap not in SPLIT_BOOTSTRAPS:
            raise DVCInputError(f"split_bootstrap must be one of {SPLIT_BOOTSTRAPS}, not {self.split_bootstrap!r}")
        if self.pca_scope not in PCA_SCOPES:
            raise DVCInputError(f"pca_scope must be one of {PCA_SCOPES}, not {self.pca_scope!r}")
        if self.pca_iterations < 0:
            raise DVCInputError(f"pca_iterations must be at least 0, got {self.pca_iterations}")
        if self.kappa_folds == 1 or self.kappa_folds < 0:
            raise DVCInputError(f"kappa_folds must be 0 (no kappa) or at least 2, got {self.kappa_folds}")
