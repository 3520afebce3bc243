"""The clock in games: banks drawn on by slow moves, weekends off, vacations and zones
moving the deadline, and the timeout only once the move's time and the bank are spent."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from door.services.accounts import User
from door.services.clock import FakeClock
from door.services.games import GameService, GameSnapshot, LobbyError, SeatSpec
from door.services.timecontrol import ClockOptions
from door.services.vacations import PlayerClocks, VacationError
from tests.services.test_games import player_to_act

ME, OPEN = SeatSpec("me"), SeatSpec("open")
HOUR, DAY = 3600, 86400


@pytest.fixture
def clocks(games: GameService, clock: FakeClock) -> PlayerClocks:
    return PlayerClocks(games.core, clock, days_per_year=14)


async def started(
    games: GameService, a: User, b: User, clock_options: ClockOptions
) -> GameSnapshot:
    info = await games.begin(a.id, "nim", {"heap": 100}, [ME, OPEN], clock=clock_options)
    await games.join(info.id, b.id)
    return await games.get(info.id)


def bank_of(snap: GameSnapshot, seat: int) -> int:
    return snap.info.seats[seat].bank_s


async def test_every_seat_starts_with_the_games_bank(
    games: GameService, alice: User, bob: User
) -> None:
    snap = await started(games, alice, bob, ClockOptions(DAY, 5 * DAY, False))
    assert [s.bank_s for s in snap.info.seats] == [5 * DAY, 5 * DAY]
    assert snap.info.move_deadline is not None and snap.info.deadline is not None
    assert snap.info.deadline - snap.info.move_deadline == timedelta(days=5)


async def test_a_move_within_its_time_keeps_the_whole_bank(
    games: GameService, clock: FakeClock, alice: User, bob: User
) -> None:
    snap = await started(games, alice, bob, ClockOptions(DAY, 2 * DAY, False))
    mover = snap.info.to_act or 0
    clock.advance(timedelta(hours=23))
    snap = await games.submit(snap.info.id, player_to_act(snap), "1", snap.info.version)
    assert bank_of(snap, mover) == 2 * DAY


async def test_a_slow_move_pays_the_excess_from_the_bank(
    games: GameService, clock: FakeClock, alice: User, bob: User
) -> None:
    snap = await started(games, alice, bob, ClockOptions(DAY, 2 * DAY, False))
    mover = snap.info.to_act or 0
    clock.advance(timedelta(hours=30, seconds=1, microseconds=5))
    snap = await games.submit(snap.info.id, player_to_act(snap), "1", snap.info.version)
    assert bank_of(snap, mover) == 2 * DAY - 6 * HOUR - 2  # rounded up to the second


async def test_no_timeout_while_the_bank_lasts_and_one_when_it_is_spent(
    games: GameService, clock: FakeClock, alice: User, bob: User
) -> None:
    snap = await started(games, alice, bob, ClockOptions(DAY, DAY, False))
    late = snap.info.to_act or 0
    clock.advance(timedelta(days=2) - timedelta(seconds=1))
    assert await games.sweep_deadlines() == 0
    clock.advance(timedelta(seconds=1))
    assert await games.sweep_deadlines() == 1
    assert await games.sweep_deadlines() == 0
    after = await games.get(snap.info.id)
    assert after.info.seats[late].timeouts == 1
    assert bank_of(after, late) == 0
    assert after.info.to_act != late


async def test_weekends_off_carry_the_deadline_over_the_weekend(
    games: GameService, clock: FakeClock, alice: User, bob: User
) -> None:
    clock.advance(datetime(2026, 12, 4, 20, 0, tzinfo=UTC) - clock.now())  # a Friday
    snap = await started(games, alice, bob, ClockOptions(24 * HOUR, 0, True))
    # the server's zone is UTC here: 4 h on Friday, 20 h from Monday 00:00
    assert snap.info.deadline == datetime(2026, 12, 7, 20, 0, tzinfo=UTC)


async def test_the_movers_zone_decides_the_weekend(
    games: GameService, clocks: PlayerClocks, clock: FakeClock, alice: User, bob: User
) -> None:
    clock.advance(datetime(2026, 12, 4, 20, 0, tzinfo=UTC) - clock.now())
    snap = await started(games, alice, bob, ClockOptions(24 * HOUR, 0, True))
    mover = player_to_act(snap)
    await clocks.set_time_zone(mover, "pacific/auckland")  # already Saturday there
    after = await games.get(snap.info.id)
    # Saturday 00:00 Auckland is Friday 11:00 UTC; Monday 00:00 there is Sunday 11:00 UTC
    assert after.info.deadline == datetime(2026, 12, 7, 11, 0, tzinfo=UTC)


async def test_a_vacation_stops_the_clock_in_every_game(
    games: GameService, clocks: PlayerClocks, clock: FakeClock, alice: User, bob: User,
    carol: User,
) -> None:  # fmt: skip
    one = await started(games, alice, bob, ClockOptions(DAY, 0, False))
    two = await started(games, alice, carol, ClockOptions(DAY, 0, False))
    waiting = [s for s in (one, two) if player_to_act(s) == alice.id]
    clock.advance(timedelta(hours=6))
    await clocks.start(alice.id, 3)
    for snap in waiting:
        after = await games.get(snap.info.id)
        assert after.info.deadline == snap.info.deadline + timedelta(days=3)
    clock.advance(timedelta(days=1))
    assert await games.sweep_deadlines() == sum(1 for s in (one, two) if s not in waiting)


async def test_ending_a_vacation_early_gives_the_clock_back_and_keeps_the_days(
    games: GameService, clocks: PlayerClocks, clock: FakeClock, alice: User, bob: User
) -> None:
    snap = await started(games, alice, bob, ClockOptions(DAY, 0, False))
    mover = player_to_act(snap)
    clock.advance(timedelta(hours=6))
    await clocks.start(mover, 5)
    clock.advance(timedelta(days=1))
    await clocks.end(mover)
    after = await games.get(snap.info.id)
    assert after.info.deadline == snap.info.deadline + timedelta(days=1)
    status = await clocks.status(mover)
    assert status.vacation is None and status.days_left == 13


async def test_a_planned_vacation_counts_from_its_date(
    games: GameService, clocks: PlayerClocks, clock: FakeClock, alice: User, bob: User
) -> None:
    snap = await started(games, alice, bob, ClockOptions(2 * DAY, 0, False))
    mover = player_to_act(snap)
    await clocks.start(mover, 2, clock.now() + timedelta(days=1))
    after = await games.get(snap.info.id)
    assert after.info.deadline == snap.info.deadline + timedelta(days=2)
    assert await clocks.away_until([mover]) == {}
    clock.advance(timedelta(days=1, hours=1))
    assert await games.db.run_read(lambda r: r.users_on_vacation([mover, 999], clock.now())) == (
        frozenset({mover})
    )


async def test_a_move_to_a_player_on_vacation_gives_them_their_time_after_it(
    games: GameService, clocks: PlayerClocks, clock: FakeClock, alice: User, bob: User
) -> None:
    snap = await started(games, alice, bob, ClockOptions(DAY, 0, False))
    mover = player_to_act(snap)
    other = bob.id if mover == alice.id else alice.id
    await clocks.start(other, 3, clock.now() + timedelta(hours=2))
    clock.advance(timedelta(hours=1))
    snap = await games.submit(snap.info.id, mover, "1", snap.info.version)
    assert player_to_act(snap) == other
    # the turn runs an hour, stops for the three days, then runs its other 23 hours
    assert snap.info.deadline == clock.now() + timedelta(days=4)
    assert snap.info.move_deadline == snap.info.deadline
    assert (await games.get(snap.info.id)).info.deadline == snap.info.deadline


async def test_a_slow_move_pays_from_the_bank_only_for_its_time_off_vacation(
    games: GameService, clocks: PlayerClocks, clock: FakeClock, alice: User, bob: User
) -> None:
    snap = await started(games, alice, bob, ClockOptions(DAY, 2 * DAY, False))
    mover_seat = snap.info.to_act or 0
    mover = player_to_act(snap)
    clock.advance(timedelta(hours=2))
    await clocks.start(mover, 1)
    clock.advance(timedelta(days=1, hours=30))  # 24 h away, 32 h of running time
    snap = await games.submit(snap.info.id, mover, "1", snap.info.version)
    assert bank_of(snap, mover_seat) == 2 * DAY - 8 * HOUR
    assert bank_of(await games.get(snap.info.id), mover_seat) == 2 * DAY - 8 * HOUR


async def test_the_yearly_allowance_is_kept_to(
    clocks: PlayerClocks, clock: FakeClock, alice: User
) -> None:
    with pytest.raises(VacationError, match="14 vacation days left"):
        await clocks.start(alice.id, 15)
    await clocks.start(alice.id, 10)
    with pytest.raises(VacationError, match="already have a vacation"):
        await clocks.start(alice.id, 1)
    clock.advance(timedelta(days=11))
    with pytest.raises(VacationError, match="4 vacation days left"):
        await clocks.start(alice.id, 5)


async def test_an_unknown_zone_is_refused_and_nothing_changes(
    clocks: PlayerClocks, alice: User, accounts: object
) -> None:
    with pytest.raises(VacationError, match="not a time zone"):
        await clocks.set_time_zone(alice.id, "Mars/Olympus")
    assert await clocks.set_time_zone(alice.id, "Asia/Kolkata") == "Asia/Kolkata"
    user = await clocks.core.db.run_read(lambda r: r.user(alice.id))
    assert user is not None and user.time_zone == "Asia/Kolkata"


async def test_clock_options_out_of_range_are_refused(
    games: GameService, alice: User
) -> None:
    with pytest.raises(LobbyError, match="time bank"):
        await games.begin(
            alice.id, "nim", {}, [ME, OPEN], clock=ClockOptions(DAY, 61 * DAY, False)
        )
