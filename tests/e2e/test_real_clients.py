"""A scripted play-through with the real clients a new player would use: inetutils
``telnet`` and OpenSSH, each in a pane of a private tmux server, against a real
``python3 -m door serve`` process (its own temp data dir and config, telnet and SSH on
free ports of 127.0.0.1), at 60×20 and 80×24.

alice signs up over telnet, bob over SSH (user ``new``). alice begins a money game of
Backgammon naming bob; bob, on his main menu, is told at once and accepts from V)iew.
They play their opening turns, typing each play on the ``:`` line (the test finds a legal
play for the dice shown by reading the game's row from the SQLite file, read-only, and
asking door's own pure rules). alice logs off, bob moves, and her "Since your last visit"
names bob's play in *her* point numbers. She offers to resign a gammon and logs off; bob
accepts, and his board tells him the result; on her next visit the summary tells her. The
screens are what tmux's ``capture-pane`` shows: plain text, exactly what the player reads.

Below 80 columns the board's side panel is cropped (``»``); its news of the turn (the
dice, an offer to answer, the result) is then told under the board, where it is read.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import subprocess
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from door.games.backgammon.matchid import state_from_id
from door.games.backgammon.notation import from_viewpoint
from door.games.backgammon.position import DECIDE, MOVING, OVER, BackgammonState
from door.games.backgammon.rules import BackgammonRules
from tests.e2e.serving import door_serving
from tests.net.served import free_ports

REPO = Path(__file__).resolve().parents[2]
CLIENTS = ("tmux", "telnet", "ssh")
WAIT_S = 30.0  # generous: the machine running the tests may be busy
PASSWORDS = {"alice": "alice-pass-7913", "bob": "bob-pass-2468"}

pytestmark = pytest.mark.slow


# --- the server ----------------------------------------------------------------------------


@dataclass
class Door:
    """A running ``door serve``: its ports and its SQLite file."""

    telnet_port: int
    ssh_port: int
    db: Path


@pytest.fixture
def door(tmp_path: Path) -> Iterator[Door]:
    """``python3 -m door serve`` in a subprocess, until it says it is serving."""
    telnet_port, ssh_port = free_ports(2)
    config = tmp_path / "door.toml"
    config.write_text(
        "[server]\n"
        'host = "127.0.0.1"\n'
        f"telnet_port = {telnet_port}\nssh_port = {ssh_port}\nrlogin_port = 0\n"
        "tune_runtime = false\n"
        "[limits]\n"
        "login_delay_s = 0.05\nnegotiation_wait_s = 0.5\nprobe_timeout_s = 0.5\n"
        "[games]\nbots = false\n"
    )
    data = tmp_path / "data"
    log = tmp_path / "serve.log"
    env = dict(os.environ, PYTHONPATH=str(REPO))
    with door_serving(data, config, cwd=tmp_path, env=env, log=log):
        yield Door(telnet_port, ssh_port, data / "door.sqlite3")


# --- the clients, in a private tmux server -------------------------------------------------


class Tmux:
    """A tmux server of the test's own (``-L``, no config file): never the user's."""

    def __init__(self) -> None:
        self.socket = f"door-test-{os.getpid()}-{uuid.uuid4().hex[:8]}"

    def __call__(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["tmux", "-u", "-L", self.socket, "-f", "/dev/null", *args],
            capture_output=True, text=True, timeout=30,
            env=dict(os.environ, LANG="C.UTF-8", LC_ALL="C.UTF-8"),
        )  # fmt: skip

    def pane(self, name: str, command: str, width: int, height: int) -> Pane:
        done = self("new-session", "-d", "-s", name, "-x", str(width), "-y", str(height),
                    command)  # fmt: skip
        assert done.returncode == 0, done.stderr
        return Pane(self, name)

    def kill_server(self) -> None:
        self("kill-server")
        # (tmux leaves its socket file behind)
        tmpdir = Path(os.environ.get("TMUX_TMPDIR") or "/tmp") / f"tmux-{os.getuid()}"
        (tmpdir / self.socket).unlink(missing_ok=True)


@pytest.fixture
def tmux() -> Iterator[Tmux]:
    missing = [c for c in CLIENTS if shutil.which(c) is None]
    if missing:
        pytest.skip(f"needs {', '.join(missing)} (apt-get install tmux inetutils-telnet "
                    "openssh-client)")  # fmt: skip
    server = Tmux()
    try:
        yield server
    finally:
        server.kill_server()


def flat(text: str) -> str:
    """Whitespace runs made one space: a sentence wrapped over rows reads as one line."""
    return " ".join(text.split())


class Pane:
    """One player's terminal: what it shows, and the keys typed into it."""

    def __init__(self, tmux: Tmux, name: str) -> None:
        self.tmux = tmux
        self.name = name
        self.target = f"={name}:"

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", self.target).stdout

    def alive(self) -> bool:
        return self.tmux("has-session", "-t", f"={self.name}").returncode == 0

    def keys(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", self.target, *keys)

    def type(self, text: str) -> None:
        """``text`` as typed (no key names), then Enter."""
        self.tmux("send-keys", "-t", self.target, "-l", text)
        self.tmux("send-keys", "-t", self.target, "Enter")

    def wait_until(self, ok: Callable[[str], bool], what: str, timeout: float = WAIT_S) -> str:
        end = time.monotonic() + timeout
        while True:
            shown = self.screen()
            if ok(shown):
                return shown
            if time.monotonic() > end:
                raise AssertionError(f"{self.name}: {what} never shown; the screen:\n{shown}")
            time.sleep(0.1)

    def wait_for(self, *texts: str, timeout: float = WAIT_S) -> str:
        """The screen once every one of ``texts`` is on it (wrapping ignored)."""
        return self.wait_until(
            lambda s: all(flat(t) in flat(s) for t in texts), repr(texts), timeout
        )

    def wait_change(self, before: str, what: str) -> str:
        """The screen once it is no longer ``before``."""
        return self.wait_until(lambda s: s != before, what)

    def wait_closed(self, timeout: float = WAIT_S) -> None:
        end = time.monotonic() + timeout
        while self.alive():
            assert time.monotonic() < end, f"{self.name} never closed:\n{self.screen()}"
            time.sleep(0.1)


def named(name: str, text: str) -> bool:
    """``name`` whole on the screen (not cut to a prefix, not part of a longer word)."""
    return re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text) is not None


def panel(screen: str) -> str:
    """The text right of the backgammon board, row after row, as one line."""
    edges = "║│┐┘╗╝"
    rows = [row[max(row.rfind(e) for e in edges) + 1 :] for row in screen.split("\n")]
    return flat(" ".join(rows))


def bottom(screen: str, rows: int = 3) -> str:
    """The message rows at the foot of a screen."""
    return "\n".join(screen.rstrip("\n").split("\n")[-rows:])


# --- what the players do --------------------------------------------------------------------


def sign_up(pane: Pane, name: str) -> None:
    pane.wait_for("Choose a name")
    pane.type(name)
    pane.wait_for("Choose a password")
    pane.type(PASSWORDS[name])
    pane.wait_for("again")
    pane.type(PASSWORDS[name])
    pane.wait_for(f"Welcome, {name}!", "Main Menu")


def telnet_login(pane: Pane, name: str) -> str:
    """Log in at the telnet name prompt; the main menu as first drawn."""
    pane.wait_for("Name:")
    pane.type(name)
    pane.wait_for("Password:")
    pane.type(PASSWORDS[name])
    return pane.wait_for(f"Welcome, {name}!", "Since your last visit")


def log_off(pane: Pane) -> None:
    """Back to the main menu (Q from each screen on the way), then G)oodbye, answering
    its question where it asks one."""
    for _ in range(5):
        shown = pane.screen()
        if "Main Menu" in shown:
            break
        pane.keys("q")
        pane.wait_change(shown, "the screen under it")
    pane.wait_for("Main Menu")
    pane.keys("g")
    shown = pane.wait_until(lambda s: "Log off?" in s or not pane.alive(), "the goodbye")
    if "Log off?" in shown:
        pane.keys("y")
    pane.wait_closed()


def money_game(pane: Pane) -> None:
    """Step the Begin screen's match length with its letter to a money game."""
    for _ in range(15):
        shown = pane.screen()
        if "Match length: Money" in shown:
            return
        pane.keys("a")
        pane.wait_change(shown, "the next match length")
    raise AssertionError(f"no money game among the match lengths:\n{pane.screen()}")


def game_row(db: Path, game_id: int = 1) -> tuple[int, BackgammonState, dict[str, int]]:
    """The game's version, its position and each player's seat, read from the server's
    SQLite file (read-only)."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10)
    try:
        version, snapshot, options = con.execute(
            "SELECT version, snapshot, options FROM games WHERE id = ?", (game_id,)
        ).fetchone()
        seats = dict(con.execute(
            "SELECT users.name, seats.seat FROM seats JOIN users ON users.id = seats.user_id"
            " WHERE seats.game_id = ?", (game_id,),
        ).fetchall())  # fmt: skip
    finally:
        con.close()
    return version, state_from_id(snapshot, json.loads(options)), seats


def wait_state(db: Path, ok: Callable[[BackgammonState], bool], what: str
               ) -> tuple[int, BackgammonState]:
    end = time.monotonic() + WAIT_S
    while True:
        version, state, _ = game_row(db)
        if ok(state):
            return version, state
        assert time.monotonic() < end, f"the game never reached {what}: {state}"
        time.sleep(0.1)


def play_turn(pane: Pane, db: Path, seat: int) -> str:
    """Seat ``seat`` (at ``pane``) rolls if it must, then types a legal play on the ``:``
    line; the play as typed (in the mover's point numbers, as its board shows them)."""
    _, state = wait_state(db, lambda s: s.turn == seat and s.phase in (DECIDE, MOVING),
                          f"seat {seat}'s turn")  # fmt: skip
    if state.phase == DECIDE:
        pane.wait_for("R)oll")
        pane.keys("r")
        _, state = wait_state(db, lambda s: s.turn == seat and s.phase == MOVING,
                              "the roll")  # fmt: skip
    rules = BackgammonRules()
    play = rules.format_move(state, rules.legal_moves(state)[0])
    if play == "(no play)":
        pane.keys("Enter")
        pane.wait_for("You could not move")
        return play
    assert state.dice is not None
    dice = [f"[{d}]" for d in state.dice]
    pane.wait_until(lambda s: all(d in s for d in dice), f"the dice {dice} on the board")
    pane.keys(":")
    pane.wait_for("Esc")
    pane.type(play)
    pane.wait_for(f"You played {play}")
    return play


def open_my_game(pane: Pane) -> str:
    """From the main menu: V)iew, M)ine, Enter on the one game."""
    pane.keys("v")
    pane.wait_for("Games:")
    pane.keys("m")
    pane.wait_for("Games: Mine", "#1")
    pane.keys("Enter")
    return pane.wait_for("Backgammon #1")


# --- the play-through -------------------------------------------------------------------------


@pytest.mark.parametrize(("width", "height"), [(60, 20), (80, 24)], ids=["60x20", "80x24"])
def test_two_players_on_real_clients_play_resign_a_gammon_and_read_the_news(
    door: Door, tmux: Tmux, tmp_path: Path, width: int, height: int
) -> None:
    telnet = f"telnet 127.0.0.1 {door.telnet_port}"
    ssh = (
        "ssh -tt -F /dev/null -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null"
        f" -o LogLevel=ERROR -o IdentitiesOnly=yes -o IdentityFile={tmp_path}/no-key"
        f" -p {door.ssh_port} new@127.0.0.1"
    )

    # alice signs up over telnet, bob over SSH
    alice = tmux.pane("alice", telnet, width, height)
    alice.wait_for("Name:")
    alice.type("new")
    sign_up(alice, "alice")
    bob = tmux.pane("bob", ssh, width, height)
    sign_up(bob, "bob")

    # alice begins a money game naming bob
    alice.keys("b")
    alice.wait_for("Which game?")
    alice.keys("b")
    alice.wait_for("A new game of Backgammon")
    money_game(alice)
    alice.keys("1")
    alice.wait_for("Who will be your opponent?")
    alice.keys("n")
    alice.wait_for("Opponent's name")
    alice.type("bob")
    alice.wait_for("Opponent: Player bob")
    alice.keys("s")
    alice.wait_for("Dice word (optional, Enter for none):")
    alice.keys("Enter")  # no word: the server's seed alone decides the dice
    alice.wait_for("waiting for 1 more player")

    # bob, on his main menu, is told at once, in the message rows
    invited = bob.wait_until(lambda s: "alice invites you" in bottom(s), "the live invitation")
    assert "Backgammon" in bottom(invited)
    bob.keys("v")
    bob.wait_for("Games: Invitations", "alice v bob")
    bob.keys("Enter")
    bob.wait_for("Dice word (optional, Enter for none):")  # accepting asks for one too
    bob.keys("Enter")
    bob.wait_for("It has begun")
    alice.wait_for("bob joined")
    open_my_game(alice)

    _, start, seats = game_row(door.db)
    panes = {seats["alice"]: alice, seats["bob"]: bob}
    opener = start.turn
    play_turn(panes[opener], door.db, opener)
    if opener == seats["bob"]:
        play_turn(alice, door.db, seats["alice"])
    wait_state(door.db, lambda s: s.turn == seats["bob"] and s.phase == DECIDE, "bob's turn")

    # both boards name both players, whole
    for pane in (alice, bob):
        shown = pane.wait_for("Backgammon #1")
        assert named("alice", shown) and named("bob", shown), shown

    # alice leaves; bob moves while she is away
    log_off(alice)
    bobs_play = play_turn(bob, door.db, seats["bob"])
    alice = tmux.pane("alice-2", telnet, width, height)
    menu = telnet_login(alice, "alice")
    told = from_viewpoint(bobs_play, seats["bob"], seats["alice"])
    assert f"bob played {told}" in flat(menu), menu

    # alice offers to resign a gammon, and logs off before bob answers
    alice.keys("p")
    alice.wait_for("Backgammon #1", "R)oll")
    alice.keys("x")
    alice.wait_for("G)ammon")
    alice.keys("g")
    alice.wait_for("You offered to resign a gammon")
    log_off(alice)

    # bob, watching the board, sees the offer arrive and accepts it
    bob.wait_until(
        lambda s: re.search(r"resign (a )?gammon", flat(s)) is not None and "A)ccept" in s,
        "alice's offer of a gammon, and the key to accept it",
    )
    bob.keys("a")
    over = bob.wait_for("You accepted the resignation")
    assert named("alice", over) and named("bob", over), over
    wait_state(door.db, lambda s: s.phase == OVER, "the end of the game")

    # alice's next visit tells her the result
    alice = tmux.pane("alice-3", telnet, width, height)
    menu = telnet_login(alice, "alice")
    assert "you lost to bob: you resigned a gammon, 2 points" in flat(menu), menu

    # and bob's board told him: beside it, or under it on a narrow terminal
    result = "bob wins the money game by resignation (a gammon), 2 points."
    assert result in panel(over), f"{result!r} not on bob's board:\n{over}"
