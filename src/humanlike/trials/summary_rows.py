"""The summary rows the measures write beside the observers' rows (``humans``, ``human mean``, ...): the one list
of them, which :func:`humanlike.trials.schema.validate_trials` refuses as observer names."""

from __future__ import annotations

#: The summary rows the analyses write beside the observers' rows, each with what it is: the one list of them.
#: A measure names a summary row through :func:`summary_row`, which accepts only these, and an observer may not
#: take one of these names (compared case-insensitively): its rows would be read as the summary's
#: (tests/test_bad_input_round2.py checks every row label the measures write against it).
SUMMARY_ROWS: dict[str, str] = {
    "humans": "the human-human ceiling, or all human trials pooled",
    "model-model": "the model-model mean",
    "model-human (mean)": "the mean over model-human pairs",
    "human mean": "the mean of each human's own value (shapebias, psychometrics)",
}


def summary_row(name: str) -> str:
    """The label of a summary row a measure writes (its constant is defined through this), one of
    :data:`SUMMARY_ROWS`, which observers may not be named.

    Parameters
    ----------
    name : str
        The row's label.

    Returns
    -------
    str
        ``name``.

    Raises
    ------
    ValueError
        For a label not in :data:`SUMMARY_ROWS`: add it there (so that an observer cannot impersonate it).

    Examples
    --------
    >>> summary_row("human mean")
    'human mean'
    >>> summary_row("model mean")
    Traceback (most recent call last):
    ...
    ValueError: summary row 'model mean' is not in humanlike.trials.summary_rows.SUMMARY_ROWS: add it there, so that no observer can take its name
    """
    if name not in SUMMARY_ROWS:
        raise ValueError(f"summary row {name!r} is not in humanlike.trials.summary_rows.SUMMARY_ROWS: add it there, "
                         "so "
                         "that no observer can take its name")
    return name
