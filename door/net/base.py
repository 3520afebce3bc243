"""The part of every :class:`~door.ui.terminal.Terminal` that does not depend on the wire.

A transport subclasses :class:`BaseTerminal` and supplies four things: ``_receive()``
(the next chunk of bytes, a :class:`Resize`, or ``None`` at end of input), ``_send(bytes)``,
``_drain()`` and ``_disconnect()``. The base class decodes keys (with the lone-ESC timeout),
enforces the idle timeout (a warning first), an optional session time limit (door mode),
caps on buffered input and output, output encoding, the cursor-position probe, and lets the
server tell a session to end (:meth:`BaseTerminal.hangup_soon`). :class:`StreamTerminal`
supplies all but ``_receive()`` for a transport with an asyncio-style stream writer;
:class:`ConnectionSettings` are the knobs every transport takes from the config.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any

from door.net import detect
from door.net.limits import Admission
from door.ui.charset import encode_text
from door.ui.keys import KeyDecoder, Report
from door.ui.terminal import Caps, Encoding, Hangup, InputEvent, Key, Mouse, Resize, Text

_TIMEOUT = object()

RESET = "\x1b[0m\x1b[?25h"

# Terminal types whose DEL key (0x7F) means Delete, not Backspace.
CTERM_TYPES = ("syncterm", "cterm")

TIME_WARNINGS = (300.0, 60.0)
"""Door mode: the time left (seconds) at which the player is warned that the BBS's time
limit is near."""


def _minutes(seconds: float) -> str:
    """``300`` → ``"5 minutes"``, ``60`` → ``"one minute"``."""
    m = max(1, round(seconds / 60))
    return "one minute" if m == 1 else f"{m} minutes"



@dataclass(frozen=True)
class ConnectionSettings:
    """The knobs every terminal and listener shares, from ``[limits]`` and ``[server]``.

    No defaults here: the config holds them, once; ``door.app.connection_settings``
    builds this from it.
    """

    idle_timeout: float
    """Seconds without input before the session is hung up."""
    idle_warning: float
    """Seconds before that hang-up that the person is warned."""
    max_buffer: int
    """Most input characters (and, times four, output bytes) held for one session."""
    probe_timeout: float
    """Seconds to wait for the cursor-position probe's answers."""
    backlog: int
    """Connections the listening socket lets wait to be accepted."""


def _with_mouse(caps: Caps) -> Caps:
    """``caps`` with ``mouse`` on when its terminal type reports clicks."""
    if caps.mouse or not detect.mouse_from_term(caps.term):
        return caps
    return replace(caps, mouse=True)


def describe_peer(peername: Any) -> tuple[str, str]:
    """A socket's peer address as ``("host:port", "host")``; ``("?:0", "?")`` if unknown."""
    host, port = tuple(peername or ("?", 0))[:2]
    return f"{host}:{port}", str(host)


class BaseTerminal:
    """Shared Terminal machinery; see the module docstring for what a transport adds."""

    def __init__(
        self,
        *,
        caps: Caps,
        peer: str,
        settings: ConnectionSettings,
        esc_timeout: float = 0.08,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._caps = _with_mouse(caps)
        self._peer = peer
        self._probe_timeout = settings.probe_timeout
        self._decoder = KeyDecoder(caps.encoding, del_is_delete=caps.term in CTERM_TYPES)
        self._events: deque[InputEvent] = deque()
        self._buffered = 0  # characters of Text waiting in _events
        self._reports: list[Report] = []
        self._idle_timeout = settings.idle_timeout
        self._idle_warning = min(settings.idle_warning, settings.idle_timeout)
        self._max_buffer = settings.max_buffer
        self._esc_timeout = esc_timeout
        self._clock = clock
        self._last_input = clock()
        self._esc_at: float | None = None
        self._warned = False
        self._redraw_after_warning = False
        self._deadline: float | None = None  # door mode: time left on the BBS
        self._time_warnings: list[float] = []  # seconds before the deadline, still to come
        self._read_task: asyncio.Task[bytes | Resize | None] | None = None
        self._kick: asyncio.Future[None] | None = None
        self._hangup_reason: str | None = None
        self._eof = False
        self._closed = False
        self._stalled = False
        self._pending_out: list[bytes] = []
        self._out_size = 0
        self._flush_scheduled = False
        self.admission: Admission | None = None
        """The connection's slot in the limiter (pre-login until :meth:`logged_in`)."""

    # -- transport hooks ------------------------------------------------------------------

    async def _receive(self) -> bytes | Resize | None:
        """The next input chunk, a size change, or ``None`` when the far end has gone."""
        raise NotImplementedError

    def _send(self, data: bytes) -> None:
        raise NotImplementedError

    async def _drain(self) -> None:
        return None

    def _disconnect(self) -> None:
        raise NotImplementedError

    def _abort(self) -> None:
        """Drop the connection without flushing (the far end stopped reading)."""
        self._disconnect()

    def _output_backlog(self) -> int:
        """Bytes written but not yet accepted by the far end (0 if unknown)."""
        return 0

    # -- Terminal protocol ----------------------------------------------------------------

    @property
    def caps(self) -> Caps:
        return self._caps

    @property
    def peer(self) -> str:
        return self._peer

    def set_encoding(self, encoding: Encoding) -> None:
        """Use ``encoding`` for output and for decoding later input."""
        if encoding not in ("cp437", "utf-8"):
            raise ValueError(f"unknown encoding {encoding!r}")
        self._caps = replace(self._caps, encoding=encoding)
        self._decoder.set_encoding(encoding)

    def set_caps(self, caps: Caps) -> None:
        """Replace the capabilities wholesale (after detection); ``mouse`` is set when the
        terminal type says it can (a transport may set it itself, never unset)."""
        self._caps = caps = _with_mouse(caps)
        self._decoder.set_encoding(caps.encoding)
        self._decoder.del_is_delete = caps.term in CTERM_TYPES

    def write(self, text: str) -> None:
        if self._closed:
            return
        # never a C1 control byte, whatever the text (door/ui/charset.py)
        self.write_bytes(encode_text(text, self._caps.encoding))

    def write_bytes(self, data: bytes) -> None:
        """Queue raw bytes (probes; already-encoded text).

        Writes made in one turn of the event loop go out together (one send instead of a
        dozen small ones): the flush runs at the end of the turn, or at :meth:`drain`.
        """
        if self._closed or not data:
            return
        self._pending_out.append(data)
        self._out_size += len(data)
        if self._out_size > 4 * self._max_buffer:
            self._flush()
        elif not self._flush_scheduled:
            try:
                asyncio.get_running_loop().call_soon(self._flush)
                self._flush_scheduled = True
            except RuntimeError:  # no loop running (shutdown): send at once
                self._flush()

    def _flush(self) -> None:
        self._flush_scheduled = False
        if not self._pending_out:
            return
        data = b"".join(self._pending_out)
        self._pending_out.clear()
        self._out_size = 0
        if self._closed:
            return
        # A far end that stops reading must not make us buffer without bound.
        if self._output_backlog() > 4 * self._max_buffer:
            self.hangup_soon("output overflow")
            return
        try:
            self._send(data)
        except (ConnectionError, OSError, RuntimeError):
            self.hangup_soon("hangup")

    async def drain(self) -> None:
        self._flush()
        if self._closed:
            return
        try:
            if self._output_backlog() <= self._max_buffer:
                await self._drain()  # the usual case: nothing to wait for
            else:
                await asyncio.wait_for(self._drain(), self._idle_timeout)
        except TimeoutError:
            # The far end has read nothing for a whole idle timeout: it is gone or
            # hostile. Waiting on would hold the session and its connection slot for
            # ever (the idle timer does not run while we wait here).
            self._stalled = True
            self.hangup_soon("stalled")
        except (ConnectionError, OSError, RuntimeError):
            self.hangup_soon("hangup")

    def bell(self) -> None:
        self.write("\x07")

    async def close(self, message: str | None = None) -> None:
        """Say ``message``, reset attributes, show the cursor, hang up. Safe to repeat."""
        if self._closed:
            return
        if message:
            self.write("\r\n" + message + "\r\n")
        self.write(RESET)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.drain(), timeout=2.0)
        self._flush()
        self._closed = True
        task = self._read_task
        if task is not None:
            if task.done():
                if not task.cancelled():
                    task.exception()  # retrieved: a reset after goodbye is no news
            else:
                task.cancel()
        with contextlib.suppress(Exception):
            if self._stalled:
                self._abort()  # a polite close would wait for ever to flush
            else:
                self._disconnect()

    @property
    def closed(self) -> bool:
        return self._closed

    # -- server control -------------------------------------------------------------------

    def logged_in(self) -> None:
        """The person has logged in: their slot leaves the pre-login pool and its deadline."""
        if self.admission is not None:
            self.admission.promote()

    def hangup_soon(self, reason: str = "shutdown") -> None:
        """Make the next (or the pending) :meth:`read_event` return ``Hangup(reason)``."""
        if self._hangup_reason is None:
            self._hangup_reason = reason
        self._wake()

    def set_time_limit(self, seconds: float | None) -> None:
        """End the session with ``Hangup("time")`` after ``seconds`` (door mode time
        left), warning :data:`TIME_WARNINGS` before (those that are still ahead)."""
        self._deadline = None if seconds is None else self._clock() + seconds
        ahead = [w for w in TIME_WARNINGS if seconds is not None and w < seconds]
        self._time_warnings = sorted(ahead, reverse=True)

    def time_left(self) -> float | None:
        """Seconds until the time limit ends the session (``None``: no limit)."""
        if self._deadline is None:
            return None
        return max(0.0, self._deadline - self._clock())

    def push_resize(self, width: int | None, height: int | None) -> None:
        """The transport learned a new window size (from NAWS, SSH, SIGWINCH)."""
        w, h = detect.clamp_size(width, height)
        if (w, h) == (self._caps.width, self._caps.height):
            return
        self._caps = self._caps.resized(w, h)
        self._queue(Resize(w, h))
        self._wake()

    # -- input ----------------------------------------------------------------------------

    async def read_event(self, timeout: float | None = None) -> InputEvent | None:
        """The next input event, ``None`` after ``timeout`` seconds, or ``Hangup``."""
        end = None if timeout is None else self._clock() + timeout
        while True:
            if self._hangup_reason is not None:
                return Hangup(self._hangup_reason)
            if self._events:
                return self._pop()
            if self._eof or self._closed:
                return Hangup("hangup")
            now = self._clock()
            idle_end = self._last_input + self._idle_timeout
            if now >= idle_end:
                self._say("You have been idle too long. Goodbye!")
                self._hangup_reason = "idle"
                continue
            if not self._warned and now >= idle_end - self._idle_warning:
                self._warned = True
                self._redraw_after_warning = True
                secs = max(1, round(idle_end - now))
                self._say(f"Are you still there? Press a key within {secs} seconds to stay.")
            if self._deadline is not None:
                if now >= self._deadline:
                    # The session says goodbye (its games are saved move by move).
                    self._hangup_reason = "time"
                    continue
                if self._time_warnings and now >= self._deadline - self._time_warnings[0]:
                    ahead = self._time_warnings.pop(0)
                    self._redraw_after_warning = True
                    self._say(f"You have {_minutes(ahead)} left on the BBS today.")
            if end is not None and now >= end:
                return None
            wake_at = [idle_end if self._warned else idle_end - self._idle_warning]
            if self._deadline is not None:
                warn = self._time_warnings[0] if self._time_warnings else 0.0
                wake_at.append(self._deadline - warn)
            if end is not None:
                wake_at.append(end)
            if self._esc_at is not None:
                wake_at.append(self._esc_at)
            chunk = await self._next_chunk(max(0.0, min(wake_at) - now))
            if chunk is _TIMEOUT:
                if self._esc_at is not None and self._clock() >= self._esc_at:
                    self._esc_at = None
                    self._accept(self._decoder.flush())
                continue
            if chunk is None:
                self._eof = True
                continue
            if isinstance(chunk, Resize):
                self.push_resize(chunk.width, chunk.height)
                continue
            assert isinstance(chunk, bytes)
            self._accept(self._decoder.feed(chunk))

    async def probe(self, data: bytes, replies: int, timeout: float) -> list[Report]:
        """Send ``data`` and collect up to ``replies`` cursor-position reports.

        Keys typed meanwhile are kept for :meth:`read_event`. Returns what arrived in
        ``timeout`` seconds (possibly nothing: many clients never answer).
        """
        self._reports.clear()
        self.write_bytes(data)
        await self.drain()
        end = self._clock() + timeout
        while len([r for r in self._reports if r.kind == "cpr"]) < replies:
            left = end - self._clock()
            if left <= 0 or self._eof or self._closed or self._hangup_reason:
                break
            chunk = await self._next_chunk(left)
            if chunk is _TIMEOUT:
                break
            if chunk is None:
                self._eof = True
                break
            if isinstance(chunk, Resize):
                self.push_resize(chunk.width, chunk.height)
            elif isinstance(chunk, bytes):
                self._accept(self._decoder.feed(chunk), from_probe=True)
        found, self._reports = [r for r in self._reports if r.kind == "cpr"], []
        return found

    async def detect(self) -> None:
        """Settle encoding and size before the first screen; each transport overrides it."""

    async def detect_by_probe(self) -> tuple[Encoding | None, int | None, int | None]:
        """Run the size + UTF-8 probe: (encoding, width, height), ``None`` for unknowns."""
        reports = await self.probe(detect.PROBE, 2, self._probe_timeout)
        self.write_bytes(detect.PROBE_CLEANUP)
        width = height = None
        encoding: Encoding | None = None
        if reports:
            height, width = reports[0].values
        if len(reports) >= 2:
            encoding = detect.encoding_from_probe(reports[1].values[1])
        return encoding, width, height

    # -- internals ------------------------------------------------------------------------

    def _say(self, line: str) -> None:
        # Above the screen's bottom line, in reverse video, keeping the cursor where it was;
        # the next key triggers a full redraw (via a Resize event) to clean it up.
        row = max(1, self._caps.height)
        self.write(f"\x1b7\x1b[{row};1H\x1b[0;7m {line} \x1b[0m\x1b[K\x1b8")

    def _wake(self) -> None:
        kick, self._kick = self._kick, None
        if kick is not None and not kick.done():
            kick.set_result(None)

    async def _next_chunk(self, timeout: float) -> object:
        """The next chunk from ``_receive`` (the read is kept across timeouts, not lost)."""
        if self._read_task is None:
            self._read_task = asyncio.ensure_future(self._receive())
        task = self._read_task
        if not task.done():
            loop = asyncio.get_running_loop()
            kick: asyncio.Future[None] = loop.create_future()
            self._kick = kick
            waiters: set[asyncio.Future[Any]] = {task, kick}
            try:
                await asyncio.wait(waiters, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
            finally:
                self._kick = None
            if not task.done():
                return _TIMEOUT
        self._read_task = None
        if task.cancelled():
            return None
        if task.exception() is not None:
            return None
        return task.result()

    def _accept(self, events: list[InputEvent | Report], from_probe: bool = False) -> None:
        got_input = False
        for event in events:
            if isinstance(event, Report):
                if from_probe:
                    self._reports.append(event)
                continue  # an unsolicited report is not a key press
            got_input = True
            self._queue(event)
        if got_input:
            self._last_input = self._clock()
            self._warned = False
            if self._redraw_after_warning:
                self._redraw_after_warning = False
                # A full redraw wipes the warning line: the session redraws on Resize.
                self._events.appendleft(Resize(self._caps.width, self._caps.height))
        self._esc_at = self._clock() + self._esc_timeout if self._decoder.pending else None

    def _queue(self, event: InputEvent) -> None:
        if isinstance(event, Text):
            room = self._max_buffer - self._buffered
            if room <= 0:
                return  # typed far ahead of the session: drop, never grow without bound
            if len(event.text) > room:
                event = Text(event.text[:room])
            self._buffered += len(event.text)
        elif isinstance(event, Key | Mouse) and len(self._events) > self._max_buffer:
            return
        self._events.append(event)

    def _pop(self) -> InputEvent:
        event = self._events.popleft()
        if isinstance(event, Text):
            self._buffered -= len(event.text)
        return event


class StreamTerminal(BaseTerminal):
    """A :class:`BaseTerminal` writing to an asyncio-style stream writer.

    ``writer`` has ``write``, ``drain``, ``close``, ``transport`` and ``get_extra_info``
    (asyncio's ``StreamWriter``, telnetlib3's writer); the subclass supplies ``_receive``.
    ``address`` is the peer's host, for the limits and the login guard.
    """

    def __init__(self, writer: Any, *, caps: Caps, settings: ConnectionSettings) -> None:
        peer, self.address = describe_peer(writer.get_extra_info("peername"))
        super().__init__(caps=caps, peer=peer, settings=settings)
        self._writer = writer

    def _send(self, data: bytes) -> None:
        self._writer.write(data)

    async def _drain(self) -> None:
        await self._writer.drain()

    def _disconnect(self) -> None:
        self._writer.close()

    def _abort(self) -> None:
        transport = self._writer.transport
        if transport is not None:
            transport.abort()

    def _output_backlog(self) -> int:
        transport = self._writer.transport
        return 0 if transport is None else int(transport.get_write_buffer_size())


async def run_terminal_session(
    terminal: BaseTerminal,
    session: Callable[[], Awaitable[None]],
    *,
    sessions: set[BaseTerminal] | None,
    transport: str,
) -> None:
    """Detect the terminal, run ``session`` and always close the terminal afterwards.

    Every transport ends its connections the same way: the terminal is listed in
    ``sessions`` (so shutdown can tell it goodbye) while it runs, and an exception from
    the session is logged and ends this one connection, never the server.
    """
    if sessions is not None:
        sessions.add(terminal)
    try:
        await terminal.detect()
        await session()
    except Exception:
        logging.getLogger(f"door.net.{transport}").exception(
            "%s session from %s failed", transport, terminal.peer
        )
    finally:
        if sessions is not None:
            sessions.discard(terminal)
        await terminal.close()
