"""Fixtures for the bot tests: a real game service on a migrated SQLite file, with the
real rules registry, and a started bot runner."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from door.games.registry import build_registry
from door.services import Services
from door.services.accounts import Accounts
from door.services.bots import BotBrains, BotRunner
from door.services.clock import FakeClock
from door.services.games import GameService
from door.services.notify import LocalHub
from door.services.ratings import Ratings
from door.store.db import Database
from tests.store import dbutil


@pytest.fixture(scope="session")
def bots_sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return dbutil.make_sqlite_template(tmp_path_factory.mktemp("door-bots-template"))


@pytest.fixture(autouse=True)
def cheap_password_hashing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests make users; they need not pay the production scrypt cost."""
    monkeypatch.setattr("door.services.accounts.SCRYPT_N", 2**8)


@pytest.fixture
async def services(bots_sqlite_template: Path, tmp_path: Path) -> AsyncIterator[Services]:
    """Every service on a fresh database; no bot runner yet (see ``runner``)."""
    db = Database(dbutil.fresh_sqlite(bots_sqlite_template, tmp_path))
    clock = FakeClock()
    hub = LocalHub()
    svc = Services(
        db=db,
        accounts=Accounts(db, clock),
        games=GameService(db, build_registry(), hub, clock, random.Random(7)),
        ratings=Ratings(db),
        hub=hub,
        clock=clock,
    )
    yield svc
    await svc.close()


@pytest.fixture(scope="session")
def brains() -> BotBrains:
    """The move choosers, shared by every runner in the session (engines load once)."""
    return BotBrains(random.Random(11))


@pytest.fixture
async def runner(services: Services, brains: BotBrains) -> AsyncIterator[BotRunner]:
    """A started bot runner whose start-up (accounts, warm-up, scan) has finished."""
    bots = BotRunner(services, brains=brains)
    services.bots = bots
    bots.start()
    await bots.ready()
    yield bots
    await bots.stop()
