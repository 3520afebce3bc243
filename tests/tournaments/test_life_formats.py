"""Whole round-robin, Swiss and ladder events through the services with a fake clock,
each ended by scripted resignations (not real play: the round logic is under test), then
checked as ``door check`` checks them."""

from __future__ import annotations

from datetime import timedelta

import pytest

from door.services.clock import FakeClock
from door.services.games import GameService
from door.services.ratings import Ratings
from door.services.tournaments.service import TournamentError, Tournaments
from door.store.db import Database
from tests.tournaments.conftest import make_users
from tests.tournaments.drive import play_out


async def test_a_ten_player_backgammon_round_robin_has_everyone_meet_everyone(
    db: Database, clock: FakeClock, games: GameService, tours: Tournaments
) -> None:
    users = await make_users(db, clock, 10)
    tid = await tours.create(users[0], "League", "backgammon", "roundrobin", 10)
    for u in users:
        await tours.enter(tid, u)
    await play_out(tours, games, clock, tid)
    view = await tours.show(tid)
    assert view.record.status == "finished"
    pairs = {frozenset(t.seats) for t in view.tables if t.game_id is not None}
    assert len(pairs) == 45  # every pair once
    assert view.record.winner_id == view.standings[0].user_id
    assert await tours.audit() == []
    assert (await Ratings(db).audit()).problems == []


async def test_a_nine_player_spectrangle_round_robin_at_tables_of_three_ends_clean(
    db: Database, clock: FakeClock, games: GameService, tours: Tournaments
) -> None:
    users = await make_users(db, clock, 9)
    tid = await tours.create(
        users[0], "Triangles", "spectrangle", "roundrobin", 9, table_size=3
    )
    for u in users:
        await tours.enter(tid, u)
    await play_out(tours, games, clock, tid)
    view = await tours.show(tid)
    assert view.record.status == "finished"
    assert {len(t.seats) for t in view.tables if t.game_id is not None} == {3}
    met = {frozenset((a, b)) for t in view.tables for a in t.seats for b in t.seats if a < b}
    assert len(met) == 36  # everyone met everyone
    assert await tours.audit() == []


async def test_a_thirty_player_five_round_swiss_pairs_no_one_twice(
    db: Database, clock: FakeClock, games: GameService, tours: Tournaments
) -> None:
    users = await make_users(db, clock, 30)
    tid = await tours.create(users[0], "Swiss", "backgammon", "swiss", 30, rounds=5)
    for u in users:
        await tours.enter(tid, u)
    await play_out(tours, games, clock, tid)
    view = await tours.show(tid)
    assert view.record.status == "finished"
    assert view.record.rounds_made == 5
    played = [frozenset(t.seats) for t in view.tables if t.game_id is not None]
    assert len(played) == len(set(played)) == 75
    assert await tours.audit() == []


async def test_a_ladder_over_sixty_days_moves_winners_up_and_closes(
    db: Database, clock: FakeClock, games: GameService, tours: Tournaments
) -> None:
    users = await make_users(db, clock, 8)
    tid = await tours.create(users[0], "Ladder", "backgammon", "ladder", 8, reach=2)
    for u in users:
        await tours.enter(tid, u)
    view = await tours.show(tid)
    assert view.record.status == "running"
    top_before = view.standings[0].user_id
    for day in range(60):
        view = await tours.show(tid)
        order = [s.user_id for s in view.standings]
        # the bottom player challenges the one two above, and the one above resigns
        challenger, target = order[-1], order[-3]
        game_id = await tours.challenge(tid, challenger, target)
        loser = target if day % 2 == 0 else challenger
        await games.resign(game_id, loser)
        await tours.settle()
        clock.advance(timedelta(days=1))
    clock.advance(timedelta(days=1))
    await tours.sweep()
    view = await tours.show(tid)
    assert view.record.status == "finished"
    assert view.record.winner_id == view.standings[0].user_id
    assert sorted(s.rank for s in view.standings) == list(range(1, 9))
    assert top_before is not None


async def test_a_ladder_challenge_beyond_the_reach_is_refused(
    db: Database, clock: FakeClock, games: GameService, tours: Tournaments
) -> None:
    users = await make_users(db, clock, 6)
    tid = await tours.create(users[0], "Ladder", "backgammon", "ladder", 6, reach=2)
    for u in users:
        await tours.enter(tid, u)
    order = [s.user_id for s in (await tours.show(tid)).standings]
    with pytest.raises(TournamentError, match="a few places above"):
        await tours.challenge(tid, order[-1], order[0])


async def test_a_ladder_challenge_not_answered_in_time_is_lost(
    db: Database, clock: FakeClock, games: GameService, tours: Tournaments
) -> None:
    from tests.tournaments.drive import finish_round

    users = await make_users(db, clock, 4)
    tid = await tours.create(
        users[0], "Ladder", "backgammon", "ladder", 4, reach=1, deadline_hours=24
    )
    for u in users:
        await tours.enter(tid, u)
    order = [s.user_id for s in (await tours.show(tid)).standings]
    challenger, target = order[3], order[2]
    await tours.challenge(tid, challenger, target)
    await finish_round(tours, games, clock, tid, silent={target})
    await tours.sweep()
    after = [s.user_id for s in (await tours.show(tid)).standings]
    assert after.index(challenger) == 2 and after.index(target) == 3
