"""The engine factory: SQLite (embedded default) or PostgreSQL, and write transactions.

SQLite gets WAL, foreign keys, a busy timeout and ``synchronous=NORMAL``. Its write
transactions start with ``BEGIN IMMEDIATE`` so two writers queue on the busy timeout
instead of one failing half-way with "database is locked"; read transactions stay
deferred and never block writers (WAL).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import event
from sqlalchemy.engine import Connection, make_url
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


class DatabaseBusyError(ValueError):
    """The database stayed busy (locked) through every retry; the action was not applied."""


def _is_transient(exc: BaseException) -> bool:
    """A lock timeout, a serialization failure or a deadlock: safe to retry the whole action."""
    text = str(getattr(exc, "orig", exc)).lower()
    if "database is locked" in text or "database is busy" in text or "sqlite_busy" in text:
        return True
    code = getattr(getattr(exc, "orig", None), "sqlstate", None) or getattr(
        getattr(exc, "orig", None), "pgcode", None
    )
    return code in {"40001", "40P01"} or "deadlock detected" in text or (
        "could not serialize" in text
    )


class Database:
    """One database: ``Database("sqlite+aiosqlite:///path")`` or ``"postgresql+asyncpg://…"``.

    ``engine`` and ``sessions`` are SQLAlchemy's; the services use :meth:`read` /
    :meth:`write` / :meth:`transact` connections (SQLAlchemy Core).
    """

    def __init__(self, url: str, *, busy_timeout_ms: int = 5000, echo: bool = False) -> None:
        self.url = url
        parsed = make_url(url)
        self.is_sqlite = parsed.get_backend_name() == "sqlite"
        kwargs: dict[str, Any] = {"echo": echo}
        if self.is_sqlite:
            database = parsed.database
            if database and database != ":memory:":
                Path(database).parent.mkdir(parents=True, exist_ok=True)
            kwargs["connect_args"] = {"timeout": busy_timeout_ms / 1000}
        else:
            kwargs["pool_pre_ping"] = True
        self.engine: AsyncEngine = create_async_engine(url, **kwargs)
        self.sessions: async_sessionmaker[AsyncSession] = async_sessionmaker(
            self.engine, expire_on_commit=False
        )
        if self.is_sqlite:
            self._install_sqlite_hooks(busy_timeout_ms)

    def _install_sqlite_hooks(self, busy_timeout_ms: int) -> None:
        sync_engine = self.engine.sync_engine

        @event.listens_for(sync_engine, "connect")
        def on_connect(dbapi_connection: Any, record: Any) -> None:
            # Take transaction control away from the sqlite3 module so that BEGIN is ours.
            dbapi_connection.isolation_level = None
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute(f"PRAGMA busy_timeout={int(busy_timeout_ms)}")
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.close()

        @event.listens_for(sync_engine, "begin")
        def on_begin(conn: Connection) -> None:
            if conn.get_execution_options().get(WRITE_OPTION):
                conn.exec_driver_sql("BEGIN IMMEDIATE")
            else:
                conn.exec_driver_sql("BEGIN")

    @asynccontextmanager
    async def read(self) -> AsyncIterator[AsyncConnection]:
        """A connection in a read transaction (rolled back at the end)."""
        async with self.engine.connect() as conn, conn.begin() as trans:
            yield conn
            await trans.rollback()

    @asynccontextmanager
    async def write(self) -> AsyncIterator[AsyncConnection]:
        """A connection in a write transaction, committed if the block ends normally."""
        async with self.engine.connect() as conn:
            await conn.execution_options(**{WRITE_OPTION: True})
            async with conn.begin():
                yield conn

    async def transact(
        self, action: Callable[[AsyncConnection], Awaitable[T]], *, attempts: int = 6
    ) -> T:
        """Run ``action`` in one write transaction, retrying the whole of it when the
        database is momentarily locked; :class:`DatabaseBusyError` after ``attempts``."""
        delay = 0.02
        for attempt in range(attempts):
            try:
                async with self.write() as conn:
                    return await action(conn)
            except (OperationalError, DBAPIError) as exc:
                if not _is_transient(exc) or attempt == attempts - 1:
                    if _is_transient(exc):
                        raise DatabaseBusyError(
                            "the server is busy right now; nothing was changed, please try again"
                        ) from exc
                    raise
            await asyncio.sleep(delay)
            delay = min(delay * 2, 0.5)
        raise AssertionError("unreachable")

    async def upgrade(self) -> None:
        """Bring the schema to the newest migration (``alembic upgrade head``)."""
        from door.store.migrate import upgrade_connection

        async with self.engine.connect() as conn:
            await conn.run_sync(upgrade_connection, "head")
            await conn.commit()

    async def dispose(self) -> None:
        """Close every pooled connection."""
        await self.engine.dispose()
