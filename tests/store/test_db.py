"""The Database: SQLite settings, where transactions run, and a locked database never
crashing."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy.engine import Connection

from door.store.db import Database, DatabaseBusyError
from door.store.repository import Repository
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


NOW = datetime(2026, 1, 1, tzinfo=UTC)


def add_user(repo: Repository, name: str = "ann") -> int:
    return repo.insert_user(name, name, None, False, NOW, {})


async def test_sqlite_runs_in_wal_with_foreign_keys_and_a_busy_timeout(
    sqlite_db: Database,
) -> None:
    got = await sqlite_db.run_sync(
        lambda c: [pragma(c, n) for n in ("journal_mode", "foreign_keys", "busy_timeout",
                                          "synchronous")]
    )  # fmt: skip
    assert got == ["wal", 1, 300, 1]  # synchronous=NORMAL


async def test_a_transaction_runs_on_the_loop_when_free_and_waits_on_the_database_thread(
    sqlite_db: Database, tmp_path: Path
) -> None:
    seen: list[int] = []

    def where(repo: Repository) -> None:
        seen.append(threading.get_ident())

    await sqlite_db.run_read(where)
    await sqlite_db.transact(where)
    assert seen == [threading.get_ident()] * 2  # the database was free: right here
    started = threading.Event()
    holder = threading.Thread(
        target=hold_write_lock, args=(tmp_path / "d" / "door.sqlite3", 0.1, started)
    )
    holder.start()
    started.wait()
    await sqlite_db.transact(where)  # another "process" writes: waited out elsewhere
    holder.join()
    assert seen[-1] != threading.get_ident()


async def test_the_data_dir_is_created_for_a_new_sqlite_file(tmp_path: Path) -> None:
    db = Database(dbutil.sqlite_url(tmp_path / "deep" / "er" / "door.sqlite3"))
    await db.upgrade()
    await db.dispose()
    assert (tmp_path / "deep" / "er" / "door.sqlite3").is_file()


async def test_a_failing_transaction_writes_nothing(sqlite_db: Database) -> None:
    def action(repo: Repository) -> None:
        add_user(repo)
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        await sqlite_db.transact(action)
    assert await sqlite_db.run_read(lambda repo: repo.user_by_key("ann")) is None


async def test_a_read_transaction_commits_nothing(sqlite_db: Database) -> None:
    await sqlite_db.run_read(add_user)
    assert await sqlite_db.run_read(lambda repo: repo.user_by_key("ann")) is None
    await sqlite_db.transact(add_user)
    assert await sqlite_db.run_read(lambda repo: repo.user_by_key("ann")) is not None


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
    result = await sqlite_db.transact(add_user)
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
            await sqlite_db.transact(add_user, attempts=2)
    finally:
        holder.join()
    assert isinstance(DatabaseBusyError("x"), ValueError)


async def test_in_memory_sqlite_is_refused_with_a_reason() -> None:
    with pytest.raises(ValueError, match="file"):
        Database("sqlite+aiosqlite://")


async def test_a_closed_database_connection_is_opened_again_for_the_next_transaction(
    sqlite_db: Database,
) -> None:
    await sqlite_db.transact(add_user)
    await sqlite_db.run_sync(lambda c: c.invalidate())
    assert await sqlite_db.run_read(lambda repo: repo.user_by_key("ann")) is not None
