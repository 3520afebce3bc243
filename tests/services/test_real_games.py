"""The service with the real rules: timeouts, forfeits, ratings and snapshots per kind."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest

from door.games.registry import build_registry
from door.services.accounts import Accounts, User
from door.services.clock import FakeClock
from door.services.games import GameService, GameSnapshot, SeatSpec
from door.services.notify import LocalHub
from door.services.ratings import Ratings
from door.store.db import Database

ME = SeatSpec("me")


@pytest.fixture
def real(db: Database, hub: LocalHub, clock: FakeClock) -> GameService:
    return GameService(db, build_registry(), hub, clock, random.Random(99))


async def backgammon(real: GameService, a: User, b: User, length: int) -> GameSnapshot:
    info = await real.begin(
        a.id, "backgammon", {"match_length": length}, [ME, SeatSpec("user", b.name)]
    )
    await real.join(info.id, b.id)
    return await real.get(info.id)


async def test_backgammon_starts_with_the_opening_roll_drawn(
    real: GameService, alice: User, bob: User
) -> None:
    snap = await backgammon(real, alice, bob, 5)
    assert snap.info.status == "active" and snap.info.to_act in (0, 1)
    chance = [e for e in await real.events(snap.info.id) if e.kind == "chance"]
    assert chance and all("chance" in e.payload for e in chance)
    rules = real.registry["backgammon"]
    assert rules.chance_pending(snap.state) is False
    assert rules.to_act(snap.state) == snap.info.to_act


async def test_a_late_backgammon_player_loses_the_match(
    real: GameService, clock: FakeClock, ratings: Ratings, alice: User, bob: User
) -> None:
    snap = await backgammon(real, alice, bob, 3)
    late = snap.info.to_act
    assert late is not None
    clock.advance(timedelta(days=8))
    assert await real.sweep_deadlines() == 1
    after = await real.get(snap.info.id)
    assert after.info.status == "finished"
    assert after.info.outcome is not None
    assert after.info.outcome.winners == (1 - late,)
    assert after.info.outcome.reason == "timeout"
    assert await real.replay_check(snap.info.id) is None


async def test_a_resigned_match_is_rated_with_the_fibs_formula(
    real: GameService, ratings: Ratings, alice: User, bob: User
) -> None:
    snap = await backgammon(real, alice, bob, 1)
    await real.resign(snap.info.id, alice.id)
    rows = {r.user_id: r for r in await ratings.rank("backgammon")}
    # both new (K = 5), a 1-point match: ±10 (reference/backgammon.md §4)
    assert rows[bob.id].rating == pytest.approx(1510.0)
    assert rows[alice.id].rating == pytest.approx(1490.0)
    assert rows[bob.id].experience == rows[alice.id].experience == 1
    assert (rows[bob.id].wins, rows[alice.id].losses) == (1, 1)


async def test_money_play_is_unrated(
    real: GameService, ratings: Ratings, alice: User, bob: User
) -> None:
    snap = await backgammon(real, alice, bob, 0)
    done = await real.resign(snap.info.id, alice.id)
    assert done.info.status == "finished"
    assert await ratings.rank("backgammon") == []


async def test_spectrangle_keeps_its_full_snapshot_not_just_the_spn(
    real: GameService, db: Database, alice: User, bob: User
) -> None:
    info = await real.begin(alice.id, "spectrangle", {}, [ME, SeatSpec("user", "Bob")])
    await real.join(info.id, bob.id)
    snap = await real.get(info.id)
    rules = real.registry["spectrangle"]
    from sqlalchemy import text

    stored = await db.run_sync(
        lambda c: c.execute(text("SELECT snapshot FROM games WHERE id = :i"), {"i": info.id})
        .scalar_one()
    )
    assert stored == rules.snapshot_id(snap.state)  # type: ignore[attr-defined]
    assert stored != rules.to_id(snap.state)


async def test_a_spectrangle_seat_that_times_out_three_times_forfeits(
    real: GameService, clock: FakeClock, accounts: Accounts, alice: User, bob: User, carol: User
) -> None:
    info = await real.begin(
        alice.id,
        "spectrangle",
        {},
        [ME, SeatSpec("user", "Bob"), SeatSpec("user", "Carol")],
        deadline_hours=1,
    )
    await real.join(info.id, bob.id)
    snap = await real.join(info.id, carol.id)
    snap_full = await real.get(info.id)
    sleeper = snap_full.info.to_act
    assert sleeper is not None
    rules = real.registry["spectrangle"]
    rng = random.Random(3)
    timeouts = 0
    while timeouts < 3:
        cur = await real.get(info.id)
        assert cur.info.status == "active"
        if cur.info.to_act == sleeper:
            clock.advance(timedelta(hours=1))
            assert await real.sweep_deadlines() == 1
            timeouts += 1
        else:
            seat = cur.info.to_act
            assert seat is not None
            uid = cur.info.seats[seat].user_id
            assert uid is not None
            move = rng.choice(list(rules.legal_moves(cur.state)))
            await real.submit(info.id, uid, rules.format_move(cur.state, move), cur.info.version)
    after = await real.get(info.id)
    assert after.info.seats[sleeper].timeouts == 3
    log = [
        e.payload for e in await real.events(info.id) if e.kind == "system" and e.seat == sleeper
    ]
    assert log[-3:] == [
        {"action": "timeout"},
        {"action": "timeout"},
        {"action": "forfeit", "reason": "timeout"},
    ]
    # three players: the other two play on
    assert after.info.status == "active"
    assert after.info.to_act != sleeper
    assert await real.replay_check(info.id) is None
    assert snap.status == "active"
