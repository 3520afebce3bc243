"""Fixtures for screen tests: real services on a temp-dir SQLite, a fake terminal, and a
helper that runs a real session on it."""

from __future__ import annotations

import asyncio
import importlib
import random
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from door.config import Config, DatabaseConfig, GamesConfig
from door.games.registry import build_registry
from door.services import Services, build_services
from door.services.accounts import Accounts, User
from door.services.clock import FakeClock
from door.session import run_session
from door.store.db import Database
from door.ui.terminal import Encoding
from tests.store import dbutil
from tests.ui.faketerm import FakeTerminal


def partial_registry() -> dict[str, Any]:
    """The games whose rules import (used only while one is missing from the tree)."""
    out: dict[str, Any] = {}
    for module, cls in (
        ("door.games.backgammon.rules", "BackgammonRules"),
        ("door.games.spectrangle.rules", "SpectrangleRules"),
    ):
        try:
            rules = getattr(importlib.import_module(module), cls)()
        except ImportError:
            continue
        out[rules.kind] = rules
    return out


@pytest.fixture(scope="session")
def ui_sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One migrated database file holding Alice and Bob, copied for each test
    (migrating and hashing their passwords for every test would be slow)."""
    path = dbutil.make_sqlite_template(tmp_path_factory.mktemp("ui-template"))

    async def add_players() -> None:
        db = Database(dbutil.sqlite_url(path))
        try:
            accounts = Accounts(db, FakeClock())
            await accounts.register("Alice", "alice-pw")
            await accounts.register("Bob", "bob-pw1")
        finally:
            await db.dispose()

    dbutil.run_blocking(add_players)
    return path


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
async def services(
    ui_sqlite_template: Path, tmp_path: Path, clock: FakeClock
) -> AsyncIterator[Services]:
    """The real services (build_services) on a fresh SQLite copy, no background tasks
    and no bots unless a test asks."""
    url = dbutil.fresh_sqlite(ui_sqlite_template, tmp_path)
    config = Config(
        data_dir=tmp_path,
        database=DatabaseConfig(url=url, auto_upgrade=False),
        games=GamesConfig(bots=False),
    )
    with pytest.MonkeyPatch.context() as mp:
        try:
            build_registry()
        except ImportError:
            # While a game's rules are still being written, test with the games that exist.
            mp.setattr("door.games.registry.build_registry", partial_registry)
        svc = await build_services(
            config, clock=clock, rng=random.Random(7), start_background=False
        )
    try:
        yield svc
    finally:
        await svc.close()


async def player(services: Services, name: str) -> User:
    user = await services.accounts.by_name(name)
    assert user is not None, f"{name} is in the template database"
    return user


@pytest.fixture
async def alice(services: Services) -> User:
    """Alice, password ``alice-pw`` (already registered in the template)."""
    return await player(services, "Alice")


@pytest.fixture
async def bob(services: Services) -> User:
    """Bob, password ``bob-pw1``."""
    return await player(services, "Bob")


class Running:
    """A session running on a fake terminal; ``await stop()`` hangs up and waits."""

    def __init__(self, term: FakeTerminal, task: asyncio.Task[None]) -> None:
        self.term = term
        self.task = task

    async def stop(self) -> None:
        if not self.task.done():
            self.term.hangup()
        await asyncio.wait_for(self.task, 5)


StartSession = Callable[..., Awaitable[Running]]


@pytest.fixture
async def start_session(services: Services) -> AsyncIterator[StartSession]:
    """``await start_session(user, encoding=..., width=..., height=..., start=...)`` runs
    ``run_session`` on a new fake terminal and waits for its first screen."""
    running: list[Running] = []

    async def start(
        user: User | None,
        *,
        encoding: Encoding = "utf-8",
        width: int = 80,
        height: int = 24,
        colors: int = 16,
        start: str | None = None,
        **kwargs: Any,
    ) -> Running:
        term = FakeTerminal(width=width, height=height, encoding=encoding, colors=colors)
        if user is not None and kwargs.get("fresh", True):
            user = await services.accounts.get(user.id)
        task = asyncio.create_task(run_session(term, services, user, start=start))
        r = Running(term, task)
        running.append(r)
        await term.settle()
        if task.done():
            task.result()  # raise what went wrong
        return r

    yield start
    for r in running:
        await r.stop()


def plain(user: User) -> User:
    """``user`` with default settings (for tests that do not care)."""
    return replace(user)


async def started_game(
    services: Services, creator: User, other: User, kind: str = "backgammon"
) -> Any:
    """A game of ``kind`` between two users, begun and joined (so it is active)."""
    from door.services.games import SeatSpec

    seats = [SeatSpec("me"), SeatSpec("user", other.name)]
    info = await services.games.begin(creator.id, kind, {}, seats)
    return await services.games.join(info.id, other.id)


async def won_by_resignation(services: Services, winner: User, loser: User) -> Any:
    """A backgammon game between the two that ``loser`` resigned (so it is finished)."""
    info = await started_game(services, winner, loser, "backgammon")
    snap = await services.games.get(info.id, loser.id)
    return await services.games.resign(info.id, loser.id, snap.info.version)
