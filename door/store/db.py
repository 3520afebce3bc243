"""The database: where each transaction runs, on SQLite and on PostgreSQL.

The services write a transaction as a plain synchronous function of a
:class:`~door.store.repository.Repository` and hand it to :meth:`Database.transact`
(a write, retried whole while the database is momentarily locked) or
:meth:`Database.run_read`. One execution model per backend:

* **SQLite** (``sqlite:///path``; ``sqlite+aiosqlite:///path`` is read the same way): a
  transaction runs right on the event loop's thread, from ``BEGIN`` to ``COMMIT``, when the
  database is free at that instant; one that would have to wait for a lock goes to the
  process's one database thread, which waits it out (up to the busy timeout) while the
  loop serves everyone else. Two connections, then: the loop's, with no busy timeout, so
  that its ``BEGIN`` either gets the lock at once or fails at once with nothing done, and
  the database thread's. Why not every transaction on the thread: handing a job to
  another thread and back costs 170-280 µs on these two-core virtual machines when they
  are idle (/tmp measurements in the closing note of issue 12), more than a whole move's
  transaction (a game's record, the rules, the versioned write and the events: about
  150 µs; bench/commit_moves.py ``ratio_vs_sqlite`` went from 3.4 to 6.6 with it). The
  price is that a transaction's Python, the rules' included, runs on the loop: a move
  takes a fraction of a millisecond (bench/load.py reports the loop's longest stall).
  Within one process two transactions never overlap (the loop runs one at a time; the
  thread's connection waits for the loop's); SQLite serialises writers anyway, and WAL
  lets readers of other processes go on. Statements run on the ``sqlite3`` connection
  through :class:`~door.store.runner.SqliteRunner`. Both connections have WAL, foreign
  keys and ``synchronous=NORMAL``; writes begin with ``BEGIN IMMEDIATE`` so that two
  writers queue instead of one failing half-way with "database is locked".
* **PostgreSQL** (``postgresql+asyncpg://…``): the async driver. Each transaction is one
  pooled asyncpg connection; the function runs in a greenlet (SQLAlchemy's
  ``greenlet_spawn``) on the event loop's thread, and every statement awaits the server
  without blocking the loop (the function's own Python, the rules' included, does run on
  the loop: a move's rules take tens of microseconds, bench/backgammon_moves.py).
  Statements go straight to asyncpg (:class:`~door.store.runner.PgRunner`), so a move is
  three round trips: ``BEGIN``, the versioned UPDATE with the events' INSERT (one
  statement, ``Repository.save_game_seen_appending``), and its NOTIFY with ``COMMIT``; a
  read has no ``BEGIN``/``ROLLBACK`` of its own (unless it asks for one snapshot,
  ``Repository.one_snapshot``: then REPEATABLE READ, rolled back at its end). No connection is
  pinged when it leaves the pool (``pool_pre_ping`` cost three round trips a
  transaction): one that died fails its first statement, and the retry below takes
  another.

When the database cannot do a transaction for a reason that may pass, the whole
transaction (all or nothing) is run again as :class:`~door.store.retry.RetryPolicy` says:
locked (``TransientError``) a few times quickly, then :class:`DatabaseBusyError`; unable
to write (the disk full, an I/O error, the server's connection lost: ``StorageError``) a
few times within about a second, then :class:`DatabaseWriteError` ("the server could not
save that — try again"). :attr:`Database.health` tells whoever waits (the bots, the
deadline sweeper) when a write succeeds again. :meth:`Database.verify` looks at the
database once at start-up (``quick_check``, the schema; ``door/store/health.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import queue
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import create_engine, event
from sqlalchemy.engine import Connection, Engine, make_url
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine
from sqlalchemy.util import await_, greenlet_spawn

from door.games.base import Refusal
from door.store.files import prepare_database_file
from door.store.health import DatabaseUnusableError, check_sqlite_file
from door.store.queries import Queries
from door.store.repository import Repository
from door.store.retry import RetryPolicy
from door.store.runner import (
    PgDriver,
    PgRunner,
    PreparedStatements,
    SqliteRunner,
    StorageError,
    TransientError,
    is_storage_failure,
    is_transient,
)

T = TypeVar("T")
C = TypeVar("C")  # a listener's callback (WriteHealth)

Action = Callable[[Repository], T]

log = logging.getLogger(__name__)

WRITE_FAILED_MESSAGE = "the server could not save that — try again"
READ_FAILED_MESSAGE = "the server could not reach its database just now — try again"


class _Busy(Exception):
    """Internal: the database is locked this instant (nothing was done)."""


class DatabaseFailure(Refusal):
    """The database could not do an action (its message is fit to show a player): nothing
    was changed, and trying again later may work."""


class DatabaseBusyError(DatabaseFailure):
    """The database stayed busy (locked) through every retry; the action was not applied."""


class DatabaseWriteError(DatabaseFailure):
    """A write failed through every retry (the disk full, an I/O error, the database
    server unreachable); the transaction was rolled back, nothing of it was saved."""


class WriteHealth:
    """Whether this process can use its database: its writes failing (the disk full, the
    server gone), its reads failing, a listening connection lost (PostgreSQL's LISTEN,
    :class:`~door.store.pgnotify.PgChannel`); and whom to tell. Callbacks run on the event
    loop's thread.

    Two kinds of listener: :meth:`on_recovered`, called when a write works again after
    failures (the bot runner and the deadline sweeper pick up their pending work then);
    :meth:`on_change`, called with :attr:`lost` each time it flips (the sessions' "the
    server lost its database" line, through ``door/services/outage.py``).

    What ends a loss: a write that works ends all of it; a read that works ends the
    reads' failure only (a full SQLite disk still reads); a listening connection opened
    again ends what its loss began and, as it proves the server answers again (on
    PostgreSQL every storage failure door retries is the server out of reach), the
    writes' failure too, waking :meth:`on_recovered`'s listeners to try at once.
    """

    def __init__(self) -> None:
        self.failing = False
        """Writes are failing (only a write, or a listening connection back, ends it)."""
        self.reads_failing = False
        self._links_lost: set[object] = set()
        self._listeners: list[Callable[[], None]] = []
        self._watchers: list[Callable[[bool], None]] = []

    @property
    def lost(self) -> bool:
        """Writes or reads are failing, or a listening connection is lost."""
        return self.failing or self.reads_failing or bool(self._links_lost)

    def on_recovered(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Call ``callback`` each time a write succeeds after failures; returns the
        function that stops that."""
        return self._listen(self._listeners, callback)

    def on_change(self, callback: Callable[[bool], None]) -> Callable[[], None]:
        """Call ``callback(lost)`` each time :attr:`lost` flips; returns the function
        that stops that."""
        return self._listen(self._watchers, callback)

    def failed(self, exc: BaseException, *, write: bool = True) -> None:
        was = self.lost
        if write:
            if not self.failing:
                log.warning("database writes are failing (%s); retrying as they come", exc)
            self.failing = True
        else:
            if not self.reads_failing:
                log.warning("database reads are failing (%s); retrying as they come", exc)
            self.reads_failing = True
        self._changed(was)

    def succeeded(self, *, write: bool = True) -> None:
        if not self.reads_failing and not (write and self.failing):
            return  # every transaction comes here: nothing to do, nothing to pay
        was = self.lost
        if self.reads_failing:
            self.reads_failing = False
            log.warning("database reads work again")
        if write:
            self._writes_work()
        self._changed(was)

    def link_lost(self, link: object) -> None:
        """``link`` (a listening connection) is lost until :meth:`link_back`."""
        was = self.lost
        self._links_lost.add(link)
        self._changed(was)

    def link_back(self, link: object) -> None:
        """``link`` listens again: the server answers (see the class docstring)."""
        was = self.lost
        self._links_lost.discard(link)
        self.reads_failing = False
        self._writes_work()
        self._changed(was)

    def _writes_work(self) -> None:
        if not self.failing:
            return
        self.failing = False
        log.warning("database writes work again")
        self._call_all(self._listeners, "write-recovery callback failed")

    def _changed(self, was: bool) -> None:
        lost = self.lost
        if lost != was:
            self._call_all(self._watchers, "database-health callback failed", lost)

    @staticmethod
    def _listen(listeners: list[C], callback: C) -> Callable[[], None]:
        listeners.append(callback)

        def stop() -> None:
            with contextlib.suppress(ValueError):
                listeners.remove(callback)

        return stop

    @staticmethod
    def _call_all(listeners: list[Callable[..., None]], failure: str, *args: object) -> None:
        for callback in list(listeners):
            try:
                callback(*args)
            except Exception:  # one listener's bug must not undo the others' news
                log.exception(failure)


class Database:
    """One database: ``Database("sqlite:///path")`` or ``Database("postgresql+asyncpg://…")``."""

    def __init__(
        self,
        url: str,
        *,
        busy_timeout_ms: int = 5000,
        echo: bool = False,
        retry: RetryPolicy | None = None,
    ) -> None:
        self.url = url
        self.retry = retry if retry is not None else RetryPolicy()
        self.health = WriteHealth()
        parsed = make_url(url)
        self.is_sqlite = parsed.get_backend_name() == "sqlite"
        self.queries = Queries()
        self._sqlite: _SqliteThread | None = None
        self._engine: AsyncEngine | None = None
        self._pg_prepared: PreparedStatements | None = None
        if self.is_sqlite:
            database = parsed.database
            if not database or database == ":memory:":
                raise ValueError("door needs an SQLite file, not an in-memory database")
            self.path: Path | None = Path(database)
            # 0600 in a 0700 folder, made before SQLite opens it (door/store/files.py)
            prepare_database_file(self.path)
            engine = create_engine(
                parsed.set(drivername="sqlite"),
                echo=echo,
                connect_args={"timeout": busy_timeout_ms / 1000},
                pool_size=2,  # the loop's connection and the database thread's
                max_overflow=0,
            )
            _install_sqlite_hooks(engine, busy_timeout_ms)
            self._sqlite = _SqliteThread(engine, self.queries)
        else:
            self.path = None
            # no pool_pre_ping: its BEGIN, ping and ROLLBACK were three round trips per
            # transaction; a connection found dead fails its transaction's first
            # statement instead, which the retry policy runs again on a fresh one
            self._engine = create_async_engine(url, echo=echo)
            # every statement compiled once for asyncpg's dialect (door/store/runner.py)
            self._pg_prepared = PreparedStatements(self._engine.dialect)

    @property
    def engine(self) -> AsyncEngine:
        """The async engine (PostgreSQL only: LISTEN/NOTIFY and the test helpers)."""
        if self._engine is None:
            raise RuntimeError("an SQLite database has no async engine")
        return self._engine

    # --- transactions ------------------------------------------------------------------

    async def run_read(self, action: Action[T]) -> T:
        """Run ``action(repo)`` in a read-only transaction (rolled back at the end); tried
        again as :meth:`transact` is, then :class:`DatabaseFailure`."""
        return await self._retried(action, write=False, attempts=None)

    async def transact(self, action: Action[T], *, attempts: int | None = None) -> T:
        """Run ``action(repo)`` in one write transaction, committed if it returns, rolled
        back if it raises; retried whole, as :attr:`retry` says, while the database is
        momentarily locked (then :class:`DatabaseBusyError`; ``attempts`` overrides the
        number of tries) and while it cannot write (the disk full, an I/O error, the
        server's connection lost: then :class:`DatabaseWriteError`, whose message is
        :data:`WRITE_FAILED_MESSAGE`). A write after failed ones that succeeds tells
        :attr:`health`'s listeners.

        ``action`` must be safe to run again (it is, if it only touches the database).
        A PostgreSQL connection lost during ``COMMIT`` is not retried: the server may
        have committed, and only the caller can tell (a move's retry would find the
        version moved on).
        """
        return await self._retried(action, write=True, attempts=attempts)

    async def _retried(self, action: Action[T], *, write: bool, attempts: int | None) -> T:
        policy = self.retry
        busy = failed = 0
        while True:
            try:
                result = await self._run(action, write=write)
            except TransientError as exc:
                busy += 1
                limit = attempts if attempts is not None else policy.busy.tries
                if busy >= limit:
                    raise DatabaseBusyError(
                        "the server is busy right now; nothing was changed, please try again"
                    ) from exc
                await asyncio.sleep(policy.busy.delay(busy))
            except StorageError as exc:
                failed += 1
                self.health.failed(exc, write=write)
                if exc.in_doubt or policy.failed.gives_up(failed):
                    if not write:
                        raise DatabaseFailure(READ_FAILED_MESSAGE) from exc
                    raise DatabaseWriteError(WRITE_FAILED_MESSAGE) from exc
                await asyncio.sleep(policy.failed.delay(failed))
            else:
                self.health.succeeded(write=write)
                return result

    async def _run(self, action: Action[T], *, write: bool) -> T:
        if self._sqlite is not None:
            try:
                try:
                    return self._sqlite.run_here(action, write)
                except _Busy:
                    return await self._sqlite.run(action, write)
            except DBAPIError as exc:  # e.g. no room for a new connection's -wal file
                if is_storage_failure(exc):
                    raise StorageError(str(exc.orig)) from exc
                raise
        try:
            return await greenlet_spawn(self._pg_transaction, action, write)
        except (OSError, DBAPIError) as exc:  # connecting (the pool wraps asyncpg's errors)
            if isinstance(exc, DBAPIError) and is_transient(exc):
                raise TransientError(str(exc.orig)) from exc
            if is_storage_failure(exc):
                raise StorageError(str(exc)) from exc
            raise

    def _pg_transaction(self, action: Action[T], write: bool) -> T:
        """One PostgreSQL transaction, inside ``greenlet_spawn``: a pooled connection (no
        ping: a lost one fails its first statement, a ``StorageError``, and the retry
        takes a fresh one), ``BEGIN``, the action's statements, then its NOTIFYs and
        ``COMMIT`` in one simple query. A read sends no ``BEGIN`` at all (under READ
        COMMITTED each statement has its own snapshot, in a transaction or not), so a
        one-statement read is one round trip."""
        prepared = self._pg_prepared
        assert prepared is not None
        fairy = self.engine.sync_engine.pool.connect()
        driver = fairy.driver_connection
        assert driver is not None
        runner = PgRunner(driver, prepared, read_only=not write)
        healthy = False
        try:
            if write:
                try:
                    await_(driver.execute("BEGIN"))
                except Exception as exc:
                    raise StorageError(str(exc)) from exc
            try:
                result = action(Repository(runner, self.queries))
            except BaseException as exc:
                # on a lost connection the rollback fails too: the error that matters
                # is the first one (and the connection is thrown away); a read's
                # connection goes back unless its link failed or a statement was
                # cancelled midway
                if write or runner.snapshot:
                    healthy = _rolled_back(driver)
                else:
                    healthy = isinstance(exc, Exception) and not isinstance(exc, StorageError)
                raise
            if write:
                try:
                    await_(driver.execute(runner.commit_sql()))
                except Exception as exc:
                    if is_transient(exc):
                        healthy = _rolled_back(driver)
                        raise TransientError(str(exc)) from exc
                    if is_storage_failure(exc):
                        raise StorageError(str(exc), in_doubt=True) from exc
                    raise
            # a read that took one snapshot (begin_snapshot) ends its transaction here
            healthy = _rolled_back(driver) if runner.snapshot and not write else True
            return result
        finally:
            if not healthy or driver.is_closed():
                fairy.invalidate()
            fairy.close()

    # --- schema and life cycle -----------------------------------------------------------

    async def upgrade(self) -> None:
        """Bring the schema to the newest migration (``alembic upgrade head``)."""
        await self.run_sync(_upgrade_head)

    async def verify(self, *, upgrading: bool = True) -> None:
        """Make sure this database can be served; :class:`DatabaseUnusableError` (a
        message that says what to do) if not. Run once at start-up, before anything else
        opens it.

        SQLite: :func:`~door.store.health.check_sqlite_file` (``quick_check``; a folder,
        an unreadable file or one that is not a database at all). Both backends: the
        server answers, and the schema is one this door knows (and, when it will not
        ``upgrade`` itself, the newest).
        """
        if self.path is not None:
            await asyncio.to_thread(check_sqlite_file, self.path)
        from door.store.migrate import schema_problem

        try:
            problem = await self.run_sync(lambda conn: schema_problem(conn, upgrading=upgrading))
        except DatabaseUnusableError:
            raise
        except Exception as exc:  # the server unreachable, a password refused, …
            where = make_url(self.url).render_as_string(hide_password=True)
            raise DatabaseUnusableError(
                f"cannot use the database {where}: {_one_line(exc)}"
            ) from None
        if problem is not None:
            raise DatabaseUnusableError(problem)

    async def sqlite_pragma(self, statement: str) -> list[object]:
        """Run ``PRAGMA statement`` on both of this process's SQLite connections (the
        event loop's and the database thread's: settings such as ``max_page_count``
        belong to a connection); the first column of what each returned."""
        sqlite = self._sqlite
        if sqlite is None:
            raise RuntimeError("PRAGMAs are for SQLite")
        sql = f"PRAGMA {statement}"

        def on(raw: sqlite3.Connection) -> object:
            row = raw.execute(sql).fetchone()
            return None if row is None else row[0]

        here = on(sqlite.here_raw())
        there = await sqlite.run_sync(lambda conn: on(_driver(conn)))
        return [here, there]

    async def run_sync(self, work: Callable[[Connection], T]) -> T:
        """Run ``work`` on a SQLAlchemy ``Connection`` and commit (migrations, checks,
        tests' own SQL); on SQLite on the database thread's connection."""
        if self._sqlite is not None:
            return await self._sqlite.run_sync(work)
        async with self.engine.connect() as conn:
            result = await conn.run_sync(work)
            await conn.commit()
            return result

    async def dispose(self) -> None:
        """Close every connection and stop the database thread."""
        if self._sqlite is not None:
            await self._sqlite.close()
        if self._engine is not None:
            await self._engine.dispose()


def _rolled_back(driver: PgDriver) -> bool:
    """``ROLLBACK`` on an asyncpg connection (inside ``greenlet_spawn``); False if that
    failed too (the connection is not fit to go back to the pool)."""
    try:
        await_(driver.execute("ROLLBACK"))
    except Exception:
        return False
    return True


def _upgrade_head(conn: Connection) -> None:
    from door.store.migrate import upgrade_connection

    upgrade_connection(conn, "head")


class _SqliteThread:
    """The two connections of an SQLite database: the event loop's, and the one the
    database thread owns.

    Jobs go to the thread through a queue and come back to the event loop with
    ``call_soon_threadsafe``: the lightest hand-off there is (``run_in_executor`` adds a
    ``concurrent.futures.Future`` and its callbacks to every transaction).
    """

    def __init__(self, engine: Engine, queries: Queries) -> None:
        self.engine = engine
        self.queries = queries
        self.prepared = PreparedStatements(engine.dialect)
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        # only ever touched on the database thread
        self._conn: Connection | None = None
        self._raw: sqlite3.Connection | None = None
        # only ever touched on the event loop's thread
        self._here: Connection | None = None
        self._here_raw: sqlite3.Connection | None = None

    def here_raw(self) -> sqlite3.Connection:
        """The event loop's connection (made on first use)."""
        conn, raw = self._here, self._here_raw
        if conn is None or raw is None or conn.closed or conn.invalidated:
            if conn is not None:
                conn.close()
            conn = self.engine.connect()
            raw = _driver(conn)
            raw.execute("PRAGMA busy_timeout=0")
            self._here, self._here_raw = conn, raw
        return raw

    def run_here(self, action: Action[T], write: bool) -> T:
        """Run the transaction on the calling (event loop's) thread if the database is
        free this instant; :class:`_Busy`, with nothing done, if it is not."""
        raw = self.here_raw()
        _end_left_open(raw)
        try:
            raw.execute("BEGIN IMMEDIATE" if write else "BEGIN")
        except sqlite3.OperationalError as exc:
            if is_transient(exc):
                raise _Busy() from exc
            if is_storage_failure(exc):
                raise StorageError(str(exc)) from exc
            raise
        return self._run_begun(raw, action, write)

    async def run(self, action: Action[T], write: bool) -> T:
        return await self._submit(lambda: self._transaction(action, write))

    async def run_sync(self, work: Callable[[Connection], T]) -> T:
        return await self._submit(lambda: self._schema(work))

    async def _submit(self, job: Callable[[], T]) -> T:
        if self._thread is None:
            self._thread = threading.Thread(target=self._serve, name="door-db", daemon=True)
            self._thread.start()
        loop = asyncio.get_running_loop()
        done: asyncio.Future[T] = loop.create_future()
        self._jobs.put((job, loop, done))
        return await done

    async def close(self) -> None:
        if self._here is not None:
            self._here.close()
            self._here = self._here_raw = None
        thread, self._thread = self._thread, None
        if thread is not None:
            self._jobs.put(None)
            await asyncio.to_thread(thread.join)
        self.engine.dispose()

    def _serve(self) -> None:
        while (item := self._jobs.get()) is not None:
            job, loop, done = item
            outcome: tuple[object, BaseException | None]
            try:
                outcome = (job(), None)
            except BaseException as exc:  # handed to the waiting coroutine
                outcome = (None, exc)
            # an event loop closed meanwhile has nobody waiting (RuntimeError)
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(_settle, done, *outcome)
        self._close()

    # --- on the database thread ------------------------------------------------------------

    def _connection(self) -> tuple[Connection, sqlite3.Connection]:
        conn, raw = self._conn, self._raw
        if conn is None or raw is None or conn.closed or conn.invalidated:
            conn = self.engine.connect()
            driver = conn.connection.driver_connection
            assert isinstance(driver, sqlite3.Connection)
            self._conn, self._raw = conn, raw = conn, driver
        return conn, raw

    def _transaction(self, action: Action[T], write: bool) -> T:
        _, raw = self._connection()
        _end_left_open(raw)
        try:
            raw.execute("BEGIN IMMEDIATE" if write else "BEGIN")
        except sqlite3.OperationalError as exc:
            if is_transient(exc):
                raise TransientError(str(exc)) from exc
            if is_storage_failure(exc):
                raise StorageError(str(exc)) from exc
            raise
        return self._run_begun(raw, action, write)

    def _run_begun(self, raw: sqlite3.Connection, action: Action[T], write: bool) -> T:
        """Run ``action`` in the transaction ``raw`` has begun, and end it."""
        try:
            result = action(Repository(SqliteRunner(raw, self.prepared), self.queries))
            if write:
                raw.execute("COMMIT")
        except BaseException as exc:
            if raw.in_transaction:
                # SQLite may have rolled back itself (a full disk, an I/O error); a
                # ROLLBACK that fails leaves the transaction to _end_left_open
                with contextlib.suppress(sqlite3.Error):
                    raw.execute("ROLLBACK")
            if isinstance(exc, sqlite3.OperationalError) and is_transient(exc):
                raise TransientError(str(exc)) from exc
            if isinstance(exc, sqlite3.Error) and is_storage_failure(exc):
                raise StorageError(str(exc)) from exc  # e.g. COMMIT on a full disk
            raise
        if raw.in_transaction:
            raw.execute("ROLLBACK")
        return result

    def _schema(self, work: Callable[[Connection], T]) -> T:
        conn, _ = self._connection()
        try:
            result = work(conn)
            conn.commit()
        except BaseException:
            conn.rollback()
            raise
        return result

    def _close(self) -> None:
        if self._conn is not None:
            self._conn.close()
        self._conn = self._raw = None


_Job = tuple[Callable[[], Any], asyncio.AbstractEventLoop, "asyncio.Future[Any]"]


def _driver(conn: Connection) -> sqlite3.Connection:
    driver = conn.connection.driver_connection
    assert isinstance(driver, sqlite3.Connection)
    return driver


def _one_line(exc: BaseException) -> str:
    """An exception as one short line (SQLAlchemy's carry a link and the SQL)."""
    orig = getattr(exc, "orig", None) or exc
    text = str(orig).strip().splitlines()
    return (text[0] if text else type(orig).__name__)[:300]


def _end_left_open(raw: sqlite3.Connection) -> None:
    """Roll back a transaction an earlier failure left open (its ROLLBACK failed), so
    the next BEGIN does not fail for ever with "cannot start a transaction within a
    transaction"."""
    if raw.in_transaction:
        try:
            raw.execute("ROLLBACK")
        except sqlite3.Error as exc:
            raise StorageError(str(exc)) from exc


def _settle(done: asyncio.Future[Any], result: object, exc: BaseException | None) -> None:
    if done.cancelled():
        return  # the caller stopped waiting; the transaction ran (or failed) regardless
    if exc is not None:
        done.set_exception(exc)
    else:
        done.set_result(result)


def _install_sqlite_hooks(engine: Engine, busy_timeout_ms: int) -> None:
    @event.listens_for(engine, "connect")
    def on_connect(dbapi_connection: Any, record: Any) -> None:
        # Take transaction control away from the sqlite3 module: BEGIN is ours, both the
        # database thread's and SQLAlchemy's (the begin hook below).
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA busy_timeout={int(busy_timeout_ms)}")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()

    @event.listens_for(engine, "begin")
    def on_begin(conn: Connection) -> None:
        # migrations and checks (run_sync) write: queue on the lock from the start
        conn.exec_driver_sql("BEGIN IMMEDIATE")
