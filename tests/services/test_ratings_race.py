"""Ratings are never lost: rated games between the same two players finishing at the same
moment on two processes (two engines on one database) each count exactly once, on both
backends, and the stored ratings equal a recomputation from the finished games."""

from __future__ import annotations

import asyncio
import random

import pytest

from door.services.accounts import User
from door.services.clock import FakeClock
from door.services.games import GameService
from door.services.notify import LocalHub
from door.services.ratings import START_RATING, Ratings
from door.store.db import Database
from tests.services.nim import NimRules
from tests.services.test_games import two_player_game

GAMES = 100


async def test_simultaneous_finishes_on_two_processes_are_each_counted_once(
    games: GameService, db: Database, clock: FakeClock, alice: User, bob: User
) -> None:
    # Nim is rated with pairwise Elo (every kind but backgammon is); resigning is the
    # cheapest finish there is, one transaction each
    snaps = [await two_player_game(games, alice, bob) for _ in range(GAMES)]
    second_db = Database(db.url)
    second = GameService(second_db, {"nim": NimRules()}, LocalHub(), clock, random.Random(7))
    try:
        # even games: alice resigns on this process; odd ones: bob on the other
        results = await asyncio.gather(
            *(
                (games if i % 2 == 0 else second).resign(
                    s.info.id, alice.id if i % 2 == 0 else bob.id, s.info.version
                )
                for i, s in enumerate(snaps)
            ),
            return_exceptions=True,
        )
    finally:
        await second_db.dispose()
    assert [r for r in results if isinstance(r, BaseException)] == []
    assert {(await games.get(s.info.id)).info.status for s in snaps} == {"finished"}
    stored = await db.run_read(lambda repo: repo.ratings("nim", [alice.id, bob.id]))
    half = GAMES // 2
    for uid in (alice.id, bob.id):
        row = stored[uid]
        assert (row.wins, row.losses, row.experience) == (half, half, GAMES)
    # Elo is zero-sum between two players
    assert stored[alice.id].rating + stored[bob.id].rating == pytest.approx(2 * START_RATING)
    audit = await Ratings(db).audit()
    assert audit.problems == []
    assert audit.games == GAMES


async def test_the_ratings_check_sees_games_finishing_meanwhile_whole_or_not_at_all(
    games: GameService, db: Database, clock: FakeClock, alice: User, bob: User
) -> None:
    snaps = [await two_player_game(games, alice, bob) for _ in range(40)]
    second_db = Database(db.url)
    second = GameService(second_db, {"nim": NimRules()}, LocalHub(), clock, random.Random(7))
    done = asyncio.Event()
    problems: list[str] = []
    audits = 0

    async def finish() -> None:
        for s in snaps:
            await second.resign(s.info.id, alice.id, s.info.version)
            await asyncio.sleep(0)  # SQLite's transactions need not give the loop up
        done.set()

    async def check() -> None:
        nonlocal audits
        while not done.is_set():
            problems.extend((await Ratings(db).audit()).problems)
            audits += 1
            await asyncio.sleep(0)

    try:
        await asyncio.gather(finish(), check())
    finally:
        await second_db.dispose()
    assert problems == []
    assert audits > 1
