"""The web page in a real browser: Debian's ``chromium``, headless, driven by Selenium
through ``chromedriver``, against a real ``python3 -m door serve --web-port N`` process
(its own temp data dir and config, telnet and web on free ports of 127.0.0.1).

A stranger opens ``http://127.0.0.1:N/``: the page shows the server's name and door's
login screen in its terminal, under the server's own Content-Security-Policy with nothing
refused. They sign up by typing, begin a backgammon game against the computer, roll, and
make their first move BY CLICKING: the checker, then the point it goes to, for each die
(the pixel to click is worked out from xterm.js's cell size and the board's text, as a
person aims at what they see), and confirm it with a click on the key line's Y)es. The
terminal's text (xterm.js's buffer, read through ``window.doorTerm``) then shows the play,
and the game's log has it. A smaller window makes a smaller terminal, and door redraws to
its new width. When the session ends (G)oodbye), the page tells the server's reason and
offers to reconnect, and a click on Reconnect, or Enter, brings a new login screen.

Chromium runs with a fresh profile and no background networking (this machine's network
is closed; see the flags below). The tests are skipped, saying so, only where chromium or
chromedriver is missing (``apt-get install chromium chromium-driver``; ``.ci/run`` does).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from door.games.backgammon.matchid import state_from_id
from door.games.backgammon.position import DECIDE, MOVING, BackgammonState
from door.games.backgammon.rules import BackgammonRules
from tests.e2e.serving import door_serving
from tests.net.served import free_ports

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
WAIT_S = 30.0  # generous: the machine running the tests may be busy
SERVER_NAME = "The Harbour BBS"
PASSWORD = "harbour-pass-5531"
# The window's size in CSS pixels: the page's terminal fits whatever it is given.
WINDOW = (1100, 800)

pytestmark = pytest.mark.slow


# --- the server ----------------------------------------------------------------------------


@dataclass
class Door:
    """A running ``door serve``: its page's address and its SQLite file."""

    url: str
    db: Path
    log: Path


@pytest.fixture(scope="module")
def door() -> Iterator[Door]:
    """``python3 -m door serve --web-port N`` in a subprocess, until it says it is serving."""
    tmp = Path(tempfile.mkdtemp(prefix="door-browser-"))
    telnet_port, web_port = free_ports(2)
    config = tmp / "door.toml"
    config.write_text(
        "[server]\n"
        'host = "127.0.0.1"\n'
        f'name = "{SERVER_NAME}"\n'
        f"telnet_port = {telnet_port}\nssh_port = 0\nrlogin_port = 0\n"
        "tune_runtime = false\n"
        "[limits]\n"
        "login_delay_s = 0.05\nnegotiation_wait_s = 0.5\nprobe_timeout_s = 0.5\n"
        # every test signs up a player from 127.0.0.1 against the one server
        "[accounts]\nsignups_per_address_per_hour = 0\nsignup_attempts_per_address_per_hour = 0\n"
    )
    data = tmp / "data"
    log = tmp / "serve.log"
    env = dict(os.environ, PYTHONPATH=str(REPO))
    try:
        extra = ("--web-port", str(web_port))
        with door_serving(data, config, cwd=tmp, env=env, log=log, extra=extra):
            yield Door(f"http://127.0.0.1:{web_port}/", data / "door.sqlite3", log)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# --- the browser ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    """Headless Debian chromium through chromedriver, with a fresh profile."""
    missing = [p for p in (CHROMIUM, CHROMEDRIVER) if not os.access(p, os.X_OK)]
    if missing:
        pytest.skip(f"needs {', '.join(missing)} (apt-get install chromium chromium-driver)")
    webdriver = pytest.importorskip("selenium.webdriver", reason="needs selenium (pip)")
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="door-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        # this machine's network is closed: no background connections to be refused
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        f"--user-data-dir={profile}", f"--window-size={WINDOW[0]},{WINDOW[1]}",
    ):  # fmt: skip
        options.add_argument(flag)
    # the console, so a refused script or style (CSP) shows as an error we can read
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    # the driver path is given: Selenium Manager has nothing to download
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    try:
        driver.set_page_load_timeout(WAIT_S)
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def flat(text: str) -> str:
    """Whitespace runs made one space: a sentence wrapped over rows reads as one line."""
    return " ".join(text.split())


class Page:
    """The door page in the browser: its terminal's text, keys typed and clicks on cells."""

    def __init__(self, driver: Any, door: Door) -> None:
        self.driver = driver
        self.door = door

    def open(self) -> None:
        self.driver.get(self.door.url)
        self.wait_until(
            lambda: bool(self.driver.execute_script("return !!window.doorTerm")),
            "the page's terminal",
        )

    def lines(self) -> list[str]:
        """The terminal's rows as text (xterm.js's active buffer, the visible screen)."""
        rows: list[str] = self.driver.execute_script(
            "const t = window.doorTerm, b = t.buffer.active, out = [];"
            "for (let i = 0; i < t.rows; i++) {"
            "  const line = b.getLine(b.viewportY + i);"
            "  out.push(line ? line.translateToString(true) : '');"
            "}"
            "return out;"
        )
        return rows

    def screen(self) -> str:
        return "\n".join(self.lines())

    def wait_until(self, ok: Callable[[], bool], what: str, timeout: float = WAIT_S) -> None:
        end = time.monotonic() + timeout
        while not ok():
            if time.monotonic() > end:
                shown = self.screen() if self.has_terminal() else "(no terminal)"
                raise AssertionError(f"{what} never came; the terminal shows:\n{shown}")
            time.sleep(0.1)

    def has_terminal(self) -> bool:
        return bool(self.driver.execute_script("return !!window.doorTerm"))

    def wait_for(self, *texts: str, timeout: float = WAIT_S) -> str:
        """The screen once every one of ``texts`` is on it (wrapping ignored)."""
        self.wait_until(
            lambda: all(flat(t) in flat(self.screen()) for t in texts), repr(texts), timeout
        )
        return self.screen()

    def type(self, text: str) -> None:
        """Keys as a person types them into the terminal (``\\n`` is Enter)."""
        from selenium.webdriver.common.by import By

        self.driver.find_element(By.CSS_SELECTOR, ".xterm-helper-textarea").send_keys(text)

    def cell_centre(self, col: int, row: int) -> tuple[float, float]:
        """The viewport pixel at the middle of the terminal cell (``col``, ``row``), both
        from 0: the screen element's corner plus the cell size xterm.js renders with."""
        box: dict[str, float] = self.driver.execute_script(
            "const t = window.doorTerm;"
            "const r = t.element.querySelector('.xterm-screen').getBoundingClientRect();"
            "const c = t._core._renderService.dimensions.css.cell;"
            "return {left: r.left, top: r.top, w: c.width, h: c.height,"
            "        sw: r.width / t.cols, sh: r.height / t.rows};"
        )
        # the two ways of measuring a cell agree (else the clicks would land off target)
        assert abs(box["w"] - box["sw"]) < 0.5 and abs(box["h"] - box["sh"]) < 0.5, box
        return box["left"] + (col + 0.5) * box["w"], box["top"] + (row + 0.5) * box["h"]

    def click_cell(self, col: int, row: int) -> None:
        """A left click in the middle of the cell (``col``, ``row``), as a mouse makes it."""
        from selenium.webdriver.common.actions.action_builder import ActionBuilder

        x, y = self.cell_centre(col, row)
        actions = ActionBuilder(self.driver)
        actions.pointer_action.move_to_location(round(x), round(y))
        actions.pointer_action.click()
        actions.perform()

    def click_text(self, text: str) -> None:
        """A click on the first cell of ``text`` where the screen shows it (the lowest
        row first: the key line is at the foot)."""
        lines = self.lines()
        for row in range(len(lines) - 1, -1, -1):
            col = lines[row].find(text)
            if col >= 0:
                self.click_cell(col, row)
                return
        raise AssertionError(f"no {text!r} on the screen:\n" + "\n".join(lines))

    def console_errors(self) -> list[str]:
        """The browser console's errors since the last call (a refused script or style
        among them), the missing favicon aside."""
        entries = self.driver.get_log("browser")
        return [
            str(e["message"]) for e in entries
            if e["level"] == "SEVERE" and "favicon" not in str(e["message"])
        ]  # fmt: skip


@pytest.fixture
def page(chromium: Any, door: Door) -> Iterator[Page]:
    chromium.get_log("browser")  # what earlier tests left in the console
    shown = Page(chromium, door)
    yield shown
    chromium.get("about:blank")  # the session ends with the page


# --- the board, as a person reads it ---------------------------------------------------------


@dataclass(frozen=True)
class Board:
    """Where the backgammon board sits on the screen, as a person finds it: each point's
    column (its number is printed above or below it) and the rows of the two halves."""

    columns: dict[int, int]  # point (the player's own numbers) → column of its checkers
    on_top: frozenset[int]  # the points of the upper half
    top_rows: tuple[int, int]  # upper half: the row at the edge, the row of the tips
    bottom_rows: tuple[int, int]  # lower half: the row of the tips, the row at the edge

    def checker_cell(self, point: int) -> tuple[int, int]:
        """The cell of the checker at the edge of ``point`` (a stack starts there)."""
        row = self.top_rows[0] if point in self.on_top else self.bottom_rows[1]
        return self.columns[point], row

    def tip_cell(self, point: int) -> tuple[int, int]:
        """The cell at the tip of ``point``'s triangle, toward the middle of the board."""
        row = self.top_rows[1] if point in self.on_top else self.bottom_rows[0]
        return self.columns[point], row


def read_board(lines: list[str]) -> Board:
    """The board's geometry from its text: the frame's top (``╔``) and bottom (``╚``)
    rows, the rows of point numbers just outside them, and the triangles' tips (``▼``
    in the upper half, ``▲`` in the lower)."""
    top = next(i for i, line in enumerate(lines) if "╔" in line)
    bottom = next(i for i, line in enumerate(lines) if "╚" in line)
    columns: dict[int, int] = {}
    on_top: set[int] = set()
    for row in (top - 1, bottom + 1):
        for m in list(re.finditer(r"\b\d{1,2}\b", lines[row]))[:12]:
            columns[int(m.group())] = m.start()
            if row < top:
                on_top.add(int(m.group()))
    assert sorted(columns) == list(range(1, 25)), (columns, "\n".join(lines))

    def has(row: int, glyph: str) -> bool:
        return any(lines[row][c : c + 1] == glyph for c in columns.values())

    down_tips = max(r for r in range(top + 1, bottom) if has(r, "▼"))
    up_tips = min(r for r in range(top + 1, bottom) if has(r, "▲"))
    return Board(columns, frozenset(on_top), (top + 1, down_tips), (up_tips, bottom - 1))


def game_row(db: Path) -> tuple[BackgammonState, dict[str, int]]:
    """The game's position and each player's seat, read from the SQLite file (read-only)."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10)
    try:
        snapshot, options = con.execute(
            "SELECT snapshot, options FROM games ORDER BY id DESC LIMIT 1"
        ).fetchone()
        game_id = con.execute("SELECT max(id) FROM games").fetchone()[0]
        seats = dict(con.execute(
            "SELECT users.name, seats.seat FROM seats JOIN users ON users.id = seats.user_id"
            " WHERE seats.game_id = ?", (game_id,),
        ).fetchall())  # fmt: skip
    finally:
        con.close()
    return state_from_id(snapshot, json.loads(options)), seats


def moves_of(db: Path, seat: int) -> list[str]:
    """The moves (checker plays) seat ``seat`` made in the latest game, in order, from the
    game's event log (read-only)."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10)
    try:
        rows = con.execute(
            "SELECT payload FROM game_events WHERE kind = 'move' AND seat = ?"
            " AND game_id = (SELECT max(id) FROM games) ORDER BY seq", (seat,),
        ).fetchall()  # fmt: skip
    finally:
        con.close()
    moves = [str(json.loads(payload).get("move")) for (payload,) in rows]
    return [m for m in moves if m != "roll"]  # a roll is logged as a move too


def wait_state(db: Path, ok: Callable[[BackgammonState], bool], what: str) -> BackgammonState:
    end = time.monotonic() + WAIT_S
    while True:
        state, _ = game_row(db)
        if ok(state):
            return state
        assert time.monotonic() < end, f"the game never reached {what}: {state}"
        time.sleep(0.1)


# --- what the player does --------------------------------------------------------------------


def sign_up(page: Page, name: str) -> None:
    page.wait_for("Name:")
    page.type("new\n")
    page.wait_for("Choose a name")
    page.type(f"{name}\n")
    page.wait_for("Choose a password")
    page.type(f"{PASSWORD}\n")
    page.wait_for("again")
    page.type(f"{PASSWORD}\n")
    page.wait_for(f"Welcome, {name}!", "Main Menu")


def begin_against_the_computer(page: Page) -> None:
    page.type("b")
    page.wait_for("Which game?")
    page.type("b")
    page.wait_for("A new game of Backgammon")
    page.type("1")
    page.wait_for("Who will be your opponent?")
    page.type("1")  # the first computer level
    page.wait_for("Opponent: Computer")
    page.type("s")
    page.wait_for("Dice word")
    page.type("browser\n")  # this seat's word in the provable dice
    page.wait_for("Backgammon #")


# --- the specs -------------------------------------------------------------------------------


def test_the_page_shows_the_servers_name_and_the_login_screen_under_its_csp(page: Page) -> None:
    page.open()
    page.wait_for("Name:")
    assert page.driver.title == SERVER_NAME
    from selenium.webdriver.common.by import By

    assert page.driver.find_element(By.ID, "name").text == SERVER_NAME
    # nothing refused by the Content-Security-Policy (xterm.js adds <style> elements for
    # its colours and cell sizes: the policy must allow them), no script error
    errors = page.console_errors()
    assert errors == [], "\n".join(errors)


def test_a_new_player_signs_up_and_makes_the_first_move_against_the_computer_by_clicking(
    page: Page,
) -> None:
    page.open()
    sign_up(page, "clicker")
    begin_against_the_computer(page)
    _, seats = game_row(page.door.db)
    seat = seats["clicker"]
    state = wait_state(page.door.db, lambda s: s.turn == seat and s.phase in (DECIDE, MOVING),
                       "the player's turn")  # fmt: skip
    if state.phase == DECIDE:
        page.wait_for("R)oll")
        page.type("r")
        state = wait_state(page.door.db, lambda s: s.turn == seat and s.phase == MOVING,
                           "the roll")  # fmt: skip
    assert state.dice is not None
    d1, d2 = state.dice
    rolled = (f"You rolled {d1}-{d2}.", f"You rolled {d2}-{d1}.")
    page.wait_until(lambda: any(r in page.screen() for r in rolled), f"the dice {d1}-{d2}")

    # A play of plain steps (no bar, no bearing off: it is the opening), clicked step by
    # step: the checker, then the point the die takes it to.
    rules = BackgammonRules()
    move = next(
        m for m in rules.legal_moves(state)
        if m.steps and all(1 <= s[0] <= 24 and 1 <= s[1] <= 24 for s in m.steps)
    )  # fmt: skip
    notation = rules.format_move(state, move)
    board = read_board(page.lines())
    for src, dst, _die, _hit in move.steps:
        page.click_cell(*board.checker_cell(src))
        page.click_cell(*board.tip_cell(dst))
    # door asks before it sends the play: a click on the key line's Y)es answers
    page.wait_for(f"Play {notation}?")
    page.click_text("Y)es")
    # the terminal says so: the message, or (once the computer has answered, which it
    # does at once) the play in the game's move list beside the board
    said = re.escape(notation)
    played = re.compile(rf"You played {said}\.|clicker\s+{said}\s*$")
    page.wait_until(
        lambda: any(played.search(line) for line in page.lines()),
        f"the play {notation} on the screen",
    )
    # and the game's log has it, as the player's move
    assert moves_of(page.door.db, seat)[:1] == [notation]


def test_a_smaller_window_resizes_the_session_and_door_redraws_to_fit(page: Page) -> None:
    page.open()
    sign_up(page, "resizer")

    def title_reaches_the_edge() -> bool:
        # the title row ends with the player's name at the right edge of the terminal
        cols: int = page.driver.execute_script("return window.doorTerm.cols")
        title = page.lines()[0].rstrip()
        return title.endswith("resizer") and cols - 2 <= len(title) <= cols

    page.wait_until(title_reaches_the_edge, "the title across the whole terminal")
    wide: int = page.driver.execute_script("return window.doorTerm.cols")
    try:
        page.driver.set_window_size(WINDOW[0] - 300, WINDOW[1] - 200)
        page.wait_until(
            lambda: page.driver.execute_script("return window.doorTerm.cols") < wide,
            "the terminal to fit the smaller window",
        )
        page.wait_until(title_reaches_the_edge, "the title redrawn at the new width")
        assert "Main Menu" in page.screen()
    finally:
        page.driver.set_window_size(*WINDOW)


@pytest.mark.parametrize("how", ["click", "enter"])
def test_the_page_offers_to_reconnect_when_the_session_ends_and_a_click_or_enter_reconnects(
    page: Page, how: str
) -> None:
    from selenium.webdriver.common.by import By

    page.open()
    sign_up(page, f"leaver-{how}")
    page.type("g")
    page.wait_until(lambda: "Log off?" in page.screen()
                    or page.driver.find_element(By.ID, "reconnect").is_displayed(),
                    "the goodbye")  # fmt: skip
    if "Log off?" in page.screen():
        page.type("y")
    button = page.driver.find_element(By.ID, "reconnect")
    page.wait_until(button.is_displayed, "the Reconnect button")
    shown = page.wait_for("Press Enter or click Reconnect")
    assert "Goodbye. Press Enter" in shown  # the server's bye, told once
    if how == "click":
        button.click()
    else:
        page.type("\n")
    page.wait_until(lambda: not button.is_displayed(), "the button to go once connected")
    page.wait_for("Name:")
    assert "Press Enter or click Reconnect" not in page.screen()
