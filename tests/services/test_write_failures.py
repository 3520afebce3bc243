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
from pathlib import Path

import pytest

from door.games.registry import build_registry
from door.services import Services
from door.services.accounts import Accounts
from door.services.bots import BotBrains, BotRunner
from door.services.clock import FakeClock, SystemClock
from door.services.games import GameService, GameSnapshot, SeatSpec
from door.services.notify import LocalHub
from door.services.ratings import Ratings
from door.store.db import Database, DatabaseWriteError
from door.store.retry import Backoff, RetryPolicy
from tests.store import dbutil

ROOMY = 1073741823  # SQLite's default max_page_count
RESUME_WITHIN_S = 5.0


async def fill_up(db: Database) -> None:
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


async def test_a_move_the_full_disk_cannot_save_says_try_again_and_saves_nothing(
    db: Database,
) -> None:
    games = GameService(db, build_registry(), LocalHub(), FakeClock(), random.Random(3))
    accounts = Accounts(db, games.clock)
    ann = await accounts.register("Ann", "ann-pw-1")
    ben = await accounts.register("Ben", "ben-pw-1")
    rules = games.registry["backgammon"]

    async def new_game() -> int:
        info = await games.begin(
            ann.id, "backgammon", {"match_length": 0}, [SeatSpec("me"), SeatSpec("user", "Ben")]
        )
        await games.join(info.id, ben.id)
        return info.id

    game_id = await new_game()
    await fill_up(db)
    refused: DatabaseWriteError | None = None
    for _ in range(2000):  # people play on until the last page is full
        before = await games.get(game_id)
        if before.info.status == "finished":
            game_id = await new_game()
            continue
        move = rules.format_move(before.state, rules.legal_moves(before.state)[0])
        try:
            await games.submit(game_id, to_act_user(before), move, before.info.version)
        except DatabaseWriteError as exc:
            refused = exc
            break
    assert refused is not None, "the database never filled up"
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
        await fill_up(db)
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
