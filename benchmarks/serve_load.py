"""Latency, throughput and server CPU of ``humanlike serve`` under a crowd (issues 25 and 30). One command:

    python benchmarks/serve_load.py [--participants 500] [--think 1.0] [--setups sqlite,pg2,pg4] [--quick]

For each set-up it starts a real ``humanlike serve`` on a demo classification study, listening on 127.0.0.1
only, as a researcher would: SQLite (one process), PostgreSQL with 2 and with 4 uvicorn workers (a throw-away
PostgreSQL cluster started here as tests/web/web_postgres.py does, or ``--postgres URL``). The load generator
runs in its own process (this script with ``--generate``; asyncio and a minimal HTTP/1.1 keep-alive client,
so that the generator's own CPU stays small next to the server's on a small machine): N participants arrive
over ``--ramp`` seconds; each consents (``start``), asks for its first trial (``state``), and then for every
trial fetches its images (``stimulus``), thinks for ``--think`` seconds (uniform within +-50 %) and sends the
answer (``response``; the reply carries the next trial, as for the page), until its list is done.

Reported per set-up: p50/p99 latency of each request type, throughput, the server's CPU per request (user +
system CPU seconds of the server's process tree, read from /proc, divided by the requests; PostgreSQL's own
processes apart, as "db CPU"), errors (a non-2xx reply, a broken connection, a participant unfinished at the
deadline), and lost / duplicated responses: every response the server acknowledged is looked up in the
database afterwards (lost: acknowledged but not stored, or stored with another value; duplicated: more rows
than acknowledged answers for a trial or a participant). Bounded: at most ``--deadline`` seconds per set-up.

CPU per request is the robust figure on a shared machine; latency depends on what else the machine runs. The
"before" figure of a change is the same command with the server run from another checkout:
``git worktree add /tmp/load-before main`` then ``--server-src /tmp/load-before/src``.
Exit status 0 when no set-up had an error, a lost or a duplicated response.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import resource
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REQUEST_TYPES = ("start", "state", "stimulus", "response")
SETUPS = {"sqlite": 1, "pg2": 2, "pg4": 4}        # name -> uvicorn workers


# --------------------------------------------------------------------------- the load generator (own process)

class Connection:
    """One participant's keep-alive HTTP/1.1 connection (what a browser tab holds).

    A minimal client: httpx costs about as much CPU per request as the server under test, which on a two-core
    machine would measure the generator instead of the server.
    """

    def __init__(self, host: str, port: int):
        self.host, self.port = host, port
        self.reader = self.writer = None

    async def request(self, method: str, path: str, body=None) -> tuple[int, bytes]:
        data = b"" if body is None else json.dumps(body).encode()
        head = (f"{method} {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(data)}\r\n\r\n").encode()
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        self.writer.write(head + data)
        status_line = await self.reader.readline()
        if not status_line:
            raise ConnectionError("the server closed the connection")
        status = int(status_line.split()[1])
        headers = {}
        while (line := await self.reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode("latin-1").partition(":")
            headers[name.strip().lower()] = value.strip()
        if headers.get("transfer-encoding", "").lower() == "chunked":
            content = b""
            while (size := int((await self.reader.readline()).strip(), 16)) > 0:
                content += await self.reader.readexactly(size)
                await self.reader.readexactly(2)
            await self.reader.readline()
        else:
            content = await self.reader.readexactly(int(headers.get("content-length", 0)))
        if headers.get("connection", "").lower() == "close":
            self.close()
        return status, content

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


async def participant(index: int, args, log: dict, latencies: dict) -> None:
    rng = random.Random(f"{args.seed}-{index}")
    conn = Connection(args.host, args.port)
    record = log["participants"][index]

    async def call(kind: str, method: str, path: str, body=None) -> tuple[int, bytes]:
        # Like the page: a request that did not reach the server (a kept-alive connection closed under it) is
        # sent again; a response the first attempt committed then comes back 409 "answered already".
        for attempt in range(3):
            start = time.perf_counter()
            try:
                status, content = await conn.request(method, path, body)
            except (OSError, asyncio.IncompleteReadError, ConnectionError, ValueError, IndexError):
                conn.close()
                if attempt == 2:
                    raise
                record["retries"] += 1
                await asyncio.sleep(0.05 * (attempt + 1))
                continue
            latencies[kind].append((time.perf_counter() - start) * 1000.0)
            log["statuses"][str(status)] = log["statuses"].get(str(status), 0) + 1
            return status, content

    try:
        await asyncio.sleep(args.ramp * index / max(args.participants, 1))
        status, content = await call("start", "POST", "/api/start",
                                     {"consent": True, "params": {"PROLIFIC_PID": f"load-{index:05d}"}})
        if status != 200:
            raise RuntimeError(f"start: {status} {content[:200]!r}")
        record["token"] = token = json.loads(content)["token"]
        status, content = await call("state", "GET", f"/api/p/{token}/state")
        state = json.loads(content)
        while not state["done"] and (args.answers is None or len(record["acknowledged"]) < args.answers):
            trial = state["trial"]
            for url in trial["stimuli"]:
                status, content = await call("stimulus", "GET", url)
                if status != 200:
                    raise RuntimeError(f"stimulus: {status}")
            await asyncio.sleep(args.think * rng.uniform(0.5, 1.5))
            answer = rng.choice(trial["options"])
            status, content = await call("response", "POST", f"/api/p/{token}/response",
                                         {"trial": trial["id"], "response": answer,
                                          "rt_ms": round(rng.uniform(300, 900), 1)})
            if status == 409 and b"answered already" in content and record["retries"]:
                record["acknowledged"][str(trial["id"])] = answer        # committed by the first attempt
                state = json.loads((await call("state", "GET", f"/api/p/{token}/state"))[1])
                continue
            if status != 200:
                raise RuntimeError(f"response: {status} {content[:200]!r}")
            record["acknowledged"][str(trial["id"])] = answer
            state = json.loads(content)["state"]
        record["finished"] = True
    except Exception as err:  # noqa: BLE001 - every failure of a participant is reported, none stops the run
        record["error"] = f"{type(err).__name__}: {err}"[:300]
    finally:
        conn.close()


async def generate(args) -> dict:
    log = {"participants": [{"token": "", "acknowledged": {}, "retries": 0, "error": "", "finished": False}
                            for _ in range(args.participants)], "statuses": {}}
    latencies = {kind: [] for kind in REQUEST_TYPES}
    start = time.perf_counter()
    tasks = [asyncio.create_task(participant(i, args, log, latencies)) for i in range(args.participants)]
    done, pending = await asyncio.wait(tasks, timeout=args.deadline)
    for task in pending:
        task.cancel()
    await asyncio.gather(*pending, return_exceptions=True)
    log["wall_s"] = time.perf_counter() - start
    log["latencies_ms"] = latencies
    usage = resource.getrusage(resource.RUSAGE_SELF)
    log["generator_cpu_s"] = usage.ru_utime + usage.ru_stime
    return log


def run_generator(args) -> int:
    log = asyncio.run(generate(args))
    Path(args.out).write_text(json.dumps(log))
    return 0


# --------------------------------------------------------------------------- servers, CPU, the database check

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def process_tree_cpu(root: int, part: str = "both") -> float:
    """CPU seconds used so far by a process and all its descendants (Linux /proc): ``part`` "user", "system" or
    "both". A descendant that has exited (a PostgreSQL backend whose connection the pool closed) counts in its
    parent's "children" times, which are included."""
    ticks = os.sysconf("SC_CLK_TCK")
    columns = {"user": (11, 13), "system": (12, 14), "both": (11, 12, 13, 14)}[part]
    table = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        table[int(stat.parent.name)] = (int(fields[1]), sum(int(fields[c]) for c in columns) / ticks)
    tree, frontier = {root}, [root]
    while frontier:
        parent = frontier.pop()
        children = [pid for pid, (ppid, _) in table.items() if ppid == parent]
        tree.update(children)
        frontier.extend(children)
    return sum(table[pid][1] for pid in tree if pid in table)


class Server:
    """``humanlike serve STUDY`` on a free loopback port, run from ``src`` (this checkout's or another's)."""

    def __init__(self, study: Path, src: Path, extra: tuple[str, ...], profile: Path | None = None):
        self.port = free_port()
        self.profile = profile
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(src), os.environ.get("PYTHONPATH", "")])}
        # what the server prints goes to a file: an unread pipe would block a server printing tracebacks
        self.printed = tempfile.TemporaryFile(mode="w+")
        self.process = subprocess.Popen(
            [sys.executable, *(["-m", "cProfile", "-o", str(profile)] if profile else []),
             "-m", "humanlike.app.cli", "serve", str(study), "--host", "127.0.0.1",
             "--port", str(self.port), *extra],
            stdout=self.printed, stderr=subprocess.STDOUT, text=True, env=env, start_new_session=True)
        deadline = time.monotonic() + 120
        workers = int(extra[extra.index("--workers") + 1]) if "--workers" in extra else 1
        while not self._ready(workers):
            if self.process.poll() is not None:
                self.printed.seek(0)
                raise RuntimeError(f"the server exited: {self.printed.read()}")
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("the server did not answer within 120 s")
            time.sleep(0.2)

    def _ready(self, workers: int) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=2) as s:
                s.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                if not s.recv(64).startswith(b"HTTP/1.1 200"):
                    return False
        except OSError:
            return False
        # every worker process up (each imports the application), so that start-up CPU is not measured
        return workers == 1 or len(self._tree()) >= workers + 1

    def _tree(self) -> list[int]:
        out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(self.process.pid)], capture_output=True, text=True)
        return [self.process.pid, *map(int, out.stdout.split())]

    def stop(self) -> None:
        if self.profile and self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)        # uvicorn stops, then cProfile writes its file
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                pass
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait(timeout=30)
        self.printed.close()


def stored_responses(url: str) -> list[tuple[str, int, str]]:
    """(token, trial id, response) of every stored response (the same columns in every schema version)."""
    from sqlalchemy import create_engine, text

    sa_url = "postgresql+psycopg://" + url.split("://", 1)[1] if url.startswith("postgresql") else url
    engine = create_engine(sa_url)
    try:
        with engine.connect() as conn:
            return [tuple(row) for row in conn.execute(text(
                "SELECT p.token, r.trial_id, r.response FROM responses r JOIN participants p "
                "ON p.id = r.participant_id"))]
    finally:
        engine.dispose()


def integrity(log: dict, stored: list[tuple[str, int, str]]) -> tuple[int, int]:
    """(lost, duplicated) responses: acknowledged ones missing or changed in the database; extra rows.

    A response the server stored but never acknowledged (the reply lost in a broken connection) is neither.
    """
    rows: dict[tuple[str, int], list[str]] = {}
    for token, trial, response in stored:
        rows.setdefault((token, int(trial)), []).append(response)
    lost = duplicated = 0
    for record in log["participants"]:
        for trial, answer in record["acknowledged"].items():
            got = rows.get((record["token"], int(trial)), [])
            lost += answer not in got
    duplicated = sum(len(values) - 1 for values in rows.values())
    return lost, duplicated


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    rank = q / 100 * (len(ordered) - 1)
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def run_setup(name: str, args, folder: Path, postgres) -> dict:
    sys.path[:0] = [str(ROOT / "tests" / "web")]
    from web_helpers import make_study

    study = make_study(folder / name, "classify")
    workers = SETUPS[name]
    if name == "sqlite":
        url, extra = f"sqlite:///{(study / 'study.sqlite').resolve()}", ()
    else:
        url = postgres.database()
        extra = ("--db", url, "--workers", str(workers))
    profile = args.profile if args.profile and name == "sqlite" else None
    server = Server(study, args.server_src, extra, profile)
    out = folder / f"{name}-log.json"
    try:
        time.sleep(0.5)
        cpu_before = process_tree_cpu(server.process.pid)
        system_before = process_tree_cpu(server.process.pid, "system")
        postmaster = postgres.postmaster() if postgres and name != "sqlite" else None
        db_before = process_tree_cpu(postmaster) if postmaster else 0.0
        command = [sys.executable, str(Path(__file__).resolve()), "--generate", "--host", "127.0.0.1",
                   "--port", str(server.port), "--participants", str(args.participants), "--think", str(args.think),
                   "--ramp", str(args.ramp), "--deadline", str(args.deadline), "--seed", str(args.seed),
                   "--out", str(out)] + (["--answers", str(args.answers)] if args.answers else [])
        subprocess.run(command, check=True, timeout=args.deadline + 60)
        cpu = process_tree_cpu(server.process.pid) - cpu_before
        system = process_tree_cpu(server.process.pid, "system") - system_before
        db_cpu = process_tree_cpu(postmaster) - db_before if postmaster else None
    finally:
        server.stop()
    if profile:
        import pstats

        print(f"cProfile of the SQLite server under load: {profile}")
        pstats.Stats(str(profile)).sort_stats("tottime").print_stats(30)
    log = json.loads(out.read_text())
    lost, duplicated = integrity(log, stored_responses(url))
    latencies = log["latencies_ms"]
    requests = sum(len(v) for v in latencies.values())
    failed = [r for r in log["participants"] if r["error"] or not r["finished"]]
    non_2xx = sum(n for status, n in log["statuses"].items() if not status.startswith("2"))
    result = {
        "setup": f"{'sqlite, 1 process' if name == 'sqlite' else f'postgresql, {workers} workers'}",
        "participants": args.participants, "requests": requests,
        "responses": sum(len(r["acknowledged"]) for r in log["participants"]),
        "seconds": round(log["wall_s"], 1), "requests_per_s": round(requests / log["wall_s"], 1),
        "server_cpu_s": round(cpu, 2), "cpu_ms_per_request": round(1000 * cpu / requests, 3) if requests else None,
        "system_ms_per_request": round(1000 * system / requests, 3) if requests else None,   # the kernel's part
        "db_cpu_ms_per_request": round(1000 * db_cpu / requests, 3) if db_cpu is not None and requests else None,
        "generator_cpu_s": round(log["generator_cpu_s"], 1),
        "latency_ms": {kind: {"n": len(latencies[kind]), "p50": round(percentile(latencies[kind], 50), 1),
                              "p99": round(percentile(latencies[kind], 99), 1)} for kind in REQUEST_TYPES},
        "non_2xx": non_2xx, "retries": sum(r["retries"] for r in log["participants"]),
        "errors": len(failed), "error_examples": sorted({r["error"] or "unfinished at the deadline"
                                                         for r in failed})[:3],
        "lost": lost, "duplicated": duplicated,
    }
    return result


class Postgres:
    """The throw-away cluster of the tests (tests/web/web_postgres.py), or databases on ``--postgres URL``."""

    def __init__(self, url: str | None):
        sys.path[:0] = [str(ROOT / "tests" / "web")]
        self.server = None
        if url:
            self.url = url.rstrip("/")
        else:
            from web_postgres import PostgresServer

            self.server = PostgresServer()
            self.url = self.server.url

    def database(self) -> str:
        import psycopg

        name = "load_" + uuid.uuid4().hex[:10]
        with psycopg.connect(f"{self.url}/postgres", autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return f"{self.url}/{name}"

    def postmaster(self) -> int | None:
        """The cluster's main process (its CPU tree is PostgreSQL's); None for a server not started here."""
        if self.server is None:
            return None
        return int((self.server.data / "postmaster.pid").read_text().split()[0])

    def stop(self) -> None:
        if self.server is not None:
            self.server.stop()


def print_table(results: list[dict]) -> None:
    print(f"{'set-up':<24}{'req':>7}{'req/s':>7}{'CPU ms/req':>11}{'db ms/req':>10}"
          + "".join(f"{kind + ' p50/p99 ms':>23}" for kind in REQUEST_TYPES) + f"{'errors':>7}{'lost':>5}{'dup':>5}")
    for r in results:
        cells = "".join(f"{r['latency_ms'][k]['p50']:>13} / {r['latency_ms'][k]['p99']:<7}" for k in REQUEST_TYPES)
        db = "-" if r["db_cpu_ms_per_request"] is None else r["db_cpu_ms_per_request"]
        print(f"{r['setup']:<24}{r['requests']:>7}{r['requests_per_s']:>7}{r['cpu_ms_per_request']:>11}{db:>10}"
              f"{cells}{r['errors']:>7}{r['lost']:>5}{r['duplicated']:>5}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     epilog="\n\n".join(__doc__.split("\n\n")[2:]),
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--participants", type=int, default=500, help="participants (default %(default)s)")
    parser.add_argument("--think", type=float, default=1.0,
                        help="seconds each participant thinks before answering, +-50%% (default %(default)s)")
    parser.add_argument("--ramp", type=float, default=10.0,
                        help="seconds over which the participants arrive (default %(default)s)")
    parser.add_argument("--answers", type=int, default=None, help="trials each answers (default: its whole list)")
    parser.add_argument("--deadline", type=float, default=300.0,
                        help="seconds a set-up's load may last; later participants count as errors (default %(default)s)")
    parser.add_argument("--setups", default="sqlite,pg2,pg4", help="comma-separated from sqlite, pg2, pg4")
    parser.add_argument("--postgres", help="an existing server, postgresql://USER@HOST:PORT (default: start one)")
    parser.add_argument("--server-src", type=Path, default=ROOT / "src",
                        help="the source tree the server runs from (another checkout: the 'before' figure)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--profile", type=Path,
                        help="run the SQLite server under cProfile (its main thread: the event loop, not the database work in worker threads), write the statistics here and print the top")
    parser.add_argument("--json", type=Path, help="also write the results to this file")
    parser.add_argument("--quick", action="store_true",
                        help="a smoke test: 20 participants, 3 answers, 0.05 s think time, 1 s ramp")
    parser.add_argument("--generate", action="store_true", help=argparse.SUPPRESS)   # the generator process
    parser.add_argument("--host", default="127.0.0.1", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.generate:
        return run_generator(args)
    if args.host != "127.0.0.1":
        parser.error("the load test runs against 127.0.0.1 only")
    if args.quick:
        args.participants, args.answers, args.think, args.ramp, args.deadline = 20, 3, 0.05, 1.0, 60.0
    names = [n.strip() for n in args.setups.split(",") if n.strip()]
    unknown = [n for n in names if n not in SETUPS]
    if unknown:
        parser.error(f"unknown set-up(s) {unknown}: choose from {sorted(SETUPS)}")
    args.server_src = args.server_src.resolve()

    folder = Path(tempfile.mkdtemp(prefix="humanlike-serve-load-"))
    postgres = Postgres(args.postgres) if any(n != "sqlite" for n in names) else None
    results = []
    try:
        for name in names:
            results.append(run_setup(name, args, folder, postgres))
            print(json.dumps(results[-1]), flush=True)
    finally:
        if postgres is not None:
            postgres.stop()
    print_table(results)
    summary = {"cpus": os.cpu_count(), "load_average": os.getloadavg(), "server_src": str(args.server_src),
               "participants": args.participants, "think_s": args.think, "results": results}
    if args.json:
        args.json.write_text(json.dumps(summary, indent=1))
    return 0 if all(r["errors"] == 0 and r["non_2xx"] == 0 and r["lost"] == 0 and r["duplicated"] == 0
                    for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
