"""The lobby: begin a game, list games, look at one (taking and giving back seats is
``seating.py``'s)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

from door.games import fairdice
from door.games.base import Refusal
from door.services.games.core import Change, GameCore
from door.services.games.model import (
    AnyRules,
    GameInfo,
    GameSnapshot,
    ListWhich,
    LobbyError,
    SeatSpec,
    dump_state,
)
from door.services.games.notices import GameNotices
from door.services.timecontrol import ClockOptions
from door.store.records import (
    GameRecord,
    SeatKind,
    SeatRecord,
    clamp_count,
    is_stored_id,
)
from door.store.repository import ConflictError, Repository

DEADLINE_MIN_HOURS = 1
DEADLINE_MAX_HOURS = 720
DEFAULT_DEADLINE_HOURS = 168
LISTS = ("invited", "open", "active", "mine", "waiting", "finished")


class Lobby:
    """Begin, list and look at games."""

    def __init__(
        self,
        core: GameCore,
        notices: GameNotices,
        default_deadline_hours: int = DEFAULT_DEADLINE_HOURS,
        bot_levels: Mapping[str, Sequence[str]] | None = None,
    ) -> None:
        self.core = core
        self.notices = notices
        self.default_deadline_hours = default_deadline_hours
        # kind → {casefolded level name: the level's own name}
        self.bot_levels: dict[str, dict[str, str]] = {
            kind: {name.casefold(): name for name in names}
            for kind, names in (bot_levels or {}).items()
        }

    def kinds(self) -> list[tuple[str, str]]:
        """(kind, title) of every game that can be begun, in menu order."""
        return [(k, r.title) for k, r in self.core.registry.items()]

    async def begin(
        self,
        creator_id: int,
        kind: str,
        options: dict[str, Any],
        seats: list[SeatSpec],
        deadline_hours: int | None = None,
        hints_allowed: bool = True,
        dice_word: str = "",
        clock: ClockOptions | None = None,
    ) -> GameInfo:
        """Create a game; it starts at once (set-up chance drawn) if no seat is left open.

        The game gets a new secret dice seed; ``dice_word`` is the creator's word for the
        dice (cleaned with ``fairdice.clean_word``; '' for none). ``clock``: the time per
        move, each player's bank and weekends off (it wins over ``deadline_hours``; by
        default ``deadline_hours`` per move, no bank, weekends on)."""
        core = self.core
        rules = core.rules_for(kind)
        if clock is not None:
            if not isinstance(clock, ClockOptions):
                raise LobbyError("the clock is not a clock")
            problem = clock.problem()
            if problem is not None:
                raise LobbyError(problem)
            deadline_hours = clock.move_s // 3600
        if deadline_hours is None:
            deadline_hours = self.default_deadline_hours
        bank_s = clock.bank_s if clock is not None else 0
        weekends_off = bool(clock.weekends_off) if clock is not None else False
        opts = _checked(rules, options, seats, deadline_hours)
        seats = [
            SeatSpec("bot", self._bot_level(kind, s.name)) if s.kind == "bot" else s
            for s in seats
        ]
        state = rules.new_game(len(seats), opts)
        now = core.clock.now()
        change = Change(0, actor=creator_id, begun=True)
        draft = GameRecord(
            id=0, kind=kind, options=opts, status="open", snapshot=dump_state(rules, state),
            version=0, to_act=None, deadline=None, deadline_hours=deadline_hours,
            hints_allowed=bool(hints_allowed), created_by=creator_id, created_at=now,
            updated_at=now, finished_at=None, summary="waiting for players", outcome=None,
            last_seq=0, dice_seed=core.new_seed(), chance_count=0, bank_s=bank_s,
            weekends_off=weekends_off,
        )  # fmt: skip
        word = fairdice.clean_word(dice_word)

        def action(repo: Repository) -> GameSnapshot:
            if repo.user(creator_id) is None:
                raise LobbyError("no such user")
            filled = self._fill(repo, creator_id, seats, now, word)
            filled = [replace(s, bank_s=bank_s) for s in filled]  # every seat's bank
            game_id = repo.insert_game(draft)
            change.game_id = game_id
            repo.insert_seats([replace(s, game_id=game_id) for s in filled])
            loaded = core.load(repo, game_id)
            if all(s.kind in ("user", "bot") for s in loaded.seats):
                loaded = core.start(repo, loaded, now, change)
            return core.snapshot(loaded, creator_id)

        for attempt in range(3):
            try:
                snapshot = await core.act(change, action)
                break
            except ConflictError:
                # another game created the same bot account at this moment: try again
                if attempt == 2:
                    raise LobbyError("the game could not be set up; please try again") from None
        self.notices.after_commit(snapshot, change)
        return snapshot.info

    def create_seated(
        self, repo: Repository, creator_id: int, kind: str, options: dict[str, Any],
        players: Sequence[tuple[int, str | None]], deadline_hours: int, now: datetime,
        clock: ClockOptions | None = None,
    ) -> tuple[GameSnapshot, Change]:  # fmt: skip
        """Inside the caller's transaction, a game with every seat taken — ``players``
        in seat order as (user id, bot level or None) — started at once; the caller
        hands the (snapshot, change) to ``notices.after_commit`` once it committed.
        What a tournament round is made of (door/services/tournaments). ``clock`` as
        :meth:`begin`'s: the time per move (it wins over ``deadline_hours``), every
        seat's bank and weekends off."""
        core = self.core
        rules = core.rules_for(kind)
        if clock is not None:
            problem = clock.problem()
            if problem is not None:
                raise LobbyError(problem)
            deadline_hours = clock.move_s // 3600
        bank_s = clock.bank_s if clock is not None else 0
        weekends_off = bool(clock.weekends_off) if clock is not None else False
        specs = [SeatSpec("open") for _ in players]
        opts = _checked(rules, options, specs, deadline_hours)
        state = rules.new_game(len(players), opts)
        change = Change(0, actor=None, begun=True)
        draft = GameRecord(
            id=0, kind=kind, options=opts, status="open", snapshot=dump_state(rules, state),
            version=0, to_act=None, deadline=None, deadline_hours=deadline_hours,
            hints_allowed=False, created_by=creator_id, created_at=now, updated_at=now,
            finished_at=None, summary="waiting for players", outcome=None, last_seq=0,
            dice_seed=core.new_seed(), chance_count=0, bank_s=bank_s,
            weekends_off=weekends_off,
        )  # fmt: skip
        game_id = repo.insert_game(draft)
        change.game_id = game_id
        seats = [
            SeatRecord(
                game_id, i, "bot" if level else "user", uid, level, 0, 0, None, bank_s=bank_s
            )
            for i, (uid, level) in enumerate(players)
        ]
        repo.insert_seats(seats)
        loaded = core.start(repo, core.load(repo, game_id), now, change)
        snapshot = core.snapshot(loaded, None)
        if core.tell is not None:
            core.tell(repo, snapshot, change)
        return snapshot, change

    def _fill(
        self, repo: Repository, creator_id: int, specs: list[SeatSpec], now: datetime,
        word: str = "",
    ) -> list[SeatRecord]:  # fmt: skip
        """The seats as ``specs`` ask (game id 0 until the game exists); the creator's
        seat has the creator's dice ``word``, every other seat '' until it is taken."""
        from door.services.accounts import name_key

        out: list[SeatRecord] = []
        people: set[int] = set()
        for i, spec in enumerate(specs):
            seat = SeatRecord(0, i, "open", None, None, 0, 0, None)
            if spec.kind == "me":
                if creator_id in people:
                    raise LobbyError("you can take only one seat")
                seat = replace(seat, kind="user", user_id=creator_id, dice_word=word)
                people.add(creator_id)
            elif spec.kind == "user":
                assert spec.name is not None
                other = repo.user_by_key(name_key(spec.name))
                # an invitee who blocks the creator is no one to them (issue 17: a blocked
                # user's invitations are not delivered, and nothing says "blocked")
                if other is None or other.is_bot or (
                    other.id != creator_id and repo.is_blocked(other.id, creator_id)
                ):
                    raise LobbyError(f"there is no player called {spec.name.strip()!r}")
                if other.is_banned:
                    raise LobbyError(f"{other.name} cannot play (the account is banned)")
                if other.id in people:
                    raise LobbyError(f"{other.name} already has a seat in this game")
                people.add(other.id)
                taken: SeatKind = "user" if other.id == creator_id else "reserved"
                mine = word if other.id == creator_id else ""
                seat = replace(seat, kind=taken, user_id=other.id, dice_word=mine)
            elif spec.kind == "bot":
                assert spec.name is not None
                level = spec.name.strip()
                bot_id = self._bot_account(repo, level, now)
                seat = replace(seat, kind="bot", user_id=bot_id, bot_level=level)
            out.append(seat)
        return out

    def _bot_level(self, kind: str, name: str | None) -> str:
        """The level a bot seat asks for, by its own name; ``LobbyError`` unless it is
        one of ``kind``'s computer players."""
        levels = self.bot_levels.get(kind, {})
        asked = (name or "").strip()
        found = levels.get(asked.casefold())
        if found is None:
            if not levels:
                raise LobbyError(f"there is no computer player for {self.core.title_of(kind)}")
            shown = "".join(ch for ch in asked[:40] if ch.isprintable())
            raise LobbyError(
                f"there is no computer player called {shown!r}; choose one of "
                + ", ".join(levels.values())
            )
        return found

    def _bot_account(self, repo: Repository, level: str, now: datetime) -> int:
        """The account of the computer player ``level`` (a configured level's name, see
        :meth:`_bot_level`), made on first use."""
        from door.services.accounts import name_key

        found = repo.user_by_key(name_key(level))
        if found is not None:
            if not found.is_bot:
                raise LobbyError(f"{level!r} is a person, not a computer level")
            return found.id
        return repo.insert_user(level, name_key(level), None, True, now, {})

    async def list_games(
        self,
        which: ListWhich,
        user_id: int | None,
        kind: str | None = None,
        offset: int = 0,
        limit: int = 20,
    ) -> tuple[list[GameInfo], int]:
        """A page of games and the total count.

        ``invited``: open games with a seat kept for ``user_id`` (named invitations);
        ``open``: games with a seat ``user_id`` may take (not ones they already sit in);
        ``active``: every running game (to watch); ``mine``: open or running games
        ``user_id`` plays or is invited to; ``waiting``: running games waiting on
        ``user_id``, most urgent first; ``finished``: finished or abandoned games
        (``user_id``'s only, if given). Newest first otherwise. ``limit`` 0: the count
        only (an empty page).
        """
        if which not in LISTS:
            raise LobbyError(f"unknown game list {which!r}")
        if which in ("invited", "mine", "waiting") and user_id is None:
            raise LobbyError("that list needs a user")
        if user_id is not None and not is_stored_id(user_id):
            return [], 0  # nobody has that id: nothing of theirs to list
        offset = clamp_count(offset)
        limit = max(0, min(100, int(limit)))

        def read(repo: Repository) -> tuple[list[GameInfo], int]:
            games, total = repo.list_games(which, user_id, kind, offset, limit)
            return self.core.infos(repo, games), total

        return await self.core.db.run_read(read)

    async def get(self, game_id: int, viewer_id: int | None = None) -> GameSnapshot:
        """The game as it is now; ``LobbyError`` if there is no such game."""
        core = self.core
        return await core.db.run_read(lambda repo: core.read_snapshot(repo, game_id, viewer_id))


def _checked(
    rules: AnyRules, options: dict[str, Any], seats: list[SeatSpec], deadline_hours: int
) -> dict[str, Any]:
    """The complete options of a game to begin; ``LobbyError`` says what is wrong."""
    n = len(seats)
    if not rules.min_seats <= n <= rules.max_seats:
        if rules.min_seats == rules.max_seats:
            raise LobbyError(f"{rules.title} is for {rules.min_seats} players")
        raise LobbyError(f"{rules.title} is for {rules.min_seats} to {rules.max_seats} players")
    if (
        not isinstance(deadline_hours, int)
        or isinstance(deadline_hours, bool)
        or not DEADLINE_MIN_HOURS <= deadline_hours <= DEADLINE_MAX_HOURS
    ):
        raise LobbyError("the turn deadline must be from 1 hour to 30 days (720 hours)")
    try:
        opts = dict(rules.validate_options(n, dict(options)))
    except Refusal as exc:
        raise LobbyError(str(exc)) from None
    if sum(1 for s in seats if s.kind == "me") > 1:
        raise LobbyError("you can take only one seat")
    for spec in seats:
        if spec.kind not in ("me", "open", "user", "bot"):
            raise LobbyError(f"unknown seat kind {spec.kind!r}")
        if spec.kind in ("user", "bot") and not (spec.name and spec.name.strip()):
            raise LobbyError("name the player (or the computer level) for that seat")
    return opts
