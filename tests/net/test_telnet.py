"""Telnet: negotiation with real and hostile clients, input decoding, resize, limits."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import replace
from typing import Any

import pytest
import telnetlib3
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from door.app import connection_settings
from door.config import Config
from door.net.limits import ConnectionLimiter
from door.net.telnet import TelnetSettings, start_telnet
from door.ui.terminal import Hangup, Terminal
from tests.net.conftest import expect

IAC, WILL, WONT, DO, DONT, SB, SE = 255, 251, 252, 253, 254, 250, 240
NAWS, TTYPE = 31, 24


async def echo(terminal: Terminal) -> None:
    caps = terminal.caps
    terminal.write(f"READY {caps.encoding} {caps.width}x{caps.height} {caps.term}\r\n")
    await terminal.drain()
    while True:
        event = await terminal.read_event()
        terminal.write(f"EVENT {event!r}\r\n")
        await terminal.drain()
        if isinstance(event, Hangup):
            return


Starter = Callable[..., Awaitable[int]]


@pytest.fixture
async def telnet_server() -> AsyncIterator[Starter]:
    servers: list[asyncio.Server] = []

    async def start(handler: Callable[[Any], Awaitable[None]] = echo, **kw: Any) -> int:
        limiter = kw.pop("limiter", None)
        negotiation_wait = kw.pop("negotiation_wait", 0.3)
        opts: dict[str, Any] = dict(probe_timeout=0.3)
        opts.update(kw)
        connection = replace(connection_settings(Config()), **opts)
        settings = TelnetSettings(connection, negotiation_wait=negotiation_wait)
        server = await start_telnet("127.0.0.1", 0, handler, settings=settings, limiter=limiter)
        servers.append(server)
        return int(server.sockets[0].getsockname()[1])

    yield start
    for server in servers:
        server.close()


async def tl3_client(port: int, **kw: Any) -> tuple[Any, Any]:
    opts: dict[str, Any] = dict(encoding=False, term="xterm-256color", cols=100, rows=30,
                                connect_minwait=0.05, connect_maxwait=1.0)
    opts.update(kw)
    return await telnetlib3.open_connection("127.0.0.1", port, **opts)


async def test_client_that_never_answers_negotiation_gets_a_session_within_2s(
    telnet_server: Starter,
) -> None:
    port = await telnet_server(negotiation_wait=1.5)
    started = time.monotonic()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    await expect(reader, "READY", timeout=3)
    assert time.monotonic() - started < 2.0
    writer.close()


async def test_silent_client_gets_cp437_at_80x24(telnet_server: Starter) -> None:
    port = await telnet_server()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    assert b"READY cp437 80x24 unknown" in await expect(reader, "unknown")
    writer.close()


async def test_telnetlib3_client_type_and_size_are_used(telnet_server: Starter) -> None:
    port = await telnet_server()
    reader, writer = await tl3_client(port)
    assert b"READY utf-8 100x30 xterm-256color" in await expect(reader, "xterm-256color")
    writer.close()


async def answering_client(port: int, ttype: bytes, cpr_replies: list[bytes]) -> bytes:
    """A raw client that answers TTYPE with ``ttype``, refuses NAWS and answers each
    cursor-position request with the next of ``cpr_replies``; what it saw up to READY."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    seen = b""
    replies = list(cpr_replies)
    try:
        while b"READY" not in seen:
            chunk = await asyncio.wait_for(reader.read(4096), 5)
            if not chunk:
                break
            seen += chunk
            if bytes([IAC, DO, TTYPE]) in chunk:
                writer.write(bytes([IAC, WILL, TTYPE]))
            if bytes([IAC, SB, TTYPE, 1, IAC, SE]) in chunk:
                writer.write(bytes([IAC, SB, TTYPE, 0]) + ttype + bytes([IAC, SE]))
            if bytes([IAC, DO, NAWS]) in chunk:
                writer.write(bytes([IAC, WONT, NAWS]))
            for _ in range(chunk.count(b"\x1b[6n")):
                if replies:
                    writer.write(replies.pop(0))
        seen += await expect(reader, "\r\n", timeout=2) if b"READY" not in seen[-80:] else b""
    finally:
        writer.close()
    return seen


async def test_unknown_type_is_probed_utf8_terminal_reports_column_1(
    telnet_server: Starter,
) -> None:
    port = await telnet_server(probe_timeout=2.0)
    seen = await answering_client(port, b"FOOTERM", [b"\x1b[30;100R", b"\x1b[5;1R"])
    assert b"READY utf-8 100x30 footerm" in seen


async def test_unknown_type_is_probed_cp437_terminal_reports_column_4(
    telnet_server: Starter,
) -> None:
    port = await telnet_server(probe_timeout=2.0)
    seen = await answering_client(port, b"FOOTERM", [b"\x1b[25;80R", b"\x1b[25;4R"])
    assert b"READY cp437 80x25 footerm" in seen


async def test_probe_without_answers_falls_back_after_the_timeout(
    telnet_server: Starter,
) -> None:
    port = await telnet_server(probe_timeout=0.3)
    seen = await answering_client(port, b"FOOTERM", [])
    assert b"READY cp437 80x24 footerm" in seen


async def test_syncterm_type_means_cp437(telnet_server: Starter) -> None:
    port = await telnet_server()
    reader, writer = await tl3_client(port, term="syncterm")
    assert b"READY cp437 100x30 syncterm" in await expect(reader, "syncterm")
    writer.close()


async def test_syncterm_delete_key_is_delete(telnet_server: Starter) -> None:
    port = await telnet_server()
    reader, writer = await tl3_client(port, term="syncterm")
    await expect(reader, "READY")
    writer.write(b"\x7f\x08")
    got = await expect(reader, "Key(name='backspace')")
    assert b"Key(name='delete')" in got
    writer.close()


async def test_naws_resize_mid_session_is_a_resize_event(telnet_server: Starter) -> None:
    port = await telnet_server()
    reader, writer = await tl3_client(port)
    await expect(reader, "READY")
    writer.send_iac(bytes([IAC, SB, NAWS, 0, 132, 0, 50, IAC, SE]))
    assert b"Resize(width=132, height=50)" in await expect(reader, "Resize")
    writer.close()


async def test_arrow_key_through_telnet_is_one_key(telnet_server: Starter) -> None:
    port = await telnet_server()
    reader, writer = await tl3_client(port)
    await expect(reader, "READY")
    writer.write(b"\x1b[A")
    assert b"Key(name='up')" in await expect(reader, "Key(")
    writer.close()


@pytest.mark.parametrize("enter", [b"\r", b"\r\n", b"\r\x00", b"\n"])
async def test_every_enter_variant_is_one_enter_over_telnet(
    telnet_server: Starter, enter: bytes
) -> None:
    port = await telnet_server()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    await expect(reader, "READY")
    writer.write(b"a" + enter + b"b")
    got = await expect(reader, "Text(text='b')")
    assert got.count(b"Key(name='enter')") == 1
    writer.close()


async def test_non_ascii_key_before_binary_does_not_end_the_session(
    telnet_server: Starter,
) -> None:
    port = await telnet_server()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    await expect(reader, "READY")
    writer.write(b"\xe9\xff\xffz")
    got = await expect(reader, "z')")
    assert b"EVENT Text" in got
    writer.write(b"y")
    await expect(reader, "Text(text='y')")
    writer.close()


async def test_byte_ff_is_doubled_on_output(telnet_server: Starter) -> None:
    async def nbsp(terminal: Terminal) -> None:
        terminal.set_encoding("cp437")
        terminal.write("[\u00a0]")  # CP437 0xFF
        await terminal.drain()
        await terminal.read_event()

    port = await telnet_server(nbsp)
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    assert b"[\xff\xff]" in await expect(reader, b"]")
    writer.close()


async def test_malformed_iac_does_not_harm_other_sessions(telnet_server: Starter) -> None:
    port = await telnet_server()
    good_r, good_w = await tl3_client(port)
    await expect(good_r, "READY")
    bad_r, bad_w = await asyncio.open_connection("127.0.0.1", port)
    await expect(bad_r, "READY")
    bad_w.write(bytes([IAC, SB, TTYPE, 0, IAC, IAC, IAC, SE, IAC, WILL, IAC, 7, IAC, SB]))
    bad_w.write(bytes([IAC, SB, NAWS, 1]) + b"x" * 100 + bytes([IAC, SE, IAC, 99, IAC]))
    await bad_w.drain()
    await asyncio.sleep(0.1)
    good_w.write(b"!")
    await expect(good_r, "Text(text='!')")
    bad_w.close()
    good_w.close()


async def test_unknown_options_are_refused(telnet_server: Starter) -> None:
    port = await telnet_server()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    await expect(reader, "READY")
    writer.write(bytes([IAC, DO, 34, IAC, WILL, 99]))  # LINEMODE, an unassigned option
    got = await expect(reader, bytes([IAC, DONT, 99]))
    assert bytes([IAC, WONT, 34]) in got
    writer.close()


async def test_idle_session_is_warned_then_hung_up(telnet_server: Starter) -> None:
    port = await telnet_server(idle_timeout=1.2, idle_warning=0.6)
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    await expect(reader, "READY")
    started = time.monotonic()
    await expect(reader, "Are you still there?", timeout=3)
    got = await expect(reader, "Hangup(reason='idle')", timeout=3)
    assert b"idle too long" in got
    assert time.monotonic() - started >= 0.9
    writer.close()


async def test_a_key_after_the_idle_warning_keeps_the_session(telnet_server: Starter) -> None:
    port = await telnet_server(idle_timeout=1.0, idle_warning=0.7)
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    await expect(reader, "READY")
    await expect(reader, "still there", timeout=3)
    writer.write(b"k")
    got = await expect(reader, "Text(text='k')")
    assert b"Resize" in got  # a full redraw to wipe the warning line
    writer.write(b"m")
    await expect(reader, "Text(text='m')")
    writer.close()


async def test_connections_over_the_per_address_limit_are_refused(
    telnet_server: Starter,
) -> None:
    port = await telnet_server(limiter=ConnectionLimiter(max_total=10, max_per_address=1))
    r1, w1 = await asyncio.open_connection("127.0.0.1", port)
    await expect(r1, "READY")
    r2, w2 = await asyncio.open_connection("127.0.0.1", port)
    assert b"Too many connections" in await expect(r2, "Too many")
    assert await asyncio.wait_for(r2.read(), 2) == b""
    w1.close()
    await asyncio.sleep(0.1)
    r3, w3 = await asyncio.open_connection("127.0.0.1", port)
    await expect(r3, "READY")
    w2.close()
    w3.close()


async def test_input_buffered_per_session_is_bounded(telnet_server: Starter) -> None:
    held: list[int] = []

    async def slow(terminal: Any) -> None:
        terminal.write("READY\r\n")
        await terminal.drain()
        await asyncio.sleep(0.8)  # the far end floods while the session is busy
        held.append(len(terminal._reader._buffer))
        event = await terminal.read_event(timeout=0.3)
        held.append(len(getattr(event, "text", "")))

    port = await telnet_server(slow, max_buffer=4096)
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    await expect(reader, "READY")
    writer.write(b"x" * 1_000_000)
    for _ in range(50):
        if len(held) == 2:
            break
        await asyncio.sleep(0.1)
    assert len(held) == 2
    assert held[0] <= 4096 + 262144  # reading pauses past the limit (+ one socket read)
    assert 0 < held[1] <= 4096
    writer.close()


async def test_a_flood_is_delivered_in_full_once_the_session_catches_up(
    telnet_server: Starter,
) -> None:
    counted: list[int] = []

    async def slow(terminal: Any) -> None:
        terminal.write("READY\r\n")
        await terminal.drain()
        await asyncio.sleep(0.5)
        total = 0
        while total < 300_000:
            event = await terminal.read_event(timeout=3)
            if event is None or isinstance(event, Hangup):
                break
            total += len(getattr(event, "text", ""))
        counted.append(total)

    port = await telnet_server(slow, max_buffer=4096)
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    await expect(reader, "READY")
    writer.write(b"x" * 300_000)
    for _ in range(100):
        if counted:
            break
        await asyncio.sleep(0.1)
    assert counted == [300_000]
    writer.close()


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(junk=st.lists(st.binary(min_size=1, max_size=64), min_size=1, max_size=5))
async def test_fuzz_random_bytes_never_break_the_server(
    telnet_server: Starter, junk: list[bytes], caplog: pytest.LogCaptureFixture
) -> None:
    port = await fuzz_port(telnet_server)
    bystander_r, bystander_w = await tl3_client(port)
    await expect(bystander_r, "READY")
    _, writer = await asyncio.open_connection("127.0.0.1", port)
    for chunk in junk:
        writer.write(chunk)
        await writer.drain()
    writer.close()
    bystander_w.write(b"k")
    await expect(bystander_r, "Text(text='k')")
    bystander_w.close()
    assert not [r for r in caplog.records if r.levelname in ("ERROR", "CRITICAL")]


async def fuzz_port(start: Starter) -> int:
    # One server for all of hypothesis' examples: it is the fixture's, so it is closed
    # when the test ends.
    port: int | None = getattr(start, "fuzz_port", None)
    if port is None:
        port = await start()
        start.fuzz_port = port  # type: ignore[attr-defined]
    return port
