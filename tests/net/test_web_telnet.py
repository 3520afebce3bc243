"""Telnet inside a WebSocket (fTelnet's ``binary`` and ``plain`` subprotocols): negotiation
through door's telnet protocol, the window size and the encoding it settles, keys, limits."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import replace
from typing import Any

import aiohttp
import pytest

from door.app import connection_settings
from door.config import Config
from door.net.limits import ConnectionLimiter
from door.net.web import WebServer, WebSettings, start_web
from door.ui.terminal import Hangup, Terminal

IAC, WILL, WONT, DO, DONT, SB, SE = 255, 251, 252, 253, 254, 250, 240
BINARY, ECHO, SGA, TTYPE, NAWS = 0, 1, 3, 24, 31
IS, SEND = 0, 1


async def echo(terminal: Terminal) -> None:
    caps = terminal.caps
    terminal.write(f"READY {caps.encoding} {caps.width}x{caps.height} {caps.term} │\r\n")
    await terminal.drain()
    while True:
        event = await terminal.read_event()
        terminal.write(f"EVENT {event!r}\r\n")
        await terminal.drain()
        if isinstance(event, Hangup):
            return


Starter = Callable[..., Awaitable[WebServer]]


@pytest.fixture
async def web_server() -> AsyncIterator[Starter]:
    servers: list[WebServer] = []

    async def start(**kw: Any) -> WebServer:
        limiter = kw.pop("limiter", None)
        connection = replace(connection_settings(Config()), probe_timeout=0.3)
        settings = WebSettings(connection, negotiation_wait=kw.pop("negotiation_wait", 0.5))
        server = await start_web("127.0.0.1", 0, echo, settings=settings, limiter=limiter)
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.close()
        await server.wait_closed()


class TelnetOverWs:
    """A telnet client speaking through a WebSocket: it answers the server's options
    (WILL NAWS with its size, WILL TTYPE with its type, BINARY, SGA; refuses the rest)
    and keeps the data, without the IAC sequences, in ``data``."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse, *, plain: bool, term: str,
                 cols: int, rows: int) -> None:
        self.ws = ws
        self.plain = plain
        self.term = term
        self.size = (cols, rows)
        self.data = bytearray()
        self.received = asyncio.Event()
        self.raw_messages: list[Any] = []
        self._buf = bytearray()
        self.task = asyncio.create_task(self._read())

    async def send(self, data: bytes) -> None:
        if self.plain:
            await self.ws.send_str(data.decode("latin-1"))
        else:
            await self.ws.send_bytes(data)

    async def _read(self) -> None:
        while True:
            msg = await self.ws.receive()
            if msg.type is aiohttp.WSMsgType.TEXT:
                self.raw_messages.append(msg.data)
                chunk = str(msg.data).encode("latin-1")
            elif msg.type is aiohttp.WSMsgType.BINARY:
                self.raw_messages.append(msg.data)
                chunk = bytes(msg.data)
            else:
                return
            await self._feed(chunk)
            self.received.set()

    async def _feed(self, chunk: bytes) -> None:
        self._buf += chunk
        buf = self._buf
        i = 0
        while i < len(buf):
            b = buf[i]
            if b != IAC:
                self.data.append(b)
                i += 1
                continue
            if i + 1 >= len(buf):
                break
            cmd = buf[i + 1]
            if cmd == IAC:
                self.data.append(IAC)
                i += 2
            elif cmd in (DO, DONT, WILL, WONT):
                if i + 2 >= len(buf):
                    break
                await self._answer(cmd, buf[i + 2])
                i += 3
            elif cmd == SB:
                end = buf.find(bytes([IAC, SE]), i)
                if end < 0:
                    break
                await self._subneg(bytes(buf[i + 2 : end]))
                i = end + 2
            else:
                i += 2
        del buf[:i]

    async def _answer(self, cmd: int, opt: int) -> None:
        if cmd == DO:
            ok = opt in (NAWS, TTYPE, BINARY, SGA)
            await self.send(bytes([IAC, WILL if ok else WONT, opt]))
            if ok and opt == NAWS:
                cols, rows = self.size
                await self.send(bytes([IAC, SB, NAWS, cols >> 8, cols & 255, rows >> 8,
                                       rows & 255, IAC, SE]))
        elif cmd == WILL:
            ok = opt in (ECHO, SGA, BINARY)
            await self.send(bytes([IAC, DO if ok else DONT, opt]))

    async def _subneg(self, body: bytes) -> None:
        if body[:2] == bytes([TTYPE, SEND]):
            await self.send(bytes([IAC, SB, TTYPE, IS]) + self.term.encode() + bytes([IAC, SE]))

    async def expect(self, needle: bytes, timeout: float = 5.0) -> bytes:
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while needle not in self.data:
            left = end - loop.time()
            if left <= 0 or self.task.done():
                raise AssertionError(f"{needle!r} not received; got {bytes(self.data)[-300:]!r}")
            self.received.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.received.wait(), min(left, 0.1))
        return bytes(self.data)

    async def close(self) -> None:
        await self.ws.close()
        self.task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self.task


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as session:
        yield session


async def connect(http: aiohttp.ClientSession, server: WebServer, protocol: str, *,
                  term: str = "xterm-256color", cols: int = 100, rows: int = 30) -> TelnetOverWs:
    ws = await http.ws_connect(f"ws://127.0.0.1:{server.port}/ws", protocols=(protocol,))
    assert ws.protocol == protocol
    return TelnetOverWs(ws, plain=protocol == "plain", term=term, cols=cols, rows=rows)


@pytest.mark.parametrize("protocol", ["binary", "plain"])
async def test_the_window_size_from_naws_is_the_sessions_size(
    web_server: Starter, http: aiohttp.ClientSession, protocol: str
) -> None:
    server = await web_server()
    client = await connect(http, server, protocol, cols=100, rows=30)
    got = await client.expect(b"READY")
    await client.expect(b"\r\n")
    assert b"100x30" in got.split(b"READY", 1)[1]
    await client.close()


@pytest.mark.parametrize("protocol", ["binary", "plain"])
async def test_a_unix_terminal_type_gets_utf8_and_a_bbs_one_cp437(
    web_server: Starter, http: aiohttp.ClientSession, protocol: str
) -> None:
    server = await web_server()
    unix = await connect(http, server, protocol, term="xterm-256color")
    bbs = await connect(http, server, protocol, term="ansi")
    got_unix = await unix.expect(b"\xe2\x94\x82")  # the box-drawing bar, as UTF-8
    got_bbs = await bbs.expect(b"READY cp437")
    await bbs.expect(b"\xb3")  # the box-drawing bar, as CP437
    assert b"READY utf-8 100x30 xterm-256color" in got_unix
    assert b"READY cp437 100x30 ansi" in got_bbs
    await unix.close()
    await bbs.close()


async def test_plain_carries_one_byte_per_character_in_text_messages(
    web_server: Starter, http: aiohttp.ClientSession
) -> None:
    server = await web_server()
    client = await connect(http, server, "plain", term="ansi")
    await client.expect(b"\xb3")
    assert client.raw_messages and all(isinstance(m, str) for m in client.raw_messages)
    assert any("\xb3" in m for m in client.raw_messages)  # the byte 0xB3 as U+00B3
    await client.close()


async def test_binary_carries_binary_messages(
    web_server: Starter, http: aiohttp.ClientSession
) -> None:
    server = await web_server()
    client = await connect(http, server, "binary")
    await client.expect(b"READY")
    assert client.raw_messages and all(isinstance(m, bytes) for m in client.raw_messages)
    await client.close()


@pytest.mark.parametrize("protocol", ["binary", "plain"])
async def test_keys_and_a_new_window_size_reach_the_session(
    web_server: Starter, http: aiohttp.ClientSession, protocol: str
) -> None:
    server = await web_server()
    client = await connect(http, server, protocol)
    await client.expect(b"READY")
    await client.send(b"hi\x1b[A")
    await client.expect(b"EVENT Text(text='hi')")
    await client.expect(b"EVENT Key(name='up')")
    await client.send(bytes([IAC, SB, NAWS, 0, 120, 0, 40, IAC, SE]))
    await client.expect(b"EVENT Resize(width=120, height=40)")
    await client.close()


async def test_a_key_of_0xff_arrives_once_doubled_iac_undone(
    web_server: Starter, http: aiohttp.ClientSession
) -> None:
    server = await web_server()
    client = await connect(http, server, "binary", term="ansi")
    await client.expect(b"READY cp437")
    await client.send(bytes([IAC, IAC]))  # 0xFF is CP437's non-breaking space
    await client.expect(b"EVENT Text(text='\\xa0')")
    await client.close()


async def test_a_client_that_never_negotiates_still_gets_a_session(
    web_server: Starter, http: aiohttp.ClientSession
) -> None:
    server = await web_server(negotiation_wait=0.3)
    ws = await http.ws_connect(f"ws://127.0.0.1:{server.port}/ws", protocols=("binary",))
    data = b""
    while b"READY" not in data:
        msg = await asyncio.wait_for(ws.receive(), 5)
        assert msg.type is aiohttp.WSMsgType.BINARY
        data += msg.data
    assert b"READY cp437 80x24" in data
    await ws.close()


async def test_closing_the_websocket_hangs_the_session_up(
    web_server: Starter, http: aiohttp.ClientSession
) -> None:
    seen: list[Terminal] = []
    ended = asyncio.Event()

    async def handler(terminal: Terminal) -> None:
        seen.append(terminal)
        while not isinstance(await terminal.read_event(), Hangup):
            pass
        ended.set()

    connection = replace(connection_settings(Config()), probe_timeout=0.3)
    server = await start_web("127.0.0.1", 0, handler,
                             settings=WebSettings(connection, negotiation_wait=0.3))
    try:
        client = await connect(http, server, "binary")
        for _ in range(100):
            if seen:
                break
            await asyncio.sleep(0.05)
        await client.close()
        await asyncio.wait_for(ended.wait(), 5)
    finally:
        server.close()
        await server.wait_closed()


async def test_the_per_address_limit_holds_for_telnet_in_a_websocket(
    web_server: Starter, http: aiohttp.ClientSession
) -> None:
    limiter = ConnectionLimiter(100, 1)
    server = await web_server(limiter=limiter)
    first = await connect(http, server, "binary")
    await first.expect(b"READY")
    second = await connect(http, server, "binary")
    await second.expect(b"Too many connections from your address")
    await asyncio.wait_for(second.task, 5)  # and it is closed
    assert limiter.total == 1
    await first.close()
    for _ in range(100):
        if limiter.total == 0:
            break
        await asyncio.sleep(0.05)
    assert limiter.total == 0
