"""``door check`` recomputes every rating from the finished games: clean on a database the
service wrote, and it reports a tampered rating, a game whose rating changes were not
recorded, and a game recorded for only some of its players."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import text

from door.cli import main as door_main
from door.games.registry import build_registry
from door.services.accounts import Accounts, User
from door.services.clock import FakeClock
from door.services.games import GameService, SeatSpec
from door.services.notify import LocalHub
from door.store.db import Database
from tests.store import dbutil


@dataclass
class Site:
    """A database that ``door check`` can be pointed at, with rated games finished on it."""

    db: Database
    args: list[str]
    people: list[User]
    games: list[int]


async def finish_games(db: Database) -> tuple[list[User], list[int]]:
    """Six rated games among three players, each finished by a resignation: three
    one-point backgammon matches (FIBS) and three Spectrangle games (Elo)."""
    clock = FakeClock()
    games = GameService(db, build_registry(), LocalHub(), clock, random.Random(15))
    accounts = Accounts(db, clock)
    people = [await accounts.register(name, "secret") for name in ("Ann", "Ben", "Cat")]
    ids = []
    for i in range(6):
        kind, options = ("backgammon", {"match_length": 1}) if i < 3 else ("spectrangle", {})
        host, guest = people[i % 3], people[(i + 1) % 3]
        info = await games.begin(
            host.id, kind, options, [SeatSpec("me"), SeatSpec("user", guest.name)]
        )
        info = await games.join(info.id, guest.id)
        clock.advance(timedelta(minutes=1))
        done = await games.resign(info.id, (host if i % 2 else guest).id)
        assert done.info.status == "finished"
        ids.append(info.id)
    return people, ids


@pytest.fixture(params=["sqlite", "postgres"])
async def site(
    request: pytest.FixtureRequest, tmp_path: Path, sqlite_template: Path
) -> AsyncIterator[Site]:
    if request.param == "sqlite":
        path = tmp_path / "door.sqlite3"
        path.write_bytes(sqlite_template.read_bytes())
        db = Database(dbutil.sqlite_url(path))
        args = ["--data-dir", str(tmp_path)]
        url = None
    else:
        server = request.getfixturevalue("pg_url")
        url = await dbutil.fresh_pg(server, request.getfixturevalue("pg_clone_template"))
        config = tmp_path / "door.toml"
        config.write_text(f'[database]\nurl = "{url}"\nauto_upgrade = false\n')
        db = Database(url)
        args = ["--config", str(config), "--data-dir", str(tmp_path)]
    people, ids = await finish_games(db)
    yield Site(db, args, people, ids)
    await db.dispose()
    if url is not None:
        await dbutil.drop_pg(request.getfixturevalue("pg_url"), url)


async def door_check(site: Site, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    capsys.readouterr()
    # door check runs its own event loop, so it gets a thread of its own here
    status = await asyncio.to_thread(door_main, ["check", *site.args])
    return status, capsys.readouterr().out


async def run_sql(site: Site, statement: str, **params: object) -> None:
    await site.db.run_sync(lambda c: c.execute(text(statement), params))


async def test_every_rating_matches_its_games_on_an_untouched_database(
    site: Site, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out = await door_check(site, capsys)
    assert status == 0, out
    assert "every rating matches its 6 rated game(s)" in out


async def test_a_tampered_rating_is_reported_with_its_player_and_kind(
    site: Site, capsys: pytest.CaptureFixture[str]
) -> None:
    ben = site.people[1]
    await run_sql(
        site,
        "UPDATE ratings SET rating = rating + 50 WHERE user_id = :u AND kind = 'spectrangle'",
        u=ben.id,
    )
    status, out = await door_check(site, capsys)
    assert status == 1
    lines = [line for line in out.splitlines() if line.startswith("ratings:")]
    assert len(lines) == 1
    assert f"Ben (user {ben.id}), spectrangle: stored rating" in lines[0]
    assert "1 rating difference(s)" in out


async def test_a_changed_win_count_is_reported(
    site: Site, capsys: pytest.CaptureFixture[str]
) -> None:
    await run_sql(
        site,
        "UPDATE ratings SET wins = wins + 1 WHERE user_id = :u AND kind = 'backgammon'",
        u=site.people[0].id,
    )
    status, out = await door_check(site, capsys)
    assert status == 1
    assert f"Ann (user {site.people[0].id}), backgammon: stored" in out


async def test_a_game_without_its_recorded_rating_change_is_reported(
    site: Site, capsys: pytest.CaptureFixture[str]
) -> None:
    victim = site.games[4]
    await run_sql(site, "DELETE FROM rating_changes WHERE game_id = :g", g=victim)
    status, out = await door_check(site, capsys)
    assert status == 1
    assert f"ratings: game {victim} (spectrangle): no rating change recorded" in out


async def test_a_game_recorded_for_one_player_only_is_reported(
    site: Site, capsys: pytest.CaptureFixture[str]
) -> None:
    victim = site.games[1]
    await run_sql(
        site,
        "DELETE FROM rating_changes WHERE game_id = :g AND user_id = :u",
        g=victim,
        u=site.people[1].id,
    )
    status, out = await door_check(site, capsys)
    assert status == 1
    assert f"ratings: game {victim} (backgammon): rating changes recorded for" in out


async def test_games_finished_before_the_history_began_are_replayed_as_they_finished(
    site: Site, capsys: pytest.CaptureFixture[str]
) -> None:
    """A database upgraded to 0004 has no history for its older games: no row is missing,
    and the ratings still match."""
    await run_sql(site, "DELETE FROM rating_changes")
    status, out = await door_check(site, capsys)
    assert status == 0, out
    assert "every rating matches its 6 rated game(s)" in out


async def repaired_check(site: Site, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    capsys.readouterr()
    status = await asyncio.to_thread(door_main, ["check", "--repair-ratings", *site.args])
    return status, capsys.readouterr().out


async def test_repair_ratings_puts_tampered_ratings_and_a_lost_history_right(
    site: Site, capsys: pytest.CaptureFixture[str]
) -> None:
    """What the lost updates of the old rating code left behind (a rating off, a game
    with no recorded change) is rewritten from the finished games, and then checks clean."""
    before = await site.db.run_sync(
        lambda c: c.execute(text("SELECT user_id, kind, rating, experience, wins, losses "
                                 "FROM ratings ORDER BY kind, user_id")).all()
    )  # fmt: skip
    await run_sql(site, "UPDATE ratings SET rating = rating + 50, wins = wins + 3")
    await run_sql(site, "DELETE FROM rating_changes WHERE game_id = :g", g=site.games[4])
    assert (await door_check(site, capsys))[0] == 1
    status, out = await repaired_check(site, capsys)
    assert status == 0, out
    assert "ratings rewritten from the finished games" in out
    assert "every rating matches its 6 rated game(s)" in out
    after = await site.db.run_sync(
        lambda c: c.execute(text("SELECT user_id, kind, rating, experience, wins, losses "
                                 "FROM ratings ORDER BY kind, user_id")).all()
    )  # fmt: skip
    assert [tuple(r[:2]) + (round(r[2], 6),) + tuple(r[3:]) for r in after] == [
        tuple(r[:2]) + (round(r[2], 6),) + tuple(r[3:]) for r in before
    ]
    status, out = await door_check(site, capsys)
    assert status == 0, out


async def test_repair_ratings_changes_nothing_on_a_right_database(
    site: Site, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out = await repaired_check(site, capsys)
    assert status == 0, out
    assert "(0 changed)" in out
