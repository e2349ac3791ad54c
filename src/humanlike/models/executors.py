"""Where work units run: in this process (default), any ``concurrent.futures``-style executor, or Dask.

Units are submitted as ``executor.submit(run_unit, unit)``; a unit carries a model *spec*, and the
worker builds the model itself (never pickled across, no CUDA context before a worker starts).
"""

from __future__ import annotations

import contextlib
from concurrent.futures import Future


class InlineExecutor:
    """Runs each submitted call at once in this process (a ``concurrent.futures``-style stand-in).

    Examples
    --------
    >>> pool = InlineExecutor()
    >>> pool.submit(pow, 2, 10).result()
    1024
    >>> type(pool.submit(int, "x").exception()).__name__  # errors come back through the future
    'ValueError'
    """

    def submit(self, fn, /, *args, **kwargs) -> Future:
        """Run ``fn(*args, **kwargs)`` now and return a finished future (the in-process executor).

        Parameters
        ----------
        fn : callable
            The function to call.
        *args, **kwargs
            Its arguments.

        Returns
        -------
        concurrent.futures.Future
            Done, holding the result or the exception.
        """
        future: Future = Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except BaseException as err:  # delivered through the future, like a real executor
            future.set_exception(err)
        return future


@contextlib.contextmanager
def open_executor(executor=None, workers: int | None = None):
    """Yield an object with ``submit`` for ``executor``.

    Parameters
    ----------
    executor : None, "local", "dask", "dask:ADDRESS", a ``distributed.Client`` or an executor
        ``None``/``"local"``: in this process (yields ``None``: the caller runs units itself, with a
        per-batch progress bar). ``"dask"``: a local Dask cluster of ``workers`` processes (default 2),
        one thread each, closed afterwards. ``"dask:tcp://host:8786"``: an existing scheduler (units are
        written to the cache folder, which every worker must see). A ``distributed.Client`` (e.g. from
        dask-jobqueue's ``SLURMCluster``) or any object with ``submit`` is used as is.
    workers : int, optional
        Number of local Dask workers.

    Yields
    ------
    object with ``submit``, or None
        The executor to submit work units to; ``None`` for in-process runs.

    Raises
    ------
    ValueError
        For an unknown executor name, a missing ``dask.distributed``, or an object without ``submit``.

    Examples
    --------
    >>> with open_executor(None) as pool:
    ...     pool is None
    True
    >>> with open_executor(InlineExecutor()) as pool:
    ...     pool.submit(sum, [1, 2, 3]).result()
    6
    """
    if executor is None or executor == "local":
        yield None
        return
    if isinstance(executor, str):
        kind, _, address = executor.partition(":")
        if kind != "dask":
            raise ValueError(f"unknown executor {executor!r}; use local, dask or dask:ADDRESS")
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise ValueError("the dask executor needs dask.distributed: pip install humanlike[dask]") from None
        if address:
            with Client(address) as client:
                yield client.get_executor(pure=False)
            return
        with LocalCluster(n_workers=workers or 2, threads_per_worker=1, processes=True,
                          dashboard_address=None) as cluster, Client(cluster) as client:
            yield client.get_executor(pure=False)
        return
    if hasattr(executor, "get_executor") and hasattr(executor, "scheduler"):  # a distributed.Client
        yield executor.get_executor(pure=False)
        return
    if not hasattr(executor, "submit"):
        raise ValueError(f"an executor needs a submit method; got {type(executor).__name__}")
    yield executor
