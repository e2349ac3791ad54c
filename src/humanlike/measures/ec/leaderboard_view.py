"""The leaderboard as text: model-vs-human's two tables, every value and rank with its interval."""

from __future__ import annotations

import numpy as np


def _interval(value, low, high, digits: int = 3) -> str:
    if not np.isfinite(value):
        return "nan"
    if not (np.isfinite(low) and np.isfinite(high)):
        return f"{value:.{digits}f}"
    return f"{value:.{digits}f} [{low:.{digits}f}, {high:.{digits}f}]"


def _rank(value, low, high) -> str:
    if not np.isfinite(value):
        return ""
    if not (np.isfinite(low) and np.isfinite(high)):
        return f"{value:g}"
    return f"{value:g} [{low:g}, {high:g}]"


def format_leaderboard(board) -> str:
    """Both leaderboard tables as aligned text.

    Parameters
    ----------
    board : Leaderboard
        From :func:`humanlike.measures.ec.leaderboard.leaderboard`.

    Returns
    -------
    str
        "Most human-like" (place, mean rank, accuracy difference, observed and error consistency, each with its
        interval) and "OOD accuracy" (place and accuracy), then a legend line.

    Examples
    --------
    >>> from humanlike.measures.ec.benchmark import run_benchmark
    >>> from humanlike.measures.ec.leaderboard import leaderboard
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> board = leaderboard(run_benchmark(simulate_benchmark(seed=0), exclusions=None, settings=ResamplingSettings(n_resamples=100, seed=0)))
    >>> print(format_leaderboard(board).splitlines()[2])
    model-humanlike             1 [1, 1.5]            2 [2, 2]    0.010 [0.009, 0.014]    0.745 [0.734, 0.755]    0.300 [0.272, 0.323]
    """
    t = board.table
    width = max([24] + [len(str(o)) + 2 for o in t["observer"]])
    level = int(round(100 * board.level))
    lines = ["Most human-like (model-vs-human's ranking: mean of the ranks of the three columns)",
             f"{'model':<{width}}{'place':>14}{'mean rank':>20}{'accuracy diff.':>24}"
             f"{'observed cons.':>24}{'error cons.':>24}"]
    for r in t.to_dict("records"):
        lines.append(
            f"{r['observer']:<{width}}{_rank(r['place'], r['place_low'], r['place_high']):>14}"
            f"{_rank(round(r['mean_rank'], 2), round(r['mean_rank_low'], 2), round(r['mean_rank_high'], 2)):>20}"
            f"{_interval(r['accuracy_difference'], r['accuracy_difference_low'], r['accuracy_difference_high']):>24}"
            f"{_interval(r['observed_consistency'], r['observed_consistency_low'], r['observed_consistency_high']):>24}"
            f"{_interval(r['error_consistency'], r['error_consistency_low'], r['error_consistency_high']):>24}")
    o = board.ood_table
    lines += ["", "Highest OOD accuracy", f"{'model':<{width}}{'place':>14}{'OOD accuracy':>22}"]
    for r in o.to_dict("records"):
        lines.append(f"{r['observer']:<{width}}{_rank(r['place'], r['place_low'], r['place_high']):>14}"
                     f"{_interval(r['ood_accuracy'], r['ood_accuracy_low'], r['ood_accuracy_high']):>22}")
    lines.append(f"(estimate [{level}% {board.interval_method} interval]; "
                 f"place and mean rank [{level}% interval over resamples]; "
                 "accuracy difference: lower is better; "
                 f"{len(board.experiments)} experiments; 'humans' = human-human values, unranked)")
    return "\n".join(lines)
