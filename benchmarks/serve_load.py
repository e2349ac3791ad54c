"""Throughput and latency of ``humanlike serve`` under load (issue 25). One command:

    python benchmarks/serve_load.py [--participants 200] [--answers 10] [--workers 4] [--postgres URL]

Starts ``humanlike serve`` on a demo classification study as a subprocess on loopback, as a researcher would,
and runs N simulated participants at once (asyncio + httpx, one connection each, ``humanlike.web.simulate``):
each consents, then answers ``--answers`` trials one at a time (the next trial only after the server committed
the last). Three set-ups: SQLite (one process, the default), PostgreSQL with one uvicorn worker and with
``--workers`` workers. PostgreSQL is a throw-away cluster started here (Debian's postgresql, as the tests do)
unless ``--postgres postgresql://USER@HOST:PORT`` names a server (a fresh database is made on it). Reports
requests per second and p50/p99 latency of every request (consent, state, responses), the CPU seconds the
server's processes used (requests per CPU second: the figure that does not depend on what else the machine
runs; PostgreSQL's own processes are not counted), and checks that no response was lost or duplicated.
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


def process_tree_cpu(root: int) -> float:
    """CPU seconds (user + system) used so far by a process and all its descendants (Linux /proc)."""
    parents = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(stat.parent.name)] = (int(fields[1]), (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK"))
    tree, frontier = {root}, [root]
    while frontier:
        parent = frontier.pop()
        children = [pid for pid, (ppid, _) in parents.items() if ppid == parent]
        tree.update(children)
        frontier.extend(children)
    return sum(parents[pid][1] for pid in tree if pid in parents)


def run_setup(label: str, study: Path, extra: tuple, participants: int, answers: int) -> dict:
    from sqlalchemy import func, select

    from humanlike.web import db
    from humanlike.web.app import open_study
    from humanlike.web.simulate import latency_summary, simulate_participants
    from web_helpers import ServerProcess

    url = extra[1] if extra else None
    server = ServerProcess(study, *extra)
    try:
        cpu_before = process_tree_cpu(server.process.pid)
        records, wall = asyncio.run(simulate_participants(server.url, participants, answers=answers, timeout=600))
        cpu = process_tree_cpu(server.process.pid) - cpu_before
    finally:
        server.kill()
    summary = {"setup": label, **latency_summary(records, wall)}
    # The server's own CPU per request: on a shared machine the honest figure (wall time depends on the others)
    summary["server_cpu_s"] = round(cpu, 1)
    summary["requests_per_cpu_s"] = round(summary["requests"] / cpu, 1) if cpu > 0 else float("nan")
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
    print(f"{'set-up':<26}{'requests':>9}{'req/s':>8}{'p50 ms':>8}{'p99 ms':>9}{'server CPU s':>13}{'req/CPU-s':>10}"
          f"{'stored':>8}  lost/dup")
    for r in results:
        print(f"{r['setup']:<26}{r['requests']:>9}{r['requests_per_s']:>8}{r['p50_ms']:>8}{r['p99_ms']:>9}"
              f"{r['server_cpu_s']:>13}{r['requests_per_cpu_s']:>10}{r['stored']:>8}  {r['lost_or_duplicated']:>8}")
    print(json.dumps({"cpus": os.cpu_count(), "load_average": os.getloadavg(), "results": results}))
    return 0 if all(r["lost_or_duplicated"] == 0 and r["errors"] == 0 for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
