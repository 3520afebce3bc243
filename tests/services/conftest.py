"""Fixtures for the service tests: every test runs on SQLite and on PostgreSQL."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from door.services.accounts import Accounts, User
from door.services.clock import FakeClock
from door.services.games import GameService
from door.services.notify import LocalHub
from door.services.ratings import Ratings
from door.store.db import Database
from tests.services.nim import NimRules
from tests.store import dbutil

NIM_BOTS = {"nim": ("nim-bot",)}
"""The computer players the Nim tests may seat."""


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return dbutil.make_sqlite_template(tmp_path_factory.mktemp("door-template"))


@pytest.fixture(scope="session")
def pg_template(pg_url: str) -> Iterator[str]:
    """A migrated PostgreSQL database shared by the service tests (emptied before each)."""
    yield dbutil.make_pg_template(pg_url, "door_services")


@pytest.fixture(scope="session")
def pg_clone_template(pg_url: str) -> str:
    """A migrated database that nobody connects to, so CREATE DATABASE … TEMPLATE can
    copy it (PostgreSQL refuses a template that has open sessions)."""
    return dbutil.make_pg_template(pg_url, "door_clone_template")


@pytest.fixture(params=["sqlite", "postgres"])
async def db(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[Database]:
    """A freshly migrated, empty database on each backend."""
    if request.param == "sqlite":
        template = request.getfixturevalue("sqlite_template")
        database = Database(dbutil.fresh_sqlite(template, tmp_path))
        yield database
        await database.dispose()
    else:
        server = request.getfixturevalue("pg_url")
        template = request.getfixturevalue("pg_template")
        database = Database(dbutil.pg_database_url(server, template))
        await dbutil.truncate_all(database)
        yield database
        await database.dispose()


@pytest.fixture(autouse=True)
def cheap_password_hashing(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """scrypt at n=2**14 costs ~50 ms a hash; fixtures make many users, so tests use a
    small n (hashes are self-describing, so verification still works). Tests marked
    ``real_kdf`` keep the production cost."""
    if request.node.get_closest_marker("real_kdf") is None:
        monkeypatch.setattr("door.services.accounts.SCRYPT_N", 2**8)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def accounts(db: Database, clock: FakeClock) -> Accounts:
    return Accounts(db, clock)


@pytest.fixture
def hub() -> LocalHub:
    return LocalHub()


@pytest.fixture
def games(db: Database, hub: LocalHub, clock: FakeClock) -> GameService:
    return GameService(
        db, {"nim": NimRules()}, hub, clock, random.Random(1234), bot_levels=NIM_BOTS
    )


@pytest.fixture
def ratings(db: Database) -> Ratings:
    return Ratings(db)


@pytest.fixture
async def alice(accounts: Accounts) -> User:
    return await accounts.register("Alice", "alice-pw")


@pytest.fixture
async def bob(accounts: Accounts) -> User:
    return await accounts.register("Bob", "bob-pw1")


@pytest.fixture
async def carol(accounts: Accounts) -> User:
    return await accounts.register("Carol", "carol-pw")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "real_kdf: hash passwords at the production scrypt cost")
