"""G)oodbye asks "Log off? (Y/N)" before it logs off: real sessions on fake terminals,
read with pyte at 80×24 (the question is the session's, so every transport asks it)."""

from __future__ import annotations

from door.services.accounts import User
from tests.ui.conftest import StartSession


async def test_goodbye_asks_before_logging_off(start_session: StartSession, alice: User) -> None:
    r = await start_session(alice)
    r.term.type("g")
    await r.term.settle()
    assert not r.term.closed
    assert "Log off? (Y/N)" in r.term.row(22)
    assert "Y)es, log off" in r.term.row(23) and "N)o, stay" in r.term.row(23)
    assert "Main Menu" in r.term.row(0)  # the menu stays in view under the question


async def test_yes_logs_off_with_the_farewell(start_session: StartSession, alice: User) -> None:
    r = await start_session(alice)
    r.term.type("g")
    await r.term.settle()
    assert not r.term.closed
    r.term.type("y")
    await r.term.settle()
    assert r.term.closed
    assert "Goodbye, Alice" in (r.term.close_message or "")


async def test_enter_also_logs_off(start_session: StartSession, alice: User) -> None:
    r = await start_session(alice)
    r.term.type("g")
    await r.term.settle()
    assert not r.term.closed
    r.term.press("enter")
    await r.term.settle()
    assert r.term.closed


async def test_no_goes_back_to_the_menu(start_session: StartSession, alice: User) -> None:
    r = await start_session(alice)
    r.term.type("g")
    await r.term.settle()
    r.term.type("n")
    await r.term.settle()
    assert not r.term.closed
    assert "Log off?" not in r.term.display_text()
    assert "Press a letter" in r.term.row(23)


async def test_escape_goes_back_to_the_menu(start_session: StartSession, alice: User) -> None:
    r = await start_session(alice)
    r.term.type("g")
    await r.term.settle()
    r.term.press("escape")
    await r.term.settle()
    assert not r.term.closed
    assert "Press a letter" in r.term.row(23)


async def test_other_keys_leave_the_question_open(start_session: StartSession, alice: User) -> None:
    r = await start_session(alice)
    r.term.type("g")
    await r.term.settle()
    r.term.type("p")
    await r.term.settle()
    assert not r.term.closed
    assert "Log off? (Y/N)" in r.term.row(22)


async def test_the_question_and_its_keys_show_on_a_terminal_smaller_than_the_layout(
    start_session: StartSession, alice: User
) -> None:
    r = await start_session(alice, width=60, height=20)
    r.term.type("g")
    await r.term.settle()
    assert not r.term.closed
    assert "Log off? (Y/N)" in r.term.row(18)
    assert "Y)es, log off" in r.term.row(19) and "N)o, stay" in r.term.row(19)
