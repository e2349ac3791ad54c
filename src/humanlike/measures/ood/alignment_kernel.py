"""The data and the kernel of the OOD error alignment: EC, MA and CLED of every pair, per condition.

Data: :func:`alignment_design` — the design of strata (experiment x condition, humans of an experiment as
the observer group) from :func:`humanlike.trials.design.build_design`, with each stratum's class codes added;
:func:`condition_pairs` — the observers and pairs of one condition. Kernel: :class:`AlignmentKernel` — the
per-item sufficient statistics of :class:`humanlike.measures.ood.alignment_sums.PairAlignmentSums`, reduced to
pair values, group means (humans; each model over its pairs with the humans; observer weights enter here) and
alignment ratios (:func:`alignment_ratio`). The aggregation, the result and the pipeline are in
:mod:`humanlike.measures.ood.alignment`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from ...trials.design import Design, Stratum, build_design
from ...trials.schema import NO_ANSWER, TrialTableError, first_presentations
from .alignment_sums import AlignmentOptions, PairAlignmentSums, pair_indices
from ...resampling.kernels import SufficientStatisticKernel
from ...resampling.weights import group_mean


def alignment_design(trials: pd.DataFrame, classes: tuple, keys: list[tuple[str, str]] | None = None) -> Design:
    """The strata of the alignment: one per (experiment, condition), with ``label_code`` and ``response_code``.

    ``response_code`` (items x observers): the class index of the answer, -1 for no answer ('na' when it is
    not a class), -2 where the observer did not see the item. First presentations only.

    Parameters
    ----------
    trials : pandas.DataFrame
        A trial table.
    classes : tuple of str
        The class names, in code order (see :func:`~humanlike.measures.ood.common.class_names`).
    keys : list of tuple of str, optional
        Keep only these (experiment, condition) strata.

    Returns
    -------
    Design
        One stratum per kept (experiment, condition), humans of each experiment as the observer group.

    Raises
    ------
    TrialTableError
        When a label or a response is not among ``classes``.

    Examples
    --------
    >>> import pandas as pd
    >>> labels = ["cat", "cat", "dog", "dog", "bird", "bird"]
    >>> answers = {"h1": ["cat", "dog", "dog", "dog", "bird", "cat"], "h2": ["cat", "dog", "dog", "bird", "bird", "cat"],
    ...            "m": ["cat", "dog", "dog", "bird", "dog", "cat"]}
    >>> trials = pd.DataFrame([dict(observer=o, observer_kind="model" if o == "m" else "human", experiment="e",
    ...                             condition="c", item=f"i{k}", label=lab, response=r, correct=lab == r)
    ...                        for o, rs in answers.items() for k, (lab, r) in enumerate(zip(labels, rs))])
    >>> stratum = alignment_design(trials, ("bird", "cat", "dog")).stratum(("e", "c"))
    >>> stratum.arrays["label_code"].tolist(), stratum.arrays["response_code"][:, 2].tolist()   # the model's answers
    ([1, 1, 2, 2, 0, 0], [1, 2, 2, 0, 2, 1])
    """
    trials = first_presentations(trials)
    design = build_design(trials, margins=False)
    index = pd.Index(list(classes))
    label_codes = index.get_indexer(trials["label"]).astype(np.int64)
    resp_codes = index.get_indexer(trials["response"]).astype(np.int64)
    if np.any(label_codes < 0):
        bad = trials["label"].to_numpy()[label_codes < 0][0]
        raise TrialTableError(f"label {bad!r} is not among the classes {classes}")
    unknown = (resp_codes < 0) & (trials["response"].to_numpy() != NO_ANSWER)
    if np.any(unknown):
        raise TrialTableError(f"response {trials['response'].to_numpy()[unknown][0]!r} is not a class")
    rows = trials.groupby(["experiment", "condition"], sort=False).indices
    # items and observers as integer codes once; per stratum a code -> position table (a pandas Index and its
    # get_indexer per stratum cost ~0.5 s on the model-vs-human data)
    item_codes, item_names = pd.factorize(trials["item"].astype(str).to_numpy())
    observer_codes, observer_names = pd.factorize(trials["observer"].astype(str).to_numpy())
    item_code = {name: code for code, name in enumerate(item_names)}
    observer_code = {name: code for code, name in enumerate(observer_names)}
    wanted = None if keys is None else {tuple(map(str, k)) for k in keys}
    strata = []
    for s in design:
        if wanted is not None and s.key not in wanted:
            continue
        idx = rows[s.key] if s.key in rows else rows[tuple(s.key)]
        item_pos = _positions(item_codes[idx], s.items, item_code)
        obs_pos = _positions(observer_codes[idx], s.observers, observer_code)
        responses = np.full((s.n_items, len(s.observers)), -2, dtype=np.int64)
        responses[item_pos, obs_pos] = resp_codes[idx]
        labels = np.empty(s.n_items, dtype=np.int64)
        labels[item_pos] = label_codes[idx]
        strata.append(replace(s, arrays={**s.arrays, "label_code": labels, "response_code": responses}))
    return Design(tuple(strata), design.groups).select(lambda _: True)   # drops groups left without strata


def _positions(codes: np.ndarray, names, code_of: dict) -> np.ndarray:
    """Position of each coded value among ``names`` (-1 where absent), as ``pd.Index(names).get_indexer``."""
    table = np.full(len(code_of), -1, dtype=np.int64)
    for position, name in enumerate(names):
        code = code_of.get(str(name))
        if code is not None:
            table[code] = position
    return table[codes]


@dataclass(frozen=True)
class ConditionPairs:
    """The observers and pairs of one condition: humans first, only observers who answered there.

    Made by :func:`condition_pairs`.

    Parameters
    ----------
    observers : tuple of str
        The observers who answered, humans first.
    n_humans : int
        How many of them are humans.
    columns : numpy.ndarray
        Position of each observer in the stratum.
    members : numpy.ndarray
        Position of each human among the observer group's members.
    first, second : numpy.ndarray
        Pair indices into ``observers``: the human–human pairs, then each model with every human.
    n_human_pairs : int
        How many pairs are human–human.
    groups : numpy.ndarray
        (pairs x groups) indicator: humans, then one column per model.

    Examples
    --------
    >>> import pandas as pd
    >>> labels = ["cat", "cat", "dog", "dog", "bird", "bird"]
    >>> answers = {"h1": ["cat", "dog", "dog", "dog", "bird", "cat"], "h2": ["cat", "dog", "dog", "bird", "bird", "cat"],
    ...            "m": ["cat", "dog", "dog", "bird", "dog", "cat"]}
    >>> trials = pd.DataFrame([dict(observer=o, observer_kind="model" if o == "m" else "human", experiment="e",
    ...                             condition="c", item=f"i{k}", label=lab, response=r, correct=lab == r)
    ...                        for o, rs in answers.items() for k, (lab, r) in enumerate(zip(labels, rs))])
    >>> stratum = alignment_design(trials, ("bird", "cat", "dog")).stratum(("e", "c"))
    >>> pairs = condition_pairs(stratum)
    >>> pairs.observers, pairs.n_pairs, pairs.width   # 3 pairs x 3 metrics + 2 groups x 3 + 1 ratio
    (('h1', 'h2', 'm'), 3, 16)
    """

    observers: tuple[str, ...]
    n_humans: int
    columns: np.ndarray          # position of each observer in the stratum
    members: np.ndarray          # position of each human among the group's members
    first: np.ndarray
    second: np.ndarray
    n_human_pairs: int
    groups: np.ndarray           # (pairs x groups) indicator: humans, then one column per model

    @property
    def models(self) -> tuple[str, ...]:
        """Model names of the condition, in column order."""
        return self.observers[self.n_humans:]

    @property
    def n_pairs(self) -> int:
        """Number of observer pairs in the condition."""
        return int(self.first.size)

    @property
    def width(self) -> int:
        """Number of values this kernel yields for one stratum."""
        n_groups = self.groups.shape[1]
        return 3 * self.n_pairs + 3 * n_groups + len(self.models)


def condition_pairs(stratum: Stratum) -> ConditionPairs:
    """The observers who answered in a stratum (humans first, as in the stratum) and their pairs.

    Parameters
    ----------
    stratum : Stratum
        A stratum of :func:`alignment_design`.

    Returns
    -------
    ConditionPairs
        The observers, their pairs and the pairs' groups.

    Examples
    --------
    >>> import pandas as pd
    >>> labels = ["cat", "cat", "dog", "dog", "bird", "bird"]
    >>> answers = {"h1": ["cat", "dog", "dog", "dog", "bird", "cat"], "h2": ["cat", "dog", "dog", "bird", "bird", "cat"],
    ...            "m": ["cat", "dog", "dog", "bird", "dog", "cat"]}
    >>> trials = pd.DataFrame([dict(observer=o, observer_kind="model" if o == "m" else "human", experiment="e",
    ...                             condition="c", item=f"i{k}", label=lab, response=r, correct=lab == r)
    ...                        for o, rs in answers.items() for k, (lab, r) in enumerate(zip(labels, rs))])
    >>> stratum = alignment_design(trials, ("bird", "cat", "dog")).stratum(("e", "c"))
    >>> pairs = condition_pairs(stratum)
    >>> pairs.first.tolist(), pairs.second.tolist(), pairs.groups.tolist()   # (h1, h2), (m, h1), (m, h2)
    ([0, 2, 2], [1, 0, 1], [[1.0, 0.0], [0.0, 1.0], [0.0, 1.0]])
    """
    present = np.flatnonzero((stratum.arrays["response_code"] != -2).any(axis=0))
    member_of = {int(c): m for m, c in enumerate(stratum.group_columns)}
    humans = [c for c in present if int(c) in member_of]
    models = [c for c in present if int(c) not in member_of]
    columns = np.asarray(humans + models, dtype=int)
    first, second, n_hh = pair_indices(len(humans), columns.size)
    groups = np.zeros((first.size, 1 + len(models)))
    groups[:n_hh, 0] = 1
    for m in range(len(models)):
        groups[n_hh + m * len(humans):n_hh + (m + 1) * len(humans), 1 + m] = 1
    return ConditionPairs(tuple(stratum.observers[c] for c in columns), len(humans), columns,
                          np.asarray([member_of[int(c)] for c in humans], dtype=int), first, second, n_hh, groups)


class AlignmentKernel(SufficientStatisticKernel):
    """Engine kernel of one condition: [EC, MA, CLED of every pair | group means of each | ratio per model].

    Observer weights (R x humans of the experiment) weight the group means: a human-human pair by the product
    of its two humans' weights, a model-human pair by the human's weight.

    Parameters
    ----------
    n_classes : int
        Number of classes (response codes 0..n_classes-1).
    options : AlignmentOptions
        The EC/MA/CLED options (:class:`humanlike.measures.ood.alignment_sums.AlignmentOptions`).

    Examples
    --------
    h1 and h2 agree on 5 of 6 correctness values at chance agreement 1/2 (EC 2/3); the model shares the
    humans' wrong answers (MA 1), so its ratio is (0.533 + 1) / (0.667 + 1) = 0.92:

    >>> import pandas as pd
    >>> labels = ["cat", "cat", "dog", "dog", "bird", "bird"]
    >>> answers = {"h1": ["cat", "dog", "dog", "dog", "bird", "cat"], "h2": ["cat", "dog", "dog", "bird", "bird", "cat"],
    ...            "m": ["cat", "dog", "dog", "bird", "dog", "cat"]}
    >>> trials = pd.DataFrame([dict(observer=o, observer_kind="model" if o == "m" else "human", experiment="e",
    ...                             condition="c", item=f"i{k}", label=lab, response=r, correct=lab == r)
    ...                        for o, rs in answers.items() for k, (lab, r) in enumerate(zip(labels, rs))])
    >>> stratum = alignment_design(trials, ("bird", "cat", "dog")).stratum(("e", "c"))
    >>> import numpy as np
    >>> from humanlike.measures.ood.alignment_sums import AlignmentOptions
    >>> values = AlignmentKernel(3, AlignmentOptions()).evaluate(stratum, np.ones((1, 6)), None)
    >>> values[0, :3].round(3).tolist(), values[0, -1].round(2)   # EC of the 3 pairs; the model's ratio
    ([0.667, 0.4, 0.667], np.float64(0.92))
    """

    measure = "OOD alignment"  # names the engine's undefined-share warning

    #: The compiled resample path works on the weights a resample per column (see the engine's Kernel).
    weights_items_first = True

    def __init__(self, n_classes: int, options: AlignmentOptions):
        super().__init__()
        self.n_classes = int(n_classes)
        self.options = options
        self._pairs: dict[tuple, ConditionPairs] = {}
        self._sums: dict[tuple, PairAlignmentSums] = {}

    def pairs(self, stratum: Stratum) -> ConditionPairs:
        """The observer pairs and their groups of one stratum (cached).

        Parameters
        ----------
        stratum : Stratum
            A stratum of :func:`alignment_design`.

        Returns
        -------
        ConditionPairs
            See :func:`condition_pairs`.
        """
        if stratum.key not in self._pairs:
            self._pairs[stratum.key] = condition_pairs(stratum)
        return self._pairs[stratum.key]

    def sums(self, stratum: Stratum) -> PairAlignmentSums:
        """The per-item alignment statistics of one stratum (cached).

        Parameters
        ----------
        stratum : Stratum
            A stratum of :func:`alignment_design`.

        Returns
        -------
        PairAlignmentSums
            The statistics and their reduction to EC, MA and CLED per pair.
        """
        if stratum.key not in self._sums:
            cp = self.pairs(stratum)
            responses = stratum.arrays["response_code"][:, cp.columns]
            self._sums[stratum.key] = PairAlignmentSums(stratum.arrays["label_code"], responses, self.n_classes,
                                                        cp.first, cp.second)
        return self._sums[stratum.key]

    def statistics(self, stratum: Stratum) -> np.ndarray:
        """Per-item sufficient statistics of one stratum (items x S); the engine forms weighted sums of them.

        Parameters
        ----------
        stratum : Stratum
            A stratum of :func:`alignment_design`.

        Returns
        -------
        numpy.ndarray
            (items x S) statistics of :meth:`sums`.
        """
        return self.sums(stratum).statistics

    def width(self, stratum: Stratum) -> int:
        """Number of values this kernel yields for one stratum.

        Parameters
        ----------
        stratum : Stratum
            A stratum of :func:`alignment_design`.

        Returns
        -------
        int
            3 x pairs + 3 x groups + models.
        """
        return self.pairs(stratum).width

    def evaluate(self, stratum, item_weights, observer_weights):
        """Values of one stratum under item weights and observer weights.

        Parameters
        ----------
        stratum : Stratum
            A stratum of :func:`alignment_design`.
        item_weights : numpy.ndarray
            Item weights (R x items): bootstrap counts, or ones for the estimate.
        observer_weights : numpy.ndarray or None
            Weights of the experiment's humans (R x members); None means all ones.

        Returns
        -------
        numpy.ndarray
            (R x :meth:`width`): EC, MA, CLED per pair; their group means; the ratio per model.
        """
        w = np.asarray(item_weights)
        if w.shape[0] == 1:   # the estimate: exact weighted sums, the float64 reduction
            return self.reduce(stratum, self.sums(stratum).weighted_sums(w), observer_weights)
        cp = self.pairs(stratum)
        ec, ma, cled = self.sums(stratum).resample(w, self.options)
        return self._combine(cp, ec, ma, cled, observer_weights)

    def bytes_per_resample(self, stratum: Stratum) -> int:
        """Memory one resample of this stratum needs while evaluated (sets the engine's chunk size).

        Parameters
        ----------
        stratum : Stratum
            A stratum of :func:`alignment_design`.

        Returns
        -------
        int
            Bytes per resample (an upper estimate).
        """
        s = self.sums(stratum)
        # the weights, the pair values' work, the group means of the three metrics stacked (the stack, its mask
        # as floats, the masked values and their product: 12 pair arrays and a boolean one) and the output row
        return 8 * (stratum.n_items + s.work_per_resample(self.options.cled_mixture) + 13 * s.n_pairs
                    + self.width(stratum))

    def reduce(self, stratum, sums, observer_weights):
        """Per-stratum values from weighted sums of the statistics (R x S) -> (R x width).

        Parameters
        ----------
        stratum : Stratum
            A stratum of :func:`alignment_design`.
        sums : numpy.ndarray
            Weighted sums of the statistics (R x S).
        observer_weights : numpy.ndarray or None
            Weights of the experiment's humans (R x members); None means all ones.

        Returns
        -------
        numpy.ndarray
            (R x :meth:`width`), laid out as in :meth:`evaluate`.
        """
        ec, ma, cled = self.sums(stratum).reduce(sums, self.options)
        return self._combine(self.pairs(stratum), ec, ma, cled, observer_weights)

    @staticmethod
    def _combine(cp: ConditionPairs, ec, ma, cled, observer_weights):
        """[pairs' EC, MA, CLED | group means of each | ratios] from the pair values (R x pairs each)."""
        weights = None
        if observer_weights is not None and cp.n_humans:
            u = np.asarray(observer_weights, dtype=float)[:, cp.members]
            ui, uj = u[:, cp.first[:cp.n_human_pairs]], u[:, cp.second[:cp.n_human_pairs]]
            mh = u[:, cp.second[cp.n_human_pairs:]]
            weights = np.concatenate([ui * uj, mh], axis=1)
        if weights is None and ec.shape == ma.shape == cled.shape and ec.shape[0] > 1:
            # the three metrics' means in one matrix product, whose rows are the three separate products' rows
            # (one row alone goes through a matrix-vector product instead, rounded differently: kept apart)
            r = ec.shape[0]
            stacked = group_mean(np.concatenate([ec, ma, cled], axis=0), cp.groups)
            means = [stacked[:r], stacked[r:2 * r], stacked[2 * r:]]
        else:
            means = [group_mean(v, cp.groups, weights) for v in (ec, ma, cled)]
        r = max(ec.shape[0], means[0].shape[0])
        means = [np.broadcast_to(m, (r, m.shape[1])) for m in means]
        ratio = alignment_ratio(means[0], means[1])
        return np.concatenate([ec, ma, cled, *means, ratio], axis=1)


def alignment_ratio(ec, ma):
    """(EC_m + MA_m) / (EC_humans + MA_humans) for group columns [humans, models...]; NaN where not finite.

    Parameters
    ----------
    ec, ma : numpy.ndarray
        Group means (..., 1 + models): the humans' column first.

    Returns
    -------
    numpy.ndarray
        (..., models) ratios; 1 means as aligned with the humans as they are with each other.

    Examples
    --------
    >>> ec = np.array([[0.5, 0.2], [-0.9, 0.3]])   # second row: humans' EC + MA is 0
    >>> ma = np.array([[0.9, 0.6], [0.9, 0.2]])
    >>> alignment_ratio(ec, ma).round(4).tolist()   # (0.2 + 0.6) / (0.5 + 0.9); 0.5 / 0 is undefined
    [[0.5714], [nan]]
    """
    num = ec[..., 1:] + ma[..., 1:]
    den = ec[..., :1] + ma[..., :1]
    with np.errstate(invalid="ignore", divide="ignore"):
        out = num / den
    return np.where(np.isfinite(out), out, np.nan)


__all__ = ["AlignmentKernel", "ConditionPairs", "alignment_design", "alignment_ratio", "condition_pairs"]
