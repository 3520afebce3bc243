"""Replay: random complete games of the real kinds through the service, then ``door check``.

Every game's event log must replay through the rules to exactly its stored snapshot; a
tampered snapshot or event must be reported (exit status 1, the game named).
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.engine import Connection

from door.cli import main as door_main
from door.games.registry import build_registry
from door.services.accounts import Accounts, User
from door.services.clock import FakeClock
from door.services.games import GameService, GameSnapshot, SeatSpec
from door.services.notify import LocalHub
from door.store.db import Database
from tests.store import dbutil

# SQLite carries the full 200 games of each kind; PostgreSQL (slower per move) a sample.
GAMES = {"sqlite": 200, "postgres": 24}

# Matches and money games, cube on and off; random play with the cube on ends most money
# games early (a random drop), which keeps 200 games affordable.
BACKGAMMON_OPTIONS: list[dict[str, Any]] = [
    {"match_length": 1},
    {"match_length": 0},
    {"match_length": 0, "jacoby": True, "beavers": True},
    {"match_length": 0, "auto_doubles": True},
    {"match_length": 1, "cube": False},
]


@dataclass
class Site:
    """A data dir (or config file) that ``door check`` can be pointed at."""

    db: Database
    args: list[str]


@pytest.fixture(params=["sqlite", "postgres"])
async def site(
    request: pytest.FixtureRequest, tmp_path: Path, sqlite_template: Path
) -> AsyncIterator[Site]:
    if request.param == "sqlite":
        path = tmp_path / "door.sqlite3"
        path.write_bytes(sqlite_template.read_bytes())
        db = Database(dbutil.sqlite_url(path))
        yield Site(db, ["--data-dir", str(tmp_path)])
        await db.dispose()
    else:
        server = request.getfixturevalue("pg_url")
        template = request.getfixturevalue("pg_clone_template")
        url = await dbutil.fresh_pg(server, template)
        config = tmp_path / "door.toml"
        config.write_text(f'[database]\nurl = "{url}"\nauto_upgrade = false\n')
        db = Database(url)
        yield Site(db, ["--config", str(config), "--data-dir", str(tmp_path)])
        await db.dispose()
        await dbutil.drop_pg(server, url)


async def play_out(
    games: GameService,
    clock: FakeClock,
    snap: GameSnapshot,
    rng: random.Random,
) -> GameSnapshot:
    """Random legal moves to the end; now and then a resignation or a missed deadline."""
    rules = games.registry[snap.info.kind]
    while snap.info.status == "active":
        roll = rng.random()
        seat = snap.info.to_act
        assert seat is not None
        uid = snap.info.seats[seat].user_id
        assert uid is not None
        if roll < 0.003:
            snap = await games.resign(snap.info.id, uid, snap.info.version)
        elif roll < 0.01:
            clock.advance(timedelta(hours=snap.info.deadline_hours))
            await games.sweep_deadlines()
            snap = await games.get(snap.info.id)
        else:
            move = rng.choice(list(rules.legal_moves(snap.state)))
            text_ = rules.format_move(snap.state, move)
            snap = await games.submit(snap.info.id, uid, text_, snap.info.version)
    return snap


async def play_many(site: Site, count: int) -> tuple[GameService, list[int]]:
    clock = FakeClock()
    games = GameService(site.db, build_registry(), LocalHub(), clock, random.Random(20261201))
    accounts = Accounts(site.db, clock)
    people: list[User] = [await accounts.register(f"Player {i}", "secret") for i in range(4)]
    rng = random.Random(7)
    ids: list[int] = []
    for i in range(count):
        for kind in ("backgammon", "spectrangle"):
            if kind == "backgammon":
                options = BACKGAMMON_OPTIONS[i % len(BACKGAMMON_OPTIONS)]
                n = 2
            else:
                n = 2 + i % 3
                options = {"mirror": bool(i % 2)}
            players = rng.sample(people, n)
            seats = [SeatSpec("me")] + [SeatSpec("user", p.name) for p in players[1:]]
            info = await games.begin(players[0].id, kind, options, seats)
            for p in players[1:]:
                info = await games.join(info.id, p.id)
            done = await play_out(games, clock, await games.get(info.id), rng)
            assert done.info.status == "finished"
            assert done.info.outcome is not None
            ids.append(info.id)
    return games, ids


async def door_check(site: Site) -> int:
    # door check runs its own event loop, so it gets a thread of its own here
    return await asyncio.to_thread(door_main, ["check", *site.args])


@pytest.mark.slow
async def test_random_games_replay_to_their_snapshots_and_door_check_is_clean(
    site: Site, request: pytest.FixtureRequest, capsys: pytest.CaptureFixture[str]
) -> None:
    backend = "postgres" if "--config" in site.args else "sqlite"
    count = GAMES[backend]
    games, ids = await play_many(site, count)
    assert len(ids) == 2 * count
    kinds = {(await games.get(i)).info.kind for i in ids}
    assert kinds == {"backgammon", "spectrangle"}
    assert await door_check(site) == 0
    out = capsys.readouterr().out
    assert f"{2 * count} game(s) checked" in out

    # a snapshot swapped for another game's position is found and named
    victim, other = ids[3], ids[5]
    def swap(conn: Connection) -> None:
        theirs = conn.execute(
            text("SELECT snapshot FROM games WHERE id = :i"), {"i": other}
        ).scalar_one()
        conn.execute(
            text("UPDATE games SET snapshot = :s WHERE id = :i"), {"s": theirs, "i": victim}
        )

    await site.db.run_sync(swap)
    assert await door_check(site) == 1
    out = capsys.readouterr().out
    assert f"game {victim}:" in out and "1 of" in out
    assert await games.replay_check(victim) is not None
    assert await games.replay_check(ids[4]) is None


async def test_a_tampered_event_is_reported(site: Site, capsys: pytest.CaptureFixture[str]) -> None:
    _, ids = await play_many(site, 1)
    victim = ids[0]
    await site.db.run_sync(
        lambda c: c.execute(
            text("DELETE FROM game_events WHERE game_id = :g AND seq = 3"), {"g": victim}
        )
    )
    assert await door_check(site) == 1
    assert f"game {victim}:" in capsys.readouterr().out


async def test_door_check_on_a_missing_database_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = await asyncio.to_thread(door_main, ["check", "--data-dir", str(tmp_path / "none")])
    assert status == 2
    assert "door check" in capsys.readouterr().err


async def test_replay_check_notices_a_wrong_seat_to_act(site: Site) -> None:
    games = GameService(site.db, build_registry(), LocalHub(), FakeClock(), random.Random(5))
    accounts = Accounts(site.db, games.clock)
    a = await accounts.register("Ann", "secret")
    b = await accounts.register("Ben", "secret")
    info = await games.begin(a.id, "spectrangle", {}, [SeatSpec("me"), SeatSpec("user", "Ben")])
    snap = await games.get((await games.join(info.id, b.id)).id)
    assert snap.info.to_act is not None
    assert await games.replay_check(info.id) is None
    wrong = 1 - snap.info.to_act
    await site.db.run_sync(
        lambda c: c.execute(
            text("UPDATE games SET to_act = :s WHERE id = :i"), {"s": wrong, "i": info.id}
        )
    )
    problem = await games.replay_check(info.id)
    assert problem is not None and "to act" in problem
