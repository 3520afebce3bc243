"""Tournament games get the tournament's clock (issue 18's: the time per move, each
player's bank, weekends off) exactly as a game begun from the Begin screen does: through
the services with the fake clock (it starts on Thursday 2026-01-01 12:00 UTC; the players
keep the server's zone, UTC)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from door.services.clock import FakeClock
from door.services.games import GameService, GameSnapshot
from door.services.timecontrol import ClockOptions
from door.services.tournaments.service import TournamentError, Tournaments
from door.store.db import Database
from tests.tournaments.conftest import make_users

DAY = 86400
TWO_DAYS_BANK = ClockOptions(move_s=DAY, bank_s=2 * DAY, weekends_off=True)


async def the_game(tours: Tournaments, games: GameService, tid: int) -> GameSnapshot:
    (table,) = [t for t in (await tours.show(tid)).tables if t.game_id is not None]
    assert table.game_id is not None
    return await games.get(table.game_id)


async def a_two_player_cup(
    db: Database, clock: FakeClock, tours: Tournaments, game_clock: ClockOptions | None,
    **kw: object,
) -> int:  # fmt: skip
    users = await make_users(db, clock, 2)
    cup = ("Cup", "backgammon", "knockout", 2)
    tid = await tours.create(users[0], *cup, clock=game_clock, **kw)  # type: ignore[arg-type]
    for u in users:
        await tours.enter(tid, u)
    return tid


async def play_first_move(games: GameService, snap: GameSnapshot) -> GameSnapshot:
    rules = games.rules_for(snap.info.kind)
    seat = snap.info.to_act
    user = next(s.user_id for s in snap.info.seats if s.seat == seat)
    assert user is not None
    move = rules.format_move(snap.state, rules.legal_moves(snap.state)[0])
    return await games.submit(snap.info.id, user, move, snap.info.version)


async def test_a_tournament_game_has_the_tournaments_bank_and_weekends_off(
    db: Database, clock: FakeClock, games: GameService, tours: Tournaments
) -> None:
    tid = await a_two_player_cup(db, clock, tours, TWO_DAYS_BANK)
    info = (await the_game(tours, games, tid)).info
    assert info.deadline_hours == 24
    assert info.bank_s == 2 * DAY and info.weekends_off
    assert [s.bank_s for s in info.seats] == [2 * DAY, 2 * DAY]
    # Friday 12:00 the move's own time is up; the bank runs to Saturday 00:00 (12 h),
    # stops for the weekend and runs the other 36 h from Monday 00:00
    assert info.move_deadline == datetime(2026, 1, 2, 12, tzinfo=UTC)
    assert info.deadline == datetime(2026, 1, 6, 12, tzinfo=UTC)


async def test_a_move_slower_than_the_time_per_move_draws_from_the_bank_not_a_timeout(
    db: Database, clock: FakeClock, games: GameService, tours: Tournaments
) -> None:
    tid = await a_two_player_cup(db, clock, tours, TWO_DAYS_BANK)
    start = await the_game(tours, games, tid)
    mover = start.info.to_act
    clock.advance(timedelta(hours=30))  # 6 h beyond the move's 24
    assert await games.sweep_deadlines() == 0
    after = await play_first_move(games, await games.get(start.info.id))
    assert after.info.status == "active"
    bank = next(s.bank_s for s in after.info.seats if s.seat == mover)
    assert bank == 2 * DAY - 6 * 3600


async def test_without_a_bank_the_same_slow_move_is_a_timeout(
    db: Database, clock: FakeClock, games: GameService, tours: Tournaments
) -> None:
    tid = await a_two_player_cup(db, clock, tours, ClockOptions(move_s=DAY))
    start = await the_game(tours, games, tid)
    clock.advance(timedelta(hours=30))
    assert await games.sweep_deadlines() == 1
    await tours.settle()
    assert (await games.get(start.info.id)).info.status == "finished"
    assert (await tours.show(tid)).record.status == "finished"


async def test_the_clock_is_kept_with_the_tournament_and_shown(
    db: Database, clock: FakeClock, games: GameService, tours: Tournaments
) -> None:
    users = await make_users(db, clock, 1)
    tid = await tours.create(users[0], "Cup", "backgammon", "knockout", 4, clock=TWO_DAYS_BANK)
    shown = (await tours.show(tid)).as_json()["clock"]
    assert shown == {"move_hours": 24, "bank_days": 2, "weekends_off": True}


async def test_an_event_given_only_a_deadline_plays_it_per_move_with_no_bank(
    db: Database, clock: FakeClock, games: GameService, tours: Tournaments
) -> None:
    tid = await a_two_player_cup(db, clock, tours, None, deadline_hours=48)
    info = (await the_game(tours, games, tid)).info
    assert (info.deadline_hours, info.bank_s, info.weekends_off) == (48, 0, False)
    assert info.deadline == clock.now() + timedelta(hours=48)


@pytest.mark.parametrize(
    "bad", [ClockOptions(move_s=1800), ClockOptions(bank_s=61 * DAY), ClockOptions(move_s=5400)]
)
async def test_a_clock_no_game_could_have_is_refused_at_creation(
    db: Database, clock: FakeClock, tours: Tournaments, bad: ClockOptions
) -> None:
    users = await make_users(db, clock, 1)
    with pytest.raises(TournamentError, match="time"):
        await tours.create(users[0], "Cup", "backgammon", "knockout", 4, clock=bad)
    assert await tours.listing(("open",)) == []


async def test_the_clock_may_be_changed_before_the_start_and_the_games_get_the_new_one(
    db: Database, clock: FakeClock, games: GameService, tours: Tournaments
) -> None:
    users = await make_users(db, clock, 2)
    tid = await tours.create(users[0], "Cup", "backgammon", "knockout", 2)
    await tours.edit(tid, clock=ClockOptions(move_s=3 * DAY, bank_s=5 * DAY))
    for u in users:
        await tours.enter(tid, u)
    info = (await the_game(tours, games, tid)).info
    assert (info.deadline_hours, info.bank_s, info.weekends_off) == (72, 5 * DAY, False)


async def test_edits_of_one_part_of_the_clock_each_keep_the_other_parts_as_stored(
    db: Database, clock: FakeClock, games: GameService, tours: Tournaments
) -> None:
    users = await make_users(db, clock, 2)
    tid = await tours.create(users[0], "Cup", "backgammon", "knockout", 2, clock=TWO_DAYS_BANK)
    await tours.edit(tid, bank_s=5 * DAY)
    await tours.edit(tid, move_s=3 * DAY)
    await tours.edit(tid, weekends_off=False)
    for u in users:
        await tours.enter(tid, u)
    info = (await the_game(tours, games, tid)).info
    assert (info.deadline_hours, info.bank_s, info.weekends_off) == (72, 5 * DAY, False)


async def test_an_edit_of_one_part_of_the_clock_is_checked_with_the_rest(
    db: Database, clock: FakeClock, tours: Tournaments
) -> None:
    users = await make_users(db, clock, 1)
    tid = await tours.create(users[0], "Cup", "backgammon", "knockout", 4, clock=TWO_DAYS_BANK)
    with pytest.raises(TournamentError, match="bank"):
        await tours.edit(tid, bank_s=61 * DAY)
    assert (await tours.show(tid)).record.options["clock"] == {
        "move_s": DAY, "bank_s": 2 * DAY, "weekends_off": True,
    }  # fmt: skip


async def test_an_edit_cannot_make_fewer_places_than_have_entered(
    db: Database, clock: FakeClock, games: GameService, tours: Tournaments
) -> None:
    users = await make_users(db, clock, 3)
    tid = await tours.create(users[0], "Cup", "backgammon", "knockout", 8)
    for u in users:
        await tours.enter(tid, u)
    with pytest.raises(TournamentError, match="3 have entered already"):
        await tours.edit(tid, size=2)
    await tours.edit(tid, size=3)  # exactly full: it starts
    assert (await tours.show(tid)).record.status == "running"
