"""Bans take effect at once: every live session of a banned user is told and closed.

A session registers its user with :meth:`BanWatch.watch` while it runs (``door.app.
enter_session`` does). A ban reaches the watch three ways, whichever process makes it:

* in this process, :meth:`Accounts.set_banned <door.services.accounts.Accounts.set_banned>`
  calls :meth:`BanWatch.banned` as soon as the ban is committed;
* on PostgreSQL, the ban's own transaction announces it (``NOTIFY`` on
  :data:`BAN_CHANNEL`, delivered at commit) and every process's watch LISTENs; when the
  listening connection comes back after a loss, the watch makes one :meth:`BanWatch.check`
  for the bans announced while nobody here was listening;
* on SQLite, where another process (``door user ban``) writes the file and there is no
  NOTIFY, the watch asks every ``interval`` seconds which of the users online here are
  banned: one read by primary key (ids sent in fixed-size chunks, so the statement has
  one compiled form), and none at all while nobody is online.

What the game service does meanwhile is its own guard: it refuses a banned user's every
action inside the action's transaction (``door/services/games/core.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from door.store.db import Database
from door.store.repository import Repository

if TYPE_CHECKING:
    from door.store.pgnotify import PgChannel

log = logging.getLogger(__name__)

BAN_CHANNEL = "door_bans"
"""The PostgreSQL channel a ban is announced on (the payload is the user's id)."""

CHUNK = 64
"""Ids per poll statement (a short list is padded with 0, which is nobody's id)."""

OnBan = Callable[[], Awaitable[None] | None]


class Watch:
    """One session's registration with a :class:`BanWatch`; :meth:`close` ends it."""

    def __init__(self, owner: BanWatch, user_id: int, on_ban: OnBan) -> None:
        self.owner = owner
        self.user_id = user_id
        self.on_ban = on_ban
        self.closed = False

    def close(self) -> None:
        """Stop watching (idempotent)."""
        if not self.closed:
            self.closed = True
            self.owner._remove(self)

    def __enter__(self) -> Watch:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class BanWatch:
    """The users online in this process and what to do when one of them is banned.

    Built by :func:`door.services.build_services`; :meth:`start` begins listening
    (PostgreSQL) or polling (SQLite, every ``interval`` seconds), :meth:`stop` ends it.
    """

    def __init__(self, db: Database, *, interval: float = 1.0) -> None:
        self.db = db
        self.interval = max(0.05, float(interval))
        self._watches: dict[int, list[Watch]] = {}
        self._firing: set[asyncio.Task[None]] = set()
        self._poller: asyncio.Task[None] | None = None
        self._channel: PgChannel | None = None
        self.polls = 0
        """How many poll reads were made (for tests and the curious)."""

    # --- sessions ------------------------------------------------------------------------

    def watch(self, user_id: int, on_ban: OnBan) -> Watch:
        """Call ``on_ban`` (once) when ``user_id`` is banned, until the watch is closed."""
        w = Watch(self, user_id, on_ban)
        self._watches.setdefault(user_id, []).append(w)
        return w

    def online(self) -> list[int]:
        """The users with a watched session here."""
        return list(self._watches)

    def _remove(self, w: Watch) -> None:
        found = self._watches.get(w.user_id)
        if found and w in found:
            found.remove(w)
            if not found:
                del self._watches[w.user_id]

    def banned(self, user_id: int) -> int:
        """``user_id`` was banned: end every session of theirs here; how many there were."""
        found = self._watches.pop(user_id, [])
        for w in found:
            w.closed = True
            try:
                result = w.on_ban()
            except Exception:  # one session's trouble must not spare the others
                log.exception("could not end a session of banned user %d", user_id)
                continue
            if result is not None:
                task = asyncio.ensure_future(self._settle(result, user_id))
                self._firing.add(task)
                task.add_done_callback(self._firing.discard)
        if found:
            log.info("user %d is banned: %d session(s) ended", user_id, len(found))
        return len(found)

    @staticmethod
    async def _settle(work: Awaitable[None], user_id: int) -> None:
        try:
            await work
        except Exception:
            log.exception("could not end a session of banned user %d", user_id)

    # --- finding out ---------------------------------------------------------------------

    async def is_banned(self, user_id: int) -> bool:
        """Whether ``user_id`` is banned now (a session that has just registered asks,
        so a ban made while it was logging in is not missed)."""
        return await self.db.run_read(lambda repo: repo.is_banned(user_id))

    async def check(self) -> int:
        """Look up which users online here are banned and end their sessions; how
        many users were found banned."""
        ids = self.online()
        if not ids:
            return 0
        self.polls += 1
        chunks = [ids[i : i + CHUNK] for i in range(0, len(ids), CHUNK)]

        def read(repo: Repository) -> list[int]:
            out: list[int] = []
            for chunk in chunks:
                out += repo.banned_among(chunk + [0] * (CHUNK - len(chunk)))
            return out

        found = await self.db.run_read(read)
        for user_id in found:
            self.banned(user_id)
        return len(found)

    async def start(self) -> None:
        """Listen for bans (PostgreSQL) or start polling for them (SQLite)."""
        if self._poller is not None or self._channel is not None:
            return
        if self.db.is_sqlite:
            self._poller = asyncio.create_task(self._poll(), name="door-ban-watch")
            return
        from door.store.pgnotify import PgChannel

        channel = PgChannel(self.db, self._received, BAN_CHANNEL, on_reconnect=self._reconnected)
        await channel.start()
        self._channel = channel

    async def stop(self) -> None:
        """Stop listening or polling (sessions still registered stay as they are)."""
        poller, self._poller = self._poller, None
        if poller is not None:
            poller.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await poller
        channel, self._channel = self._channel, None
        if channel is not None:
            await channel.stop()
        for task in list(self._firing):
            with contextlib.suppress(Exception):
                await task

    async def _reconnected(self) -> None:
        """The ban channel was lost for a while: a ban announced meanwhile was missed,
        so ask the database once about everybody online here."""
        found = await self.check()
        if found:
            log.info("%d user(s) banned while the ban notices were lost", found)

    def _received(self, payload: str) -> None:
        try:
            user_id = int(payload)
        except ValueError:
            log.warning("ignoring a malformed ban notice %r", payload[:40])
            return
        self.banned(user_id)

    async def _poll(self) -> None:
        while True:
            await asyncio.sleep(self.interval)
            try:
                await self.check()
            except asyncio.CancelledError:
                raise
            except Exception:  # a busy or broken read: try again next time
                log.exception("could not look for banned users")
