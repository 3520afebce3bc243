"""The lobby and the turns: begin, join, list, watch, submit, resign, deadlines, replay.

Every action is one database transaction: load the game row and seats, run the rules,
append the events, write the new snapshot and bump ``version`` with
``UPDATE … WHERE version = seen`` (the optimistic lock). A player's move carries the
version they saw; if the game moved on meanwhile they get :class:`StaleVersionError`
with the fresh game, and nothing is written. Chance events (dice, tile draws) are drawn
here, with ``secrets`` by default, and logged, so the log replays without any RNG.

Event payloads (``game_events.payload``):

* ``move``   ``{"move": "<canonical notation>"}``
* ``chance`` ``{"chance": <rules.chance_to_json(event)>}``
* ``system`` ``{"action": "join"|"leave"|"start"|"timeout"|"forfeit", …}`` — only
  ``timeout`` (``rules.on_timeout``) and ``forfeit`` (``rules.forfeit(seat, reason)``)
  change the game state.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import logging
import random
import secrets
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Literal, TypeVar

from door.games.base import GameRules, InvalidMoveError, Outcome
from door.services import ratings as rating_rules
from door.services.clock import Clock
from door.services.notify import Hub, Notice, NoticeKind
from door.store import queries as q
from door.store.db import Database

log = logging.getLogger(__name__)

AnyRules = GameRules[Any, Any, Any]
Status = Literal["open", "active", "finished", "abandoned"]
ListWhich = Literal["open", "active", "mine", "waiting", "finished"]

DEADLINE_MIN_HOURS = 1
DEADLINE_MAX_HOURS = 720
DEFAULT_DEADLINE_HOURS = 168
TIMEOUTS_TO_FORFEIT = 3
MAX_CHANCE_CHAIN = 1000  # a rules bug must not hang a transaction
MAX_MOVE_TEXT = 200
STATE_CACHE_SIZE = 4096
T = TypeVar("T")


# --- errors --------------------------------------------------------------------------------


class StaleVersionError(ValueError):
    """The game changed since the player looked; ``snapshot`` is the game as it is now."""

    def __init__(self, snapshot: GameSnapshot, message: str | None = None) -> None:
        super().__init__(message or "the game changed while you were looking; here it is again")
        self.snapshot = snapshot


class NotYourTurnError(ValueError):
    """Someone tried to act when it is not their turn (or in a game they do not play)."""


class GameClosedError(ValueError):
    """The game is over (or not started yet) and takes no more moves."""


class LobbyError(ValueError):
    """A lobby action (begin, join, leave, look up) was refused; the message says why."""


# --- data ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class SeatSpec:
    """How ``begin`` fills a seat: the creator ("me"), anyone ("open"), a named user
    ("user", ``name`` = user name) or the computer ("bot", ``name`` = bot level)."""

    kind: Literal["me", "open", "user", "bot"]
    name: str | None = None


@dataclass(frozen=True)
class SeatInfo:
    """A seat as it stands. ``reserved`` seats wait for the named user (``user_id``/
    ``name`` are theirs); ``bot`` seats have the bot's account id and ``name`` = level."""

    seat: int
    kind: Literal["open", "reserved", "user", "bot"]
    user_id: int | None
    name: str | None
    timeouts: int


@dataclass(frozen=True)
class GameInfo:
    id: int
    kind: str
    title: str
    options: dict[str, Any]
    status: Status
    seats: tuple[SeatInfo, ...]
    to_act: int | None
    version: int
    deadline: datetime | None
    deadline_hours: int
    hints_allowed: bool
    created_by: int
    created_at: datetime
    updated_at: datetime
    summary: str
    outcome: Outcome | None
    last_seq: int

    def seat_of(self, user_id: int) -> int | None:
        """The (first) seat ``user_id`` plays, or None."""
        for s in self.seats:
            if s.user_id == user_id and s.kind in ("user", "bot"):
                return s.seat
        return None

    def is_waiting_on(self, user_id: int) -> bool:
        """True when the game is running and it is ``user_id``'s turn."""
        if self.status != "active" or self.to_act is None:
            return False
        for s in self.seats:
            if s.seat == self.to_act:
                return s.user_id == user_id and s.kind in ("user", "bot")
        return False


@dataclass(frozen=True)
class GameEvent:
    seq: int
    seat: int | None
    kind: Literal["move", "chance", "system"]
    payload: dict[str, Any]
    created_at: datetime


@dataclass(frozen=True)
class GameSnapshot:
    """A game and its rules state (unfiltered: show it through ``rules.view``).

    ``my_seat`` is the viewer's seat (None for a spectator); ``last_seen_seq`` is how far
    the viewer had looked before this (0 for a spectator).
    """

    info: GameInfo
    state: Any
    my_seat: int | None
    last_seen_seq: int


@dataclass(frozen=True)
class VisitSummary:
    """What happened in a user's games since they last looked."""

    moves_against_you: int
    finished: list[GameInfo]
    waiting: list[GameInfo]
    new_events: int


# --- helpers -------------------------------------------------------------------------------


def outcome_to_json(outcome: Outcome) -> dict[str, Any]:
    return {
        "winners": list(outcome.winners),
        "scores": list(outcome.scores),
        "placings": list(outcome.placings),
        "reason": outcome.reason,
        "detail": outcome.detail,
        "extra": dict(outcome.extra),
    }


def outcome_from_json(data: Mapping[str, Any] | None) -> Outcome | None:
    if not data:
        return None
    return Outcome(
        winners=tuple(data.get("winners", ())),
        scores=tuple(data.get("scores", ())),
        placings=tuple(data.get("placings", ())),
        reason=str(data.get("reason", "normal")),
        detail=str(data.get("detail", "")),
        extra=dict(data.get("extra") or {}),
    )


def dump_state(rules: AnyRules, state: Any) -> str:
    """The snapshot text: ``snapshot_id`` where the rules offer it, else ``to_id``."""
    snap = getattr(rules, "snapshot_id", None)
    if callable(snap):
        return str(snap(state))
    return rules.to_id(state)


def load_state(rules: AnyRules, text: str, options: Mapping[str, Any]) -> Any:
    """Read a snapshot written by :func:`dump_state`."""
    load = getattr(rules, "from_snapshot", None)
    if callable(load):
        return load(text, options)
    return rules.from_id(text, options)


_LogItem = tuple[int | None, str, dict[str, Any]]
"""(seat, kind, payload) of an event about to be appended."""


class _Stale(Exception):
    """Internal: the versioned UPDATE found someone else's change first."""


@dataclass
class _Loaded:
    """A game row, its seats and its state, loaded inside a transaction.

    ``seat_infos`` is what ``_seat_infos(seats)`` made of the seats, once asked (a
    move's snapshot needs them, and a move kept for the next one keeps its seats).
    """

    row: Any
    seats: list[Any]
    rules: AnyRules
    state: Any
    seat_infos: tuple[SeatInfo, ...] | None = None


@functools.lru_cache(maxsize=8192)
def _seat_info(
    seat: int, kind: str, user_id: int | None, name: str | None, timeouts: int
) -> SeatInfo:
    # SeatInfo is immutable through and through, so one object serves every list and
    # snapshot that shows the same seat (a page of games builds two or more per game)
    return SeatInfo(seat, kind, user_id, name, timeouts)  # type: ignore[arg-type]


@functools.lru_cache(maxsize=64)
def _hours(hours: int) -> timedelta:
    # timedelta(hours=...) costs a microsecond on every move; deadlines take few values
    return timedelta(hours=hours)


@dataclass
class _Change:
    """What an action did, for the notices sent after the commit."""

    game_id: int
    events: int = 0
    joined: bool = False
    started: bool = False
    moved: bool = False
    finished: bool = False
    actor: int | None = None


class GameService:
    """The game use-cases; see the module docstring for the transaction discipline.

    Transactions are synchronous functions handed to ``Database.transact`` /
    ``run_read`` (on SQLite they run on a worker thread, so the rules' CPU work stays off
    the event loop). ``on_after_commit`` (set by the bot runner) is called on the event
    loop with the new snapshot after each committed change; it must not block (an
    awaitable it returns is run as a task).
    """

    def __init__(
        self,
        db: Database,
        registry: Mapping[str, AnyRules],
        hub: Hub,
        clock: Clock,
        rng: random.Random | None = None,
    ) -> None:
        self.db = db
        self.registry = dict(registry)
        self.hub = hub
        self.clock = clock
        self.rng: random.Random = rng if rng is not None else secrets.SystemRandom()
        self.on_after_commit: Callable[[GameSnapshot], Any] | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        # game id → (snapshot text, state): reading a position ID back costs more than
        # the database round trip, and the text itself is the cache key, so a changed
        # (or tampered) snapshot is always read afresh.
        self._states: OrderedDict[int, tuple[str, Any]] = OrderedDict()
        self._states_lock = threading.Lock()
        self._states_max = STATE_CACHE_SIZE
        # game id → (token, loaded game) as this process's last submit left it. A move
        # may skip reading its game back while ``Database.here_token`` says no other
        # connection has committed since; every other action on the game forgets it
        # first, so the entry is only ever what this process itself last wrote.
        self._fresh: OrderedDict[int, tuple[tuple[int, int], _Loaded]] = OrderedDict()

    # --- lobby ---------------------------------------------------------------------------

    def kinds(self) -> list[tuple[str, str]]:
        """(kind, title) of every game that can be begun, in menu order."""
        return [(k, r.title) for k, r in self.registry.items()]

    def rules_for(self, kind: str) -> AnyRules:
        """The rules of ``kind``; ``LobbyError`` if there is no such game."""
        try:
            return self.registry[kind]
        except KeyError:
            raise LobbyError(f"there is no game called {kind!r}") from None

    async def begin(
        self,
        creator_id: int,
        kind: str,
        options: dict[str, Any],
        seats: list[SeatSpec],
        deadline_hours: int = DEFAULT_DEADLINE_HOURS,
        hints_allowed: bool = True,
    ) -> GameInfo:
        """Create a game; it starts at once (set-up chance drawn) if no seat is left open."""
        rules = self.rules_for(kind)
        n = len(seats)
        if not rules.min_seats <= n <= rules.max_seats:
            if rules.min_seats == rules.max_seats:
                raise LobbyError(f"{rules.title} is for {rules.min_seats} players")
            raise LobbyError(
                f"{rules.title} is for {rules.min_seats} to {rules.max_seats} players"
            )
        if (
            not isinstance(deadline_hours, int)
            or isinstance(deadline_hours, bool)
            or not DEADLINE_MIN_HOURS <= deadline_hours <= DEADLINE_MAX_HOURS
        ):
            raise LobbyError("the turn deadline must be from 1 hour to 30 days (720 hours)")
        try:
            opts = dict(rules.validate_options(n, dict(options)))
        except ValueError as exc:
            raise LobbyError(str(exc)) from None
        if sum(1 for s in seats if s.kind == "me") > 1:
            raise LobbyError("you can take only one seat")
        for spec in seats:
            if spec.kind not in ("me", "open", "user", "bot"):
                raise LobbyError(f"unknown seat kind {spec.kind!r}")
            if spec.kind in ("user", "bot") and not (spec.name and spec.name.strip()):
                raise LobbyError("name the player (or the computer level) for that seat")
        state = rules.new_game(n, opts)
        now = self.clock.now()
        change = _Change(0)

        def action(conn: Any) -> GameSnapshot:
            from door.services.accounts import name_key

            creator = q.user_row(conn, creator_id)
            if creator is None:
                raise LobbyError("no such user")
            seat_rows: list[dict[str, Any]] = []
            people: set[int] = set()
            for i, spec in enumerate(seats):
                row: dict[str, Any] = {
                    "seat": i,
                    "kind": "open",
                    "user_id": None,
                    "bot_level": None,
                    "timeouts": 0,
                    "last_seen_seq": 0,
                }
                if spec.kind == "me":
                    if creator_id in people:
                        raise LobbyError("you can take only one seat")
                    row.update(kind="user", user_id=creator_id)
                    people.add(creator_id)
                elif spec.kind == "user":
                    assert spec.name is not None
                    other = q.user_row_by_key(conn, name_key(spec.name))
                    if other is None or other.is_bot:
                        raise LobbyError(f"there is no player called {spec.name.strip()!r}")
                    if other.is_banned:
                        raise LobbyError(f"{other.name} cannot play (the account is banned)")
                    if other.id in people:
                        raise LobbyError(f"{other.name} already has a seat in this game")
                    people.add(other.id)
                    kind_ = "user" if other.id == creator_id else "reserved"
                    row.update(kind=kind_, user_id=other.id)
                elif spec.kind == "bot":
                    assert spec.name is not None
                    bot_id = self._bot_account(conn, spec.name.strip(), now)
                    row.update(kind="bot", user_id=bot_id, bot_level=spec.name.strip())
                seat_rows.append(row)
            game_id = q.insert_game(
                conn,
                kind=kind,
                options=opts,
                status="open",
                snapshot=dump_state(rules, state),
                version=0,
                to_act=None,
                deadline=None,
                deadline_hours=deadline_hours,
                hints_allowed=bool(hints_allowed),
                created_by=creator_id,
                created_at=now,
                updated_at=now,
                finished_at=None,
                summary="waiting for players",
                outcome=None,
                last_seq=0,
            )
            for r in seat_rows:
                r["game_id"] = game_id
            q.insert_seats(conn, seat_rows)
            change.game_id = game_id
            if all(r["kind"] in ("user", "bot") for r in seat_rows):
                self._start(conn, self._load(conn, game_id), now, change)
            return self._snapshot_now(conn, game_id, creator_id)

        for attempt in range(3):
            try:
                snapshot = await self.db.transact(action)
                break
            except q.IntegrityError:
                # another game created the same bot account at this moment: try again
                if attempt == 2:
                    raise LobbyError("the game could not be set up; please try again") from None
        self._after_commit(snapshot, change)
        return snapshot.info

    def _bot_account(self, conn: Any, level: str, now: datetime) -> int:
        from door.services.accounts import AccountError, clean_name, name_key

        try:
            name = clean_name(level)
        except AccountError as exc:
            raise LobbyError(f"no computer player {level!r}: {exc}") from None
        row = q.user_row_by_key(conn, name_key(name))
        if row is not None:
            if not row.is_bot:
                raise LobbyError(f"{name!r} is a person, not a computer level")
            return int(row.id)
        return q.insert_user(conn, name, name_key(name), None, True, now, {})

    async def join(self, game_id: int, user_id: int, seat: int | None = None) -> GameInfo:
        """Take an open seat (or the one reserved for you); the game starts when full."""
        now = self.clock.now()
        change = _Change(game_id, joined=True, actor=user_id)

        def action(conn: Any) -> GameSnapshot:
            loaded = self._load(conn, game_id)
            row = loaded.row
            if row.status != "open":
                raise LobbyError("that game is not open for joining")
            user = q.user_row(conn, user_id)
            if user is None:
                raise LobbyError("no such user")
            if user.is_banned:
                raise LobbyError("your account is banned")
            if any(s.user_id == user_id and s.kind == "user" for s in loaded.seats):
                raise LobbyError("you already have a seat in this game")
            if seat is None:
                mine = [s for s in loaded.seats if s.kind == "reserved" and s.user_id == user_id]
                free = [s for s in loaded.seats if s.kind == "open"]
                if not (mine or free):
                    raise LobbyError("no seat is free in that game")
                chosen = (mine or free)[0]
            else:
                found = [s for s in loaded.seats if s.seat == seat]
                if not found:
                    raise LobbyError(f"that game has no seat {seat}")
                chosen = found[0]
                if chosen.kind == "reserved" and chosen.user_id != user_id:
                    raise LobbyError("that seat is kept for someone else")
                if chosen.kind not in ("open", "reserved"):
                    raise LobbyError("that seat is taken")
            seq = row.last_seq + 1
            if not q.update_game_versioned(
                conn, game_id, row.version, last_seq=seq, updated_at=now
            ):
                raise _Stale()
            q.update_seat(conn, game_id, chosen.seat, kind="user", user_id=user_id)
            self._append(conn, game_id, seq, [(chosen.seat, "system", {"action": "join"})], now)
            loaded = self._load(conn, game_id)
            if all(s.kind in ("user", "bot") for s in loaded.seats):
                self._start(conn, loaded, now, change)
            return self._snapshot_now(conn, game_id, user_id)

        snapshot = await self._run(game_id, action, user_id)
        self._after_commit(snapshot, change)
        return snapshot.info

    async def leave(self, game_id: int, user_id: int) -> GameInfo:
        """Give back your seat in a game that has not started (a reservation too).

        A game left with no person seated is abandoned.
        """
        now = self.clock.now()

        def action(conn: Any) -> GameSnapshot:
            loaded = self._load(conn, game_id)
            row = loaded.row
            if row.status != "open":
                raise GameClosedError(
                    "the game has started: resign it instead"
                    if row.status == "active"
                    else "that game is over"
                )
            mine = [
                s for s in loaded.seats if s.user_id == user_id and s.kind in ("user", "reserved")
            ]
            if not mine:
                raise LobbyError("you have no seat in that game")
            gone = mine[0].seat
            people_left = [x for x in loaded.seats if x.kind == "user" and x.user_id != user_id]
            seq = row.last_seq + 1
            values: dict[str, Any] = {"last_seq": seq, "updated_at": now}
            if not people_left:
                values.update(status="abandoned", finished_at=now, summary="abandoned")
            if not q.update_game_versioned(conn, game_id, row.version, **values):
                raise _Stale()
            q.update_seat(conn, game_id, gone, kind="open", user_id=None)
            self._append(conn, game_id, seq, [(gone, "system", {"action": "leave"})], now)
            return self._snapshot_now(conn, game_id, user_id)

        snapshot = await self._run(game_id, action, user_id)
        return snapshot.info

    async def list_games(
        self,
        which: ListWhich,
        user_id: int | None,
        kind: str | None = None,
        offset: int = 0,
        limit: int = 20,
    ) -> tuple[list[GameInfo], int]:
        """A page of games and the total count.

        ``open``: games with a seat ``user_id`` may take (not ones they already sit in);
        ``active``: every running game (to watch); ``mine``: open or running games
        ``user_id`` plays; ``waiting``: running games waiting on ``user_id``, most urgent
        first; ``finished``: finished or abandoned games (``user_id``'s only, if given).
        Newest first otherwise.
        """
        if which not in ("open", "active", "mine", "waiting", "finished"):
            raise LobbyError(f"unknown game list {which!r}")
        if which in ("mine", "waiting") and user_id is None:
            raise LobbyError("that list needs a user")
        offset = max(0, int(offset))
        limit = max(1, min(100, int(limit)))

        def read(conn: Any) -> tuple[list[GameInfo], int]:
            ids, total = q.list_game_ids(conn, which, user_id, kind, offset, limit)
            return self._infos(conn, ids), total

        return await self.db.run_read(read)

    async def get(self, game_id: int, viewer_id: int | None = None) -> GameSnapshot:
        """The game as it is now; ``LobbyError`` if there is no such game."""
        return await self.db.run_read(lambda conn: self._snapshot_now(conn, game_id, viewer_id))

    # --- turns ---------------------------------------------------------------------------

    async def submit(
        self, game_id: int, user_id: int, move_text: str, expected_version: int
    ) -> GameSnapshot:
        """Play ``move_text`` for ``user_id``, then draw whatever chance follows; one
        transaction. Raises StaleVersionError / NotYourTurnError / GameClosedError / the
        rules' errors (nothing is written when anything is refused)."""
        if not isinstance(move_text, str) or not move_text.strip():
            raise InvalidMoveError("type a move")
        if len(move_text) > MAX_MOVE_TEXT:
            raise InvalidMoveError("that is far too long to be a move")
        text = move_text.strip()
        now = self.clock.now()
        change = _Change(game_id, moved=True, actor=user_id)

        kept: list[tuple[tuple[int, int], _Loaded]] = []

        def action(conn: Any) -> GameSnapshot:
            kept.clear()
            token = self.db.here_token(conn)
            loaded = self._reuse(game_id, token, expected_version)
            if loaded is None:
                loaded = self._load(conn, game_id)
            row = loaded.row
            self._check_active(row)
            if row.version != expected_version:
                raise StaleVersionError(self._snapshot_now(conn, game_id, user_id, loaded))
            seat = self._seat_to_act(loaded, user_id)
            rules, state = loaded.rules, loaded.state
            move = rules.parse_move(state, text)
            canonical = rules.format_move(state, move)
            state = rules.apply(state, move)
            events: list[_LogItem] = [(seat, "move", {"move": canonical})]
            self._commit_state(conn, loaded, state, events, now, change)
            if token is not None and loaded.row.status == "active":
                kept.append((token, loaded))
            return self._snapshot_now(conn, game_id, user_id, loaded)

        snapshot = await self._run(game_id, action, user_id)
        if kept:
            # Only now, once committed (nothing ran on this connection in between).
            self._keep(game_id, *kept[0])
        else:
            self._forget(game_id)  # what an earlier move kept is older than this one
        self._after_commit(snapshot, change)
        return snapshot

    async def resign(
        self, game_id: int, user_id: int, expected_version: int | None = None
    ) -> GameSnapshot:
        """Forfeit the whole game (match); in a game not started yet this is ``leave``."""
        now = self.clock.now()
        change = _Change(game_id, moved=True, actor=user_id)

        def action(conn: Any) -> GameSnapshot | None:
            loaded = self._load(conn, game_id)
            row = loaded.row
            if row.status == "open":
                return None
            self._check_active(row)
            if expected_version is not None and row.version != expected_version:
                raise StaleVersionError(self._snapshot_now(conn, game_id, user_id, loaded))
            mine = [s for s in loaded.seats if s.user_id == user_id and s.kind in ("user", "bot")]
            if not mine:
                raise NotYourTurnError("you are not playing in that game")
            seat = mine[0].seat
            state = loaded.rules.forfeit(loaded.state, seat, "resign")
            events: list[_LogItem] = [(seat, "system", {"action": "forfeit", "reason": "resign"})]
            self._commit_state(conn, loaded, state, events, now, change)
            return self._snapshot_now(conn, game_id, user_id, loaded)

        snapshot = await self._run(game_id, action, user_id)
        if snapshot is None:
            await self.leave(game_id, user_id)
            return await self.get(game_id, user_id)
        self._after_commit(snapshot, change)
        return snapshot

    async def events(self, game_id: int, since_seq: int = 0) -> list[GameEvent]:
        """The game's log after ``since_seq``, oldest first."""
        rows = await self.db.run_read(lambda conn: q.event_rows(conn, game_id, since_seq))
        return [
            GameEvent(r.seq, r.seat, r.kind, dict(r.payload or {}), r.created_at) for r in rows
        ]

    async def mark_seen(self, game_id: int, user_id: int, seq: int) -> None:
        """Note that ``user_id`` has seen the game up to event ``seq`` (never goes back)."""

        kept: list[tuple[tuple[int, int], _Loaded]] = []

        def action(conn: Any) -> None:
            kept.clear()
            with self._states_lock:
                # the seat's last-seen moves on: what the last move kept is stale now ...
                hit = self._fresh.pop(game_id, None)
            row = q.game_row(conn, game_id)
            if row is None:
                return
            # never past the end of the log, or later events would count as seen
            upto = min(int(seq), int(row.last_seq))
            q.mark_seen(conn, game_id, user_id, upto)
            token = self.db.here_token(conn)
            if (
                hit is not None
                and token is not None
                and hit[0] == token
                and hit[1].row.version == row.version
            ):
                # ... unless it is brought up to date the way the UPDATE changed the rows,
                # so that the next move in this game (a player looks, then moves) still
                # need not read the game back
                old = hit[1]
                seats = [
                    q.RawRow({**s._mapping, "last_seen_seq": upto})
                    if s.user_id == user_id and s.last_seen_seq < upto
                    else s
                    for s in old.seats
                ]
                kept.append((token, _Loaded(old.row, seats, old.rules, old.state, old.seat_infos)))

        await self.db.transact(action)
        if kept:
            # Only now, once committed (nothing ran on this connection in between).
            self._keep(game_id, *kept[0])

    async def since_last_visit(self, user_id: int) -> VisitSummary:
        """Moves made against ``user_id``, games finished and games waiting on them,
        counted from each seat's last-seen event."""

        def read(conn: Any) -> VisitSummary:
            moves = new_events = 0
            finished_ids: list[int] = []
            waiting_ids: list[int] = []
            for r in q.unseen_by_seat(conn, user_id):
                if r.last_seq > r.last_seen_seq:
                    moves += r.moves
                    new_events += r.events
                    if r.status in ("finished", "abandoned") and r.game_id not in finished_ids:
                        finished_ids.append(r.game_id)
                if r.status == "active" and r.to_act == r.seat and r.game_id not in waiting_ids:
                    waiting_ids.append(r.game_id)
            # both lists' games in one read (a finished game is never waiting)
            infos = {i.id: i for i in self._infos(conn, sorted({*finished_ids, *waiting_ids}))}
            finished = [infos[g] for g in sorted(finished_ids) if g in infos]
            waiting = [infos[g] for g in sorted(waiting_ids) if g in infos]
            waiting.sort(key=lambda g: (g.deadline is None, g.deadline or g.updated_at, g.id))
            return VisitSummary(moves, finished, waiting, new_events)

        return await self.db.run_read(read)

    # --- deadlines -------------------------------------------------------------------------

    async def sweep_deadlines(self) -> int:
        """Apply the timeout rule to every running game whose deadline has passed.

        Each timeout is one system event; a concurrent sweeper (or a move landing at the
        same moment) makes this one skip that game, so it is applied exactly once.
        Returns how many timeouts were applied.
        """
        now = self.clock.now()
        overdue = await self.db.run_read(lambda conn: q.overdue_games(conn, now))
        applied = 0
        for item in overdue:
            change = _Change(item.id, moved=True)
            action = self._timeout_action(item.id, item.version, now, change)
            try:
                snapshot = await self.db.transact(action)
            except _Stale:
                continue
            except Exception:
                # One game the rules cannot time out must not stop the sweep of the rest.
                log.exception("game %d: could not apply its timeout", item.id)
                continue
            if snapshot is not None:
                applied += 1
                self._after_commit(snapshot, change)
        return applied

    def _timeout_action(
        self, game_id: int, version: int, now: datetime, change: _Change
    ) -> Callable[[Any], GameSnapshot | None]:
        def action(conn: Any) -> GameSnapshot | None:
            loaded = self._load(conn, game_id)
            row = loaded.row
            if row.status != "active" or row.version != version or row.deadline is None:
                return None
            if row.deadline > now or row.to_act is None:
                return None
            seat = int(row.to_act)
            seat_row = next(s for s in loaded.seats if s.seat == seat)
            timeouts = seat_row.timeouts + 1
            rules = loaded.rules
            if timeouts >= TIMEOUTS_TO_FORFEIT:
                state = rules.forfeit(loaded.state, seat, "timeout")
                payload: dict[str, Any] = {"action": "forfeit", "reason": "timeout"}
            else:
                state = rules.on_timeout(loaded.state)
                payload = {"action": "timeout"}
            events: list[_LogItem] = [(seat, "system", payload)]
            state = self._commit_state(conn, loaded, state, events, now, change)
            q.update_seat(conn, game_id, seat, timeouts=timeouts)
            return self._snapshot_now(conn, game_id, None, state=state)

        return action

    # --- replay ----------------------------------------------------------------------------

    async def replay_check(self, game_id: int) -> str | None:
        """Replay the game's log through the rules; None if it reproduces the snapshot,
        else a sentence saying what differs."""
        return await self.db.run_read(lambda conn: self._replay_check(conn, game_id))

    def _replay_check(self, conn: Any, game_id: int) -> str | None:
        row = q.game_row(conn, game_id)
        if row is None:
            return f"game {game_id}: no such game"
        seats = q.seat_rows(conn, game_id)
        events = q.event_rows(conn, game_id)
        rules = self.registry.get(row.kind)
        if rules is None:
            return f"game {game_id}: unknown kind {row.kind!r}"
        if [e.seq for e in events] != list(range(1, len(events) + 1)):
            return f"game {game_id}: the event sequence has gaps"
        if row.last_seq != len(events):
            return f"game {game_id}: last_seq is {row.last_seq} but the log ends at {len(events)}"
        try:
            state = rules.new_game(len(seats), row.options)
            for ev in events:
                state = apply_logged_event(rules, state, ev.kind, ev.seat, ev.payload)
        except Exception as exc:  # a tampered log can break the rules in any way
            return f"game {game_id}: the log does not replay: {exc!r}"
        replayed = dump_state(rules, state)
        if replayed != row.snapshot:
            return (
                f"game {game_id}: the log replays to {replayed!r} "
                f"but the snapshot is {row.snapshot!r}"
            )
        outcome = rules.outcome(state)
        if row.status == "finished" and outcome is None:
            return f"game {game_id}: marked finished but the replayed game is not over"
        if row.status == "active" and outcome is not None:
            return f"game {game_id}: marked active but the replayed game is over"
        if row.status == "active" and row.to_act != rules.to_act(state):
            return (
                f"game {game_id}: seat {row.to_act} is marked to act "
                f"but the replay says seat {rules.to_act(state)}"
            )
        return None

    async def game_ids(self) -> list[int]:
        """Every game's id (for ``door check``)."""
        return await self.db.run_read(q.all_game_ids)

    # --- internals (the sync ones run inside a transaction) ------------------------------

    async def _run(self, game_id: int, action: Callable[[Any], T], user_id: int | None) -> T:
        """``db.transact`` that turns a lost optimistic-lock race into StaleVersionError."""
        try:
            return await self.db.transact(action)
        except _Stale:
            snapshot = await self.get(game_id, user_id)
            raise StaleVersionError(snapshot) from None

    def _append(
        self, conn: Any, game_id: int, first_seq: int, items: list[_LogItem], now: datetime
    ) -> None:
        """Append events from ``first_seq``; a clash on (game_id, seq) means another
        action won the race."""
        try:
            q.append_events(conn, game_id, first_seq, items, now)
        except q.IntegrityError:
            raise _Stale() from None

    def _state(self, rules: AnyRules, game_id: int, text: str, options: Any) -> Any:
        with self._states_lock:
            hit = self._states.get(game_id)
        if hit is not None and hit[0] == text:
            return hit[1]
        state = load_state(rules, text, options)
        self._remember(game_id, text, state)
        return state

    def _remember(self, game_id: int, text: str, state: Any) -> None:
        with self._states_lock:
            self._states[game_id] = (text, state)
            self._states.move_to_end(game_id)
            while len(self._states) > self._states_max:
                self._states.popitem(last=False)

    def _keep(self, game_id: int, token: tuple[int, int], loaded: _Loaded) -> None:
        with self._states_lock:
            self._fresh[game_id] = (token, loaded)
            self._fresh.move_to_end(game_id)
            while len(self._fresh) > self._states_max:
                self._fresh.popitem(last=False)

    def _forget(self, game_id: int) -> None:
        with self._states_lock:
            self._fresh.pop(game_id, None)

    def _reuse(
        self, game_id: int, token: tuple[int, int] | None, expected_version: int
    ) -> _Loaded | None:
        """The game as this process's last move left it, if that is provably still what
        the database holds (same token, the version the player saw); else None."""
        if token is None:
            return None
        with self._states_lock:
            hit = self._fresh.get(game_id)
        if hit is None or hit[0] != token or hit[1].row.version != expected_version:
            return None
        kept = hit[1]
        # a copy: _commit_state moves ``row`` and ``state`` on, and may yet roll back
        return _Loaded(kept.row, kept.seats, kept.rules, kept.state, kept.seat_infos)

    def _load(self, conn: Any, game_id: int, *, writing: bool = True) -> _Loaded:
        """Read the game; an action that may write forgets what ``_reuse`` would give."""
        if writing:
            self._forget(game_id)
        row, seats = q.game_with_seats(conn, game_id)
        if row is None:
            raise LobbyError(f"there is no game {game_id}")
        rules = self.registry.get(row.kind)
        if rules is None:
            raise LobbyError(f"game {game_id} is of a kind this server does not know")
        state = self._state(rules, game_id, row.snapshot, row.options)
        return _Loaded(row, seats, rules, state)

    def _check_active(self, row: Any) -> None:
        if row.status == "open":
            raise GameClosedError("the game has not started yet: it is waiting for players")
        if row.status != "active":
            raise GameClosedError("that game is over")

    def _seat_to_act(self, loaded: _Loaded, user_id: int) -> int:
        seat = loaded.rules.to_act(loaded.state)
        playing = False
        for s in loaded.seats:
            if s.user_id == user_id and (s.kind == "user" or s.kind == "bot"):
                if s.seat == seat and seat is not None:
                    return int(seat)
                playing = True
        if not playing:
            raise NotYourTurnError("you are not playing in that game")
        raise NotYourTurnError("it is not your turn")

    def _start(self, conn: Any, loaded: _Loaded, now: datetime, change: _Change) -> None:
        """All seats are filled: draw the set-up chance and make the game active."""
        change.started = True
        events: list[_LogItem] = [(None, "system", {"action": "start"})]
        self._commit_state(conn, loaded, loaded.state, events, now, change, starting=True)

    def _commit_state(
        self,
        conn: Any,
        loaded: _Loaded,
        state: Any,
        events: list[_LogItem],
        now: datetime,
        change: _Change,
        *,
        starting: bool = False,
    ) -> Any:
        """Draw pending chance, append the events, write the snapshot (versioned).

        ``loaded`` is updated to match what was written (row, state), so the caller can
        answer with a snapshot without reading the game again; returns the final state.
        """
        rules = loaded.rules
        row = loaded.row
        events = list(events)
        for _ in range(MAX_CHANCE_CHAIN):
            if rules.outcome(state) is not None or not rules.chance_pending(state):
                break
            chance = rules.sample_chance(state, self.rng)
            state = rules.apply_chance(state, chance)
            events.append((None, "chance", {"chance": rules.chance_to_json(chance)}))
        else:
            raise RuntimeError(f"game {row.id}: chance events without end")
        first_seq = row.last_seq + 1
        seq = row.last_seq + len(events)
        change.events += len(events)
        outcome = rules.outcome(state)
        snapshot_text = dump_state(rules, state)
        values: dict[str, Any] = {
            "snapshot": snapshot_text,
            "last_seq": seq,
            "updated_at": now,
            "summary": rules.describe(state),
        }
        if starting:
            values["status"] = "active"
        if outcome is not None:
            values.update(
                status="finished",
                to_act=None,
                deadline=None,
                finished_at=now,
                outcome=outcome_to_json(outcome),
            )
            change.finished = True
        else:
            values["to_act"] = rules.to_act(state)
            values["deadline"] = now + _hours(row.deadline_hours)
        # The versioned UPDATE comes first: it takes the row lock, so a concurrent action
        # waits here and then finds the version moved on, instead of colliding on the
        # events' primary key.
        if not q.save_game(conn, row.id, row.version, values):
            raise _Stale()
        self._append(conn, row.id, first_seq, events, now)
        if outcome is not None:
            seat_users = [s.user_id for s in sorted(loaded.seats, key=lambda s: s.seat)]
            rating_rules.record_result(conn, row.kind, row.options, seat_users, outcome)
        self._remember(row.id, snapshot_text, state)
        values["version"] = row.version + 1
        loaded.row = q.RawRow({**row._mapping, **values})
        loaded.state = state
        return state

    def _infos(self, conn: Any, ids: list[int]) -> list[GameInfo]:
        rows = q.game_rows(conn, ids)
        seats = q.seat_rows_for(conn, ids)
        return [self._info(r, seats.get(r.id, [])) for r in rows]

    @staticmethod
    def _seat_infos(seats: list[Any]) -> tuple[SeatInfo, ...]:
        infos = []
        for s in seats:
            if s.kind == "bot":
                name = s.bot_level
            elif s.user_id is not None:
                name = s.user_name
            else:
                name = None
            infos.append(_seat_info(s.seat, s.kind, s.user_id, name, s.timeouts))
        return tuple(infos)

    def _info(
        self, row: Any, seats: list[Any], seat_infos: tuple[SeatInfo, ...] | None = None
    ) -> GameInfo:
        rules = self.registry.get(row.kind)
        return GameInfo(
            id=row.id,
            kind=row.kind,
            title=rules.title if rules is not None else row.kind,
            options=dict(row.options or {}),
            status=row.status,
            seats=self._seat_infos(seats) if seat_infos is None else seat_infos,
            to_act=row.to_act if row.status == "active" else None,
            version=row.version,
            deadline=row.deadline,
            deadline_hours=row.deadline_hours,
            hints_allowed=bool(row.hints_allowed),
            created_by=row.created_by,
            created_at=row.created_at,
            updated_at=row.updated_at,
            summary=row.summary,
            outcome=outcome_from_json(row.outcome),
            last_seq=row.last_seq,
        )

    def _snapshot_now(
        self,
        conn: Any,
        game_id: int,
        viewer_id: int | None,
        loaded: _Loaded | None = None,
        *,
        state: Any = None,
    ) -> GameSnapshot:
        """The game as this transaction sees it (``loaded``'s rows, or read again)."""
        if loaded is None:
            loaded = self._load(conn, game_id, writing=False)
        if loaded.seat_infos is None:
            loaded.seat_infos = self._seat_infos(loaded.seats)
        info = self._info(loaded.row, loaded.seats, loaded.seat_infos)
        my_seat = info.seat_of(viewer_id) if viewer_id is not None else None
        last_seen = 0
        if my_seat is not None:
            for s in loaded.seats:
                if s.seat == my_seat:
                    last_seen = s.last_seen_seq
                    break
        return GameSnapshot(info, loaded.state if state is None else state, my_seat, last_seen)

    def _after_commit(self, snapshot: GameSnapshot, change: _Change) -> None:
        """Publish the notices for a committed change and poke the bot runner."""
        info = snapshot.info
        players = tuple(
            s.user_id for s in info.seats if s.user_id is not None and s.kind in ("user", "bot")
        )
        others = tuple(u for u in players if u != change.actor)
        seq = info.last_seq
        notices: list[tuple[NoticeKind, tuple[int, ...], str]] = []
        title = f"{info.title} #{info.id}"
        if change.joined or change.started:
            notices.append(("joined", others, f"{title}: a player joined"))
        if change.moved:
            notices.append(("move", others, f"{title}: a move was made"))
        if info.status == "finished":
            notices.append(("finished", players, f"{title} is over: {info.summary}"))
        elif info.status == "active" and info.to_act is not None:
            waiting = tuple(
                s.user_id
                for s in info.seats
                if s.seat == info.to_act and s.user_id is not None
            )
            if waiting and (change.moved or change.started):
                notices.append(("your_turn", waiting, f"{title}: it is your turn"))
        publish = self.hub.publish
        for kind, users, text in notices:
            publish(Notice(info.id, kind, users, text, seq))
        hook = self.on_after_commit
        if hook is not None:
            result = hook(snapshot)
            if inspect.isawaitable(result):
                task = asyncio.ensure_future(result)
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)


def apply_logged_event(
    rules: AnyRules, state: Any, kind: str, seat: int | None, payload: Mapping[str, Any]
) -> Any:
    """The state after one logged event (what replay and ``door check`` do)."""
    if kind == "move":
        return rules.apply(state, rules.parse_move(state, str(payload["move"])))
    if kind == "chance":
        return rules.apply_chance(state, rules.chance_from_json(payload["chance"]))
    if kind == "system":
        action = payload.get("action")
        if action == "timeout":
            return rules.on_timeout(state)
        if action == "forfeit":
            if seat is None:
                raise ValueError("a forfeit event without a seat")
            return rules.forfeit(state, seat, str(payload.get("reason", "forfeit")))
        return state
    raise ValueError(f"unknown event kind {kind!r}")
