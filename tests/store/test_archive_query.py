"""The archive's query (``Repository.archive_page``) on SQLite and PostgreSQL: finished games
only, newest first by when they finished, filtered by players, kind and a span of time,
paged in the database and read in index order; and the search line it is asked with
(``door/services/archive.py``)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy.dialects import sqlite

from door.services.archive import (
    EARLIEST,
    LATEST,
    ArchiveSearch,
    ArchiveSearchError,
    parse_dates,
    parse_search,
)
from door.store.db import Database
from door.store.records import GameRecord, GameStatus, SeatRecord
from door.store.repository import Repository
from tests.store import dbutil

T0 = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
KINDS = [("backgammon", "Backgammon"), ("spectrangle", "Spectrangle")]


@pytest.fixture(params=["sqlite", "postgres"])
async def db(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Database]:
    """A freshly migrated database on each backend."""
    if request.param == "sqlite":
        database = Database(dbutil.sqlite_url(tmp_path / "archive.sqlite3"))
        await database.upgrade()
        yield database
        await database.dispose()
    else:
        server = request.getfixturevalue("pg_url")
        url = await dbutil.fresh_pg(server, None)
        database = Database(url)
        await database.upgrade()
        yield database
        await database.dispose()
        await dbutil.drop_pg(server, url)


def add_user(repo: Repository, name: str) -> int:
    return repo.insert_user(name, name.casefold(), None, False, T0, {})


def add_game(
    repo: Repository,
    users: list[int],
    finished: datetime | None,
    kind: str = "backgammon",
    status: GameStatus = "finished",
) -> int:
    """A game of ``users`` in ``status``, finished at ``finished``."""
    created = (finished or T0) - timedelta(hours=1)
    game = GameRecord(
        0, kind, {}, status, "x", 1, None, None, 24, True, users[0], created,
        finished or created, finished, "", None, 3,
    )  # fmt: skip
    gid = repo.insert_game(game)
    seats = [SeatRecord(gid, i, "user", u, None, 0, 0, None) for i, u in enumerate(users)]
    repo.insert_seats(seats)
    return gid


def ids(page: tuple[list[GameRecord], int]) -> list[int]:
    return [g.id for g in page[0]]


def everything(
    repo: Repository, users: list[int] | None = None, kind: str | None = None,
    since: datetime = EARLIEST, until: datetime = LATEST, offset: int = 0, limit: int = 50,
) -> tuple[list[GameRecord], int]:  # fmt: skip
    return repo.archive_page(users or [], kind, since, until, offset, limit)


async def test_only_finished_games_newest_first_by_when_they_finished(db: Database) -> None:
    def work(repo: Repository) -> None:
        a, b = add_user(repo, "ann"), add_user(repo, "ben")
        late = add_game(repo, [a, b], T0 + timedelta(days=2))
        early = add_game(repo, [a, b], T0)
        tie_low = add_game(repo, [b, a], T0 + timedelta(days=1))
        tie_high = add_game(repo, [a, b], T0 + timedelta(days=1))
        add_game(repo, [a, b], None, status="active")
        add_game(repo, [a, b], T0 + timedelta(days=5), status="abandoned")
        page = everything(repo)
        assert ids(page) == [late, tie_high, tie_low, early]
        assert page[1] == 4

    await db.transact(work)


async def test_players_narrow_the_list_to_games_they_all_played(db: Database) -> None:
    def work(repo: Repository) -> None:
        a, b, c = (add_user(repo, n) for n in ("ann", "ben", "cy"))
        ab = add_game(repo, [a, b], T0)
        add_game(repo, [b, c], T0 + timedelta(hours=1))
        ca = add_game(repo, [c, a], T0 + timedelta(hours=2))
        assert ids(everything(repo, [a])) == [ca, ab]
        assert ids(everything(repo, [b, a])) == [ab]
        assert ids(everything(repo, [a, a])) == [ca, ab]  # a repeat counts once
        assert ids(everything(repo, [a, b, c])) == []
        assert everything(repo, [c, b])[1] == 1

    await db.transact(work)


async def test_a_kind_and_a_span_narrow_it_with_the_span_half_open(db: Database) -> None:
    def work(repo: Repository) -> None:
        a, b = add_user(repo, "ann"), add_user(repo, "ben")
        nov1 = add_game(repo, [a, b], datetime(2026, 11, 1, 0, 0, tzinfo=UTC))
        last_second = datetime(2026, 11, 30, 23, 59, 59, tzinfo=UTC)
        nov30 = add_game(repo, [a, b], last_second, "spectrangle")
        dec1 = add_game(repo, [a, b], datetime(2026, 12, 1, 0, 0, tzinfo=UTC))
        since, until = ArchiveSearch(first=date(2026, 11, 1), last=date(2026, 11, 30)).span()
        assert ids(everything(repo, since=since, until=until)) == [nov30, nov1]
        assert ids(everything(repo, kind="backgammon")) == [dec1, nov1]
        assert ids(everything(repo, [b], "spectrangle", since, until)) == [nov30]

    await db.transact(work)


async def test_pages_are_cut_in_the_database_and_the_total_counts_them_all(db: Database) -> None:
    def work(repo: Repository) -> None:
        a, b = add_user(repo, "ann"), add_user(repo, "ben")
        made = [add_game(repo, [a, b], T0 + timedelta(minutes=i)) for i in range(25)]
        newest = made[::-1]
        assert everything(repo, limit=10) == (everything(repo, limit=10)[0], 25)
        assert ids(everything(repo, offset=0, limit=10)) == newest[:10]
        assert ids(everything(repo, offset=20, limit=10)) == newest[20:]
        assert ids(everything(repo, [a], offset=10, limit=10)) == newest[10:20]
        assert everything(repo, offset=30, limit=10) == ([], 25)

    await db.transact(work)


def sqlite_plan(db: Database, users: int, with_kind: bool) -> list[str]:
    """SQLite's plan of one variant of the archive's page (every parameter bound to 1:
    the plan does not depend on the values)."""
    import sqlite3

    _, page = db.queries.archive.variants[users, with_kind]
    sql = str(page.statement.compile(dialect=sqlite.dialect()))  # type: ignore[attr-defined]
    assert db.path is not None
    conn = sqlite3.connect(db.path)
    try:
        rows = conn.execute("EXPLAIN QUERY PLAN " + sql, (1,) * sql.count("?")).fetchall()
    finally:
        conn.close()
    return [str(row[3]) for row in rows]


async def test_on_sqlite_the_archive_reads_the_finished_index_in_order_or_the_players_seats(
    tmp_path: Path,
) -> None:
    db = Database(dbutil.sqlite_url(tmp_path / "plan.sqlite3"))
    await db.upgrade()
    try:
        whole = sqlite_plan(db, 0, False)
        assert any("USING INDEX ix_games_status_finished_at" in p for p in whole), whole
        assert not any("TEMP B-TREE" in p for p in whole), whole  # no sort: stops at the page
        for users in (1, 2, 3):
            plan = sqlite_plan(db, users, True)
            assert any("USING INDEX ix_seats_user_id" in p for p in plan), plan
            assert not any(p.startswith("SCAN games") for p in plan), plan
    finally:
        await db.dispose()


# --- the search line ----------------------------------------------------------------------


def test_a_search_line_holds_names_a_game_and_a_date_in_any_order() -> None:
    found = parse_search('spectrangle 2026-11 alice "Jo  Smith"', KINDS)
    assert found.names == ("alice", "Jo Smith")
    assert found.kind == "spectrangle"
    assert (found.first, found.last) == (date(2026, 11, 1), date(2026, 11, 30))
    assert parse_search("", KINDS).is_everything
    assert parse_search("Backgammon", KINDS).kind == "backgammon"


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("2026-13-01", "'2026-13-01' is not a date"),
        ("2026-02-30", "'2026-02-30' is not a date"),
        ("30/11/2026", "'30/11/2026' is not a date"),
        ("..", "gives no date"),
        ("2026-12-01..2026-11-01", "ends before it begins"),
        ("2026-11 2026-12", "one date or one range, not two"),
        ("ann ben cy", "at most 2 players"),
        ('"ann', "A quote is not closed"),
        ("backgammon spectrangle", "one game at a time"),
    ],
)
def test_a_malformed_search_is_refused_with_its_reason(text: str, reason: str) -> None:
    with pytest.raises(ArchiveSearchError, match=reason):
        parse_search(text, KINDS)


def test_month_ends_and_open_ranges() -> None:
    assert parse_dates("2024-02") == (date(2024, 2, 1), date(2024, 2, 29))
    assert parse_dates("2026-12") == (date(2026, 12, 1), date(2026, 12, 31))
    assert parse_dates("2026-11-05..") == (date(2026, 11, 5), None)
    assert parse_dates("..2026-11") == (None, date(2026, 11, 30))
    assert ArchiveSearch(last=date.max).span()[1] == LATEST


@given(st.dates(min_value=date(1, 1, 1), max_value=date(9999, 12, 30)))
def test_a_day_covers_exactly_that_day(day: date) -> None:
    first, last = parse_dates(day.isoformat())
    assert first == last == day
    since, until = ArchiveSearch(first=first, last=last).span()
    assert until - since == timedelta(days=1)
    assert since.date() == day and since.tzinfo is UTC


@given(st.text(max_size=40))
def test_any_line_is_read_or_refused_with_a_reason_never_an_error(text: str) -> None:
    try:
        found = parse_search(text, KINDS)
    except ArchiveSearchError as exc:
        assert str(exc)
        return
    assert len(found.names) <= 2
    since, until = found.span()
    assert since < until
