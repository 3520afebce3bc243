"""Who is online, and pages: one-line live messages to a player who is.

:class:`Presence` is this process's register of its signed-in sessions: who, how they
came (telnet, SSH, rlogin/BBS, web), where they are (the top screen's ``where`` text)
and when they last pressed a key. It is kept in memory, not in the database: it changes
on every key, and a crashed process must not leave ghosts behind. W)ho reads it.

A page travels as a hub notice (kind ``page``, addressed to its recipient): on one
process :class:`~door.services.notify.LocalHub` hands it to the recipient's sessions;
where several processes share PostgreSQL, :class:`~door.services.notify.PgHub`
publishes it with NOTIFY too, so a recipient on another process gets it as well. Each
page has its own random ``seq``, which the session's seen-set uses to show it once even
when it arrives twice. A page is not stored: it is live only (mail is the way to reach
someone who is not there).
"""

from __future__ import annotations

import itertools
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from door.services.clock import Clock
from door.services.mail import clean_text
from door.services.notify import Hub, Notice

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

    def __init__(self, hub: Hub, clock: Clock) -> None:
        self.hub = hub
        self.clock = clock
        self._online: dict[int, Online] = {}
        self._keys = itertools.count(1)
        self.may_send: Callable[[int], str | None] | None = None
        """Asked with the sender's id before a page goes: a refusal to show them (the
        rate limit, a mute), or None."""
        self.blocked: Callable[[int, int], bool] | None = None
        """(recipient, sender) → True when the recipient blocks the sender: the page is
        dropped and the sender told it went."""

    def join(self, user_id: int, name: str, transport: str) -> Online:
        """Register a session that signed in; :meth:`leave` it when it ends."""
        now = self.clock.now()
        entry = Online(next(self._keys), user_id, name, transport, now, now)
        self._online[entry.key] = entry
        return entry

    def leave(self, entry: Online) -> None:
        self._online.pop(entry.key, None)

    def touched(self, entry: Online) -> None:
        """The session's person pressed a key (idle time counts from here)."""
        entry.last_key = self.clock.now()

    def who(self) -> list[WhoLine]:
        """Everyone signed in here, by name (a player with two sessions shows twice)."""
        now = self.clock.now()
        lines = []
        for e in self._online.values():
            try:
                where = e.where()
            except Exception:  # a screen's where text must never break W)ho
                where = ""
            lines.append(WhoLine(e.user_id, e.name, e.transport, where or "online",
                                 max((now - e.last_key).total_seconds(), 0.0)))  # fmt: skip
        return sorted(lines, key=lambda w: (w.name.lower(), w.idle_s))

    def is_online(self, user_id: int) -> bool:
        return any(e.user_id == user_id for e in self._online.values())

    def page(self, sender_id: int, sender_name: str, recipient_id: int, text: str) -> str:
        """Send a page; returns the text as sent. :class:`PageError` for an empty one
        or a refusal. The recipient may be on another process (the hub carries it)."""
        text = clean_text(text, PAGE_MAX)
        if not text:
            raise PageError("Type a few words to page with.")
        if recipient_id == sender_id:
            raise PageError("That is you.")
        if self.may_send is not None:
            refusal = self.may_send(sender_id)
            if refusal:
                raise PageError(refusal)
        if self.blocked is not None and self.blocked(recipient_id, sender_id):
            return text  # not delivered; the sender is not told
        line = f"Page from {clean_text(sender_name, 20)}: {text}"
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
