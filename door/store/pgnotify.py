"""PostgreSQL LISTEN/NOTIFY for the notification hub of several door processes.

One dedicated connection per process LISTENs on a channel; ``notify`` sends a payload with
``pg_notify`` on a pooled connection. Only PostgreSQL (asyncpg) is supported; SQLite
servers are one process and need none of this.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from door.store.db import Database

log = logging.getLogger(__name__)

CHANNEL = "door_notices"
MAX_PAYLOAD = 7900  # PostgreSQL refuses NOTIFY payloads of 8000 bytes or more


class PgChannel:
    """LISTEN on (and NOTIFY to) one channel of the database."""

    def __init__(
        self, db: Database, on_payload: Callable[[str], None], channel: str = CHANNEL
    ) -> None:
        if db.is_sqlite:
            raise ValueError("LISTEN/NOTIFY needs PostgreSQL")
        self.db = db
        self.channel = channel
        self.on_payload = on_payload
        self._conn: AsyncConnection | None = None
        self._driver: Any = None

    async def start(self) -> None:
        """Open the listening connection."""
        conn = await self.db.engine.connect()
        raw = await conn.get_raw_connection()
        driver = raw.driver_connection
        assert driver is not None
        await driver.add_listener(self.channel, self._received)
        self._conn, self._driver = conn, driver

    def _received(self, connection: Any, pid: int, channel: str, payload: str) -> None:
        try:
            self.on_payload(payload)
        except Exception:  # a bad payload must not kill the listener
            log.exception("bad notice on %s", channel)

    async def notify(self, payload: str) -> None:
        """Send ``payload`` to every listener (this process's included)."""
        if len(payload.encode("utf-8")) > MAX_PAYLOAD:
            raise ValueError("notice too long for NOTIFY")
        async with self.db.engine.connect() as conn:
            await conn.execute(
                text("SELECT pg_notify(:channel, :payload)"),
                {"channel": self.channel, "payload": payload},
            )
            await conn.commit()

    async def stop(self) -> None:
        """Stop listening and give the connection back."""
        if self._driver is not None:
            try:
                await self._driver.remove_listener(self.channel, self._received)
            except Exception:  # the connection may already be gone at shutdown
                log.debug("could not UNLISTEN", exc_info=True)
        if self._conn is not None:
            await self._conn.close()
        self._conn = self._driver = None
