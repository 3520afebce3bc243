"""The steps every game use-case shares: load a game, commit a new state (showing it is
``views.py``'s).

Every action is one database transaction (``Database.transact``): load the game record
and its seats, run the rules, append the events, write the new snapshot and bump
``version`` with the optimistic lock (``Repository.save_game``). A player's move carries
the version they saw; if the game moved on meanwhile they get
:class:`~door.services.games.model.StaleVersionError` with the fresh game, and nothing is
written. Chance events (dice, tile draws) are drawn in the commit and logged, so the log
replays without any RNG (``chance.py``: a game with a dice seed, every game made since
migration 0006, draws them from it, so anyone can check every roll once the seed is
revealed at the end; an older game keeps drawing with the service's RNG).

Every action is done *for* someone: :meth:`GameCore.act` is the one way a use-case runs
a write, and it refuses a banned user's (:class:`~door.services.games.model.BannedError`)
inside the same transaction: a move reads the mover's ban in its own versioned write (no
statement of its own; bench/commit_moves.py shows no difference beyond the spread between
runs); any other action looks it up first. So a ban made by another process counts from
its commit on, and no action can forget it.

The game service's one cache is :class:`~door.services.games.cache.GameCache`; a move
may start from it (:meth:`GameCore.load_at`), and its write then proves it right.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, TypeVar

from door.games import fairdice
from door.games.base import Refusal
from door.services import ratings as rating_rules
from door.services.clock import Clock
from door.services.games.cache import GameCache, Loaded
from door.services.games.chance import draw_pending
from door.services.games.clockstep import plan_turn, settle_turn
from door.services.games.model import (
    AnyRules,
    BannedError,
    GameClosedError,
    GameSnapshot,
    LobbyError,
    NotYourTurnError,
    StaleVersionError,
    dump_state,
    outcome_to_json,
)
from door.services.games.views import GameViews
from door.services.notify import Notice
from door.store.db import Database
from door.store.records import (
    ClockCheck,
    GameRecord,
    GameStatus,
    JSONObject,
    NewEvent,
    SeatRecord,
    is_stored_id,
)
from door.store.repository import ConflictError, Repository

T = TypeVar("T")

class Stale(Exception):
    """Internal: the versioned write found someone else's change first."""


class Unconfirmed(Exception):
    """Internal: a move made on a cached game found the game changed; read it and run
    the move again."""


@dataclass
class Change:
    """What an action did, for the notices sent after the commit."""

    game_id: int
    events: int = 0
    joined: bool = False
    started: bool = False
    moved: bool = False
    finished: bool = False
    actor: int | None = None
    """The user the action is done for (None: the server's own, e.g. a timeout)."""
    actor_checked: bool = False
    """Set inside the transaction once the actor is known not to be banned."""
    begun: bool = False
    """A new game (its named guests are invited)."""
    declined_by: str | None = None
    """The name of the invitee who declined (the game is cancelled)."""
    abandoned: str | None = None
    """The sysop's reason, when the sysop abandoned the game (door/services/games/abandon.py)."""
    notices: tuple[Notice, ...] | None = None
    """What the change's transaction announced (None: it announced nothing yet)."""


Tell = Callable[[Repository, GameSnapshot, Change], None]
"""Works out and announces a change's notices inside its transaction (GameNotices)."""


class GameCore(GameViews):
    """The database, the rules, the clock, the dice and the state cache, and the steps of
    a game transaction, shared by the lobby, turns, deadlines and history use-cases."""

    def __init__(
        self,
        db: Database,
        registry: Mapping[str, AnyRules],
        clock: Clock,
        rng: random.Random,
        cache: GameCache,
        seeds: Callable[[int], bytes] = secrets.token_bytes,
    ) -> None:
        self.db = db
        self.registry = dict(registry)
        self.clock = clock
        self.rng = rng
        self.cache = cache
        self.seeds = seeds
        """Makes a new game's dice seed from a byte count (``secrets.token_bytes``; a
        test's seeded RNG makes them reproducible)."""
        self.default_zone = "UTC"
        """The IANA zone of a player who has not chosen one (the sysop's setting, else
        the server's)."""
        self.tell: Tell | None = None
        """Called inside each action's transaction with its new snapshot (the game
        service sets it to ``GameNotices.in_transaction``)."""

    def new_seed(self) -> bytes:
        """A new game's secret dice seed (:data:`fairdice.SEED_BYTES` bytes)."""
        seed = bytes(self.seeds(fairdice.SEED_BYTES))
        if len(seed) != fairdice.SEED_BYTES:
            raise RuntimeError("the dice seed source gave the wrong number of bytes")
        return seed

    def rules_for(self, kind: str) -> AnyRules:
        """The rules of ``kind``; ``LobbyError`` if there is no such game."""
        try:
            return self.registry[kind]
        except KeyError:
            raise LobbyError(f"there is no game called {kind!r}") from None

    async def act(
        self,
        change: Change,
        action: Callable[[Repository], T],
        *,
        viewer: int | None = None,
        checked_by_move: bool = False,
    ) -> T:
        """Run ``action`` in one write transaction for ``change.actor``, refused with
        ``BannedError`` (nothing written) if that user is banned; a lost optimistic-lock
        race becomes StaleVersionError with the game ``change.game_id`` as it is now.
        An action that returns the game's new snapshot has :attr:`tell` announce the
        change's notices in the same transaction (``change.notices``).

        The actor is looked up before ``action`` runs, unless ``checked_by_move``: then
        the move's own versioned write reads the ban (:meth:`commit` with a ``mover``),
        and it is looked up afterwards only if no such write happened (or before any
        other refusal is given: a banned user hears that they are, whatever they ask).
        """

        def guarded(repo: Repository) -> T:
            change.actor_checked = False
            change.notices = None
            if not checked_by_move:
                self.check_actor(repo, change)
            try:
                result = action(repo)
            except Refusal:
                if not change.actor_checked:
                    self.check_actor(repo, change)
                raise
            if not change.actor_checked:
                self.check_actor(repo, change)
            if self.tell is not None and isinstance(result, GameSnapshot):
                # the notices go out with the commit (and not at all without one)
                self.tell(repo, result, change)
            return result

        try:
            return await self.db.transact(guarded)
        except Stale:
            game_id = change.game_id
            snapshot = await self.db.run_read(
                lambda repo: self.read_snapshot(repo, game_id, viewer)
            )
            raise StaleVersionError(snapshot) from None

    def check_actor(self, repo: Repository, change: Change) -> None:
        """``BannedError`` if ``change.actor`` is banned; ``LobbyError`` if it cannot be
        a user's id at all."""
        actor = change.actor
        if actor is not None:
            if not is_stored_id(actor):
                raise LobbyError("no such user")
            if repo.is_banned(actor):
                raise BannedError()
        change.actor_checked = True

    # --- inside a transaction ----------------------------------------------------------------

    def load(self, repo: Repository, game_id: int) -> Loaded:
        """The game and its state; ``LobbyError`` if there is none (or of an unknown kind)."""
        game, seats = repo.game_with_seats(game_id) if is_stored_id(game_id) else (None, [])
        if game is None:
            raise LobbyError(f"there is no game {game_id}")
        rules = self.registry.get(game.kind)
        if rules is None:
            raise LobbyError(f"game {game_id} is of a kind this server does not know")
        state = self.cache.state(rules, game)
        self.cache.keep(Loaded(game, tuple(seats), rules, state, confirmed=False))
        return Loaded(game, tuple(seats), rules, state)

    def load_at(self, repo: Repository, game_id: int, version: int) -> Loaded:
        """The game for a move made at ``version``: from the cache when it holds that
        version (unconfirmed until the move's versioned write), else read."""
        found = self.cache.at(game_id, version)
        return found if found is not None else self.load(repo, game_id)


    def check_active(self, game: GameRecord) -> None:
        if game.status == "open":
            raise GameClosedError("the game has not started yet: it is waiting for players")
        if game.status != "active":
            raise GameClosedError("that game is over")

    def seat_to_act(self, loaded: Loaded, user_id: int) -> int:
        """The seat ``user_id`` plays that is to act now; ``NotYourTurnError`` otherwise."""
        seat = loaded.rules.to_act(loaded.state)
        playing = False
        for s in loaded.seats:
            if s.user_id == user_id and s.kind in ("user", "bot"):
                if seat is not None and s.seat == seat:
                    return int(seat)
                playing = True
        if not playing:
            raise NotYourTurnError("you are not playing in that game")
        raise NotYourTurnError("it is not your turn")

    def append(
        self, repo: Repository, game_id: int, first_seq: int, events: Sequence[NewEvent],
        now: datetime,
    ) -> None:
        """Append events from ``first_seq``; a clash on (game, seq) means another action
        won the race."""
        try:
            repo.append_events(game_id, first_seq, events, now)
        except ConflictError:
            raise Stale() from None

    def save(self, repo: Repository, game: GameRecord, was: GameRecord) -> GameRecord:
        """Write ``game`` (its version one past ``was``'s) over the game as it was read
        (``was``); ``Stale`` if someone else's change came first."""
        if not repo.save_game(game, was.version, was.snapshot):
            raise Stale()
        return game

    def save_loaded(
        self, repo: Repository, game: GameRecord, loaded: Loaded, seat: int | None,
        change: Change, events: Sequence[NewEvent], now: datetime,
        check: ClockCheck | None = None,
    ) -> tuple[tuple[SeatRecord, ...], bool]:  # fmt: skip
        """Write ``game`` over ``loaded``'s game and append ``events`` (the last one
        numbered ``game.last_seq``); the seats as they stand after, and whether a player
        of ``check`` has (True too: may have) a vacation ending after its ``since``. A
        game from the cache (unconfirmed) that is not the stored one any more raises
        ``Unconfirmed``. A move (``seat`` given, for ``change.actor``) reads back with
        the write that seat's last-seen mark, whether the actor is banned
        (``BannedError``: the transaction is rolled back) and the clock check, and
        appends in the same statement where the backend can."""
        was = loaded.game
        actor = change.actor
        if seat is None or actor is None or not is_stored_id(actor):
            if not repo.save_game(game, was.version, was.snapshot):
                raise Stale() if loaded.confirmed else Unconfirmed()
            self.append(repo, game.id, was.last_seq + 1, events, now)
            return loaded.seats, check is not None  # this write cannot tell
        try:
            found = repo.save_game_seen_appending(game, was, seat, actor, events, now, check)
        except ConflictError:
            raise Stale() from None
        if found is None:
            raise Stale() if loaded.confirmed else Unconfirmed()
        if found.actor_banned:
            raise BannedError()
        change.actor_checked = True
        seen = found.last_seen_seq
        seats = tuple(
            replace(s, last_seen_seq=seen) if s.seat == seat and s.last_seen_seq != seen else s
            for s in loaded.seats
        )
        return seats, found.vacation

    def start(self, repo: Repository, loaded: Loaded, now: datetime, change: Change) -> Loaded:
        """All seats are filled: draw the set-up chance and make the game active."""
        change.started = True
        events = [NewEvent(None, "system", {"action": "start"})]
        return self.commit(repo, loaded, loaded.state, events, now, change, starting=True)

    def commit(
        self,
        repo: Repository,
        loaded: Loaded,
        state: Any,
        events: Sequence[NewEvent],
        now: datetime,
        change: Change,
        *,
        starting: bool = False,
        mover: int | None = None,
    ) -> Loaded:
        """Draw pending chance, write the new snapshot (versioned), append the events and,
        if the game is over, the ratings; returns the game as written (with ``mover``'s
        seat's last-seen mark as it stands, when ``loaded`` came from the cache)."""
        rules, game = loaded.rules, loaded.game
        state, chances = draw_pending(rules, state, game, loaded.seats, self.rng)
        logged = [*events, *chances]
        drawn = len(chances)
        change.events += len(logged)
        outcome = rules.outcome(state)
        snapshot = dump_state(rules, state)
        if outcome is not None:
            change.finished = True
            status: GameStatus = "finished"
            to_act = None
            finished_at: datetime | None = now
            outcome_json: JSONObject | None = outcome_to_json(outcome)
        else:
            status = "active" if starting else game.status
            to_act = rules.to_act(state)
            finished_at, outcome_json = game.finished_at, game.outcome
        # the mover pays for the time taken beyond the move's from their bank; the next
        # turn's deadline counts the next mover's bank, weekends and vacations
        plan = plan_turn(repo, game, loaded.seats, to_act, now, self.default_zone, mover)
        turn = plan.turn
        new = replace(
            game, snapshot=snapshot, last_seq=game.last_seq + len(logged), updated_at=now,
            summary=rules.describe(state), status=status, to_act=to_act,
            deadline=turn.deadline, finished_at=finished_at, outcome=outcome_json,
            version=game.version + 1, chance_count=game.chance_count + drawn,
            turn_started_at=turn.started_at, move_deadline=turn.move_deadline,
        )  # fmt: skip
        # The versioned UPDATE comes first (and the events after it, in the same
        # statement on PostgreSQL): it takes the row lock, so a concurrent action waits
        # there and then finds the version moved on, instead of colliding on the events'
        # primary key.
        seats, vacation = self.save_loaded(
            repo, new, loaded, mover, change, logged, now, plan.check
        )
        if vacation:  # the times were worked out without a vacation that counts
            turn, new = settle_turn(repo, plan, game, loaded.seats, new, self.default_zone)
        if turn.charged is not None:
            repo.save_seat(turn.charged)
            seats = tuple(
                replace(s, bank_s=turn.charged.bank_s) if s.seat == turn.charged.seat else s
                for s in seats
            )
        if outcome is not None:
            in_order = sorted(loaded.seats, key=lambda s: s.seat)
            rating_rules.record_result(
                repo, game.id, game.kind, game.options, [s.user_id for s in in_order],
                outcome, now, [s.bot_level for s in in_order],
            )  # fmt: skip
        # what the next move at this version starts from (confirmed by its own write)
        written = Loaded(new, seats, rules, state, confirmed=False)
        self.cache.keep(written)
        return written

    def read_snapshot(self, repo: Repository, game_id: int, viewer: int | None) -> GameSnapshot:
        return self.snapshot(self.load(repo, game_id), viewer)


AfterCommit = Callable[[GameSnapshot], Awaitable[None] | None]
