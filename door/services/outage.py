"""What the sessions are told when this process loses its database for a while.

:class:`~door.store.db.WriteHealth` (``Database.health``) knows, from every transaction
and every listening connection, whether the database is within reach right now.
:class:`DatabaseOutage` turns that into what a person should read: nothing for a blip
(one failed try that the next one mends, a listening connection reopened at once),
:data:`LOST_MESSAGE` once the database has been out of reach for ``grace_s``, and
:data:`BACK_MESSAGE` for ``back_s`` when it answers again. One per process, with one timer;
each session subscribes (``door/session.py``): the news goes on its status line the moment
it comes (a message the person gets after it, such as "could not save that", shows over
it), and wakes that session's loop to draw it (each session waits on a future of its own
that its callback settles: see ``Session.news``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from door.store.db import WriteHealth

log = logging.getLogger(__name__)

OutageState = Literal["lost", "back"] | None

LOST_MESSAGE = "The server lost its database; retrying... your games are safe."
BACK_MESSAGE = "The database is back."


class DatabaseOutage:
    """The database's outages as the sessions tell them (see the module docstring).

    :attr:`state` is ``"lost"`` from ``grace_s`` into an outage until it ends, then
    ``"back"`` for ``back_s``, else ``None``; :meth:`subscribe` is told each change at
    once.
    """

    def __init__(
        self, health: WriteHealth, *, grace_s: float = 0.5, back_s: float = 3.0
    ) -> None:
        self.grace_s = grace_s
        self.back_s = back_s
        self.state: OutageState = None
        self._timer: asyncio.TimerHandle | None = None
        self._subscribers: list[Callable[[OutageState], None]] = []
        self.recoveries = 0
        """How many outages have ended (a session that missed a short "back" still
        re-reads its screen)."""
        self._unwatch = health.on_change(self._health_changed)

    def subscribe(self, callback: Callable[[OutageState], None]) -> Callable[[], None]:
        """Call ``callback(state)`` the moment :attr:`state` changes; returns the function
        that stops that."""
        self._subscribers.append(callback)

        def stop() -> None:
            with contextlib.suppress(ValueError):
                self._subscribers.remove(callback)

        return stop

    def close(self) -> None:
        """Stop following the database's health."""
        self._unwatch()
        self._cancel_timer()

    def _health_changed(self, lost: bool) -> None:
        self._cancel_timer()
        if lost:
            if self.state != "lost":
                self._later(self.grace_s, "lost")
        else:
            if self.state == "lost":
                self._set("back")
            if self.state == "back":  # (also a new loss that ended within grace_s)
                self._later(self.back_s, None)

    def _later(self, delay: float, state: OutageState) -> None:
        loop = asyncio.get_running_loop()
        self._timer = loop.call_later(delay, self._set, state)

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _set(self, state: OutageState) -> None:
        self._timer = None
        if state == self.state:
            return
        self.state = state
        if state == "lost":
            log.warning("telling the sessions that the database is out of reach")
        elif state == "back":
            self.recoveries += 1
        for callback in list(self._subscribers):
            try:
                callback(state)
            except Exception:  # one session's bug must not keep the news from the rest
                log.exception("outage callback failed")
