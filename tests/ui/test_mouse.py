"""The mouse, everywhere a key works: a real session fed xterm SGR mouse reports as bytes
(through the real key decoder), read with pyte.

A click does what its key does: a main-menu line, a list row (the wheel moves the bar),
a tab, a key on the key-help line, a Begin option, a settings row; on the backgammon board
a click on a checker picks it up and a click on a highlighted point (the bar, the tray)
drops it, as the cursor and Enter do; on the Spectrangle board a click on a piece of the
hand chooses it, a click on a field places it there, the wheel or a right click rotates.
Mouse reports are asked for where the terminal type says it can send them, never
elsewhere, stopped at log-off, hang-up and by the player's setting, and never typed into
a field.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pyte
import pytest
import telnetlib3

from door.app import App
from door.games.backgammon.partial import PartialPlay
from door.games.backgammon.position import BackgammonState
from door.games.backgammon.rules import BackgammonRules
from door.games.spectrangle.pieces import piece
from door.net import detect
from door.services import Services
from door.services.accounts import User
from door.services.games import SeatSpec
from door.session import run_session
from door.ui.boards import backgammon as bgb
from door.ui.boards import spectrangle as spb
from door.ui.canvas import Canvas
from door.ui.keys import KeyDecoder, Report
from door.ui.mouse import MOUSE_OFF, MOUSE_ON
from door.ui.screens.spectrangle import BOARD_X as SP_X
from door.ui.screens.spectrangle import BOARD_Y as SP_Y
from door.ui.terminal import Encoding
from tests.net.conftest import expect, make_config
from tests.ui.conftest import Running
from tests.ui.faketerm import FakeTerminal
from tests.ui.test_backgammon_screen import begin as begin_backgammon
from tests.ui.test_backgammon_screen import last_move, state_of
from tests.ui.test_bg_cursor import hit_until_a_checker_is_on_the_bar
from tests.ui.test_spectrangle_screen import RULES as SP_RULES
from tests.ui.test_spectrangle_screen import begin3, play_via_service, players
from tests.ui.test_spectrangle_screen import state_of as sp_state_of

BOARD_X = BOARD_Y = 1  # where the backgammon screen draws its board


def sgr(button: int, x: int, y: int, release: bool = False) -> bytes:
    """An SGR mouse report for the 0-based cell (``x``, ``y``) (the wire is 1-based)."""
    return f"\x1b[<{button};{x + 1};{y + 1}{'m' if release else 'M'}".encode()


class MouseTerminal(FakeTerminal):
    """A fake terminal whose input arrives as bytes through the real key decoder, with
    ``caps.mouse`` worked out from its type as the transports do."""

    def __init__(self, term: str = "xterm-256color", **kw: Any) -> None:
        super().__init__(term=term, **kw)
        self._caps = replace(self._caps, mouse=detect.mouse_from_term(term))
        self.decoder = KeyDecoder(self._caps.encoding)

    def set_encoding(self, encoding: Encoding) -> None:
        self._caps = replace(self._caps, encoding=encoding)
        self.decoder.set_encoding(encoding)

    def feed(self, data: bytes) -> None:
        """Bytes from the far end, then a pause (the transport's lone-ESC timeout)."""
        for event in [*self.decoder.feed(data), *self.decoder.flush()]:
            if not isinstance(event, Report):
                self.send(event)

    def click(self, x: int, y: int, button: int = 0) -> None:
        """Press and release ``button`` (0 left, 1 middle, 2 right) on cell (x, y)."""
        self.feed(sgr(button, x, y) + sgr(button, x, y, release=True))

    def wheel(self, x: int, y: int, down: bool = True) -> None:
        self.feed(sgr(65 if down else 64, x, y))

    def click_text(self, text: str, button: int = 0) -> None:
        """Click the middle of ``text`` where the screen shows it."""
        at = self.find(text)
        assert at is not None, f"{text!r} is not on the screen:\n" + self.display_text()
        self.click(at[0] + len(text) // 2, at[1], button)

    def mouse_reporting(self) -> bool:
        """Whether the terminal was last told to report the mouse (on) or to stop."""
        raw = bytes(self.raw)
        return raw.rfind(MOUSE_ON.encode()) > raw.rfind(MOUSE_OFF.encode())


Start = Callable[..., Awaitable[Running]]


@pytest.fixture
async def run(services: Services) -> AsyncIterator[Start]:
    """``await run(user, term=..., start=...)``: a real session on a MouseTerminal."""
    running: list[Running] = []

    async def start(
        user: User | None, *, term: str = "xterm-256color", start: str | None = None,
        width: int = 80, height: int = 24,
    ) -> Running:  # fmt: skip
        t = MouseTerminal(term=term, width=width, height=height)
        if user is not None:
            user = await services.accounts.get(user.id)
        task = asyncio.create_task(run_session(t, services, user, start=start))
        r = Running(t, task)
        running.append(r)
        await t.settle()
        if task.done():
            task.result()
        return r

    yield start
    for r in running:
        await r.stop()


def term_of(r: Running) -> MouseTerminal:
    assert isinstance(r.term, MouseTerminal)
    return r.term


# --- regions are recorded where things are drawn ------------------------------------------------


def test_a_region_is_found_where_it_was_drawn_and_the_last_drawn_wins() -> None:
    c = Canvas(20, 5)
    c.clickable(2, 1, 5, 2, "a")
    c.clickable(4, 2, 3, 1, "b", right="c")
    assert c.hit(2, 1) is not None and c.hit(2, 1).target == "a"  # type: ignore[union-attr]
    hit = c.hit(5, 2)
    assert hit is not None and (hit.target, hit.right) == ("b", "c")
    assert c.hit(7, 1) is None and c.hit(2, 3) is None
    c.clear()
    assert c.hit(2, 1) is None


def test_copied_rows_bring_their_regions_and_replace_those_of_the_rows_they_cover() -> None:
    drawing = Canvas(20, 6)
    drawing.clickable(0, 2, 4, 1, "x")  # drawn on row 2 of a cached drawing
    drawing.clickable(0, 5, 4, 1, "y")  # outside the rows copied
    frame = Canvas(20, 6)
    frame.clickable(0, 3, 20, 1, "old")
    frame.copy_rows(drawing, 3, 2, source_top=2)  # rows 2-3 of the drawing to rows 3-4
    assert frame.hit(1, 3) is not None and frame.hit(1, 3).target == "x"  # type: ignore[union-attr]
    assert frame.hit(10, 3) is None  # the old row's region went with its cells
    assert frame.hit(1, 5) is None


# --- turning it on and off ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("term", "can"),
    [("xterm-256color", True), ("xterm", True), ("screen.xterm-256color", True),
     ("tmux-256color", True), ("putty", True), ("syncterm", True), ("SYNCTERM", True),
     ("ansi", False), ("vt100", False), ("dumb", False), ("ansi-bbs", False),
     ("linux", False), ("", False)],
)  # fmt: skip
def test_the_terminal_type_says_whether_clicks_are_reported(term: str, can: bool) -> None:
    assert detect.mouse_from_term(term) is can


async def test_an_xterm_session_asks_for_press_drag_and_sgr_reports(
    run: Start, alice: User
) -> None:
    r = await run(alice)
    assert MOUSE_ON == "\x1b[?1000h\x1b[?1002h\x1b[?1006h"
    assert term_of(r).mouse_reporting()


@pytest.mark.parametrize("term", ["ansi", "vt100"])
async def test_terminals_that_do_not_say_they_can_are_never_asked_and_clicks_do_nothing(
    run: Start, alice: User, term: str
) -> None:
    r = await run(alice, term=term)
    t = term_of(r)
    assert b"\x1b[?1000h" not in t.raw and b"\x1b[?1006h" not in t.raw
    t.click_text("Begin a new game")
    await t.settle()
    assert "Main Menu" in t.display_text()


async def test_logging_off_stops_the_mouse_reports(run: Start, alice: User) -> None:
    r = await run(alice)
    t = term_of(r)
    t.type("g")
    await t.settle()
    t.type("y")
    await asyncio.wait_for(r.task, 5)
    assert t.closed
    assert not t.mouse_reporting()
    # and it was stopped before the goodbye, while the screen was still ours
    assert bytes(t.raw).rfind(MOUSE_OFF.encode()) < bytes(t.raw).rfind(b"Goodbye")


async def test_a_hang_up_stops_the_mouse_reports_too(run: Start, alice: User) -> None:
    r = await run(alice)
    t = term_of(r)
    assert t.mouse_reporting()
    t.hangup()
    await asyncio.wait_for(r.task, 5)
    assert not t.mouse_reporting()


async def test_the_mouse_setting_turns_reports_off_and_is_remembered(
    run: Start, services: Services, alice: User
) -> None:
    r = await run(alice, start="settings")
    t = term_of(r)
    t.click_text("Mouse: ON")  # a click on the settings row, as its key M
    await t.settle()
    assert "Mouse: OFF" in t.display_text()
    assert not t.mouse_reporting()
    assert (await services.accounts.get(alice.id)).settings.mouse is False
    t.click_text("Back to the main menu")  # clicks are ignored now
    await t.settle()
    assert "Your settings" in t.row(0)
    t.type("m")  # the key turns it on again
    await t.settle()
    assert t.mouse_reporting()
    await r.stop()
    await services.accounts.update_settings(alice.id, mouse=False)
    again = term_of(await run(alice))
    assert b"\x1b[?1000h" not in again.raw  # a later session does not ask either


async def test_over_real_telnet_an_xterm_is_asked_and_an_ansi_terminal_is_not(
    tmp_path: Path,
) -> None:
    app = App(make_config(tmp_path))
    await app.start(telnet_port=0, ssh_port=None, rlogin_port=None)
    try:
        assert app.services is not None
        await app.services.accounts.register("alice", "secret1")
        for term, asked in (("xterm-256color", True), ("ansi", False)):
            writer: Any
            reader, writer = await telnetlib3.open_connection(
                "127.0.0.1", app.ports["telnet"], encoding=False, term=term, cols=80,
                rows=24, connect_minwait=0.05,
            )  # fmt: skip
            await expect(reader, "Name:")
            writer.write(b"alice\rsecret1\r")
            got = await expect(reader, "Main Menu")
            assert (b"\x1b[?1006h" in got) is asked, term
            if asked:  # and a click on the wire chooses the menu line, as its key R
                screen = pyte.Screen(80, 24)
                pyte.Stream(screen).feed(got.decode("utf-8", "replace"))
                y = next(i for i, row in enumerate(screen.display) if "Rank the top" in row)
                writer.write(sgr(0, 10, y) + sgr(0, 10, y, release=True))
                await expect(reader, "which game")  # the R)ank screen
                writer.write(b"q")
            writer.write(b"g")
            await asyncio.sleep(0.1)
            writer.write(b"y")
            if asked:
                await expect(reader, b"\x1b[?1006l\x1b[?1002l\x1b[?1000l")  # at log-off
            else:
                assert b"\x1b[?100" not in got + await expect(reader, "Your games will wait")
            writer.close()
    finally:
        await app.shutdown()


# --- menus and lists ---------------------------------------------------------------------------


async def test_under_the_log_off_question_only_its_own_keys_answer_clicks(
    run: Start, alice: User
) -> None:
    r = await run(alice)
    t = term_of(r)
    t.type("g")
    await t.settle()
    assert "Log off? (Y/N)" in t.display_text()
    t.click_text("Your settings")  # the menu line of Y, drawn under the question
    await t.settle()
    assert not t.closed and "Log off? (Y/N)" in t.display_text()
    t.click_text("N)o, stay")
    await t.settle()
    assert "Log off?" not in t.display_text()
    t.type("g")
    await t.settle()
    t.click_text("Y)es, log off")
    await asyncio.wait_for(r.task, 5)
    assert t.closed


async def test_clicking_a_main_menu_line_chooses_it_as_its_key_does(
    run: Start, alice: User
) -> None:
    clicked = term_of(await run(alice))
    typed = term_of(await run(alice))
    for text, key in (("Begin a new game", "b"), ("Rank the top players", "r")):
        clicked.click_text(text)
        typed.type(key)
        await clicked.settle()
        await typed.settle()
        assert clicked.row(0) == typed.row(0)
        assert clicked.display_text() == typed.display_text()
        clicked.press("escape")
        typed.press("escape")
        await clicked.settle()
        await typed.settle()


async def test_on_a_terminal_smaller_than_the_layout_a_click_hits_what_it_shows(
    run: Start, alice: User
) -> None:
    clicked = term_of(await run(alice, width=40, height=15))
    typed = term_of(await run(alice, width=40, height=15))
    for t in (clicked, typed):
        t.press("end")  # the bar to the last line: the body scrolls to keep it shown
        await t.settle()
    assert clicked.find("Welcome, Alice") is None and clicked.find("Goodbye") is not None
    clicked.click_text("Rank the top")
    typed.type("r")
    await clicked.settle()
    await typed.settle()
    assert clicked.display_text() == typed.display_text()


async def test_the_wheel_turns_the_pages_of_the_instructions(run: Start, alice: User) -> None:
    wheeled = term_of(await run(alice, start="instructions"))
    typed = term_of(await run(alice, start="instructions"))
    wheeled.wheel(10, 10, down=True)
    typed.press("pgdn")
    await wheeled.settle()
    await typed.settle()
    assert wheeled.display_text() == typed.display_text()
    assert "Page 2 of" in wheeled.display_text()


async def open_game_by(services: Services, user: User) -> int:
    info = await services.games.begin(
        user.id, "backgammon", {}, [SeatSpec("me"), SeatSpec("open")]
    )
    return info.id


async def no_dice_word(t: FakeTerminal, game_id: int) -> None:
    """Answer the dice word a join asks for (Enter: none), once that game's prompt shows:
    the prompt naming ``game_id`` is what proves the click (or Enter) chose that row."""
    assert f"Game #{game_id}: Dice word" in t.display_text(), t.display_text()
    t.press("enter")
    await t.settle()


def row_of(t: FakeTerminal, text: str) -> int:
    at = t.find(text)
    assert at is not None, f"{text!r} is not on the screen:\n" + t.display_text()
    return at[1]


async def test_clicking_a_list_row_opens_that_game(
    run: Start, services: Services, alice: User, bob: User
) -> None:
    first = await open_game_by(services, bob)
    second = await open_game_by(services, bob)
    t = term_of(await run(alice, start="open"))
    t.click(10, row_of(t, f"#{second} "))
    await t.settle()
    await no_dice_word(t, second)
    assert (await services.games.get(second, alice.id)).info.status == "active"
    assert (await services.games.get(first, alice.id)).info.status == "open"


async def test_the_wheel_moves_the_list_bar_as_the_arrows_do(
    run: Start, services: Services, alice: User, bob: User
) -> None:
    games = [await open_game_by(services, bob) for _ in range(3)]
    t = term_of(await run(alice, start="open"))
    rows = [row_of(t, f"#{g} ") for g in games]
    at = min(rows)
    shown_first = next(g for g, y in zip(games, rows, strict=True) if y == at)
    t.wheel(10, at, down=True)
    t.wheel(10, at, down=True)
    t.wheel(10, at, down=False)  # down, down, up: the second row
    await t.settle()
    t.press("enter")
    await t.settle()
    second = next(g for g, y in zip(games, rows, strict=True) if y == at + 1)
    await no_dice_word(t, second)
    assert (await services.games.get(second, alice.id)).info.status == "active"
    assert (await services.games.get(shown_first, alice.id)).info.status == "open"


async def test_clicking_a_tab_switches_to_that_list(run: Start, alice: User) -> None:
    t = term_of(await run(alice, start="open"))
    t.click_text("F)inished")
    await t.settle()
    assert "Finished" in t.row(0)


async def test_clicking_a_key_on_the_key_help_line_presses_it(run: Start, alice: User) -> None:
    t = term_of(await run(alice, start="open"))
    t.click_text("Q)uit")
    await t.settle()
    assert "Main Menu" in t.display_text()


async def test_clicking_begin_options_does_what_their_keys_do(run: Start, alice: User) -> None:
    clicked = term_of(await run(alice, start="begin"))
    typed = term_of(await run(alice, start="begin"))
    if "Which game?" in clicked.display_text():
        clicked.click_text("Backgammon")
        line = next(x for x in typed.display() if "Backgammon" in x)
        typed.type(line.strip()[0].lower())  # the letter shown before it
        await clicked.settle()
        await typed.settle()
    assert "A new game of Backgammon" in clicked.display_text()
    assert clicked.display_text() == typed.display_text()
    line = next(x for x in clicked.display() if "Match" in x or "match" in x)
    key = line.strip()[0]
    clicked.click(5, row_of(clicked, line.strip()))
    typed.type(key.lower())
    await clicked.settle()
    await typed.settle()
    assert clicked.display_text() == typed.display_text()


async def test_a_click_on_a_menu_line_is_not_typed_into_the_password_being_changed(
    run: Start, services: Services, alice: User
) -> None:
    t = term_of(await run(alice, start="settings"))
    t.type("p")
    await t.settle()
    t.type_each("ab")
    t.click_text("Colour: ON")  # its letter O would be typed into the field
    await t.settle()
    assert "Colour: ON" in t.display_text()
    assert (await services.accounts.get(alice.id)).settings.color is True
    assert "**" in t.display_text() and "***" not in t.display_text()


# --- backgammon --------------------------------------------------------------------------------


def colour(seat: int) -> str:
    return bgb.WHITE_SIDE if seat == 0 else bgb.BLACK_SIDE


def spot_cell(t: FakeTerminal, spot: int, col: str) -> tuple[int, int]:
    """Where spot ``spot``'s label is on the screen, checked against what it shows."""
    lx, ly, w = bgb.spot_label_cell(spot, col)
    x, y = BOARD_X + lx, BOARD_Y + ly
    shown = "".join(t.char_at(x + i, y).data for i in range(w)).strip()
    want = {bgb.BAR: "BAR", bgb.OFF: "OFF"}.get(spot, str(spot))
    assert shown == want, (spot, shown)
    return x + w // 2, y


def checker_cell(t: FakeTerminal, spot: int, col: str) -> tuple[int, int]:
    """A cell of spot ``spot`` under its label: on its checkers' column."""
    x, y = spot_cell(t, spot, col)
    if 1 <= spot <= 24:
        top = bgb.point_column(spot, col)[1]
        return x, y + 2 if top else y - 2
    return x, y + 1


async def click_play(t: MouseTerminal, state: BackgammonState, steps: Any = None) -> str:
    """Make a whole legal play by clicking checkers and points; its notation."""
    col = colour(state.turn)
    pp = PartialPlay.start(state)
    for step in steps if steps is not None else iter(lambda: None, 0):
        if step is None:
            if pp.is_complete():
                break
            step = pp.next_steps()[0]
        t.click(*checker_cell(t, step[0], col))
        await t.settle()
        t.click(*spot_cell(t, step[1], col))
        await t.settle()
        pp = pp.add(step)
    return pp.notation()


async def test_a_click_picks_a_checker_up_and_a_click_on_a_highlighted_point_drops_it(
    run: Start, services: Services, alice: User, bob: User
) -> None:
    gid = await begin_backgammon(services, alice, bob)
    state = await state_of(services, gid)
    users = {0: alice, 1: bob}
    t = term_of(await run(users[state.turn], start=f"game:{gid}"))
    play = await click_play(t, state)
    await t.wait_for("Enter/Y sends it")
    t.click_text("Y)es")  # the key on the key-help line
    await t.settle()
    assert await last_move(services, gid) == play


async def test_clicking_undo_on_the_key_line_takes_back_a_clicked_step(
    run: Start, services: Services, alice: User, bob: User
) -> None:
    gid = await begin_backgammon(services, alice, bob)
    state = await state_of(services, gid)
    t = term_of(await run({0: alice, 1: bob}[state.turn], start=f"game:{gid}"))
    before = t.display_text()
    step = PartialPlay.start(state).next_steps()[0]
    await click_play(t, state, [step])
    assert t.display_text() != before
    t.click_text("U)ndo")
    await t.settle()
    board_rows = slice(BOARD_Y, BOARD_Y + bgb.BOARD_HEIGHT)
    assert t.display()[board_rows] == before.split("\n")[board_rows]


async def test_a_checker_on_the_bar_comes_in_by_clicking_the_bar(
    run: Start, services: Services, alice: User, bob: User
) -> None:
    gid = await begin_backgammon(services, alice, bob, {"match_length": 1, "cube": False})
    users = {0: alice, 1: bob}
    state = await hit_until_a_checker_is_on_the_bar(services, gid, users)
    t = term_of(await run(users[state.turn], start=f"game:{gid}"))
    play = await click_play(t, state)
    assert play.startswith("bar/")
    await t.wait_for("Enter/Y sends it")
    t.click_text("Y)es")
    await t.settle()
    assert await last_move(services, gid) == play


async def play_until_a_checker_can_bear_off(
    services: Services, gid: int, users: dict[int, User]
) -> BackgammonState:
    rules = BackgammonRules()
    for _ in range(2000):
        state = await state_of(services, gid)
        plays = rules.legal_moves(state)
        if any(s[1] == bgb.OFF for m in plays for s in m.steps):
            return state
        snap = await services.games.get(gid)
        await services.games.submit(
            gid, users[state.turn].id, rules.format_move(state, plays[0]), snap.info.version
        )
    raise AssertionError("no checker could ever bear off")


async def test_a_checker_is_borne_off_by_clicking_the_off_tray(
    run: Start, services: Services, alice: User, bob: User
) -> None:
    gid = await begin_backgammon(services, alice, bob, {"match_length": 1, "cube": False})
    users = {0: alice, 1: bob}
    state = await play_until_a_checker_can_bear_off(services, gid, users)
    rules = BackgammonRules()
    play_steps = next(
        m.steps for m in rules.legal_moves(state) if any(s[1] == bgb.OFF for s in m.steps)
    )
    t = term_of(await run(users[state.turn], start=f"game:{gid}"))
    play = await click_play(t, state, play_steps)
    assert "/off" in play
    await t.wait_for("Enter/Y sends it")
    t.click_text("Y)es")
    await t.settle()
    assert await last_move(services, gid) == play


async def test_clicks_on_the_board_do_nothing_for_a_spectator(
    run: Start, services: Services, alice: User, bob: User
) -> None:
    carol = await services.accounts.register("Carol", "carol-pw")
    gid = await begin_backgammon(services, alice, bob)
    t = term_of(await run(carol, start=f"game:{gid}"))
    before = t.display_text()
    t.click(BOARD_X + 10, BOARD_Y + 3)
    await t.settle()
    assert t.display_text() == before


# --- spectrangle -----------------------------------------------------------------------------


def unturned_placements(state: Any) -> list[Any]:
    """The placements of ``state``'s turn that need the piece neither turned nor mirrored."""
    return [
        m for m, _ in SP_RULES.scored_moves(state)
        if m.kind == "place" and m.rotation == 0 and not m.mirror
    ]  # fmt: skip


async def open_spectrangle(
    run: Start,
    services: Services,
    alice: User,
    bob: User,
    until: Callable[[Any], bool] | None = None,
    tries: int = 30,
) -> tuple[MouseTerminal, Any, dict[int, User], int]:
    """A three-player Spectrangle game after its first move, open on the board of the
    player to move; with ``until``, dealt again until that turn's state satisfies it
    (the dice deal the hands, so a test needing some position must not rely on one)."""
    users = await players(services, alice, bob)
    for _ in range(tries):
        gid = await begin3(services, *users.values())
        await play_via_service(
            services, gid, users, SP_RULES.legal_moves(await sp_state_of(services, gid))[0]
        )
        state = await sp_state_of(services, gid)
        if until is None or until(state):
            break
    else:
        raise AssertionError(f"no deal in {tries} games gave the position the test needs")
    assert state.turn is not None
    t = term_of(await run(users[state.turn], start=f"game:{gid}"))
    return t, state, users, gid


def hand_cell(t: FakeTerminal, name: str, i: int) -> tuple[int, int]:
    """The screen cell of piece ``i`` of the hand on the row marked with ``name*``."""
    y = row_of(t, f"{name}*")
    line = t.row(y)
    starts = [m.start() for m in re.finditer(r"[A-Z]{3}\d", line)]
    return starts[i] + 1, y


async def test_clicking_a_piece_of_the_hand_chooses_it(
    run: Start, services: Services, alice: User, bob: User
) -> None:
    t, state, users, _ = await open_spectrangle(run, services, alice, bob)
    hand = state.hands[state.turn]
    name = users[state.turn].name
    last = len(hand) - 1
    t.click(*hand_cell(t, name, last))
    await t.settle()
    assert f"Your piece: {piece(hand[last]).name}" in t.display_text()


async def test_the_wheel_and_a_right_click_rotate_the_piece(
    run: Start, services: Services, alice: User, bob: User
) -> None:
    t, _, _, _ = await open_spectrangle(run, services, alice, bob)
    x, y = SP_X + spb.field_center(12)[0], SP_Y + spb.field_center(12)[1]
    t.wheel(x, y, down=False)
    await t.settle()
    assert "rotation 1" in t.display_text()
    t.click(x, y, button=2)
    await t.settle()
    assert "rotation 2" in t.display_text()
    t.wheel(x, y, down=True)  # back a third of a turn
    await t.settle()
    assert "rotation 1" in t.display_text()


async def test_clicking_a_field_places_the_chosen_piece_there(
    run: Start, services: Services, alice: User, bob: User
) -> None:
    t, state, users, gid = await open_spectrangle(
        run, services, alice, bob, until=lambda s: bool(unturned_placements(s))
    )
    hand = state.hands[state.turn]
    moves = unturned_placements(state)
    move = max(moves, key=lambda m: hand.index(m.piece))
    t.click(*hand_cell(t, users[state.turn].name, hand.index(move.piece)))
    await t.settle()
    cx, cy = spb.field_center(move.field)  # type: ignore[arg-type]
    t.click(SP_X + cx, SP_Y + cy)
    score = SP_RULES.move_score(state, move)
    await t.wait_for(f"on field {move.field} for {score}? (Y/N)")
    t.click_text("Y)es")
    await t.settle()
    events = await services.games.events(gid)
    played = [e for e in events if e.kind == "move"][-1].payload["move"]
    assert played == SP_RULES.format_move(state, move)


# --- nothing leaks into fields ----------------------------------------------------------------


async def test_mouse_reports_never_reach_the_login_name_field(
    run: Start, services: Services
) -> None:
    r = await run(None)
    t = term_of(r)
    t.type("l")
    await t.settle()
    garbled = b"\x1b[<0;12"  # cut off by what follows
    t.feed(b"Al" + sgr(0, 30, 8) + b"i" + garbled + sgr(64, 3, 3) + b"ce")
    t.feed(b"\x1b[<0;4")  # cut off by a pause ...
    t.feed(b"0;9M")  # ... and its rest arriving late
    t.click_text("Name")  # a click on the screen while typing
    await t.settle()
    line = t.row(row_of(t, "Name"))
    assert "Alice" in line
    assert re.sub(r"\s+", " ", line).strip().endswith("Alice")
    t.feed(b"\ralice-pw\r")
    await t.settle()
    assert "Welcome back, Alice" in t.display_text()


async def test_clicks_and_reports_never_type_into_the_move_line(
    run: Start, services: Services, alice: User, bob: User
) -> None:
    gid = await begin_backgammon(services, alice, bob)
    state = await state_of(services, gid)
    t = term_of(await run({0: alice, 1: bob}[state.turn], start=f"game:{gid}"))
    t.type(":")
    await t.settle()
    t.feed(b"13/" + sgr(0, 5, 5) + b"7" + sgr(64, 2, 2))
    t.feed(b"\x1b[<0;9")  # a report cut off by a pause
    t.click(*spot_cell(t, 6, colour(state.turn)))  # the board under the line
    await t.settle()
    line = t.row(row_of(t, "13/7")).rstrip()
    assert line.endswith("13/7") and "<" not in line and ";" not in line
    t.click_text("Esc back")  # a named key on the key line: clicked as Esc
    await t.settle()
    assert t.find("13/7") is None
    assert (await state_of(services, gid)) == state  # nothing was sent
