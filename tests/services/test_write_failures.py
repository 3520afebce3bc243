"""When the database cannot write (issue 14, item 11): a person's action is refused with
"the server could not save that — try again" and nothing of it is saved; the bots' and the
deadline sweeper's pending work resumes within seconds of writes working again, with no
restart.

The disk is filled for real, as SQLite sees it: ``PRAGMA max_page_count`` (a setting of
each connection, so it is set on both of door's, ``Database.sqlite_pragma``) at the
database's current size makes every write that needs one more page fail with
SQLITE_FULL, "database or disk is full", exactly as a full file system does.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import pytest

from door.games.registry import build_registry
from door.services import Services
from door.services.accounts import Accounts, User
from door.services.bots import BotBrains, BotRunner
from door.services.clock import FakeClock, SystemClock
from door.services.games import GameService, GameSnapshot, SeatSpec
from door.services.notify import LocalHub
from door.services.ratings import Ratings
from door.session import run_session
from door.store.db import Database, DatabaseWriteError
from door.store.repository import Repository
from door.store.retry import Backoff, RetryPolicy
from tests.services.nim import NimRules
from tests.store import dbutil
from tests.ui.faketerm import FakeTerminal

ROOMY = 1073741823  # SQLite's default max_page_count
RESUME_WITHIN_S = 5.0


async def fill_up(*, db: Database) -> None:
    """No page may be added from now on (the cap cannot go below the current size)."""
    await db.sqlite_pragma("max_page_count = 1")


async def make_room(db: Database) -> None:
    await db.sqlite_pragma(f"max_page_count = {ROOMY}")


@pytest.fixture
async def db(sqlite_template: Path, tmp_path: Path) -> AsyncIterator[Database]:
    # quick retries: the tests wait through many refused writes
    database = Database(
        dbutil.fresh_sqlite(sqlite_template, tmp_path),
        retry=RetryPolicy(failed=Backoff(first_s=0.01, max_s=0.02, tries=3)),
    )
    yield database
    await database.dispose()


def to_act_user(snap: GameSnapshot) -> int:
    seat = next(s for s in snap.info.seats if s.seat == snap.info.to_act)
    assert seat.user_id is not None
    return seat.user_id


async def play_until_refused(
    games: GameService, ann: User, ben: User
) -> tuple[int, GameSnapshot, str, DatabaseWriteError]:
    """Ann and Ben play backgammon on a database that may not grow, until a move cannot
    be saved: (the game, the game before that move, the move, the refusal)."""
    rules = games.registry["backgammon"]

    async def new_game() -> int:
        info = await games.begin(
            ann.id, "backgammon", {"match_length": 0}, [SeatSpec("me"), SeatSpec("user", "Ben")]
        )
        await games.join(info.id, ben.id)
        return info.id

    game_id = await new_game()
    await fill_up(db=games.db)
    for _ in range(2000):  # people play on until the last page is full
        before = await games.get(game_id)
        if before.info.status == "finished":
            game_id = await new_game()
            continue
        move = rules.format_move(before.state, rules.legal_moves(before.state)[0])
        try:
            await games.submit(game_id, to_act_user(before), move, before.info.version)
        except DatabaseWriteError as exc:
            return game_id, before, move, exc
    raise AssertionError("the database never filled up")


async def test_a_move_the_full_disk_cannot_save_says_try_again_and_saves_nothing(
    db: Database,
) -> None:
    games = GameService(db, build_registry(), LocalHub(), FakeClock(), random.Random(3))
    accounts = Accounts(db, games.clock)
    ann = await accounts.register("Ann", "ann-pw-1")
    ben = await accounts.register("Ben", "ben-pw-1")
    rules = games.registry["backgammon"]
    game_id, before, move, refused = await play_until_refused(games, ann, ben)
    assert str(refused) == "the server could not save that — try again"

    # nothing of the refused move was saved: same version, same log, same position
    after = await games.get(game_id)
    assert after.info.version == before.info.version
    assert after.info.last_seq == before.info.last_seq
    assert rules.to_id(after.state) == rules.to_id(before.state)
    assert len(await games.events(game_id)) == before.info.last_seq
    assert await games.replay_check(game_id) is None

    # with room again, the very same move at the same version goes through
    await make_room(db)
    done = await games.submit(game_id, to_act_user(before), move, before.info.version)
    assert done.info.version == before.info.version + 1


async def test_the_player_is_told_the_server_could_not_save_and_can_send_it_again(
    db: Database,
) -> None:
    clock = FakeClock()
    hub = LocalHub()
    services = Services(
        db=db, accounts=Accounts(db, clock),
        games=GameService(db, build_registry(), hub, clock, random.Random(3)),
        ratings=Ratings(db), hub=hub, clock=clock,
    )  # fmt: skip
    ann = await services.accounts.register("Ann", "ann-pw-1")
    ben = await services.accounts.register("Ben", "ben-pw-1")
    game_id, before, move, _ = await play_until_refused(services.games, ann, ben)
    mover = await services.accounts.get(to_act_user(before))
    term = FakeTerminal(width=80, height=24, encoding="utf-8", colors=16)
    session = asyncio.create_task(run_session(term, services, mover, start=f"game:{game_id}"))
    try:
        await term.settle()
        term.type(":")
        term.type_each(move)
        term.press("enter")
        await term.settle()
        assert "the server could not save that — try again" in term.display_text()
        assert (await services.games.get(game_id)).info.version == before.info.version

        await make_room(db)
        term.press("enter")  # the same play, sent again
        await term.settle()
        assert (await services.games.get(game_id)).info.version == before.info.version + 1
        moves = [e for e in await services.games.events(game_id) if e.kind == "move"]
        assert moves[-1].payload["move"] == move
    finally:
        term.hangup()
        await asyncio.wait_for(session, 5)
        await services.close()


async def bots_progress(games: GameService, ids: list[int]) -> int:
    return sum([(await games.get(i)).info.last_seq for i in ids])


async def test_the_bots_games_resume_within_seconds_of_space_returning_without_a_restart(
    db: Database,
) -> None:
    clock = SystemClock()
    hub = LocalHub()
    services = Services(
        db=db,
        accounts=Accounts(db, clock),
        games=GameService(db, build_registry(), hub, clock, random.Random(7)),
        ratings=Ratings(db),
        hub=hub,
        clock=clock,
    )
    # a rescan an hour away: only the stall handling can bring the bots back
    bots = BotRunner(services, brains=BotBrains(random.Random(5)), rescan_interval=3600)
    services.bots = bots
    bots.start()
    try:
        await bots.ready()
        host = await services.accounts.register("Host", "host-pw-1")
        ids = []
        for _ in range(3):
            info = await services.games.begin(
                host.id, "spectrangle", {},
                [SeatSpec("bot", "spectrangle-greedy"), SeatSpec("bot", "spectrangle-strong")],
            )  # fmt: skip
            ids.append(info.id)
        await fill_up(db=db)
        end = time.monotonic() + 60
        while not db.health.failing:
            assert time.monotonic() < end, "the bots never filled the database"
            await asyncio.sleep(0.02)

        # stalled: nothing moves (and nothing half-saved: every log replays)
        stalled_at = await bots_progress(services.games, ids)
        await asyncio.sleep(1.0)
        assert await bots_progress(services.games, ids) == stalled_at
        for game_id in ids:
            assert await services.games.replay_check(game_id) is None

        await make_room(db)
        start = time.monotonic()
        while await bots_progress(services.games, ids) == stalled_at:
            assert time.monotonic() - start < RESUME_WITHIN_S, "the bots did not resume"
            await asyncio.sleep(0.05)
        assert not db.health.failing
    finally:
        await services.close()


async def test_the_deadline_sweeper_applies_the_timeouts_it_could_not_save_soon_after(
    db: Database,
) -> None:
    clock = FakeClock()
    hub = LocalHub()
    games = GameService(db, {"nim": NimRules()}, hub, clock, random.Random(9))
    accounts = Accounts(db, clock)
    ann = await accounts.register("Ann", "ann-pw-1")
    ben = await accounts.register("Ben", "ben-pw-1")
    # more timeouts than the last page can hold: some must wait for room
    for _ in range(60):
        info = await games.begin(
            ann.id, "nim", {}, [SeatSpec("me"), SeatSpec("user", "Ben")], deadline_hours=1
        )
        await games.join(info.id, ben.id)
    clock.advance(timedelta(hours=2))
    services = Services(
        db=db, accounts=accounts, games=games, ratings=Ratings(db), hub=hub, clock=clock,
        sweep_interval_s=3600,  # only the failure handling can sweep again this soon
    )  # fmt: skip
    await fill_up(db=db)

    async def overdue() -> int:
        now = clock.now()
        return len(await db.run_read(lambda repo: repo.overdue_games(now)))

    services.start_sweeper()
    try:
        end = time.monotonic() + 30
        while not db.health.failing:
            assert time.monotonic() < end, "the timeouts never filled the database"
            await asyncio.sleep(0.02)
        await asyncio.sleep(1.0)  # long past the database's own retries
        assert 0 < await overdue() < 60
        await make_room(db)
        start = time.monotonic()
        while await overdue():
            assert time.monotonic() - start < RESUME_WITHIN_S, "the sweeper did not come back"
            await asyncio.sleep(0.05)
    finally:
        await services.close()


async def test_postgresql_a_transaction_whose_connection_is_cut_is_run_again_whole(
    pg_url: str, pg_template: str
) -> None:
    name = pg_template
    db = Database(
        dbutil.pg_database_url(pg_url, name),
        retry=RetryPolicy(failed=Backoff(first_s=0.01, max_s=0.02, tries=3)),
    )
    try:
        await dbutil.truncate_all(db)
        ann = await Accounts(db, FakeClock()).register("Ann", "ann-pw-1")
        tries: list[int] = []
        cut = (
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            f"WHERE datname = '{name}' AND pid <> pg_backend_pid()"
        )

        def action(repo: Repository) -> str:
            tries.append(1)
            if len(tries) == 1:  # the server ends this transaction's connection under it
                dbutil.run_blocking(lambda: dbutil._admin(pg_url, cut))
            user = repo.user(ann.id)
            assert user is not None
            repo.save_user(replace(user, is_sysop=True))
            return user.name

        assert await db.transact(action) == "Ann"
        assert len(tries) == 2
        assert not db.health.failing
        again = await Accounts(db, FakeClock()).by_name("Ann")
        assert again is not None and again.is_sysop  # written once, whole
    finally:
        await db.dispose()
