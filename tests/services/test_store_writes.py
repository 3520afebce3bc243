"""The repository's records: what is written reads back the same, typed, on both backends
(games saved under the optimistic lock, seats with their names, the event log), and
any JSON value and any aware time round-trips."""

from __future__ import annotations

import asyncio
import itertools
import tempfile
from dataclasses import replace
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from door.services.accounts import User
from door.services.clock import FakeClock
from door.services.games import GameService, SeatSpec
from door.store.db import Database
from door.store.records import GameRecord, JSONObject, NewEvent
from door.store.repository import ConflictError, Repository
from tests.services.test_games import player_to_act, two_player_game
from tests.store import dbutil

PAYLOADS: list[JSONObject] = [
    {"move": "24/18 13/11"},
    {"chance": [6, 6]},
    {"action": "forfeit", "reason": "resign", "note": "ünïcödé ☃ \"quoted\" \\ \n"},
    {"nested": {"a": [1, 2.5, None, True, False], "b": {}}, "big": 2**40, "neg": -0.5},
]


async def game_record(db: Database, game_id: int) -> GameRecord:
    found = await db.run_read(lambda repo: repo.game(game_id))
    assert found is not None
    return found


async def test_appended_events_read_back_as_written_at_that_instant_in_utc(
    db: Database, games: GameService, alice: User, bob: User
) -> None:
    snap = await two_player_game(games, alice, bob)
    last = snap.info.last_seq
    # a zone other than UTC: stored as the same instant, read back in UTC
    when = datetime(2026, 3, 4, 5, 6, 7, 89, tzinfo=timezone(timedelta(hours=-5)))
    new = [NewEvent(i % 2 if i < 3 else None, "system", p) for i, p in enumerate(PAYLOADS)]
    await db.transact(lambda repo: repo.append_events(snap.info.id, last + 1, new, when))
    read = await db.run_read(lambda repo: repo.events(snap.info.id, last))
    assert [(e.seq, e.seat, e.kind, e.payload) for e in read] == [
        (last + 1 + i, e.seat, e.kind, e.payload) for i, e in enumerate(new)
    ]
    assert {e.created_at for e in read} == {when.astimezone(UTC)}
    assert all(e.created_at.tzinfo is UTC for e in read)


async def test_appending_nothing_writes_nothing(
    db: Database, games: GameService, alice: User, bob: User
) -> None:
    snap = await two_player_game(games, alice, bob)
    await db.transact(lambda repo: repo.append_events(snap.info.id, 99, [], datetime.now(UTC)))
    assert len(await games.events(snap.info.id)) == snap.info.last_seq


async def test_an_event_number_taken_already_is_a_conflict_and_writes_nothing(
    db: Database, games: GameService, alice: User, bob: User
) -> None:
    snap = await two_player_game(games, alice, bob)
    clash = [NewEvent(None, "system", {"action": "x"})] * 2
    with pytest.raises(ConflictError):
        await db.transact(
            lambda repo: repo.append_events(
                snap.info.id, snap.info.last_seq, clash, datetime.now(UTC)
            )
        )
    assert len(await games.events(snap.info.id)) == snap.info.last_seq


async def test_saving_a_game_at_its_version_writes_it_with_the_next_version(
    db: Database, games: GameService, alice: User, bob: User, clock: FakeClock
) -> None:
    snap = await two_player_game(games, alice, bob)
    before = await game_record(db, snap.info.id)
    changed = replace(
        before, summary="changed", deadline=clock.now() + timedelta(hours=3), to_act=1,
        status="finished", finished_at=clock.now(),
        outcome={"winners": [0], "extra": {"é": [1.5, None]}},
    )  # fmt: skip
    saved = await db.transact(lambda repo: repo.save_game(changed, before.version, before.snapshot))
    assert saved is True
    assert await game_record(db, snap.info.id) == replace(changed, version=before.version + 1)


@pytest.mark.parametrize("finishing", [False, True], ids=["goes-on", "finishes"])
async def test_a_moves_write_saves_every_change_and_its_events_with_the_next_version(
    db: Database, games: GameService, alice: User, bob: User, clock: FakeClock,
    finishing: bool,
) -> None:  # fmt: skip
    snap = await two_player_game(games, alice, bob)
    before = await game_record(db, snap.info.id)
    now = clock.now() + timedelta(minutes=5)
    events = [
        NewEvent(0, "move", {"move": "8/5 6/5"}),
        NewEvent(None, "chance", {"chance": [3, 1]}),
    ]
    changed = replace(
        before, snapshot=before.snapshot + "x", summary="moved", updated_at=now, to_act=1,
        deadline=now + timedelta(hours=3), last_seq=before.last_seq + 2,
        chance_count=before.chance_count + 1, turn_started_at=now,
        move_deadline=now + timedelta(hours=2), version=before.version + 1,
    )  # fmt: skip
    if finishing:
        changed = replace(
            changed, status="finished", to_act=None, finished_at=now, outcome={"winners": [0]}
        )
    found = await db.transact(
        lambda repo: repo.save_game_seen_appending(changed, before, 0, alice.id, events, now)
    )
    assert found is not None
    assert await game_record(db, snap.info.id) == changed
    logged = await db.run_read(lambda repo: repo.events(snap.info.id, before.last_seq))
    assert [(e.seat, e.kind, e.payload) for e in logged] == [
        (e.seat, e.kind, e.payload) for e in events
    ]


async def test_saving_a_game_at_a_stale_version_changes_nothing(
    db: Database, games: GameService, alice: User, bob: User
) -> None:
    snap = await two_player_game(games, alice, bob)
    before = await game_record(db, snap.info.id)
    lost = replace(before, summary="lost")
    stale = before.version - 1
    assert await db.transact(lambda repo: repo.save_game(lost, stale, before.snapshot)) is False
    assert await game_record(db, snap.info.id) == before


async def test_a_game_and_its_mixed_seats_read_back_with_the_seated_names(
    db: Database, games: GameService, alice: User, bob: User, carol: User
) -> None:
    specs = [
        SeatSpec("me"), SeatSpec("open"), SeatSpec("user", "Carol"), SeatSpec("bot", "nim-bot")
    ]
    info = await games.begin(alice.id, "nim", {}, specs)
    await games.join(info.id, bob.id)
    seats = await db.run_read(lambda repo: repo.seats(info.id))
    assert [(s.seat, s.kind, s.user_name) for s in seats] == [
        (0, "user", "Alice"), (1, "user", "Bob"), (2, "reserved", "Carol"), (3, "bot", "nim-bot"),
    ]  # fmt: skip
    assert seats[3].bot_level == "nim-bot"
    together = await db.run_read(lambda repo: repo.seats_of([info.id, 987654]))
    assert together == {info.id: seats, 987654: []}


async def test_a_missing_game_reads_as_none_and_no_seats(db: Database) -> None:
    assert await db.run_read(lambda repo: (repo.game(987654), repo.seats(987654))) == (None, [])
    assert await db.run_read(lambda repo: repo.games([987654])) == []


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


# --- any value round-trips (SQLite: the driver path with SQLAlchemy's own conversions) ---

JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**53), 2**53)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)
ZONES = st.builds(
    lambda minutes: UTC if minutes == 0 else timezone(timedelta(minutes=minutes)),
    st.integers(-14 * 60, 14 * 60),
)


NAMES = itertools.count()


@pytest.fixture(scope="module")
def roundtrip_db(tmp_path_factory: pytest.TempPathFactory) -> Any:
    folder = Path(tempfile.mkdtemp(dir=tmp_path_factory.getbasetemp()))
    url = dbutil.sqlite_url(folder / "round.sqlite3")
    loop = asyncio.new_event_loop()
    db = Database(url)
    loop.run_until_complete(db.upgrade())
    yield loop, db
    loop.run_until_complete(db.dispose())
    loop.close()


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    payload=JSON_VALUES,
    when=st.datetimes(datetime(2, 1, 1), datetime(9998, 12, 31), timezones=ZONES),
)
def test_any_json_payload_and_any_aware_time_read_back_the_same_on_sqlite(
    roundtrip_db: Any, payload: Any, when: datetime
) -> None:
    loop, db = roundtrip_db
    name = f"u{next(NAMES)}"

    def write(repo: Repository) -> Any:
        uid = repo.insert_user(name, name, None, False, when, {"v": payload})
        return repo.user(uid)

    user = loop.run_until_complete(db.transact(write))
    assert user.settings == {"v": payload}
    assert user.created_at == when and user.created_at.tzinfo is UTC
