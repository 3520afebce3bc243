"""The engine factory: SQLite (embedded default) or PostgreSQL, and transactions.

The services write their transactions as plain synchronous functions of a SQLAlchemy
``Connection`` and hand them to :meth:`Database.transact` (writes) or
:meth:`Database.run_read`. On PostgreSQL the function runs through ``AsyncConnection.
run_sync`` (asyncpg, no threads). On SQLite the whole function runs on a small worker
thread pool with the standard ``sqlite3`` driver: one hand-off per transaction instead of
several per statement (what aiosqlite costs), which is what lets a move commit in about a
millisecond, and keeps the rules' CPU work off the event loop too.

SQLite gets WAL, foreign keys, a busy timeout and ``synchronous=NORMAL``. Its write
transactions start with ``BEGIN IMMEDIATE`` so two writers queue on the busy timeout
instead of one failing half-way with "database is locked"; read transactions stay
deferred and never block writers (WAL).
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import create_engine, event
from sqlalchemy.engine import Connection, Engine, make_url
from sqlalchemy.exc import DBAPIError, OperationalError
from sqlalchemy.ext.asyncio import (
    AsyncConnection,
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)

T = TypeVar("T")

WRITE_OPTION = "door_write"
SQLITE_WORKERS = 8
# The attribute on the event loop's own SQLAlchemy connection that holds its sqlite3
# connection (see ``door.store.queries._raw``): SQLAlchemy's ``conn.connection.
# driver_connection`` walks two pool proxies on every statement of every move.
RAW_ATTRIBUTE = "_door_sqlite"


class _Busy(Exception):
    """Internal: SQLite is locked by someone else this instant."""


class DatabaseBusyError(ValueError):
    """The database stayed busy (locked) through every retry; the action was not applied."""


def _is_transient(exc: BaseException) -> bool:
    """A lock timeout, a serialization failure or a deadlock: safe to retry the whole action."""
    orig = getattr(exc, "orig", exc)
    text = str(orig).lower()
    if "database is locked" in text or "database is busy" in text or "sqlite_busy" in text:
        return True
    code = getattr(orig, "sqlstate", None) or getattr(orig, "pgcode", None)
    return code in {"40001", "40P01"} or "deadlock detected" in text or (
        "could not serialize" in text
    )


def _driver(conn: Connection) -> Any:
    """The DBAPI (sqlite3) connection under a SQLAlchemy connection."""
    driver = conn.connection.driver_connection
    assert driver is not None
    return driver


def _install_sqlite_hooks(engine: Engine, busy_timeout_ms: int) -> None:
    @event.listens_for(engine, "connect")
    def on_connect(dbapi_connection: Any, record: Any) -> None:
        # Take transaction control away from the sqlite3 module so that BEGIN is ours.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA busy_timeout={int(busy_timeout_ms)}")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()

    @event.listens_for(engine, "begin")
    def on_begin(conn: Connection) -> None:
        if _driver(conn).in_transaction:
            return  # Database._run_sqlite_here began it already
        if conn.get_execution_options().get(WRITE_OPTION):
            conn.exec_driver_sql("BEGIN IMMEDIATE")
        else:
            conn.exec_driver_sql("BEGIN")


class Database:
    """One database: ``Database("sqlite+aiosqlite:///path")`` or ``"postgresql+asyncpg://…"``.

    ``engine`` (AsyncEngine) and ``sessions`` are SQLAlchemy's, for whoever wants them;
    the services use :meth:`transact` and :meth:`run_read`.
    """

    def __init__(self, url: str, *, busy_timeout_ms: int = 5000, echo: bool = False) -> None:
        self.url = url
        parsed = make_url(url)
        self.is_sqlite = parsed.get_backend_name() == "sqlite"
        kwargs: dict[str, Any] = {"echo": echo}
        self._sync_engine: Engine | None = None
        self._here: Connection | None = None
        self._here_raw: Any = None
        self._here_epoch = 0
        self._executor: ThreadPoolExecutor | None = None
        if self.is_sqlite:
            database = parsed.database
            if not database or database == ":memory:":
                raise ValueError("door needs an SQLite file, not an in-memory database")
            Path(database).parent.mkdir(parents=True, exist_ok=True)
            kwargs["connect_args"] = {"timeout": busy_timeout_ms / 1000}
            sync_url = parsed.set(drivername="sqlite")
            self._sync_engine = create_engine(
                sync_url,
                echo=echo,
                connect_args={"timeout": busy_timeout_ms / 1000, "check_same_thread": False},
                pool_size=SQLITE_WORKERS,
                max_overflow=0,
            )
            _install_sqlite_hooks(self._sync_engine, busy_timeout_ms)
            self._executor = ThreadPoolExecutor(SQLITE_WORKERS, thread_name_prefix="door-sqlite")
        else:
            kwargs["pool_pre_ping"] = True
        self.engine: AsyncEngine = create_async_engine(url, **kwargs)
        self.sessions: async_sessionmaker[AsyncSession] = async_sessionmaker(
            self.engine, expire_on_commit=False
        )
        if self.is_sqlite:
            _install_sqlite_hooks(self.engine.sync_engine, busy_timeout_ms)

    # --- transactions ------------------------------------------------------------------

    async def run(self, action: Callable[[Connection], T], *, write: bool) -> T:
        """Run ``action(conn)`` in one transaction: committed if ``write`` and it returns,
        rolled back otherwise (or if it raises)."""
        if self._sync_engine is not None and self._executor is not None:
            try:
                return self._run_sqlite_here(action, write)
            except _Busy:
                pass
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(self._executor, self._run_sqlite, action, write)
        async with self.engine.connect() as conn:
            await conn.execution_options(**{WRITE_OPTION: write})
            trans = await conn.begin()
            try:
                result = await conn.run_sync(action)
            except BaseException:
                await trans.rollback()
                raise
            if write:
                await trans.commit()
            else:
                await trans.rollback()
            return result

    def _run_sqlite_here(self, action: Callable[[Connection], T], write: bool) -> T:
        """Run the transaction right here, on the event loop's thread, if the database
        is free this instant; :class:`_Busy` (before ``action`` ran) if it is not.

        Within one process this never waits: transactions on the loop thread cannot
        overlap, since ``action`` is synchronous. Another process (``door user``, a
        second server) holding the write lock makes this raise at ``BEGIN``, and the
        caller falls back to a worker thread that waits on the busy timeout instead of
        stalling the loop. A thread hop costs more than a whole SQLite transaction.
        """
        conn = self._here
        raw = self._here_raw
        if conn is None or conn.closed or conn.invalidated:
            raw = self._open_here()
            conn = self._here
            assert conn is not None
        try:
            raw.execute("BEGIN IMMEDIATE" if write else "BEGIN")
        except sqlite3.OperationalError as exc:
            if "locked" in str(exc) or "busy" in str(exc):
                raise _Busy() from exc
            raise
        # SQLAlchemy statements in ``action`` autobegin on top of this transaction (the
        # begin hook sees it is open), so the commit/rollback below ends both.
        try:
            result = action(conn)
        except BaseException:
            if conn.in_transaction():
                conn.rollback()
            if raw.in_transaction:
                raw.execute("ROLLBACK")
            raise
        if write:
            if conn.in_transaction():
                conn.commit()
            if raw.in_transaction:
                raw.execute("COMMIT")
        else:
            if conn.in_transaction():
                conn.rollback()
            if raw.in_transaction:
                raw.execute("ROLLBACK")
        return result

    def _open_here(self) -> Any:
        """(Re)open the event loop's own connection; returns its sqlite3 connection."""
        assert self._sync_engine is not None
        if self._here is not None:
            self._here.close()
        conn = self._sync_engine.connect()
        raw = _driver(conn)
        raw.execute("PRAGMA busy_timeout=0")
        setattr(conn, RAW_ATTRIBUTE, raw)
        self._here = conn
        self._here_raw = raw
        self._here_epoch += 1
        return raw

    def here_token(self, conn: Connection) -> tuple[int, int] | None:
        """Inside a transaction on the event loop's own SQLite connection: a token that
        stays the same until some *other* connection (a worker thread, another process)
        commits, so whoever caches rows this process itself wrote can tell whether they
        may still be current. ``None`` anywhere else (worker threads, PostgreSQL): no
        such promise there.

        SQLite's ``PRAGMA data_version`` changes exactly when another connection commits;
        this connection's own commits leave it alone, so the caller must still forget
        what its own other writes change.
        """
        if conn is not self._here:
            return None
        row = self._here_raw.execute("PRAGMA data_version").fetchone()
        return (self._here_epoch, int(row[0]))

    def _run_sqlite(self, action: Callable[[Connection], T], write: bool) -> T:
        assert self._sync_engine is not None
        with self._sync_engine.connect() as conn:
            conn = conn.execution_options(**{WRITE_OPTION: write})
            with conn.begin() as trans:
                result = action(conn)
                if not write:
                    trans.rollback()
                return result

    async def run_read(self, action: Callable[[Connection], T]) -> T:
        """Run ``action(conn)`` in a read-only transaction."""
        return await self.run(action, write=False)

    async def transact(self, action: Callable[[Connection], T], *, attempts: int = 6) -> T:
        """Run ``action(conn)`` in one write transaction, retrying the whole of it when
        the database is momentarily locked; :class:`DatabaseBusyError` after ``attempts``.

        ``action`` must be safe to run again (it is, if it only touches the database).
        """
        delay = 0.02
        for attempt in range(attempts):
            try:
                return await self.run(action, write=True)
            except (OperationalError, DBAPIError) as exc:
                if not _is_transient(exc):
                    raise
                if attempt == attempts - 1:
                    raise DatabaseBusyError(
                        "the server is busy right now; nothing was changed, please try again"
                    ) from exc
            await asyncio.sleep(delay)
            delay = min(delay * 2, 0.5)
        raise AssertionError("unreachable")

    @asynccontextmanager
    async def read(self) -> AsyncIterator[AsyncConnection]:
        """An async connection in a read transaction (rolled back at the end)."""
        async with self.engine.connect() as conn, conn.begin() as trans:
            yield conn
            await trans.rollback()

    @asynccontextmanager
    async def write(self) -> AsyncIterator[AsyncConnection]:
        """An async connection in a write transaction, committed if the block ends normally."""
        async with self.engine.connect() as conn:
            await conn.execution_options(**{WRITE_OPTION: True})
            async with conn.begin():
                yield conn

    # --- schema and life cycle -----------------------------------------------------------

    async def upgrade(self) -> None:
        """Bring the schema to the newest migration (``alembic upgrade head``)."""
        from door.store.migrate import upgrade_connection

        async with self.engine.connect() as conn:
            await conn.run_sync(upgrade_connection, "head")
            await conn.commit()

    async def dispose(self) -> None:
        """Close every pooled connection and stop the SQLite workers."""
        await self.engine.dispose()
        if self._here is not None:
            self._here.close()
            self._here = None
            self._here_raw = None
        if self._sync_engine is not None:
            self._sync_engine.dispose()
        if self._executor is not None:
            self._executor.shutdown(wait=True)
            self._executor = None
            self._sync_engine = None
