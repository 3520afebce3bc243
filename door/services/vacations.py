"""Players' clocks outside any one game: their time zone and their vacations.

A vacation stops every clock of its player (door/services/timecontrol.py counts no
running time in it); each player has ``days_per_year`` vacation days per calendar year
(of their zone), a vacation counting against the year it starts in, by whole days begun.
One vacation at a time: an ongoing or a planned one. Starting, ending (early) or
cancelling one, or changing the zone, works out again the deadline of every game
waiting on the player, in the same transaction, so ``games.deadline`` is always the
instant the timeout applies and the sweeper stays a plain query.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta

from door.games.base import Refusal
from door.services import timecontrol as tc
from door.services.clock import Clock
from door.services.games.clockstep import deadlines_of
from door.services.games.core import GameCore
from door.store.records import VacationRecord
from door.store.repository import Repository

DAY = timedelta(days=1)
MAX_AHEAD = timedelta(days=366)
"""How far ahead a vacation may be planned."""


class VacationError(Refusal):
    """A vacation (or a zone) that cannot be had, and why."""


@dataclass(frozen=True)
class VacationStatus:
    """A player's vacations as the settings screen shows them: the ongoing or planned
    one (None: none), the days left this year, and the zone the dates are shown in."""

    vacation: VacationRecord | None
    days_left: int
    days_per_year: int
    zone: str

    def on_vacation(self, at: datetime) -> bool:
        v = self.vacation
        return v is not None and v.starts_at <= at < v.ends_at


def days_of(v: VacationRecord) -> int:
    """The vacation days a vacation spends: whole days begun."""
    span = v.ends_at - v.starts_at
    return max(0, -(-span // DAY))


class PlayerClocks:
    """Time zones and vacations (``days_per_year`` each; ``default_zone`` for a player
    without a zone of their own)."""

    def __init__(self, core: GameCore, clock: Clock, days_per_year: int = 14) -> None:
        self.core = core
        self.clock = clock
        self.days_per_year = days_per_year

    @property
    def default_zone(self) -> str:
        return self.core.default_zone

    def zone_name(self, time_zone: str | None) -> str:
        """The zone a player with ``time_zone`` (None: none chosen) sees times in."""
        return tc.zone(time_zone, self.default_zone).key

    async def status(self, user_id: int) -> VacationStatus:
        now = self.clock.now()
        return await self.core.db.run_read(lambda repo: self._status(repo, user_id, now))

    def _status(self, repo: Repository, user_id: int, now: datetime) -> VacationStatus:
        user = repo.user(user_id)
        if user is None:
            raise VacationError("no such user")
        tz = tc.zone(user.time_zone, self.default_zone)
        year = now.astimezone(tz).year
        year_start = datetime(year, 1, 1, tzinfo=tz).astimezone(UTC)
        found = repo.vacations_of(user_id, year_start)
        used = sum(days_of(v) for v in found if v.starts_at.astimezone(tz).year == year)
        current = next((v for v in found if v.ends_at > now), None)
        left = max(0, self.days_per_year - used)
        return VacationStatus(current, left, self.days_per_year, tz.key)

    async def start(
        self, user_id: int, days: int, starts_at: datetime | None = None
    ) -> VacationRecord:
        """A vacation of ``days`` days from ``starts_at`` (None: now); ``VacationError``
        says why not (too many days, one already planned, in the past)."""
        if type(days) is not int or days < 1:
            raise VacationError("a vacation is at least one day")
        now = self.clock.now()
        begin = now if starts_at is None else starts_at.astimezone(UTC)
        if begin < now - DAY:  # a date of today means from now
            raise VacationError("a vacation cannot start in the past")
        if begin > now + MAX_AHEAD:
            raise VacationError("a vacation can be planned at most a year ahead")
        begin = max(begin, now)

        def action(repo: Repository) -> VacationRecord:
            if repo.lock_user(user_id) is None:
                raise VacationError("no such user")
            status = self._status(repo, user_id, now)
            if status.vacation is not None:
                raise VacationError("you already have a vacation; end it first")
            if days > status.days_left:
                raise VacationError(
                    f"you have {status.days_left} vacation day"
                    f"{'' if status.days_left == 1 else 's'} left this year"
                )
            end = begin + days * DAY
            vid = repo.insert_vacation(user_id, begin, end)
            self._recompute(repo, user_id, now)
            return VacationRecord(vid, user_id, begin, end)

        return await self.core.db.transact(action)

    async def end(self, user_id: int) -> VacationRecord | None:
        """End the ongoing vacation now (the days not taken are kept), or cancel the
        planned one; None if there was none."""
        now = self.clock.now()

        def action(repo: Repository) -> VacationRecord | None:
            if repo.lock_user(user_id) is None:
                raise VacationError("no such user")
            v = self._status(repo, user_id, now).vacation
            if v is None:
                return None
            if v.starts_at <= now:
                repo.end_vacation(v.id, user_id, now)
                v = replace(v, ends_at=now)
            else:
                repo.delete_vacation(v.id, user_id)
            self._recompute(repo, user_id, now)
            return v

        return await self.core.db.transact(action)

    async def set_time_zone(self, user_id: int, name: str | None) -> str | None:
        """Choose the player's zone (an IANA name, matched without regard to case; None
        or '': the server's); returns the name stored."""
        chosen: str | None = None
        if name is not None and name.strip():
            chosen = tc.known_zone(name)
            if chosen is None:
                raise VacationError("that is not a time zone this server knows (e.g. Europe/Paris)")
        now = self.clock.now()

        def action(repo: Repository) -> str | None:
            user = repo.lock_user(user_id)
            if user is None:
                raise VacationError("no such user")
            if user.time_zone != chosen:
                repo.save_user(replace(user, time_zone=chosen))
                self._recompute(repo, user_id, now)
            return chosen

        return await self.core.db.transact(action)

    async def away_until(self, user_ids: list[int]) -> dict[int, datetime]:
        """When each of ``user_ids`` who is on vacation now comes back."""
        now = self.clock.now()

        def read(repo: Repository) -> dict[int, datetime]:
            out: dict[int, datetime] = {}
            for u, pc in repo.player_clocks(user_ids, now).items():
                for a, b in pc.vacations:
                    if a <= now < b:
                        out[u] = b
            return out

        return await self.core.db.run_read(read)

    def _recompute(self, repo: Repository, user_id: int, now: datetime) -> None:
        """Work out again the deadlines of every game waiting on ``user_id``."""
        games = repo.games_to_act(user_id)
        if not games:
            return
        since = min([now] + [g.turn_started_at for g in games if g.turn_started_at])
        clock = repo.player_clocks([user_id], since).get(user_id)
        seats = repo.seats_of([g.id for g in games])
        for game in games:
            bank = next((s.bank_s for s in seats[game.id] if s.seat == game.to_act), 0)
            found = deadlines_of(game, bank, clock, self.default_zone)
            if found is None:
                continue
            move_deadline, deadline = found
            if (deadline, move_deadline) != (game.deadline, game.move_deadline):
                repo.set_deadline(game.id, game.version, deadline, move_deadline)
