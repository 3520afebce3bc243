"""Byte level: whatever a player puts in a note with a move or a chat line, no control or
escape sequence of theirs reaches the other player's terminal — over telnet in a CP437
session (where 0x9B and 0x9D would be C1 CSI and OSC to some terminals) and over SSH in
UTF-8. The bytes the server sends are read as they arrive, before any terminal
interprets them."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import asyncssh
import pyte
import pytest
import telnetlib3

from door.app import App
from door.games.backgammon.rules import BackgammonRules
from door.services import Services
from door.services.accounts import User
from door.services.games import SeatSpec
from tests.net.conftest import expect, make_config

pytestmark = pytest.mark.slow

HOSTILE = (
    "\x1b]52;c;cm0gLXJmIH4=\x07"  # OSC 52: write the reader's clipboard
    "\x1b[5mBLINK\x1b[0m\x1b[2J"  # CSI: blink, clear the screen
    "\x9b31m\x9d0;pwned\x9c"  # C1 CSI, OSC, ST (one byte each in CP437)
    "\x7f\x00\x08\x0e"  # DEL, NUL, BS, SO (charset switch)
    "\u202eevil\u202c\u2066x\u2069\u200f"  # bidi override, isolate, RLM
)

FORBIDDEN_CP437 = [b"\x1b]52", b"\x1b[5m", b"\x9b", b"\x9d", b"\x9c", b"\x7f", b"\x00", b"\x0e"]
"""In a CP437 stream every byte is a character: these are the sender's, raw."""
FORBIDDEN_UTF8 = ["\x1b]52", "\x1b[5m", "\x9b", "\x9d", "\x9c", "\x7f", "\x00", "\x0e",
                  "\u202e", "\u2066", "\u200f"]  # fmt: skip
"""In UTF-8 the bytes 0x9B-0x9D are also parts of box-drawing characters: the decoded
stream is searched for the sender's characters."""


async def drain(reader: Any, seconds: float) -> bytes:
    buf = b""
    loop = asyncio.get_running_loop()
    end = loop.time() + seconds
    while (left := end - loop.time()) > 0:
        try:
            chunk = await asyncio.wait_for(reader.read(65536), left)
        except TimeoutError:
            break
        if not chunk:
            break
        buf += chunk
    return buf


async def game_waiting_on(services: Services, mallory: User, other: User) -> int:
    """A Backgammon game of mallory's against ``other``, waiting on ``other``; if mallory
    moved first, mallory's move carries a hostile note."""
    info = await services.games.begin(
        mallory.id, "backgammon", {"match_length": 1, "cube": False},
        [SeatSpec("me"), SeatSpec("user", other.name)],
    )  # fmt: skip
    await services.games.join(info.id, other.id)
    snap = await services.games.get(info.id)
    if snap.info.to_act == 0:
        rules = BackgammonRules()
        text = rules.format_move(snap.state, rules.legal_moves(snap.state)[0])
        await services.games.submit(info.id, mallory.id, text, snap.info.version,
                                    note="note " + HOSTILE)  # fmt: skip
    return info.id


async def test_no_sequence_from_a_note_or_chat_line_reaches_telnet_or_ssh(
    tmp_path: Path,
) -> None:
    app = App(make_config(tmp_path))
    await app.start(telnet_port=0, ssh_port=0, rlogin_port=None)
    try:
        services = app.services
        acc = services.accounts
        mallory = await acc.register("mallory", "mallory-pw")
        carol = await acc.register("carol", "carol-pw")
        dave = await acc.register("dave", "dave-pw")
        await acc.update_settings(carol.id, charset="cp437")
        games = [await game_waiting_on(services, mallory, u) for u in (carol, dave)]

        t_reader, t_writer = await telnetlib3.open_connection(
            "127.0.0.1", app.ports["telnet"], encoding=False, term="xterm", cols=80, rows=24,
            connect_minwait=0.05,
        )  # fmt: skip
        await expect(t_reader, "Name: ")
        t_writer.write(b"carol\rcarol-pw\r")
        await expect(t_reader, "Main Menu", timeout=10)
        async with asyncssh.connect(
            "127.0.0.1", app.ports["ssh"], username="dave", password="dave-pw",
            known_hosts=None, client_keys=None,
        ) as conn:  # fmt: skip
            proc = await conn.create_process(
                term_type="xterm-256color", term_size=(80, 24), encoding=None
            )
            await expect(proc.stdout, "Main Menu", timeout=10)
            for w in (t_writer, proc.stdin):
                w.write(b"p")  # P)lay: the one game waiting on them
            got_t = await drain(t_reader, 1.0)
            got_s = await drain(proc.stdout, 0.5)
            for gid in games:
                await services.chat.say(gid, mallory.id, "chat " + HOSTILE)
            got_t += await drain(t_reader, 1.0)
            got_s += await drain(proc.stdout, 0.5)
            for got, codec in ((got_t, "cp437"), (got_s, "utf-8")):
                screen = pyte.Screen(80, 24)
                pyte.Stream(screen).feed(got.decode(codec))
                assert "Chat mallory: chat" in "\n".join(screen.display), codec
            for w in (t_writer, proc.stdin):
                w.write(b"v")  # V)iew: the notes of the last turn, if mallory moved
            got_t += await drain(t_reader, 1.0)
            got_s += await drain(proc.stdout, 0.5)
            proc.stdin.write(b"qqqg")
        t_writer.write(b"qqqg")
        t_writer.close()
        assert b"evil" in got_t and b"evil" in got_s  # the words arrived, as text
        assert [b for b in FORBIDDEN_CP437 if b in got_t] == [], "telnet/CP437"
        text_s = got_s.decode("utf-8")
        assert [c for c in FORBIDDEN_UTF8 if c in text_s] == [], "SSH/UTF-8"
    finally:
        await app.shutdown()
