"""The clock soak: 60 simulated days of 100 games with banks, weekends off in several
time zones, and vacations.

Forty players in eight time zones (two of them on the server's) play 100 games of Dice
Nim through the game service on a :class:`FakeClock`, each game with its own time per
move, bank and weekends-off setting. Players mostly answer in time, sometimes slowly
(drawing on their bank), sometimes not at all; a dozen take a vacation (planned ahead or
from now), some end it early. ``sweep_deadlines()`` runs every half hour and is the only
thing that applies timeouts.

The test keeps its own clock for every game (tests/clock/model.py: an independent model
that walks the mover's local calendar day by day) and checks that:

* after every commit and every vacation or zone change, the game's deadline is the
  model's instant when the move's time and the mover's bank are both spent;
* after every move, the mover's bank is the model's;
* each sweep applies exactly the timeouts the model says are due, and only when the
  model's running time has reached the move's time plus the bank; sweeping again at
  once applies none;
* at the end, every game's log holds exactly the timeouts the model predicts, each once,
  at the sweep the model says.

Moves happen on whole seconds ≡ the game's number (mod 100), vacations at a quarter
past a second, sweeps at half past: no two things ever happen at one instant.
"""

from __future__ import annotations

import heapq
import random
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from door.services.accounts import Accounts
from door.services.clock import FakeClock
from door.services.games import GameService, GameSnapshot, SeatSpec, StaleVersionError
from door.services.notify import LocalHub
from door.services.timecontrol import ClockOptions
from door.services.vacations import PlayerClocks
from door.store.db import Database
from tests.clock import model
from tests.services.nim import NimRules
from tests.store import dbutil

DAYS = 60
PLAYERS = 40
GAMES = 100
HOUR, DAY = 3600, 86400
END = DAYS * DAY
SWEEP = 1800
START = datetime(2026, 3, 2, 0, 0, tzinfo=UTC)  # a Monday; DST changes fall inside
ZONES = [
    None, "Europe/Berlin", "America/New_York", "Asia/Kolkata", "Pacific/Auckland",
    "Australia/Lord_Howe", "America/Santiago", None,
]  # fmt: skip
SERVER_ZONE = "UTC"
MOVES = [12 * HOUR, DAY, 2 * DAY, 3 * DAY]
BANKS = [0, 0, DAY, 3 * DAY, 5 * DAY]


@dataclass
class Game:
    index: int
    game_id: int
    users: list[int]
    move_s: int
    bank_s: int
    weekends_off: bool
    version: int = 0
    status: str = "active"
    to_act: int | None = None
    turn_start: datetime = START
    banks: list[int] = field(default_factory=list)
    deadline: datetime | None = None
    timeouts: list[int] = field(default_factory=list)
    expected: list[tuple[int, datetime]] = field(default_factory=list)  # seat, when


@dataclass
class Player:
    user_id: int
    zone: ZoneInfo
    vacations: list[tuple[datetime, datetime]] = field(default_factory=list)


class ClockSoak:
    def __init__(
        self, games: GameService, clocks: PlayerClocks, clock: FakeClock, seed: int
    ) -> None:
        self.s = games
        self.clocks = clocks
        self.clock = clock
        self.rng = random.Random(seed)
        self.queue: list[tuple[datetime, int, str, int, int]] = []
        self.counter = 0
        self.games: list[Game] = []
        self.players: dict[int, Player] = {}
        self.applied = 0
        self.moves = 0
        self.slow_moves = 0
        self.vacations = 0
        self.stale = 0

    # --- time and the queue -------------------------------------------------------------
    def at(self, when: datetime) -> None:
        assert when >= self.clock.now(), "the simulation went back in time"
        self.clock.advance(when - self.clock.now())

    def push(self, when: datetime, kind: str, a: int, b: int = 0) -> None:
        self.counter += 1
        heapq.heappush(self.queue, (when, self.counter, kind, a, b))

    @staticmethod
    def slot(when: datetime, index: int) -> datetime:
        """The first whole second at or after ``when`` that is ≡ ``index`` (mod 100)."""
        s = int((when - START).total_seconds()) + 1
        return START + timedelta(seconds=s + (index - s) % 100)

    # --- the model ------------------------------------------------------------------------
    def expected_deadline(self, g: Game) -> tuple[datetime, datetime] | None:
        if g.status != "active" or g.to_act is None:
            return None
        p = self.players[g.users[g.to_act]]
        need = g.move_s + g.banks[g.to_act]
        final = model.timeout(g.turn_start, need, p.zone, g.weekends_off, p.vacations)
        moved = model.timeout(g.turn_start, g.move_s, p.zone, g.weekends_off, p.vacations)
        return moved, final

    def check(self, g: Game, snap: GameSnapshot) -> None:
        """The service's game agrees with the model's."""
        info = snap.info
        assert info.status == g.status, f"game {g.index}"
        assert info.to_act == g.to_act, f"game {g.index}"
        assert [s.bank_s for s in info.seats] == g.banks, f"game {g.index}"
        assert [s.timeouts for s in info.seats] == g.timeouts, f"game {g.index}"
        want = self.expected_deadline(g)
        if want is None:
            assert info.deadline is None
        else:
            assert (info.move_deadline, info.deadline) == want, f"game {g.index}"
        g.deadline = None if want is None else want[1]

    def new_turn(self, g: Game, snap: GameSnapshot, now: datetime) -> None:
        g.version = snap.info.version
        g.status = snap.info.status
        g.to_act = snap.info.to_act if g.status == "active" else None
        g.turn_start = now
        self.check(g, snap)
        if g.to_act is not None:
            self.plan_move(g)

    def plan_move(self, g: Game) -> None:
        r = self.rng.random()
        if r < 0.06:
            return  # this time the player does not answer
        if r < 0.35:
            delay = g.move_s * self.rng.uniform(1.0, 1.8)  # slow: the bank pays
        else:
            delay = g.move_s * self.rng.uniform(0.05, 0.95)
        assert g.to_act is not None
        self.push(self.slot(g.turn_start + timedelta(seconds=delay), g.index), "move", g.index,
                  g.version)  # fmt: skip

    # --- the events ---------------------------------------------------------------------
    async def setup(self, accounts: Accounts) -> None:
        for i in range(PLAYERS):
            user = await accounts.register(f"Clock{i:02d}", "soak-pw-1")
            name = ZONES[i % len(ZONES)]
            if name is not None:
                await self.clocks.set_time_zone(user.id, name)
            self.players[user.id] = Player(user.id, ZoneInfo(name or SERVER_ZONE))
        ids = list(self.players)
        for index in range(GAMES):
            a, b = self.rng.sample(ids, 2)
            opts = ClockOptions(
                self.rng.choice(MOVES), self.rng.choice(BANKS), self.rng.random() < 0.5
            )
            self.at(self.slot(self.clock.now(), index))
            seats = [SeatSpec("me"), SeatSpec("user", f"Clock{ids.index(b):02d}")]
            info = await self.s.begin(a, "nim", {"heap": 100}, seats, clock=opts)
            info = await self.s.join(info.id, b)
            g = Game(index, info.id, [s.user_id or 0 for s in info.seats], opts.move_s,
                     opts.bank_s, opts.weekends_off, banks=[opts.bank_s] * 2,
                     timeouts=[0, 0])  # fmt: skip
            self.games.append(g)
            self.new_turn(g, await self.s.get(info.id), self.clock.now())
        # vacations: from now or planned ahead, some ended early
        for user_id in self.rng.sample(ids, 12):
            when = START + timedelta(seconds=self.rng.randrange(END - 10 * DAY), milliseconds=250)
            ahead = self.rng.choice([0, 0, DAY * self.rng.randint(1, 5)])
            days = self.rng.randint(2, 7)
            self.push(when, "vacation", user_id, days * 1000 + ahead // DAY)
        for k in range(END // SWEEP):
            self.push(START + timedelta(seconds=(k + 1) * SWEEP, milliseconds=500), "sweep", 0)

    async def move(self, g: Game, version: int) -> None:
        if g.status != "active" or g.version != version or g.to_act is None:
            return  # timed out (or over) meanwhile
        now = self.clock.now()
        seat = g.to_act
        p = self.players[g.users[seat]]
        try:
            snap = await self.s.submit(g.game_id, p.user_id, "1", version)
        except StaleVersionError:
            self.stale += 1
            raise
        used = model.running(g.turn_start, now, p.zone, g.weekends_off, p.vacations)
        if used > timedelta(seconds=g.move_s):
            self.slow_moves += 1
        g.banks[seat] = model.bank_left(used, g.move_s, g.banks[seat])
        self.moves += 1
        self.new_turn(g, snap, now)

    async def sweep(self) -> None:
        now = self.clock.now()
        due = [g for g in self.games if g.deadline is not None and g.deadline <= now]
        for g in due:
            # the timeout rule applies only once the move's time and the bank are spent
            assert g.to_act is not None
            p = self.players[g.users[g.to_act]]
            ran = model.running(g.turn_start, now, p.zone, g.weekends_off, p.vacations)
            assert ran >= timedelta(seconds=g.move_s + g.banks[g.to_act])
        applied = await self.s.sweep_deadlines()
        assert applied == len(due), f"sweep at {now}: {applied} applied, {len(due)} due"
        assert await self.s.sweep_deadlines() == 0
        self.applied += applied
        for g in due:
            seat = g.to_act
            assert seat is not None
            g.banks[seat] = 0
            g.timeouts[seat] += 1
            g.expected.append((seat, now))
            snap = await self.s.get(g.game_id)
            assert snap.info.version > g.version
            self.new_turn(g, snap, now)

    async def vacation(self, user_id: int, code: int) -> None:
        days, ahead = divmod(code, 1000)
        now = self.clock.now()
        p = self.players[user_id]
        starts = now + timedelta(days=ahead) if ahead else None
        v = await self.clocks.start(user_id, days, starts)
        self.vacations += 1
        p.vacations.append((v.starts_at, v.ends_at))
        assert v.starts_at == (starts or now) and v.ends_at == v.starts_at + timedelta(days=days)
        await self.recheck(user_id)
        if self.rng.random() < 0.5:
            early = v.starts_at + timedelta(hours=self.rng.randint(2, days * 24 - 2), seconds=0.25)
            self.push(early, "end", user_id)

    async def end(self, user_id: int) -> None:
        now = self.clock.now()
        p = self.players[user_id]
        ended = await self.clocks.end(user_id)
        assert ended is not None
        a, _b = p.vacations[-1]
        p.vacations[-1] = (a, now)
        await self.recheck(user_id)

    async def recheck(self, user_id: int) -> None:
        """The deadlines of the games waiting on ``user_id`` follow their vacations."""
        for g in self.games:
            if g.to_act is not None and g.users[g.to_act] == user_id:
                self.check(g, await self.s.get(g.game_id))

    async def run(self) -> None:
        while self.queue:
            when, _, kind, a, b = heapq.heappop(self.queue)
            self.at(when)
            if kind == "move":
                await self.move(self.games[a], b)
            elif kind == "sweep":
                await self.sweep()
            elif kind == "vacation":
                await self.vacation(a, b)
            elif kind == "end":
                await self.end(a)

    async def check_logs(self) -> None:
        for g in self.games:
            events = await self.s.events(g.game_id)
            got = [
                (e.seat, e.created_at)
                for e in events
                if e.kind == "system"
                and (e.payload.get("action") == "timeout" or e.payload.get("reason") == "timeout")
            ]
            assert got == g.expected, f"game {g.index}: timeouts {got} != {g.expected}"


@pytest.fixture
async def soak_db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Database]:
    monkeypatch.setattr("door.services.accounts.SCRYPT_N", 2**8)  # hashing is not the point
    template = dbutil.make_sqlite_template(tmp_path / "template")
    db = Database(dbutil.fresh_sqlite(template, tmp_path))
    yield db
    await db.dispose()


async def test_sixty_days_of_banks_weekends_and_vacations_time_out_exactly_as_the_model(
    soak_db: Database,
) -> None:
    clock = FakeClock(START)
    games = GameService(soak_db, {"nim": NimRules()}, LocalHub(), clock, random.Random(18))
    games.core.default_zone = SERVER_ZONE
    clocks = PlayerClocks(games.core, clock, days_per_year=14)
    soak = ClockSoak(games, clocks, clock, seed=18)
    began = time.perf_counter()
    await soak.setup(Accounts(soak_db, clock))
    await soak.run()
    await soak.check_logs()
    took = time.perf_counter() - began
    print(
        f"clock soak: {GAMES} games, {DAYS} days, {soak.moves} moves ({soak.slow_moves} on the "
        f"bank), {soak.applied} timeouts, {soak.vacations} vacations, {took:.1f} s"
    )
    assert soak.applied > 50 and soak.slow_moves > 100 and soak.vacations >= 10
    assert soak.stale == 0
