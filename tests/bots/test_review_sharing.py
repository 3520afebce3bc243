"""Reviews of finished games are kept, shared between people asking at once, outlive a
person who stops waiting, and run one at a time."""

from __future__ import annotations

import asyncio
import random
import threading
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest

from door.services import Services, bgengine
from door.services.bots import BotBrains, BotRunner
from door.services.games import SeatSpec

pytestmark = pytest.mark.skipif(not bgengine.has_bgsage(), reason="bgsage is not installed")


@pytest.fixture
async def bots(services: Services, brains: BotBrains) -> AsyncIterator[BotRunner]:
    """A runner that is not started: reviews need no workers."""
    runner = BotRunner(services, brains=brains)
    yield runner
    await runner.stop()


class CountingReviews:
    """Wraps ``bgengine.review_log``: counts calls, the most running at once, and can
    hold each call until ``gate`` is set."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.real = bgengine.review_log
        self.calls = 0
        self.running = 0
        self.most = 0
        self.gate = threading.Event()
        self.gate.set()
        self._lock = threading.Lock()
        monkeypatch.setattr(bgengine, "review_log", self)

    def __call__(self, *args: Any, **kwargs: Any) -> bgengine.GameReview:
        with self._lock:
            self.calls += 1
            self.running += 1
            self.most = max(self.most, self.running)
        try:
            self.gate.wait(10)
            time.sleep(0.02)
            return self.real(*args, **kwargs)
        finally:
            with self._lock:
                self.running -= 1


async def finished_games(services: Services, count: int) -> list[int]:
    """``count`` backgammon games, each resigned at its start."""
    alice = await services.accounts.register(f"alice{random.randrange(10**6)}", "correct horse")
    bob = await services.accounts.register(f"bob{random.randrange(10**6)}", "correct horse")
    ids = []
    for _ in range(count):
        info = await services.games.begin(
            alice.id,
            "backgammon",
            {"match_length": 1},
            [SeatSpec("me"), SeatSpec("user", bob.name)],
        )
        await services.games.join(info.id, bob.id)
        await services.games.resign(info.id, bob.id)
        ids.append(info.id)
    return ids


async def test_asking_again_for_a_review_gives_the_kept_one_without_analysing_again(
    services: Services, bots: BotRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    counting = CountingReviews(monkeypatch)
    (gid,) = await finished_games(services, 1)
    first = await bots.review(gid)
    again = await bots.review(gid)
    assert again is first
    assert counting.calls == 1


async def test_people_asking_at_once_share_one_analysis(
    services: Services, bots: BotRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    counting = CountingReviews(monkeypatch)
    (gid,) = await finished_games(services, 1)
    reviews = await asyncio.gather(*(bots.review(gid) for _ in range(4)))
    assert all(r is reviews[0] for r in reviews)
    assert counting.calls == 1


async def test_a_person_who_stops_waiting_does_not_stop_the_analysis_for_others(
    services: Services, bots: BotRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    counting = CountingReviews(monkeypatch)
    counting.gate.clear()
    (gid,) = await finished_games(services, 1)
    leaver = asyncio.create_task(bots.review(gid))
    stayer = asyncio.create_task(bots.review(gid))
    await asyncio.sleep(0.05)
    leaver.cancel()
    counting.gate.set()
    review = await asyncio.wait_for(stayer, 10)
    assert leaver.cancelled()
    assert await bots.review(gid) is review
    assert counting.calls == 1


async def test_reviews_of_different_games_run_one_at_a_time(
    services: Services, bots: BotRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    counting = CountingReviews(monkeypatch)
    ids = await finished_games(services, 3)
    reviews = await asyncio.gather(*(bots.review(gid) for gid in ids))
    assert len(reviews) == 3
    assert counting.calls == 3
    assert counting.most == 1


async def test_a_review_asked_for_more_mistakes_is_analysed_for_them(
    services: Services, bots: BotRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    counting = CountingReviews(monkeypatch)
    (gid,) = await finished_games(services, 1)
    await bots.review(gid, worst=5)
    await bots.review(gid, worst=10)
    assert counting.calls == 2
