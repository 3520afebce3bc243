"""Who may create tournaments, editing before the start, and recurring editions."""

from __future__ import annotations

import pytest

from door.services.clock import FakeClock
from door.services.games import GameService
from door.services.tournaments.service import TournamentError, Tournaments
from door.store.db import Database
from tests.tournaments.conftest import make_users
from tests.tournaments.drive import play_out


async def test_an_ordinary_player_may_not_create_one_unless_the_setting_allows(
    db: Database, clock: FakeClock, games: GameService, tours: Tournaments
) -> None:
    users = await make_users(db, clock, 2)
    with pytest.raises(TournamentError, match="only sysops"):
        await tours.create(users[1], "Mine", "backgammon", "knockout", 4)
    allowed = Tournaments(db, games, clock, players_may_create=True)
    assert await allowed.create(users[1], "Mine", "backgammon", "knockout", 4) > 0


async def test_a_tournament_is_edited_before_the_start_and_not_after(
    db: Database, clock: FakeClock, games: GameService, tours: Tournaments
) -> None:
    users = await make_users(db, clock, 2)
    tid = await tours.create(users[0], "Cup", "backgammon", "knockout", 8)
    await tours.edit(tid, name="Winter cup", size=2)
    assert (await tours.show(tid)).record.name == "Winter cup"
    for u in users:
        await tours.enter(tid, u)
    assert (await tours.show(tid)).record.status == "running"  # full at size 2
    with pytest.raises(TournamentError, match="only before it starts"):
        await tours.edit(tid, name="Other")


async def test_a_recurring_event_opens_its_next_edition_when_one_fills(
    db: Database, clock: FakeClock, games: GameService, tours: Tournaments
) -> None:
    users = await make_users(db, clock, 4)
    first = await tours.create(users[0], "Weekly", "backgammon", "knockout", 2, recurring=True)
    for u in users[:2]:
        await tours.enter(first, u)
    opened = [t for t in await tours.listing(("open",)) if t.name == "Weekly"]
    assert len(opened) == 1 and opened[0].id != first
    await play_out(tours, games, clock, first)
    again = [t for t in await tours.listing(("open",)) if t.name == "Weekly"]
    assert [t.id for t in again] == [opened[0].id]  # one open edition at a time


async def test_withdrawing_before_the_start_frees_the_place(
    db: Database, clock: FakeClock, games: GameService, tours: Tournaments
) -> None:
    users = await make_users(db, clock, 3)
    tid = await tours.create(users[0], "Cup", "backgammon", "knockout", 2)
    await tours.enter(tid, users[1])
    await tours.withdraw(tid, users[1])
    await tours.enter(tid, users[2])
    assert (await tours.show(tid)).record.status == "open"
    await tours.enter(tid, users[1])
    assert (await tours.show(tid)).record.status == "running"
