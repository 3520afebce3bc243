"""Tournaments that run themselves: create, enter, start, advance round by round, finish.

Every step that changes a tournament is one transaction that first locks its row
(``TournamentRepo.lock``: ``FOR UPDATE`` on PostgreSQL; SQLite's writes are one at a time)
and then looks at what is there: a round is made only when every table of the one before
has its result, and it is written (its games through the lobby, its tables, the count
``rounds_made``) in that same transaction, so advancing is idempotent — a second process,
a retry after kill -9, or the periodic sweep finds the round made and does nothing. The
next round is asked for as soon as a tournament game finishes (``on_game_finished``,
hooked to the game service's after-commit), and the sweep (``sweep``) catches any a crash
left between a game's end and its round's advance.

The pairings are the format's (door/services/tournaments/formats.py), recomputed from
the stored entrants and results, which is what ``door check`` does too (``audit``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from door.services.clock import Clock
from door.services.games import GameService, GameSnapshot, LobbyError
from door.services.games.core import Change
from door.services.ratings import starting_rating
from door.services.timecontrol import ClockOptions, span_text
from door.services.tournaments import (
    Entrant,
    Format,
    GameResult,
    Ladder,
    Standing,
    Table,
    make_format,
)
from door.services.tournaments.roundrobin import DRAW_LATEST
from door.store.db import Database
from door.store.records import EntryRecord, JSONObject, TableRecord, TournamentRecord
from door.store.repository import ConflictError, Repository
from door.store.tournaments import TournamentRepo

log = logging.getLogger(__name__)

FORMATS = ("knockout", "roundrobin", "swiss", "ladder")
STATUSES = ("open", "running", "finished", "cancelled", "template")
MAX_SIZE = 4096


class TournamentError(Exception):
    """A tournament action refused, with a message for people."""


@dataclass(frozen=True)
class TournamentView:
    """A tournament as the screens and the command line show it."""

    record: TournamentRecord
    entries: tuple[EntryRecord, ...]
    tables: tuple[TableRecord, ...]
    standings: tuple[Standing, ...]
    winner_name: str | None

    @property
    def id(self) -> int:
        return self.record.id

    def name_of(self, user_id: int) -> str:
        for e in self.entries:
            if e.user_id == user_id:
                return e.user_name
        return f"#{user_id}"

    def as_json(self) -> JSONObject:
        t = self.record
        return {
            "id": t.id, "name": t.name, "game": t.kind, "format": t.format,
            "status": t.status, "size": t.size, "rounds": t.rounds_made,
            "entrants": [e.user_name for e in self.entries if not e.withdrawn],
            "winner": self.winner_name, "note": t.note, "clock": clock_json(clock_of(t)),
            "started_at": None if t.started_at is None else t.started_at.isoformat(),
            "finished_at": None if t.finished_at is None else t.finished_at.isoformat(),
            "standings": [
                {"rank": s.rank, "player": self.name_of(s.user_id), "points": s.points,
                 "played": s.played, "won": s.won}
                for s in self.standings
            ],
            "games": [
                {"round": tab.round_no, "table": tab.table_no, "game": tab.game_id,
                 "players": [self.name_of(u) for u in tab.seats], "status": tab.game_status}
                for tab in self.tables
            ],
        }  # fmt: skip


def placing_of(table: TableRecord) -> tuple[int, ...] | None:
    """The table's players best first, from its game's outcome (a bye: its one player);
    None while the game is not over. Equal places keep seat order."""
    if table.game_id is None:
        return table.seats
    if table.game_status not in ("finished", "abandoned") or table.outcome is None:
        if table.game_status == "abandoned":
            return table.seats
        return None
    places = list(table.outcome.get("placings") or [])  # type: ignore[arg-type]
    if len(places) != len(table.seats):
        return None
    order = sorted(range(len(table.seats)), key=lambda i: (int(places[i]), i))  # type: ignore[arg-type]
    return tuple(table.seats[i] for i in order)


def results_of(tables: Sequence[TableRecord]) -> list[GameResult]:
    """Every finished table as the format's ``GameResult``."""
    out = []
    for tab in tables:
        placing = placing_of(tab)
        if placing is not None:
            out.append(GameResult(tab.round_no, tab.seats, placing))
    return out


def entrants_of(entries: Sequence[EntryRecord]) -> list[Entrant]:
    return [Entrant(e.user_id, e.rating) for e in entries if not e.withdrawn]


def clock_of(t: TournamentRecord) -> ClockOptions:
    """The clock every game of ``t`` gets: the one it was created with (time per move,
    bank, weekends off), or, for an event stored before it had one, its per-move
    ``deadline_hours`` with no bank."""
    o = t.options
    given = o.get("clock")
    if isinstance(given, dict):
        return ClockOptions(
            int(given.get("move_s", 7 * 86400)),  # type: ignore[arg-type]
            int(given.get("bank_s", 0)),  # type: ignore[arg-type]
            bool(given.get("weekends_off", False)),
        )
    return ClockOptions(int(o.get("deadline_hours", 168)) * 3600, 0, False)  # type: ignore[arg-type]


def clock_json(c: ClockOptions) -> JSONObject:
    return {"move_hours": c.move_s // 3600, "bank_days": c.bank_s / 86400,
            "weekends_off": c.weekends_off}  # fmt: skip


def clock_text(c: ClockOptions) -> str:
    """The clock in words: ``3d a move, bank 5d, weekends off``."""
    bank = f"bank {span_text(c.bank_s)}" if c.bank_s else "no bank"
    return f"{span_text(c.move_s)} a move, {bank}" + (", weekends off" if c.weekends_off else "")


def checked_clock(c: ClockOptions) -> ClockOptions:
    """``c`` if it is a clock a game may have; ``TournamentError`` says why not."""
    if not isinstance(c, ClockOptions):
        raise TournamentError("the clock is not a clock")
    problem = c.problem()
    if problem is not None:
        raise TournamentError(problem)
    return c


def format_of(t: TournamentRecord) -> Format:
    o = t.options
    rounds = o.get("rounds")
    return make_format(
        t.format,
        table_size=int(o.get("table_size", 2) or 2),  # type: ignore[arg-type]
        rounds=None if rounds is None else int(rounds),  # type: ignore[arg-type]
        draw=int(o.get("draw", 1) or 1),  # type: ignore[arg-type]  # none stored: draw 1
    )


class Tournaments:
    """The tournament use-cases (built once per process, beside the game service)."""

    def __init__(
        self, db: Database, games: GameService, clock: Clock, *,
        players_may_create: bool = False, bot_levels: dict[str, tuple[str, ...]] | None = None,
    ) -> None:  # fmt: skip
        self.db = db
        self.games = games
        self.clock = clock
        self.players_may_create = players_may_create
        if bot_levels is None:
            from door.services.bots import level_names

            bot_levels = level_names()
        self.bot_levels = bot_levels
        self.advances = 0
        """Rounds this process made (the exactly-once tests count them)."""
        self.advance_ms: list[float] = []
        """For each round made by the hook: ms from the game's end to the round's games."""
        self._tasks: set[asyncio.Task[Any]] = set()
        games.notices.on_finished.append(self.on_game_finished)

    # --- creating ---------------------------------------------------------------------

    async def create(
        self, creator_id: int | None, name: str, kind: str, fmt: str, size: int, *,
        match_length: int = 1, cube: bool = True, table_size: int = 2,
        rounds: int | None = None, min_entrants: int = 2, min_rating: float | None = None,
        bots_allowed: bool = True, starts_at: datetime | None = None,
        deadline_hours: int | None = None, fill_with_bots: str | None = None,
        recurring: bool = False, reach: int = 3, ladder_days: int = 60,
        clock: ClockOptions | None = None, start_now: bool = True,
    ) -> int:  # fmt: skip
        """A new tournament open for entry (a template too, with ``recurring``); its id.

        ``fill_with_bots`` enters computer players of that level into every open place
        (distinct accounts: ``LEVEL-2``, ``LEVEL-3``, …), so the event is full at once.
        ``start_now=False`` leaves the start to the server's sweep (``door tournament
        create`` in its own process: the running server then makes the games, and its
        bots hear of them). ``clock``: every game's time per move, each player's bank
        and weekends off, as a Begin game has them (it wins over ``deadline_hours``)."""
        name = " ".join(str(name).split())[:80]
        if not name or not all(ch.isprintable() for ch in name):
            raise TournamentError("give the tournament a name")
        if fmt not in FORMATS:
            raise TournamentError(f"the format must be one of {', '.join(FORMATS)}")
        rules = self.games.rules_for(kind)  # LobbyError for no such game
        if not isinstance(size, int) or not 2 <= size <= MAX_SIZE:
            raise TournamentError(f"the size must be from 2 to {MAX_SIZE} players")
        if kind == "backgammon":
            table_size = 2
        if not rules.min_seats <= table_size <= rules.max_seats:
            raise TournamentError(
                f"{rules.title} tables are of {rules.min_seats} to {rules.max_seats} players"
            )
        if fmt == "ladder" and table_size != 2:
            raise TournamentError("a ladder's challenges are two-player games")
        if clock is not None:
            deadline_hours = checked_clock(clock).move_s // 3600
        if deadline_hours is None:
            deadline_hours = self.games.lobby.default_deadline_hours
        options: dict[str, Any] = {"table_size": table_size, "deadline_hours": deadline_hours}
        game_opts: dict[str, Any] = {}
        if kind == "backgammon":
            game_opts = {"match_length": int(match_length), "cube": bool(cube)}
        options["game"] = self._check_game(kind, game_opts, table_size, deadline_hours)
        if clock is None:
            clock = checked_clock(ClockOptions(int(deadline_hours) * 3600, 0, False))
        options["clock"] = _clock_option(clock)  # issue 18's clock, given to each game
        if rounds is not None:
            options["rounds"] = int(rounds)
        if fmt == "roundrobin":
            options["draw"] = DRAW_LATEST  # the table draw this event keeps to its end
        if fmt == "ladder":
            options["reach"] = int(reach)
            options["ladder_days"] = int(ladder_days)
            options["applied"] = []
        else:
            try:
                make_format(fmt, table_size=table_size, rounds=rounds)
            except ValueError as exc:
                raise TournamentError(str(exc)) from None
        level = None
        if fill_with_bots:
            level = self._level(kind, fill_with_bots)
            options["fill_with_bots"] = level
        now = self.clock.now()
        record = TournamentRecord(
            id=0, name=name, kind=kind, format=fmt, options=options, size=size,
            min_entrants=max(2, min(int(min_entrants), size)), min_rating=min_rating,
            bots_allowed=bool(bots_allowed or level), status="template" if recurring else "open",
            rounds_made=0, winner_id=None, template_id=None, created_by=creator_id,
            created_at=now, opens_at=now, starts_at=starts_at, started_at=None,
            finished_at=None, note="", version=0,
        )  # fmt: skip

        def action(repo: Repository) -> int:
            if creator_id is not None:
                user = repo.user(creator_id)
                if user is None:
                    raise TournamentError("no such user")
                if not (user.is_sysop or self.players_may_create):
                    raise TournamentError("only sysops may create tournaments here")
            tr = repo.tournaments()
            tid = tr.insert(record)
            if recurring:
                edition = replace(record, status="open", template_id=tid)
                tid = tr.insert(edition)
            if level is not None:
                self._fill_with_bots(repo, tr, tid, kind, level, size, now)
            return tid

        tid = await self.db.transact(action)
        if start_now:
            await self.advance(tid)
        return tid

    def _check_game(
        self, kind: str, game_opts: dict[str, Any], table_size: int, deadline_hours: int = 168
    ) -> dict[str, Any]:
        """The game options complete, as the lobby checks a Begin game's."""
        from door.services.games.lobby import _checked
        from door.services.games.model import SeatSpec

        try:
            rules = self.games.rules_for(kind)
            seats = [SeatSpec("open")] * table_size
            return _checked(rules, game_opts, seats, deadline_hours)
        except LobbyError as exc:
            raise TournamentError(str(exc)) from None

    def _level(self, kind: str, asked: str) -> str:
        for level in self.bot_levels.get(kind, ()):
            if level.casefold() == asked.strip().casefold():
                return level
        raise TournamentError(
            f"there is no computer player called {asked[:40]!r}; choose one of "
            + ", ".join(self.bot_levels.get(kind, ()))
        )

    def level_of(self, kind: str, name: str) -> str | None:
        """The bot level an account plays at: its own name, or LEVEL-N."""
        for level in self.bot_levels.get(kind, ()):
            if name == level or re.fullmatch(re.escape(level) + r"-\d+", name):
                return level
        return None

    def _fill_with_bots(
        self, repo: Repository, tr: TournamentRepo, tid: int, kind: str, level: str,
        size: int, now: datetime,
    ) -> None:  # fmt: skip
        from door.services.accounts import name_key

        entered = {e.user_id for e in tr.entries(tid) if not e.withdrawn}
        n = 1
        while len(entered) < size:
            account = level if n == 1 else f"{level}-{n}"
            n += 1
            found = repo.user_by_key(name_key(account))
            if found is None:
                uid = repo.insert_user(account, name_key(account), None, True, now, {})
            elif found.is_bot:
                uid = found.id
            else:
                continue
            if uid in entered:
                continue
            tr.insert_entry(self._entry(repo, tid, kind, uid, now))
            entered.add(uid)

    def _entry(self, repo: Repository, tid: int, kind: str, uid: int, now: datetime) -> EntryRecord:
        rating = repo.ratings(kind, [uid]).get(uid)
        if rating is None:
            # unrated: seeded where a first game would start them (a computer account at
            # its level's rating)
            user = repo.user(uid)
            level = self.level_of(kind, user.name) if user is not None and user.is_bot else None
            seed = starting_rating(kind, level)
        else:
            seed = float(rating.rating)
        return EntryRecord(
            tid,
            uid,
            seed,
            now,
            False,
            False,
            None,
        )

    # --- entering -----------------------------------------------------------------------

    async def enter(self, tid: int, user_id: int) -> None:
        """Enter an open tournament; it starts when this fills it."""
        now = self.clock.now()

        def action(repo: Repository) -> None:
            tr = repo.tournaments()
            t = tr.lock(tid)
            if t is None:
                raise TournamentError(f"there is no tournament {tid}")
            if t.status != "open":
                raise TournamentError("that tournament is not open for entry")
            user = repo.user(user_id)
            if user is None or user.is_banned:
                raise TournamentError("you cannot enter (no such user, or banned)")
            if user.is_bot and not t.bots_allowed:
                raise TournamentError("computer players may not enter this one")
            entries = tr.entries(tid)
            mine = [e for e in entries if e.user_id == user_id]
            if mine and not mine[0].withdrawn:
                raise TournamentError("you have entered already")
            if sum(1 for e in entries if not e.withdrawn) >= t.size:
                raise TournamentError("that tournament is full")
            entry = self._entry(repo, tid, t.kind, user_id, now)
            if t.min_rating is not None and entry.rating < t.min_rating:
                raise TournamentError(f"it needs a rating of at least {t.min_rating:.0f}")
            if mine:
                tr.save_entry(replace(mine[0], withdrawn=False))
            else:
                tr.insert_entry(entry)

        await self.db.transact(action)
        await self.advance(tid)

    async def withdraw(self, tid: int, user_id: int) -> None:
        """Withdraw before the start; in a running event, leave it (forfeit the rest:
        the game being played is resigned)."""
        resign: list[int] = []

        def action(repo: Repository) -> None:
            tr = repo.tournaments()
            t = tr.lock(tid)
            if t is None:
                raise TournamentError(f"there is no tournament {tid}")
            mine = [e for e in tr.entries(tid) if e.user_id == user_id and not e.withdrawn]
            if not mine or mine[0].forfeited:
                raise TournamentError("you are not in that tournament")
            if t.status == "open":
                tr.save_entry(replace(mine[0], withdrawn=True))
            elif t.status == "running":
                tr.save_entry(replace(mine[0], forfeited=True))
                resign.extend(
                    tab.game_id for tab in tr.tables(tid)
                    if tab.game_id is not None and tab.game_status == "active"
                    and user_id in tab.seats
                )  # fmt: skip
            else:
                raise TournamentError("that tournament is over")

        await self.db.transact(action)
        for game_id in resign:
            with contextlib.suppress(LobbyError):  # over meanwhile
                await self.games.resign(game_id, user_id)
        await self.advance(tid)

    async def cancel(self, tid: int, note: str = "cancelled by the sysop") -> None:
        now = self.clock.now()

        def action(repo: Repository) -> None:
            tr = repo.tournaments()
            t = tr.lock(tid)
            if t is None:
                raise TournamentError(f"there is no tournament {tid}")
            if t.status in ("finished", "cancelled"):
                raise TournamentError("that tournament is over already")
            new = replace(t, status="cancelled", finished_at=now, note=note, version=t.version + 1)
            tr.save(new, t.version)

        await self.db.transact(action)

    async def edit(
        self, tid: int, *, name: str | None = None, size: int | None = None,
        starts_at: datetime | None = None, clock: ClockOptions | None = None,
        match_length: int | None = None, min_entrants: int | None = None,
        move_s: int | None = None, bank_s: int | None = None, weekends_off: bool | None = None,
    ) -> None:  # fmt: skip
        """Change a tournament that has not started: its name, size, start time, its
        games' clock and match length, how few may start it. ``move_s``, ``bank_s`` and
        ``weekends_off`` change one part of the clock (over ``clock``, if given too) and
        keep the rest as stored, read in the same transaction that writes: an edit made
        meanwhile by someone else is not undone."""
        if clock is not None:
            checked_clock(clock)
        partial = (move_s, bank_s, weekends_off) != (None, None, None)

        def action(repo: Repository) -> None:
            tr = repo.tournaments()
            t = tr.lock(tid)
            if t is None:
                raise TournamentError(f"there is no tournament {tid}")
            if t.status not in ("open", "template"):
                raise TournamentError("a tournament can be changed only before it starts")
            new = t
            if name is not None:
                clean = " ".join(name.split())[:80]
                if not clean:
                    raise TournamentError("give the tournament a name")
                new = replace(new, name=clean)
            if size is not None:
                if not 2 <= size <= MAX_SIZE:
                    raise TournamentError(f"the size must be from 2 to {MAX_SIZE} players")
                entered = sum(1 for e in tr.entries(tid) if not e.withdrawn)
                if size < entered:
                    raise TournamentError(f"{entered} have entered already: no fewer places")
                new = replace(new, size=size, min_entrants=min(new.min_entrants, size))
            if starts_at is not None:
                new = replace(new, starts_at=starts_at)
            if min_entrants is not None:
                if not 2 <= min_entrants <= new.size:
                    raise TournamentError(f"at least 2 and at most {new.size} must enter")
                new = replace(new, min_entrants=min_entrants)
            opts = dict(new.options)
            merged = clock
            if partial:
                was = clock if clock is not None else clock_of(t)
                merged = checked_clock(ClockOptions(
                    was.move_s if move_s is None else move_s,
                    was.bank_s if bank_s is None else bank_s,
                    was.weekends_off if weekends_off is None else weekends_off,
                ))  # fmt: skip
            if merged is not None:
                opts["clock"] = _clock_option(merged)
                opts["deadline_hours"] = merged.move_s // 3600
            if match_length is not None:
                if new.kind != "backgammon":
                    raise TournamentError("only backgammon has a match length")
                given = opts.get("game")
                game = dict(given) if isinstance(given, dict) else {}
                game["match_length"] = int(match_length)
                table_size = int(opts.get("table_size", 2))  # type: ignore[arg-type]
                opts["game"] = self._check_game(new.kind, game, table_size)
            new = replace(new, options=opts)
            tr.save(replace(new, version=t.version + 1), t.version)

        await self.db.transact(action)
        await self.advance(tid)

    # --- the ladder ---------------------------------------------------------------------

    async def challenge(self, tid: int, challenger: int, target: int) -> int:
        """A ladder challenge: a game between the two; its id."""
        now = self.clock.now()
        made: list[tuple[GameSnapshot, Change]] = []

        def action(repo: Repository) -> int:
            tr = repo.tournaments()
            t = tr.lock(tid)
            if t is None or t.format != "ladder":
                raise TournamentError("there is no such ladder")
            if t.status != "running":
                raise TournamentError("that ladder is not running")
            entries = [e for e in tr.entries(tid) if not e.withdrawn and not e.forfeited]
            positions = _positions(entries)
            ladder = Ladder(int(t.options.get("reach", 3)))  # type: ignore[arg-type]
            if challenger not in positions or target not in positions:
                raise TournamentError("both players must be on the ladder")
            busy = {u for tab in tr.tables(tid) if placing_of(tab) is None for u in tab.seats}
            if challenger in busy or target in busy:
                raise TournamentError("one of you has a challenge being played already")
            if not ladder.may_challenge(positions, challenger, target):
                raise TournamentError("you may challenge only players a few places above you")
            round_no = t.rounds_made + 1
            table = Table((challenger, target))
            game_id = self._make_game(repo, tr, t, entries, round_no, 0, table, now, made)
            tr.save(replace(t, rounds_made=round_no, version=t.version + 1), t.version)
            return game_id or 0

        game_id = await self.db.transact(action)
        for snapshot, change in made:
            self.games.notices.after_commit(snapshot, change)
        return game_id

    # --- advancing ----------------------------------------------------------------------

    def on_game_finished(self, snapshot: GameSnapshot) -> None:
        """The hook: a game ended; advance its tournament, if it is in one."""
        game_id = snapshot.info.id
        ended = snapshot.info.updated_at
        task = asyncio.ensure_future(self._after_game(game_id, ended))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _after_game(self, game_id: int, ended: datetime) -> None:
        try:
            tid = await self.db.run_read(lambda repo: repo.tournaments().of_game(game_id))
            if tid is not None:
                made = await self.advance(tid)
                if made:
                    self.advance_ms.append(
                        max(0.0, (self.clock.now() - ended).total_seconds() * 1000)
                    )
        except Exception:  # the sweep tries again; a hook must not break the game path
            log.exception("tournament advance after game %d failed", game_id)

    async def settle(self) -> None:
        """Wait for every advance the hook started (tests, shutdown)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    async def sweep(self) -> int:
        """Advance every open or running tournament that is due (a crash's leftovers, a
        start time reached, a ladder's end); how many rounds or closings were made."""
        ids = await self.db.run_read(lambda repo: repo.tournaments().due_ids())
        done = 0
        for tid in ids:
            try:
                done += await self.advance(tid)
            except Exception:
                log.exception("tournament %d: the sweep could not advance it", tid)
        return done

    async def advance(self, tid: int) -> int:
        """Do what is due in tournament ``tid`` now — start it (or cancel it), make the
        next round, close it — each step once; how many steps were taken."""
        steps = 0
        for _ in range(64):  # rounds of byes only follow each other at once
            made: list[tuple[GameSnapshot, Change]] = []
            followers: list[int] = []

            def action(
                repo: Repository,
                made: list[tuple[GameSnapshot, Change]] = made,
                followers: list[int] = followers,
            ) -> bool:
                return self._advance_in(repo, tid, made, followers)

            step = await self.db.transact(action)
            for snapshot, change in made:
                self.games.notices.after_commit(snapshot, change)
            if not step:
                break
            steps += 1
            for follower in followers:
                await self.advance(follower)
        return steps

    def _advance_in(
        self, repo: Repository, tid: int, made: list[tuple[GameSnapshot, Change]],
        followers: list[int],
    ) -> bool:  # fmt: skip
        made.clear()
        followers.clear()
        tr = repo.tournaments()
        t = tr.lock(tid)
        if t is None:
            return False
        now = self.clock.now()
        entries = tr.entries(tid)
        active = [e for e in entries if not e.withdrawn]
        if t.status == "open":
            due = len(active) >= t.size or (t.starts_at is not None and now >= t.starts_at)
            if not due:
                return False
            if len(active) < t.min_entrants:
                note = f"cancelled: only {len(active)} entered (at least {t.min_entrants} needed)"
                tr.save(replace(t, status="cancelled", finished_at=now, note=note,
                                version=t.version + 1), t.version)  # fmt: skip
                return True
            opts = dict(t.options)
            if t.format == "ladder":
                # places by rating, strongest on top
                ordered = sorted(active, key=lambda e: (-e.rating, e.user_id))
                for i, e in enumerate(ordered):
                    tr.save_entry(replace(e, position=i + 1))
                days = int(opts.get("ladder_days", 60))  # type: ignore[arg-type]
                opts["ends_at"] = (now + timedelta(days=days)).isoformat()
            tr.save(replace(t, status="running", started_at=now, options=opts,
                            version=t.version + 1), t.version)  # fmt: skip
            if t.template_id is not None:
                self._next_edition(repo, tr, t, now, followers)  # filled: the next opens
            return True
        if t.status != "running":
            return False
        if t.format == "ladder":
            return self._ladder_in(repo, tr, t, entries, now)
        fmt = format_of(t)
        tables = tr.tables(tid)
        if any(placing_of(tab) is None for tab in tables):
            return False  # a game of the round is still being played
        results = results_of(tables)
        entrants = entrants_of(entries)
        absent = frozenset(e.user_id for e in entries if e.forfeited)
        if t.rounds_made >= 1 and fmt.is_finished(entrants, results):
            winner = fmt.winner(entrants, results)
            tr.save(replace(t, status="finished", finished_at=now, winner_id=winner,
                            version=t.version + 1), t.version)  # fmt: skip
            if t.template_id is not None:
                self._next_edition(repo, tr, t, now, followers, finished=True)
            return True
        round_no = t.rounds_made + 1
        pairing = fmt.pair(round_no, entrants, results, absent=absent)
        for i, table in enumerate(pairing):
            self._make_game(repo, tr, t, entries, round_no, i, table, now, made)
        tr.save(replace(t, rounds_made=round_no, version=t.version + 1), t.version)
        self.advances += 1
        return True

    def _make_game(
        self, repo: Repository, tr: TournamentRepo, t: TournamentRecord,
        entries: Sequence[EntryRecord], round_no: int, table_no: int, table: Table,
        now: datetime, made: list[tuple[GameSnapshot, Change]],
    ) -> int | None:  # fmt: skip
        game_id = None
        if len(table.seats) > 1:
            by_id = {e.user_id: e for e in entries}
            players = []
            for uid in table.seats:
                e = by_id[uid]
                players.append((uid, self.level_of(t.kind, e.user_name) if e.is_bot else None))
            given = t.options.get("game")
            opts = dict(given) if isinstance(given, dict) else {}
            creator = t.created_by if t.created_by is not None else table.seats[0]
            clock = clock_of(t)
            snapshot, change = self.games.lobby.create_seated(
                repo, creator, t.kind, opts, players, clock.move_s // 3600, now, clock=clock
            )
            game_id = snapshot.info.id
            made.append((snapshot, change))
        try:
            tr.insert_table(TableRecord(t.id, round_no, table_no, table.seats, game_id))
        except ConflictError:
            raise RuntimeError(f"tournament {t.id}: round {round_no} made twice") from None
        return game_id

    def _ladder_in(
        self, repo: Repository, tr: TournamentRepo, t: TournamentRecord,
        entries: Sequence[EntryRecord], now: datetime,
    ) -> bool:  # fmt: skip
        given = t.options.get("applied")
        applied: set[int] = set()
        if isinstance(given, list):
            applied = {x for x in given if isinstance(x, int)}
        tables = tr.tables(t.id)
        live = [e for e in entries if not e.withdrawn]
        positions = _positions([e for e in live if not e.forfeited])
        ladder = Ladder(int(t.options.get("reach", 3)))  # type: ignore[arg-type]
        changed = False
        for tab in tables:
            placing = placing_of(tab)
            if tab.round_no in applied or placing is None:
                continue
            challenger, target = tab.seats
            if challenger in positions and target in positions:
                positions = ladder.after_result(positions, challenger, target, placing[0])
            applied.add(tab.round_no)
            changed = True
        ends = t.options.get("ends_at")
        over = isinstance(ends, str) and now >= datetime.fromisoformat(ends)
        pending = any(placing_of(tab) is None for tab in tables)
        if not changed and not (over and not pending):
            return False
        if changed:
            for e in live:
                pos = positions.index(e.user_id) + 1 if e.user_id in positions else None
                if pos != e.position:
                    tr.save_entry(replace(e, position=pos))
        opts = dict(t.options)
        opts["applied"] = [*sorted(applied)]
        new = replace(t, options=opts, version=t.version + 1)
        if over and not pending:
            new = replace(new, status="finished", finished_at=now,
                          winner_id=positions[0] if positions else None)  # fmt: skip
        tr.save(new, t.version)
        return True

    def _next_edition(
        self, repo: Repository, tr: TournamentRepo, t: TournamentRecord, now: datetime,
        followers: list[int], *, finished: bool = False,
    ) -> None:  # fmt: skip
        """A recurring event's next edition, opened once: when this one fills (starts)
        or, if another is already open, not again."""
        assert t.template_id is not None
        template = tr.get(t.template_id)
        if template is None or template.status != "template":
            return
        if any(o.template_id == t.template_id for o in tr.by_status(["open"], 1000)):
            return
        options = dict(template.options)
        if template.format == "roundrobin":
            options["draw"] = DRAW_LATEST  # a new edition draws as new events do
        edition = replace(template, id=0, status="open", template_id=template.id,
                          created_at=now, opens_at=now, starts_at=None, version=0,
                          options=options)  # fmt: skip
        new_id = tr.insert(edition)
        level = template.options.get("fill_with_bots")
        if isinstance(level, str):
            self._fill_with_bots(repo, tr, new_id, template.kind, level, template.size, now)
            followers.append(new_id)

    # --- reading ------------------------------------------------------------------------

    async def show(self, tid: int) -> TournamentView:
        def read(repo: Repository) -> TournamentView:
            tr = repo.tournaments()
            t = tr.get(tid)
            if t is None:
                raise TournamentError(f"there is no tournament {tid}")
            return self._view(repo, tr, t)

        return await self.db.run_read(read)

    def _view(self, repo: Repository, tr: TournamentRepo, t: TournamentRecord) -> TournamentView:
        entries = tr.entries(t.id)
        tables = tr.tables(t.id)
        standings: list[Standing] = []
        if t.format == "ladder":
            ordered = sorted(
                (e for e in entries if e.position is not None), key=lambda e: e.position or 0
            )
            standings = [Standing(e.user_id, e.position or 0, 0.0, (), 0, 0) for e in ordered]
        elif t.status in ("running", "finished"):
            standings = format_of(t).standings(entrants_of(entries), results_of(tables))
        winner = None
        if t.winner_id is not None:
            user = repo.user(t.winner_id)
            winner = user.name if user is not None else None
        return TournamentView(t, tuple(entries), tuple(tables), tuple(standings), winner)

    async def listing(
        self, statuses: Sequence[str] = ("open", "running", "finished")
    ) -> list[TournamentRecord]:
        """Tournaments of these statuses, newest first."""
        wanted = [*statuses]
        return await self.db.run_read(lambda repo: repo.tournaments().by_status(wanted))

    async def entered_by(self, user_id: int) -> list[TournamentView]:
        def read(repo: Repository) -> list[TournamentView]:
            tr = repo.tournaments()
            out = []
            for tid in tr.entered_by(user_id):
                t = tr.get(tid)
                if t is not None:
                    out.append(self._view(repo, tr, t))
            return out

        return await self.db.run_read(read)

    async def audit(self) -> list[str]:
        """``door check``: every tournament against its games — each round's tables as
        the format pairs them from the rounds before, every round complete before the
        next, the stored winner the format's. A line for each problem."""

        def read(repo: Repository) -> list[str]:
            tr = repo.tournaments()
            problems: list[str] = []
            for tid in tr.all_ids():
                t = tr.get(tid)
                if t is None or t.format == "ladder" or t.status in ("open", "template"):
                    continue
                problems.extend(audit_one(t, tr.entries(tid), tr.tables(tid)))
            return problems

        return await self.db.run_read(read)


def audit_one(
    t: TournamentRecord, entries: Sequence[EntryRecord], tables: Sequence[TableRecord]
) -> list[str]:
    """What is wrong with one (non-ladder) tournament, recomputed from its games."""
    out: list[str] = []
    if t.status == "cancelled" and not tables:
        return out
    fmt = format_of(t)
    entrants = entrants_of(entries)
    results = results_of(tables)
    by_round: dict[int, list[TableRecord]] = {}
    for tab in tables:
        by_round.setdefault(tab.round_no, []).append(tab)
    if sorted(by_round) != list(range(1, t.rounds_made + 1)):
        out.append(f"tournament {t.id}: rounds {sorted(by_round)} but {t.rounds_made} made")
    absent = frozenset(e.user_id for e in entries if e.forfeited)
    for r in sorted(by_round):
        earlier = [x for x in results if x.round_no < r]
        if len([tab for tab in tables if tab.round_no < r]) != len(earlier):
            out.append(f"tournament {t.id}: round {r} was made before round {r - 1} ended")
        try:
            expected = [tuple(x.seats) for x in fmt.pair(r, entrants, earlier, absent=absent)]
        except Exception as exc:
            out.append(f"tournament {t.id}: round {r} cannot be paired again ({exc})")
            continue
        stored = [tab.seats for tab in sorted(by_round[r], key=lambda x: x.table_no)]
        if expected != stored and not absent:
            out.append(f"tournament {t.id}: round {r} pairings differ from the format's")
    if t.status == "finished":
        if not fmt.is_finished(entrants, results):
            out.append(f"tournament {t.id}: finished, but its format says it is not")
        elif fmt.winner(entrants, results) != t.winner_id:
            out.append(f"tournament {t.id}: the stored winner is not the format's")
    return out


def _clock_option(c: ClockOptions) -> JSONObject:
    return {"move_s": c.move_s, "bank_s": c.bank_s, "weekends_off": c.weekends_off}


def _positions(entries: Sequence[EntryRecord]) -> tuple[int, ...]:
    placed = sorted((e for e in entries if e.position is not None), key=lambda e: e.position or 0)
    return tuple(e.user_id for e in placed)
