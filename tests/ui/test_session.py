"""A real session driven through the fake terminal and read with pyte at 80×24:
sign-in and registration, the main menu, sound, notices, resize, charsets, goodbye."""

from __future__ import annotations

import asyncio
import logging
import re
from datetime import timedelta

import pytest

from door.games.base import Refusal
from door.services import Services
from door.services.accounts import User
from door.services.clock import FakeClock
from door.services.notify import Notice
from door.session import BUG_MESSAGE, Session
from door.ui.canvas import Canvas
from door.ui.screen import Context, Screen, Transition, draw_chrome
from door.ui.terminal import InputEvent, Text
from tests.ui.conftest import StartSession, started_game
from tests.ui.faketerm import FakeTerminal


async def test_signed_in_user_sees_main_menu_with_every_choice(
    start_session: StartSession, alice: User
) -> None:
    r = await start_session(alice)
    text = r.term.display_text()
    for label in ("V) View games", "P) Play", "B) Begin", "S) Sound effects: ON",
                  "I) Instructions", "R) Rank", "Y) Your settings", "G) Goodbye"):  # fmt: skip
        assert label in text
    assert "Alice" in r.term.row(0)


async def test_main_menu_summary_says_nothing_new_for_a_new_player(
    start_session: StartSession, alice: User
) -> None:
    r = await start_session(alice)
    assert "Since your last visit: nothing new" in r.term.display_text()


async def test_main_menu_has_one_line_key_help_at_the_bottom(
    start_session: StartSession, alice: User
) -> None:
    r = await start_session(alice)
    assert "Press a letter" in r.term.row(23)


async def test_main_menu_play_shows_count_of_games_waiting(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    info = await started_game(services, alice, bob)
    assert info.status == "active"
    for user in (alice, bob):
        _, waiting = await services.games.list_games("waiting", user.id)
        r = await start_session(user)
        line = rf"P\) Play a game where it is your turn\s+\({waiting}\)"
        assert re.search(line, r.term.display_text())
        await r.stop()


async def test_main_menu_summary_counts_games_waiting_for_you(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    info = await started_game(services, alice, bob)
    waiter = alice if info.is_waiting_on(alice.id) else bob
    r = await start_session(waiter)
    assert "1 game waiting for your move" in r.term.display_text()
    assert f"#{info.id} Backgammon" in r.term.display_text()


async def test_arrows_and_enter_choose_like_letters(
    start_session: StartSession, alice: User
) -> None:
    r = await start_session(alice)
    r.term.press("down", "down", "enter")  # V, P, then B
    await r.term.settle()
    assert "Begin a new game" in r.term.row(0)


async def test_goodbye_closes_the_connection_with_a_farewell(
    start_session: StartSession, alice: User
) -> None:
    r = await start_session(alice)
    r.term.type("g")
    await r.term.settle()
    r.term.type("y")  # "Log off? (Y/N)"
    await r.term.settle()
    assert r.term.closed
    assert "Goodbye, Alice" in (r.term.close_message or "")


async def test_hangup_ends_the_session_quietly(start_session: StartSession, alice: User) -> None:
    r = await start_session(alice)
    r.term.hangup()
    await r.stop()
    assert r.task.done() and not r.term.closed


async def test_sound_toggle_is_shown_and_remembered(
    start_session: StartSession, services: Services, alice: User
) -> None:
    r = await start_session(alice)
    r.term.type("s")
    await r.term.settle()
    assert "S) Sound effects: OFF" in r.term.display_text()
    assert "Sound effects are OFF" in r.term.display_text()
    assert (await services.accounts.get(alice.id)).settings.sound is False
    await r.stop()
    again = await start_session(alice)
    assert "S) Sound effects: OFF" in again.term.display_text()


async def test_your_turn_notice_rings_the_bell_when_sound_is_on(
    start_session: StartSession, services: Services, alice: User
) -> None:
    r = await start_session(alice)
    services.hub.publish(Notice(7, "your_turn", (alice.id,), "Your turn in game #7.", 1))
    await r.term.wait_for("Your turn in game #7.")
    assert r.term.bells == 1


async def test_your_turn_notice_is_silent_when_sound_is_off(
    start_session: StartSession, services: Services, alice: User
) -> None:
    await services.accounts.update_settings(alice.id, sound=False)
    r = await start_session(alice)
    services.hub.publish(Notice(7, "your_turn", (alice.id,), "Your turn in game #7.", 1))
    await r.term.wait_for("Your turn in game #7.")
    assert r.term.bells == 0


async def test_notice_text_is_stripped_of_control_characters(
    start_session: StartSession, services: Services, alice: User
) -> None:
    r = await start_session(alice)
    services.hub.publish(Notice(7, "your_turn", (alice.id,), "Your\x1b[2J turn\x07 now", 1))
    await r.term.wait_for("Your[2J turn now")
    assert b"\x1b[2J turn" not in bytes(r.term.raw)


async def test_resize_redraws_everything_at_the_new_size(
    start_session: StartSession, alice: User
) -> None:
    r = await start_session(alice)
    r.term.take_bytes()
    r.term.resize(100, 30)
    await r.term.settle()
    assert "Press a letter" in r.term.row(29)
    assert r.term.row(0).rstrip().endswith("Alice")
    assert len(r.term.row(0).rstrip()) == 99
    assert b"\x1b[2J" in bytes(r.term.raw[-r.term.take_bytes() :])


async def test_terminal_smaller_than_80x24_keeps_title_and_key_help(
    start_session: StartSession, alice: User
) -> None:
    r = await start_session(alice, width=60, height=20)
    assert "door — Main Menu" in r.term.row(0)
    assert "V) View games" in r.term.display_text()
    # The key help is drawn again at the terminal's own size, on its bottom rows.
    assert "Press a letter" in r.term.row(18) + r.term.row(19)
    assert "G)oodbye" in r.term.row(19)


async def test_ctrl_l_redraws_the_whole_screen(start_session: StartSession, alice: User) -> None:
    r = await start_session(alice)
    r.term.take_bytes()
    r.term.press("ctrl-l")
    await r.term.settle()
    assert r.term.take_bytes() > 500


async def test_moving_the_menu_bar_sends_only_the_two_changed_lines(
    start_session: StartSession, alice: User
) -> None:
    r = await start_session(alice)
    r.term.take_bytes()
    before = len(r.term.raw)
    r.term.press("down")
    await r.term.settle()
    sent = bytes(r.term.raw[before:]).decode()
    assert "\x1b[2J" not in sent
    assert "Welcome" not in sent and "Begin a new game" not in sent
    assert "View games" in sent and "Play a game" in sent


async def test_cp437_terminal_gets_cp437_box_and_text(
    start_session: StartSession, alice: User
) -> None:
    r = await start_session(alice, encoding="cp437", start="settings")
    assert "Box lines ┌─┐ and shades ░▒▓" in r.term.display_text()
    raw = bytes(r.term.raw)
    assert "┌─┐".encode("cp437") in raw
    assert "┌".encode() not in raw


async def test_utf8_terminal_gets_utf8(start_session: StartSession, alice: User) -> None:
    r = await start_session(alice, encoding="utf-8", start="settings")
    assert "┌─┐".encode() in bytes(r.term.raw)


async def test_start_screen_opens_above_the_main_menu(
    start_session: StartSession, alice: User
) -> None:
    r = await start_session(alice, start="rank")
    assert "Top players" in r.term.row(0)
    r.term.type("q")
    await r.term.settle()
    assert "Main Menu" in r.term.row(0)


# --- nobody signed in: log in or register ------------------------------------------


async def test_nobody_signed_in_gets_the_welcome_screen(start_session: StartSession) -> None:
    r = await start_session(None)
    assert "L) Log in" in r.term.display_text()
    assert "N) New here? Register a name" in r.term.display_text()


async def test_registration_asks_name_and_password_twice_then_shows_main_menu(
    start_session: StartSession, services: Services
) -> None:
    r = await start_session(None)
    r.term.type("n")
    r.term.line("Carol")
    r.term.line("carol-pw")
    r.term.line("carol-pw")
    await r.term.settle()
    assert "Main Menu" in r.term.row(0)
    assert "Welcome to door, Carol!" in r.term.display_text()
    assert await services.accounts.authenticate("carol", "carol-pw") is not None


async def test_registration_with_differing_passwords_asks_again_and_keeps_the_name(
    start_session: StartSession, services: Services
) -> None:
    r = await start_session(None)
    r.term.type("n")
    r.term.line("Carol")
    r.term.line("carol-pw")
    r.term.line("carol-px")
    await r.term.settle()
    assert "The two passwords differ" in r.term.display_text()
    assert await services.accounts.by_name("Carol") is None
    r.term.line("carol-pw")
    r.term.line("carol-pw")
    await r.term.settle()
    assert "Main Menu" in r.term.row(0)


async def test_registration_of_a_taken_name_says_why(
    start_session: StartSession, alice: User
) -> None:
    r = await start_session(None)
    r.term.type("n")
    r.term.line("alice")
    r.term.line("other-pw")
    r.term.line("other-pw")
    await r.term.settle()
    assert "Welcome" in r.term.row(0)
    assert "taken" in r.term.row(22).lower() or "exists" in r.term.row(22).lower()


async def test_passwords_are_never_shown(start_session: StartSession) -> None:
    r = await start_session(None)
    r.term.type("n")
    r.term.line("Carol")
    r.term.type("secret-words")
    await r.term.settle()
    assert "secret-words" not in r.term.display_text()
    assert "************" in r.term.display_text()


async def test_login_with_the_right_password_shows_main_menu(
    start_session: StartSession, services: Services, alice: User
) -> None:
    r = await start_session(None)
    r.term.type("l")
    r.term.line("Alice")
    r.term.line("alice-pw")
    await r.term.settle()
    assert "Main Menu" in r.term.row(0)
    assert "Welcome back, Alice!" in r.term.display_text()
    assert (await services.accounts.get(alice.id)).last_login_at is not None


async def test_login_with_a_wrong_password_says_so_and_asks_again(
    start_session: StartSession, alice: User
) -> None:
    r = await start_session(None)
    r.term.type("l")
    r.term.line("Alice")
    r.term.line("wrong")
    await r.term.settle()
    assert "Unknown name or wrong password" in r.term.display_text()
    r.term.line("alice-pw")
    await r.term.settle()
    assert "Main Menu" in r.term.row(0)


async def test_too_many_failed_logins_hang_up(start_session: StartSession, alice: User) -> None:
    r = await start_session(None)
    r.term.type("l")
    r.term.line("Alice")
    for _ in range(5):
        r.term.line("wrong")
    await r.term.settle()
    assert r.term.closed


async def test_user_charset_setting_is_applied_at_sign_in(
    start_session: StartSession, services: Services, alice: User
) -> None:
    await services.accounts.update_settings(alice.id, charset="cp437")
    r = await start_session(alice, encoding="utf-8")
    assert r.term.caps.encoding == "cp437"
    assert "Main Menu" in r.term.display_text()


async def test_status_message_survives_a_redraw_until_the_next_key(
    start_session: StartSession, alice: User
) -> None:
    r = await start_session(alice)
    r.term.type("s")
    await r.term.settle()
    r.term.resize(90, 26)
    await r.term.settle()
    assert "Sound effects are OFF" in r.term.display_text()
    r.term.press("down")
    await r.term.settle()
    assert "Sound effects are OFF" not in r.term.display_text()


async def test_opening_a_game_that_does_not_exist_stays_on_the_menu_and_says_so(
    start_session: StartSession, alice: User
) -> None:
    r = await start_session(alice, start="game:9999")
    assert "Main Menu" in r.term.row(0)
    assert r.term.row(22).strip()


async def test_main_menu_says_when_you_were_last_here(
    start_session: StartSession, services: Services, clock: FakeClock, alice: User
) -> None:
    await services.accounts.record_login(alice.id)
    clock.advance(timedelta(days=3))
    r = await start_session(alice)
    assert "Your last visit was 3d ago." in r.term.display_text()


async def test_opponent_moving_rings_your_bell_and_updates_the_play_count(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    info = await started_game(services, alice, bob)
    mover, waiter = (alice, bob) if info.is_waiting_on(alice.id) else (bob, alice)
    r = await start_session(waiter)
    assert re.search(r"Play a game where it is your turn\s+\(0\)", r.term.display_text())
    snapshot = await services.games.get(info.id, mover.id)
    rules = services.games.rules_for("backgammon")
    move = rules.format_move(snapshot.state, rules.legal_moves(snapshot.state)[0])
    await services.games.submit(info.id, mover.id, move, snapshot.info.version)
    await r.term.wait_for(f"Backgammon #{info.id}: it is your turn")
    assert re.search(r"Play a game where it is your turn\s+\(1\)", r.term.display_text())
    assert r.term.bells == 1


class _BuggyScreen(Screen):
    """Raises a bug-type error on ``b`` and a refusal on ``r``; counts every other key."""

    def __init__(self) -> None:
        self.keys = 0

    def render(self, canvas: Canvas, ctx: Context) -> None:
        draw_chrome(canvas, ctx, "Buggy", "B)ug R)efuse")
        canvas.put(2, 3, f"keys seen: {self.keys}")

    async def on_event(self, event: InputEvent, ctx: Context) -> Transition | None:
        if isinstance(event, Text) and event.text == "b":
            raise KeyError("no such thing")
        if isinstance(event, Text) and event.text == "r":
            raise Refusal("The rules say no.")
        self.keys += 1
        return None


async def _run_buggy(services: Services, alice: User) -> tuple[FakeTerminal, asyncio.Task[None]]:
    term = FakeTerminal()
    session = Session(term, services, alice)
    task = asyncio.create_task(session.run(_BuggyScreen()))
    await term.settle()
    return term, task


async def test_a_bug_in_a_screen_is_logged_and_the_session_goes_on(
    services: Services, alice: User, caplog: pytest.LogCaptureFixture
) -> None:
    term, task = await _run_buggy(services, alice)
    with caplog.at_level(logging.ERROR, logger="door.session"):
        term.type("b")
        await term.settle()
    bug = [r for r in caplog.records if r.exc_info and r.exc_info[0] is KeyError]
    assert bug, "the KeyError was logged with its traceback"
    assert BUG_MESSAGE in term.display_text()
    term.type("x")
    await term.settle()
    assert not task.done()
    assert "keys seen: 1" in term.display_text()
    term.hangup()
    await asyncio.wait_for(task, 5)


async def test_a_refusal_in_a_screen_is_shown_and_not_logged(
    services: Services, alice: User, caplog: pytest.LogCaptureFixture
) -> None:
    term, task = await _run_buggy(services, alice)
    with caplog.at_level(logging.ERROR, logger="door.session"):
        term.type("r")
        await term.settle()
    assert "The rules say no." in term.display_text()
    assert not [r for r in caplog.records if r.name == "door.session"]
    term.hangup()
    await asyncio.wait_for(task, 5)
