"""Door mode: one session on stdin/stdout, as a BBS runs a door (usually on a pty).

On a terminal the input is put in raw mode and restored on close, whatever happened;
SIGWINCH becomes a resize, SIGHUP or EOF a hang-up, SIGTERM a shutdown. On pipes it works
the same minus the terminal modes. A drop file's time left becomes the terminal's time
limit (``set_time_limit``): the title bar shows it, the player is warned at 5 and 1
minutes, and at the end the session says goodbye.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import selectors
import signal
import termios
import time
import tty
from collections.abc import Callable
from typing import Any

from door.net import detect
from door.net.base import BaseTerminal, ConnectionSettings
from door.ui.terminal import Caps, Encoding, Resize


class StdioTerminal(BaseTerminal):
    """A :class:`~door.ui.terminal.Terminal` on two file descriptors (default 0 and 1)."""

    def __init__(
        self,
        caps: Caps,
        settings: ConnectionSettings,
        *,
        in_fd: int = 0,
        out_fd: int = 1,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(caps=caps, peer="stdio", settings=settings, clock=clock)
        self._in_fd = in_fd
        self._out_fd = out_fd
        self._saved_mode: list[Any] | None = None
        self._reader: asyncio.StreamReader | None = None
        self._transports: list[asyncio.BaseTransport] = []
        self._out: asyncio.WriteTransport | None = None
        self._out_protocol: Any = None
        self._signals: list[int] = []

    async def open(self) -> None:
        """Enter raw mode (on a tty), attach the descriptors to the loop, hook signals."""
        loop = asyncio.get_running_loop()
        if os.isatty(self._in_fd):
            self._saved_mode = termios.tcgetattr(self._in_fd)
            tty.setraw(self._in_fd, termios.TCSANOW)
        self._transports = []
        if _pollable(self._in_fd):
            self._reader = asyncio.StreamReader(limit=self._max_buffer)
            read_pipe = os.fdopen(os.dup(self._in_fd), "rb", buffering=0)
            rt, _ = await loop.connect_read_pipe(
                lambda: asyncio.StreamReaderProtocol(self._reader),  # type: ignore[arg-type]
                read_pipe,
            )
            self._transports.append(rt)
        if _pollable(self._out_fd):
            write_pipe = os.fdopen(os.dup(self._out_fd), "wb", buffering=0)
            wt, wp = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, write_pipe)
            self._transports.append(wt)
            self._out = wt
            self._out_protocol = wp
        for signum, handler in (
            (signal.SIGWINCH, self._on_winch),
            (signal.SIGHUP, lambda: self.hangup_soon("hangup")),
            (signal.SIGTERM, lambda: self.hangup_soon("shutdown")),
        ):
            with contextlib.suppress(ValueError, RuntimeError, NotImplementedError):
                loop.add_signal_handler(signum, handler)
                self._signals.append(signum)

    def _on_winch(self) -> None:
        with contextlib.suppress(OSError):
            size = os.get_terminal_size(self._out_fd)
            self.push_resize(size.columns, size.lines)

    async def _receive(self) -> bytes | Resize | None:
        try:
            if self._reader is None:  # a regular file or /dev/null: reads never block long
                loop = asyncio.get_running_loop()
                data = await loop.run_in_executor(None, os.read, self._in_fd, 4096)
            else:
                data = await self._reader.read(4096)
        except (ConnectionError, OSError):
            return None
        return data or None

    def _send(self, data: bytes) -> None:
        if self._out is None:  # a regular file: plain blocking writes are fine
            view = memoryview(data)
            while view:
                view = view[os.write(self._out_fd, view) :]
        elif not self._out.is_closing():
            self._out.write(data)

    async def _drain(self) -> None:
        if self._out_protocol is not None and self._out is not None and not self._out.is_closing():
            await self._out_protocol._drain_helper()

    def _output_backlog(self) -> int:
        return self._out.get_write_buffer_size() if self._out is not None else 0

    def _disconnect(self) -> None:
        self.restore()
        for transport in self._transports:
            with contextlib.suppress(Exception):
                transport.close()
        self._transports = []

    def restore(self) -> None:
        """Put the terminal back as we found it and unhook our signals (idempotent)."""
        if self._saved_mode is not None:
            with contextlib.suppress(termios.error, OSError):
                termios.tcsetattr(self._in_fd, termios.TCSADRAIN, self._saved_mode)
            self._saved_mode = None
        if self._signals:
            with contextlib.suppress(RuntimeError):
                loop = asyncio.get_running_loop()
                for signum in self._signals:
                    loop.remove_signal_handler(signum)
            self._signals = []


def _pollable(fd: int) -> bool:
    """Whether the event loop can watch ``fd`` (not so for regular files or /dev/null)."""
    probe = selectors.DefaultSelector()
    try:
        probe.register(fd, selectors.EVENT_READ)
    except (OSError, ValueError):
        return False
    finally:
        probe.close()
    return True


def stdio_caps(
    *,
    encoding: str | None = None,
    ansi: bool = True,
    rows: int | None = None,
    out_fd: int = 1,
    use_lang: bool = True,
) -> Caps:
    """Capabilities for door mode: the tty's size (else the drop file's rows, else 80×24);
    the encoding from the flag, else LANG (``use_lang``: not under a BBS, whose LANG says
    nothing about the caller) and TERM, else CP437 (BBS doors are CP437)."""
    width = height = None
    with contextlib.suppress(OSError):
        size = os.get_terminal_size(out_fd)
        width, height = size.columns, size.lines
    if height is None and rows:
        height = rows
    w, h = detect.clamp_size(width, height)
    term = os.environ.get("TERM", "") if ansi else "dumb"
    chosen: Encoding = detect.decide_encoding(
        choice=encoding,
        lang=(os.environ.get("LC_ALL") or os.environ.get("LANG")) if use_lang else None,
        term=term,
    )
    return Caps(
        encoding=chosen,
        colors=16 if ansi else 0,
        width=w,
        height=h,
        term=(term or "ansi").lower(),
        transport="stdio",
    )

