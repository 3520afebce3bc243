"""A round-robin keeps the table draw it began with: an event stored before the designs
and the search (no ``draw`` in its options) goes on with the greedy draw, and ``door
check`` recomputes it that way; a new event records the latest draw."""

from __future__ import annotations

from dataclasses import replace

from door.services.clock import FakeClock
from door.services.games import GameService
from door.services.tournaments.roundrobin import (
    DRAW_LATEST,
    covering_schedule,
    greedy_schedule,
)
from door.services.tournaments.service import Tournaments
from door.store.db import Database
from door.store.repository import Repository
from tests.tournaments.conftest import make_users
from tests.tournaments.drive import play_out


async def _league(db: Database, clock: FakeClock, tours: Tournaments, *, old: bool) -> int:
    users = await make_users(db, clock, 12)
    tid = await tours.create(
        users[0], "Table league", "spectrangle", "roundrobin", 12, table_size=3
    )
    if old:

        def forget_draw(repo: Repository) -> None:
            tr = repo.tournaments()
            t = tr.lock(tid)
            assert t is not None
            options = {k: v for k, v in t.options.items() if k != "draw"}
            tr.save(replace(t, options=options, version=t.version + 1), t.version)

        await db.transact(forget_draw)
    for u in users:
        await tours.enter(tid, u)
    return tid


async def test_a_new_round_robin_records_the_latest_draw(
    db: Database, clock: FakeClock, tours: Tournaments
) -> None:
    tid = await _league(db, clock, tours, old=False)
    assert (await tours.show(tid)).record.options["draw"] == DRAW_LATEST


async def test_a_round_robin_stored_before_the_new_draw_ends_on_the_old_one(
    db: Database, clock: FakeClock, games: GameService, tours: Tournaments
) -> None:
    # the two draws differ at 12 players at 3: 8 greedy rounds against 7
    assert len(greedy_schedule(12, 3)) != len(covering_schedule(12, 3))
    tid = await _league(db, clock, tours, old=True)
    await play_out(tours, games, clock, tid)
    view = await tours.show(tid)
    assert view.record.status == "finished"
    assert max(t.round_no for t in view.tables) == len(greedy_schedule(12, 3))
    assert await tours.audit() == []
