"""``[tournaments] players_may_create = true``: the setting reaches the tournament service
through ``build_services``, and an ordinary player creates a tournament from T)ournaments
with the same short form as the sysop console's (a real session read with pyte)."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from door.config import Config, DatabaseConfig, GamesConfig, TournamentsConfig
from door.services import Services, build_services
from door.services.accounts import User
from door.services.clock import FakeClock
from door.services.tournaments.service import clock_of
from tests.store import dbutil
from tests.ui.conftest import StartSession


@pytest.fixture
async def services(
    ui_sqlite_template: Path, tmp_path: Path, clock: FakeClock
) -> AsyncIterator[Services]:
    """The real services with ordinary players allowed to create tournaments."""
    config = Config(
        data_dir=tmp_path,
        database=DatabaseConfig(url=dbutil.fresh_sqlite(ui_sqlite_template, tmp_path)),
        games=GamesConfig(bots=False),
        tournaments=TournamentsConfig(players_may_create=True),
    )
    svc = await build_services(config, clock=clock, rng=random.Random(7), start_background=False)
    try:
        yield svc
    finally:
        await svc.close()


async def test_the_setting_lets_an_ordinary_player_create_one_from_tournaments(
    start_session: StartSession, services: Services, alice: User
) -> None:
    assert services.tournaments is not None and services.tournaments.players_may_create
    assert not alice.is_sysop
    a = await start_session(alice)
    a.term.type("t")
    await a.term.wait_for("C)reate")
    a.term.type("c")
    await a.term.wait_for("A new tournament")
    a.term.type("n")
    a.term.line("Alice's open")
    a.term.type("s")
    a.term.line("4")
    a.term.type("d")  # 7 days → 14 days a move
    a.term.type("c")
    await a.term.wait_for("is open for entry.")
    (made,) = await services.tournaments.listing(("open",))
    assert (made.name, made.size, made.created_by) == ("Alice's open", 4, alice.id)
    assert clock_of(made).move_s == 336 * 3600
    await a.term.wait_for("Alice's open")  # back on the list, the Open tab


async def test_a_refused_form_says_why_and_stays_open(
    start_session: StartSession, services: Services, alice: User
) -> None:
    a = await start_session(alice)
    a.term.type("t")
    await a.term.wait_for("C)reate")
    a.term.type("c")
    await a.term.wait_for("A new tournament")
    a.term.type("c")  # no name yet
    await a.term.wait_for("give the tournament a name")
    assert "A new tournament" in a.term.display_text()
    assert services.tournaments is not None
    assert await services.tournaments.listing(("open", "running")) == []
