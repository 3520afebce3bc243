"""The first backgammon hint answers at once (item 15 of issue 16): the engine is loaded
while the player looks at the board, and "Thinking..." shows the moment H is pressed."""

from __future__ import annotations

import asyncio
from typing import Any

from door.services import Services
from door.services.accounts import User
from door.services.bots import BotRunner
from tests.ui.conftest import StartSession
from tests.ui.test_backgammon_screen import begin, open_mover


async def test_opening_a_game_that_offers_hints_loads_the_engine_before_anyone_asks(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    bots = BotRunner(services)  # fresh brains: nothing loaded yet
    services.bots = bots
    gid = await begin(services, alice, bob)
    assert not bots.brains.loaded
    await open_mover(services, gid, {0: alice, 1: bob}, start_session)
    # no key pressed: the engine loads in a worker thread meanwhile
    for _ in range(600):
        if bots.brains.hints_warmed:
            break
        await asyncio.sleep(0.05)
    assert bots.brains.hints_warmed and bots.brains.loaded


class SlowBots:
    """A computer player whose hint waits until the test lets it answer."""

    def __init__(self) -> None:
        self.answer = asyncio.Event()
        self.asked = 0

    async def hint(self, kind: str, state: Any, n: int = 3) -> list[tuple[str, str]]:
        self.asked += 1
        await self.answer.wait()
        return [("24/21 13/12", "+0.001")]

    async def stop(self) -> None:
        self.answer.set()


async def test_h_shows_thinking_at_once_and_the_hints_when_they_come(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    slow = SlowBots()
    services.bots = slow  # type: ignore[assignment]
    gid = await begin(services, alice, bob)
    r, _, _ = await open_mover(services, gid, {0: alice, 1: bob}, start_session)
    r.term.type("h")
    await r.term.settle()  # the session takes keys again while the computer thinks
    assert "Thinking..." in r.term.display_text()
    assert "Hints:" not in r.term.display_text()
    r.term.type("h")  # asking again while it thinks asks nothing more
    await r.term.settle()
    assert slow.asked == 1
    slow.answer.set()
    await r.term.wait_for("Hints:")
    assert "1. 24/21 13/12 +0.001" in r.term.display_text()
    assert "Thinking..." not in r.term.display_text()
