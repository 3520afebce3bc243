"""Work that must happen once happens once, with several processes on one database: each
overdue turn is timed out by one sweeper, each bot turn is thought about by one bot
runner, and a runner killed with SIGKILL mid-turn has its turn taken over.

A "process" here is what a ``door`` process has of its own: a ``Database`` (its engine
and connections) and the services on it; the take-over test kills a real one.
"""

from __future__ import annotations

import asyncio
import logging
import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from door.games.registry import build_registry
from door.services import Services
from door.services.accounts import Accounts, User
from door.services.bots import BotBrains, BotRunner
from door.services.claims import Leases
from door.services.clock import FakeClock
from door.services.games import GameService, GameSnapshot, SeatSpec
from door.services.notify import LocalHub
from door.services.ratings import Ratings
from door.store.db import Database
from tests.services.conftest import NIM_BOTS
from tests.services.nim import NimRules

ROOT = Path(__file__).resolve().parents[2]
ME, OPEN = SeatSpec("me"), SeatSpec("open")
GREEDY = SeatSpec("bot", "spectrangle-greedy")


def nim_process(url: str, clock: FakeClock) -> tuple[Database, GameService]:
    """Another process's game service on the same database."""
    db = Database(url)
    games = GameService(db, {"nim": NimRules()}, LocalHub(), clock, random.Random(5),
                        bot_levels=NIM_BOTS)  # fmt: skip
    return db, games


def bots_process(url: str, clock: FakeClock) -> Services:
    """Another process's services (the real games, for the bots) on the same database."""
    db = Database(url)
    hub = LocalHub()
    return Services(
        db=db,
        accounts=Accounts(db, clock),
        games=GameService(db, build_registry(), hub, clock, random.Random(9)),
        ratings=Ratings(db),
        hub=hub,
        clock=clock,
    )


class CountingBrains(BotBrains):
    """The real move choosers, counting how often they are asked to choose."""

    def __init__(self) -> None:
        super().__init__(random.Random(3))
        self.calls = 0

    def choose(self, kind: str, level: str, state: Any) -> str:
        self.calls += 1
        return super().choose(kind, level, state)


async def overdue_games(games: GameService, players: list[User], n: int) -> list[int]:
    ids = []
    for i in range(n):
        a, b = players[i % len(players)], players[(i + 1) % len(players)]
        info = await games.begin(a.id, "nim", {"heap": 20}, [ME, OPEN], deadline_hours=1)
        await games.join(info.id, b.id)
        ids.append(info.id)
    return ids


async def test_two_sweepers_time_out_300_overdue_games_each_once_with_one_attempt_each(
    db: Database, games: GameService, clock: FakeClock, alice: User, bob: User, carol: User
) -> None:
    ids = await overdue_games(games, [alice, bob, carol], 300)
    clock.advance(timedelta(hours=2))
    other_db, other = nim_process(db.url, clock)
    try:
        applied = await asyncio.gather(games.sweep_deadlines(), other.sweep_deadlines())
        attempts = (games.deadlines.attempts, other.deadlines.attempts)
    finally:
        await other_db.dispose()
    assert sum(applied) == 300
    assert sum(attempts) == 300  # no game tried by both: the claim came first
    if not db.is_sqlite:
        # both really swept side by side (on SQLite a free database runs a transaction
        # without yielding, so one process's sweep finishes before the other's begins)
        assert min(attempts) > 0
    for game_id in ids:
        log = await games.events(game_id)
        timeouts = [e for e in log if e.payload.get("action") == "timeout"]
        assert len(timeouts) == 1


async def test_a_sweep_after_the_other_process_swept_attempts_nothing(
    db: Database, games: GameService, clock: FakeClock, alice: User, bob: User
) -> None:
    await overdue_games(games, [alice, bob], 5)
    clock.advance(timedelta(hours=2))
    other_db, other = nim_process(db.url, clock)
    try:
        assert await other.sweep_deadlines() == 5
        assert await games.sweep_deadlines() == 0
        assert games.deadlines.attempts == 0
    finally:
        await other_db.dispose()


async def test_of_many_processes_asking_for_one_lease_at_once_exactly_one_gets_it(
    db: Database,
) -> None:
    dbs = [Database(db.url) for _ in range(4)]
    try:
        askers = [Leases(d, "bot-turn", owner=f"p{i}-{j}") for i, d in enumerate(dbs)
                  for j in range(5)]  # fmt: skip
        got = await asyncio.gather(*(a.take(42) for a in askers))
        winners = [a.owner for a, lease in zip(askers, got, strict=True) if lease is not None]
        assert len(winners) == 1
        assert await lease_holder(db, 42) == winners[0]
        for lease in got:
            if lease is not None:
                await lease.release()
        assert await lease_holder(db, 42) is None
    finally:
        for d in dbs:
            await d.dispose()


async def test_a_held_lease_outlives_its_length_by_renewal_and_is_free_once_released(
    db: Database,
) -> None:
    first, second = Leases(db, "bot-turn", ttl_s=0.3), Leases(db, "bot-turn", ttl_s=0.3)
    held = await first.take(7)
    assert held is not None
    assert await second.take(7) is None
    await asyncio.sleep(0.6)  # twice its length: renewed every 0.1 s meanwhile
    assert await second.take(7) is None
    assert await second.expired() == []
    await held.release()
    taken = await second.take(7)
    assert taken is not None and not held.lost
    await taken.release()


async def at_bots_turn(
    services: Services, uid: int, kind: str = "spectrangle", bot: SeatSpec = GREEDY
) -> GameSnapshot:
    """A game between ``uid`` and a bot, brought to the bot's turn."""
    rules: Any = services.games.registry[kind]
    options = {"match_length": 1} if kind == "backgammon" else {}
    info = await services.games.begin(uid, kind, options, [ME, bot])
    snap = await services.games.get(info.id)
    while snap.info.is_waiting_on(uid):
        move = rules.format_move(snap.state, rules.legal_moves(snap.state)[0])
        snap = await services.games.submit(info.id, uid, move, snap.info.version)
    return snap


async def wait_until(check: Any, timeout: float) -> None:
    end = time.monotonic() + timeout
    while not await check():
        if time.monotonic() > end:
            raise AssertionError("timed out")
        await asyncio.sleep(0.02)


@pytest.fixture
async def two_bot_processes(db: Database, clock: FakeClock) -> AsyncIterator[list[Services]]:
    procs = [bots_process(db.url, clock), bots_process(db.url, clock)]
    yield procs
    for proc in procs:
        await proc.close()


async def test_two_bot_runners_think_about_each_of_30_turns_once(
    two_bot_processes: list[Services], alice: User
) -> None:
    here = two_bot_processes[0]
    turns = [await at_bots_turn(here, alice.id) for _ in range(30)]
    brains = [CountingBrains(), CountingBrains()]
    # both start at once, as after a restart of both: each start-up scan finds all 30
    runners = [
        BotRunner(proc, brains=b, think_delay=0.02, rescan_interval=0)
        for proc, b in zip(two_bot_processes, brains, strict=True)
    ]
    for proc, runner in zip(two_bot_processes, runners, strict=True):
        proc.bots = runner
        runner.start()

    async def all_played() -> bool:
        snaps = [await here.games.get(t.info.id) for t in turns]
        return all(s.info.is_waiting_on(alice.id) for s in snaps)

    await wait_until(all_played, timeout=30)
    for runner in runners:
        await runner.idle()
    assert brains[0].calls + brains[1].calls == 30
    assert sum(r.moves_made for r in runners) == 30
    for t in turns:
        log = await here.games.events(t.info.id, t.info.last_seq)
        assert len([e for e in log if e.kind == "move"]) == 1
    # the two really met over the same turns (and the loser of each left it alone)
    refused = [r.leases.refused for r in runners if r.leases is not None]
    assert sum(refused) > 0


async def test_a_backgammon_turn_another_process_plays_does_not_load_the_engine_here(
    two_bot_processes: list[Services], alice: User
) -> None:
    here, there = two_bot_processes
    turn = await at_bots_turn(here, alice.id, "backgammon", SeatSpec("bot", "bg-expert"))
    holder = BotRunner(here, brains=CountingBrains(), think_delay=30, rescan_interval=0)
    here.bots = holder
    holder.start()

    async def held() -> bool:
        return await lease_holder(here.db, turn.info.id) is not None

    await wait_until(held, timeout=10)
    other = BotRunner(there, brains=CountingBrains(), rescan_interval=0)
    there.bots = other
    other.start()
    await other.ready()
    await wait_until(lambda: _refused(other), timeout=10)
    await asyncio.sleep(0.3)
    assert not other.brains.loaded


async def _refused(runner: BotRunner) -> bool:
    return runner.leases is not None and runner.leases.refused > 0


async def test_a_runner_that_does_not_play_leaves_bot_turns_and_the_engine_alone(
    services_run_false: Services, alice_on_it: int
) -> None:
    games = services_run_false.games
    spectrangle = await at_bots_turn(services_run_false, alice_on_it)
    # a backgammon bot sitting down makes a playing runner load the engine (~110 MB)
    backgammon = await games.begin(
        alice_on_it, "backgammon", {"match_length": 1}, [ME, SeatSpec("bot", "bg-expert")]
    )
    await asyncio.sleep(0.5)
    after = await games.get(spectrangle.info.id)
    assert after.info.version == spectrangle.info.version
    bots = services_run_false.bots
    assert isinstance(bots, BotRunner)
    assert not bots.brains.loaded
    # hints still work; backgammon's load the engine on first use
    assert await bots.hint("spectrangle", after.state, 2)
    assert not bots.brains.loaded
    state = (await games.get(backgammon.id)).state
    assert await bots.hint("backgammon", state, 1)
    assert bots.brains.loaded


@pytest.fixture
async def services_run_false(db: Database, clock: FakeClock) -> AsyncIterator[Services]:
    proc = bots_process(db.url, clock)
    proc.bots = BotRunner(proc, plays=False)
    proc.bots.start()
    await proc.bots.ready()
    yield proc
    await proc.close()


@pytest.fixture
async def alice_on_it(services_run_false: Services) -> int:
    return (await services_run_false.accounts.register("alice", "correct horse")).id


# --- take-over after kill -9 ------------------------------------------------------------------

DOOMED = textwrap.dedent(
    """
    import asyncio, random, sys
    from door.games.registry import build_registry
    from door.services import Services
    from door.services.accounts import Accounts
    from door.services.bots import BotRunner
    from door.services.claims import Leases
    from door.services.clock import SystemClock
    from door.services.games import GameService
    from door.services.notify import LocalHub
    from door.services.ratings import Ratings
    from door.store.db import Database

    async def main(url: str) -> None:
        db = Database(url)
        clock, hub = SystemClock(), LocalHub()
        svc = Services(db=db, accounts=Accounts(db, clock),
                       games=GameService(db, build_registry(), hub, clock, random.Random(1)),
                       ratings=Ratings(db), hub=hub, clock=clock)
        # it claims the turn, then "thinks" for an hour, renewing its claim
        runner = BotRunner(svc, think_delay=3600, rescan_interval=0,
                           leases=Leases(db, "bot-turn", owner="doomed", ttl_s=2.0))
        svc.bots = runner
        runner.start()
        await asyncio.Event().wait()

    asyncio.run(main(sys.argv[1]))
    """
)


async def lease_holder(db: Database, game_id: int) -> str | None:
    def read(conn: Any) -> str | None:
        found = conn.execute(
            text("SELECT owner FROM claims WHERE kind = 'bot-turn' AND item = :id"),
            {"id": game_id},
        ).first()
        return None if found is None else str(found[0])

    return await db.run_sync(read)


async def test_a_bot_turn_claimed_by_a_process_killed_with_sigkill_is_taken_over(
    db: Database, clock: FakeClock, caplog: pytest.LogCaptureFixture
) -> None:
    survivor = bots_process(db.url, clock)
    uid = (await survivor.accounts.register("alice", "correct horse")).id
    turn = await at_bots_turn(survivor, uid)
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    doomed = subprocess.Popen([sys.executable, "-c", DOOMED, db.url], env=env)
    try:

        async def doomed_holds_it() -> bool:
            assert doomed.poll() is None, "the claiming process died by itself"
            return await lease_holder(db, turn.info.id) == "doomed"

        await wait_until(doomed_holds_it, timeout=60)
        runner = BotRunner(
            survivor, brains=CountingBrains(), rescan_interval=0,
            leases=Leases(survivor.db, "bot-turn", owner="survivor", ttl_s=2.0),
        )  # fmt: skip
        survivor.bots = runner
        runner.start()
        await runner.ready()
        # while the holder lives it renews its claim: the survivor keeps off the turn
        await asyncio.sleep(3.0)
        assert runner.leases is not None and runner.leases.refused >= 1
        assert (await survivor.games.get(turn.info.id)).info.version == turn.info.version
        assert await lease_holder(db, turn.info.id) == "doomed"

        with caplog.at_level(logging.WARNING, logger="door.services.claims"):
            doomed.send_signal(signal.SIGKILL)
            doomed.wait()
            killed = time.monotonic()

            async def bot_moved() -> bool:
                snap = await survivor.games.get(turn.info.id)
                return snap.info.version > turn.info.version

            await wait_until(bot_moved, timeout=15)
            taken_over_after = time.monotonic() - killed
        # a 2 s lease, looked for every 1 s: within 3 s plus the move itself
        assert taken_over_after < 5.0
        assert any(
            r.getMessage().startswith(f"took over bot-turn {turn.info.id} from doomed")
            for r in caplog.records
        )
        await runner.idle()
        assert await lease_holder(db, turn.info.id) is None  # released after the move
        log = await survivor.games.events(turn.info.id, turn.info.last_seq)
        assert len([e for e in log if e.kind == "move"]) == 1
    finally:
        if doomed.poll() is None:
            doomed.kill()
            doomed.wait()
        await survivor.close()


HANGING_SWEEPER = textwrap.dedent(
    """
    import asyncio, sys, time
    from datetime import timedelta
    from door.services.clock import FakeClock
    from door.services.games import GameService
    from door.services.notify import LocalHub
    from door.store.db import Database
    from tests.services.nim import NimRules

    class Hanging(NimRules):
        def on_timeout(self, state):
            print("claimed", flush=True)
            time.sleep(3600)  # stuck inside its timeout transaction: the game stays locked

    async def main(url: str) -> None:
        clock = FakeClock()
        clock.advance(timedelta(hours=2))
        db = Database(url)
        games = GameService(db, {"nim": Hanging()}, LocalHub(), clock,
                            bot_levels={"nim": ("nim-bot",)})
        await games.sweep_deadlines()

    asyncio.run(main(sys.argv[1]))
    """
)


async def test_a_game_claimed_by_a_sweeper_killed_with_sigkill_is_timed_out_by_the_next(
    db: Database, games: GameService, clock: FakeClock, alice: User, bob: User
) -> None:
    if db.is_sqlite:
        pytest.skip("SQLite: a hung writer holds the whole database, not one game")
    ids = await overdue_games(games, [alice, bob], 3)
    clock.advance(timedelta(hours=2))
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    hung = subprocess.Popen(
        [sys.executable, "-c", HANGING_SWEEPER, db.url], env=env, stdout=subprocess.PIPE
    )
    try:
        assert hung.stdout is not None
        said = await asyncio.wait_for(asyncio.to_thread(hung.stdout.readline), 60)
        assert said == b"claimed\n"
        # the other games are this sweeper's; the claimed one is skipped, not waited for
        assert await asyncio.wait_for(games.sweep_deadlines(), 10) == 2
        assert games.deadlines.attempts == 2
        hung.send_signal(signal.SIGKILL)
        hung.wait()
        # PostgreSQL rolls the dead process's transaction back and frees the game
        killed = time.monotonic()
        while await games.sweep_deadlines() == 0:
            assert time.monotonic() - killed < 10, "the dead sweeper's game stayed locked"
            await asyncio.sleep(0.05)
    finally:
        if hung.poll() is None:
            hung.kill()
            hung.wait()
    assert games.deadlines.attempts == 3
    for game_id in ids:
        log = await games.events(game_id)
        assert len([e for e in log if e.payload.get("action") == "timeout"]) == 1
