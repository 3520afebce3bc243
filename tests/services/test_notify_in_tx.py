"""On PostgreSQL a change's notices travel in the change's own transaction: one NOTIFY per
change (all of its notices), delivered at commit and never for a change rolled back;
another process delivers them to its subscribers and drops, unread, a payload about games
and users nobody there watches."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace

import pytest

from door.services.accounts import Accounts, User
from door.services.clock import FakeClock
from door.services.games import GameService, GameSnapshot, StaleVersionError
from door.services.notify import PgHub, notices_from_payload, payload_header
from door.store.db import Database
from door.store.pgnotify import CHANNEL, PgChannel
from tests.services.conftest import NIM_BOTS
from tests.services.nim import NimRules
from tests.services.test_games import player_to_act, two_player_game
from tests.store import dbutil


@dataclass
class Process:
    db: Database
    hub: PgHub
    games: GameService


@dataclass
class Two:
    here: Process
    there: Process
    wire: list[str]
    """Every payload on the notices' channel, as a third listener hears them."""
    alice: User
    bob: User


@pytest.fixture
async def two(pg_url: str, pg_template: str) -> AsyncIterator[Two]:
    url = dbutil.pg_database_url(pg_url, pg_template)
    dbs = [Database(url), Database(url), Database(url)]
    await dbutil.truncate_all(dbs[0])
    clock = FakeClock()
    processes = []
    for db in dbs[:2]:
        hub = PgHub(db)
        await hub.start()
        games = GameService(
            db, {"nim": NimRules()}, hub, clock, random.Random(5), bot_levels=NIM_BOTS
        )
        processes.append(Process(db, hub, games))
    wire: list[str] = []
    listener = PgChannel(dbs[2], wire.append, CHANNEL)
    await listener.start()
    accounts = Accounts(dbs[0], clock)
    alice = await accounts.register("Alice", "alice-pw")
    bob = await accounts.register("Bob", "bob-pw1")
    yield Two(processes[0], processes[1], wire, alice, bob)
    await listener.stop()
    for p in processes:
        await p.hub.stop()
    for db in dbs:
        await db.dispose()


async def quiet(wire: list[str]) -> None:
    """Give NOTIFYs in flight time to arrive (for checking that none did)."""
    await asyncio.sleep(0.3)
    del wire[:]


async def started(two: Two) -> GameSnapshot:
    snap = await two_player_game(two.here.games, two.alice, two.bob, heap=20)
    await quiet(two.wire)
    return snap


async def test_a_move_is_one_notify_carrying_all_of_its_notices(two: Two) -> None:
    snap = await started(two)
    after = await two.here.games.submit(snap.info.id, player_to_act(snap), "1", snap.info.version)
    await asyncio.sleep(0.3)
    assert len(two.wire) == 1
    notices = notices_from_payload(two.wire[0])
    assert [n.kind for n in notices] == ["move", "your_turn"]
    assert {(n.game_id, n.seq) for n in notices} == {(snap.info.id, after.info.last_seq)}
    origin, game_id, users, _ = payload_header(two.wire[0])
    assert origin == two.here.hub.origin and game_id == snap.info.id
    assert set(users) == {player_to_act(after)}


async def test_a_timeout_is_one_notify_sent_with_its_commit(two: Two) -> None:
    from datetime import timedelta

    snap = await started(two)
    two.here.games.clock.advance(timedelta(hours=snap.info.deadline_hours + 1))  # type: ignore[attr-defined]
    assert await two.here.games.sweep_deadlines() == 1
    await asyncio.sleep(0.3)
    assert len(two.wire) == 1
    assert "move" in [n.kind for n in notices_from_payload(two.wire[0])]


async def test_a_move_reaches_the_other_processs_subscribers_once_committed(two: Two) -> None:
    snap = await started(two)
    waiting = {two.alice.id, two.bob.id} - {player_to_act(snap)}
    with two.there.hub.subscribe(waiting.pop()) as theirs, two.there.hub.subscribe_game(
        snap.info.id
    ) as watchers:
        after = await two.here.games.submit(
            snap.info.id, player_to_act(snap), "1", snap.info.version
        )
        heard = [await asyncio.wait_for(theirs.get(), 5) for _ in range(2)]
        watched = [await asyncio.wait_for(watchers.get(), 5) for _ in range(2)]
    assert [n.kind for n in heard] == ["move", "your_turn"] == [n.kind for n in watched]
    assert all(n.seq == after.info.last_seq for n in heard)
    assert heard[1].text.endswith("it is your turn")


async def test_the_mover_s_own_process_delivers_its_notices_once(two: Two) -> None:
    snap = await started(two)
    with two.here.hub.subscribe_game(snap.info.id) as mine:
        await two.here.games.submit(snap.info.id, player_to_act(snap), "1", snap.info.version)
        got = [await asyncio.wait_for(mine.get(), 1) for _ in range(2)]
        await asyncio.sleep(0.3)  # its own NOTIFY comes back too: not delivered twice
        assert mine.get_nowait() is None
    assert [n.kind for n in got] == ["move", "your_turn"]


async def test_a_stale_move_sends_no_notify(two: Two) -> None:
    snap = await started(two)
    mover = player_to_act(snap)
    await two.there.games.submit(snap.info.id, mover, "1", snap.info.version)
    await quiet(two.wire)
    with pytest.raises(StaleVersionError):
        await two.here.games.submit(snap.info.id, mover, "1", snap.info.version)
    await asyncio.sleep(0.3)
    assert two.wire == []


async def test_a_notify_of_a_transaction_rolled_back_is_never_sent(two: Two) -> None:
    payload = "someone|1|1|7|[]"

    class Undone(Exception):
        pass

    def announce_then_fail(repo: object) -> None:
        repo.announce(CHANNEL, payload)  # type: ignore[attr-defined]
        raise Undone()

    with pytest.raises(Undone):
        await two.here.db.transact(announce_then_fail)
    await two.here.db.transact(lambda repo: repo.announce(CHANNEL, payload + " "))
    await asyncio.sleep(0.3)
    assert two.wire == [payload + " "]


async def test_a_payload_about_nobody_watched_here_is_dropped_unread(two: Two) -> None:
    snap = await started(two)
    dropped = two.there.hub.dropped
    with two.there.hub.subscribe(10**6) as stranger, two.there.hub.subscribe_game(
        snap.info.id + 1
    ) as other_game:
        await two.here.games.submit(snap.info.id, player_to_act(snap), "1", snap.info.version)
        await asyncio.sleep(0.3)
        assert stranger.get_nowait() is None and other_game.get_nowait() is None
    assert len(two.wire) == 1
    assert two.there.hub.dropped == dropped + 1


async def test_a_malformed_payload_does_not_stop_the_listener(two: Two) -> None:
    snap = await started(two)
    with two.there.hub.subscribe_game(snap.info.id) as watchers:
        await two.here.db.transact(lambda repo: repo.announce(CHANNEL, "not a payload"))
        await two.here.games.submit(snap.info.id, player_to_act(snap), "1", snap.info.version)
        assert (await asyncio.wait_for(watchers.get(), 5)).kind == "move"


@pytest.mark.parametrize(
    "payload", ["it's", "back\\slash \\' quote", "ünïcödé ✓", "$$ dollar $tag$", "a;COMMIT;b"]
)
async def test_a_payload_arrives_exactly_as_announced(two: Two, payload: str) -> None:
    await two.here.db.transact(lambda repo: repo.announce(CHANNEL, payload))
    await asyncio.sleep(0.3)
    assert two.wire == [payload]


async def test_a_write_inside_a_read_is_refused_on_postgresql(two: Two) -> None:
    """A read has no transaction of its own on PostgreSQL (each statement would commit
    by itself), so a write there is a bug it refuses before sending anything."""
    user = await two.here.db.run_read(lambda repo: repo.user(two.alice.id))
    assert user is not None
    with pytest.raises(RuntimeError, match="read-only"):
        await two.here.db.run_read(lambda repo: repo.save_user(replace(user, name="Mallory")))
    again = await two.here.db.run_read(lambda repo: repo.user(two.alice.id))
    assert again is not None and again.name == "Alice"


async def test_a_payload_too_long_for_notify_fails_its_transaction_before_it_commits(
    two: Two,
) -> None:
    def too_long(repo: object) -> None:
        repo.announce(CHANNEL, "x" * 8000)  # type: ignore[attr-defined]

    with pytest.raises(ValueError, match="too long"):
        await two.here.db.transact(too_long)
    await asyncio.sleep(0.3)
    assert two.wire == []
