"""Databases for the store and service tests: migrated SQLite files and PostgreSQL databases.

Migrating costs tens of milliseconds, so each backend is migrated once per test session
into a template (a SQLite file that is copied; a PostgreSQL template database that
``CREATE DATABASE … TEMPLATE`` clones), and every test gets a fresh, isolated copy.
"""

from __future__ import annotations

import asyncio
import itertools
import shutil
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import create_async_engine

from door.store.db import Database

_counter = itertools.count(1)


def run_blocking(factory: Callable[[], Coroutine[Any, Any, None]]) -> None:
    """Run a coroutine to the end on its own loop in a thread (callable from inside a
    running loop, e.g. a session fixture first requested by an async test)."""
    with ThreadPoolExecutor(1) as pool:
        pool.submit(lambda: asyncio.run(factory())).result()


def sqlite_url(path: Path) -> str:
    return f"sqlite+aiosqlite:///{path}"


def make_sqlite_template(folder: Path) -> Path:
    """A migrated SQLite file to copy from."""
    path = folder / "template.sqlite3"

    async def build() -> None:
        db = Database(sqlite_url(path))
        await db.upgrade()
        await db.dispose()

    run_blocking(build)
    return path


def fresh_sqlite(template: Path, folder: Path) -> str:
    path = folder / f"t{next(_counter)}.sqlite3"
    shutil.copyfile(template, path)
    return sqlite_url(path)


def pg_database_url(server_url: str, name: str) -> str:
    return make_url(server_url).set(database=name).render_as_string(hide_password=False)


async def _admin(server_url: str, *statements: str) -> None:
    engine = create_async_engine(server_url, isolation_level="AUTOCOMMIT")
    try:
        async with engine.connect() as conn:
            for s in statements:
                await conn.execute(text(s))
    finally:
        await engine.dispose()


def make_pg_template(server_url: str, name: str = "door_template") -> str:
    """Create and migrate a database (usable as a template); returns its name."""

    async def build() -> None:
        await _admin(server_url, f"DROP DATABASE IF EXISTS {name}", f"CREATE DATABASE {name}")
        db = Database(pg_database_url(server_url, name))
        await db.upgrade()
        await db.dispose()

    run_blocking(build)
    return name


async def truncate_all(db: Database) -> None:
    """Empty every table and restart the id sequences (much faster than a new database)."""
    from door.store.models import Base

    names = ", ".join(t.name for t in Base.metadata.sorted_tables)
    async with db.engine.begin() as conn:
        await conn.execute(text(f"TRUNCATE {names} RESTART IDENTITY CASCADE"))


async def fresh_pg(server_url: str, template: str | None) -> str:
    name = f"door_t{next(_counter)}"
    clause = f" TEMPLATE {template}" if template else ""
    await _admin(server_url, f"DROP DATABASE IF EXISTS {name}", f"CREATE DATABASE {name}{clause}")
    return pg_database_url(server_url, name)


async def drop_pg(server_url: str, url: str) -> None:
    name = make_url(url).database
    await _admin(server_url, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
