"""The backgammon engines (bgsage's ~110 MB of networks) load only when something needs
them: a backgammon bot in a game, a hint or a review, never at the runner's start."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import AsyncIterator, Callable

import pytest

from door.games.backgammon.rules import BackgammonRules
from door.services import Services
from door.services.bots import BotBrains, BotRunner
from door.services.games import SeatSpec

ME = SeatSpec("me")


@pytest.fixture
async def fresh_runner(services: Services) -> AsyncIterator[BotRunner]:
    """A started runner with brains of its own (the shared ones are loaded already)."""
    bots = BotRunner(services, brains=BotBrains(random.Random(5)))
    services.bots = bots
    bots.start()
    await bots.ready()
    yield bots
    await bots.stop()


async def human(services: Services, name: str) -> int:
    return (await services.accounts.register(name, "correct horse")).id


async def until(pred: Callable[[], bool], timeout: float = 10.0) -> None:
    end = time.monotonic() + timeout
    while not pred():
        assert time.monotonic() < end, "timed out"
        await asyncio.sleep(0.01)


async def test_a_started_runner_with_no_bot_games_has_not_loaded_the_engines(
    fresh_runner: BotRunner,
) -> None:
    assert not fresh_runner.brains.loaded
    assert not fresh_runner.brains.warmed


async def test_games_between_people_and_spectrangle_bots_load_no_backgammon_engine(
    services: Services, fresh_runner: BotRunner
) -> None:
    alice = await human(services, "alice")
    bob = await human(services, "bob")
    info = await services.games.begin(alice, "backgammon", {}, [ME, SeatSpec("user", "bob")])
    await services.games.join(info.id, bob)
    await services.games.begin(
        alice, "spectrangle", {}, [ME, SeatSpec("bot", "spectrangle-greedy")]
    )
    await fresh_runner.idle()
    await asyncio.sleep(0.05)
    assert not fresh_runner.brains.loaded


async def test_a_backgammon_bot_sitting_down_warms_the_engines_up(
    services: Services, fresh_runner: BotRunner
) -> None:
    alice = await human(services, "alice")
    await services.games.begin(alice, "backgammon", {}, [ME, SeatSpec("bot", "bg-expert")])
    await until(lambda: fresh_runner.brains.warmed)
    assert fresh_runner.brains.loaded


async def games_begun_before_the_restart(services: Services, count: int) -> tuple[int, list[int]]:
    """Alice's backgammon games against a bot (seat 1), begun while no runner listens."""
    alice = await human(services, "alice")
    ids = []
    for _ in range(count):
        info = await services.games.begin(
            alice, "backgammon", {}, [ME, SeatSpec("bot", "bg-beginner")]
        )
        ids.append(info.id)
    return alice, ids


async def test_a_bot_that_must_move_after_a_restart_warms_the_engines_up(
    services: Services,
) -> None:
    _, ids = await games_begun_before_the_restart(services, 6)
    to_move = [(await services.games.get(g)).info.to_act for g in ids]
    assert 1 in to_move, "the opening rolls gave the bot no first move"
    bots = BotRunner(services, brains=BotBrains(random.Random(6)))
    bots.start()
    try:
        await bots.ready()
        await until(lambda: bots.brains.warmed)
    finally:
        await bots.stop()


async def test_bot_games_waiting_on_people_at_a_restart_leave_the_engines_unloaded(
    services: Services,
) -> None:
    alice, ids = await games_begun_before_the_restart(services, 6)
    for gid in ids:
        if (await services.games.get(gid)).info.to_act == 1:
            # The bot won the opening roll: that game is not one of those wanted here.
            await services.games.resign(gid, alice)
    waiting = [g for g in ids if (await services.games.get(g)).info.to_act == 0]
    assert waiting, "the opening rolls gave the person no first move"
    bots = BotRunner(services, brains=BotBrains(random.Random(6)))
    bots.start()
    try:
        await bots.ready()
        await bots.idle()
        assert not bots.brains.loaded
    finally:
        await bots.stop()


async def test_the_first_hint_loads_the_engine_it_needs(fresh_runner: BotRunner) -> None:
    rules = BackgammonRules()
    opening = rules.apply_chance(rules.new_game(2, {"match_length": 0}), (3, 1))
    assert not fresh_runner.brains.loaded
    hints = await fresh_runner.hint("backgammon", opening, 3)
    assert len(hints) == 3
    assert fresh_runner.brains.loaded
