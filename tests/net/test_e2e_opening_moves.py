"""End to end: two players make their opening moves over real telnet and SSH on loopback.

A real ``door`` server (App: telnet and SSH listeners, the real session, temp SQLite) and
real clients (telnetlib3, asyncssh). Each client's output goes through a pyte screen, so
the test reads what the player sees. Alice logs in over telnet, Bob over SSH; both open
the game from P)lay. Whoever won the opening roll moves with the cursor keys (arrow key
escape sequences on the wire); the other is told, then rolls and types the reply in
notation.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
from pathlib import Path
from typing import Any

import asyncssh
import pyte
import telnetlib3

from door.app import App
from door.games.backgammon.partial import PartialPlay
from door.games.backgammon.position import DECIDE, MOVING, BackgammonState
from door.games.backgammon.rules import BackgammonRules
from door.services.games import SeatSpec
from door.ui.boards import backgammon as bgb
from tests.net.conftest import make_config

ARROW = {"up": b"\x1b[A", "down": b"\x1b[B", "right": b"\x1b[C", "left": b"\x1b[D"}


class Screen:
    """A pyte screen fed by a client's output (in a background task)."""

    def __init__(self, reader: Any) -> None:
        self.screen = pyte.Screen(80, 24)
        self.stream = pyte.Stream(self.screen)
        self.decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self.changed = asyncio.Event()
        self.task = asyncio.create_task(self._pump(reader))

    async def _pump(self, reader: Any) -> None:
        while True:
            chunk = await reader.read(4096)
            if not chunk:
                return
            data = chunk if isinstance(chunk, bytes) else chunk.encode()
            self.stream.feed(self.decoder.decode(data))
            self.changed.set()

    def text(self) -> str:
        return "\n".join(self.screen.display)

    async def wait_for(self, needle: str, timeout: float = 10.0) -> None:
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while needle not in self.text():
            left = end - loop.time()
            if left <= 0:
                raise AssertionError(f"{needle!r} never appeared; screen:\n{self.text()}")
            self.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), min(left, 0.1))

    async def close(self) -> None:
        self.task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self.task


def cursor_keys(state: BackgammonState) -> tuple[list[bytes], str]:
    """The bytes a player sends to make a whole play with the cursor and Enter, starting
    where the screen puts the cursor (on the highest checker that can move)."""
    col = bgb.WHITE_SIDE if state.turn == 0 else bgb.BLACK_SIDE
    pp = PartialPlay.start(state)
    spot = max(s[0] for s in pp.next_steps())
    top = bgb.point_column(spot, col)[1]
    out: list[bytes] = []

    def go(goal: int) -> None:
        nonlocal spot, top
        frontier: list[tuple[int, bool, list[str]]] = [(spot, top, [])]
        seen = {(spot, top)}
        while frontier:
            nxt = []
            for s, t, path in frontier:
                if s == goal:
                    out.extend(ARROW[d] for d in path)
                    spot, top = s, t
                    return
                for d in ARROW:
                    s2, t2 = bgb.move_cursor(s, d, col, t, bar_stop=False)
                    if (s2, t2) not in seen:
                        seen.add((s2, t2))
                        nxt.append((s2, t2, [*path, d]))
            frontier = nxt
        raise AssertionError(f"cannot reach {goal}")

    while not pp.is_complete():
        step = pp.next_steps()[0]
        go(step[0])
        out.append(b"\r")
        if step[1] == bgb.OFF:
            out.append(b"r")
        else:
            go(step[1])
            out.append(b"\r")
        pp = pp.add(step)
    return out, pp.notation()


async def moves_logged(app: App, gid: int) -> list[str]:
    assert app.services is not None
    events = await app.services.games.events(gid)
    return [e.payload["move"] for e in events if e.kind == "move"]


async def wait_until(check: Any, timeout: float = 10.0) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not await check():
        if loop.time() > end:
            raise AssertionError("the server never got there")
        await asyncio.sleep(0.05)


async def test_two_players_make_their_opening_moves_over_telnet_and_ssh(tmp_path: Path) -> None:
    app = App(make_config(tmp_path))
    await app.start(telnet_port=0, ssh_port=0, rlogin_port=None)
    services = app.services
    assert services is not None
    rules = BackgammonRules()
    screens: list[Screen] = []
    try:
        alice = await services.accounts.register("alice", "secret1")
        bob = await services.accounts.register("bob", "secret2")
        info = await services.games.begin(
            alice.id, "backgammon", {"match_length": 3}, [SeatSpec("me"), SeatSpec("user", "bob")]
        )
        await services.games.join(info.id, bob.id)
        gid = info.id

        # Alice over telnet.
        t_reader, t_writer = await telnetlib3.open_connection(
            "127.0.0.1", app.ports["telnet"], encoding=False, term="xterm", cols=80, rows=24,
            connect_minwait=0.05,
        )  # fmt: skip
        alice_screen = Screen(t_reader)
        screens.append(alice_screen)
        await alice_screen.wait_for("Name:")
        t_writer.write(b"alice\rsecret1\r")
        await alice_screen.wait_for("Main Menu")

        # Bob over SSH.
        conn = await asyncssh.connect(
            "127.0.0.1", app.ports["ssh"], username="bob", password="secret2",
            known_hosts=None, client_keys=None,
        )  # fmt: skip
        proc = await conn.create_process(
            term_type="xterm-256color", term_size=(80, 24), encoding=None, env={"LANG": "C.UTF-8"}
        )
        bob_screen = Screen(proc.stdout)
        screens.append(bob_screen)
        await bob_screen.wait_for("Main Menu")

        def send_alice(data: bytes) -> None:
            t_writer.write(data)

        def send_bob(data: bytes) -> None:
            proc.stdin.write(data)

        clients = {
            alice.id: (alice_screen, send_alice),
            bob.id: (bob_screen, send_bob),
        }
        state: BackgammonState = (await services.games.get(gid)).state
        assert state.phase == MOVING  # the opening roll is played at once
        first = alice if state.turn == 0 else bob
        second = bob if first is alice else alice
        first_screen, first_send = clients[first.id]
        second_screen, second_send = clients[second.id]

        # Both open the game; the second player is waiting and watching.
        first_send(b"v")  # V)iew games in progress
        await first_screen.wait_for("Games:")
        first_send(b"w")  # the list of games waiting on me
        first_send(b"\r")
        await first_screen.wait_for("It is your turn.")
        second_send(b"v")
        await second_screen.wait_for("Games:")
        second_send(b"a")  # games in progress
        second_send(b"\r")
        await second_screen.wait_for("V)iew last turn")

        # The first player moves with the cursor keys and confirms.
        keys, play = cursor_keys(state)
        for k in keys:
            first_send(k)
            await asyncio.sleep(0.02)  # a person's pace; each key is one packet
        await first_screen.wait_for(f"Play {play}?")
        first_send(b"y")

        async def first_logged() -> bool:
            return await moves_logged(app, gid) == [play]

        await wait_until(first_logged)
        await first_screen.wait_for(f"You played {play}")
        await second_screen.wait_for("Meanwhile")

        # The second player rolls and answers in notation.
        state = (await services.games.get(gid)).state
        assert state.phase == DECIDE
        second_send(b"r")
        await second_screen.wait_for("You rolled")
        state = (await services.games.get(gid)).state
        reply = rules.format_move(state, rules.legal_moves(state)[0])
        second_send(b":" + reply.encode() + b"\r")

        async def both_logged() -> bool:
            return await moves_logged(app, gid) == [play, "roll", reply]

        await wait_until(both_logged)
        await second_screen.wait_for(f"You played {reply}")
        await first_screen.wait_for("Meanwhile")
        t_writer.close()
        conn.close()
    finally:
        for s in screens:
            await s.close()
        await app.shutdown()
