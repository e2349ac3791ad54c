"""``humanlike plan design``: how many participants a study design needs for a target interval width,
before the study.

Simulation-based, with the server's own trial generator: for each candidate number of participants, the
participants' trial lists are planned exactly as ``humanlike serve`` would plan them (:mod:`humanlike.web.design`)
on a synthetic study of the stated size, simulated participants with a planted truth answer them, and the
analysis the study will run estimates the interval:

- classification (``ec``): participants right with ``p_easy`` on half of the items and ``p_hard`` on the other
  half (an error consistency of about 0.5 between two of them for the defaults); the width of the 95%
  jackknife-t interval of the mean human-human error consistency (:func:`humanlike.measures.ec.analysis.error_consistency`);
- triads / quadruples (``mlds``): participants with the scale psi = level ** ``exponent`` and decision noise
  ``sigma``; the mean width over the interior levels and the scales of the 95% interval of the pooled standard
  scale, whose bootstrap resamples participants (:mod:`humanlike.measures.mlds.pooled`).

Each candidate is simulated ``repeats`` times (the median width is reported); a study's own widths scatter
around it. The docs (docs/run-your-own-experiment.md#planning-a-design) explain the assumptions.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..resampling.rng import stream
from ..resampling.settings import ResamplingSettings
from .config import StudyConfig
from .design import check_design_size, design_index, physical_response, plan_trials

LABELS = ("a", "b")
#: A simulated study whose pooled scale is undefined in more resamples than this has no usable interval.
MAX_UNDEFINED_SHARE = 0.1


def synthetic_stimuli(task: str, n_items: int, n_conditions: int = 1, n_levels: int = 7,
                      n_sequences: int = 3) -> pd.DataFrame:
    """A study's stimulus table without images: what the trial generator plans from.

    Parameters
    ----------
    task : {"classify", "triads", "quads"}
        The task.
    n_items, n_conditions : int
        Classification: items, and conditions each item is shown in.
    n_levels, n_sequences : int
        Judgements: levels per sequence and sequences (one scale each).

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> len(synthetic_stimuli("classify", 32, 2)), len(synthetic_stimuli("triads", 0, n_levels=7, n_sequences=3))
    (64, 21)
    """
    if task == "classify":
        return pd.DataFrame([{"key": f"c{c}/i{i}", "item": f"i{i:04d}", "label": LABELS[i % 2], "experiment": "e",
                              "condition": f"c{c}"} for c in range(n_conditions) for i in range(n_items)])
    return pd.DataFrame([{"key": f"s{s}/{lv}", "sequence": f"s{s}", "level": lv, "alpha": (lv - 1) / (n_levels - 1),
                          "class_a": f"x{s}", "class_b": f"y{s}"}
                         for s in range(n_sequences) for lv in range(1, n_levels + 1)])


def simulated_study(config: StudyConfig, stimuli: pd.DataFrame, n_participants: int, seed: int, *,
                    p_easy: float = 0.9, p_hard: float = 0.2, exponent: float = 2.0,
                    sigma: float = 0.2) -> pd.DataFrame:
    """The table a study would export: the server's trial lists, answered by simulated participants.

    Parameters
    ----------
    config : StudyConfig
        The study (task, design, trials per participant).
    stimuli : pandas.DataFrame
        :func:`synthetic_stimuli`.
    n_participants : int
        Participants.
    seed : int
        Seed of the answers (each participant its own stream).
    p_easy, p_hard : float
        Classification: chance of a right answer on the easy half and the hard half of the items.
    exponent, sigma : float
        Judgements: the scale psi = alpha ** exponent and the decision noise.

    Returns
    -------
    pandas.DataFrame
        A trial table (classification) or a difference-judgement table (judgements).

    Examples
    --------
    >>> config = StudyConfig(title="t", task="triads", stimuli=".", design="pooled", trials_per_participant=20,
    ...                      practice_trials=0, catch_trials=0)
    >>> table = simulated_study(config, synthetic_stimuli("triads", 0, n_levels=7), 5, seed=0)
    >>> len(table), table["observer"].nunique()
    (100, 5)
    """
    index = design_index(stimuli, config)
    check_design_size(stimuli, config, index)
    rows = []
    for ordinal in range(1, n_participants + 1):
        rng = stream(seed, "plan-participant", ordinal)
        for trial in plan_trials(stimuli, config, ordinal, index):
            if trial.kind != "main":
                continue
            info = trial.info
            if config.task == "classify":
                hard = int(info["item"][1:]) % 4 >= 2
                correct = bool(rng.random() < (p_hard if hard else p_easy))
                rows.append({"observer": f"p{ordinal:04d}", "observer_kind": "human", "experiment": "e",
                             "condition": info["condition"], "item": info["item"], "label": info["label"],
                             "response": info["label"] if correct else next(x for x in LABELS if x != info["label"]),
                             "correct": correct})
                continue
            levels = list(info["levels"])
            n_levels = int(stimuli["level"].max())
            psi = ((np.asarray(levels) - 1) / (n_levels - 1)) ** exponent
            first, second = ((psi[1] - psi[0], psi[2] - psi[1]) if len(levels) == 3
                             else (psi[1] - psi[0], psi[3] - psi[2]))
            said_second = (abs(second) - abs(first) + sigma * rng.normal()) > 0   # physical order
            side = "right" if said_second != bool(info["swapped"]) else "left"
            rows.append({"observer": f"p{ordinal:04d}", "scale": info["sequence"],
                         **{f"s{k + 1}": levels[k] if k < len(levels) else pd.NA for k in range(4)},
                         "response": physical_response(side, info["swapped"])})
    table = pd.DataFrame(rows)
    if config.task != "classify":
        for k in range(4):
            table[f"s{k + 1}"] = pd.array(table[f"s{k + 1}"], dtype="Int64")
    return table


def interval_width(table: pd.DataFrame, task: str, *, resamples: int, seed: int,
                   pool_pairs: bool = False) -> tuple[float, float]:
    """The interval width the study's analysis gives, and its estimate: the mean human-human EC
    (classification) or the pooled MLDS standard scale, widths and values averaged over the interior levels
    and the scales (judgements); NaN where undefined.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`simulated_study`.
    task : str
        The task.
    resamples, seed : int
        Bootstrap resamples and seed.
    pool_pairs : bool
        Classification: the pooled error consistency (what ``humanlike ec STUDY`` gives a study whose pairs
        share part of the trials; :func:`humanlike.measures.ec.analysis.error_consistency`).

    Returns
    -------
    width, estimate : float
        NaN also where more than :data:`MAX_UNDEFINED_SHARE` of the resamples have no scale (too few
        participants: separated or a level without trials).

    Examples
    --------
    >>> config = StudyConfig(title="t", task="classify", stimuli=".", labels=list(LABELS), practice_trials=0,
    ...                      catch_trials=0)
    >>> table = simulated_study(config, synthetic_stimuli("classify", 16, 1), 6, seed=0)
    >>> width, estimate = interval_width(table, "classify", resamples=50, seed=0)
    >>> 0 < width < 2, -1 <= estimate <= 1
    (True, True)
    """
    import warnings

    with warnings.catch_warnings():      # a simulated study's warnings (undefined resamples) are not the user's
        warnings.simplefilter("ignore", RuntimeWarning)
        return _interval_width(table, task, resamples, seed, pool_pairs)


def _interval_width(table: pd.DataFrame, task: str, resamples: int, seed: int,
                    pool_pairs: bool) -> tuple[float, float]:
    if task == "classify":
        from ..measures.ec.analysis import error_consistency

        result = error_consistency(table, settings=ResamplingSettings(n_resamples=resamples, seed=seed),
                                   pool_pairs=pool_pairs)
        frame = result.summary_frame()
        row = frame[(frame["scope"] == "overall") & (frame["kind"] == "human-human")
                    & (frame["metric"] == "error_consistency")]
        if not len(row):
            return float("nan"), float("nan")
        return float(row["ci_high"].iloc[0] - row["ci_low"].iloc[0]), float(row["estimate"].iloc[0])
    from ..measures.mlds.analysis import analyse_mlds

    results = analyse_mlds(table, settings=ResamplingSettings(n_resamples=resamples, seed=seed), pool="always")
    widths, values = [], []
    for result in results:
        if result.bootstrap is None or result.bootstrap.separated_share > MAX_UNDEFINED_SHARE:
            return float("nan"), float("nan")   # too few participants: most resamples have no scale
        low, high = result.intervals()["standard_scale"]
        widths.append(np.asarray(high - low)[1:-1])
        values.append(np.asarray(result.standard_scale)[1:-1])
    return float(np.mean(np.concatenate(widths))), float(np.mean(np.concatenate(values)))


def planted_truth(task: str, *, p_easy: float = 0.9, p_hard: float = 0.2, exponent: float = 2.0,
                  n_levels: int = 7, **_) -> float:
    """What :func:`plan_design`'s ``median_estimate`` would be without error: the error consistency of two
    independent simulated participants, or the mean interior value of the true standard scale.

    Parameters
    ----------
    task : str
        The task.
    p_easy, p_hard, exponent : float
        The planted truth (:func:`simulated_study`).
    n_levels : int
        Judgements: levels per sequence.

    Returns
    -------
    float

    Examples
    --------
    >>> round(planted_truth("classify"), 3), round(planted_truth("triads", n_levels=7), 3)
    (0.495, 0.306)
    """
    if task == "classify":
        both_right = (p_easy ** 2 + p_hard ** 2) / 2
        both_wrong = ((1 - p_easy) ** 2 + (1 - p_hard) ** 2) / 2
        right = (p_easy + p_hard) / 2
        expected = right ** 2 + (1 - right) ** 2
        return (both_right + both_wrong - expected) / (1 - expected)
    return float(np.mean((np.arange(1, n_levels - 1) / (n_levels - 1)) ** exponent))


def plan_design(config: StudyConfig, stimuli: pd.DataFrame, participants, *, repeats: int = 3,
                resamples: int = 200, seed: int = 0, **truth) -> pd.DataFrame:
    """Median interval width for each candidate number of participants.

    Parameters
    ----------
    config : StudyConfig
        The study's task, design and trials per participant.
    stimuli : pandas.DataFrame
        :func:`synthetic_stimuli` of the study's size.
    participants : iterable of int
        Candidate numbers of participants.
    repeats : int
        Simulated studies per candidate.
    resamples, seed : int
        Bootstrap resamples of each analysis, and the one seed.
    **truth
        The planted truth (:func:`simulated_study`: ``p_easy``, ``p_hard``, ``exponent``, ``sigma``).

    Returns
    -------
    pandas.DataFrame
        ``participants, median_width, min_width, max_width, median_estimate`` (to set against the truth:
        :func:`planted_truth`) and ``undefined`` (simulated studies without an interval).

    Examples
    --------
    >>> config = StudyConfig(title="t", task="triads", stimuli=".", design="pooled", trials_per_participant=20,
    ...                      practice_trials=0, catch_trials=0)
    >>> stimuli = synthetic_stimuli("triads", 0, n_levels=6, n_sequences=2)             # 40 triads
    >>> plan = plan_design(config, stimuli, [10, 40], repeats=1, resamples=50)
    >>> bool(plan["median_width"].iloc[1] < plan["median_width"].iloc[0])
    True
    """
    rows = []
    for n in participants:
        studies = [simulated_study(config, stimuli, int(n), seed=int(stream(seed, "plan", n, r).integers(2**31)),
                                   **truth) for r in range(repeats)]
        # analysed as `humanlike ec STUDY --pool auto` will: pooled where pairs share part of the trials
        found = np.array([interval_width(table, config.task, resamples=resamples, seed=seed,
                                         pool_pairs=config.design != "everything") for table in studies])
        widths, estimates = found[:, 0], found[:, 1]
        finite = widths[np.isfinite(widths)]
        rows.append({"participants": int(n),
                     "median_width": float(np.median(finite)) if finite.size else float("nan"),
                     "min_width": float(finite.min()) if finite.size else float("nan"),
                     "max_width": float(finite.max()) if finite.size else float("nan"),
                     "median_estimate": float(np.median(estimates[np.isfinite(widths)])) if finite.size
                     else float("nan"),
                     "undefined": int((~np.isfinite(widths)).sum())})
    return pd.DataFrame(rows)
