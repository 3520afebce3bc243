"""The one Terminal every transport adapts to, and the input events it yields.

Telnet, SSH, rlogin and stdio door mode each implement :class:`Terminal` once
(``door/net``); the session and the screens above it see nothing else. Input arrives as
already-decoded events: a key decoder (``door/ui/keys.py``) turns the byte stream into
:class:`Key` and :class:`Text` events for the CTerm/ANSI-BBS and xterm families, and
xterm mouse reports into :class:`Mouse` events.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal, Protocol, runtime_checkable

Encoding = Literal["cp437", "utf-8"]


@dataclass(frozen=True)
class Caps:
    """What the far end can show.

    ``encoding`` decides the glyph table (CP437 box drawing vs Unicode); ``colors`` is 0
    (no colour: attributes only) or 16; ``width``/``height`` are clamped to sane values
    by the transport (80×24 fallback); ``term`` is the terminal type as reported (TTYPE,
    SSH pty TERM, rlogin terminal field, drop-file emulation), lower-cased. ``mouse``
    says the far end reports clicks as xterm SGR mouse reports (modes 1000/1002/1006):
    ``door.net.detect.mouse_from_term`` sets it from the terminal type, a transport that
    knows better (the web page's xterm.js) sets it itself.
    """

    encoding: Encoding = "cp437"
    colors: int = 16
    width: int = 80
    height: int = 24
    term: str = "ansi"
    transport: str = "telnet"
    mouse: bool = False
    time_zone: str | None = None
    """The far end's hint of its user's time zone, where the transport gives one (the TZ
    variable over telnet NEW-ENVIRON or SSH, the browser's zone in the web hello): an
    IANA-looking name (``door.net.detect.zone_hint``), not yet known to exist."""

    def resized(self, width: int, height: int) -> Caps:
        return replace(self, width=width, height=height)


@dataclass(frozen=True)
class Key:
    """A named key: ``"up" "down" "left" "right" "home" "end" "pgup" "pgdn" "insert"
    "delete" "enter" "backspace" "tab" "escape" "f1".."f12"``, or ``"ctrl-X"``."""

    name: str


@dataclass(frozen=True)
class Text:
    """Printable characters typed (one or more, in order)."""

    text: str


@dataclass(frozen=True)
class Resize:
    """The far end's window changed size (already clamped)."""

    width: int
    height: int


@dataclass(frozen=True)
class Hangup:
    """The connection is gone (EOF, socket closed, idle timeout, server shutdown)."""

    reason: str = "hangup"


MouseButton = Literal["left", "middle", "right", "wheel-up", "wheel-down", "none"]
MouseAction = Literal["press", "release", "drag"]


@dataclass(frozen=True)
class Mouse:
    """A mouse report: ``x``/``y`` are the cell's column and row **0-based** (as the
    canvas counts; the terminal's 1-based report less one). ``button`` is the one
    pressed (``"wheel-up"``/``"wheel-down"`` come as presses; ``"none"`` is a release
    that does not say which). ``action``: ``"press"``, ``"release"``, or ``"drag"``
    (motion with a button held, mode 1002)."""

    x: int
    y: int
    button: MouseButton = "left"
    action: MouseAction = "press"
    shift: bool = False
    alt: bool = False
    ctrl: bool = False


InputEvent = Key | Text | Resize | Hangup | Mouse


@runtime_checkable
class Terminal(Protocol):
    """One connected person's terminal, whatever the transport."""

    @property
    def caps(self) -> Caps:
        """Current capabilities; ``width``/``height`` follow resizes."""
        ...

    @property
    def peer(self) -> str:
        """Where the connection comes from (``"127.0.0.1:53211"``, ``"stdio"``)."""
        ...

    def set_encoding(self, encoding: Encoding) -> None:
        """Switch the output encoding (the player's own choice overrides detection)."""
        ...

    async def read_event(self, timeout: float | None = None) -> InputEvent | None:
        """The next input event; ``None`` if ``timeout`` seconds pass with none."""
        ...

    def write(self, text: str) -> None:
        """Queue text (with ANSI sequences) for the far end, encoded per ``caps``.

        Characters the encoding cannot show are replaced, never raised on.
        """
        ...

    async def drain(self) -> None:
        """Wait until queued output has been handed to the transport."""
        ...

    def bell(self) -> None:
        """Ring the terminal's bell (BEL)."""
        ...

    async def close(self, message: str | None = None) -> None:
        """Say ``message`` (if any), reset attributes, show the cursor and hang up."""
        ...
