"""The menus' queries give what their definitions say, on both backends, checked against
plain-Python models of every game on a varied population: open games with open and
reserved seats, running, finished and abandoned games, a bot account in two seats of one
game, games updated at the same instant (ties), seats that have seen part of their game's
log, and rating ties. On SQLite no list statement visits every game or every seat (their
query plans, read as they run)."""

from __future__ import annotations

import random
import sqlite3
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from door.services.accounts import Accounts, User
from door.services.clock import FakeClock
from door.services.games import GameService, SeatSpec
from door.services.notify import LocalHub
from door.store.db import Database
from door.store.records import GameRecord, RatingRecord, SeatRecord
from door.store.repository import Repository
from tests.services.conftest import NIM_BOTS
from tests.services.nim import NimRules
from tests.store import dbutil

ME, OPEN = SeatSpec("me"), SeatSpec("open")
LISTS = ("invited", "open", "active", "mine", "waiting", "finished")


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
    games = GameService(
        db, {"nim": NimRules()}, LocalHub(), clock, random.Random(seed), bot_levels=NIM_BOTS
    )
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


def model_list(
    games: list[GameRecord], seats: dict[int, list[SeatRecord]], which: str,
    user: int | None, kind: str | None,
) -> list[int]:
    """What each list holds, from its definition (``Lobby.list_games``), game by game."""
    out: list[GameRecord] = []
    for g in games:
        mine = [s for s in seats[g.id] if s.user_id == user]
        if kind is not None and g.kind != kind:
            continue
        if which == "invited":
            ok = g.status == "open" and any(s.kind == "reserved" for s in mine)
        elif which == "open":
            ok = g.status == "open" and any(
                s.kind == "open" or (s.kind == "reserved" and s.user_id == user)
                for s in seats[g.id]
            ) and not (user is not None and any(s.kind == "user" for s in mine))
        elif which == "active":
            ok = g.status == "active"
        elif which == "mine":
            ok = g.status in ("open", "active") and any(
                s.kind in ("user", "reserved") for s in mine
            )
        elif which == "waiting":
            ok = g.status == "active" and any(
                s.kind in ("user", "bot") and s.seat == g.to_act for s in mine
            )
        else:
            ok = g.status in ("finished", "abandoned") and (user is None or bool(mine))
        if ok:
            out.append(g)
    if which == "waiting":
        out.sort(key=lambda g: (g.deadline is None, g.deadline, g.id))
    else:
        out.sort(key=lambda g: (g.updated_at, g.id), reverse=True)
    return [g.id for g in out]


def everything(repo: Repository) -> tuple[list[GameRecord], dict[int, list[SeatRecord]]]:
    games = repo.games(repo.all_game_ids())
    return games, repo.seats_of([g.id for g in games])


@pytest.mark.parametrize("seed", [1, 2])
async def test_every_list_gives_the_games_order_and_total_its_definition_says(
    db: Database, seed: int
) -> None:
    users = await population(db, seed)

    def compare(repo: Repository) -> int:
        games, seats = everything(repo)
        checked = 0
        for which in LISTS:
            for user in [None, *users]:
                if which in ("invited", "mine", "waiting") and user is None:
                    continue
                for kind in (None, "nim", "chess"):
                    want = model_list(games, seats, which, user, kind)
                    for offset, limit in ((0, 100), (0, 3), (3, 3), (50, 10)):
                        page, total = repo.list_games(which, user, kind, offset, limit)  # type: ignore[arg-type]
                        assert ([g.id for g in page], total) == (
                            want[offset : offset + limit], len(want)
                        ), (which, user, kind, offset, limit)
                        checked += bool(page)
        return checked

    assert await db.run_read(compare) > 50  # most combinations list something


async def list_plans(db: Database, which: str, user: int) -> list[str]:
    """The query plans of the two statements (count, page) a SQLite list call runs, in
    the very text and with the very values the SQLite runner hands to the driver."""
    from sqlalchemy.dialects import sqlite

    from door.store.runner import Prepared

    params: dict[str, object] = {"user_id": user, "offset": 0, "limit": 20}
    path = db.url.split("///", 1)[1]
    plans = []
    with sqlite3.connect(path) as conn:
        for query in db.queries.lists[which, True, False]:  # type: ignore[index]
            ran = Prepared.compile(query.statement, sqlite.dialect(), {})
            found = conn.execute("EXPLAIN QUERY PLAN " + ran.sql, ran.values(params))
            plans.append(" / ".join(r[3] for r in found))
    return plans


BY_KEY = "SEARCH games USING INTEGER PRIMARY KEY"


@pytest.mark.parametrize(
    "which, expected, unwanted",
    [
        # newest first from the index, stopping at the page's end: no sort
        ("active", "INDEX ix_games_status_updated_at", "TEMP B-TREE"),
        # a user's own lists: from their seats to their games, never every game of a status
        ("mine", BY_KEY, "ix_games_status"),
        ("invited", BY_KEY, "ix_games_status"),
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
    count, page = await list_plans(sqlite_db, which, users[0])
    for found in (count, page):
        assert "SCAN games" not in found and "SCAN s" not in found, found
        assert unwanted not in found, found
    assert expected in page, page


# --- what each seat has not seen, the event log, mark_seen, the rank listing -----------------


async def test_seat_activity_counts_what_each_seat_has_not_seen_of_its_game(
    db: Database,
) -> None:
    users = await population(db, 3)

    def compare(repo: Repository) -> int:
        games, seats = everything(repo)
        by_id = {g.id: g for g in games}
        compared = 0
        for user in users:
            want = []
            for gid, game_seats in seats.items():
                for s in game_seats:
                    if s.user_id != user or s.kind not in ("user", "bot", "reserved"):
                        continue
                    unseen = [e for e in repo.events(gid) if e.seq > s.last_seen_seq]
                    others = (None, s.seat)
                    moves = sum(1 for e in unseen if e.kind == "move" and e.seat not in others)
                    g = by_id[gid]
                    want.append((gid, s.seat, s.kind, s.last_seen_seq, g.status, g.to_act,
                                 g.last_seq, moves, len(unseen)))  # fmt: skip
            got = [
                (a.game_id, a.seat, a.kind, a.last_seen_seq, a.status, a.to_act, a.last_seq,
                 a.moves, a.events)
                for a in repo.seat_activity(user)
            ]  # fmt: skip
            assert got == sorted(want), user
            compared += sum(1 for row in got if row[-1])
        return compared

    assert await db.run_read(compare) > 5  # some seats have unseen events


async def test_the_event_log_reads_back_in_order_from_any_point(db: Database) -> None:
    await population(db, 4)

    def read(repo: Repository) -> int:
        n = 0
        for gid in repo.all_game_ids():
            whole = repo.events(gid)
            assert [e.seq for e in whole] == list(range(1, len(whole) + 1))
            assert all(e.game_id == gid and e.created_at.tzinfo is not None for e in whole)
            for since in (0, 2, 10_000):
                assert repo.events(gid, since) == whole[since:]
            n += len(whole)
        return n

    assert await db.run_read(read) > 100


async def ratings_with_ties(db: Database) -> list[int]:
    users = await population(db, 5)
    rng = random.Random(5)

    def rate(repo: Repository) -> None:
        for uid in users:
            rating = rng.choice([1500.0, 1500.0, 1612.5, 1388.25])
            record = RatingRecord(uid, "chess", rating, rng.choice([0, 3, 3, 9]), 1, 2)
            repo.save_rating(record, exists=False)

    await db.transact(rate)
    return users


async def test_rank_pages_and_places_follow_rating_then_experience_then_id(
    db: Database,
) -> None:
    users = await ratings_with_ties(db)

    def read(repo: Repository) -> int:
        rated = list(repo.ratings("chess", users).values())
        places = 0
        for low in (0, 3, 10):
            listed = sorted(
                (r for r in rated if r.experience >= low),
                key=lambda r: (-r.rating, -r.experience, r.user_id),
            )
            order = [r.user_id for r in listed]
            for offset, limit in ((0, 100), (1, 2), (4, 100)):
                page = repo.rank_page("chess", offset, limit, low)
                assert [r.user_id for r in page] == order[offset : offset + limit]
            for uid in [*users, 999_999]:
                found = repo.rank_of("chess", uid, low)
                if uid in order:
                    assert found is not None and found[1] == order.index(uid) + 1
                    places += found[1] > 1
                else:
                    assert found is None
            assert repo.rank_page("go", 0, 100, low) == []
        return places

    assert await db.run_read(read) > 0


async def test_mark_seen_moves_only_that_users_seat_and_only_forward(db: Database) -> None:
    users = await population(db, 6)

    def seen(repo: Repository) -> dict[tuple[int, int], int]:
        _, seats = everything(repo)
        return {(s.game_id, s.seat): s.last_seen_seq for ss in seats.values() for s in ss}

    before = await db.run_read(seen)
    game_id, seat = next(k for k, v in before.items() if v == 0)
    user = next(
        s.user_id for s in await db.run_read(lambda repo: repo.seats(game_id)) if s.seat == seat
    )
    assert user in users
    marked = await db.transact(lambda repo: repo.mark_seen(game_id, user, 3))
    again = await db.transact(lambda repo: repo.mark_seen(game_id, user, 2))
    after = await db.run_read(seen)
    assert (marked, again) == (1, 0)
    assert after == {**before, (game_id, seat): 3}


async def test_since_last_visit_sums_what_each_seat_has_not_seen(db: Database) -> None:
    users = await population(db, 7)
    games = GameService(db, {"nim": NimRules()}, LocalHub(), FakeClock(), random.Random(7))

    def by_others(repo: Repository, game_id: int, seat: int, seen: int) -> bool:
        """Did anyone but ``seat`` (or the server, to it) do something after ``seen``?
        (Chance is nobody's doing: the dice after the player's own last move.)"""
        return any(
            e.kind != "chance" and (
                e.seat != seat or e.payload.get("action") == "timeout"
                or e.payload.get("reason") == "timeout"
            )
            for e in repo.events(game_id, seen)
        )  # fmt: skip

    def reference(repo: Repository, user: int) -> tuple[int, list[int], list[int], int]:
        moves = events = 0
        finished: set[int] = set()
        waiting: set[int] = set()
        for r in repo.seat_activity(user):
            if r.kind == "reserved":  # an invitation: not a seat the user plays
                continue
            if r.last_seq > r.last_seen_seq:
                moves, events = moves + r.moves, events + r.events
                # a game the player ended themselves (resigned, left) is not news to them
                if r.status in ("finished", "abandoned") and by_others(
                    repo, r.game_id, r.seat, r.last_seen_seq
                ):
                    finished.add(r.game_id)
            if r.status == "active" and r.to_act == r.seat:
                waiting.add(r.game_id)
        return moves, sorted(finished), sorted(waiting), events

    both = 0
    bot = users[-1]
    for user in users:
        summary = await games.since_last_visit(user)
        moves, finished, waiting, events = await db.run_read(lambda r, u=user: reference(r, u))
        assert (summary.moves_against_you, summary.new_events) == (moves, events)
        if user != bot:  # the bot holds several seats of a game: "ended it" has no one seat
            assert [g.id for g in summary.finished] == finished
        assert sorted(g.id for g in summary.waiting) == waiting
        keys = [(g.deadline is None, g.deadline or g.updated_at, g.id) for g in summary.waiting]
        assert keys == sorted(keys)
        assert all(g.status == "active" for g in summary.waiting)
        assert all(g.status in ("finished", "abandoned") for g in summary.finished)
        both += bool(summary.finished and summary.waiting)
    assert both  # someone has games in both lists


async def test_unseen_events_are_the_other_seats_moves_and_the_system_events_after_each_mark(
    db: Database,
) -> None:
    users = await population(db, 4)

    def compare(repo: Repository) -> int:
        _, seats = everything(repo)
        compared = 0
        for user in users:
            want = []
            for gid in sorted(seats, reverse=True):
                for s in seats[gid]:
                    if s.user_id != user or s.kind not in ("user", "bot", "reserved"):
                        continue
                    want += [
                        (e.game_id, e.seq)
                        for e in repo.events(gid)
                        if e.seq > s.last_seen_seq
                        and (e.kind == "system" or (e.kind == "move" and e.seat != s.seat))
                    ]
            since = datetime(1970, 1, 1, tzinfo=UTC)
            got = [(e.game_id, e.seq) for e in repo.unseen_events(user, since, 10_000)]
            # newest game first, each game's events in order (the bot sits twice in some)
            assert got == sorted(want, key=lambda e: (-e[0], e[1])), user
            compared += len(got)
        return compared

    assert await db.run_read(compare) > 0
