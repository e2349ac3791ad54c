"""The study database: SQLAlchemy 2 Core tables, the engine (SQLite in WAL mode, or PostgreSQL), and the schema
made by the Alembic migrations shipped in ``humanlike/web/migrations``.

Tables (the data model of docs/run-your-own-experiment.md):

- ``study_meta``: key/value (the study config as JSON, so that a database URL alone can be exported);
- ``stimuli``: each stimulus key (path inside the stimulus root) and its opaque id, the only name a page sees;
- ``participants``: the unguessable token, the pseudonym that exports carry, status ("active", "finished",
  "abandoned"), timestamps, the design slot their trial list was planned for, their completion code;
- ``platform_ids``: the recruiting platform's ids (personal data), apart from everything else, with the one id
  that resumes a session (``participant_key``: the SHA-256 of ``PARAM=value``, unique);
- ``trials``: each participant's planned trials (the answer included: it never leaves the server);
- ``responses``: one row per answered trial (unique per trial), committed before the next trial is served;
- ``adaptive_looks``: an adaptive study's looks (:mod:`humanlike.web.adaptive`), one row each, written once.
"""

from __future__ import annotations

import threading
import weakref
from pathlib import Path
from types import SimpleNamespace

from sqlalchemy import (
    Boolean, Column, DateTime, Float, ForeignKey, Integer, MetaData, String, Table, Text, UniqueConstraint,
    create_engine, event,
)
from sqlalchemy.engine import Engine

metadata = MetaData()

study_meta = Table(
    "study_meta", metadata,
    Column("key", String(64), primary_key=True),
    Column("value", Text, nullable=False),
)

stimuli = Table(
    "stimuli", metadata,
    Column("id", Integer, primary_key=True),
    Column("opaque", String(64), nullable=False, unique=True),
    Column("key", Text, nullable=False, unique=True),
)

participants = Table(
    "participants", metadata,
    Column("id", Integer, primary_key=True),
    Column("token", String(64), nullable=False, unique=True),
    Column("pseudonym", String(32), nullable=False, unique=True),
    Column("status", String(16), nullable=False),          # "active", "finished" or "abandoned"
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("finished_at", DateTime(timezone=True)),
    Column("n_trials", Integer, nullable=False),
    Column("slot", Integer),                                 # the design's participant ordinal (reused if abandoned)
    Column("last_seen_at", DateTime(timezone=True)),         # the start or the latest response
    Column("completion_code", String(64)),                   # issued with the last response (per-participant codes)
)

platform_ids = Table(
    "platform_ids", metadata,
    Column("participant_id", Integer, ForeignKey("participants.id", ondelete="CASCADE"), primary_key=True),
    Column("params", Text, nullable=False),                  # JSON: the configured query-string parameters
    Column("participant_key", String(255), unique=True),     # sha256 of "PROLIFIC_PID=...": a second start resumes
)

trials = Table(
    "trials", metadata,
    Column("id", Integer, primary_key=True),
    Column("participant_id", Integer, ForeignKey("participants.id", ondelete="CASCADE"), nullable=False,
           index=True),
    Column("position", Integer, nullable=False),
    Column("kind", String(16), nullable=False),
    Column("spec", Text, nullable=False),                    # JSON: stimuli, options, answer, the task's columns
    UniqueConstraint("participant_id", "position", name="uq_trials_participant_position"),
)

responses = Table(
    "responses", metadata,
    Column("id", Integer, primary_key=True),
    Column("trial_id", Integer, ForeignKey("trials.id", ondelete="CASCADE"), nullable=False, unique=True),
    Column("participant_id", Integer, ForeignKey("participants.id", ondelete="CASCADE"), nullable=False,
           index=True),
    Column("response", String(200), nullable=False),
    Column("correct", Boolean),
    Column("rt_ms", Float),
    Column("stimulus_ms", Float),
    Column("frames", Integer),
    Column("refresh_hz", Float),
    Column("window_w", Integer),
    Column("window_h", Integer),
    Column("created_at", DateTime(timezone=True), nullable=False),
)

adaptive_looks = Table(
    "adaptive_looks", metadata,
    Column("look", Integer, primary_key=True),              # 1, 2, ...: a second writer of a look fails here
    Column("participants", Integer, nullable=False),
    Column("members", Text, nullable=False),                 # JSON: participant ids counted, in order
    Column("estimate", Float), Column("se", Float), Column("z", Float), Column("bound", Float),
    Column("decision", String(16), nullable=False),          # "continue", "resolved" or "maximum"
    Column("probability", Text, nullable=False),             # JSON: the refitted design ([] once stopped)
    Column("created_at", DateTime(timezone=True), nullable=False),
)

MIGRATIONS = "humanlike.web:migrations"
#: SQLite engines -> the queue of their writers in this process (see :func:`write`).
_GROUP_COMMITS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def database_url(text: str) -> str:
    """A SQLAlchemy URL for a ``sqlite:///`` or ``postgresql://`` URL (PostgreSQL through psycopg 3).

    Parameters
    ----------
    text : str
        The URL as a user writes it.

    Returns
    -------
    str
        The URL with the driver SQLAlchemy should use.

    Raises
    ------
    ValueError
        For another kind of URL.

    Examples
    --------
    >>> database_url("postgresql://u@localhost:5432/study")
    'postgresql+psycopg://u@localhost:5432/study'
    >>> database_url("sqlite:////tmp/s.sqlite")
    'sqlite:////tmp/s.sqlite'
    """
    if text.startswith(("postgresql://", "postgres://")):
        return "postgresql+psycopg://" + text.split("://", 1)[1]
    if text.startswith(("sqlite:", "postgresql+")):
        return text
    raise ValueError(f"unsupported database URL {text!r}: use sqlite:///PATH or postgresql://USER@HOST:PORT/DB")


def sqlite_url(path: Path) -> str:
    """The SQLite URL of a database file.

    Parameters
    ----------
    path : path
        The database file.

    Returns
    -------
    str
        ``sqlite:///`` and the absolute path.

    Examples
    --------
    >>> sqlite_url(Path("/data/study/study.sqlite"))
    'sqlite:////data/study/study.sqlite'
    """
    return f"sqlite:///{Path(path).resolve()}"


def is_database_url(text: str) -> bool:
    """Whether ``text`` looks like a database URL rather than a path.

    Parameters
    ----------
    text : str or path
        A command-line argument.

    Returns
    -------
    bool

    Examples
    --------
    >>> is_database_url("postgresql://u@localhost/s"), is_database_url("my-study")
    (True, False)
    """
    return str(text).startswith(("sqlite:", "postgresql:", "postgres:", "postgresql+"))


def make_engine(url: str) -> Engine:
    """An engine for the study database.

    SQLite: WAL journal (readers never block the writer), ``synchronous=FULL`` (a committed response survives a
    crash of the machine, not only of the server), foreign keys on, and every transaction ``BEGIN IMMEDIATE``
    so that concurrent writers queue on the busy timeout instead of failing. PostgreSQL: a connection pool
    checked before use.

    Parameters
    ----------
    url : str
        ``sqlite:///PATH`` or ``postgresql://USER@HOST:PORT/DB``.

    Returns
    -------
    sqlalchemy.engine.Engine

    Examples
    --------
    >>> import tempfile
    >>> engine = make_engine(sqlite_url(Path(tempfile.mkdtemp()) / "s.sqlite"))
    >>> with engine.connect() as conn:
    ...     conn.exec_driver_sql("PRAGMA journal_mode").scalar()
    'wal'
    >>> engine.dispose()
    """
    url = database_url(url)
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"timeout": 60, "check_same_thread": False},
                               pool_size=16, max_overflow=16)

        @event.listens_for(engine, "connect")
        def _on_connect(dbapi_connection, _record):
            dbapi_connection.isolation_level = None      # transactions begin below, not in the driver
            cursor = dbapi_connection.cursor()
            for pragma in ("journal_mode=WAL", "synchronous=FULL", "foreign_keys=ON", "busy_timeout=60000"):
                cursor.execute(f"PRAGMA {pragma}")
            cursor.close()

        _GROUP_COMMITS[engine] = _GroupCommit()   # holds no reference to the engine

        @event.listens_for(engine, "begin")
        def _on_begin(connection):
            # readers (:func:`reader`) take no write lock: in WAL mode they read a snapshot beside the writer
            read_only = connection.get_execution_options().get("humanlike_read_only")
            # on the driver's connection: through SQLAlchemy this statement cost as much as the transaction's work
            connection.connection.driver_connection.execute("BEGIN" if read_only else "BEGIN IMMEDIATE")

        return engine
    return create_engine(url, pool_size=10, max_overflow=20, pool_pre_ping=True,
                         connect_args={"connect_timeout": 10})     # an unreachable server: an error, not a hang


def unreadable(url: str, err: Exception) -> ValueError:
    r"""The one-line error for a database that cannot be opened or read (corrupt, unreachable, refused).

    Parameters
    ----------
    url : str
        The database URL (a password in it is not repeated).
    err : Exception
        What SQLAlchemy raised.

    Returns
    -------
    ValueError
        Naming the database (the SQLite file, or the URL) and the driver's first line.

    Examples
    --------
    >>> unreadable("postgresql://u:pw@db.example/s", OSError("connection refused\nmore"))
    ValueError('postgresql://u:***@db.example/s: cannot read the database (connection refused)')
    """
    from sqlalchemy.engine import make_url

    text = database_url(url) if is_database_url(url) else url
    try:
        parsed = make_url(text)
        name = (parsed.database if parsed.get_backend_name() == "sqlite" and parsed.database
                else parsed.set(drivername=parsed.get_backend_name()).render_as_string(hide_password=True))
    except Exception:   # not a URL SQLAlchemy can parse: name it as given
        name = url
    reason = str(getattr(err, "orig", None) or err).strip().splitlines()
    return ValueError(f"{name}: cannot read the database ({reason[0] if reason else type(err).__name__})")


class _Job:
    __slots__ = ("work", "result", "error", "done")

    def __init__(self, work):
        self.work, self.result, self.error, self.done = work, None, None, False


class _GroupCommit:
    """The writers of one SQLite database in this process, committed together (see :func:`write`)."""

    def __init__(self):
        self.turn = threading.Lock()          # one transaction at a time
        self.queue = threading.Lock()
        self.pending: list[_Job] = []

    def run(self, engine: Engine, work):
        job = _Job(work)
        with self.queue:
            self.pending.append(job)
        with self.turn:
            # a job not done yet is still pending: this thread commits it with every job queued meanwhile
            if not job.done:
                with self.queue:
                    batch, self.pending = self.pending, []
                self._commit(engine, batch)
        if job.error is not None:
            raise job.error
        return job.result

    def _commit(self, engine: Engine, batch: list[_Job]) -> None:
        try:
            with engine.begin() as conn:
                if len(batch) == 1:     # alone in its transaction: an error rolls back the transaction itself
                    batch[0].result = batch[0].work(conn)
                    return
                for job in batch:
                    try:
                        with conn.begin_nested():      # a refused or failed job leaves no trace
                            job.result = job.work(conn)
                    except Exception as err:  # noqa: BLE001 - raised again in the job's own thread
                        job.error = err
        except Exception as err:  # noqa: BLE001 - the commit failed: nothing of the batch is stored
            for job in batch:
                job.error = job.error or err
        finally:
            for job in batch:
                job.done = True


def write(engine: Engine, work):
    """Run ``work(connection)`` in a write transaction; return its result once committed (raise its error).

    PostgreSQL: one transaction per call (the server commits concurrent transactions together). SQLite allows
    one writer at a time and, with ``synchronous=FULL``, each commit waits for the disk (several ms): one
    transaction per answer would cap a study at a few hundred answers per second, and writers finding the
    database locked poll it with sleeps of up to 100 ms. So the writers of this process queue, and whoever's
    turn it is runs every queued ``work`` in one transaction, each in its own savepoint (one that raises leaves
    nothing), and commits them together: each call still returns only after its own data is on disk.

    Parameters
    ----------
    engine : sqlalchemy.engine.Engine
        The study database (:func:`make_engine`).
    work : callable
        ``work(connection)``; may run in another thread of this process, with other calls' work in the same
        transaction (it must not commit or roll back).

    Returns
    -------
    object
        What ``work`` returned.

    Examples
    --------
    >>> import tempfile
    >>> engine = make_engine(sqlite_url(Path(tempfile.mkdtemp()) / "s.sqlite"))
    >>> upgrade(engine)
    >>> write(engine, lambda conn: conn.execute(study_meta.insert().values(key="k", value="v")).rowcount)
    1
    >>> write(engine, lambda conn: conn.execute(study_meta.insert().values(key="k", value="again")))
    Traceback (most recent call last):
        ...
    sqlalchemy.exc.IntegrityError: (sqlite3.IntegrityError) UNIQUE constraint failed: study_meta.key
    ...
    >>> with engine.connect() as conn:
    ...     conn.execute(study_meta.select()).all()
    [('k', 'v')]
    >>> engine.dispose()
    """
    committer = _GROUP_COMMITS.get(engine)
    if committer is None:
        with engine.begin() as conn:
            return work(conn)
    return committer.run(engine, work)


class DriverStatement:
    """A statement built once with SQLAlchemy Core, compiled once per dialect and run on the database driver's
    own connection (inside the SQLAlchemy connection's transaction).

    For the few small statements of every participant request, SQLAlchemy's execution (an execution context,
    parameter processing, events, a result object: about 70 µs a statement) cost several times what SQLite
    itself or a PostgreSQL round trip did. Values are bound as SQLAlchemy binds them (its bind processors:
    SQLite stores timestamps as text); rows come back with the driver's values (no result processing: SQLite's
    timestamps stay text), as attributes named by the statement's columns.

    Parameters
    ----------
    statement : sqlalchemy Executable
        The statement, with ``bindparam`` for the values given at run time (literals are bound as compiled).

    Examples
    --------
    >>> import tempfile
    >>> from sqlalchemy import bindparam, select
    >>> engine = make_engine(sqlite_url(Path(tempfile.mkdtemp()) / "s.sqlite"))
    >>> upgrade(engine)
    >>> put = DriverStatement(study_meta.insert().values(key=bindparam("key"), value=bindparam("value")))
    >>> get = DriverStatement(select(study_meta.c.value).where(study_meta.c.key == bindparam("key")))
    >>> write(engine, lambda conn: put.run(conn, {"key": "k", "value": "v"}).rowcount)
    1
    >>> with engine.connect() as conn:
    ...     get.first(conn, {"key": "k"}).value, get.first(conn, {"key": "other"})
    ('v', None)
    >>> engine.dispose()
    """

    def __init__(self, statement):
        self.statement = statement
        self._compiled: dict[str, tuple] = {}      # dialect name -> (SQL, positional names, defaults, processors)
        self._names: dict[str, tuple] = {}         # dialect name -> the result's column names

    def _compile(self, dialect) -> tuple:
        compiled = self.statement.compile(dialect=dialect)
        defaults, processors = {}, {}
        for bind, name in compiled.bind_names.items():
            if not bind.required:
                defaults[name] = bind.effective_value          # a literal of the statement
            processor = bind.type.dialect_impl(dialect).bind_processor(dialect)
            if processor is not None:
                processors[name] = processor
        found = compiled.string, (compiled.positiontup if compiled.positional else None), defaults, processors
        self._compiled[dialect.name] = found
        return found

    def run(self, conn, params: dict):
        """Execute the statement on the driver's connection under ``conn``.

        Parameters
        ----------
        conn : sqlalchemy.engine.Connection
            The connection (in its transaction, if any).
        params : dict
            The values of the statement's ``bindparam``.

        Returns
        -------
        cursor
            The driver's cursor (``rowcount``, ``fetchone``).
        """
        sql, positions, defaults, processors = self._compiled.get(conn.dialect.name) or self._compile(conn.dialect)
        values = {**defaults, **params}
        for name, processor in processors.items():
            values[name] = processor(values[name])
        return conn.connection.driver_connection.execute(
            sql, values if positions is None else [values[name] for name in positions])

    def first(self, conn, params: dict):
        """The first row the statement returns.

        Parameters
        ----------
        conn : sqlalchemy.engine.Connection
            The connection (in its transaction, if any).
        params : dict
            The values of the statement's ``bindparam``.

        Returns
        -------
        types.SimpleNamespace or None
            The row's values as attributes named by the statement's columns; None when there is no row.
        """
        cursor = self.run(conn, params)
        row = cursor.fetchone()
        names = self._names.get(conn.dialect.name)
        if names is None:
            names = self._names[conn.dialect.name] = tuple(column[0] for column in cursor.description)
        cursor.close()
        return None if row is None else SimpleNamespace(**dict(zip(names, row)))


def reader(engine: Engine) -> Engine:
    """The engine for reads (the same pool): on SQLite a transaction that begins without the write lock, so
    that a participant's next trial is not served after every queued write; on PostgreSQL each statement in
    its own transaction (autocommit: a read of one statement needs no BEGIN and no ROLLBACK).

    Parameters
    ----------
    engine : sqlalchemy.engine.Engine
        The study database (:func:`make_engine`).

    Returns
    -------
    sqlalchemy.engine.Engine
        ``engine`` with those execution options (not for writes: on SQLite they may fail as busy).

    Examples
    --------
    >>> import tempfile
    >>> engine = make_engine(sqlite_url(Path(tempfile.mkdtemp()) / "s.sqlite"))
    >>> with reader(engine).connect() as conn:
    ...     conn.exec_driver_sql("SELECT 1").scalar()
    1
    >>> engine.dispose()
    """
    if engine.dialect.name == "sqlite":
        return engine.execution_options(humanlike_read_only=True)
    # PostgreSQL: each statement its own transaction, sparing the BEGIN and ROLLBACK round trips of a read
    return engine.execution_options(isolation_level="AUTOCOMMIT")


def upgrade(engine: Engine) -> None:
    """Bring the schema to the newest migration (Alembic, the scripts shipped in the package).

    Parameters
    ----------
    engine : sqlalchemy.engine.Engine
        The study database.

    Examples
    --------
    >>> import tempfile
    >>> from sqlalchemy import inspect
    >>> engine = make_engine(sqlite_url(Path(tempfile.mkdtemp()) / "s.sqlite"))
    >>> upgrade(engine)
    >>> sorted(inspect(engine).get_table_names())
    ['adaptive_looks', 'alembic_version', 'participants', 'platform_ids', 'responses', 'stimuli', 'study_meta', 'trials']
    >>> engine.dispose()
    """
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", MIGRATIONS)
    with engine.connect() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "head")
        connection.commit()
