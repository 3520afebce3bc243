"""A bot's turn through a running server: a person plays over telnet against a bot."""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pyte
import pytest
import telnetlib3

from door.app import App
from door.games.backgammon.position import DECIDE
from door.games.backgammon.rules import BackgammonRules
from door.services.bgengine import has_bgsage
from door.services.bots import BotRunner
from door.services.games import SeatSpec
from tests.net.conftest import make_config

pytestmark = pytest.mark.skipif(not has_bgsage(), reason="bgsage is not installed here")


class Screen:
    """What the person sees: the client's output through a pyte 80x24 screen."""

    def __init__(self, reader: Any) -> None:
        self.screen = pyte.Screen(80, 24)
        self.stream = pyte.Stream(self.screen)
        self.decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self.task = asyncio.create_task(self._pump(reader))

    async def _pump(self, reader: Any) -> None:
        while chunk := await reader.read(4096):
            data = chunk if isinstance(chunk, bytes) else chunk.encode()
            self.stream.feed(self.decoder.decode(data))

    def text(self) -> str:
        return "\n".join(self.screen.display)

    async def wait_for(self, needle: str, timeout: float = 10.0) -> None:
        end = time.monotonic() + timeout
        while needle not in self.text():
            if time.monotonic() > end:
                raise AssertionError(f"{needle!r} never appeared; screen:\n{self.text()}")
            await asyncio.sleep(0.02)

    async def close(self) -> None:
        self.task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self.task


async def test_the_expert_bot_answers_a_telnet_players_move_within_a_second(
    tmp_path: Path,
) -> None:
    config = make_config(tmp_path)
    config = replace(
        config,
        games=replace(config.games, bots=True),
        server=replace(config.server, ssh_port=0, rlogin_port=0),  # 0 in the file: off
    )
    app = App(config)
    await app.start(telnet_port=0, ssh_port=None, rlogin_port=None)
    services = app.services
    assert services is not None
    rules = BackgammonRules()
    screen: Screen | None = None
    try:
        assert isinstance(services.bots, BotRunner)
        await services.bots.ready()
        alice = await services.accounts.register("alice", "secret1")
        info = await services.games.begin(
            alice.id,
            "backgammon",
            {"match_length": 3},
            [SeatSpec("me"), SeatSpec("bot", "bg-expert")],
        )
        gid = info.id

        async def alices_turn() -> Any:
            end = time.monotonic() + 5
            while True:
                snap = await services.games.get(gid)
                if snap.info.is_waiting_on(alice.id):
                    return snap
                assert time.monotonic() < end, "the bot never moved"
                await asyncio.sleep(0.01)

        snap = await alices_turn()  # if the bot won the opening roll, it has moved

        reader, writer = await telnetlib3.open_connection(
            "127.0.0.1", app.ports["telnet"], encoding=False, term="xterm", cols=80, rows=24,
            connect_minwait=0.05,
        )  # fmt: skip
        screen = Screen(reader)
        await screen.wait_for("Name:")
        writer.write(b"alice\rsecret1\r")
        await screen.wait_for("Main Menu")
        writer.write(b"v")
        await screen.wait_for("Games:")
        writer.write(b"w\r")
        await screen.wait_for("It is your turn.")
        if snap.state.phase == DECIDE:
            writer.write(b"r")
            await screen.wait_for("You rolled")
            snap = await services.games.get(gid)
        move = rules.format_move(snap.state, rules.legal_moves(snap.state)[0])
        moves_before = len([e for e in await services.games.events(gid) if e.kind == "move"])
        writer.write(b":" + move.encode() + b"\r")

        end = time.monotonic() + 10
        while True:
            events = [e for e in await services.games.events(gid) if e.kind == "move"]
            if len(events) > moves_before:
                break
            assert time.monotonic() < end, "the move never arrived"
            await asyncio.sleep(0.01)
        sent = time.monotonic()
        assert events[moves_before].payload["move"] == move
        await alices_turn()
        waited = time.monotonic() - sent
        print(f"bot answered in {waited:.3f} s")
        assert waited < 1.0
        after = [e for e in await services.games.events(gid) if e.kind == "move"]
        bot_seat = 1 - events[moves_before].seat
        assert any(e.seat == bot_seat for e in after[moves_before + 1 :])
        writer.close()
    finally:
        if screen is not None:
            await screen.close()
        await app.shutdown()
