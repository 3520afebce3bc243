"""The deadline soak: 30 simulated days of play by turns across 100 games.

Forty players play 50 one-point Backgammon matches and 50 Spectrangle games (2, 3 and 4
players, some in teams) through the game service, each move a random legal one from the
rules. Players answer after a random delay; some go away for days, some go silent for
good. A :class:`FakeClock` carries the time and ``sweep_deadlines()`` is the only thing
that applies timeouts.

The test keeps its own model of when every deadline falls (the last commit of a game plus
its deadline hours) and who was due then, and checks that:

* each sweep applies exactly the timeouts that are due (sweeps at other times apply none,
  and a sweep is repeated at once to show nothing is applied twice);
* at the end, every game's log holds exactly the timeout/forfeit system events the model
  predicts — same seats, same actions, same times — and replays to its snapshot;
* a late player's move (made after their timeout) is refused and changes nothing;
* the stored ratings equal ratings recomputed here, from the finished games' outcomes in
  the order they finished, by the FIBS formula (Backgammon) and pairwise Elo (Spectrangle).

Every commit of game number ``g`` happens at a time ≡ ``g`` (mod 100 s) and deadlines are
whole hours, so no two games ever share a commit or a deadline second: the order of
events (and so of rating changes) is unambiguous.
"""

from __future__ import annotations

import heapq
import math
import random
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from door.config import Config, DatabaseConfig, GamesConfig
from door.services import Services, build_services
from door.services.clock import FakeClock
from door.services.games import GameClosedError, SeatSpec, StaleVersionError
from tests.store import dbutil

DAYS = 30
PLAYERS = 40
GAMES = 100
SILENT = 8  # players who stop for good at some point
AWAY = 8  # players who are away for a few days once
HOUR = 3600
DAY = 24 * HOUR
END = DAYS * DAY
MEAN_DELAY = 4 * HOUR
FORGETFUL = 0.03  # chance that a reply comes 3½ days late
TIMEOUTS_TO_FORFEIT = 3  # the service's rule (door.services.games)


@dataclass
class GameModel:
    """What the test expects of one game."""

    index: int
    game_id: int
    kind: str
    hours: int
    users: list[int]
    version: int = -1
    status: str = "open"
    to_act: int | None = None
    deadline: int | None = None  # seconds since the start
    timeouts: list[int] = field(default_factory=list)  # per seat
    expected: list[tuple[int, str, int]] = field(default_factory=list)  # seat, action, t


@dataclass
class Player:
    user_id: int
    name: str
    silent_from: int = END + DAY
    away: tuple[int, int] | None = None


class Soak:
    """The simulation: a time-ordered queue of moves, deadlines and extra sweeps."""

    def __init__(self, services: Services, clock: FakeClock, seed: int) -> None:
        self.s = services
        self.clock = clock
        self.start = clock.now()
        self.rng = random.Random(seed)
        self.queue: list[tuple[int, int, int, str, int, int, int]] = []
        self.options: dict[int, dict[str, Any]] = {}
        self.counter = 0
        self.games: list[GameModel] = []
        self.players: list[Player] = []
        self.applied = 0
        self.refused_late_moves = 0
        self.moves = 0

    # --- time ----------------------------------------------------------------------------
    def at(self, t: int) -> None:
        now = self.start + timedelta(seconds=t)
        assert now >= self.clock.now(), "the simulation went back in time"
        self.clock.advance(now - self.clock.now())

    def seconds(self, when: datetime) -> int:
        return round((when - self.start).total_seconds())

    @staticmethod
    def slot(t: float, index: int) -> int:
        """The first second ≥ ``t`` that belongs to game ``index`` (≡ index mod 100)."""
        base = math.ceil(t)
        return base + (index - base) % 100

    def push(
        self, t: int, priority: int, kind: str, index: int, version: int, seat: int = -1
    ) -> None:
        self.counter += 1
        heapq.heappush(self.queue, (t, priority, self.counter, kind, index, version, seat))

    # --- set-up --------------------------------------------------------------------------
    async def setup(self) -> None:
        for i in range(PLAYERS):
            user = await self.s.accounts.register(f"Player{i:02d}", "pass-word")
            self.players.append(Player(user.id, user.name))
        order = self.rng.sample(range(PLAYERS), SILENT + AWAY)
        for i in order[:SILENT]:
            self.players[i].silent_from = self.rng.randrange(2 * DAY, 20 * DAY)
        for i in order[SILENT:]:
            begin = self.rng.randrange(1 * DAY, 24 * DAY)
            self.players[i].away = (begin, begin + self.rng.randrange(3 * DAY, 6 * DAY))
        shapes: list[tuple[str, int, dict[str, Any]]] = []
        shapes += [("backgammon", 2, {"match_length": 1, "cube": False})] * 50
        shapes += [("spectrangle", 2, {})] * 20
        shapes += [("spectrangle", 3, {})] * 15
        shapes += [("spectrangle", 4, {})] * 10
        shapes += [("spectrangle", 4, {"teams": True})] * 5
        assert len(shapes) == GAMES
        self.rng.shuffle(shapes)
        for index, (kind, seats, options) in enumerate(shapes):
            t = self.slot(self.rng.randrange(0, 3 * DAY), index)
            self.push(t, 1, "begin", index, 0)
            self.games.append(GameModel(index, 0, kind, self.rng.choice([24, 48, 72]), []))
            self.games[-1].users = [
                self.players[p].user_id for p in self.rng.sample(range(PLAYERS), seats)
            ]
            self.games[-1].timeouts = [0] * seats
            self.options[index] = options
        for k in range(1, END // (7 * HOUR)):  # sweeps at odd times: nothing is due then
            self.push(k * 7 * HOUR + 13, 2, "idle-sweep", -1, 0)

    # --- the loop ------------------------------------------------------------------------
    async def run(self) -> None:
        while self.queue and self.queue[0][0] <= END:
            t, _, _, kind, index, version, seat = heapq.heappop(self.queue)
            self.at(t)
            if kind == "begin":
                await self.begin(self.games[index], t)
            elif kind == "deadline":
                await self.deadline(self.games[index], version, t)
            elif kind == "move":
                await self.move(self.games[index], version, seat, t)
            else:
                assert await self.s.games.sweep_deadlines() == 0, f"a timeout applied early at {t}"

    async def begin(self, g: GameModel, t: int) -> None:
        names = {p.user_id: p.name for p in self.players}
        seats = [SeatSpec("me")] + [SeatSpec("user", names[u]) for u in g.users[1:]]
        info = await self.s.games.begin(
            g.users[0], g.kind, self.options[g.index], seats, deadline_hours=g.hours
        )
        g.game_id = info.id
        for u in g.users[1:]:
            await self.s.games.join(info.id, u)
        await self.refresh(g, t)

    async def refresh(self, g: GameModel, t: int) -> None:
        """Read the game after a commit at ``t``; plan its next move and its deadline."""
        snap = await self.s.games.get(g.game_id)
        info = snap.info
        g.version, g.status, g.to_act = info.version, info.status, info.to_act
        if info.status != "active":
            g.deadline = None
            return
        assert info.to_act is not None
        g.deadline = t + g.hours * HOUR
        assert info.deadline is not None and self.seconds(info.deadline) == g.deadline
        self.push(g.deadline, 0, "deadline", g.index, g.version)
        player = next(p for p in self.players if p.user_id == g.users[info.to_act])
        delay = self.rng.expovariate(1 / MEAN_DELAY)
        if self.rng.random() < FORGETFUL:
            delay += 84 * HOUR
        when = t + 60 + delay
        if player.away is not None and player.away[0] <= when < player.away[1]:
            when = player.away[1] + self.rng.randrange(HOUR)
        if when >= player.silent_from:
            return  # this player never moves again
        self.push(self.slot(when, g.index), 1, "move", g.index, g.version, info.to_act)

    async def deadline(self, g: GameModel, version: int, t: int) -> None:
        if version != g.version:
            return  # a move came in time: this deadline no longer stands
        seat = g.to_act
        assert seat is not None and g.deadline == t
        g.timeouts[seat] += 1
        action = "forfeit" if g.timeouts[seat] >= TIMEOUTS_TO_FORFEIT else "timeout"
        g.expected.append((seat, action, t))
        applied = await self.s.games.sweep_deadlines()
        assert applied == 1, f"game {g.game_id}: {applied} timeouts applied at its deadline"
        assert await self.s.games.sweep_deadlines() == 0, "a timeout was applied twice"
        self.applied += 1
        await self.refresh(g, t)

    async def move(self, g: GameModel, version: int, seat: int, t: int) -> None:
        games = self.s.games
        snap = await games.get(g.game_id)
        user = g.users[seat]
        if version != g.version:
            # The player looked before their deadline passed and answers too late.
            with pytest.raises((StaleVersionError, GameClosedError)):
                await games.submit(g.game_id, user, "(no play)", version)
            after = await games.get(g.game_id)
            assert after.info.version == snap.info.version
            self.refused_late_moves += 1
            return
        rules = games.rules_for(g.kind)
        state = snap.state
        assert rules.to_act(state) == seat
        move = self.rng.choice(list(rules.legal_moves(state)))
        await games.submit(g.game_id, user, rules.format_move(state, move), version)
        self.moves += 1
        await self.refresh(g, t)


# --- ratings recomputed from the outcomes ----------------------------------------------------


def fibs(ratings: dict[int, list[float]], winner: int, loser: int, length: int) -> None:
    """``reference/backgammon.md`` §4, applied to [rating, experience, wins, losses]."""
    w, lo = ratings[winner], ratings[loser]
    d = abs(w[0] - lo[0])
    p_upset = 1 / (10 ** (d * math.sqrt(length) / 2000) + 1)
    p = 1 - p_upset if w[0] < lo[0] else p_upset
    gain = 4 * max(1.0, 5 - w[1] / 100) * math.sqrt(length) * p
    loss = 4 * max(1.0, 5 - lo[1] / 100) * math.sqrt(length) * p
    w[0] += gain
    lo[0] -= loss
    w[1] += length
    lo[1] += length
    w[2] += 1
    lo[3] += 1


def elo(ratings: dict[int, list[float]], users: list[int], placings: list[int],
        winners: set[int]) -> None:
    """Every pair of players is one Elo game, K = 32 / (players − 1)."""
    k = 32 / (len(users) - 1)
    before = [ratings[u][0] for u in users]
    for i, u in enumerate(users):
        change = 0.0
        for j in range(len(users)):
            if i == j:
                continue
            score = 1.0 if placings[i] < placings[j] else 0.5 if placings[i] == placings[j] else 0
            change += k * (score - 1 / (1 + 10 ** ((before[j] - before[i]) / 400)))
        r = ratings[u]
        r[0] += change
        r[1] += 1
        if winners:
            r[2] += 1 if i in winners else 0
            r[3] += 0 if i in winners else 1


# --- the test ------------------------------------------------------------------------------


@pytest.fixture
async def soak_services(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                        ) -> AsyncIterator[tuple[Services, FakeClock]]:
    monkeypatch.setattr("door.services.accounts.SCRYPT_N", 2**8)  # hashing is not the point
    template = dbutil.make_sqlite_template(tmp_path / "template")
    config = Config(
        data_dir=tmp_path,
        database=DatabaseConfig(url=dbutil.fresh_sqlite(template, tmp_path), auto_upgrade=False),
        games=GamesConfig(bots=False),
    )
    clock = FakeClock()
    services = await build_services(
        config, clock=clock, rng=random.Random(30), start_background=False
    )
    try:
        yield services, clock
    finally:
        await services.close()


async def test_thirty_days_of_deadlines_apply_every_timeout_once_and_ratings_add_up(
    soak_services: tuple[Services, FakeClock],
) -> None:
    services, clock = soak_services
    started = time.monotonic()
    soak = Soak(services, clock, seed=20261201)
    await soak.setup()
    await soak.run()
    soak.at(END)
    assert await services.games.sweep_deadlines() == 0  # nothing left over at the end

    # Every timeout in the logs is one the deadlines dictated, at its time, once.
    expected_total = 0
    for g in soak.games:
        events = await services.games.events(g.game_id)
        logged = [
            (e.seat, str(e.payload["action"]), soak.seconds(e.created_at))
            for e in events
            if e.kind == "system" and e.payload.get("action") in ("timeout", "forfeit")
            and e.payload.get("reason", "timeout") == "timeout"
        ]
        assert logged == g.expected, f"game {g.game_id} ({g.kind})"
        info = (await services.games.get(g.game_id)).info
        assert [s.timeouts for s in info.seats] == g.timeouts
        assert await services.games.replay_check(g.game_id) is None
        expected_total += len(g.expected)
    assert soak.applied == expected_total

    # The soak exercised what it claims to.
    finished = [g for g in soak.games if g.status == "finished"]
    assert len(finished) >= 60
    assert sum(1 for g in soak.games for s, a, _ in g.expected if a == "forfeit") >= 3
    assert any(g.kind == "backgammon" and g.expected for g in soak.games)
    assert any(g.kind == "spectrangle" and len(g.expected) >= 2 for g in soak.games)
    assert soak.refused_late_moves >= 1

    # Ratings: replay the results in the order the games finished.
    infos = [(await services.games.get(g.game_id)).info for g in finished]
    infos.sort(key=lambda i: i.updated_at)
    assert len({i.updated_at for i in infos}) == len(infos)
    ratings: dict[str, dict[int, list[float]]] = {"backgammon": {}, "spectrangle": {}}
    for info in infos:
        users = [s.user_id for s in info.seats if s.user_id is not None]
        assert info.outcome is not None and len(users) == len(info.seats)
        table = ratings[info.kind]
        for u in users:
            table.setdefault(u, [1500.0, 0.0, 0.0, 0.0])
        if info.kind == "backgammon":
            (w,) = info.outcome.winners
            fibs(table, users[w], users[1 - w], 1)
        else:
            elo(table, users, list(info.outcome.placings), set(info.outcome.winners))
    for kind, table in ratings.items():
        stored = {r.user_id: r for r in await services.ratings.rank(kind, limit=100)}
        assert set(stored) == set(table), kind
        for uid, (rating, experience, wins, losses) in table.items():
            row = stored[uid]
            assert row.rating == pytest.approx(rating, abs=1e-6), (kind, uid)
            assert (row.experience, row.wins, row.losses) == (experience, wins, losses)

    elapsed = time.monotonic() - started
    print(
        f"soak: {soak.moves} moves, {soak.applied} timeouts, {len(finished)} games finished, "
        f"{soak.refused_late_moves} late moves refused, {elapsed:.1f}s"
    )
