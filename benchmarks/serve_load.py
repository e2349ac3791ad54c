"""Throughput and latency of ``humanlike serve`` under load (issue 25). One command:

    python benchmarks/serve_load.py [--participants 200] [--answers 10] [--workers 4] [--postgres URL]

Starts ``humanlike serve`` on a demo classification study as a subprocess on loopback, as a researcher would,
and runs N simulated participants at once (asyncio + httpx, one connection each, ``humanlike.web.simulate``):
each consents, then answers ``--answers`` trials one at a time (the next trial only after the server committed
the last). Three set-ups: SQLite (one process, the default), PostgreSQL with one uvicorn worker and with
``--workers`` workers. PostgreSQL is a throw-away cluster started here (Debian's postgresql, as the tests do)
unless ``--postgres postgresql://USER@HOST:PORT`` names a server (a fresh database is made on it). Reports
requests per second and p50/p99 latency of every request (consent, state, responses), and checks that no
response was lost or duplicated.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT / "tests" / "web")]
os.environ["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])


def fresh_database(server_url: str) -> str:
    import psycopg

    name = "bench_" + uuid.uuid4().hex[:10]
    with psycopg.connect(f"{server_url}/postgres", autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return f"{server_url}/{name}"


def run_setup(label: str, study: Path, extra: tuple, participants: int, answers: int) -> dict:
    from sqlalchemy import func, select

    from humanlike.web import db
    from humanlike.web.app import open_study
    from humanlike.web.simulate import latency_summary, simulate_participants
    from web_helpers import ServerProcess

    url = extra[1] if extra else None
    server = ServerProcess(study, *extra)
    try:
        records, wall = asyncio.run(simulate_participants(server.url, participants, answers=answers, timeout=600))
    finally:
        server.kill()
    summary = {"setup": label, **latency_summary(records, wall)}
    prepared = open_study(study, url)
    with prepared.engine.connect() as conn:
        stored = conn.execute(select(func.count()).select_from(db.responses)).scalar_one()
        distinct = conn.execute(select(func.count(func.distinct(db.responses.c.trial_id)))).scalar_one()
    prepared.engine.dispose()
    summary["stored"] = stored
    summary["lost_or_duplicated"] = int(summary["responses"] != stored or stored != distinct)
    return summary


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--participants", type=int, default=200)
    parser.add_argument("--answers", type=int, default=10, help="trials each participant answers")
    parser.add_argument("--workers", type=int, default=4, help="uvicorn workers of the PostgreSQL set-up")
    parser.add_argument("--postgres", help="an existing server, postgresql://USER@HOST:PORT (default: start one)")
    parser.add_argument("--skip-postgres", action="store_true")
    args = parser.parse_args()

    from web_helpers import make_study

    folder = Path(tempfile.mkdtemp(prefix="humanlike-serve-bench-"))
    results = []
    settings = {"practice_trials": 0, "catch_trials": 0}
    results.append(run_setup("sqlite, 1 process", make_study(folder / "sqlite", "classify", **settings), (),
                             args.participants, args.answers))
    if not args.skip_postgres:
        server = None
        if args.postgres:
            base = args.postgres.rstrip("/")
        else:
            from web_postgres import PostgresServer

            server = PostgresServer()
            base = server.url
        try:
            for workers in sorted({1, args.workers}):
                study = make_study(folder / f"pg{workers}", "classify", **settings)
                extra = ("--db", fresh_database(base)) + (("--workers", str(workers)) if workers > 1 else ())
                results.append(run_setup(f"postgresql, {workers} worker{'s' if workers > 1 else ''}", study, extra,
                                         args.participants, args.answers))
        finally:
            if server is not None:
                server.stop()
    print(f"{'set-up':<26}{'requests':>9}{'req/s':>8}{'p50 ms':>8}{'p99 ms':>8}{'stored':>8}  lost/dup  retries")
    for r in results:
        print(f"{r['setup']:<26}{r['requests']:>9}{r['requests_per_s']:>8}{r['p50_ms']:>8}{r['p99_ms']:>8}"
              f"{r['stored']:>8}  {r['lost_or_duplicated']:>8}  {r['retries']:>7}")
    print(json.dumps({"cpus": os.cpu_count(), "load_average": os.getloadavg(), "results": results}))
    return 0 if all(r["lost_or_duplicated"] == 0 and r["errors"] == 0 for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
