"""The argparse types of the numbers the commands take: integers and finite numbers in a range, resample counts,
confidence levels, memory budgets.

Each type raises ``argparse.ArgumentTypeError`` for a value it refuses (argparse turns that into a usage error
naming the option) and carries ``bad_examples``, values it refuses, which the option corpus test
(``tests/app/test_option_corpus.py``) feeds to every option.
"""

from __future__ import annotations

import argparse
import math


def _parse_number(text: str, kind, what: str):
    try:
        value = kind(text)
    except (TypeError, ValueError):
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
    if kind is float and not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
    return value


def int_at_least(low: int, high: int | None = None):
    """argparse type: an integer of at least ``low`` (and at most ``high``).

    The returned function carries ``bad_examples``, values it refuses, for the option corpus test.

    Parameters
    ----------
    low : int
        The smallest value accepted.
    high : int, optional
        The largest value accepted (default: no upper bound).

    Returns
    -------
    callable
        ``parse(text: str) -> int``, raising ``argparse.ArgumentTypeError`` for text that is not an integer in
        the range (argparse turns it into a usage error naming the option).

    Examples
    --------
    >>> int_at_least(1)("3")
    3
    >>> int_at_least(1, 5)("6")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: must be between 1 and 5, got 6
    """
    def parse(text: str) -> int:
        value = _parse_number(text, int, "an integer")
        if value < low or (high is not None and value > high):
            bound = f"at least {low}" if high is None else f"between {low} and {high}"
            raise argparse.ArgumentTypeError(f"must be {bound}, got {value}")
        return value

    parse.__name__ = f"integer >= {low}"
    parse.__doc__ = (f"argparse type: an integer of at least {low}" + ("" if high is None else f" and at most {high}")
                     + ".\n\nParameters\n----------\ntext : str\n    The option's value.\n\n"
                     "Returns\n-------\nint\n    The value.\n\n"
                     "Raises\n------\nargparse.ArgumentTypeError\n    For text that is not an integer in the range.\n\n"
                     f"Examples\n--------\n>>> int_at_least({low})('{low + 5}')\n{low + 5}\n")
    parse.bad_examples = ("x", "1.5", "nan", "", str(low - 1), "-7", *(() if high is None else (str(high + 1),)))
    return parse


def float_in(low: float = -math.inf, high: float = math.inf, *, open_low: bool = False, open_high: bool = False):
    """argparse type: a finite number in an interval (open or closed at each end).

    The returned function carries ``bad_examples``, values it refuses, for the option corpus test.

    Parameters
    ----------
    low, high : float
        The interval's ends (default: the whole real line; NaN and infinities are always refused).
    open_low, open_high : bool
        Exclude ``low`` (``high``) itself (default: closed ends).

    Returns
    -------
    callable
        ``parse(text: str) -> float``, raising ``argparse.ArgumentTypeError`` for text that is not a finite
        number in the interval.

    Examples
    --------
    >>> float_in(0, 1, open_low=True)("0.5")
    0.5
    >>> float_in(0, 1, open_low=True)("0")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: must lie in (0, 1], got 0
    """
    def parse(text: str) -> float:
        value = _parse_number(text, float, "a number")
        if value < low or value > high or (open_low and value == low) or (open_high and value == high):
            lo, hi = ("(" if open_low else "["), (")" if open_high else "]")
            raise argparse.ArgumentTypeError(f"must lie in {lo}{low:g}, {high:g}{hi}, got {value:g}")
        return value

    bad = ["x", "nan", "inf", "-inf", ""]
    if math.isfinite(low):
        bad += [repr(low - 1.0)] + ([repr(float(low))] if open_low else [])
    if math.isfinite(high):
        bad += [repr(high + 1.0)] + ([repr(float(high))] if open_high else [])
    parse.__name__ = "number"
    parse.__doc__ = (f"argparse type: a finite number in {'(' if open_low else '['}{low:g}, {high:g}"
                     f"{')' if open_high else ']'}.\n\n"
                     "Parameters\n----------\ntext : str\n    The option's value.\n\n"
                     "Returns\n-------\nfloat\n    The value.\n\n"
                     "Raises\n------\nargparse.ArgumentTypeError\n    For text that is not a finite number in the "
                     "interval.\n\nExamples\n--------\n>>> float_in(0, 1)('0.5')\n0.5\n")
    parse.bad_examples = tuple(bad)
    return parse


#: argparse types shared by the commands.
seed_value = int_at_least(0)
count = int_at_least(0)
positive_count = int_at_least(1)
probability = float_in(0.0, 1.0, open_low=True, open_high=True)


def resample_count(text: str) -> int:
    """argparse type: 0 (no intervals) or an integer of at least 2.

    Parameters
    ----------
    text : str
        The option's value.

    Returns
    -------
    int
        The number of resamples.

    Raises
    ------
    argparse.ArgumentTypeError
        For text that is not a valid value (argparse turns it into a usage error naming the option).

    Examples
    --------
    >>> resample_count("1000"), resample_count("0")
    (1000, 0)
    """
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if value < 0 or value == 1:
        raise argparse.ArgumentTypeError(f"must be 0 (no intervals) or at least 2, got {value}")
    return value


def confidence_level(text: str) -> float:
    """argparse type: a confidence level in (0, 1).

    Parameters
    ----------
    text : str
        The option's value.

    Returns
    -------
    float
        The level.

    Raises
    ------
    argparse.ArgumentTypeError
        For text that is not a valid value (argparse turns it into a usage error naming the option).

    Examples
    --------
    >>> confidence_level("0.9")
    0.9
    """
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number in (0, 1), got {text!r}") from None
    if not 0.0 < value < 1.0:  # NaN fails this too
        raise argparse.ArgumentTypeError(f"must lie in (0, 1), got {value}")
    return value


def gibibytes(text: str) -> int:
    """argparse type: a memory budget in GiB (e.g. ``2`` or ``0.5``), returned in bytes.

    Parameters
    ----------
    text : str
        The option's value in GiB.

    Returns
    -------
    int
        The budget in bytes.

    Raises
    ------
    argparse.ArgumentTypeError
        For text that is not a valid value (argparse turns it into a usage error naming the option).

    Examples
    --------
    >>> gibibytes("0.5")
    536870912
    """
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of GiB, got {text!r}") from None
    if not 0 < value < math.inf:
        raise argparse.ArgumentTypeError(f"must be a positive, finite number of GiB, got {text}")
    if value * 1024**3 < 1024**2:
        raise argparse.ArgumentTypeError(f"{text} GiB is less than 1 MiB; nothing fits in it")
    return int(value * 1024**3)


resample_count.bad_examples = ("-3", "1", "many", "1.5", "nan", "1e8", "")
confidence_level.bad_examples = ("0", "1", "1.5", "-0.5", "nan", "inf", "95%", "")
gibibytes.bad_examples = ("0", "-1", "nan", "inf", "lots", "1e-9", "")


def bounded_resample_count(most: int, why: str):
    """argparse type: like :func:`resample_count`, at most ``most`` (``why``: the cost that sets the bound).

    For commands whose every resample refits a model (minutes per thousand), where the memory check of the
    engine does not stop an absurd request before it runs for days.

    Parameters
    ----------
    most : int
        The largest number of resamples accepted.
    why : str
        The cost that sets the bound, quoted in the error message.

    Returns
    -------
    callable
        ``parse(text: str) -> int``, raising ``argparse.ArgumentTypeError`` for text that
        :func:`resample_count` refuses or a count above ``most``.

    Examples
    --------
    >>> bounded_resample_count(100, "refits")("50")
    50
    >>> bounded_resample_count(100, "refits")("101")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: at most 100 (refits), got 101
    """
    def parse(text: str) -> int:
        value = resample_count(text)
        if value > most:
            raise argparse.ArgumentTypeError(f"at most {most:,} ({why}), got {value:,}")
        return value

    parse.__name__ = "resample count"
    parse.__doc__ = (f"argparse type: 0 or 2 to {most} resamples ({why}).\n\n"
                     "Parameters\n----------\ntext : str\n    The option's value.\n\n"
                     "Returns\n-------\nint\n    The number of resamples.\n\n"
                     "Raises\n------\nargparse.ArgumentTypeError\n    For text that is not 0 or an integer "
                     f"from 2 to {most}.\n\n"
                     "Examples\n--------\n>>> bounded_resample_count(9, 'x')('5')\n5\n")
    parse.bad_examples = (*resample_count.bad_examples, str(most + 1))
    return parse
