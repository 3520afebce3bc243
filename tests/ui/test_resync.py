"""A ``resync`` notice (the hub may have lost notices, e.g. PostgreSQL's listener was
reconnected) makes what a session shows re-read the database: the game screen and the
main menu catch up with a move whose own notice never arrived."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager

from door.services import Services
from door.services.accounts import User
from door.services.notify import LocalHub
from tests.ui.conftest import StartSession, started_game


@contextmanager
def notices_lost(services: Services) -> Iterator[None]:
    """Whatever is delivered meanwhile reaches nobody (as when a listener is away)."""
    hub = services.hub
    assert isinstance(hub, LocalHub)
    deliver = hub.deliver
    hub.deliver = lambda notice: None  # type: ignore[method-assign]
    try:
        yield
    finally:
        hub.deliver = deliver  # type: ignore[method-assign]


async def move_unheard(services: Services, game_id: int, mover: User) -> None:
    snapshot = await services.games.get(game_id, mover.id)
    rules = services.games.rules_for("backgammon")
    move = rules.format_move(snapshot.state, rules.legal_moves(snapshot.state)[0])
    with notices_lost(services):
        await services.games.submit(game_id, mover.id, move, snapshot.info.version)


async def test_an_open_game_screen_shows_a_move_it_missed_once_told_to_resync(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    info = await started_game(services, alice, bob)
    mover, waiter = (alice, bob) if info.is_waiting_on(alice.id) else (bob, alice)
    r = await start_session(waiter, start=f"game:{info.id}")
    await move_unheard(services, info.id, mover)
    await r.term.settle()
    assert "Meanwhile" not in r.term.display_text()
    assert isinstance(services.hub, LocalHub)
    services.hub.resync()
    await r.term.wait_for("Meanwhile")


async def test_the_main_menu_counts_a_turn_it_missed_once_told_to_resync(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    info = await started_game(services, alice, bob)
    mover, waiter = (alice, bob) if info.is_waiting_on(alice.id) else (bob, alice)
    r = await start_session(waiter)
    assert re.search(r"Play a game where it is your turn\s+\(0\)", r.term.display_text())
    await move_unheard(services, info.id, mover)
    await r.term.settle()
    assert re.search(r"Play a game where it is your turn\s+\(0\)", r.term.display_text())
    assert isinstance(services.hub, LocalHub)
    services.hub.resync()
    await r.term.settle()
    assert re.search(r"Play a game where it is your turn\s+\(1\)", r.term.display_text())
