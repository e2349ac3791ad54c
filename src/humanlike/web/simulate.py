"""Simulated participants over HTTP: many at once (asyncio + httpx) against a running server, to dry-run a
study and to measure the server (``benchmarks/serve_load.py``, tests/web/test_web_load.py).

Each simulated participant consents, then answers its trials with a random option, exactly as the page does
(one response at a time, the next trial only after the server committed the last). Every request's latency is
recorded; every trial a participant was served is recorded with the participant, so a test can check that
nobody saw anybody else's trials.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field

import httpx
import numpy as np

from ..resampling.rng import stream


@dataclass
class ParticipantRecord:
    """What one simulated participant did.

    Attributes
    ----------
    token : str
        Its participant token.
    served, answered : list of int
        The trial ids it was served, and those whose response the server acknowledged.
    latencies : list of float
        Seconds each request took.
    retries : int
        Requests sent again after a connection error.
    error : str
        What went wrong ("" when nothing did).

    Examples
    --------
    >>> ParticipantRecord().error
    ''
    """

    token: str = ""
    served: list[int] = field(default_factory=list)
    answered: list[int] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)
    retries: int = 0
    error: str = ""


async def _participant(client, index: int, answers: int | None, seed: int, record: ParticipantRecord) -> None:
    rng = stream(seed, "simulated-participant", index)

    async def call(method, path, **kwargs):
        # Like the page, a request that did not reach the server (a kept-alive connection closed under it) is
        # sent again; a response the server had committed then comes back 409 "answered already".
        for attempt in range(4):
            start = time.perf_counter()
            try:
                response = await client.request(method, path, **kwargs)
            except httpx.TransportError:
                if attempt == 3:
                    raise
                record.retries += 1
                await asyncio.sleep(0.05 * (attempt + 1))
                continue
            record.latencies.append(time.perf_counter() - start)
            return response

    reply = await call("POST", "/api/start", json={"consent": True, "params": {"PROLIFIC_PID": f"sim-{index:05d}"}})
    if reply.status_code != 200:
        record.error = f"start: {reply.status_code} {reply.text}"
        return
    record.token = reply.json()["token"]
    reply = await call("GET", f"/api/p/{record.token}/state")
    state = reply.json()
    while not state["done"] and (answers is None or len(record.answered) < answers):
        trial = state["trial"]
        record.served.append(trial["id"])
        option = trial["options"][int(rng.integers(len(trial["options"])))]
        reply = await call("POST", f"/api/p/{record.token}/response",
                           json={"trial": trial["id"], "response": option, "rt_ms": float(rng.uniform(300, 900))})
        if reply.status_code == 409 and "answered already" in reply.text and record.retries:
            record.answered.append(trial["id"])          # committed by the first attempt
            state = (await call("GET", f"/api/p/{record.token}/state")).json()
            continue
        if reply.status_code != 200:
            record.error = f"response: {reply.status_code} {reply.text}"
            return
        record.answered.append(trial["id"])
        state = reply.json()["state"]


async def simulate_participants(base_url: str, n: int, *, answers: int | None = None, seed: int = 0,
                                timeout: float = 120.0, transport=None) -> tuple[list[ParticipantRecord], float]:
    """Run ``n`` simulated participants at once against ``base_url``; returns their records and the wall time.

    Parameters
    ----------
    base_url : str
        The server, e.g. ``http://127.0.0.1:8000``.
    n : int
        Participants, all started at once (one connection each).
    answers : int, optional
        Trials each answers (default: all).
    seed : int
        Seed of the random answers.
    transport : httpx.AsyncBaseTransport, optional
        Talk to an application in this process instead (``httpx.ASGITransport(app=...)``).
    timeout : float
        Seconds the whole run may take; the run is cancelled after it (bounded in time).

    Returns
    -------
    records : list of ParticipantRecord
        One per participant.
    wall : float
        Seconds the run took.

    Examples
    --------
    >>> import asyncio, tempfile
    >>> from pathlib import Path
    >>> from humanlike.web.app import create_app, open_study
    >>> from humanlike.web.demo import make_demo
    >>> study = open_study(make_demo(Path(tempfile.mkdtemp()))["classify"])
    >>> import httpx
    >>> transport = httpx.ASGITransport(app=create_app(study, "a-long-researcher-secret"))
    >>> records, wall = asyncio.run(simulate_participants("http://study", 3, answers=2, transport=transport))
    >>> [len(r.answered) for r in records], [r.error for r in records]
    ([2, 2, 2], ['', '', ''])
    >>> study.engine.dispose()
    """
    records = [ParticipantRecord() for _ in range(n)]
    limits = httpx.Limits(max_connections=n, max_keepalive_connections=n)
    async with httpx.AsyncClient(base_url=base_url, timeout=60.0, limits=limits, transport=transport) as client:
        start = time.perf_counter()
        tasks = [_participant(client, i, answers, seed, records[i]) for i in range(n)]
        results = await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), timeout)
        wall = time.perf_counter() - start
    for record, result in zip(records, results):
        if isinstance(result, BaseException) and not record.error:
            record.error = f"{type(result).__name__}: {result}"
    return records, wall


def latency_summary(records: list[ParticipantRecord], wall: float) -> dict:
    """Requests, throughput (requests per second) and latency percentiles (milliseconds).

    Parameters
    ----------
    records : list of ParticipantRecord
        What :func:`simulate_participants` returned.
    wall : float
        The run's seconds.

    Returns
    -------
    dict
        ``participants, requests, responses, seconds, requests_per_s, p50_ms, p99_ms, retries, errors``.

    Examples
    --------
    >>> summary = latency_summary([ParticipantRecord(latencies=[0.010, 0.020, 0.030], answered=[1, 2])], 0.5)
    >>> summary["requests"], summary["requests_per_s"], summary["p50_ms"]
    (3, 6.0, 20.0)
    """
    latencies = np.array([x for r in records for x in r.latencies]) * 1000.0
    return {"participants": len(records), "requests": int(latencies.size),
            "responses": int(sum(len(r.answered) for r in records)), "seconds": round(wall, 2),
            "requests_per_s": round(latencies.size / wall, 1) if wall > 0 else float("nan"),
            "p50_ms": round(float(np.percentile(latencies, 50)), 1) if latencies.size else float("nan"),
            "p99_ms": round(float(np.percentile(latencies, 99)), 1) if latencies.size else float("nan"),
            "retries": int(sum(r.retries for r in records)), "errors": sum(bool(r.error) for r in records)}
