"""Two processes on one database: a move always answers with the game as the database
holds it, whatever the other process (or a look at the board) changed meanwhile."""

from __future__ import annotations

import random

from door.services.accounts import User
from door.services.clock import FakeClock
from door.services.games import GameService
from door.services.notify import LocalHub
from door.store.db import Database
from tests.services.nim import NimRules
from tests.services.test_games import player_to_act, two_player_game


def other_server(db: Database, clock: FakeClock) -> tuple[Database, GameService]:
    """A second process's view of the same database: its own engine and connections."""
    second = Database(db.url)
    return second, GameService(second, {"nim": NimRules()}, LocalHub(), clock, random.Random(7))


async def test_a_move_answers_with_the_last_seen_mark_made_since_the_previous_move(
    games: GameService, alice: User, bob: User
) -> None:
    snap = await two_player_game(games, alice, bob, heap=50)
    for _ in range(2):
        snap = await games.submit(snap.info.id, player_to_act(snap), "1", snap.info.version)
    mover = player_to_act(snap)
    await games.mark_seen(snap.info.id, mover, snap.info.last_seq)
    after = await games.submit(snap.info.id, mover, "1", snap.info.version)
    assert after.last_seen_seq == snap.info.last_seq


async def test_a_move_sees_what_another_process_committed_meanwhile(
    games: GameService, db: Database, clock: FakeClock, alice: User, bob: User
) -> None:
    snap = await two_player_game(games, alice, bob, heap=50)
    snap = await games.submit(snap.info.id, player_to_act(snap), "1", snap.info.version)
    second_db, second = other_server(db, clock)
    try:
        mover = player_to_act(snap)
        # the other process marks the seat seen (no version change) ...
        await second.mark_seen(snap.info.id, mover, snap.info.last_seq)
        # ... and this one's next move must not answer from what it wrote before
        after = await games.submit(snap.info.id, mover, "1", snap.info.version)
        assert after.last_seen_seq == snap.info.last_seq
    finally:
        await second_db.dispose()


async def test_a_move_after_another_process_moved_is_checked_against_its_version(
    games: GameService, db: Database, clock: FakeClock, alice: User, bob: User
) -> None:
    snap = await two_player_game(games, alice, bob, heap=50)
    snap = await games.submit(snap.info.id, player_to_act(snap), "1", snap.info.version)
    second_db, second = other_server(db, clock)
    try:
        theirs = await second.submit(snap.info.id, player_to_act(snap), "1", snap.info.version)
        after = await games.submit(
            snap.info.id, player_to_act(theirs), "1", theirs.info.version
        )
        assert after.state.heap == theirs.state.heap - 1
        assert after.info.version == theirs.info.version + 1
        log = await games.events(snap.info.id)
        assert [e.payload["move"] for e in log if e.kind == "move"] == [
            "take 1",
            "take 1",
            "take 1",
        ]
    finally:
        await second_db.dispose()


async def test_the_last_move_of_a_game_leaves_nothing_for_a_look_to_trust(
    games: GameService, alice: User, bob: User
) -> None:
    snap = await two_player_game(games, alice, bob, heap=3)
    while snap.info.status == "active":
        snap = await games.submit(snap.info.id, player_to_act(snap), "1", snap.info.version)
    await games.mark_seen(snap.info.id, alice.id, snap.info.last_seq)
    assert (await games.get(snap.info.id, alice.id)).last_seen_seq == snap.info.last_seq
    assert (await games.since_last_visit(alice.id)).finished == []
