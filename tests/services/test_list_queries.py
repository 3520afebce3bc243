"""The menus' queries: the SQLite statements (written for SQLite's planner, or plain SQL
where SQLAlchemy's statement building cost more than running them) give exactly the rows,
order and totals of the SQLAlchemy statements PostgreSQL runs, on a varied population:
open games with open and reserved seats, running, finished and abandoned games, a bot
account in two seats of one game, games updated at the same instant (ties), seats that
have seen part of their game's log, and rating ties."""

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
                if rng.random() < 0.4:
                    looker = rng.choice(snap.info.seats).user_id
                    if looker is not None:
                        upto = rng.randrange(snap.info.last_seq)
                        await games.mark_seen(snap.info.id, looker, upto)
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


def list_plans(path: str, which: str, user: int | None) -> list[str]:
    """The query plans of the statements one SQLite list call runs."""
    statements: list[str] = []
    conn = sqlite3.connect(path)
    conn.set_trace_callback(statements.append)
    try:
        q._list_game_ids_raw(conn, which, user, None, 0, 20)
    finally:
        conn.close()
    assert len(statements) == 2  # the count and the page
    # the traced text has the values filled in, so it explains as it ran
    return [plan(path, sql, []) for sql in statements]


BY_KEY = "SEARCH games USING INTEGER PRIMARY KEY"


@pytest.mark.parametrize(
    "which, expected, unwanted",
    [
        # newest first from the index, stopping at the page's end: no sort
        ("active", "COVERING INDEX ix_games_status_updated_at", "TEMP B-TREE"),
        # a user's own lists: from their seats to their games, never every game of a status
        ("mine", BY_KEY, "ix_games_status"),
        ("waiting", BY_KEY, "ix_games_status"),
        ("finished", BY_KEY, "ix_games_status"),
        # each open game's seats by primary key, never every seat
        ("open", "INDEX sqlite_autoindex_seats_1 (game_id=?)", "SCAN s"),
    ],
)
async def test_no_list_statement_visits_every_game_or_every_seat(
    sqlite_db: Database, which: str, expected: str, unwanted: str
) -> None:
    users = await population(sqlite_db, 8)
    path = sqlite_db.url.split("///", 1)[1]
    count, page = list_plans(path, which, users[0])
    for found in (count, page):
        assert "SCAN games" not in found and "SCAN s" not in found, found
        assert unwanted not in found, found
    assert expected in page, page


# --- since_last_visit, the event log, mark_seen, the rank listing ---------------------------


SEAT_KEYS = ("game_id", "seat", "last_seen_seq", "status", "to_act", "last_seq")


async def test_unseen_counts_in_one_statement_are_the_per_game_counts(db: Database) -> None:
    users = await population(db, 3)

    def compare(conn: Any) -> int:
        compared = 0
        for user in users:
            together = sorted(
                tuple(r._mapping[k] for k in (*SEAT_KEYS, "moves", "events"))
                for r in q.unseen_by_seat(conn, user)
            )
            apart = []
            for r in q.my_seat_rows(conn, user):
                counts = (0, 0)
                if r.last_seq > r.last_seen_seq:
                    counts = q.count_unseen_moves(conn, r.game_id, r.seat, r.last_seen_seq)
                apart.append((*(r._mapping[k] for k in SEAT_KEYS), *counts))
            assert together == sorted(apart), user
            compared += sum(1 for row in together if row[-1])
        return compared

    assert await db.run_read(compare) > 5  # some seats have unseen events


def general_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the queries take their SQLAlchemy path on SQLite too."""
    monkeypatch.setattr(q, "_raw", lambda conn: None)


async def test_sqlite_event_log_reads_what_the_general_statement_reads(
    sqlite_db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    await population(sqlite_db, 4)
    ids = await sqlite_db.run_read(q.all_game_ids)

    def read(conn: Any) -> list[list[dict[str, Any]]]:
        return [
            [dict(r._mapping) for r in q.event_rows(conn, gid, since)]
            for gid in ids
            for since in (0, 2, 10_000)
        ]

    fast = await sqlite_db.run_read(read)
    general_path(monkeypatch)
    assert await sqlite_db.run_read(read) == fast
    assert sum(len(log) for log in fast) > 100


async def ratings_with_ties(db: Database) -> list[int]:
    users = await population(db, 5)
    rng = random.Random(5)

    def rate(conn: Any) -> None:
        for uid in users:
            rating = rng.choice([1500.0, 1500.0, 1612.5, 1388.25])
            q.save_rating(conn, uid, "chess", rating, rng.choice([0, 3, 3, 9]), 1, 2, False)

    await db.transact(rate)
    return users


async def test_sqlite_rank_and_place_read_what_the_general_statements_read(
    sqlite_db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    users = await ratings_with_ties(sqlite_db)

    def read(conn: Any) -> list[Any]:
        out: list[Any] = []
        for kind in ("chess", "nim", "go"):
            for low in (0, 3, 10):
                for offset, limit in ((0, 100), (1, 2), (4, 100)):
                    rows = q.rank_rows(conn, kind, offset, limit, low)
                    out.append([dict(r._mapping) for r in rows])
                for uid in [*users, 999_999]:
                    found = q.rating_place(conn, kind, uid, low)
                    out.append(None if found is None else (dict(found[0]._mapping), found[1]))
        return out

    fast = await sqlite_db.run_read(read)
    general_path(monkeypatch)
    assert await sqlite_db.run_read(read) == fast
    assert any(isinstance(x, tuple) and x[1] > 1 for x in fast)


@pytest.mark.parametrize("path", ["fast", "general"])
async def test_mark_seen_moves_only_that_users_seat_and_only_forward(
    sqlite_db: Database, monkeypatch: pytest.MonkeyPatch, path: str
) -> None:
    if path == "general":
        general_path(monkeypatch)
    users = await population(sqlite_db, 6)

    def seen(conn: Any) -> dict[tuple[int, int], int]:
        return {
            (r.game_id, r.seat): r.last_seen_seq
            for gid in q.all_game_ids(conn)
            for r in q.seat_rows(conn, gid)
        }

    before = await sqlite_db.run_read(seen)
    game_id, seat = next(k for k, v in before.items() if v == 0)
    user = next(
        r.user_id for r in await sqlite_db.run_read(lambda c: q.seat_rows(c, game_id))
        if r.seat == seat
    )
    assert user in users
    marked = await sqlite_db.transact(lambda c: q.mark_seen(c, game_id, user, 3))
    again = await sqlite_db.transact(lambda c: q.mark_seen(c, game_id, user, 2))
    after = await sqlite_db.run_read(seen)
    assert (marked, again) == (1, 0)
    assert after == {**before, (game_id, seat): 3}


async def test_since_last_visit_is_the_summary_the_per_game_reads_make(db: Database) -> None:
    users = await population(db, 7)
    games = GameService(db, {"nim": NimRules()}, LocalHub(), FakeClock(), random.Random(7))

    def reference(conn: Any, user: int) -> tuple[int, list[int], list[int], int]:
        moves = events = 0
        finished: list[int] = []
        waiting: list[int] = []
        for r in q.my_seat_rows(conn, user):
            if r.last_seq > r.last_seen_seq:
                m, t = q.count_unseen_moves(conn, r.game_id, r.seat, r.last_seen_seq)
                moves, events = moves + m, events + t
                if r.status in ("finished", "abandoned") and r.game_id not in finished:
                    finished.append(r.game_id)
            if r.status == "active" and r.to_act == r.seat and r.game_id not in waiting:
                waiting.append(r.game_id)
        return moves, sorted(finished), sorted(waiting), events

    both = 0
    for user in users:
        summary = await games.since_last_visit(user)
        moves, finished, waiting, events = await db.run_read(lambda c, u=user: reference(c, u))
        assert (summary.moves_against_you, summary.new_events) == (moves, events)
        assert [g.id for g in summary.finished] == finished
        assert sorted(g.id for g in summary.waiting) == waiting
        keys = [(g.deadline is None, g.deadline or g.updated_at, g.id) for g in summary.waiting]
        assert keys == sorted(keys)
        assert all(g.status == "active" for g in summary.waiting)
        assert all(g.status in ("finished", "abandoned") for g in summary.finished)
        both += bool(summary.finished and summary.waiting)
    assert both  # someone has games in both lists
