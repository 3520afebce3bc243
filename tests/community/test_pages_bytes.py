"""Byte level: whatever a sender puts in a page, a mail or a broadcast, no control or
escape sequence of theirs reaches the recipient's terminal — over telnet in a CP437
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
from tests.net.conftest import expect, make_config

pytestmark = pytest.mark.slow

HOSTILE = (
    "\x1b]52;c;cm0gLXJmIH4=\x07"  # OSC 52: write the reader's clipboard
    "\x1b[5mBLINK\x1b[0m\x1b[2J"  # CSI: blink, clear the screen
    "\x9b31m\x9d0;pwned\x9c"  # C1 CSI, OSC, ST (one byte each in CP437)
    "\x7f\x00\x08\x0e"  # DEL, NUL, BS, SO (charset switch)
    "\u202eevil\u202c\u2066x\u2069\u200f"  # bidi override, isolate, RLM
)

FORBIDDEN = [
    b"\x1b]52", b"\x1b[5m", b"\x9b", b"\x9d", b"\x9c", b"\x7f", b"\x00", b"\x0e",
    b"\xc2\x9b", b"\xc2\x9d", b"\xe2\x80\xae", b"\xe2\x81\xa6", b"\xe2\x80\x8f",
]  # fmt: skip


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


def injected(got: bytes) -> list[bytes]:
    return [b for b in FORBIDDEN if b in got]


async def test_no_sequence_from_a_page_mail_or_broadcast_reaches_telnet_or_ssh(
    tmp_path: Path,
) -> None:
    app = App(make_config(tmp_path))
    await app.start(telnet_port=0, ssh_port=0, rlogin_port=None)
    try:
        acc = app.services.accounts
        sender = await acc.register("mallory", "mallory-pw")
        await acc.set_sysop("mallory", True)
        carol = await acc.register("carol", "carol-pw")
        dave = await acc.register("dave", "dave-pw")
        await acc.update_settings(carol.id, charset="cp437")
        for to in ("carol", "dave"):
            await app.services.mail.send(sender.id, to, "x" + HOSTILE, "body " + HOSTILE)

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
            for user in (carol, dave):
                await app.services.presence.page(sender.id, "mallory", user.id, HOSTILE + "hi")
            got_t = await drain(t_reader, 0.5)
            got_s = await drain(proc.stdout, 0.3)
            await app.services.sysop.broadcast(sender.id, "all " + HOSTILE)
            got_t += await drain(t_reader, 0.5)
            got_s += await drain(proc.stdout, 0.3)
            for got, codec in ((got_t, "cp437"), (got_s, "utf-8")):
                screen = pyte.Screen(80, 24)
                pyte.Stream(screen).feed(got.decode(codec))
                assert "Sysop mallory: all" in "\n".join(screen.display), codec
            for w in (t_writer, proc.stdin):
                w.write(b"m")
            got_t += await drain(t_reader, 1.0)
            got_s += await drain(proc.stdout, 0.3)
            for w in (t_writer, proc.stdin):
                w.write(b"\r")  # open the message: its body too
            got_t += await drain(t_reader, 1.0)
            got_s += await drain(proc.stdout, 0.5)
            proc.stdin.write(b"qqg")
        t_writer.write(b"qqg")
        t_writer.close()
        # the messages arrived (as text), and nothing of their sequences did
        assert b"Page from mallory" in got_t and b"Page from mallory" in got_s
        assert b"body" in got_t and b"body" in got_s
        assert b"evil" in got_t and b"evil" in got_s
        assert injected(got_t) == [], "telnet/CP437"
        assert injected(got_s) == [], "SSH/UTF-8"
    finally:
        await app.shutdown()
