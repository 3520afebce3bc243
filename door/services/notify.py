"""Notifications: "a move happened in game G", "it is your turn".

The game service's notices about a change are worked out inside the change's own
transaction and delivered to this process's subscribers after it commits; connected
sessions subscribe by user (their own games) or by game (the play screen, spectators).
:class:`LocalHub` does this inside one process. :class:`PgHub` adds PostgreSQL
LISTEN/NOTIFY so that several processes sharing one database hear each other's moves: the
change's transaction announces all of its notices in one NOTIFY (:meth:`PgHub.
announcement`), which PostgreSQL delivers when — and only if — it commits; each other
process reads the payload's short header first and drops it at once unless one of its
sessions watches that game or one of those users (:func:`payload_header`).
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol, get_args

if TYPE_CHECKING:
    from door.store.db import Database

log = logging.getLogger(__name__)

NoticeKind = Literal[
    "move", "your_turn", "finished", "joined", "invited", "declined", "resync", "page",
    "broadcast", "mail", "chat", "abandoned",
]
"""``invited``: a named invitation to the users in ``user_ids`` (their seat is kept);
``declined``: an invitee declined and the game was cancelled; ``resync``: notices may
have been missed (a cross-process hub lost its connection for a while), so every
subscriber gets one, about no game in particular (``game_id`` 0), and re-reads whatever
it shows. ``page``: a one-line live message to the users in ``user_ids`` (issue 17;
``game_id`` is minus the sender's user id, ``seq`` a random number that tells pages apart;
door/services/presence.py). ``broadcast``: the sysop's line to everyone online (the
same shape); ``mail``: "new mail from …" to its recipient (``game_id`` minus the mail's id).
``chat``: a line said in the game (``seq`` the line's id, ``text`` the line, see
door/services/chat.py); ``abandoned``: the sysop abandoned the game (its players, and
anyone invited, are told why)."""

NOTICE_KINDS: frozenset[str] = frozenset(get_args(NoticeKind))


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


MAX_TEXT = 300
"""A notice's text is cut to this many characters in a NOTIFY payload (they are a line
on the status bar; PostgreSQL refuses payloads of 8000 bytes or more)."""


def notices_to_payload(origin: str, notices: Sequence[Notice]) -> str:
    """One change's notices (all about one game, at one ``seq``) as one NOTIFY payload:
    a header ``origin|game_id|seq|user,user,…|`` (every user any of them concerns) that
    a listener can judge without parsing the rest, then the notices as JSON:
    ``[[kind, [user, …], text], …]``."""
    first = notices[0]
    users = dict.fromkeys(u for n in notices for u in n.user_ids)
    body = json.dumps([[n.kind, list(n.user_ids), n.text[:MAX_TEXT]] for n in notices])
    return f"{origin}|{first.game_id}|{first.seq}|{','.join(map(str, users))}|{body}"


def payload_header(payload: str) -> tuple[str, int, tuple[int, ...], str]:
    """(origin, game id, user ids, the rest) of a :func:`notices_to_payload` payload;
    ``ValueError`` if it is not one."""
    origin, game, _seq, users, rest = payload.split("|", 4)
    return origin, int(game), tuple(int(u) for u in users.split(",") if u), rest


def notices_from_payload(payload: str) -> list[Notice]:
    """The notices of a :func:`notices_to_payload` payload; ``ValueError`` if malformed."""
    try:
        _origin, game, seq, _users, body = payload.split("|", 4)
        found = [
            Notice(int(game), kind, tuple(int(u) for u in users), str(text), int(seq))
            for kind, users, text in json.loads(body)
        ]
    except (TypeError, json.JSONDecodeError) as exc:
        raise ValueError(f"not a notice payload: {exc}") from None
    if not found or any(n.kind not in NOTICE_KINDS for n in found):
        raise ValueError("not a notice payload: no notices, or one of an unknown kind")
    return found


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
        """Deliver ``notice`` to every subscriber it concerns, in every process; never
        blocks (for a notice not announced by a transaction of its own)."""
        ...

    def deliver(self, notice: Notice) -> None:
        """Hand ``notice`` to this process's subscribers only."""
        ...

    def announcement(self, notices: Sequence[Notice]) -> tuple[str, str] | None:
        """(channel, payload) for a transaction to announce ``notices`` (one change's)
        to the other processes with (``Repository.announce``); None when there are no
        other processes to tell."""
        ...

    def subscribe(self, user_id: int) -> Subscription:
        """Notices whose ``user_ids`` include ``user_id``."""
        ...

    def subscribe_game(self, game_id: int) -> Subscription:
        """Every notice about ``game_id``."""
        ...


MUST_SHOW: frozenset[str] = frozenset(
    {"page", "broadcast", "mail", "invited", "declined", "abandoned"}
)
"""Kinds whose text a screen cannot read back from what it shows: a queue that overflows
keeps them (the rest are "look again", which one ``resync`` says for all of them)."""


class LocalSubscription:
    """A queue of notices that never blocks the hub. A reader that stalls until it is full
    loses nothing it must see: the queue collapses to one ``resync`` (its screen re-reads
    the game, its chat lines, the counts, from the store) and the notices whose text only
    the notice carries (:data:`MUST_SHOW`, the newest of them if even those overflow)."""

    def __init__(self, hub: LocalHub, key: tuple[str, int], maxsize: int) -> None:
        self._hub = hub
        self._key = key
        self._maxsize = max(maxsize, 3)
        self._queue: asyncio.Queue[Notice] = asyncio.Queue(self._maxsize)
        self.closed = False

    def put(self, notice: Notice) -> None:
        if self.closed:
            return
        if self._queue.full():
            self._collapse()
        self._queue.put_nowait(notice)

    def _collapse(self) -> None:
        """One fresh ``resync`` in place of every "look again" notice queued, then the
        newest queued messages in their order (room is left for at least one more)."""
        queued: list[Notice] = []
        while not self._queue.empty():
            queued.append(self._queue.get_nowait())
        kept = [n for n in queued if n.kind in MUST_SHOW]
        self._queue.put_nowait(self._hub.resync_notice())
        for old in kept[max(len(kept) - (self._maxsize - 2), 0) :]:
            self._queue.put_nowait(old)

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

    def announcement(self, notices: Sequence[Notice]) -> tuple[str, str] | None:
        return None

    def watches(self, game_id: int, user_ids: Sequence[int]) -> bool:
        """Whether anybody here subscribes to ``game_id`` or to one of ``user_ids``."""
        subs = self._subs
        return ("game", game_id) in subs or any(("user", u) in subs for u in user_ids)

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
        notice = self.resync_notice()
        subs = [sub for subs in self._subs.values() for sub in subs]
        for sub in subs:
            sub.put(notice)
        return len(subs)

    def resync_notice(self) -> Notice:
        """A ``resync`` notice with a ``seq`` of its own (a session acts on each once)."""
        self._resyncs += 1
        return Notice(0, "resync", (), "", self._resyncs)

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

    A game change's transaction announces its notices (:meth:`announcement`: one NOTIFY,
    sent by PostgreSQL at commit, never for a change rolled back); the game service
    delivers them here once committed, and every other process delivers them to its own
    subscribers. ``publish`` (a notice no transaction announced) delivers here at once
    and sends its own NOTIFY. Each payload carries this process's origin token, so it
    ignores its own when they come back; a payload about games and users nobody here
    watches is dropped after reading its header (:attr:`dropped` counts them). When the
    listening connection is lost and comes back (see :class:`~door.store.pgnotify.
    PgChannel`), every subscriber here gets a ``resync`` notice: what the other
    processes notified meanwhile never arrived.
    """

    def __init__(self, db: Database, queue_size: int = 100) -> None:
        from door.store.pgnotify import CHANNEL, PgChannel

        super().__init__(queue_size)
        self.origin = secrets.token_hex(8)
        self.channel = CHANNEL
        self._channel = PgChannel(db, self._received, CHANNEL, on_reconnect=self._reconnected)
        self._sending: set[asyncio.Task[None]] = set()
        self.dropped = 0
        """Payloads of other processes dropped unread (nobody here watches their game
        or users)."""

    async def start(self) -> None:
        """Start listening for the other processes' notices."""
        await self._channel.start()

    async def stop(self) -> None:
        """Stop listening (waits for notices still being sent)."""
        if self._sending:
            await asyncio.gather(*self._sending, return_exceptions=True)
        await self._channel.stop()

    def announcement(self, notices: Sequence[Notice]) -> tuple[str, str] | None:
        if not notices:
            return None
        return self.channel, notices_to_payload(self.origin, notices)

    def publish(self, notice: Notice) -> None:
        self.deliver(notice)
        task = asyncio.ensure_future(self._send(notices_to_payload(self.origin, [notice])))
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
        origin, game_id, user_ids, _rest = payload_header(payload)
        if origin == self.origin:
            return
        if not self.watches(game_id, user_ids):
            self.dropped += 1
            return
        for notice in notices_from_payload(payload):
            self.deliver(notice)
