"""Alembic environment for door: async engines, batch mode for SQLite.

Run from code (``door db upgrade``, the server's automatic upgrade) a connection is handed
in through ``config.attributes["connection"]``; run as ``alembic`` on the command line the
URL comes from ``sqlalchemy.url`` or the ``DOOR_DATABASE_URL`` environment variable.
"""

from __future__ import annotations

import asyncio
import os

from alembic import context
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import create_async_engine

from door.store.models import Base


def _configure(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=Base.metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )


def _run_sync(connection: Connection) -> None:
    _configure(connection)
    with context.begin_transaction():
        context.run_migrations()


async def _run_async(url: str) -> None:
    engine = create_async_engine(url)
    try:
        async with engine.connect() as conn:
            await conn.run_sync(_run_sync)
            await conn.commit()
    finally:
        await engine.dispose()


def run_offline() -> None:
    url = _url()
    context.configure(
        url=url,
        target_metadata=Base.metadata,
        literal_binds=True,
        render_as_batch=url.startswith("sqlite"),
    )
    with context.begin_transaction():
        context.run_migrations()


def _url() -> str:
    url = context.config.get_main_option("sqlalchemy.url") or os.environ.get(
        "DOOR_DATABASE_URL", ""
    )
    if not url:
        raise RuntimeError("no database URL: set sqlalchemy.url or DOOR_DATABASE_URL")
    return url


def run_online() -> None:
    connection = context.config.attributes.get("connection")
    if connection is not None:
        _run_sync(connection)
    else:
        asyncio.run(_run_async(_url()))


if context.is_offline_mode():
    run_offline()
else:
    run_online()
