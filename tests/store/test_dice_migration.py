"""Migration 0006 (provable dice): a game made before it has no seed, so its dice say
they cannot be proven, its chance count is read from its log, and it plays on; downgrade
takes the columns away again and keeps the game."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlalchemy import inspect
from sqlalchemy.engine import Connection

from door.games.registry import build_registry
from door.services.accounts import Accounts
from door.services.clock import FakeClock
from door.services.games import GameService, SeatSpec
from door.services.notify import LocalHub
from door.store.db import Database
from door.store.migrate import check_connection, downgrade_connection, upgrade_connection
from door.store.repository import Repository
from tests.store import dbutil


@pytest.fixture(params=["sqlite", "postgres"])
async def empty_db(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Database]:
    if request.param == "sqlite":
        database = Database(dbutil.sqlite_url(tmp_path / "empty.sqlite3"))
        yield database
        await database.dispose()
    else:
        server = request.getfixturevalue("pg_url")
        url = await dbutil.fresh_pg(server, None)
        database = Database(url)
        yield database
        await database.dispose()
        await dbutil.drop_pg(server, url)


def columns(conn: Connection, table: str) -> set[str]:
    return {c["name"] for c in inspect(conn).get_columns(table)}


def service(db: Database) -> GameService:
    """A game service as a new process makes it (nothing cached)."""
    return GameService(db, build_registry(), LocalHub(), FakeClock(), random.Random(3))


async def play(games: GameService, gid: int, turns: int, rng: random.Random) -> None:
    for _ in range(turns):
        snap = await games.get(gid)
        if snap.info.status != "active" or snap.info.to_act is None:
            return
        rules = games.rules_for("backgammon")
        user = snap.info.seats[snap.info.to_act].user_id
        assert user is not None
        legal = list(rules.legal_moves(snap.state))
        moves = [m for m in legal if rules.format_move(snap.state, m) != "double"] or legal
        move = rules.format_move(snap.state, rng.choice(moves))
        await games.submit(gid, user, move, snap.info.version)


async def test_a_game_from_before_0006_is_not_provable_keeps_its_chance_count_and_plays_on(
    empty_db: Database,
) -> None:
    db = empty_db
    await db.run_sync(lambda c: upgrade_connection(c, "0005"))
    assert "dice_seed" not in await db.run_sync(lambda c: columns(c, "games"))
    # a game as door made them before provable dice: its columns are 0005's
    await db.run_sync(lambda c: upgrade_connection(c, "head"))
    accounts = Accounts(db, FakeClock())
    alice = await accounts.register("Alice", "alice-pw")
    bob = await accounts.register("Bob", "bob-pw1")
    games = service(db)
    info = await games.begin(
        alice.id, "backgammon", {}, [SeatSpec("me"), SeatSpec("user", bob.name)], dice_word="w"
    )
    await games.join(info.id, bob.id)
    await play(games, info.id, 8, random.Random(1))
    await db.run_sync(lambda c: downgrade_connection(c, "0005"))
    assert "dice_seed" not in await db.run_sync(lambda c: columns(c, "games"))
    assert "dice_word" not in await db.run_sync(lambda c: columns(c, "seats"))

    await db.run_sync(lambda c: upgrade_connection(c, "head"))
    await db.run_sync(check_connection)  # the upgraded schema is the models'
    games = service(db)

    def read(repo: Repository) -> tuple[object, list[object], int]:
        game, seats = repo.game_with_seats(info.id)
        chance = sum(1 for e in repo.events(info.id) if e.kind == "chance")
        return game, list(seats), chance

    game, seats, chance = await db.run_read(read)
    assert game.dice_seed is None  # type: ignore[attr-defined]
    assert game.chance_count == chance > 0  # type: ignore[attr-defined]
    assert [s.dice_word for s in seats] == ["", ""]  # type: ignore[attr-defined]
    proof = await games.dice_proof(info.id)
    assert not proof.provable and proof.seed_hex is None and proof.commitment_hex is None
    assert await games.replay_check(info.id) is None
    await play(games, info.id, 8, random.Random(2))
    assert await games.replay_check(info.id) is None
    assert not (await games.dice_proof(info.id)).provable
    # a game made now has a seed again
    new = await games.begin(alice.id, "backgammon", {}, [SeatSpec("me"), SeatSpec("open")])
    assert (await games.dice_proof(new.id)).provable


async def test_downgrading_0006_keeps_the_games_and_upgrading_again_is_harmless(
    empty_db: Database,
) -> None:
    db = empty_db
    await db.upgrade()
    accounts = Accounts(db, FakeClock())
    alice = await accounts.register("Alice", "alice-pw")
    info = await service(db).begin(alice.id, "spectrangle", {}, [SeatSpec("me"), SeatSpec("open")])
    await db.run_sync(lambda c: downgrade_connection(c, "0005"))
    await db.run_sync(lambda c: upgrade_connection(c, "head"))
    await db.run_sync(lambda c: downgrade_connection(c, "0005"))
    await db.run_sync(lambda c: upgrade_connection(c, "head"))
    games = service(db)
    assert (await games.get(info.id)).info.status == "open"
    assert not (await games.dice_proof(info.id)).provable
