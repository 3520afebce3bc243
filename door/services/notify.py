"""Notifications: "a move happened in game G", "it is your turn".

The game service publishes a :class:`Notice` after each commit; connected sessions
subscribe by user (their own games) or by game (the play screen, spectators).
:class:`LocalHub` does this inside one process. :class:`PgHub` adds PostgreSQL
LISTEN/NOTIFY so that several processes sharing one database hear each other's moves:
``publish`` delivers locally and sends the notice as JSON; each listener feeds it to its
own subscribers with :meth:`LocalHub.deliver`.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol

if TYPE_CHECKING:
    from door.store.db import Database

log = logging.getLogger(__name__)

NoticeKind = Literal[
    "move", "your_turn", "finished", "joined", "invited", "declined", "resync"
]
"""``invited``: a named invitation to the users in ``user_ids`` (their seat is kept);
``declined``: an invitee declined and the game was cancelled; ``resync``: notices may
have been missed (a cross-process hub lost its connection for a while), so every
subscriber gets one, about no game in particular (``game_id`` 0), and re-reads whatever
it shows."""


@dataclass(frozen=True)
class Notice:
    """Something happened in ``game_id``; ``user_ids`` are the people it concerns.

    ``seq`` is the game's last event sequence number after the change, so a subscriber can
    fetch exactly the new events with ``GameService.events(game_id, since_seq)``.
    """

    game_id: int
    kind: NoticeKind
    user_ids: tuple[int, ...]
    text: str
    seq: int


def notice_to_json(notice: Notice) -> str:
    """The notice as one line of JSON (what a LISTEN/NOTIFY hub sends between processes)."""
    return json.dumps(
        {
            "game_id": notice.game_id,
            "kind": notice.kind,
            "user_ids": list(notice.user_ids),
            "text": notice.text,
            "seq": notice.seq,
        }
    )


def notice_from_json(text: str) -> Notice:
    """Read a notice written by :func:`notice_to_json`; ``ValueError`` if malformed."""
    try:
        raw = json.loads(text)
        return Notice(
            game_id=int(raw["game_id"]),
            kind=raw["kind"],
            user_ids=tuple(int(u) for u in raw["user_ids"]),
            text=str(raw["text"]),
            seq=int(raw["seq"]),
        )
    except (KeyError, TypeError, json.JSONDecodeError) as exc:
        raise ValueError(f"not a notice: {exc}") from None


class Subscription(Protocol):
    """A stream of notices for one subscriber."""

    async def get(self) -> Notice:
        """Wait for the next notice."""
        ...

    def close(self) -> None:
        """Stop receiving notices (idempotent)."""
        ...


class Hub(Protocol):
    """Publishes notices to whoever is subscribed."""

    def publish(self, notice: Notice) -> None:
        """Deliver ``notice`` to every subscriber it concerns; never blocks."""
        ...

    def subscribe(self, user_id: int) -> Subscription:
        """Notices whose ``user_ids`` include ``user_id``."""
        ...

    def subscribe_game(self, game_id: int) -> Subscription:
        """Every notice about ``game_id``."""
        ...


class LocalSubscription:
    """A queue of notices; a slow reader loses the oldest ones rather than blocking the hub."""

    def __init__(self, hub: LocalHub, key: tuple[str, int], maxsize: int) -> None:
        self._hub = hub
        self._key = key
        self._queue: asyncio.Queue[Notice] = asyncio.Queue(maxsize)
        self.closed = False

    def put(self, notice: Notice) -> None:
        if self.closed:
            return
        if self._queue.full():
            # Dropping the oldest is safe: a notice only says "look again"; the reader
            # refetches the game and sees everything anyway.
            self._queue.get_nowait()
        self._queue.put_nowait(notice)

    async def get(self) -> Notice:
        return await self._queue.get()

    def get_nowait(self) -> Notice | None:
        """The next queued notice, or ``None`` if none is waiting."""
        try:
            return self._queue.get_nowait()
        except asyncio.QueueEmpty:
            return None

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self._hub._remove(self._key, self)

    def __enter__(self) -> LocalSubscription:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class LocalHub:
    """An in-process :class:`Hub`."""

    def __init__(self, queue_size: int = 100) -> None:
        self._subs: dict[tuple[str, int], list[LocalSubscription]] = {}
        self._queue_size = queue_size
        self._resyncs = 0

    def publish(self, notice: Notice) -> None:
        self.deliver(notice)

    def deliver(self, notice: Notice) -> None:
        """Hand ``notice`` to the local subscribers (a cross-process hub calls this)."""
        targets: list[LocalSubscription] = []
        targets.extend(self._subs.get(("game", notice.game_id), ()))
        for uid in dict.fromkeys(notice.user_ids):
            targets.extend(self._subs.get(("user", uid), ()))
        for sub in targets:
            sub.put(notice)

    def resync(self) -> int:
        """Tell every subscriber to re-read what it shows (notices may have been lost);
        how many were told. Each resync has its own ``seq``, so a session that hears one
        on two subscriptions acts once, and on the next resync again."""
        self._resyncs += 1
        notice = Notice(0, "resync", (), "", self._resyncs)
        subs = [sub for subs in self._subs.values() for sub in subs]
        for sub in subs:
            sub.put(notice)
        return len(subs)

    def subscribe(self, user_id: int) -> LocalSubscription:
        return self._add(("user", user_id))

    def subscribe_game(self, game_id: int) -> LocalSubscription:
        return self._add(("game", game_id))

    def subscriber_count(self) -> int:
        """How many subscriptions are open (for tests and the sysop)."""
        return sum(len(v) for v in self._subs.values())

    def _add(self, key: tuple[str, int]) -> LocalSubscription:
        sub = LocalSubscription(self, key, self._queue_size)
        self._subs.setdefault(key, []).append(sub)
        return sub

    def _remove(self, key: tuple[str, int], sub: LocalSubscription) -> None:
        subs = self._subs.get(key)
        if subs and sub in subs:
            subs.remove(sub)
            if not subs:
                del self._subs[key]


class PgHub(LocalHub):
    """A :class:`Hub` shared by every door process on one PostgreSQL database.

    ``publish`` delivers to this process's subscribers at once and sends the notice
    through LISTEN/NOTIFY; the other processes deliver it to theirs. A process ignores
    its own notices when they come back (each carries an origin token). When the
    listening connection is lost and comes back (see :class:`~door.store.pgnotify.
    PgChannel`), every subscriber here gets a ``resync`` notice: what the other
    processes notified meanwhile never arrived.
    """

    def __init__(self, db: Database, queue_size: int = 100) -> None:
        from door.store.pgnotify import PgChannel

        super().__init__(queue_size)
        self.origin = secrets.token_hex(8)
        self._channel = PgChannel(db, self._received, on_reconnect=self._reconnected)
        self._sending: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        """Start listening for the other processes' notices."""
        await self._channel.start()

    async def stop(self) -> None:
        """Stop listening (waits for notices still being sent)."""
        if self._sending:
            await asyncio.gather(*self._sending, return_exceptions=True)
        await self._channel.stop()

    def publish(self, notice: Notice) -> None:
        self.deliver(notice)
        payload = json.dumps({"origin": self.origin, "notice": json.loads(notice_to_json(notice))})
        task = asyncio.ensure_future(self._send(payload))
        self._sending.add(task)
        task.add_done_callback(self._sending.discard)

    async def _send(self, payload: str) -> None:
        try:
            await self._channel.notify(payload)
        except Exception:  # a lost notice only delays a screen refresh; never crash
            log.exception("could not send a notice to the other processes")

    async def _reconnected(self) -> None:
        told = self.resync()
        log.info("told %d subscriber(s) to re-read after the notices reconnected", told)

    def _received(self, payload: str) -> None:
        raw = json.loads(payload)
        if raw.get("origin") == self.origin:
            return
        self.deliver(notice_from_json(json.dumps(raw["notice"])))
