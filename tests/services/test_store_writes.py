"""The write half of a move (``queries.save_game`` and ``queries.append_events``) stores
exactly what the general statements store, on both backends, and the SQLite fast path's
text conversions are the ones SQLAlchemy makes."""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from door.services.accounts import User
from door.services.clock import FakeClock
from door.services.games import GameService
from door.store import queries as q
from door.store.db import Database
from tests.services.test_games import player_to_act, two_player_game

PAYLOADS: list[dict[str, Any]] = [
    {"move": "24/18 13/11"},
    {"chance": [6, 6]},
    {"action": "forfeit", "reason": "resign", "note": "ünïcödé ☃ \"quoted\" \\ \n"},
    {"nested": {"a": [1, 2.5, None, True, False], "b": {}}, "big": 2**70, "neg": -0.0},
]


def sqlite_path(db: Database) -> str | None:
    return db.url.split("///", 1)[1] if db.is_sqlite else None


def stored_events(db: Database, game_id: int) -> list[tuple[Any, ...]]:
    """The game's events exactly as SQLite holds them (text, not parsed)."""
    path = sqlite_path(db)
    assert path is not None
    with sqlite3.connect(path) as conn:
        return conn.execute(
            "SELECT seq, seat, kind, payload, created_at FROM game_events "
            "WHERE game_id = ? ORDER BY seq",
            (game_id,),
        ).fetchall()


async def two_games(games: GameService, alice: User, bob: User) -> tuple[int, int, int]:
    """Two fresh games with the same number of events; (id, id, last seq)."""
    one = await two_player_game(games, alice, bob)
    two = await two_player_game(games, alice, bob)
    assert one.info.last_seq == two.info.last_seq
    return one.info.id, two.info.id, one.info.last_seq


async def test_appended_events_are_the_rows_insert_events_writes(
    db: Database, games: GameService, alice: User, bob: User
) -> None:
    first, second, last = await two_games(games, alice, bob)
    # a zone other than UTC: stored as the same instant in UTC on both paths
    when = datetime(2026, 3, 4, 5, 6, 7, 89, tzinfo=timezone(timedelta(hours=-5)))
    items: list[tuple[int | None, str, dict[str, Any]]] = [
        (i % 2 if i < 3 else None, "system", p) for i, p in enumerate(PAYLOADS)
    ]

    def write(conn: Any) -> None:
        q.append_events(conn, first, last + 1, items, when)
        q.insert_events(
            conn,
            [
                {
                    "game_id": second,
                    "seq": last + 1 + i,
                    "seat": seat,
                    "kind": kind,
                    "payload": payload,
                    "created_at": when,
                }
                for i, (seat, kind, payload) in enumerate(items)
            ],
        )

    await db.transact(write)
    a = await games.events(first, last)
    b = await games.events(second, last)
    assert a == b
    assert [(e.seat, e.kind, e.payload) for e in a] == items
    assert {e.created_at for e in a} == {when.astimezone(UTC)}
    if db.is_sqlite:
        assert stored_events(db, first)[last:] == stored_events(db, second)[last:]


async def test_appending_nothing_writes_nothing(
    db: Database, games: GameService, alice: User, bob: User
) -> None:
    snap = await two_player_game(games, alice, bob)
    await db.transact(lambda conn: q.append_events(conn, snap.info.id, 99, [], datetime.now(UTC)))
    assert len(await games.events(snap.info.id)) == snap.info.last_seq


async def test_saving_a_game_at_its_version_sets_the_values_and_the_next_version(
    db: Database, games: GameService, alice: User, bob: User, clock: FakeClock
) -> None:
    snap = await two_player_game(games, alice, bob)
    later = clock.now() + timedelta(hours=3)
    values = {"summary": "changed", "deadline": later, "hints_allowed": False, "to_act": 1}
    saved = await db.transact(lambda c: q.save_game(c, snap.info.id, snap.info.version, values))
    assert saved is True
    assert values == {"summary": "changed", "deadline": later, "hints_allowed": False, "to_act": 1}
    row = await db.run_read(lambda c: q.game_row(c, snap.info.id))
    assert (row.summary, row.deadline, row.hints_allowed, row.to_act, row.version) == (
        "changed",
        later,
        False,
        1,
        snap.info.version + 1,
    )


async def test_saving_a_game_at_a_stale_version_changes_nothing(
    db: Database, games: GameService, alice: User, bob: User
) -> None:
    snap = await two_player_game(games, alice, bob)
    before = await db.run_read(lambda c: q.game_row(c, snap.info.id))
    saved = await db.transact(
        lambda c: q.save_game(c, snap.info.id, snap.info.version - 1, {"summary": "lost"})
    )
    assert saved is False
    after = await db.run_read(lambda c: q.game_row(c, snap.info.id))
    assert dict(after._mapping) == dict(before._mapping)


async def test_a_game_saved_on_the_fast_path_reads_the_same_through_sqlalchemy(
    db: Database, games: GameService, alice: User, bob: User, clock: FakeClock
) -> None:
    snap = await two_player_game(games, alice, bob)
    values = {
        "status": "finished",
        "outcome": {"winners": [0], "extra": {"é": [1.5, None]}},
        "finished_at": clock.now(),
        "deadline": None,
        "to_act": None,
    }
    await db.transact(lambda c: q.save_game(c, snap.info.id, snap.info.version, values))
    fast = await db.run_read(lambda c: q.game_row(c, snap.info.id))
    general = await db.run_read(
        lambda c: c.execute(select(q.games).where(q.games.c.id == snap.info.id)).first()
    )
    assert dict(fast._mapping) == dict(general._mapping)
    assert fast.outcome == values["outcome"]


async def test_a_move_answers_with_the_seats_a_fresh_read_gives_after_a_timeout(
    games: GameService, clock: FakeClock, alice: User, bob: User
) -> None:
    snap = await two_player_game(games, alice, bob, heap=50)
    snap = await games.submit(snap.info.id, player_to_act(snap), "1", snap.info.version)
    clock.advance(timedelta(days=30))
    assert await games.sweep_deadlines() == 1
    fresh = await games.get(snap.info.id)
    moved = await games.submit(snap.info.id, player_to_act(fresh), "1", fresh.info.version)
    assert moved.info.seats == (await games.get(snap.info.id)).info.seats
    assert sum(s.timeouts for s in moved.info.seats) == 1


# --- the SQLite text conversions ------------------------------------------------------

JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(JSON_VALUES)
def test_payload_text_is_what_json_dumps_writes(value: Any) -> None:
    assert q._json_dumps()(value) == json.dumps(value)


ZONES = st.builds(
    lambda minutes: UTC if minutes == 0 else timezone(timedelta(minutes=minutes)),
    st.integers(-14 * 60, 14 * 60),
)


@settings(max_examples=300, deadline=None)
@given(st.datetimes(datetime(2, 1, 1), datetime(9998, 12, 31), timezones=ZONES))
def test_time_text_is_the_utc_text_sqlalchemy_stores(value: datetime) -> None:
    utc = value.astimezone(UTC)
    expected = (
        f"{utc.year:04d}-{utc.month:02d}-{utc.day:02d} "
        f"{utc.hour:02d}:{utc.minute:02d}:{utc.second:02d}.{utc.microsecond:06d}"
    )
    assert q._dt_to_sqlite(value) == expected
