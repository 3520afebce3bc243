"""The game lists' SQLite statements (written for SQLite's planner) give exactly the rows,
order and totals of the SQLAlchemy statements PostgreSQL runs, on a varied population:
open games with open and reserved seats, running, finished and abandoned games, a bot
account in two seats of one game, and games updated at the same instant (ties)."""

from __future__ import annotations

import random
import sqlite3
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from door.services.accounts import Accounts, User
from door.services.clock import FakeClock
from door.services.games import GameService, SeatSpec
from door.services.notify import LocalHub
from door.store import queries as q
from door.store.db import Database
from tests.services.nim import NimRules
from tests.store import dbutil

ME, OPEN = SeatSpec("me"), SeatSpec("open")
LISTS = ("open", "active", "mine", "waiting", "finished")


@pytest.fixture
async def sqlite_db(sqlite_template: Path, tmp_path: Path) -> AsyncIterator[Database]:
    database = Database(dbutil.fresh_sqlite(sqlite_template, tmp_path))
    yield database
    await database.dispose()


async def population(db: Database, seed: int) -> list[int]:
    """Games in every state between four people and a bot; returns the user ids."""
    clock = FakeClock()
    accounts = Accounts(db, clock)
    people: list[User] = [
        await accounts.register(name, f"{name}-pw") for name in ("Ann", "Ben", "Cat", "Dan")
    ]
    games = GameService(db, {"nim": NimRules()}, LocalHub(), clock, random.Random(seed))
    rng = random.Random(seed)
    for _ in range(40):
        a, b = rng.sample(people, 2)
        shape = rng.randrange(6)
        if shape == 0:
            await games.begin(a.id, "nim", {}, [ME, OPEN, SeatSpec("user", b.name)])
        elif shape == 1:
            info = await games.begin(a.id, "nim", {}, [ME, OPEN])
            await games.leave(info.id, a.id)  # abandoned
        else:
            seats = [ME, SeatSpec("user", b.name)]
            if shape == 2:
                seats += [SeatSpec("bot", "nim-bot"), SeatSpec("bot", "nim-bot")]
            info = await games.begin(a.id, "nim", {"heap": rng.randrange(2, 9)}, seats)
            for s in info.seats:
                if s.kind == "reserved" and s.user_id is not None:
                    info = await games.join(info.id, s.user_id)
            snap = await games.get(info.id)
            for _ in range(rng.randrange(6)):
                if snap.info.status != "active" or snap.info.to_act is None:
                    break
                mover = snap.info.seats[snap.info.to_act].user_id
                assert mover is not None
                if rng.random() < 0.1:
                    snap = await games.resign(snap.info.id, mover)
                    break
                snap = await games.submit(snap.info.id, mover, "1", snap.info.version)
        if rng.random() < 0.5:  # else the next game ties with this one on updated_at
            clock.advance(timedelta(minutes=rng.randrange(1, 90)))
    bot = await accounts.by_name("nim-bot")
    assert bot is not None
    return [p.id for p in people] + [bot.id]


@pytest.mark.parametrize("seed", [1, 2])
async def test_sqlite_lists_give_the_rows_order_and_totals_of_the_general_statements(
    sqlite_db: Database, seed: int
) -> None:
    users = await population(sqlite_db, seed)

    def compare(conn: Any) -> int:
        raw = q._raw(conn)
        assert raw is not None
        checked = 0
        for which in LISTS:
            for user in [None, *users]:
                if which in ("mine", "waiting") and user is None:
                    continue
                for kind in (None, "nim", "chess"):
                    for offset, limit in ((0, 100), (0, 3), (3, 3), (50, 10)):
                        fast = q._list_game_ids_raw(raw, which, user, kind, offset, limit)
                        general = q._list_game_ids_core(conn, which, user, kind, offset, limit)
                        assert fast == general, (which, user, kind, offset, limit)
                        checked += bool(fast[0])
        return checked

    assert await sqlite_db.run_read(compare) > 50  # most combinations list something


def plan(path: str, sql: str, args: list[Any]) -> str:
    with sqlite3.connect(path) as conn:
        return " / ".join(r[3] for r in conn.execute("EXPLAIN QUERY PLAN " + sql, args))


async def test_the_running_list_reads_its_page_from_the_index_without_sorting(
    sqlite_db: Database,
) -> None:
    await sqlite_db.upgrade()
    path = sqlite_db.url.split("///", 1)[1]
    found = plan(
        path,
        "SELECT games.id FROM games WHERE games.status = 'active' "
        "ORDER BY games.updated_at DESC, games.id DESC LIMIT ? OFFSET ?",
        [20, 0],
    )
    assert "ix_games_status_updated_at" in found
    assert "TEMP B-TREE" not in found
