"""Who is online, and pages: one-line live messages to a player who is.

:class:`Presence` is this process's register of its signed-in sessions: who, how they
came (telnet, SSH, rlogin/BBS, web), where they are (the top screen's ``where`` text)
and when they last pressed a key. W)ho shows this process's sessions live, and every
other process's from the ``presence`` table: each process rewrites its own rows there
(a delete and an insert in one transaction) every ``interval_s`` seconds and at once
when a session signs in or ends. Why a table and not hub announcements: W)ho is asked
rarely and must answer at once; a table is read in one query, works the same on SQLite
(several ``door local`` processes) and PostgreSQL, and a process that dies (kill -9)
simply stops renewing its rows, which are then too old to show (and deleted by the
next process's heartbeat). The cost is one small write per process every few seconds,
and another process's where/idle figures being up to ``interval_s`` old.

A page travels as a hub notice (kind ``page``, addressed to its recipient): on one
process :class:`~door.services.notify.LocalHub` hands it to the recipient's sessions;
where several processes share PostgreSQL, :class:`~door.services.notify.PgHub`
publishes it with NOTIFY too, so a recipient on another process gets it as well. Each
page has its own random ``seq``, which the session's seen-set uses to show it once even
when it arrives twice. A page is not stored: it is live only (mail is the way to reach
someone who is not there).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from door.config import CommunityConfig
from door.services.claims import process_owner
from door.services.clock import Clock
from door.services.notify import Hub, Notice
from door.services.safety import SLOW_DOWN, RateLimit, clean_message, refusal_for_muted
from door.store.db import Database, DatabaseFailure
from door.store.records import PresenceRecord
from door.store.repository import Repository

log = logging.getLogger(__name__)

PAGE_MAX = 120
"""Characters in a page (it is one status line)."""


class PageError(Exception):
    """A page that cannot be sent, with the reason to show its sender."""


@dataclass
class Online:
    """One signed-in session of this process."""

    key: int
    user_id: int
    name: str
    transport: str
    since: datetime
    last_key: datetime
    where: Callable[[], str] = field(default=lambda: "")


@dataclass(frozen=True)
class WhoLine:
    """One row of W)ho."""

    user_id: int
    name: str
    transport: str
    where: str
    idle_s: float


class Presence:
    """This process's signed-in sessions, and pages to them."""

    def __init__(
        self,
        hub: Hub,
        clock: Clock,
        db: Database | None = None,
        *,
        interval_s: float = CommunityConfig.presence_interval_s,
        per_minute: int = CommunityConfig.page_per_minute,
        burst: int = CommunityConfig.page_burst,
    ) -> None:
        self.hub = hub
        self.clock = clock
        self.db = db
        self.interval_s = interval_s
        self.origin = process_owner()
        self._online: dict[int, Online] = {}
        self._keys = itertools.count(1)
        self._task: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()
        self._reported = False
        """Whether the table holds rows of this process (an idle process writes none)."""
        self.limit = RateLimit(clock, per_minute, burst)
        """Each sender's pages (chat's numbers: a page is one line too)."""

    def join(self, user_id: int, name: str, transport: str) -> Online:
        """Register a session that signed in; :meth:`leave` it when it ends."""
        now = self.clock.now()
        entry = Online(next(self._keys), user_id, name, transport, now, now)
        self._online[entry.key] = entry
        self._wake.set()
        return entry

    def leave(self, entry: Online) -> None:
        self._online.pop(entry.key, None)
        self._wake.set()

    # --- the table, for the other processes ---------------------------------------------
    def start(self) -> None:
        """Report this process's sessions to the table from now on."""
        if self.db is not None and self._task is None:
            self._task = asyncio.create_task(self._heartbeat(), name="door-presence")

    async def stop(self) -> None:
        """Stop reporting, and take this process's rows out."""
        if self._task is None:
            return
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task
        self._task = None
        self._online.clear()
        with contextlib.suppress(Exception):  # a database gone: the rows age out
            await self.flush()

    async def flush(self) -> None:
        """Write this process's sessions as they are now (and drop long-dead rows)."""
        if self.db is None:
            return
        now = self.clock.now()
        rows = [
            PresenceRecord(self.origin, e.key, e.user_id, e.name[:40], e.transport[:16],
                           self._where(e)[:80], e.last_key, now)
            for e in self._online.values()
        ]
        if not rows and not self._reported:
            return  # nobody here, and nothing of ours in the table: no write at all
        origin, stale = self.origin, now - timedelta(seconds=self.interval_s * 6)

        def write(repo: Repository) -> None:
            repo.replace_presence(origin, rows)
            repo.forget_presence_before(stale)

        await self.db.transact(write)
        self._reported = bool(rows)

    async def _heartbeat(self) -> None:
        while True:
            try:
                await self.flush()
            except DatabaseFailure as exc:
                log.warning("could not report who is online: %s", exc)
            except Exception:  # keep reporting: W)ho elsewhere would lose this process
                log.exception("presence heartbeat failed")
            self._wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self.interval_s)

    @staticmethod
    def _where(e: Online) -> str:
        try:
            return e.where() or "online"
        except Exception:  # a screen's where text must never break W)ho
            return "online"

    async def who_everywhere(self) -> list[WhoLine]:
        """Everyone signed in on any process sharing the database (this one's live, the
        others' as last reported); this process's only if the database is unreachable."""
        lines = self.who()
        if self.db is None:
            return lines
        since = self.clock.now() - timedelta(seconds=self.interval_s * 3)
        try:
            rows = await self.db.run_read(lambda repo: repo.fresh_presence(since))
        except DatabaseFailure:
            return lines
        now = self.clock.now()
        lines += [
            WhoLine(r.user_id, r.name, r.transport, r.where_text,
                    max((now - r.last_key_at).total_seconds(), 0.0))
            for r in rows if r.origin != self.origin
        ]
        return sorted(lines, key=lambda w: (w.name.lower(), w.idle_s))

    def touched(self, entry: Online) -> None:
        """The session's person pressed a key (idle time counts from here)."""
        entry.last_key = self.clock.now()

    def who(self) -> list[WhoLine]:
        """Everyone signed in on this process, by name (a player with two sessions shows twice)."""
        now = self.clock.now()
        lines = [
            WhoLine(e.user_id, e.name, e.transport, self._where(e),
                    max((now - e.last_key).total_seconds(), 0.0))
            for e in self._online.values()
        ]
        return sorted(lines, key=lambda w: (w.name.lower(), w.idle_s))

    def is_online(self, user_id: int) -> bool:
        return any(e.user_id == user_id for e in self._online.values())

    async def page(self, sender_id: int, sender_name: str, recipient_id: int, text: str) -> str:
        """Send a page; returns the text as sent. :class:`PageError` for an empty one,
        a flood ("Slow down: …") or a mute; a recipient who blocks the sender gets
        nothing and the sender is told it went. The recipient may be on another process
        (the hub carries it)."""
        text = clean_message(text, PAGE_MAX).strip()
        if not text:
            raise PageError("Type a few words to page with.")
        if recipient_id == sender_id:
            raise PageError("That is you.")
        if not self.limit.allow(sender_id):
            raise PageError(SLOW_DOWN)
        if self.db is not None:  # (no database: a test's register of sessions only)
            now = self.clock.now()

            def check(repo: Repository) -> tuple[str | None, bool]:
                return refusal_for_muted(repo, sender_id, now), repo.is_blocked(
                    recipient_id, sender_id
                )

            refusal, blocked = await self.db.run_read(check)
            if refusal:
                raise PageError(refusal)
            if blocked:
                return text  # not delivered; the sender is told it went
        line = f"Page from {clean_message(sender_name, 20).strip()}: {text}"
        # seq: random, so that the sessions' seen-sets never take two pages for one
        # game_id: minus the sender (no game's subscribers have it; the reply key reads it)
        seq = secrets.randbelow(2**31)
        self.hub.publish(Notice(-sender_id, "page", (recipient_id,), line, seq))
        return text


def where_of(screen: object) -> str:
    """Where a screen's person is: its own ``where()`` text, or "in Backgammon #12" for a
    game's screen, or its title without the "door — " in front."""
    where = getattr(screen, "where", None)
    if callable(where):
        return str(where())
    game_id = getattr(screen, "game_id", None)
    if isinstance(game_id, int):
        snap = getattr(screen, "snap", None)
        kind = str(getattr(getattr(snap, "info", None), "kind", "") or "game")
        verb = "watching" if getattr(screen, "spectator", False) else "in"
        return f"{verb} {kind.title()} #{game_id}"
    title = str(getattr(screen, "title", "") or "")
    return "in " + title.removeprefix("door — ") if title else ""


def idle_text(seconds: float) -> str:
    """``"-"`` under a minute, then ``"5m"``, ``"2h"``, ``"3d"``."""
    if seconds < 60:
        return "-"
    if seconds < 3600:
        return f"{int(seconds // 60)}m"
    if seconds < 86400:
        return f"{int(seconds // 3600)}h"
    return f"{int(seconds // 86400)}d"
