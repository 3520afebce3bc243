"""Computer players: the service task that plays bot seats, plus hints and game reviews.

A bot is a seat like any other (DESIGN.md, "Bots"): it has its own account, one per level
(the account's name is the level name, e.g. ``bg-expert``), and it moves through the same
``GameService.submit`` path as a person, so the log, the notices and the ratings treat it
like anyone else.

How a bot's turn comes about: the game service calls ``on_after_commit(snapshot)`` after
every committed change; the runner (which sets that hook) looks whether a bot seat is to
act and, if so, queues the game. A few worker tasks take games off the queue, choose the
move in a worker thread (``asyncio.to_thread``: bgsage releases the GIL while it thinks,
and the pure-Python levels take milliseconds) and submit it with the version they saw. A
game that changed meanwhile is simply looked at again. At start the runner also scans the
running games for bot turns left over from before a restart.

Exactly one process plays each turn: several ``door serve`` processes on one PostgreSQL
database (or ``door local`` callers on one SQLite file) each run a runner, and before a
runner reads the game to play it takes the game's lease (:mod:`door.services.claims`,
kind ``bot-turn``), renews it while the bot thinks and releases it after the move. A
runner that finds the lease held leaves the game alone; if the holder dies, its lease
expires (``claim_s``, 30 s by default) and a runner that looks for expired leases every
``claim_s / 2`` seconds takes the turn over. With ``plays=False`` (``[bots] run =
false``) a runner plays no turns and never loads the engines for them: it answers hints
and reviews only (those load the engine lazily, on first use, as they always have).

When the database cannot save a bot's move (the disk full, the server gone: a
:class:`~door.store.db.DatabaseFailure` after the database's own retries), the game is
*stalled*, not dropped: it is tried again after a back-off (``stall_backoff``: 0.25 s
doubling to 5 s), and at once when any write of this process succeeds again
(``Database.health``), so the bots resume within seconds of space coming back.

Levels (``levels(kind)``): backgammon ``bg-beginner``, ``bg-casual``, ``bg-club``,
``bg-strong`` (bgsage 1-ply with less and less evaluation noise) and ``bg-expert`` (2-ply)
with bgsage where installed, else the pure-Python fallback
(:mod:`door.games.backgammon.pubeval`) with noise; see ``bgengine.BG_LEVEL_TABLE`` (the
retired ``bg-intermediate`` plays as ``bg-strong``); Spectrangle ``spectrangle-novice``,
``spectrangle-greedy`` and ``spectrangle-strong`` (:mod:`door.games.spectrangle.bot`).

What the screens use: ``BotRunner.levels(kind)``, ``await hint(kind, state, n)``,
``await game_hint(game_id, user_id, n)`` (checks the game allows hints) and
``await review(game_id)`` (a finished backgammon game, with bgsage).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import secrets
import threading
from collections import OrderedDict
from typing import Any

from door.games.backgammon import pubeval
from door.games.base import Refusal
from door.games.spectrangle import bot as spectrangle_bot
from door.services import bgengine
from door.services.claims import DEFAULT_LEASE_S, Lease, Leases
from door.services.games import (
    BannedError,
    GameClosedError,
    GameSnapshot,
    NotYourTurnError,
    StaleVersionError,
)
from door.store.db import DatabaseFailure
from door.store.retry import Backoff

log = logging.getLogger(__name__)

SPECTRANGLE_LEVELS: tuple[tuple[str, str], ...] = (
    ("spectrangle-novice", "Novice: plays any piece that fits, ignoring the score"),
    ("spectrangle-greedy", "Greedy: takes the best score it sees; beats Novice 49 in 50"),
    ("spectrangle-strong", "Strong: weighs what its move leaves; beats Greedy 19 in 20"),
)

_LEVELS_BY_KIND: dict[str, tuple[tuple[str, str], ...]] = {
    "backgammon": bgengine.BG_LEVELS,
    "spectrangle": SPECTRANGLE_LEVELS,
}
"""Level names by game kind (descriptions as with bgsage; see :func:`levels`)."""
_DEFAULT_LEVEL = {"backgammon": "bg-club", "spectrangle": "spectrangle-greedy"}
_ALIASES_BY_KIND: dict[str, dict[str, str]] = {"backgammon": bgengine.LEVEL_ALIASES}
"""Retired level names by game kind and the level that now plays their seats (their
accounts and ratings stay as they are; a game begun with one goes on at the new level)."""

# A rules bug or a broken engine must never make a bot spin on one game.
_MAX_ACTIONS_PER_WAKE = 200
_MAX_STALE_RETRIES = 5
# Finished games' reviews kept in memory (a few KB each).
_REVIEWS_KEPT = 64


class BotBrains:
    """The move choosers, one per level, built on first use and shared between threads.

    Pure of the database: :meth:`choose` maps (kind, level, state) to move text. Used by the
    runner, the benchmark and the tests.
    """

    def __init__(self, rng: random.Random | None = None, *, bgsage_threads: int = 0) -> None:
        self.rng = rng if rng is not None else random.Random(secrets.randbits(64))
        self._bgsage_threads = bgsage_threads
        self._engines: dict[str, bgengine.BgEngine] = {}
        self._pool: bgengine.AnalyzerPool | None = None
        self._weights: pubeval.Weights | None = None
        """The fallback's networks, read once for every level's engine."""
        self._lock = threading.Lock()  # the shared rng
        self._build_lock = threading.Lock()  # building an engine takes up to a second
        self.warmed = False
        """True once :meth:`warm_up` has run."""
        self.hints_warmed = False
        """True once :meth:`warm_hints` has run (or :meth:`warm_up`, which covers it)."""

    @property
    def loaded(self) -> bool:
        """True once a backgammon engine has been built (with bgsage, that is when its
        networks and bearoff database, about 110 MB, are loaded)."""
        return bool(self._engines)

    def engine(self, level: str) -> bgengine.BgEngine:
        """The backgammon engine for ``level`` (built on first use, then kept)."""
        with self._build_lock:
            eng = self._engines.get(level)
            if eng is None:
                if self._pool is None:
                    self._pool = bgengine.analyzer_pool(self._bgsage_threads)
                if self._weights is None:
                    self._weights = pubeval.shipped_weights()
                with self._lock:
                    seed = self.rng.getrandbits(64)
                eng = bgengine.BgEngine(
                    level,
                    rng=random.Random(seed),
                    threads=self._bgsage_threads,
                    analyzers=self._pool,
                    weights=self._weights,
                )
                self._engines[level] = eng
            return eng

    def warm_up(self) -> None:
        """Build every backgammon level's engine and run one search with each, so the first
        real move does not pay for loading networks (about a second for the expert)."""
        from door.games.backgammon.rules import BackgammonRules

        rules = BackgammonRules()
        opening = rules.apply_chance(rules.new_game(2, {"match_length": 0}), (3, 1))
        for level, _ in bgengine.BG_LEVELS:
            self.engine(level).rank_plays(opening)
        self.warmed = True

    def warm_hints(self, kind: str) -> None:
        """Build what :meth:`hint` uses for ``kind`` and run it once (backgammon: the
        expert engine's networks), so a player's first hint does not wait for loading."""
        if kind != "backgammon":
            return
        from door.games.backgammon.rules import BackgammonRules

        rules = BackgammonRules()
        opening = rules.apply_chance(rules.new_game(2, {"match_length": 0}), (3, 1))
        self.engine("bg-expert").hint(opening, 1)
        self.hints_warmed = True

    def choose(self, kind: str, level: str, state: Any) -> str:
        """The move text ``level`` plays in ``state`` (for the seat to act)."""
        level = resolve_level(kind, level)
        if kind == "backgammon":
            eng = self.engine(level)
            return eng.rules.format_move(state, eng.choose(state))
        if kind == "spectrangle":
            from door.games.spectrangle.rules import SpectrangleRules

            name = level.removeprefix("spectrangle-")
            with self._lock:
                seed = self.rng.getrandbits(64)
            move = spectrangle_bot.choose_move(state, name, random.Random(seed))
            return SpectrangleRules().format_move(state, move)
        raise ValueError(f"no computer player knows the game {kind!r}")

    def hint(self, kind: str, state: Any, n: int = 3) -> list[tuple[str, str]]:
        """The best ``n`` moves for the seat to act, with their worth (see ``BotRunner.hint``)."""
        if kind == "backgammon":
            return self.engine("bg-expert").hint(state, n)
        if kind == "spectrangle":
            from door.games.spectrangle.rules import SpectrangleRules

            rules = SpectrangleRules()
            ranked = spectrangle_bot.rank_moves(state, "greedy")
            out = []
            for move, _ in ranked[: max(0, n)]:
                score = rules.move_score(state, move)
                out.append((rules.format_move(state, move), f"score {score}"))
            return out
        raise ValueError(f"no hints for the game {kind!r}")


def levels(kind: str) -> list[tuple[str, str]]:
    """The bot levels of a game kind: (level name, description), weakest first; the
    backgammon descriptions say how the levels play on this machine (with or without
    bgsage)."""
    if kind == "backgammon":
        return bgengine.bg_levels()
    return list(_LEVELS_BY_KIND.get(kind, ()))


def all_levels() -> list[str]:
    """Every level name of every game (each is a bot account name)."""
    return [name for table in _LEVELS_BY_KIND.values() for name, _ in table]


def level_names() -> dict[str, tuple[str, ...]]:
    """Every game kind's level names, weakest first: the only names the game service
    seats as computer players (``GameService(bot_levels=…)``)."""
    return {kind: tuple(name for name, _ in table) for kind, table in _LEVELS_BY_KIND.items()}


def resolve_level(kind: str, level: str | None) -> str:
    """``level`` if it is one of ``kind``'s levels, else that game's default level.

    The game service seats only ``kind``'s own levels (:func:`level_names`); a seat
    whose name no level answers to (a game begun before that rule, or a level since
    retired) still gets a sensible opponent rather than a game that never moves.
    """
    known = {name.lower(): name for name, _ in levels(kind)}
    if level is not None and level.lower() in known:
        return known[level.lower()]
    retired = _ALIASES_BY_KIND.get(kind, {})
    if level is not None and level.lower() in retired:
        return retired[level.lower()]
    if kind not in _DEFAULT_LEVEL:
        raise ValueError(f"no computer player knows the game {kind!r}")
    return _DEFAULT_LEVEL[kind]


class BotRunner:
    """Plays the bot seats of every running game; see the module docstring.

    ``services`` is a :class:`door.services.Services` (only ``games`` and ``accounts`` are
    used). ``workers`` games can think at once; ``think_delay`` seconds pass before a bot
    acts (0 in tests; a person may like a moment to see the board first). Every
    ``rescan_interval`` seconds the running games are scanned again, a safety net for a
    change this process was not told about (another ``door`` process on the same
    PostgreSQL database, a deadline sweep). ``brains`` may be shared between runners
    (tests do, to load the engines once).

    The backgammon engines (with bgsage, ~110 MB of networks) are not loaded at start:
    they are warmed up in a worker thread when a backgammon bot sits down in a game or
    must move in one, or built on first use by a hint or a review.

    ``plays``: whether this runner plays bot turns at all (False: hints and reviews only).
    ``claim_s``: the length of a turn's lease; ``leases`` may be given instead (tests
    name the owner). See the module docstring.
    """

    def __init__(
        self,
        services: Any,
        *,
        workers: int = 2,
        think_delay: float = 0.0,
        rescan_interval: float = 60.0,
        rng: random.Random | None = None,
        bgsage_threads: int = 0,
        brains: BotBrains | None = None,
        stall_backoff: Backoff | None = None,
        plays: bool = True,
        claim_s: float = DEFAULT_LEASE_S,
        leases: Leases | None = None,
    ) -> None:
        self.services = services
        self.plays = plays
        self.claim_s = leases.ttl_s if leases is not None else claim_s
        self.leases = leases
        """The turns' leases (made at :meth:`start` from ``services.db`` unless given)."""
        self._started = False
        self.stall_backoff = (
            stall_backoff if stall_backoff is not None else Backoff(first_s=0.25, max_s=5.0)
        )
        self._stalled: set[int] = set()
        self._stall_failures = 0
        self._stall_timer: asyncio.Task[None] | None = None
        self._stop_listening: Any = None
        if brains is None:
            brains = BotBrains(rng, bgsage_threads=bgsage_threads)
        self.brains = brains
        self.workers = max(1, workers)
        self.think_delay = think_delay
        self.rescan_interval = rescan_interval
        self._queue: asyncio.Queue[int] | None = None
        self._queued: set[int] = set()
        self._busy: set[int] = set()
        self._again: set[int] = set()
        self._tasks: list[asyncio.Task[Any]] = []
        self._bot_ids: dict[str, int] = {}
        self._ready: asyncio.Event | None = None
        self._warming: asyncio.Task[None] | None = None
        self._preparing_hints: asyncio.Task[None] | None = None
        self._reviews: OrderedDict[tuple[int, int, int], bgengine.GameReview] = OrderedDict()
        self._reviewing: dict[tuple[int, int, int], asyncio.Task[bgengine.GameReview]] = {}
        self._review_slot = asyncio.Semaphore(1)
        self.moves_made = 0

    # --- life cycle ----------------------------------------------------------------------

    def start(self) -> None:
        """Hook into the game service and start the workers (needs a running loop); a
        runner that does not play only gets ready (for hints and reviews)."""
        if self._started:
            return
        self._started = True
        self._ready = asyncio.Event()
        if not self.plays:
            log.info("bots: this process plays no bot turns ([bots] run = false)")
            self._ready.set()
            return
        if self.leases is None:
            self.leases = Leases(self.services.db, "bot-turn", ttl_s=self.claim_s)
        self._queue = asyncio.Queue()
        self.services.games.on_after_commit = self.on_after_commit
        health = getattr(getattr(self.services, "db", None), "health", None)
        if health is not None:
            self._stop_listening = health.on_recovered(self._writes_recovered)
        self._tasks.append(asyncio.create_task(self._start_up(), name="door-bots-start"))
        for i in range(self.workers):
            self._tasks.append(asyncio.create_task(self._work(), name=f"door-bot-{i}"))
        self._tasks.append(asyncio.create_task(self._watch_claims(), name="door-bots-claims"))

    async def ready(self) -> None:
        """Wait until the bot accounts exist and the start-up scan has queued old turns."""
        if self._ready is None:
            raise RuntimeError("the bot runner has not been started")
        await self._ready.wait()

    async def stop(self) -> None:
        """Stop the workers (a move being thought about is abandoned, never half-written)."""
        if self.services.games.on_after_commit == self.on_after_commit:
            self.services.games.on_after_commit = None
        if self._stop_listening is not None:
            self._stop_listening()
            self._stop_listening = None
        reviews = list(self._reviewing.values())
        if self._stall_timer is not None:
            self._tasks.append(self._stall_timer)
            self._stall_timer = None
        for task in [*self._tasks, *reviews]:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        for review in reviews:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await review
        self._tasks.clear()
        self._warming = None
        self._preparing_hints = None
        self._started = False

    async def idle(self, timeout: float = 30.0) -> None:
        """Wait until no bot has a move queued or in hand (for tests and the benchmark)."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while self._queued or self._busy:
            if loop.time() > end:
                raise TimeoutError("the bots are still thinking")
            await asyncio.sleep(0.01)

    async def _start_up(self) -> None:
        try:
            for name in all_levels():
                user = await self.services.accounts.ensure_bot(name)
                self._bot_ids[name] = user.id
            # No warm-up here: the networks load when a backgammon bot sits down in a
            # game or must move (see ``_warm_up_soon``), so a process whose callers never
            # meet a bot does not carry them.
            await self.scan()
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("bot start-up failed")
        finally:
            assert self._ready is not None
            self._ready.set()
        while self.rescan_interval > 0:
            await asyncio.sleep(self.rescan_interval)
            try:
                await self.scan()
            except asyncio.CancelledError:
                raise
            except DatabaseFailure as exc:
                log.warning("bot rescan: %s", exc)
            except Exception:
                log.exception("bot rescan failed")

    async def _watch_claims(self) -> None:
        """Every half lease, wake the games whose turn's lease expired unreleased: their
        holder died (or stalled), so this runner takes the turn over."""
        assert self.leases is not None
        while True:
            await asyncio.sleep(self.claim_s / 2)
            try:
                for game_id in await self.leases.expired():
                    self._wake(game_id)
            except DatabaseFailure as exc:
                log.warning("bots: could not look for abandoned turns: %s", exc)
            except Exception:
                log.exception("bots: looking for abandoned turns failed")

    async def scan(self) -> int:
        """Queue every running game where a bot is to act; returns how many."""
        games = self.services.games
        found = 0
        offset = 0
        while True:
            page, total = await games.list_games("active", None, offset=offset, limit=100)
            for info in page:
                if _bot_to_act(info) is not None:
                    # (no warm-up here: the turn may be another process's; _play_claimed
                    # loads the networks once this process has the turn)
                    self._wake(info.id)
                    found += 1
            offset += len(page)
            if not page or offset >= total:
                return found

    # --- waking ----------------------------------------------------------------------------

    def on_after_commit(self, snapshot: GameSnapshot) -> None:
        """The game service's hook: queue the game if a bot is to act in it now."""
        if _has_backgammon_bot(snapshot.info):
            self._warm_up_soon()
        if _bot_to_act(snapshot.info) is not None:
            self._wake(snapshot.info.id)

    def prepare_hints(self, kind: str) -> asyncio.Task[None] | None:
        """Load what a hint for ``kind`` needs in a worker thread, once, before anyone asks
        (a backgammon game screen that offers hints calls this as it opens): the first
        hint then answers in tens of milliseconds, not the second the networks take to
        load. Returns the loading task while it runs, else ``None``."""
        if kind != "backgammon" or self.brains.hints_warmed or self.brains.warmed:
            return None
        if self._preparing_hints is None:

            async def prepare() -> None:
                try:
                    await asyncio.to_thread(self.brains.warm_hints, kind)
                except asyncio.CancelledError:
                    raise
                except Exception:
                    log.exception("loading the backgammon engine for hints failed")

            self._preparing_hints = asyncio.create_task(prepare(), name="door-hints-warm-up")
            self._tasks.append(self._preparing_hints)
        return self._preparing_hints

    def _warm_up_soon(self) -> None:
        """Load the backgammon engines in a worker thread, once, now that a backgammon
        bot sits down in a game (or must move in one found at start): its moves then need
        not wait for the networks one level at a time. A bot
        that has to think before this finishes simply builds its engine itself (the
        brains build each engine once, under a lock)."""
        if self._warming is not None or self.brains.warmed or self._queue is None:
            return
        self._warming = asyncio.create_task(self._warm_up(), name="door-bots-warm-up")
        self._tasks.append(self._warming)

    async def _warm_up(self) -> None:
        try:
            await asyncio.to_thread(self.brains.warm_up)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("loading the backgammon engines failed")

    def _wake(self, game_id: int) -> None:
        if self._queue is None:
            return
        if game_id in self._busy:
            self._again.add(game_id)
            return
        if game_id in self._queued:
            return
        self._queued.add(game_id)
        self._queue.put_nowait(game_id)

    async def _work(self) -> None:
        assert self._queue is not None
        while True:
            game_id = await self._queue.get()
            self._queued.discard(game_id)
            self._busy.add(game_id)
            try:
                await self._play(game_id)
                if not self._stalled:
                    self._stall_failures = 0  # saving works: the next stall starts short
            except asyncio.CancelledError:
                raise
            except DatabaseFailure:
                self._stall(game_id)
            except Exception:
                log.exception("bot could not move in game %d", game_id)
            finally:
                self._busy.discard(game_id)
                if game_id in self._again:
                    self._again.discard(game_id)
                    self._wake(game_id)

    async def _play(self, game_id: int) -> None:
        """Make every move the bots owe in this game now (a bot may act several times
        running: roll then play, or a Spectrangle table of bots), under the game's lease;
        nothing if another process holds it."""
        assert self.leases is not None
        lease = await self.leases.take(game_id)
        if lease is None:
            return  # another process is playing it (if it dies, _watch_claims wakes it)
        try:
            await self._play_claimed(game_id, lease)
        finally:
            await lease.release()

    async def _play_claimed(self, game_id: int, lease: Lease) -> None:
        games = self.services.games
        stale = 0
        for _ in range(_MAX_ACTIONS_PER_WAKE):
            snap = await games.get(game_id)
            info = snap.info
            seat = _bot_to_act(info)
            if seat is None:
                return
            if info.kind == "backgammon":
                # this process plays the turn: load every level's networks in a thread
                # (the think below builds its own level's engine if it comes first)
                self._warm_up_soon()
            if self.think_delay:
                await asyncio.sleep(self.think_delay)
            level = seat.name or ""
            assert seat.user_id is not None
            try:
                move = await asyncio.to_thread(self.brains.choose, info.kind, level, snap.state)
                if lease.lost:
                    return  # another process took the turn over while this one thought
                await games.submit(game_id, seat.user_id, move, info.version)
            except StaleVersionError:
                stale += 1
                if stale > _MAX_STALE_RETRIES:
                    return
                continue
            except (NotYourTurnError, GameClosedError, BannedError):
                return  # (a banned bot account: its games wait until the ban is lifted)
            except DatabaseFailure:
                raise  # not the bot's fault: the game is tried again (see _stall)
            except ValueError:
                # A bot bug (a move the rules refuse, an engine error) must not stall
                # the game: log it and make the first legal move instead, once.
                log.exception("bot %s failed in game %d; first legal move instead", level, game_id)
                if not await self._first_legal_move(game_id, seat.user_id, snap):
                    return
            self.moves_made += 1
        log.warning("bots stopped after %d actions in game %d", _MAX_ACTIONS_PER_WAKE, game_id)

    async def _first_legal_move(self, game_id: int, user_id: int, snap: GameSnapshot) -> bool:
        """Submit the rules' first legal move; False if that fails too."""
        games = self.services.games
        try:
            rules = games.registry[snap.info.kind]
            legal = rules.legal_moves(snap.state)
            if not legal:
                return False
            text = rules.format_move(snap.state, legal[0])
            await games.submit(game_id, user_id, text, snap.info.version)
        except DatabaseFailure:
            raise
        except (ValueError, KeyError):
            log.exception("bot could not move at all in game %d", game_id)
            return False
        return True

    # --- when the database cannot write ----------------------------------------------------

    def _stall(self, game_id: int) -> None:
        """Keep a game whose move could not be saved, to try it again (see the module
        docstring); the timer backs off while the tries keep failing."""
        self._stalled.add(game_id)
        if self._stall_timer is None or self._stall_timer.done():
            self._stall_failures += 1
            delay = self.stall_backoff.delay(self._stall_failures)
            log.warning("bots: could not save a move; trying again in %.2f s", delay)
            self._stall_timer = asyncio.create_task(
                self._retry_stalled(delay), name="door-bots-stalled"
            )

    async def _retry_stalled(self, delay: float) -> None:
        await asyncio.sleep(delay)
        self._stall_timer = None
        self._wake_stalled()

    def _wake_stalled(self) -> None:
        stalled, self._stalled = self._stalled, set()
        for game_id in sorted(stalled):
            self._wake(game_id)

    def _writes_recovered(self) -> None:
        """The database saved something again: every stalled game, now."""
        self._stall_failures = 0
        if self._stall_timer is not None:
            self._stall_timer.cancel()
            self._stall_timer = None
        self._wake_stalled()

    # --- hints and reviews -----------------------------------------------------------------

    def levels(self, kind: str) -> list[tuple[str, str]]:
        """The bot levels of ``kind``: (level name, description), weakest first."""
        return levels(kind)

    async def hint(self, kind: str, state: Any, n: int = 3) -> list[tuple[str, str]]:
        """The best ``n`` moves for the seat to act, best first: (move text, worth).

        Backgammon: the equity after each play, e.g. ``("13/9 6/5", "+0.123")`` (bgsage
        where present, else the fallback evaluator; cube decisions give each choice's
        equity). Spectrangle: the best-scoring placements, e.g. ``("RGY3@11:1",
        "score 24")``, or pass/swap when nothing fits. Whether hints are allowed in a game
        is the caller's check (``GameInfo.hints_allowed``).
        """
        return await asyncio.to_thread(self.brains.hint, kind, state, n)

    async def game_hint(self, game_id: int, user_id: int, n: int = 3) -> list[tuple[str, str]]:
        """:meth:`hint` for ``user_id``'s turn in a game, if the game allows hints.

        :class:`Refusal` (a message fit to show): hints are off in this game (its creator
        did not allow them), or it is not the user's turn.
        """
        snap = await self.services.games.get(game_id, user_id)
        info = snap.info
        if not info.hints_allowed:
            raise Refusal("hints are off in this game")
        if not info.is_waiting_on(user_id):
            raise Refusal("hints are for the player whose turn it is")
        return await self.hint(info.kind, snap.state, n)

    async def review(self, game_id: int, *, worst: int = 5) -> bgengine.GameReview:
        """Review a finished backgammon game: each seat's error rate and its ``worst``
        biggest mistakes.

        :class:`Refusal` with a reason fit to show for a game that is not backgammon, not
        finished, or when bgsage is not available on this machine; any other exception
        is a bug (a log that does not replay is a
        :class:`~door.games.replay.ReplayError`).
        """
        games = self.services.games
        snap = await games.get(game_id)
        info = snap.info
        if info.kind != "backgammon":
            raise Refusal("only backgammon games can be reviewed")
        if info.status not in ("finished", "abandoned"):
            raise Refusal("a game can be reviewed once it is over")
        if not bgengine.has_bgsage():
            raise Refusal("game review needs the bgsage engine, which this server lacks")
        # A game that is over never changes, so its review is kept; people asking for
        # the same review at once share one analysis, which goes on (and is kept) even
        # if they all stop waiting.
        key = (game_id, info.last_seq, worst)
        done = self._reviews.get(key)
        if done is not None:
            self._reviews.move_to_end(key)
            return done
        task = self._reviewing.get(key)
        if task is None:
            task = asyncio.create_task(self._analyse(key, dict(info.options)))
            task.add_done_callback(_retrieve)
            self._reviewing[key] = task
        return await asyncio.shield(task)

    async def _analyse(
        self, key: tuple[int, int, int], options: dict[str, Any]
    ) -> bgengine.GameReview:
        game_id, _, worst = key
        try:
            events = await self.services.games.events(game_id)

            def analyse() -> bgengine.GameReview:
                # The engine is built here, off the event loop: with lazy loading the
                # first review may be what loads the networks.
                engine = self.brains.engine("bg-expert")
                return bgengine.review_log(engine, options, events, worst=worst)

            # One review at a time: each takes seconds of CPU, and the bots' moves must
            # not queue behind several of them.
            async with self._review_slot:
                review = await asyncio.to_thread(analyse)
            self._reviews[key] = review
            while len(self._reviews) > _REVIEWS_KEPT:
                self._reviews.popitem(last=False)
            return review
        finally:
            self._reviewing.pop(key, None)


def _retrieve(task: asyncio.Task[Any]) -> None:
    """Mark a shared task's failure as seen (its waiters may all have gone)."""
    if not task.cancelled():
        task.exception()


def _has_backgammon_bot(info: Any) -> bool:
    """True for a backgammon game, not yet over, with a bot in one of its seats."""
    return (
        info.kind == "backgammon"
        and info.status in ("open", "active")
        and any(s.kind == "bot" for s in info.seats)
    )


def _bot_to_act(info: Any) -> Any | None:
    """The seat (``SeatInfo``) of the bot that must act now in a running game, else None."""
    if info.status != "active" or info.to_act is None:
        return None
    for s in info.seats:
        if s.seat == info.to_act and s.kind == "bot" and s.user_id is not None:
            return s
    return None
