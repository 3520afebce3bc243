"""Turn deadlines: the sweeper applies the game's timeout rule, once, on an injected clock."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest

from door.services.accounts import User
from door.services.clock import FakeClock
from door.services.games import GameService, GameSnapshot, SeatSpec, StaleVersionError
from tests.services.test_games import player_to_act, two_player_game

ME, OPEN = SeatSpec("me"), SeatSpec("open")


async def started(
    games: GameService, a: User, b: User, hours: int = 24, heap: int = 50
) -> GameSnapshot:
    info = await games.begin(a.id, "nim", {"heap": heap}, [ME, OPEN], deadline_hours=hours)
    await games.join(info.id, b.id)
    return await games.get(info.id)


async def test_nothing_times_out_before_the_deadline(
    games: GameService, clock: FakeClock, alice: User, bob: User
) -> None:
    snap = await started(games, alice, bob, hours=24)
    clock.advance(timedelta(hours=23, minutes=59))
    assert await games.sweep_deadlines() == 0
    assert (await games.get(snap.info.id)).info.version == snap.info.version


async def test_a_late_player_passes_as_a_system_event(
    games: GameService, clock: FakeClock, alice: User, bob: User
) -> None:
    snap = await started(games, alice, bob, hours=24)
    late = snap.info.to_act
    clock.advance(timedelta(hours=24))
    assert await games.sweep_deadlines() == 1
    after = await games.get(snap.info.id)
    assert after.info.to_act != late
    assert after.info.seats[late or 0].timeouts == 1
    assert after.info.deadline == clock.now() + timedelta(hours=24)
    timeout_events = [
        e for e in await games.events(snap.info.id, snap.info.last_seq) if e.kind == "system"
    ]
    assert [(e.seat, e.payload) for e in timeout_events] == [(late, {"action": "timeout"})]


async def test_a_move_resets_the_deadline(
    games: GameService, clock: FakeClock, alice: User, bob: User
) -> None:
    snap = await started(games, alice, bob, hours=24)
    clock.advance(timedelta(hours=20))
    snap = await games.submit(snap.info.id, player_to_act(snap), "1", snap.info.version)
    clock.advance(timedelta(hours=20))
    assert await games.sweep_deadlines() == 0
    assert snap.info.deadline == clock.now() + timedelta(hours=4)


async def test_the_third_timeout_of_one_seat_forfeits_the_game(
    games: GameService, clock: FakeClock, alice: User, bob: User
) -> None:
    snap = await started(games, alice, bob, hours=1)
    sleeper = snap.info.to_act
    assert sleeper is not None
    for _ in range(3):
        # the sleeper times out, the other player moves at once
        clock.advance(timedelta(hours=1))
        assert await games.sweep_deadlines() == 1
        snap = await games.get(snap.info.id)
        if snap.info.status != "active":
            break
        snap = await games.submit(snap.info.id, player_to_act(snap), "1", snap.info.version)
    assert snap.info.status == "finished"
    assert snap.info.outcome is not None
    assert snap.info.outcome.reason == "timeout"
    assert snap.info.outcome.winners == (1 - sleeper,)
    assert snap.info.seats[sleeper].timeouts == 3
    last = (await games.events(snap.info.id))[-1]
    assert last.payload == {"action": "forfeit", "reason": "timeout"}


async def test_concurrent_sweepers_apply_each_timeout_once(
    games: GameService, clock: FakeClock, alice: User, bob: User, carol: User
) -> None:
    first = await started(games, alice, bob)
    second = await started(games, bob, carol)
    clock.advance(timedelta(days=2))
    counts = await asyncio.gather(*(games.sweep_deadlines() for _ in range(4)))
    assert sum(counts) == 2
    for snap in (first, second):
        events = await games.events(snap.info.id, snap.info.last_seq)
        assert sum(e.kind == "system" for e in events) == 1


async def test_a_move_made_after_the_timeout_was_applied_is_stale(
    games: GameService, clock: FakeClock, alice: User, bob: User
) -> None:
    snap = await started(games, alice, bob)
    clock.advance(timedelta(days=1))
    await games.sweep_deadlines()
    with pytest.raises(StaleVersionError):
        await games.submit(snap.info.id, player_to_act(snap), "1", snap.info.version)


async def test_finished_and_open_games_never_time_out(
    games: GameService, clock: FakeClock, alice: User, bob: User
) -> None:
    await games.begin(alice.id, "nim", {}, [ME, OPEN])
    snap = await two_player_game(games, alice, bob, heap=1)
    await games.submit(snap.info.id, player_to_act(snap), "1", snap.info.version)
    clock.advance(timedelta(days=60))
    assert await games.sweep_deadlines() == 0


async def test_one_game_whose_timeout_fails_does_not_stop_the_sweep(
    games: GameService,
    clock: FakeClock,
    alice: User,
    bob: User,
    carol: User,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    broken = await started(games, alice, bob)
    fine = await started(games, bob, carol, heap=49)  # never the same state as ``broken``
    rules = games.registry["nim"]
    original = rules.on_timeout

    def on_timeout(state: object) -> object:
        if state == broken.state:
            raise ValueError("the rules cannot time this out")
        return original(state)

    monkeypatch.setattr(rules, "on_timeout", on_timeout)
    clock.advance(timedelta(days=2))
    assert await games.sweep_deadlines() == 1
    assert (await games.get(fine.info.id)).info.version == fine.info.version + 1
    assert (await games.get(broken.info.id)).info.version == broken.info.version
