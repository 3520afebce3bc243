"""Pages through real sessions read with pyte: a page arrives on the status line of
whatever screen its recipient is on, leaving every other row as it was; Ctrl-R answers
it in a one-line prompt over that screen; W)ho lists who is here and pages them."""

from __future__ import annotations

import pytest

from door.services import Services
from door.services.accounts import User
from door.services.presence import PageError
from tests.ui.conftest import StartSession, started_game

STATUS_ROW = 22  # the row above the one-line key help on a 24-row terminal


def other_rows(rows: list[str]) -> list[str]:
    return rows[:STATUS_ROW] + rows[STATUS_ROW + 1 :]


@pytest.mark.parametrize(
    "start",
    [None, "open", "active", "begin", "settings", "rank", "instructions", "game", "spectrangle"],
)
async def test_a_page_shows_on_the_status_line_and_leaves_the_rest_of_the_screen(
    start_session: StartSession, services: Services, alice: User, bob: User,
    start: str | None,
) -> None:  # fmt: skip
    if start == "game":
        start = f"game:{(await started_game(services, alice, bob)).id}"
    elif start == "spectrangle":
        start = f"game:{(await started_game(services, alice, bob, 'spectrangle')).id}"
    a = await start_session(alice, start=start)
    before = a.term.display()
    await services.presence.page(bob.id, bob.name, alice.id, "fancy a game?")
    await a.term.wait_for("Page from Bob: fancy a game? — Ctrl-R replies")
    after = a.term.display()
    assert "Page from Bob" in after[STATUS_ROW]
    assert other_rows(after) == other_rows(before)


async def test_ctrl_r_answers_a_page_from_a_prompt_over_the_game(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    info = await started_game(services, alice, bob)
    a = await start_session(alice, start=f"game:{info.id}")
    b = await start_session(bob)
    await services.presence.page(bob.id, bob.name, alice.id, "your move?")
    await a.term.wait_for("Page from Bob: your move?")
    board = a.term.display()
    a.term.press("ctrl-r")
    await a.term.wait_for("Page Bob (Enter sends, Esc cancels):")
    assert other_rows(a.term.display()) == other_rows(board)  # the board stays put
    a.term.line("thinking!")
    await b.term.wait_for("Page from Alice: thinking! — Ctrl-R replies")
    await a.term.wait_for("Paged Bob.")
    assert other_rows(a.term.display()) == other_rows(board)


async def test_who_lists_the_players_online_with_how_and_where(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    info = await started_game(services, alice, bob)
    await start_session(bob, start=f"game:{info.id}")
    a = await start_session(alice)
    a.term.type("w")
    await a.term.wait_for("2 online")
    text = a.term.display_text()
    rows = [r for r in a.term.display() if "Alice" in r or "Bob" in r]
    alice_row = next(r for r in rows if "Alice " in r and "Who" not in r)
    bob_row = next(r for r in rows if "Bob " in r)
    assert "fake" in alice_row  # the fake terminal's transport (caps.transport)
    assert "looking at who is online" in alice_row
    assert f"in Backgammon #{info.id}" in bob_row
    assert "Idle" in text


async def test_who_pages_the_chosen_player(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    b = await start_session(bob)
    a = await start_session(alice)
    a.term.type("w")
    await a.term.wait_for("2 online")
    # the list is by name: Alice first, Bob second
    a.term.press("down")
    a.term.type("p")
    await a.term.wait_for("Page Bob")
    a.term.line("hello from who")
    await b.term.wait_for("Page from Alice: hello from who")


async def test_a_page_is_shown_once_even_when_heard_twice(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    from door.services.notify import Notice

    a = await start_session(alice)
    notice = Notice(-bob.id, "page", (alice.id,), "Page from Bob: once", 77)
    services.hub.deliver(notice)
    await a.term.wait_for("Page from Bob: once")
    a.term.type("x")  # a key clears the status line
    await a.term.settle()
    services.hub.deliver(notice)  # the same page again (e.g. from two processes)
    await a.term.settle()
    assert "Page from Bob: once" not in a.term.display_text()


async def test_an_empty_page_and_a_page_to_yourself_are_refused(
    services: Services, alice: User
) -> None:
    with pytest.raises(PageError):
        await services.presence.page(alice.id, "Alice", 99, "\x1b\x07 \u202e")
    with pytest.raises(PageError):
        await services.presence.page(alice.id, "Alice", alice.id, "me")


async def test_a_player_who_leaves_is_no_longer_online(
    start_session: StartSession, services: Services, alice: User
) -> None:
    a = await start_session(alice)
    assert services.presence.is_online(alice.id)
    await a.stop()
    assert not services.presence.is_online(alice.id)
