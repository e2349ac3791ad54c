"""Per-participant trial lists, generated on the server when a participant starts.

Every list is determined by the study seed and the participant's ordinal (1, 2, ... in order of arrival), each
random choice from its own stream (:func:`humanlike.resampling.rng.stream`), so a participant's trials do not
depend on anyone else's.

The study's ``design`` (docs/run-your-own-experiment.md#designs) says which trials each participant gets:
``everything`` (every stimulus: classification every item in every condition), ``latin-square``
(classification: every item once, in one condition), ``subset`` / ``pooled`` (a balanced block of
``trials_per_participant`` trials), ``discriminate`` (classification: ``trials_per_participant / C`` items of each
of the ``C`` conditions, drawn with the known inclusion probabilities of the study's ``design_file``, where two
models' outcomes differ: docs/designs-that-decide.md). :func:`check_design_size` refuses a block as large as the
study.

Classification: items x conditions in a Latin-square rotation (participant ``k`` sees the ``j``-th item of the
study's item order in condition ``(j + k) mod C``), so across ``C`` consecutive participants every item is
shown in every condition once; with fewer trials than items, participant ``k`` takes the next block of items
in the study order (every item equally often across participants). Each item at most once per participant
(``repeats`` > 1 repeats it in the same condition). Practice trials (with feedback) first; catch trials
(attention checks: "choose X") at random places among the main trials.

Triads / quadruples: every combination of levels of every sequence (``triad_design``/``quad_design``) in one
study order, taken in blocks as above; the side of the two pairs is balanced within a participant (half the
trials show the second pair on the left) and randomised. Catch trials put an identical pair against the
sequence's two ends.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..measures.compare.discriminating import systematic_sample
from ..measures.mlds.observers import quad_design, triad_design
from ..resampling.rng import stream
from .config import StudyConfig

SIDES = ("left", "right")


@dataclass
class PlannedTrial:
    """One trial of a participant's list: what is shown, the allowed responses, the answer (never sent).

    Attributes
    ----------
    kind : str
        ``"practice"``, ``"main"`` or ``"catch"``.
    stimuli : list of str
        Stimulus keys in display order (judgements: the left pair, then the right pair).
    options : list of str
        The responses allowed (the labels, or ``left``/``right``).
    answer : str or None
        The correct response where there is one (classification, catch trials).
    info : dict
        The task's own columns (item, condition, label / sequence, levels, swapped, classes).
    prompt : str
        Catch trials: the instruction shown instead of a stimulus.
    break_before : bool
        A break screen comes before this trial.

    Examples
    --------
    >>> PlannedTrial("main", ["cat/cat1.png"], ["cat", "dog"], "cat").kind
    'main'
    """

    kind: str                          # "practice", "main" or "catch"
    stimuli: list[str]                 # stimulus keys in display order (judgements: left pair, then right)
    options: list[str]
    answer: str | None = None          # the correct response, where there is one
    info: dict = field(default_factory=dict)   # the task's own columns (item, condition, sequence, levels, ...)
    prompt: str = ""                   # catch trials: the instruction shown instead of a stimulus
    break_before: bool = False


def _block(n_units: int, n_take: int, ordinal: int) -> np.ndarray:
    """Participant ``ordinal``'s block of ``n_take`` unit positions, rotating through ``n_units``."""
    start = ((ordinal - 1) * n_take) % n_units
    return (start + np.arange(n_take)) % n_units


def _with_breaks_and_catch(main: list[PlannedTrial], catch: list[PlannedTrial], config: StudyConfig,
                           ordinal: int) -> list[PlannedTrial]:
    rng = stream(config.seed, "catch-positions", ordinal)
    places = sorted(rng.choice(len(main) + 1, size=len(catch), replace=True)) if catch else []
    merged: list[PlannedTrial] = []
    catch_iter = iter(catch)
    for index, trial in enumerate(main):
        while places and places[0] == index:
            places.pop(0)
            merged.append(next(catch_iter))
        merged.append(trial)
    merged.extend(catch_iter)
    if config.break_every:
        for index, trial in enumerate(merged):
            trial.break_before = index > 0 and index % config.break_every == 0
    return merged


def _classification_groups(stimuli: pd.DataFrame) -> dict[tuple[str, str], list[dict]]:
    """The stimuli as plain records grouped by (experiment, item), each group sorted by condition."""
    groups: dict[tuple[str, str], list[dict]] = {}
    for record in stimuli.sort_values(["experiment", "item", "condition"]).to_dict("records"):
        groups.setdefault((record["experiment"], record["item"]), []).append(record)
    return groups


def classification_trials(stimuli: pd.DataFrame, config: StudyConfig, ordinal: int, index=None) -> list[PlannedTrial]:
    """The classification trial list of participant ``ordinal`` (1-based).

    Parameters
    ----------
    stimuli : pandas.DataFrame
        The study's stimuli (:func:`humanlike.web.stimuli.read_stimuli`).
    config : StudyConfig
        The study.
    ordinal : int
        The participant's number (1, 2, ... in order of arrival).
    index : optional
        :func:`design_index` of the stimuli (built here when not given).

    Returns
    -------
    list of PlannedTrial
        Practice trials, then the main trials in random order with catch trials among them.

    Examples
    --------
    >>> from humanlike.web.config import StudyConfig
    >>> stimuli = pd.DataFrame({"key": [f"{c}/{i}.png" for i in "ab" for c in "xy"],
    ...                         "item": [i for i in "ab" for c in "xy"], "label": ["cat", "cat", "dog", "dog"],
    ...                         "experiment": "e", "condition": [c for i in "ab" for c in "xy"]})
    >>> config = StudyConfig(title="t", task="classify", stimuli=".", labels=["cat", "dog"], practice_trials=0,
    ...                      catch_trials=0)
    >>> [(t.info["item"], t.info["condition"]) for t in sorted(classification_trials(stimuli, config, 1),
    ...                                                        key=lambda t: t.info["item"])]
    [('a', 'x'), ('b', 'y')]
    >>> [(t.info["item"], t.info["condition"]) for t in sorted(classification_trials(stimuli, config, 2),
    ...                                                        key=lambda t: t.info["item"])]
    [('a', 'y'), ('b', 'x')]
    """
    labels = list(config.labels)
    if config.design == "discriminate" and not isinstance(index, DiscriminateIndex):
        raise ValueError("design 'discriminate' plans from the study's design file: pass "
                         "design_index(stimuli, config, folder)")
    groups = index.groups if isinstance(index, DiscriminateIndex) else (
        index if index is not None else _classification_groups(stimuli))
    keys = sorted(groups)
    order = stream(config.seed, "item-order").permutation(len(keys))
    n_items = len(keys)
    wanted = config.trials_per_participant // config.repeats if config.trials_per_participant else n_items
    wanted = max(1, min(wanted, n_items))
    if config.design == "everything":       # every item in every condition
        shown = [row for j in order for row in groups[keys[int(j)]]]
    elif config.design == "discriminate":   # the same draw as ItemDesign.sample(seed, slot) of the design file
        drawn = systematic_sample(index.probability, index.strata,
                                  stream(config.seed, "discriminating-design", ordinal))[0]
        shown = [index.records[int(i)] for i in np.flatnonzero(drawn)]
        # each trial keeps the probability it was drawn with (its weight 1 / pi in the pool-level estimate) and,
        # in an adaptive study, the look whose refit drew it (0: the design file's)
        drawn_with = {id(index.records[int(i)]): float(index.probability[int(i)]) for i in np.flatnonzero(drawn)}
    else:                                   # a block of items, each in its Latin-square condition
        shown = []
        for position in _block(n_items, wanted, ordinal):
            j = int(order[position])
            rows = groups[keys[j]]
            shown.append(rows[(j + ordinal - 1) % len(rows)])
    main = []
    for row in shown:
        for repeat in range(config.repeats):
            info = {"experiment": row["experiment"], "item": row["item"], "label": row["label"],
                    "condition": row["condition"], "repeat": repeat}
            if config.design == "discriminate":
                info["probability"] = drawn_with[id(row)]
                if index.look is not None:
                    info["look"] = index.look
            main.append(PlannedTrial("main", [row["key"]], labels, row["label"], info))
    main = [main[i] for i in stream(config.seed, "order", ordinal).permutation(len(main))]
    rng = stream(config.seed, "practice", ordinal)
    practice = []
    records = [row for key in keys for row in groups[key]]
    for index in rng.choice(len(records), size=min(config.practice_trials, len(records)), replace=False):
        row = records[int(index)]
        practice.append(PlannedTrial("practice", [row["key"]], labels, row["label"],
                                     {"item": row["item"], "condition": row["condition"]}))
    rng = stream(config.seed, "catch", ordinal)
    catch = []
    for _ in range(config.catch_trials):
        target = labels[int(rng.integers(len(labels)))]
        catch.append(PlannedTrial("catch", [], labels, target, {"target": target},
                                  prompt=f"Attention check: please choose \u201c{target}\u201d."))
    return practice + _with_breaks_and_catch(main, catch, config, ordinal)


def _judgement_units(stimuli: pd.DataFrame, task: str) -> list[tuple[str, tuple[int, ...]]]:
    """Every (sequence, levels) judgement of the study: all triads or quadruples of every sequence."""
    units = []
    for sequence, frame in stimuli.groupby("sequence", sort=True):
        n_levels = int(frame["level"].max())
        combos = triad_design(n_levels) if task == "triads" else quad_design(n_levels)
        units.extend((str(sequence), tuple(int(v) for v in combo)) for combo in combos)
    return units


def _judgement_index(stimuli: pd.DataFrame, task: str):
    """(sequence, level) -> key, sequence -> top level, sequence -> (class_a, class_b), and every judgement
    unit."""
    by_level = {(str(s), int(lv)): key for key, s, lv in stimuli[["key", "sequence", "level"]].itertuples(index=False)}
    top = {str(k): int(v) for k, v in stimuli.groupby("sequence")["level"].max().items()}
    classes = {str(k): (str(a), str(b)) for k, a, b in
               stimuli.groupby("sequence")[["class_a", "class_b"]].first().itertuples()}
    return by_level, top, classes, _judgement_units(stimuli, task)


def judgement_trials(stimuli: pd.DataFrame, config: StudyConfig, ordinal: int, index=None,
                     chosen: list | None = None) -> list[PlannedTrial]:
    """The triad or quadruple trial list of participant ``ordinal`` (1-based), sides balanced.

    Parameters
    ----------
    stimuli : pandas.DataFrame
        The study's stimuli (:func:`humanlike.web.stimuli.read_stimuli`, with sequence, level, alpha, classes).
    config : StudyConfig
        The study (task ``triads`` or ``quads``).
    ordinal : int
        The participant's number (1, 2, ... in order of arrival).
    index : optional
        :func:`design_index` of the stimuli (built here when not given).
    chosen : list of (sequence, levels), optional
        The main judgements, chosen elsewhere (design ``adaptive``: :mod:`humanlike.web.adaptive_mlds`); by
        default the participant's block of the study order.

    Returns
    -------
    list of PlannedTrial
        Practice trials, then the main trials in random order with catch trials among them.

    Examples
    --------
    >>> from humanlike.web.config import StudyConfig
    >>> stimuli = pd.DataFrame({"key": [f"s/{k}.png" for k in range(1, 6)], "sequence": "s", "level": range(1, 6),
    ...                         "alpha": np.linspace(0, 1, 5), "class_a": "a", "class_b": "b"})
    >>> config = StudyConfig(title="t", task="triads", stimuli=".", practice_trials=0, catch_trials=0)
    >>> trials = judgement_trials(stimuli, config, 1)
    >>> len(trials), sum(t.info["swapped"] for t in trials)
    (10, 5)
    """
    by_level, top, classes, units = index if index is not None else _judgement_index(stimuli, config.task)
    order = stream(config.seed, "judgement-order").permutation(len(units))
    wanted = config.trials_per_participant or len(units)
    wanted = max(1, min(wanted, len(units)))
    if chosen is None:
        chosen = [units[int(order[p])] for p in _block(len(units), wanted, ordinal)]
    chosen = [chosen[i] for i in stream(config.seed, "order", ordinal).permutation(len(chosen))]
    swaps = np.zeros(len(chosen), bool)
    swaps[: len(chosen) // 2] = True
    swaps = swaps[stream(config.seed, "sides", ordinal).permutation(len(chosen))]

    def trial(kind, sequence, levels, swapped, answer=None):
        pairs = [(levels[0], levels[1]), (levels[1], levels[2]) if len(levels) == 3 else (levels[2], levels[3])]
        if swapped:
            pairs.reverse()
        shown = [by_level[(sequence, lv)] for pair in pairs for lv in pair]
        info = {"sequence": sequence, "levels": list(levels), "swapped": bool(swapped),
                "class_a": classes[sequence][0], "class_b": classes[sequence][1]}
        return PlannedTrial(kind, shown, list(SIDES), answer, info)

    main = [trial("main", seq, levels, swap) for (seq, levels), swap in zip(chosen, swaps)]
    rng = stream(config.seed, "practice", ordinal)
    practice = [trial("practice", *units[int(i)], bool(rng.integers(2)))
                for i in rng.choice(len(units), size=min(config.practice_trials, len(units)), replace=False)]
    rng = stream(config.seed, "catch", ordinal)
    sequences = sorted(top)
    catch = []
    for _ in range(config.catch_trials):
        sequence = sequences[int(rng.integers(len(sequences)))]
        n = top[sequence]
        # an identical pair (1, 1) against the sequence's ends (1, n): the ends always differ more
        left_is_ends = bool(rng.integers(2))
        pairs = [(1, n), (1, 1)] if left_is_ends else [(1, 1), (1, n)]
        shown = [by_level[(sequence, lv)] for pair in pairs for lv in pair]
        catch.append(PlannedTrial("catch", shown, list(SIDES), "left" if left_is_ends else "right",
                                  {"sequence": sequence}))
    return practice + _with_breaks_and_catch(main, catch, config, ordinal)


def design_units(stimuli: pd.DataFrame, config: StudyConfig, index=None) -> int:
    """How many units a participant's block is taken from: items (classification) or judgements.

    Parameters
    ----------
    stimuli : pandas.DataFrame
        The study's stimuli.
    config : StudyConfig
        The study.
    index : optional
        :func:`design_index` of the stimuli.

    Returns
    -------
    int

    Examples
    --------
    >>> from humanlike.web.config import StudyConfig
    >>> stimuli = pd.DataFrame({"key": [f"s/{k}.png" for k in range(1, 6)], "sequence": "s", "level": range(1, 6),
    ...                         "alpha": np.linspace(0, 1, 5), "class_a": "a", "class_b": "b"})
    >>> design_units(stimuli, StudyConfig(title="t", task="triads", stimuli="."))
    10
    """
    index = design_index(stimuli, config) if index is None else index
    return len(index) if config.task == "classify" else len(index[3])


def check_design_size(stimuli: pd.DataFrame, config: StudyConfig, index=None) -> None:
    """Refuse a ``subset``/``pooled`` block that is the whole study or more (one clear error naming the key).

    Parameters
    ----------
    stimuli : pandas.DataFrame
        The study's stimuli.
    config : StudyConfig
        The study.
    index : optional
        :func:`design_index` of the stimuli.

    Raises
    ------
    humanlike.web.config.StudyConfigError
        When ``trials_per_participant`` (over ``repeats``) reaches the number of items / judgements.

    Examples
    --------
    >>> from humanlike.web.config import StudyConfig
    >>> stimuli = pd.DataFrame({"key": [f"s/{k}.png" for k in range(1, 6)], "sequence": "s", "level": range(1, 6),
    ...                         "alpha": np.linspace(0, 1, 5), "class_a": "a", "class_b": "b"})
    >>> check_design_size(stimuli, StudyConfig(title="t", task="triads", stimuli=".", design="pooled",
    ...                                        trials_per_participant=10))
    Traceback (most recent call last):
        ...
    humanlike.web.config.StudyConfigError: key 'trials_per_participant': design 'pooled' takes part of the 10 judgements, got 10 (use design 'everything')
    """
    from .config import StudyConfigError

    if config.design not in ("subset", "pooled", "adaptive"):
        return   # discriminate: its design file's probabilities were checked against the stimuli when read
    n_units = design_units(stimuli, config, index)
    wanted = config.trials_per_participant // (config.repeats if config.task == "classify" else 1)
    unit = "items" if config.task == "classify" else "judgements"
    if wanted >= n_units:
        raise StudyConfigError(f"key 'trials_per_participant': design {config.design!r} takes part of the "
                               f"{n_units} {unit}, got {config.trials_per_participant} (use design 'everything')")


@dataclass
class DiscriminateIndex:
    """The stimuli of a ``discriminate`` study arranged for planning: the classification groups and, for every
    candidate item of the design file (in its order), its stimulus record, inclusion probability and condition.

    Attributes
    ----------
    groups : dict
        As :func:`design_index` of a classification study (practice trials are drawn from them).
    records : list of dict
        The stimulus of each candidate item.
    probability : numpy.ndarray
        Each candidate's inclusion probability.
    strata : numpy.ndarray
        Each candidate's ``experiment/condition``.
    look : int or None
        An adaptive study's look whose refit gave ``probability`` (0: the design file's); None otherwise.

    Examples
    --------
    >>> DiscriminateIndex({}, [], np.zeros(0), np.zeros(0, dtype=object)).records
    []
    """

    groups: dict
    records: list
    probability: np.ndarray
    strata: np.ndarray
    look: int | None = None


def discriminate_index(stimuli: pd.DataFrame, config: StudyConfig, folder) -> DiscriminateIndex:
    """Read the study's design file and match its items to the stimuli.

    Parameters
    ----------
    stimuli : pandas.DataFrame
        The study's stimuli.
    config : StudyConfig
        The study (design ``discriminate``).
    folder : path
        The study folder (the design file is relative to it).

    Returns
    -------
    DiscriminateIndex

    Raises
    ------
    humanlike.web.config.StudyConfigError
        For a missing file or column, an item that is not a stimulus, a probability outside (0, 1], or a
        condition whose probabilities do not sum to the trials per participant and condition.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> folder = Path(tempfile.mkdtemp())
    >>> pd.DataFrame({"experiment": "e", "condition": "0", "item": ["a", "b"], "probability": [0.5, 0.5]}).to_csv(
    ...     folder / "discriminate.csv", index=False)
    >>> stimuli = pd.DataFrame({"key": ["a.png", "b.png"], "item": ["a", "b"], "label": ["cat", "dog"],
    ...                         "experiment": "e", "condition": "0"})
    >>> config = StudyConfig(title="t", task="classify", stimuli=".", labels=["cat", "dog"], design="discriminate",
    ...                      trials_per_participant=1, design_file="discriminate.csv")
    >>> discriminate_index(stimuli, config, folder).probability.tolist()
    [0.5, 0.5]
    """
    from pathlib import Path

    from .config import StudyConfigError

    path = Path(folder) / config.design_file
    if not path.exists():
        raise StudyConfigError(f"key 'design_file': {path} does not exist")
    keys = ["experiment", "condition", "item"]
    table = pd.read_csv(path, dtype={k: str for k in keys})
    missing = [c for c in (*keys, "probability") if c not in table.columns]
    if missing:
        raise StudyConfigError(f"key 'design_file': {path} lacks column(s) {', '.join(missing)}")
    by_key = {(r["experiment"], r["condition"], r["item"]): r
              for r in stimuli.astype({k: str for k in keys}).to_dict("records")}
    records = []
    for row in table[keys].itertuples(index=False):
        if tuple(row) not in by_key:
            raise StudyConfigError(f"key 'design_file': {path} lists item {row.item!r} of condition "
                                   f"{row.condition!r} (experiment {row.experiment!r}), which is not a stimulus")
        records.append(by_key[tuple(row)])
    probability = table["probability"].to_numpy(dtype=float)
    if np.any(~(probability > 0)) or np.any(probability > 1):
        raise StudyConfigError(f"key 'design_file': {path} has a probability outside (0, 1]; every candidate item "
                               "needs a probability above 0")
    strata = (table["experiment"] + "/" + table["condition"]).to_numpy()
    sums = pd.Series(probability).groupby(strata).sum()
    per = config.trials_per_participant // config.repeats
    if not np.allclose(sums.to_numpy() * len(sums), per, atol=1e-6):
        raise StudyConfigError(f"key 'trials_per_participant': {config.trials_per_participant} main trials over "
                               f"{len(sums)} condition(s) do not match {path}'s probabilities (each condition's sum "
                               f"is the items per participant and condition: {sorted(set(sums.round(6)))})")
    return DiscriminateIndex(_classification_groups(stimuli), records, probability, strata,
                             0 if config.adaptive else None)


def design_index(stimuli: pd.DataFrame, config: StudyConfig, folder=None):
    """The stimuli arranged for planning, built once per study (a participant's list is then planned in
    about a millisecond while they wait).

    Parameters
    ----------
    stimuli : pandas.DataFrame
        The study's stimuli.
    config : StudyConfig
        The study.
    folder : path, optional
        The study folder: needed by design ``discriminate`` (:func:`discriminate_index`).

    Returns
    -------
    object
        What :func:`plan_trials` takes as ``index``.

    Examples
    --------
    >>> from humanlike.web.config import StudyConfig
    >>> stimuli = pd.DataFrame({"key": ["a.png", "b.png"], "item": ["a", "b"], "label": ["cat", "dog"],
    ...                         "experiment": "e", "condition": "0"})
    >>> config = StudyConfig(title="t", task="classify", stimuli=".", labels=["cat", "dog"])
    >>> sorted(design_index(stimuli, config))
    [('e', 'a'), ('e', 'b')]
    """
    if config.design == "discriminate":
        return discriminate_index(stimuli, config, folder)
    if config.task == "classify":
        return _classification_groups(stimuli)
    return _judgement_index(stimuli, config.task)


def plan_trials(stimuli: pd.DataFrame, config: StudyConfig, ordinal: int, index=None) -> list[PlannedTrial]:
    """The trial list of participant ``ordinal`` for the study's task.

    Parameters
    ----------
    stimuli : pandas.DataFrame
        The study's stimuli.
    config : StudyConfig
        The study.
    ordinal : int
        The participant's number (1, 2, ... in order of arrival).
    index : optional
        :func:`design_index` of the stimuli (built here when not given).

    Returns
    -------
    list of PlannedTrial

    Examples
    --------
    >>> from humanlike.web.config import StudyConfig
    >>> stimuli = pd.DataFrame({"key": ["a.png", "b.png"], "item": ["a", "b"], "label": ["cat", "dog"],
    ...                         "experiment": "e", "condition": "0"})
    >>> config = StudyConfig(title="t", task="classify", stimuli=".", labels=["cat", "dog"], practice_trials=1,
    ...                      catch_trials=1)
    >>> [t.kind for t in plan_trials(stimuli, config, 1)].count("main")
    2
    """
    if config.task == "classify":
        return classification_trials(stimuli, config, ordinal, index)
    return judgement_trials(stimuli, config, ordinal, index)


def physical_response(side: str, swapped: bool) -> int:
    """The judgement table's response (1 = the second pair in physical order differs more) of a chosen side.

    Parameters
    ----------
    side : {"left", "right"}
        The pair the participant chose.
    swapped : bool
        Whether the second physical pair was shown on the left.

    Returns
    -------
    int

    Examples
    --------
    >>> physical_response("right", False), physical_response("right", True), physical_response("left", True)
    (1, 0, 1)
    """
    return int((side == "right") != bool(swapped))
