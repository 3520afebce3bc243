"""Fixtures for the tournament tests: a migrated SQLite database, a fake clock, the game
and tournament services, and players."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from door.games.registry import build_registry
from door.services.accounts import name_key
from door.services.clock import FakeClock
from door.services.games import GameService
from door.services.notify import LocalHub
from door.services.tournaments.service import Tournaments
from door.store.db import Database
from tests.store import dbutil


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return dbutil.make_sqlite_template(tmp_path_factory.mktemp("door-template"))


@pytest.fixture
async def db(sqlite_template: Path, tmp_path: Path) -> AsyncIterator[Database]:
    database = Database(dbutil.fresh_sqlite(sqlite_template, tmp_path))
    yield database
    await database.dispose()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def games(db: Database, clock: FakeClock) -> GameService:
    return GameService(db, build_registry(), LocalHub(), clock, random.Random(7))


@pytest.fixture
def tours(db: Database, games: GameService, clock: FakeClock) -> Tournaments:
    return Tournaments(db, games, clock)


async def make_users(db: Database, clock: FakeClock, n: int, prefix: str = "p") -> list[int]:
    """``n`` players (p1 … pn), the first a sysop; their ids."""

    def action(repo: object) -> list[int]:
        from door.store.repository import Repository

        assert isinstance(repo, Repository)
        ids = []
        for i in range(1, n + 1):
            name = f"{prefix}{i}"
            uid = repo.insert_user(name, name_key(name), None, False, clock.now(), {})
            ids.append(uid)
        user = repo.user(ids[0])
        assert user is not None
        from dataclasses import replace

        repo.save_user(replace(user, is_sysop=True))
        return ids

    return await db.transact(action)
