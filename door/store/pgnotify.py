"""PostgreSQL LISTEN/NOTIFY for the notification hub of several door processes.

One dedicated connection per channel and process LISTENs. A change's transaction sends
its own NOTIFY (``Repository.announce``: delivered at commit, never for a rolled-back
one); ``notify`` sends a payload on its own, with ``pg_notify`` on a pooled connection.
Only PostgreSQL (asyncpg) is supported; SQLite servers are one process and need none of
this.

The listening connection is watched: asyncpg's termination listener says at once when the
server closes it (a restart, a failover, ``pg_terminate_backend``), and a cheap
``SELECT 1`` every ``health_interval_s`` finds a connection that died without a word
(a half-open TCP link). A lost connection is logged and reopened with back-off
(``retry_min_s`` doubling up to ``retry_max_s``) until it works; then ``on_reconnect`` runs,
because whatever was notified meanwhile never arrived here.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from door.store.db import Database
from door.store.runner import MAX_NOTIFY_PAYLOAD

log = logging.getLogger(__name__)

CHANNEL = "door_notices"
MAX_PAYLOAD = MAX_NOTIFY_PAYLOAD
APPLICATION_NAME = "door-listen"
"""What a listening connection calls itself in ``pg_stat_activity`` (for the sysop)."""


class PgChannel:
    """LISTEN on (and NOTIFY to) one channel of the database, reconnecting when lost."""

    def __init__(
        self,
        db: Database,
        on_payload: Callable[[str], None],
        channel: str = CHANNEL,
        *,
        on_reconnect: Callable[[], Awaitable[None]] | None = None,
        retry_min_s: float = 0.2,
        retry_max_s: float = 5.0,
        health_interval_s: float = 5.0,
    ) -> None:
        if db.is_sqlite:
            raise ValueError("LISTEN/NOTIFY needs PostgreSQL")
        self.db = db
        self.channel = channel
        self.on_payload = on_payload
        self.on_reconnect = on_reconnect
        self.retry_min_s = retry_min_s
        self.retry_max_s = max(retry_min_s, retry_max_s)
        self.health_interval_s = health_interval_s
        self._conn: AsyncConnection | None = None
        self._driver: Any = None
        self._lost: asyncio.Event | None = None
        self._watcher: asyncio.Task[None] | None = None
        self.reconnects = 0
        """How many times the listening connection was reopened (for tests and the sysop)."""

    async def start(self) -> None:
        """Open the listening connection (raises if the database cannot be reached) and
        start watching it."""
        await self._open()
        self._watcher = asyncio.create_task(self._watch(), name=f"door-listen-{self.channel}")

    async def _open(self) -> None:
        conn = await self.db.engine.connect()
        try:
            raw = await conn.get_raw_connection()
            driver = raw.driver_connection
            assert driver is not None
            lost = asyncio.Event()
            driver.add_termination_listener(lambda _conn: lost.set())
            await driver.execute(f"SET application_name = '{APPLICATION_NAME}'")
            await driver.add_listener(self.channel, self._received)
        except BaseException:
            await self._discard(conn)
            raise
        self._conn, self._driver, self._lost = conn, driver, lost

    @staticmethod
    async def _discard(conn: AsyncConnection) -> None:
        """Close ``conn`` for good (never back to the pool: it may be dead, or renamed)."""
        try:
            await conn.invalidate()
            await conn.close()
        except Exception:  # it is going away either way
            log.debug("could not close a listening connection", exc_info=True)

    async def _wait_until_lost(self) -> None:
        lost, driver = self._lost, self._driver
        assert lost is not None and driver is not None
        while True:
            try:
                await asyncio.wait_for(lost.wait(), self.health_interval_s)
                return
            except TimeoutError:
                pass
            if driver.is_closed():
                return
            try:
                await driver.fetchval("SELECT 1", timeout=self.health_interval_s)
            except asyncio.CancelledError:
                raise
            except Exception:
                return

    async def _watch(self) -> None:
        while True:
            await self._wait_until_lost()
            lost_at = time.monotonic()
            log.warning("lost the database connection listening on %s; reconnecting", self.channel)
            self.db.health.link_lost(self)  # the sessions say so (door/services/outage.py)
            conn, driver, self._conn, self._driver = self._conn, self._driver, None, None
            if driver is not None:
                # drop the socket at once: a polite close would wait on a dead link
                driver.terminate()
            if conn is not None:
                await self._discard(conn)
            delay, attempts = self.retry_min_s, 0
            while True:
                attempts += 1
                try:
                    await self._open()
                    break
                except asyncio.CancelledError:
                    raise
                except Exception as exc:
                    log.debug(
                        "reconnecting %s failed (%s); next try in %.1f s", self.channel, exc, delay
                    )
                await asyncio.sleep(delay)
                delay = min(delay * 2, self.retry_max_s)
            self.reconnects += 1
            self.db.health.link_back(self)
            log.info(
                "listening on %s again after %.1f s (%d attempt(s))",
                self.channel,
                time.monotonic() - lost_at,
                attempts,
            )
            if self.on_reconnect is not None:
                try:
                    await self.on_reconnect()
                except asyncio.CancelledError:
                    raise
                except Exception:  # catching up failed; the next notice still arrives
                    log.exception("could not catch up after reconnecting %s", self.channel)

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
        """Stop watching and listening, and close the connection."""
        watcher, self._watcher = self._watcher, None
        if watcher is not None:
            watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watcher
        if self._driver is not None and not self._driver.is_closed():
            try:
                await self._driver.remove_listener(self.channel, self._received)
            except Exception:  # the connection may already be gone at shutdown
                log.debug("could not UNLISTEN", exc_info=True)
        if self._conn is not None:
            await self._discard(self._conn)
        self._conn = self._driver = self._lost = None
