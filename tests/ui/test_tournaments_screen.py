"""T)ournaments, as a player sees it on an 80×24 terminal: the lists, entering, a
knock-out bracket and the roll of honour."""

from __future__ import annotations

from door.services import Services
from door.services.accounts import User
from tests.ui.conftest import StartSession


async def _cup(services: Services, creator: User, size: int = 2) -> int:
    tours = services.tournaments
    assert tours is not None
    return await tours.create(None, "Winter cup", "backgammon", "knockout", size)


async def test_t_on_the_main_menu_lists_the_tournaments_open_for_entry(
    start_session: StartSession, services: Services, alice: User
) -> None:
    await _cup(services, alice)
    r = await start_session(alice)
    r.term.type("t")
    await r.term.settle()
    text = r.term.display_text()
    assert "Open for entry" in text
    assert "Winter cup" in text


async def test_a_player_enters_from_the_screen_and_the_bracket_is_drawn(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    tid = await _cup(services, alice)
    tours = services.tournaments
    assert tours is not None
    await tours.enter(tid, bob.id)
    r = await start_session(alice)
    r.term.type("t")
    await r.term.settle()
    r.term.press("enter")
    await r.term.settle()
    r.term.type("e")
    await r.term.settle()
    text = r.term.display_text()
    assert "knockout of backgammon, running" in text
    assert "Round 1 (final)" in text
    assert "Alice" in text and "Bob" in text
    for line in text.splitlines():
        assert len(line.rstrip()) <= 80
