"""A fake Terminal for screen tests, with a pyte screen that reads what a person would see.

Usage::

    term = FakeTerminal(width=80, height=24, encoding="utf-8")
    task = asyncio.create_task(run_session(term, services, user))
    await term.wait_for("Main menu")
    term.type("b")            # Text("b")
    term.press("down", "enter")
    await term.settle()       # every queued event handled and drawn
    assert "Begin" in term.display_text()

Everything written is encoded exactly as a real transport would (CP437 or UTF-8, with
``?`` for what the encoding lacks), counted in ``bytes_out``, decoded back and fed to a
``pyte`` screen, so tests read the same cells a terminal would show.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import pyte

from door.ui.terminal import Caps, Encoding, Hangup, InputEvent, Key, Resize, Text


class FakeTerminal:
    """Implements ``door.ui.terminal.Terminal`` in memory."""

    def __init__(
        self,
        width: int = 80,
        height: int = 24,
        encoding: Encoding = "utf-8",
        colors: int = 16,
        term: str = "xterm",
        peer: str = "127.0.0.1:40000",
    ) -> None:
        self._caps = Caps(
            encoding=encoding, colors=colors, width=width, height=height, term=term,
            transport="fake",
        )  # fmt: skip
        self._peer = peer
        self._queue: asyncio.Queue[InputEvent] = asyncio.Queue()
        self._waiting = False
        self._changed = asyncio.Event()
        self.screen = pyte.Screen(width, height)
        self.stream = pyte.Stream(self.screen)
        self.raw = bytearray()
        self.bytes_out = 0
        self.bells = 0
        self.closed = False
        self.close_message: str | None = None

    # --- the Terminal protocol --------------------------------------------------------
    @property
    def caps(self) -> Caps:
        return self._caps

    @property
    def peer(self) -> str:
        return self._peer

    def set_encoding(self, encoding: Encoding) -> None:
        self._caps = Caps(
            encoding=encoding, colors=self._caps.colors, width=self._caps.width,
            height=self._caps.height, term=self._caps.term, transport=self._caps.transport,
        )  # fmt: skip

    async def read_event(self, timeout: float | None = None) -> InputEvent | None:
        self._waiting = True
        self._changed.set()
        try:
            if timeout is None:
                return await self._queue.get()
            try:
                return await asyncio.wait_for(self._queue.get(), timeout)
            except TimeoutError:
                return None
        finally:
            self._waiting = False

    def write(self, text: str) -> None:
        data = text.encode(self._caps.encoding, errors="replace")
        self.raw += data
        self.bytes_out += len(data)
        self.stream.feed(data.decode(self._caps.encoding))
        self._changed.set()

    async def drain(self) -> None:
        return None

    def bell(self) -> None:
        self.bells += 1
        self.write("\x07")

    async def close(self, message: str | None = None) -> None:
        if message:
            self.write(message)
        self.closed = True
        self.close_message = message
        self._changed.set()

    # --- driving it ------------------------------------------------------------------
    def type(self, text: str) -> None:
        """Queue typed characters (one Text event)."""
        self._queue.put_nowait(Text(text))

    def type_each(self, text: str) -> None:
        """Queue one Text event per character, as a person typing."""
        for ch in text:
            self._queue.put_nowait(Text(ch))

    def press(self, *names: str) -> None:
        """Queue named keys: "enter", "up", "pgdn", "backspace", "ctrl-c"…"""
        for name in names:
            self._queue.put_nowait(Key(name))

    def line(self, text: str) -> None:
        """Type ``text`` and press Enter."""
        if text:
            self.type(text)
        self.press("enter")

    def send(self, event: InputEvent) -> None:
        self._queue.put_nowait(event)

    def resize(self, width: int, height: int) -> None:
        """The far end's window changes: caps follow, a Resize event is queued."""
        self._caps = self._caps.resized(width, height)
        self.screen.resize(height, width)
        self._queue.put_nowait(Resize(width, height))

    def hangup(self) -> None:
        self._queue.put_nowait(Hangup())

    # --- waiting ----------------------------------------------------------------------
    @property
    def idle(self) -> bool:
        """True when every queued event was consumed and the session waits for input."""
        return self._waiting and self._queue.empty()

    async def settle(self, timeout: float = 5.0) -> None:
        """Wait until the session has handled every queued event and waits for more."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while True:
            # Yield a few times so a just-finished handler gets to render.
            for _ in range(3):
                await asyncio.sleep(0)
            if self.idle or self.closed:
                return
            remaining = end - loop.time()
            if remaining <= 0:
                raise AssertionError(
                    "session did not settle; screen:\n" + "\n".join(self.display())
                )
            self._changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), min(remaining, 0.05))

    async def wait_for(self, text: str, timeout: float = 5.0) -> None:
        """Wait until ``text`` is visible on the screen."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while text not in self.display_text():
            remaining = end - loop.time()
            if remaining <= 0:
                raise AssertionError(
                    f"{text!r} never appeared; screen:\n" + "\n".join(self.display())
                )
            self._changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), min(remaining, 0.05))

    # --- reading ------------------------------------------------------------------------
    def display(self) -> list[str]:
        """The screen as a person sees it, one string per row."""
        return list(self.screen.display)

    def display_text(self) -> str:
        return "\n".join(self.screen.display)

    def row(self, y: int) -> str:
        return str(self.screen.display[y])

    def find(self, text: str) -> tuple[int, int] | None:
        """(x, y) of the first place ``text`` shows, or None."""
        for y, line in enumerate(self.screen.display):
            x = line.find(text)
            if x >= 0:
                return x, y
        return None

    def char_at(self, x: int, y: int) -> Any:
        """pyte's cell at (x, y): ``.data``, ``.fg``, ``.bg``, ``.bold``, ``.reverse``."""
        return self.screen.buffer[y][x]

    def take_bytes(self) -> int:
        """Bytes written since the last call (for byte-count benchmarks and tests)."""
        n = self.bytes_out
        self.bytes_out = 0
        return n
