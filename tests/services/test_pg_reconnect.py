"""PostgreSQL LISTEN/NOTIFY survives losing its connection: after a server restart or a
killed backend each process listens again by itself, and tells its subscribers to re-read
(what was notified meanwhile never arrived); the ban watch looks for missed bans."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import subprocess
from collections.abc import AsyncIterator, Iterator

import pytest
from sqlalchemy import text

from door.services.accounts import Accounts
from door.services.bans import BanWatch
from door.services.clock import FakeClock
from door.services.notify import LocalSubscription, Notice, PgHub
from door.store.db import Database
from door.store.pgnotify import APPLICATION_NAME, CHANNEL, PgChannel
from tests.pgcluster import Cluster, start_cluster
from tests.store import dbutil

MOVE = Notice(3, "move", (7, 8), "Nim #3: alice took 1", 12)


@pytest.fixture(scope="module")
def own_cluster() -> Iterator[Cluster]:
    """A cluster of this module's own, so restarting it disturbs no other test."""
    cluster = start_cluster()
    if cluster is None:
        pytest.skip("no PostgreSQL binaries on this machine (apt-get install postgresql)")
    if cluster.bindir is None:
        pytest.skip("DOOR_TEST_PG_URL names a server these tests cannot restart")
    try:
        yield cluster
    finally:
        cluster.stop()


def restart(cluster: Cluster) -> None:
    # -l: a server logging to our pipe would keep capture_output waiting for ever
    assert cluster.bindir is not None and cluster.tmp is not None
    subprocess.run(
        [*cluster.prefix, f"{cluster.bindir}/pg_ctl", "-D", f"{cluster.tmp}/data", "-m", "fast",
         "-l", f"{cluster.tmp}/log", "-w", "restart"],
        check=True,
        capture_output=True,
    )  # fmt: skip


async def two_hubs(url: str) -> tuple[list[Database], tuple[PgHub, PgHub]]:
    dbs = [Database(url), Database(url)]
    hubs = (PgHub(dbs[0]), PgHub(dbs[1]))
    for hub in hubs:
        await hub.start()
    return dbs, hubs


async def close(dbs: list[Database], hubs: tuple[PgHub, ...]) -> None:
    for hub in hubs:
        await hub.stop()
    for db in dbs:
        await db.dispose()


@pytest.fixture
async def restartable(own_cluster: Cluster) -> AsyncIterator[tuple[Cluster, PgHub, PgHub]]:
    dbs, hubs = await two_hubs(own_cluster.url)
    yield own_cluster, *hubs
    await close(dbs, hubs)


@pytest.fixture
async def pg_db(pg_url: str, pg_template: str) -> AsyncIterator[Database]:
    database = Database(dbutil.pg_database_url(pg_url, pg_template))
    await dbutil.truncate_all(database)
    yield database
    await database.dispose()


@pytest.fixture
async def shared(pg_db: Database) -> AsyncIterator[tuple[Database, PgHub, PgHub]]:
    dbs, hubs = await two_hubs(pg_db.url)
    yield pg_db, *hubs
    await close(dbs, hubs)


async def kill_listeners(db: Database) -> int:
    """End every listening connection to ``db``'s database from the server side."""
    async with db.engine.connect() as conn:
        killed = await conn.execute(
            text(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE datname = current_database()"
                " AND (application_name = :name OR query LIKE 'LISTEN%')"
            ),
            {"name": APPLICATION_NAME},
        )
        return len(killed.all())


async def next_move_arrives(here: PgHub, sub: LocalSubscription, within: float) -> Notice:
    """Publish moves until one reaches ``sub`` (moves sent before the other side listens
    again are lost, as on a real server); the first that arrives."""

    async def keep_moving() -> Notice:
        while True:
            here.publish(MOVE)
            try:
                while True:
                    got = await asyncio.wait_for(sub.get(), 0.25)
                    if got.kind == "move":
                        return got
            except TimeoutError:
                pass

    return await asyncio.wait_for(keep_moving(), within)


async def test_the_other_process_hears_the_next_move_after_postgresql_restarts(
    restartable: tuple[Cluster, PgHub, PgHub],
) -> None:
    cluster, here, there = restartable
    theirs = there.subscribe_game(MOVE.game_id)
    await asyncio.to_thread(restart, cluster)
    assert await next_move_arrives(here, theirs, within=15) == MOVE


async def test_the_other_process_hears_the_next_move_after_its_listener_is_killed(
    shared: tuple[Database, PgHub, PgHub],
) -> None:
    db, here, there = shared
    theirs = there.subscribe_game(MOVE.game_id)
    assert await kill_listeners(db) == 2  # one per process
    assert await next_move_arrives(here, theirs, within=10) == MOVE


async def test_every_subscriber_is_told_to_resync_once_the_listener_is_back(
    shared: tuple[Database, PgHub, PgHub],
) -> None:
    db, _here, there = shared
    subs = [there.subscribe(7), there.subscribe(8), there.subscribe_game(3)]
    await kill_listeners(db)
    for sub in subs:
        notice = await asyncio.wait_for(sub.get(), 10)
        assert notice.kind == "resync"
        assert sub.get_nowait() is None  # one each


async def test_a_ban_missed_while_the_ban_listener_was_lost_still_ends_the_session(
    pg_db: Database,
) -> None:
    alice = await Accounts(pg_db, FakeClock()).register("Alice", "alice-pw")
    watch = BanWatch(pg_db)
    await watch.start()
    try:
        ended = asyncio.Event()
        watch.watch(alice.id, ended.set)
        # a ban whose NOTIFY never reaches this process (as if sent while it was away)
        async with pg_db.engine.begin() as conn:
            await conn.execute(
                text("UPDATE users SET is_banned = true WHERE id = :id"), {"id": alice.id}
            )
        await kill_listeners(pg_db)
        await asyncio.wait_for(ended.wait(), 10)
        assert watch.online() == []
    finally:
        await watch.stop()


async def test_losing_the_listener_is_logged_as_a_warning_and_its_return_as_info(
    shared: tuple[Database, PgHub, PgHub], caplog: pytest.LogCaptureFixture
) -> None:
    db, _here, there = shared
    sub = there.subscribe_game(3)
    with caplog.at_level(logging.INFO, logger="door"):
        await kill_listeners(db)
        await asyncio.wait_for(sub.get(), 10)
    said = [(r.levelno, r.getMessage()) for r in caplog.records if r.name == "door.store.pgnotify"]
    assert (
        logging.WARNING,
        f"lost the database connection listening on {CHANNEL}; reconnecting",
    ) in said
    assert any(
        level == logging.INFO and msg.startswith(f"listening on {CHANNEL} again after")
        for level, msg in said
    )


async def test_a_listener_that_stops_answering_is_found_by_the_health_check_and_replaced(
    pg_db: Database,
) -> None:
    """A link that dies without a word (no FIN: a cable, a frozen server) closes nothing,
    so only the periodic ``SELECT 1`` can tell; a stopped backend plays that part."""
    back = asyncio.Event()

    async def reconnected() -> None:
        back.set()

    channel = PgChannel(
        pg_db, lambda payload: None, on_reconnect=reconnected, health_interval_s=0.5
    )
    await channel.start()
    async with pg_db.engine.connect() as conn:
        pid = (
            await conn.execute(
                text(
                    "SELECT pid FROM pg_stat_activity"
                    " WHERE application_name = :name AND datname = current_database()"
                ),
                {"name": APPLICATION_NAME},
            )
        ).scalar_one()
    try:
        os.kill(pid, signal.SIGSTOP)
    except PermissionError:
        await channel.stop()
        pytest.skip("cannot signal the PostgreSQL backend as this user")
    try:
        await asyncio.wait_for(back.wait(), 10)
        assert channel.reconnects == 1
    finally:
        os.kill(pid, signal.SIGCONT)
        await channel.stop()
