"""Telnet: hostile negotiation, floods, pastes, bad bytes and half-finished logins.

Each case runs against the real server with a well-behaved bystander logged in at the
main menu; afterwards the bystander still gets an answer to a keystroke, the server
logged no error, and nothing in the database was lost or invented.
"""

from __future__ import annotations

import asyncio
import random
import socket
import time
from pathlib import Path
from typing import Any

import telnetlib3

from door.app import App
from door.net.login import BAD_LOGIN
from door.services import Services
from door.ui.keys import KeyDecoder
from door.ui.terminal import Text
from tests.badinput.conftest import (
    PASSWORD,
    Bystander,
    Screen,
    closed_or_prompt,
    raw_telnet,
    send,
    telnet_login,
    user_names,
    wait_slots,
)
from tests.net.conftest import expect

IAC, DONT, DO, WONT, WILL, SB, SE, NOP = 255, 254, 253, 252, 251, 250, 240, 241
NAWS, TTYPE, IS = 31, 24, 0


async def logged_in(app: App, name: str) -> tuple[Screen, Any]:
    """A second telnet player ``name`` at the main menu (screen, writer)."""
    assert app.services is not None
    await app.services.accounts.register(name, PASSWORD)
    reader, writer = await telnet_login(app, name, PASSWORD)
    screen = Screen(reader)
    await screen.wait_for("Main Menu")
    return screen, writer


# --- negotiation -----------------------------------------------------------------------


async def test_iac_nop_flood_leaves_the_flooder_and_others_served(
    server: App, bystander: Bystander
) -> None:
    reader, writer = await raw_telnet(server)
    await expect(reader, "Name: ")
    flood = asyncio.ensure_future(send(writer, bytes([IAC, NOP]) * 1_000_000))
    await asyncio.sleep(0.2)
    started = time.monotonic()
    await bystander.poke(timeout=5)  # answered while the 2 MB are still being parsed
    # telnetlib3 parses IAC at ~4 µs a byte: without slicing, one 256 KiB read holds the
    # loop for a second, and a keystroke round trip that needs several turns takes seconds.
    assert time.monotonic() - started < 2.0
    assert await flood
    writer.write(b"zq")
    await expect(reader, "zq", timeout=15)  # the flooder's own prompt still echoes
    writer.close()
    await bystander.poke()


async def test_flood_of_unknown_option_requests_is_refused_and_the_prompt_survives(
    server: App, bystander: Bystander
) -> None:
    reader, writer = await raw_telnet(server)
    await expect(reader, "Name: ")
    assert await send(writer, bytes([IAC, DO, 99, IAC, WILL, 98, IAC, 7]) * 20_000)
    await bystander.poke(timeout=5)
    writer.write(b"ok")
    got = await expect(reader, "ok", timeout=15)
    assert bytes([IAC, WONT, 99]) in got and bytes([IAC, DONT, 98]) in got
    writer.close()
    await bystander.poke()


async def test_sb_without_se_is_closed_cleanly(server: App, bystander: Bystander) -> None:
    reader, writer = await raw_telnet(server)
    await expect(reader, "Name: ")
    flood = asyncio.ensure_future(send(writer, bytes([IAC, SB, TTYPE, IS]) + b"x" * 5_000_000))
    await bystander.poke(timeout=5)
    # The server says "Malformed telnet input" and closes; with the flood still unread
    # in its socket the close may arrive as a reset, so only the close is certain.
    await closed_or_prompt(reader, b"never arrives", timeout=15)
    assert await flood is False
    writer.close()
    await wait_slots(server, 1)
    await bystander.poke()


async def test_short_unterminated_sb_then_hangup_is_clean(
    server: App, bystander: Bystander
) -> None:
    reader, writer = await raw_telnet(server)
    await expect(reader, "Name: ")
    writer.write(bytes([IAC, SB, NAWS, 0, 80]))
    await writer.drain()
    writer.close()
    await wait_slots(server, 1)
    await bystander.poke()


async def test_naws_0x0_falls_back_to_80x24_and_the_session_goes_on(
    server: App, bystander: Bystander
) -> None:
    screen, writer = await logged_in(server, "Mallory")
    writer.send_iac(bytes([IAC, SB, NAWS, 0, 0, 0, 0, IAC, SE]))
    writer.write(b"s")
    await screen.wait_for("Sound effects are OFF")
    assert "Main Menu" in screen.text()
    writer.close()
    await screen.stop()
    await bystander.poke()


async def test_naws_65535x65535_is_clamped_and_costs_no_giant_redraw(
    server: App, bystander: Bystander
) -> None:
    screen, writer = await logged_in(server, "Mallory")
    before = len(screen.raw)
    writer.send_iac(bytes([IAC, SB, NAWS, 255, 255, 255, 255, 255, 255, 255, 255, IAC, SE]))
    writer.write(b"s")
    await screen.wait_for("Sound effects are OFF")
    # A 65535-column screen would be gigabytes of cells; the clamp keeps it a screenful.
    assert len(screen.raw) - before < 64_000
    writer.close()
    await screen.stop()
    await bystander.poke()


async def test_client_that_disconnects_mid_negotiation_releases_its_slot(
    server: App, bystander: Bystander
) -> None:
    for cut in (b"", bytes([IAC]), bytes([IAC, WILL]), bytes([IAC, SB, TTYPE, IS]) + b"xte"):
        _, writer = await raw_telnet(server)
        writer.write(cut)
        writer.close()
    await wait_slots(server, 1)
    await bystander.poke()


# --- the login prompt ------------------------------------------------------------------


async def test_huge_line_at_the_name_prompt_is_cut_to_the_line_limit(
    server: App, bystander: Bystander
) -> None:
    reader, writer = await raw_telnet(server)
    await expect(reader, "Name: ")
    assert await send(writer, b"n" * 200_000 + b"\r")
    got = await expect(reader, "Password: ", timeout=15)
    echoed = got.split(b"Name: ")[-1].count(b"n")
    assert echoed == server.config.limits.max_line
    assert b"\x07" in got  # the bell says the rest was dropped
    writer.write(b"whatever\r")
    await expect(reader, BAD_LOGIN, timeout=10)
    writer.close()
    await bystander.poke()


async def test_ten_megabyte_paste_at_the_name_prompt_loses_the_session_nothing(
    server: App, bystander: Bystander
) -> None:
    reader, writer = await raw_telnet(server)
    await expect(reader, "Name: ")
    started = time.monotonic()
    paste = asyncio.ensure_future(send(writer, b"p" * 10_000_000 + b"\r"))
    await bystander.poke(timeout=5)  # served while the paste streams in
    assert await paste
    await expect(reader, "Password: ", timeout=30)
    assert time.monotonic() - started < 30
    writer.write(b"x\r")
    await expect(reader, BAD_LOGIN, timeout=10)
    writer.close()
    await bystander.poke()


def test_a_ten_megabyte_paste_decodes_in_well_under_a_second_of_loop_time() -> None:
    # The decoder used to walk a paste a character at a time (13 s for 10 MB, all of it
    # holding the event loop in 4 KiB steps); runs of plain text are now taken whole.
    decoder = KeyDecoder("utf-8")
    chunk = b"paste " * 700  # 4200 bytes, about one socket read
    started = time.monotonic()
    total = 0
    for _ in range(10_000_000 // len(chunk)):
        total += sum(len(e.text) for e in decoder.feed(chunk) if isinstance(e, Text))
    assert total == (10_000_000 // len(chunk)) * len(chunk)
    assert time.monotonic() - started < 3.0


async def test_ten_megabyte_paste_into_the_main_menu_is_absorbed(
    server: App, bystander: Bystander
) -> None:
    screen, writer = await logged_in(server, "Mallory")
    writer.write(b"z" * 10_000_000)  # no menu letter: nothing to do but read it
    await bystander.poke(timeout=5)
    await writer.drain()
    writer.write(b"\x0cs")  # a key after the paste, on its own (not inside pasted text)
    await screen.wait_for("Sound effects are OFF", timeout=20)
    writer.close()
    await screen.stop()
    await bystander.poke()


async def test_invalid_utf8_in_a_name_is_a_failed_login_not_a_crash(
    server: App, bystander: Bystander
) -> None:
    reader, writer = await telnetlib3.open_connection(
        "127.0.0.1", server.ports["telnet"], encoding=False, term="xterm-256color",
        connect_minwait=0.05,
    )  # fmt: skip
    await expect(reader, "Name: ")
    writer.write(b"\xc3\x28\xff\xfe\x80\xed\xa0\x80bob\r")
    await expect(reader, "Password: ")
    writer.write(b"\xf0\x28\x8c\xbc\r")
    await expect(reader, BAD_LOGIN, timeout=10)
    writer.close()
    assert await user_names(server) == {"Watcher"}
    await bystander.poke()


async def test_nul_bytes_in_a_new_name_are_dropped(server: App, bystander: Bystander) -> None:
    reader, writer = await raw_telnet(server)
    await expect(reader, "Name: ")
    writer.write(b"new\r")
    await expect(reader, "Choose a name: ")
    writer.write(b"\x00Nu\x00\x00ll\x00\r")
    await expect(reader, "Choose a password: ")
    writer.write(b"pw\x00pw\x00\rpw\x00pw\x00\r")
    await expect(reader, "Main Menu", timeout=10)
    writer.close()
    assert await user_names(server) == {"Watcher", "Null"}
    await bystander.poke()


async def test_ansi_escapes_in_a_new_name_never_reach_the_database(
    server: App, bystander: Bystander
) -> None:
    reader, writer = await raw_telnet(server)
    await expect(reader, "Name: ")
    writer.write(b"new\r")
    await expect(reader, "Choose a name: ")
    writer.write(b"\x1b[2J\x1b[31mRe\x1b[1;1Hd\x1b[0m\x07\x0e\r")
    await expect(reader, "Choose a password: ")
    writer.write(b"secret\rsecret\r")
    await expect(reader, "Main Menu", timeout=10)
    writer.close()
    names = await user_names(server) - {"Watcher"}
    assert len(names) == 1
    (name,) = names
    assert name.isprintable() and "\x1b" not in name and "Red" in name
    await bystander.poke()


async def test_an_unknown_escape_sequence_at_registration_backs_out_creating_nothing(
    server: App, bystander: Bystander
) -> None:
    reader, writer = await raw_telnet(server)
    await expect(reader, "Name: ")
    writer.write(b"new\r")
    await expect(reader, "Choose a name: ")
    writer.write(b"\x1b]0;pwned\x07")  # OSC (set window title): ESC is read as Escape
    await expect(reader, "Name: ")
    writer.close()
    await wait_slots(server, 1)
    assert await user_names(server) == {"Watcher"}
    await bystander.poke()


async def test_over_long_name_at_registration_is_refused_with_the_rule(
    server: App, bystander: Bystander
) -> None:
    reader, writer = await raw_telnet(server)
    await expect(reader, "Name: ")
    writer.write(b"new\r")
    await expect(reader, "Choose a name: ")
    writer.write(b"L" * 40 + b"\rpw12\rpw12\r")
    got = await expect(reader, "Choose a name: ")
    assert b"Sorry: a name must be 2 to 20 characters long" in got
    writer.close()
    assert await user_names(server) == {"Watcher"}
    await bystander.poke()


async def test_sql_metacharacters_in_a_name_are_only_text(
    server: App, bystander: Bystander
) -> None:
    evil = "x'); DROP TABLE u;--"
    reader, writer = await raw_telnet(server)
    await expect(reader, "Name: ")
    writer.write(b"new\r")
    await expect(reader, "Choose a name: ")
    writer.write(evil.encode() + b"\rpw12\rpw12\r")
    await expect(reader, "Main Menu", timeout=10)
    writer.close()
    assert await user_names(server) == {"Watcher", evil}
    reader, writer = await telnet_login(server, evil, "pw12")
    await expect(reader, "Main Menu", timeout=10)
    writer.close()
    await bystander.poke()


async def test_sql_injection_at_the_login_prompt_is_a_failed_login(
    server: App, bystander: Bystander
) -> None:
    reader, writer = await raw_telnet(server)
    await expect(reader, "Name: ")
    writer.write(b"Watcher' --\r")
    await expect(reader, "Password: ")
    writer.write(b"' OR '1'='1\r")
    got = await expect(reader, BAD_LOGIN, timeout=10)
    assert b"Main Menu" not in got
    writer.close()
    await bystander.poke()


async def test_hangup_in_the_middle_of_registration_creates_nothing(
    server: App, bystander: Bystander
) -> None:
    reader, writer = await raw_telnet(server)
    await expect(reader, "Name: ")
    writer.write(b"new\r")
    await expect(reader, "Choose a name: ")
    writer.write(b"Halfway\r")
    await expect(reader, "Choose a password: ")
    writer.write(b"secret\r")
    await expect(reader, "again: ")
    writer.close()
    await wait_slots(server, 1)
    assert await user_names(server) == {"Watcher"}
    await bystander.poke()


async def test_random_binary_garbage_at_the_prompt_is_survived(
    server: App, bystander: Bystander
) -> None:
    rng = random.Random(2026)
    for _ in range(3):
        reader, writer = await raw_telnet(server)
        await expect(reader, "Name: ")
        await send(writer, rng.randbytes(200_000))
        writer.close()
    await wait_slots(server, 1)
    await bystander.poke()


async def test_client_that_stops_reading_is_not_buffered_without_bound(
    server: App, bystander: Bystander
) -> None:
    screen, writer = await logged_in(server, "Mallory")
    await screen.stop()  # from now on nobody reads what the server sends
    writer.transport.pause_reading()
    port = writer.get_extra_info("sockname")[1]
    (mallory,) = [t for t in server.sessions if t.peer.endswith(f":{port}")]
    limit = server.config.limits.max_buffer
    worst_out = worst_in = 0
    for _ in range(200):  # each Ctrl-L asks for a full redraw the client never reads
        sent = asyncio.ensure_future(send(writer, b"\x0c" * 50))
        await asyncio.wait([sent], timeout=0.05)
        worst_out = max(worst_out, mallory._output_backlog())
        worst_in = max(worst_in, len(mallory._reader._buffer))
        if not sent.done():
            sent.cancel()  # the server stopped reading: back-pressure reached the client
            break
    # The session waits for the far end instead of queueing redraws: what it holds is
    # bounded by the output cap plus one screen, and by the input limit plus one read.
    assert worst_out <= 4 * limit + 64_000
    assert worst_in <= limit + 262_144
    await bystander.poke()
    writer.close()
    await wait_slots(server, 1, timeout=10)


async def test_keys_typed_ahead_in_one_packet_are_each_handled(
    server: App, bystander: Bystander
) -> None:
    # Over a laggy link two quick key presses arrive in one TCP segment; the menu used
    # to see one Text("ss") and act on the first letter only, losing the second.
    screen, writer = await logged_in(server, "Mallory")
    writer.write(b"ss")
    await asyncio.sleep(0.5)
    writer.write(b"\x0c")
    await screen.wait_for("Sound effects: ON")
    assert server.services is not None
    user = await server.services.accounts.by_name("Mallory")
    assert user is not None and user.settings.sound is True  # toggled twice
    writer.close()
    await screen.stop()
    await bystander.poke()


async def test_a_client_that_stops_reading_for_an_idle_timeout_is_dropped(
    services: Services, tmp_path: Path
) -> None:
    # A far end that reads nothing leaves the session waiting to send; the idle timer
    # cannot run meanwhile, so the wait itself is bounded by the idle timeout — then the
    # connection is dropped and its slot given back (a polite close would never flush).
    from dataclasses import replace

    from tests.badinput.conftest import server_config

    config = server_config(tmp_path)
    config = replace(config, limits=replace(config.limits, idle_timeout_s=3, idle_warning_s=1))
    app = App(config, services=services)
    await app.start(telnet_port=0, ssh_port=None, rlogin_port=None)
    try:
        screen, writer = await logged_in(app, "Mallory")
        await screen.stop()
        writer.transport.pause_reading()
        (mallory,) = list(app.sessions)
        # Small socket buffers on both ends, so the kernel does not soak up megabytes
        # before the server's own buffer fills (the test would only take longer).
        writer.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        server_sock = mallory._writer.get_extra_info("socket")
        server_sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
        limit = app.config.limits.max_buffer
        loop = asyncio.get_running_loop()
        end = loop.time() + 30
        while mallory._output_backlog() <= limit:  # until the session waits on us
            assert loop.time() < end, "the server never filled its output buffer"
            writer.write(b"\x0c" * 20)  # full redraws nobody reads
            await asyncio.sleep(0.01)
        # From here on the client sends nothing and reads nothing, but stays connected.
        await wait_slots(app, 0, timeout=15)
        assert not app.sessions
        writer.close()
    finally:
        await app.shutdown()
