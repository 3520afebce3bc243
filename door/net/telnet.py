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
from typing import TYPE_CHECKING, Any

import telnetlib3
from telnetlib3.telopt import NAWS

from door.net import detect
from door.net.base import BaseTerminal, StreamTerminal, describe_peer, run_terminal_session
from door.net.limits import Admission, ConnectionLimiter, LoginGuard
from door.ui.terminal import Caps, Resize

if TYPE_CHECKING:
    from door.net.base import ConnectionSettings

log = logging.getLogger(__name__)

TerminalHandler = Callable[["TelnetTerminal"], Awaitable[None]]

SLICE = 4096
"""Input bytes parsed per event-loop turn for one connection (fairness under floods)."""
MAX_SUBNEGOTIATION = 16384
"""A longer IAC SB … (without IAC SE) closes the connection."""


@dataclass(frozen=True)
class TelnetSettings:
    """A telnet listener's knobs: the shared ones, and how long negotiation may take."""

    connection: ConnectionSettings
    negotiation_wait: float


class TelnetTerminal(StreamTerminal):
    """A :class:`~door.ui.terminal.Terminal` over a telnetlib3 reader/writer pair.

    The writer doubles 0xFF (IAC) in what it is given, so output needs no escaping here.
    """

    def __init__(self, reader: Any, writer: Any, settings: ConnectionSettings) -> None:
        super().__init__(writer, caps=Caps(transport="telnet"), settings=settings)
        self._reader = reader
        self.negotiated = False
        self.lang: str | None = None

    async def _receive(self) -> bytes | Resize | None:
        try:
            data = await self._reader.read(4096)
        except (ConnectionError, OSError):
            return None
        self._writer.protocol.resume_if_drained()
        return bytes(data) if data else None

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
            probed, pw, ph = await self.detect_by_probe()
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
                time_zone=detect.zone_hint(w.get_extra_info("TZ")),
            )
        )


class DoorTelnetServer(telnetlib3.TelnetServer):
    """telnetlib3's server protocol plus limits, resize events and a safe NEW-ENVIRON.

    ``limiter`` and ``guard`` (either may be None) are the server's, shared by every
    connection; ``max_buffer`` bounds telnetlib3's reader (its ``limit``) too.
    """

    def __init__(
        self,
        *args: Any,
        limiter: ConnectionLimiter | None,
        guard: LoginGuard | None,
        max_buffer: int,
        **kwargs: Any,
    ) -> None:
        kwargs["limit"] = max_buffer
        super().__init__(*args, **kwargs)
        self.limiter = limiter
        self.guard = guard
        self.door_terminal: TelnetTerminal | None = None
        self.admission: Admission | None = None
        self._address: str | None = None
        self._refused = False
        self._max_buffer = max_buffer
        # Not ``_paused``: asyncio's flow control (which telnetlib3 inherits) uses that
        # name for *writing*, and drain() would then wait forever.
        self._input_paused = False
        # Input is parsed in slices, one per loop turn (see data_received).
        self._backlog = bytearray()
        self._slicing = False
        self._slice_paused = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        _, address = describe_peer(transport.get_extra_info("peername"))
        reason: str | None = None
        if self.guard is not None:
            blocked = self.guard.blocked_for(address)
            if blocked > 0:
                minutes = max(1, round(blocked / 60))
                reason = (
                    "Too many failed logins from your address. "
                    f"Try again in {minutes} minute{'s' if minutes != 1 else ''}."
                )
        self._address = address
        if reason is None and self.limiter is not None:
            got = self.limiter.admit(address, self._drop)
            if isinstance(got, str):
                reason = got
            else:
                self.admission = got
        if reason is not None:
            self._refused = True
            with contextlib.suppress(Exception):
                transport.write(reason.encode("ascii", "replace") + b"\r\n")  # type: ignore[attr-defined]
            transport.close()
            return
        super().connection_made(transport)

    def _drop(self, message: str) -> None:
        """The limiter ends this connection (login deadline, eviction, blocked address)."""
        transport = self._transport
        if transport is None or transport.is_closing():
            return
        with contextlib.suppress(Exception):
            transport.write(b"\r\n" + message.encode("ascii", "replace") + b"\r\n")
        transport.close()

    def data_received(self, data: bytes) -> None:
        if self._refused:
            return
        # telnetlib3 interprets IAC sequences a byte at a time in Python (about 3 µs a
        # byte inside a sub-negotiation): one 256 KiB read of IAC NOPs or of an endless
        # SB would hold the event loop for most of a second, and every other session
        # with it. So input is parsed at most SLICE bytes per loop turn, with the socket
        # paused while a backlog remains.
        self._backlog += data
        if not self._slicing:
            self._slicing = True
            self._feed_slice()

    def _feed_slice(self) -> None:
        if not self._feed_one():
            return
        if self._backlog:
            if not self._slice_paused:
                self._slice_paused = True
                self._update_reading()
            asyncio.get_running_loop().call_soon(self._feed_slice)
            return
        self._slicing = False
        if self._slice_paused:
            self._slice_paused = False
            self._update_reading()

    def _feed_one(self) -> bool:
        """Parse one slice of the backlog; False if the connection is (now) closed."""
        transport = self._transport
        if self._refused or transport is None or transport.is_closing():
            self._backlog.clear()
            self._slicing = False
            return False
        chunk = bytes(self._backlog[:SLICE])
        del self._backlog[:SLICE]
        try:
            super().data_received(chunk)
        except Exception:  # malformed telnet must not take the server with it
            log.exception("bad telnet input from %s; closing", self._address)
            self._backlog.clear()
            self._slicing = False
            transport.close()
            return False
        if self._sub_negotiation_too_long():
            log.warning("telnet sub-negotiation from %s too long; closing", self._address)
            with contextlib.suppress(Exception):
                transport.write(b"\r\nMalformed telnet input. Goodbye.\r\n")
            self._backlog.clear()
            self._slicing = False
            transport.close()
            return False
        # telnetlib3's reader buffers without bound: stop reading the socket while the
        # session is this far behind (the kernel and TCP flow control hold the rest).
        if (
            not self._input_paused
            and self.reader is not None
            and len(self.reader._buffer) > self._max_buffer
        ):
            self._input_paused = True
            self._update_reading()
        return True

    def _sub_negotiation_too_long(self) -> bool:
        # No option we ask for needs more than a few hundred bytes (NEW-ENVIRON is the
        # longest); an SB that runs on without SE is garbage or an attack.
        writer = self.writer
        if writer is None:
            return False
        return bool(getattr(writer, "_sb_overflow", False)) or len(
            getattr(writer, "_sb_buffer", b"")
        ) > max(MAX_SUBNEGOTIATION, 0)

    def _update_reading(self) -> None:
        transport = self._transport
        if transport is None or transport.is_closing():
            return
        if self._input_paused or self._slice_paused:
            with contextlib.suppress(Exception):
                transport.pause_reading()
        else:
            with contextlib.suppress(Exception):
                transport.resume_reading()

    def resume_if_drained(self) -> None:
        """Start reading the socket again once the session has caught up."""
        if (
            self._input_paused
            and self._transport is not None
            and self.reader is not None
            and len(self.reader._buffer) <= self._max_buffer
        ):
            self._input_paused = False
            self._update_reading()

    def eof_received(self) -> None:
        if self._refused:
            return
        # What is still waiting in the backlog came before the EOF: parse it first (at
        # most one socket read, as reading pauses while there is a backlog).
        while self._backlog and self._feed_one():
            pass
        self._slicing = False
        super().eof_received()

    def connection_lost(self, exc: Exception | None) -> None:
        if self.admission is not None:
            self.admission.release()
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
        # TZ: the user's time zone, offered in their settings (never required)
        return ["LANG", "TERM", "COLUMNS", "LINES", "TZ"]

    def on_timeout(self) -> None:
        # Idle handling belongs to the Terminal (it warns first); nothing to do here.
        return None


def telnet_protocol_factory(
    on_terminal: TerminalHandler,
    *,
    settings: TelnetSettings,
    limiter: ConnectionLimiter | None = None,
    guard: LoginGuard | None = None,
    sessions: set[BaseTerminal] | None = None,
) -> Callable[[], asyncio.Protocol]:
    """What makes one :class:`DoorTelnetServer` per connection, each running
    ``on_terminal`` once negotiation is over. The telnet listener uses it, and so does the
    web listener for telnet carried over a WebSocket (door/net/web.py)."""

    async def shell(reader: Any, writer: Any) -> None:
        terminal = TelnetTerminal(reader, writer, settings.connection)
        protocol = writer.protocol
        protocol.door_terminal = terminal
        terminal.admission = protocol.admission
        await run_terminal_session(
            terminal, lambda: on_terminal(terminal), sessions=sessions, transport="telnet"
        )

    def factory() -> asyncio.Protocol:
        protocol: asyncio.Protocol = DoorTelnetServer(
            limiter=limiter,
            guard=guard,
            max_buffer=settings.connection.max_buffer,
            shell=shell,
            encoding=False,
            force_binary=True,
            connect_maxwait=settings.negotiation_wait,
            term="unknown",
            cols=80,
            rows=24,
            timeout=0,
        )
        return protocol

    return factory


async def start_telnet(
    host: str,
    port: int,
    on_terminal: TerminalHandler,
    *,
    settings: TelnetSettings,
    limiter: ConnectionLimiter | None = None,
    guard: LoginGuard | None = None,
    sessions: set[BaseTerminal] | None = None,
    reuse_port: bool = False,
) -> asyncio.Server:
    """Listen for telnet on ``host:port`` (0 = any free port); returns the asyncio server.

    ``sessions`` (if given) holds every live terminal, so a shutdown can reach them.
    ``reuse_port`` (SO_REUSEPORT) lets several processes listen on the same port.
    """
    factory = telnet_protocol_factory(
        on_terminal, settings=settings, limiter=limiter, guard=guard, sessions=sessions
    )
    loop = asyncio.get_running_loop()
    return await loop.create_server(
        factory, host, port, backlog=settings.connection.backlog, reuse_port=reuse_port or None
    )
