"""Independent pieces of one computation run side by side in threads (numpy releases the GIL in its loops).

Used where the pieces write disjoint parts of a result, so that the numbers never depend on how many threads
ran them; :data:`BLOCK_ELEMENTS` sizes the column blocks of the column-blocked code.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

Item = TypeVar("Item")
Value = TypeVar("Value")

#: Elements of a matrix one column block holds in the column-blocked code (the replicates of
#: :func:`~humanlike.resampling.intervals.percentile_interval` and :func:`~humanlike.resampling.intervals.nan_counts`,
#: the leave-one-out rows of :meth:`~humanlike.resampling.jackknife.RowMoments.of`): bounds its memory. Blocks hold
#: disjoint columns, so their size changes no number.
BLOCK_ELEMENTS = 2_000_000


def available_cores() -> int:
    """The number of cores this process may run on (its CPU affinity where the system has one).

    Returns
    -------
    int
        At least 1.

    Examples
    --------
    >>> available_cores() >= 1
    True
    """
    try:
        return max(len(os.sched_getaffinity(0)), 1)
    except AttributeError:  # not on Linux
        return max(os.cpu_count() or 1, 1)


def map_in_threads(function: Callable[[Item], Value], items: Iterable[Item], workers: int | None = None) -> list[Value]:
    """``[function(item) for item in items]``, the items run in up to ``workers`` threads at a time.

    Parameters
    ----------
    function : callable
        Applied to every item; pieces must not depend on each other.
    items : iterable
        The pieces.
    workers : int, optional
        Most threads at once (default: :func:`available_cores`); 1, or a single item, runs in this thread.

    Returns
    -------
    list
        The results, in the order of ``items``.

    Examples
    --------
    >>> map_in_threads(lambda x: x * x, range(5), workers=2)
    [0, 1, 4, 9, 16]
    """
    items = list(items)
    workers = min(available_cores() if workers is None else int(workers), len(items))
    if workers < 2:
        return [function(item) for item in items]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(function, items))


@contextlib.contextmanager
def running_beside(function: Callable[..., Value], *args, **kwargs) -> Iterator[Future]:
    """Run ``function(*args, **kwargs)`` in a thread of its own while the ``with`` block runs in this one.

    For two independent parts of one analysis, the second of which leaves cores idle (serial stretches,
    aggregation): the first fills them. Leaving the block waits for the thread; an error in it is raised by
    ``future.result()``.

    Parameters
    ----------
    function : callable
        The work to run beside the block; it must not change anything the block reads.
    *args, **kwargs
        Its arguments.

    Returns
    -------
    contextlib.AbstractContextManager
        Yields a :class:`concurrent.futures.Future` of the function's result.

    Examples
    --------
    >>> with running_beside(sum, [1, 2, 3]) as later:
    ...     here = max([1, 2, 3])
    >>> later.result() + here
    9
    """
    with ThreadPoolExecutor(max_workers=1) as pool:
        yield pool.submit(function, *args, **kwargs)
