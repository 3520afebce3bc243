"""Telnet with telnetlib3, in bytes mode: character-at-a-time, BINARY, TTYPE, NAWS.

telnetlib3 does the option negotiation (WILL ECHO + WILL SGA, WILL/DO BINARY, DO TTYPE with
cycling, DO NAWS, NEW-ENVIRON after TTYPE) and IAC handling (0xFF doubled on output, IAC
IAC in → one 0xFF). We run it with ``encoding=False`` and decode the bytes ourselves, so a
non-ASCII key before BINARY cannot raise inside the library and end the session.

:func:`start_telnet` listens (with a large backlog, see notes/connection-bursts.md) and,
for each connection that passes the limits, builds a :class:`TelnetTerminal`, detects
encoding and size, then awaits ``on_terminal(terminal)``; the terminal is closed after.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import telnetlib3
from telnetlib3.telopt import NAWS

from door.net import detect
from door.net.base import BaseTerminal
from door.net.limits import ConnectionLimiter, LoginGuard
from door.ui.terminal import Caps, Resize

log = logging.getLogger(__name__)

TerminalHandler = Callable[["TelnetTerminal"], Awaitable[None]]


@dataclass(frozen=True)
class TelnetSettings:
    """Per-listener knobs (from ``[limits]``)."""

    idle_timeout: float = 900.0
    idle_warning: float = 60.0
    max_buffer: int = 65536
    negotiation_wait: float = 1.5
    probe_timeout: float = 1.0
    backlog: int = 1024


class TelnetTerminal(BaseTerminal):
    """A :class:`~door.ui.terminal.Terminal` over a telnetlib3 reader/writer pair."""

    def __init__(self, reader: Any, writer: Any, settings: TelnetSettings) -> None:
        peer = writer.get_extra_info("peername") or ("?", 0)
        super().__init__(
            caps=Caps(transport="telnet"),
            peer=f"{peer[0]}:{peer[1]}",
            idle_timeout=settings.idle_timeout,
            idle_warning=settings.idle_warning,
            max_buffer=settings.max_buffer,
        )
        self.address = str(peer[0])
        self._reader = reader
        self._writer = writer
        self._settings = settings
        self.negotiated = False
        self.lang: str | None = None

    async def _receive(self) -> bytes | Resize | None:
        try:
            data = await self._reader.read(4096)
        except (ConnectionError, OSError):
            return None
        self._writer.protocol.resume_if_drained()
        return bytes(data) if data else None

    def _send(self, data: bytes) -> None:
        # telnetlib3 doubles 0xFF (IAC) in data written through the writer.
        self._writer.write(data)

    async def _drain(self) -> None:
        await self._writer.drain()

    def _disconnect(self) -> None:
        self._writer.close()

    def _output_backlog(self) -> int:
        transport = self._writer.transport
        if transport is None:
            return 0
        return int(transport.get_write_buffer_size())

    async def detect(self) -> None:
        """Settle encoding, size and terminal type from negotiation and, if needed, a probe."""
        w = self._writer
        self.negotiated = any(w.remote_option.values()) or any(w.local_option.values())
        ttype = w.get_extra_info("TERM") or ""
        term = "" if ttype == "unknown" else str(ttype).lower()
        have_size = bool(w.remote_option.enabled(NAWS))
        width, height = detect.clamp_size(
            w.get_extra_info("cols") if have_size else None,
            w.get_extra_info("rows") if have_size else None,
        )
        self.lang = w.get_extra_info("LANG") or None
        probed = None
        # A client that never answered negotiation will not answer a probe either; known
        # terminal types with NAWS are trusted as they are (saves a round trip).
        if self.negotiated and detect.wants_probe(term, have_size):
            probed, pw, ph = await self.detect_by_probe(self._settings.probe_timeout)
            if not have_size and pw is not None and ph is not None:
                width, height = detect.clamp_size(pw, ph)
        encoding = detect.decide_encoding(probe=probed, lang=self.lang, term=term)
        self.set_caps(
            Caps(
                encoding=encoding,
                colors=16,
                width=width,
                height=height,
                term=term or "unknown",
                transport="telnet",
            )
        )


class DoorTelnetServer(telnetlib3.TelnetServer):
    """telnetlib3's server protocol plus limits, resize events and a safe NEW-ENVIRON."""

    limiter: ConnectionLimiter | None = None
    guard: LoginGuard | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.door_terminal: TelnetTerminal | None = None
        self._address: str | None = None
        self._refused = False
        self._max_buffer = int(kwargs.get("limit") or 65536)
        self._paused = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        peer = transport.get_extra_info("peername") or ("?", 0)
        address = str(peer[0])
        reason: str | None = None
        if self.guard is not None:
            blocked = self.guard.blocked_for(address)
            if blocked > 0:
                minutes = max(1, round(blocked / 60))
                reason = (
                    "Too many failed logins from your address. "
                    f"Try again in {minutes} minute{'s' if minutes != 1 else ''}."
                )
        if reason is None and self.limiter is not None:
            reason = self.limiter.try_acquire(address)
            if reason is None:
                self._address = address
        if reason is not None:
            self._refused = True
            with contextlib.suppress(Exception):
                transport.write(reason.encode("ascii", "replace") + b"\r\n")  # type: ignore[attr-defined]
            transport.close()
            return
        super().connection_made(transport)

    def data_received(self, data: bytes) -> None:
        if self._refused:
            return
        try:
            super().data_received(data)
        except Exception:  # malformed telnet must not take the server with it
            log.exception("bad telnet input from %s; closing", self._address)
            if self._transport is not None:
                self._transport.close()
            return
        # telnetlib3's reader buffers without bound: stop reading the socket while the
        # session is this far behind (the kernel and TCP flow control hold the rest).
        if (
            not self._paused
            and self._transport is not None
            and self.reader is not None
            and len(self.reader._buffer) > self._max_buffer
        ):
            self._transport.pause_reading()
            self._paused = True

    def resume_if_drained(self) -> None:
        """Start reading the socket again once the session has caught up."""
        if (
            self._paused
            and self._transport is not None
            and self.reader is not None
            and len(self.reader._buffer) <= self._max_buffer
        ):
            self._paused = False
            self._transport.resume_reading()

    def eof_received(self) -> None:
        if not self._refused:
            super().eof_received()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._address is not None and self.limiter is not None:
            self.limiter.release(self._address)
            self._address = None
        if self._refused:
            return
        super().connection_lost(exc)
        if self.door_terminal is not None:
            self.door_terminal.hangup_soon("hangup")

    def on_naws(self, rows: int, cols: int) -> None:
        super().on_naws(rows, cols)  # rows first, as telnetlib3 calls it
        if self.door_terminal is not None:
            self.door_terminal.push_resize(cols, rows)

    def on_request_environ(self) -> list[str | bytes]:
        # Never USER (privacy; crashes Windows telnet), never "send me anything" (parsers
        # of odd clients have crashed on it): only what helps pick the encoding and size.
        return ["LANG", "TERM", "COLUMNS", "LINES"]

    def on_timeout(self) -> None:
        # Idle handling belongs to the Terminal (it warns first); nothing to do here.
        return None


async def start_telnet(
    host: str,
    port: int,
    on_terminal: TerminalHandler,
    *,
    settings: TelnetSettings,
    limiter: ConnectionLimiter | None = None,
    guard: LoginGuard | None = None,
    sessions: set[BaseTerminal] | None = None,
) -> asyncio.Server:
    """Listen for telnet on ``host:port`` (0 = any free port); returns the asyncio server.

    ``sessions`` (if given) holds every live terminal, so a shutdown can reach them.
    """

    async def shell(reader: Any, writer: Any) -> None:
        terminal = TelnetTerminal(reader, writer, settings)
        protocol = writer.protocol
        protocol.door_terminal = terminal
        if sessions is not None:
            sessions.add(terminal)
        try:
            await terminal.detect()
            await on_terminal(terminal)
        except Exception:
            log.exception("telnet session from %s failed", terminal.peer)
        finally:
            if sessions is not None:
                sessions.discard(terminal)
            await terminal.close()

    protocol_class = type(
        "BoundDoorTelnetServer", (DoorTelnetServer,), {"limiter": limiter, "guard": guard}
    )

    def factory() -> asyncio.Protocol:
        protocol: asyncio.Protocol = protocol_class(
            shell=shell,
            encoding=False,
            force_binary=True,
            connect_maxwait=settings.negotiation_wait,
            limit=settings.max_buffer,
            term="unknown",
            cols=80,
            rows=24,
            timeout=0,
        )
        return protocol

    loop = asyncio.get_running_loop()
    return await loop.create_server(factory, host, port, backlog=settings.backlog)
