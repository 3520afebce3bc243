"""PostgreSQL LISTEN/NOTIFY: two door processes on one database hear each other's notices."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from door.services.notify import Notice, PgHub
from door.store.db import Database
from tests.store import dbutil


@pytest.fixture
async def two_processes(pg_url: str, pg_template: str) -> AsyncIterator[tuple[PgHub, PgHub]]:
    url = dbutil.pg_database_url(pg_url, pg_template)
    dbs = [Database(url), Database(url)]
    hubs = (PgHub(dbs[0]), PgHub(dbs[1]))
    for hub in hubs:
        await hub.start()
    yield hubs
    for hub in hubs:
        await hub.stop()
    for db in dbs:
        await db.dispose()


async def test_a_notice_published_in_one_process_reaches_the_other(
    two_processes: tuple[PgHub, PgHub],
) -> None:
    here, there = two_processes
    theirs = there.subscribe(7)
    mine = here.subscribe(7)
    notice = Notice(3, "your_turn", (7,), "Backgammon #3: it is your turn", 12)
    here.publish(notice)
    assert await asyncio.wait_for(theirs.get(), 5) == notice
    assert await asyncio.wait_for(mine.get(), 1) == notice
    await asyncio.sleep(0.2)  # our own NOTIFY comes back too: it must not be delivered twice
    assert mine.get_nowait() is None


def test_sqlite_cannot_listen(tmp_path: object) -> None:
    with pytest.raises(ValueError, match="PostgreSQL"):
        PgHub(Database(f"sqlite+aiosqlite:///{tmp_path}/x.sqlite3"))


async def test_a_stalled_reader_in_the_other_process_gets_a_resync_and_keeps_its_page(
    two_processes: tuple[PgHub, PgHub],
) -> None:
    here, there = two_processes
    stalled, marker = there.subscribe(7), there.subscribe(8)
    here.publish(Notice(-9, "page", (7,), "Carol pages: still there?", 1))
    for seq in range(250):  # more than the queue holds (100), none read
        here.publish(Notice(3, "move", (7,), "", seq))
    here.publish(Notice(4, "your_turn", (8,), "after the others", 1))
    await asyncio.wait_for(marker.get(), 10)
    await asyncio.sleep(0.3)
    got = list(iter(stalled.get_nowait, None))
    assert got[0].kind == "resync"
    assert [n.text for n in got if n.kind == "page"] == ["Carol pages: still there?"]
    assert len(got) <= 100
