"""Two senders (two processes' worth: two connection pools, two lease owners) on one
PostgreSQL database deliver every notice exactly once (FOR UPDATE SKIP LOCKED + lease)."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator
from datetime import timedelta

import pytest

from door.services.accounts import Accounts
from door.services.clock import FakeClock
from door.services.outbox import Outbox
from door.store.db import Database
from door.store.records import NewOutbox
from door.store.repository import Repository
from tests.notices.conftest import Inbox, make_sender
from tests.store import dbutil

pytestmark = pytest.mark.postgres


@pytest.fixture
async def two_dbs(pg_url: str, pg_template: str) -> AsyncIterator[tuple[Database, Database]]:
    url = dbutil.pg_database_url(pg_url, pg_template)
    a, b = Database(url), Database(url)
    await dbutil.truncate_all(a)
    yield a, b
    await a.dispose()
    await b.dispose()


async def test_two_senders_on_postgres_send_each_notice_once(
    two_dbs: tuple[Database, Database], smtp: tuple[Inbox, int]
) -> None:
    a, b = two_dbs
    inbox, port = smtp
    clock = FakeClock()
    user = await Accounts(a, clock).register("Bob", "bob-pw1")
    await Outbox(a, clock).set_confirmed_email(user.id, "bob@door.test")
    now = clock.now()

    def write(repo: Repository) -> None:
        for game in range(1, 121):
            repo.enqueue_notice(
                NewOutbox(user.id, game, "your_turn", "email", "bob@door.test",
                          f"game {game}", "it is your turn", now),
                now,
            )  # fmt: skip

    await a.transact(write)
    clock.advance(timedelta(seconds=1))
    senders = [make_sender(a, clock, port), make_sender(b, clock, port)]
    for s in senders:
        s.batch = 7  # small rounds, so the two overlap many times

    async def drain(i: int) -> int:
        sent = 0
        while outcomes := await senders[i].run_once():
            sent += sum(o.status == "sent" for o in outcomes)
        return sent

    counts = await asyncio.gather(drain(0), drain(1), drain(0), drain(1))
    subjects = Counter(m["Subject"] for m in inbox.messages)
    assert sum(counts) == 120 and len(subjects) == 120
    assert max(subjects.values()) == 1
    assert counts[0] + counts[2] > 0 and counts[1] + counts[3] > 0  # both took a share
    assert await a.run_read(lambda repo: repo.outbox_counts()) == {"sent": 120}
