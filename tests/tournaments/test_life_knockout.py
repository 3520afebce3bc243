"""A knock-out played to the end through the services (games ended by scripted
resignations and by timeouts, not by real play: quicker, and the round logic is what is
under test)."""

from __future__ import annotations

from datetime import timedelta

from door.services.clock import FakeClock
from door.services.games import GameService
from door.services.tournaments.service import Tournaments
from door.store.db import Database
from tests.tournaments.conftest import make_users
from tests.tournaments.drive import play_out


async def test_an_eight_player_knockout_runs_to_one_winner(
    db: Database, clock: FakeClock, games: GameService, tours: Tournaments
) -> None:
    users = await make_users(db, clock, 8)
    tid = await tours.create(users[0], "Cup", "backgammon", "knockout", 8)
    for u in users:
        await tours.enter(tid, u)
    view = await tours.show(tid)
    assert view.record.status == "running"
    await play_out(tours, games, clock, tid)
    view = await tours.show(tid)
    assert view.record.status == "finished"
    assert view.record.rounds_made == 3
    assert view.winner_name is not None
    assert await tours.audit() == []


async def test_a_64_player_knockout_with_silent_players_ends_and_checks_clean(
    db: Database, clock: FakeClock, games: GameService, tours: Tournaments
) -> None:
    users = await make_users(db, clock, 64)
    silent = set(users[5::7])
    tid = await tours.create(users[0], "Big cup", "backgammon", "knockout", 64, deadline_hours=24)
    for u in users:
        await tours.enter(tid, u)
    await play_out(tours, games, clock, tid, silent=silent)
    view = await tours.show(tid)
    assert view.record.status == "finished"
    assert view.record.rounds_made == 6
    assert view.record.winner_id not in silent
    assert sum(1 for t in view.tables if t.game_id is not None) == 63
    assert await tours.audit() == []
    # every game of the event is an ordinary rated game: the ratings replay
    from door.services.ratings import Ratings

    assert (await Ratings(db).audit()).problems == []


async def test_a_round_is_advanced_once_however_often_it_is_asked(
    db: Database, clock: FakeClock, games: GameService, tours: Tournaments
) -> None:
    users = await make_users(db, clock, 4)
    tid = await tours.create(users[0], "Cup", "backgammon", "knockout", 4)
    for u in users:
        await tours.enter(tid, u)
    before = (await tours.show(tid)).record.rounds_made
    for _ in range(3):
        assert await tours.advance(tid) == 0
        await tours.sweep()
    assert (await tours.show(tid)).record.rounds_made == before == 1


async def test_too_few_entrants_at_the_start_time_cancel_it_with_a_notice(
    db: Database, clock: FakeClock, games: GameService, tours: Tournaments
) -> None:
    users = await make_users(db, clock, 2)
    start = clock.now() + timedelta(hours=2)
    tid = await tours.create(
        users[0], "Cup", "backgammon", "knockout", 8, starts_at=start, min_entrants=4
    )
    await tours.enter(tid, users[1])
    await tours.sweep()
    assert (await tours.show(tid)).record.status == "open"
    clock.advance(timedelta(hours=3))
    await tours.sweep()
    view = await tours.show(tid)
    assert view.record.status == "cancelled"
    assert "only 1 entered" in view.record.note


async def test_a_player_who_leaves_forfeits_the_game_being_played(
    db: Database, clock: FakeClock, games: GameService, tours: Tournaments
) -> None:
    users = await make_users(db, clock, 2)
    tid = await tours.create(users[0], "Duel", "backgammon", "knockout", 2)
    for u in users:
        await tours.enter(tid, u)
    await tours.withdraw(tid, users[0])
    await tours.settle()
    view = await tours.show(tid)
    assert view.record.status == "finished"
    assert view.record.winner_id == users[1]


async def test_fill_with_bots_enters_distinct_computer_accounts(
    db: Database, clock: FakeClock, games: GameService, tours: Tournaments
) -> None:
    tid = await tours.create(
        None, "Bots", "backgammon", "knockout", 4, fill_with_bots="bg-beginner", start_now=False
    )
    view = await tours.show(tid)
    names = sorted(e.user_name for e in view.entries)
    assert names == ["bg-beginner", "bg-beginner-2", "bg-beginner-3", "bg-beginner-4"]
    assert all(e.is_bot for e in view.entries)
    await tours.sweep()
    view = await tours.show(tid)
    assert view.record.status == "running"
    seats = (await games.get(view.tables[0].game_id or 0)).info.seats
    assert {s.kind for s in seats} == {"bot"}
    assert {s.name for s in seats} == {"bg-beginner"}


async def test_tournament_games_are_marked_in_game_lists_and_records(
    db: Database, clock: FakeClock, games: GameService, tours: Tournaments
) -> None:
    from door.services.export import Exporter

    users = await make_users(db, clock, 2)
    tid = await tours.create(users[0], "Marked cup", "backgammon", "knockout", 2)
    for u in users:
        await tours.enter(tid, u)
    listed, _ = await games.list_games("mine", users[0])
    assert [g.tournament for g in listed] == ["Marked cup, round 1"]
    record = await Exporter(games, public_finished=True).export(
        listed[0].id, "json", users[0]
    )
    assert '"tournament": "Marked cup, round 1"' in record.text
