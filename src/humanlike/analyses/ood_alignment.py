"""Error alignment across the OOD spectrum: EC, MA and CLED of every pair, through the resampling engine.

Data: :func:`alignment_design` — the design of strata (experiment x condition, humans of an experiment as
the observer group) from :func:`humanlike.data.design.build_design`, with each stratum's class codes added.
Kernel: :class:`AlignmentKernel` — the per-item sufficient statistics of
:class:`humanlike.metrics.alignment_kernels.PairAlignmentSums`, reduced to pair values, group means (humans;
each model over its pairs with the humans; observer weights enter here) and alignment ratios. Aggregation:
:class:`AlignmentLayout` — the conditions side by side, then per regime the mean ratio over the
representative conditions. Result: :class:`OODAlignment`, whose ``resampled`` is the engine's
:class:`~humanlike.stats.results.Resampled`; its tables are views of it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from ..data.design import Design, Stratum, build_design
from ..data.schema import NO_ANSWER, TrialTableError, first_presentations, validate_trials
from ..metrics.alignment_kernels import AlignmentOptions, PairAlignmentSums, pair_indices
from ..stats.engine import bootstrap
from ..stats.kernels import Output, SufficientStatisticKernel
from ..stats.regimes import RegimeFit
from ..stats.resampling import group_mean, nanmean_quiet
from ..stats.results import Resampled
from ..stats.settings import ResamplingSettings
from .ood_common import METRICS, class_names, families_for, resolve_settings
from .pairwise import HUMANS

LABEL_NAMES = ("table", "regime", "experiment", "condition", "observer_1", "observer_2", "metric")


def alignment_design(trials: pd.DataFrame, classes: tuple, keys: list[tuple[str, str]] | None = None) -> Design:
    """The strata of the alignment: one per (experiment, condition), with ``label_code`` and ``response_code``.

    ``response_code`` (items x observers): the class index of the answer, -1 for no answer ('na' when it is
    not a class), -2 where the observer did not see the item. First presentations only.

    Parameters
    ----------
    trials : pandas.DataFrame
        A trial table.
    classes : tuple of str
        The class names, in code order (see :func:`~humanlike.analyses.ood_common.class_names`).
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
        The EC/MA/CLED options (:class:`humanlike.metrics.alignment_kernels.AlignmentOptions`).

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
    >>> from humanlike.metrics.alignment_kernels import AlignmentOptions
    >>> values = AlignmentKernel(3, AlignmentOptions()).evaluate(stratum, np.ones((1, 6)), None)
    >>> values[0, :3].round(3).tolist(), values[0, -1].round(2)   # EC of the 3 pairs; the model's ratio
    ([0.667, 0.4, 0.667], np.float64(0.92))
    """

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


class AlignmentLayout:
    """The output columns of the alignment and its one aggregation function.

    Columns: per condition (design order) its kernel outputs; then per regime and model the mean alignment
    ratio over the regime's representative conditions (NaN-skipping).

    Parameters
    ----------
    design : Design
        The alignment design (:func:`alignment_design`).
    kernel : AlignmentKernel
        The kernel (its pairs set the per-condition columns).
    models : tuple of str
        Every model, in output order.
    representatives : pandas.DataFrame
        :func:`representative_conditions` of the spectrum.
    regime_names : tuple of str
        The regimes, in output order.

    Examples
    --------
    >>> from humanlike.analyses.ood_spectrum import ood_spectrum
    >>> from humanlike.data.simulate import simulate_benchmark
    >>> trials = simulate_benchmark(seed=0)
    >>> trials = trials[trials["experiment"] == "sim-noise"]
    >>> spectrum = ood_spectrum(trials, {"sim-noise": "0.00"}, n_observer_resamples=0)
    >>> from humanlike.analyses.ood_common import class_names
    >>> from humanlike.metrics.alignment_kernels import AlignmentOptions
    >>> classes = class_names(trials)
    >>> design = alignment_design(trials, classes)
    >>> kernel = AlignmentKernel(len(classes), AlignmentOptions())
    >>> models = tuple(sorted(trials.loc[trials["observer_kind"] == "model", "observer"].unique()))
    >>> layout = AlignmentLayout(design, kernel, models, representative_conditions(spectrum.conditions,
    ...                          spectrum.regimes), spectrum.regimes.names)
    >>> len(layout.labels)   # 4 conditions x (45 pairs x 3 + 6 groups x 3 + 5 ratios) + 5 regime ratios
    637
    """

    def __init__(self, design: Design, kernel: AlignmentKernel, models: tuple, representatives: pd.DataFrame,
                 regime_names: tuple):
        self.keys = design.keys
        self.models = tuple(models)
        self.pairs = {s.key: kernel.pairs(s) for s in design}
        self.offsets, labels, start = {}, [], 0
        for key in self.keys:
            cp = self.pairs[key]
            e, c = key
            self.offsets[key] = start
            start += cp.width
            names = np.asarray(cp.observers, dtype=object)
            for metric in METRICS:
                labels += [("pair", "", e, c, str(a), str(b), metric)
                           for a, b in zip(names[cp.first], names[cp.second])]
            for metric in METRICS:
                labels += [("group", "", e, c, g, "", metric) for g in (HUMANS,) + cp.models]
            labels += [("group", "", e, c, m, "", "ratio") for m in cp.models]
        self.n_conditions = start
        self.regimes = []
        for name in regime_names:
            sub = representatives[representatives["regime"] == name]
            keys = [k for k in zip(sub["experiment"], sub["condition"]) if k in self.pairs]
            if not keys or not self.models:
                continue
            take = []
            for key in keys:
                cp = self.pairs[key]
                ratio_start = self.offsets[key] + cp.width - len(cp.models)
                take.append(np.array([ratio_start + cp.models.index(m) if m in cp.models else -1
                                      for m in self.models]))
            self.regimes.append((name, keys, np.stack(take)))
            labels += [("regime", name, "", "", m, "", "ratio") for m in self.models]
        self.labels = labels

    def aggregate(self, values: Mapping[tuple, np.ndarray], out: np.ndarray | None = None) -> np.ndarray:
        """Kernel values of every condition -> the regime-level alignment outputs.

        Parameters
        ----------
        values : mapping of tuple to numpy.ndarray
            ``{stratum key: (R|1 x width)}`` kernel outputs.
        out : numpy.ndarray, optional
            (R x len(labels)) array to fill (the engine's kept float32 replicates); by default a new float64
            one. The regime means are taken from the float64 kernel values either way, so a float32 ``out``
            holds exactly the rounded float64 result.

        Returns
        -------
        numpy.ndarray
            (R x len(labels)): the conditions' columns side by side, then the regime ratios (``out`` if given).
        """
        r = max(np.shape(v)[0] for v in values.values())
        if out is None:
            out = np.empty((r, len(self.labels)))
        for key in self.keys:   # written in place: no full-width temporaries per chunk
            block = values[key]
            out[:, self.offsets[key]:self.offsets[key] + np.shape(block)[1]] = block
        position = self.n_conditions
        for _, keys, take in self.regimes:
            ratios = np.full((r, *take.shape), np.nan)         # a model without a condition stays NaN
            for j, key in enumerate(keys):
                present = take[j] >= 0
                ratios[:, j, present] = values[key][:, take[j][present] - self.offsets[key]]
            out[:, position:position + take.shape[1]] = nanmean_quiet(ratios, axis=1)
            position += take.shape[1]
        return out

    def output(self) -> Output:
        """Labels of the aggregated outputs; replicates kept in float32.

        Returns
        -------
        Output
            The labels with :data:`LABEL_NAMES`, and ``replicate_dtype=np.float32``: the resamples are float32
            computations (see :meth:`PairAlignmentSums.resample
            <humanlike.metrics.alignment_kernels.PairAlignmentSums.resample>`).
        """
        return Output(self.labels, LABEL_NAMES, replicate_dtype=np.float32)


def representative_conditions(conditions: pd.DataFrame, fit: RegimeFit) -> pd.DataFrame:
    """One representative condition per (regime, distortion type).

    Rule: among a distortion type's conditions assigned to a regime, the one whose OOD score is closest
    to the regime's mixture mean (ties: the less distorted, i.e. the first in level order).

    Parameters
    ----------
    conditions : pandas.DataFrame
        The spectrum's condition table (experiment, condition, ood_score, regime_label).
    fit : RegimeFit
        The regime mixture (names and means).

    Returns
    -------
    pandas.DataFrame
        One row per (regime, experiment): regime, regime_label, regime_mean, experiment, condition, ood_score.

    Examples
    --------
    >>> from humanlike.analyses.ood_spectrum import ood_spectrum
    >>> from humanlike.data.simulate import simulate_benchmark
    >>> trials = simulate_benchmark(seed=0)
    >>> trials = trials[trials["experiment"] == "sim-noise"]
    >>> spectrum = ood_spectrum(trials, {"sim-noise": "0.00"}, n_observer_resamples=0)
    >>> reps = representative_conditions(spectrum.conditions, spectrum.regimes)
    >>> reps[["regime", "condition"]].values.tolist()   # one regime; 0.20 is closest to its mean score
    [['reference', '0.20']]
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


@dataclass(frozen=True)
class OODAlignment:
    """Error alignment per condition across the spectrum.

    ``resampled``: every number below with its replicates (labels ``table, regime, experiment, condition,
    observer_1, observer_2, metric``; ``.to_frame()`` is the tidy table with intervals and undefined shares).
    ``pairs``: one row per (condition, pair) — EC, MA, CLED with intervals and undefined shares.
    ``groups``: one row per (condition, group), group = ``'humans'`` (mean over human-human pairs) or a
    model (mean over its pairs with each human): accuracy, EC, MA, CLED with intervals, the alignment
    ratio with its interval (models), OOD score and regime.
    ``regime_ratios``: one row per (regime, model): the mean ratio over the regime's representative
    conditions, interval, rank (1 = most human-like), rank interval, probability of being best, the number
    of representatives at chance and the human baseline (mean over representatives of ½(EC+MA) among
    humans). Where the baseline is near 0 (humans at chance share no error structure) the ratio is a
    quotient of noise: its interval says so.
    ``representatives``: the representative condition of each (regime, distortion type).
    ``ratio_replicates``: {regime: (resamples x models)}; ``models``: model names. Made by
    :func:`ood_alignment`.

    Parameters
    ----------
    pairs, groups, regime_ratios, representatives : pandas.DataFrame
        The tables above.
    models : tuple of str
        Model names.
    ratio_replicates : dict
        ``{regime: (resamples x models)}`` replicates of the regime ratios.
    settings : dict
        Every option the alignment ran with.
    resampled : Resampled, optional
        The engine's result behind every table.

    Examples
    --------
    >>> from humanlike.analyses.ood_spectrum import ood_spectrum
    >>> from humanlike.data.simulate import simulate_benchmark
    >>> trials = simulate_benchmark(seed=0)
    >>> trials = trials[trials["experiment"] == "sim-noise"]
    >>> spectrum = ood_spectrum(trials, {"sim-noise": "0.00"}, n_observer_resamples=0)
    >>> alignment = ood_alignment(trials, spectrum, n_resamples=20, seed=0)
    >>> ranked = alignment.regime_ratios.set_index("model")
    >>> ranked["rank"].idxmin(), round(float(ranked.loc["model-alien", "ratio"]), 3)
    ('model-humanlike', 0.255)
    """

    pairs: pd.DataFrame
    groups: pd.DataFrame
    regime_ratios: pd.DataFrame
    representatives: pd.DataFrame
    models: tuple
    ratio_replicates: dict = field(repr=False)
    settings: dict
    resampled: Resampled | None = field(default=None, repr=False)

    def to_frame(self) -> pd.DataFrame:
        """The per-condition group table.

        Returns
        -------
        pandas.DataFrame
            :attr:`groups`: one row per (condition, group) with EC, MA, CLED, ratio and their intervals.
        """
        return self.groups

    def ratios(self) -> pd.DataFrame:
        """Per model and condition: the alignment ratio with its interval.

        Returns
        -------
        pandas.DataFrame
            Columns experiment, condition, model, family, ood_score, regime, ratio, ratio_low, ratio_high.
        """
        g = self.groups[self.groups["group"] != HUMANS]
        return g[["experiment", "condition", "group", "family", "ood_score", "regime", "ratio", "ratio_low",
                  "ratio_high"]].rename(columns={"group": "model"}).reset_index(drop=True)


@dataclass(frozen=True)
class AlignmentSetup:
    """The alignment's strata and kernel, made before the spectrum is known (:func:`alignment_setup`).

    Everything here depends on the trials and the metric options only, so it can be made while the spectrum is
    fitted; :func:`ood_alignment` then keeps the strata of the spectrum's conditions.

    Parameters
    ----------
    trials : pandas.DataFrame
        The first presentations of the trial table it was made from.
    design : Design
        Every (experiment, condition) stratum of the trials (:func:`alignment_design`).
    kernel : AlignmentKernel
        The kernel, its per-stratum statistics computed when ``alignment_setup(..., prepare=True)``.
    classes : tuple of str
        The class names, in code order.
    models : tuple of str
        Every model, sorted.
    na_as_class : bool
        Whether the no-answer response is a class.

    Examples
    --------
    >>> from humanlike.data.simulate import simulate_benchmark
    >>> setup = alignment_setup(simulate_benchmark(seed=0))
    >>> len(setup.design), setup.models[:2]
    (16, ('model-alien', 'model-humanlike'))
    """

    trials: pd.DataFrame = field(repr=False)
    design: Design = field(repr=False)
    kernel: AlignmentKernel = field(repr=False)
    classes: tuple
    models: tuple
    na_as_class: bool = False


def alignment_setup(trials: pd.DataFrame, *, policy="strict", ma_undefined: str = "nan", cled_alpha: float = 0.5,
                    cled_mixture: str = "average", cled_log_base: float | None = None,
                    cled_weighting: str = "errors", na_as_class: bool = False, prepare: bool = False,
                    validate: bool = True) -> AlignmentSetup:
    """The strata and kernel of the alignment, independent of the spectrum.

    Parameters
    ----------
    trials : pandas.DataFrame
        The trial table.
    policy, ma_undefined, cled_alpha, cled_mixture, cled_log_base, cled_weighting
        See :class:`humanlike.metrics.alignment_kernels.AlignmentOptions`.
    na_as_class : bool
        Treat the no-answer response as its own class in MA and CLED.
    prepare : bool, default False
        Also compute every stratum's sufficient statistics now (the bulk of the estimate's work), e.g. in a
        thread beside the spectrum's fit.
    validate : bool, default True
        Validate the trial table first.

    Returns
    -------
    AlignmentSetup

    Raises
    ------
    TrialTableError
        With fewer than two classes, or a label or response outside them.

    Examples
    --------
    >>> from humanlike.data.simulate import simulate_benchmark
    >>> setup = alignment_setup(simulate_benchmark(seed=0), prepare=True)
    >>> setup.kernel.sums(setup.design.strata[0]).n_pairs   # 6 humans and 5 models: 15 + 30 pairs
    45
    """
    options = AlignmentOptions(policy, ma_undefined, cled_alpha, cled_mixture, cled_log_base, cled_weighting)
    if validate:
        trials = validate_trials(trials)
    trials = first_presentations(trials)
    classes = class_names(trials, na_as_class)
    if len(classes) < 2:
        raise TrialTableError("need at least two classes")
    models = tuple(sorted(trials.loc[trials["observer_kind"] == "model", "observer"].astype(str).unique()))
    design = alignment_design(trials, classes)
    kernel = AlignmentKernel(len(classes), options)
    if prepare:
        for stratum in design:
            if kernel.pairs(stratum).n_pairs > 0:
                kernel.sums(stratum)
    return AlignmentSetup(trials, design, kernel, classes, models, bool(na_as_class))


def ood_alignment(
    trials: pd.DataFrame,
    spectrum,
    *,
    families: Mapping[str, str] | None = None,
    settings: ResamplingSettings | None = None,
    n_resamples: int | None = None,
    level: float | None = None,
    seed=None,
    policy="strict",
    ma_undefined: str = "nan",
    cled_alpha: float = 0.5,
    cled_mixture: str = "average",
    cled_log_base: float | None = None,
    cled_weighting: str = "errors",
    na_as_class: bool = False,
    chunk_elements: int | None = None,  # noqa: ARG001 - kept for old callers; the memory budget decides now
    validate: bool = True,
    setup: AlignmentSetup | None = None,
) -> OODAlignment:
    """EC, MA and CLED per condition (human-human and model-human), alignment ratios and regime rankings.

    Parameters
    ----------
    trials : pandas.DataFrame
        The trial table.
    spectrum : OODSpectrum
        The spectrum (conditions, regimes) from :func:`humanlike.analyses.ood_spectrum.ood_spectrum`.
    families : mapping, optional
        ``{model: family}``; default :data:`humanlike.analyses.ood_common.DEFAULT_FAMILIES`.
    settings : ResamplingSettings, optional
        Resamples, level, interval (percentile / BCa), observer level (none / bootstrap / jackknife), seed,
        memory budget, progress. ``n_resamples``, ``level`` and ``seed`` override it (older keywords).
    policy, ma_undefined, cled_alpha, cled_mixture, cled_log_base, cled_weighting
        See :class:`humanlike.metrics.alignment_kernels.AlignmentOptions`.
    na_as_class : bool
        Treat the no-answer response as its own class in MA and CLED (the published code) instead of leaving
        those trials out.
    setup : AlignmentSetup, optional
        :func:`alignment_setup` of the same trials with the same options, made beforehand (e.g. beside the
        spectrum's fit); ``trials`` and ``validate`` are then not used again.

    Returns
    -------
    OODAlignment
        Pair, group and regime tables with intervals, and the resampled values behind them.

    Examples
    --------
    >>> from humanlike.data.simulate import simulate_benchmark
    >>> from humanlike.analyses.ood_spectrum import ood_spectrum
    >>> t = simulate_benchmark(seed=0)
    >>> t = t[t["experiment"] == t["experiment"].iloc[0]]
    >>> sp = ood_spectrum(t, {t["experiment"].iloc[0]: sorted(t["condition"].unique())[0]}, n_observer_resamples=0)
    >>> al = ood_alignment(t, sp, n_resamples=20)
    >>> {"ec", "ma", "cled", "ratio"} <= set(al.groups.columns)
    True
    """
    options = AlignmentOptions(policy, ma_undefined, cled_alpha, cled_mixture, cled_log_base, cled_weighting)
    settings = resolve_settings(settings, n_resamples=n_resamples, level=level, seed=seed)
    if setup is None:
        setup = alignment_setup(trials, policy=policy, ma_undefined=ma_undefined, cled_alpha=cled_alpha,
                                cled_mixture=cled_mixture, cled_log_base=cled_log_base,
                                cled_weighting=cled_weighting, na_as_class=na_as_class, validate=validate)
    elif setup.kernel.options != options or setup.na_as_class != bool(na_as_class):
        raise ValueError("the alignment setup was made with other options than this call's")
    trials, kernel, models = setup.trials, setup.kernel, setup.models
    cond_frame = spectrum.conditions
    wanted = {(str(e), str(c)) for e, c in zip(cond_frame["experiment"], cond_frame["condition"])}
    fam = families_for(models, families)
    design = setup.design.select(lambda s: s.key in wanted and kernel.pairs(s).n_pairs > 0)
    reps_table = representative_conditions(cond_frame, spectrum.regimes)
    record = dict(settings=settings.to_dict(), policy=options.policy.value, ma_undefined=ma_undefined,
                  cled_alpha=cled_alpha, cled_mixture=cled_mixture, cled_log_base=cled_log_base,
                  cled_weighting=cled_weighting, na_as_class=na_as_class, families=fam,
                  n_classes=len(setup.classes),
                  n_resamples=settings.n_resamples, level=settings.level, seed=settings.seed)
    if len(design) == 0:
        raise TrialTableError("no condition has an observer pair: the alignment needs at least two humans, or a "
                              "human and a model, in one condition")
    layout = AlignmentLayout(design, kernel, models, reps_table, spectrum.regimes.names)
    res = bootstrap(design, kernel, layout.aggregate, layout.output(), settings)
    from .ood_tables import alignment_tables

    pairs, groups, regime_ratios, ratio_reps = alignment_tables(res, layout, design, cond_frame, fam, settings)
    return OODAlignment(pairs, groups, regime_ratios, reps_table, models, ratio_reps, record, res)


__all__ = ["AlignmentKernel", "AlignmentLayout", "AlignmentSetup", "OODAlignment", "alignment_design",
           "alignment_ratio", "alignment_setup", "condition_pairs", "ood_alignment", "representative_conditions"]
