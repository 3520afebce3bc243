"""Invariants of the game service under random interleavings of actions (Hypothesis).

Whatever mix of good moves, bad moves, stale versions, moves out of turn, resignations
and missed deadlines arrives: an accepted action bumps the version by exactly one and
appends events with no gaps; a refused one changes nothing; and the log always replays to
the stored snapshot.
"""

from __future__ import annotations

import asyncio
import random
import shutil
import tempfile
from datetime import timedelta
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from door.services.accounts import Accounts
from door.services.clock import FakeClock
from door.services.games import GameService, SeatSpec
from door.services.notify import LocalHub
from door.store.db import Database
from tests.services.nim import NimRules
from tests.store import dbutil

ACTIONS = st.lists(
    st.tuples(
        st.sampled_from(["good", "bad", "stale", "wrong_player", "resign", "sleep"]),
        st.integers(0, 2),
    ),
    min_size=1,
    max_size=25,
)


async def run_actions(path: Path, actions: list[tuple[str, int]], seed: int) -> None:
    db = Database(dbutil.sqlite_url(path))
    clock = FakeClock()
    games = GameService(db, {"nim": NimRules()}, LocalHub(), clock, random.Random(seed))
    accounts = Accounts(db, clock)
    users = [await accounts.register(f"P{i}", "secret") for i in range(3)]
    info = await games.begin(
        users[0].id,
        "nim",
        {"heap": 20},
        [SeatSpec("me"), SeatSpec("user", "P1"), SeatSpec("user", "P2")],
    )
    await games.join(info.id, users[1].id)
    await games.join(info.id, users[2].id)
    try:
        for what, who in actions:
            before = await games.get(info.id)
            if before.info.status != "active":
                break
            seat = before.info.to_act
            assert seat is not None
            mover = before.info.seats[seat].user_id
            assert mover is not None
            accepted = True
            try:
                if what == "good":
                    await games.submit(info.id, mover, "take 1", before.info.version)
                elif what == "bad":
                    await games.submit(info.id, mover, "take 99", before.info.version)
                elif what == "stale":
                    await games.submit(info.id, mover, "take 1", before.info.version - 1)
                elif what == "wrong_player":
                    other = next(u.id for u in users if u.id != mover)
                    await games.submit(info.id, other, "take 1", before.info.version)
                elif what == "resign":
                    await games.resign(info.id, users[who].id)
                else:
                    clock.advance(timedelta(hours=before.info.deadline_hours))
                    accepted = await games.sweep_deadlines() == 1
            except ValueError:
                accepted = False
            after = await games.get(info.id)
            if accepted:
                assert after.info.version == before.info.version + 1
                assert after.info.last_seq > before.info.last_seq
            else:
                assert after.info.version == before.info.version
                assert after.info.last_seq == before.info.last_seq
                assert after.state == before.state
            seqs = [e.seq for e in await games.events(info.id)]
            assert seqs == list(range(1, after.info.last_seq + 1))
            assert await games.replay_check(info.id) is None
    finally:
        await db.dispose()


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(actions=ACTIONS, seed=st.integers(0, 2**16))
def test_every_action_is_all_or_nothing_and_the_log_always_replays(
    sqlite_template: Path, actions: list[tuple[str, int]], seed: int
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "door.sqlite3"
        shutil.copyfile(sqlite_template, path)
        asyncio.run(run_actions(path, actions, seed))
