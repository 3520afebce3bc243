"""Fixtures for the record tests: a migrated SQLite database, the real rules, two players."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from door.games.registry import build_registry
from door.services.accounts import Accounts, User
from door.services.clock import FakeClock
from door.services.games import GameService
from door.services.notify import LocalHub
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


@pytest.fixture(autouse=True)
def cheap_password_hashing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fixtures make users; the production scrypt cost is not what these tests check."""
    monkeypatch.setattr("door.services.accounts.SCRYPT_N", 2**8)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def accounts(db: Database, clock: FakeClock) -> Accounts:
    return Accounts(db, clock)


@pytest.fixture
def games(db: Database, clock: FakeClock) -> GameService:
    return GameService(db, build_registry(), LocalHub(), clock, random.Random(2026))


@pytest.fixture
async def alice(accounts: Accounts) -> User:
    return await accounts.register("Alice", "alice-pw")


@pytest.fixture
async def bob(accounts: Accounts) -> User:
    return await accounts.register("Bob", "bob-pw1")


@pytest.fixture
async def carol(accounts: Accounts) -> User:
    return await accounts.register("Carol", "carol-pw")
