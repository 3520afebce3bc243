"""build_services: the composition of the services from a configuration."""

from __future__ import annotations

import asyncio
import dataclasses
from datetime import timedelta
from pathlib import Path
from typing import Any

from door.config import Config, GamesConfig, load_config
from door.services import build_services
from door.services.clock import FakeClock
from door.services.games import SeatSpec


def config_in(tmp_path: Path, **games: Any) -> Config:
    config = load_config(None, tmp_path)
    return dataclasses.replace(config, games=dataclasses.replace(GamesConfig(), **games))


async def test_build_services_upgrades_a_new_database_and_closes_cleanly(tmp_path: Path) -> None:
    services = await build_services(config_in(tmp_path, bots=False), start_background=False)
    try:
        user = await services.accounts.register("Alice", "secret")
        assert (await services.accounts.get(user.id)).name == "Alice"
        assert {k for k, _ in services.games.kinds()} == {"backgammon", "spectrangle"}
        assert services.bots is None
    finally:
        await services.close()
    assert (tmp_path / "door.sqlite3").is_file()


async def test_the_background_sweeper_applies_timeouts(tmp_path: Path) -> None:
    clock = FakeClock()
    services = await build_services(
        config_in(tmp_path, bots=False, sweep_interval_s=0.02),
        clock=clock,
    )
    try:
        a = await services.accounts.register("Alice", "secret")
        b = await services.accounts.register("Bob", "secret")
        info = await services.games.begin(
            a.id, "backgammon", {"match_length": 1}, [SeatSpec("me"), SeatSpec("user", "Bob")]
        )
        await services.games.join(info.id, b.id)
        clock.advance(timedelta(days=8))
        for _ in range(200):
            if (await services.games.get(info.id)).info.status == "finished":
                break
            await asyncio.sleep(0.01)
        assert (await services.games.get(info.id)).info.status == "finished"
    finally:
        await services.close()


async def test_bots_are_built_and_stopped_when_configured(tmp_path: Path) -> None:
    services = await build_services(config_in(tmp_path, bots=True))
    try:
        assert services.bots is not None
        assert services.games.on_after_commit is not None
    finally:
        await services.close()
    assert services.games.on_after_commit is None


async def test_on_postgresql_the_hub_listens_across_processes(
    tmp_path: Path, pg_url: str, pg_template: str
) -> None:
    from door.config import DatabaseConfig
    from door.services.notify import PgHub
    from tests.store import dbutil

    config = dataclasses.replace(
        config_in(tmp_path, bots=False),
        database=DatabaseConfig(url=dbutil.pg_database_url(pg_url, pg_template)),
    )
    # Empty the shared database before the services start: truncating under their
    # background tasks (presence heartbeat, sender, tournament sweep) can deadlock.
    from door.store.db import Database

    scratch = Database(config.database.url)
    await dbutil.truncate_all(scratch)
    await scratch.dispose()
    services = await build_services(config)
    try:
        assert isinstance(services.hub, PgHub)
        user = await services.accounts.register("Alice", "secret")
        assert (await services.accounts.by_name("alice")) == user
    finally:
        await services.close()


async def test_a_game_begun_without_a_deadline_gets_the_configured_default(
    tmp_path: Path,
) -> None:
    services = await build_services(
        config_in(tmp_path, bots=False, default_deadline_hours=48), start_background=False
    )
    try:
        a = await services.accounts.register("Alice", "secret")
        await services.accounts.register("Bob", "secret")
        seats = [SeatSpec("me"), SeatSpec("user", "Bob")]
        info = await services.games.begin(a.id, "backgammon", {"match_length": 1}, seats)
        assert info.deadline_hours == 48
        chosen = await services.games.begin(
            a.id, "backgammon", {"match_length": 1}, seats, deadline_hours=24
        )
        assert chosen.deadline_hours == 24
    finally:
        await services.close()


async def test_a_process_configured_not_to_run_bots_has_them_for_hints_only(
    tmp_path: Path,
) -> None:
    config = config_in(tmp_path, bots=True)
    config = dataclasses.replace(config, bots=dataclasses.replace(config.bots, run=False))
    services = await build_services(config)
    try:
        assert services.bots is not None
        assert services.bots.plays is False
        assert services.games.on_after_commit is None  # it is told of no turn to play
    finally:
        await services.close()
