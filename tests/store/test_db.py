"""The Database: SQLite settings, transactions, and a locked database never crashing."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.engine import Connection

from door.store.db import Database, DatabaseBusyError
from tests.store import dbutil


def head_revision() -> str:
    """The newest migration's revision id (what an upgraded database records)."""
    from alembic.script import ScriptDirectory

    from door.store.migrate import alembic_config

    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert head is not None
    return head


@pytest.fixture
async def sqlite_db(tmp_path: Path) -> AsyncIterator[Database]:
    db = Database(dbutil.sqlite_url(tmp_path / "d" / "door.sqlite3"), busy_timeout_ms=300)
    await db.upgrade()
    yield db
    await db.dispose()


def pragma(conn: Connection, name: str) -> object:
    return conn.exec_driver_sql(f"PRAGMA {name}").scalar()


async def test_sqlite_runs_in_wal_with_foreign_keys_and_a_busy_timeout(
    sqlite_db: Database,
) -> None:
    for write in (True, False):
        got = await sqlite_db.run(
            lambda c: (pragma(c, "journal_mode"), pragma(c, "foreign_keys")), write=write
        )
        assert got == ("wal", 1)
    async with sqlite_db.engine.connect() as conn:
        assert (await conn.exec_driver_sql("PRAGMA busy_timeout")).scalar() == 300
        assert (await conn.exec_driver_sql("PRAGMA synchronous")).scalar() == 1  # NORMAL


async def test_the_data_dir_is_created_for_a_new_sqlite_file(tmp_path: Path) -> None:
    db = Database(dbutil.sqlite_url(tmp_path / "deep" / "er" / "door.sqlite3"))
    await db.upgrade()
    await db.dispose()
    assert (tmp_path / "deep" / "er" / "door.sqlite3").is_file()


async def test_a_failing_transaction_writes_nothing(sqlite_db: Database) -> None:
    def action(conn: Connection) -> None:
        conn.execute(text("UPDATE alembic_version SET version_num = 'zzz'"))
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        await sqlite_db.transact(action)
    version = await sqlite_db.run_read(
        lambda c: c.execute(text("SELECT version_num FROM alembic_version")).scalar()
    )
    assert version == head_revision()


async def test_a_read_transaction_commits_nothing(sqlite_db: Database) -> None:
    await sqlite_db.run_read(
        lambda c: c.execute(text("UPDATE alembic_version SET version_num = 'zzz'"))
    )
    version = await sqlite_db.run_read(
        lambda c: c.execute(text("SELECT version_num FROM alembic_version")).scalar()
    )
    assert version == head_revision()


def hold_write_lock(path: Path, seconds: float, started: threading.Event) -> None:
    """Another process's writer, as far as door can tell: a write lock held a while."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("BEGIN IMMEDIATE")
    started.set()
    time.sleep(seconds)
    conn.execute("COMMIT")
    conn.close()


async def test_a_write_waits_for_another_writer_without_blocking_the_loop(
    sqlite_db: Database, tmp_path: Path
) -> None:
    started = threading.Event()
    holder = threading.Thread(
        target=hold_write_lock, args=(tmp_path / "d" / "door.sqlite3", 0.15, started)
    )
    holder.start()
    started.wait()
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    task = asyncio.create_task(ticker())
    result = await sqlite_db.transact(lambda c: c.execute(text("SELECT 1")).scalar())
    task.cancel()
    holder.join()
    assert result == 1
    assert ticks >= 5  # the event loop kept running while the write waited


async def test_a_database_locked_too_long_is_a_clear_busy_error_not_a_crash(
    sqlite_db: Database, tmp_path: Path
) -> None:
    started = threading.Event()
    holder = threading.Thread(
        target=hold_write_lock, args=(tmp_path / "d" / "door.sqlite3", 1.2, started)
    )
    holder.start()
    started.wait()
    try:
        with pytest.raises(DatabaseBusyError, match="try again"):
            await sqlite_db.transact(lambda c: c.execute(text("SELECT 1")).scalar(), attempts=2)
    finally:
        holder.join()
    assert isinstance(DatabaseBusyError("x"), ValueError)


async def test_in_memory_sqlite_is_refused_with_a_reason() -> None:
    with pytest.raises(ValueError, match="file"):
        Database("sqlite+aiosqlite://")


async def test_the_fast_path_finds_the_sqlite_connection_under_each_connection(
    sqlite_db: Database,
) -> None:
    from door.store.queries import _raw

    def under(conn: Connection) -> bool:
        return _raw(conn) is conn.connection.driver_connection

    assert await sqlite_db.run_read(under)  # the event loop's own connection
    assert await asyncio.get_running_loop().run_in_executor(
        None, sqlite_db._run_sqlite, under, False  # a worker thread's connection
    )


async def test_an_invalidated_loop_connection_is_replaced_before_the_next_transaction(
    sqlite_db: Database,
) -> None:
    from door.store.queries import _raw

    first = await sqlite_db.run_read(lambda c: (c, sqlite_db.here_token(c)))
    first[0].invalidate()

    def look(conn: Connection) -> tuple[Connection, object, bool]:
        fast = _raw(conn) is conn.connection.driver_connection
        return conn, sqlite_db.here_token(conn), fast

    _, token, fast = await sqlite_db.run_read(look)
    assert fast  # the live sqlite3 connection, not the one invalidated
    assert token != first[1]  # whatever the old connection's token promised is void
    assert await sqlite_db.run_read(
        lambda c: c.execute(text("SELECT version_num FROM alembic_version")).scalar()
    )
