"""The screen contract: what the session asks of every screen, and what it hands them.

A screen draws itself into a canvas (``render``), loads what it needs when it becomes
visible (``on_enter``), reacts to a key (``on_event``) or a game notice (``on_notice``) and
answers with a :class:`Transition` (or ``None`` to stay). Screens never write to the
terminal and never await input: the session (``door/session.py``) does both.

Layout every screen shares (helpers below): row 0 is the title bar, the last row the
one-line key help, the row above it the status message (``ctx.status``).
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from door.ui.caches import RenderCaches
from door.ui.canvas import (
    BLACK,
    BLUE,
    CYAN,
    RED,
    WHITE,
    YELLOW,
    Canvas,
    Style,
    clip_text,
    text_width,
)
from door.ui.glyphs import Glyphs
from door.ui.terminal import Caps, InputEvent

if TYPE_CHECKING:
    from door.services import Services
    from door.services.accounts import User
    from door.services.notify import Notice

# The shared look. Frozen styles are values, not mutable globals.
TITLE_STYLE = Style(fg=WHITE, bg=BLUE, bold=True)
HELP_STYLE = Style(fg=BLACK, bg=CYAN)
HELP_KEY_STYLE = Style(fg=RED, bg=CYAN)
STATUS_STYLE = Style(fg=YELLOW, bold=True)
TEXT_STYLE = Style()
DIM_STYLE = Style(fg=CYAN)
HEADING_STYLE = Style(fg=YELLOW, bold=True)
KEY_STYLE = Style(fg=YELLOW, bold=True)
SELECTED_STYLE = Style(fg=BLACK, bg=WHITE, reverse=False)


def clean(text: object, limit: int | None = None) -> str:
    """``text`` fit to show on someone's terminal: control and format characters
    (ESC, BEL, bidi overrides, …) removed, whitespace runs of tabs/newlines made spaces.
    ``limit`` clips to that many characters (with no ellipsis)."""
    value = text if type(text) is str else str(text)
    if value.isprintable():
        # Nothing to remove (the usual case, on every frame of every list): no control,
        # format, surrogate, private-use, unassigned or separator character but space.
        return value[:limit] if limit is not None else value
    return _clean_text(value, limit)


def _clean_text(text: str, limit: int | None) -> str:
    out: list[str] = []
    for ch in text:
        if ch in "\t\r\n":
            out.append(" ")
            continue
        cat = unicodedata.category(ch)
        if cat in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"):
            continue
        out.append(ch)
    result = "".join(out)
    return result[:limit] if limit is not None else result


# --- transitions -------------------------------------------------------------------


@dataclass(frozen=True)
class Push:
    """Show ``screen`` on top; the current one resumes when it pops."""

    screen: Screen


@dataclass(frozen=True)
class Replace:
    """Show ``screen`` instead of the current one."""

    screen: Screen


@dataclass(frozen=True)
class Pop:
    """Close the current screen; the one below gets ``on_resume(result)``."""

    result: Any = None


@dataclass(frozen=True)
class Quit:
    """End the session (G)oodbye)."""

    message: str | None = None


Transition = Push | Replace | Pop | Quit


# --- context ------------------------------------------------------------------------


class Context:
    """What a screen may use: the services, the signed-in user (``None`` before login),
    the terminal's caps and glyph table, the bell, the status line and the render caches
    (``caches``: shared by every session when ``App`` hands them down, else this one's).

    The session builds one per connection and keeps ``caps``/``glyphs`` current across
    resizes and charset changes.
    """

    def __init__(
        self,
        services: Services,
        user: User | None,
        caps: Caps,
        glyphs: Glyphs,
        *,
        ring: Callable[[], None] | None = None,
        on_user: Callable[[User], None] | None = None,
        caches: RenderCaches | None = None,
        time_left: Callable[[], float | None] | None = None,
    ) -> None:
        self.services = services
        self.time_left = time_left  # door mode: seconds the BBS allows (None: no limit)
        self.caches = caches if caches is not None else RenderCaches()
        self.user = user
        self.caps = caps
        self.glyphs = glyphs
        self.message: str | None = None
        self.previous_login: Any = None
        """The previous session's login (None: a first visit), fixed when this one began."""
        self.visit_started: Any = None
        """When this session's user signed in (what "your last visit was …" counts to)."""
        self._ring = ring
        self._on_user = on_user

    @property
    def sound(self) -> bool:
        """The user's sound setting (on when nobody is signed in)."""
        return self.user is None or bool(self.user.settings.sound)

    def bell(self) -> None:
        """Ring the bell (BEL) if the user has sound on; screens call this on their
        turn, on dice and on game end."""
        if self.sound and self._ring is not None:
            self._ring()

    def status(self, msg: str) -> None:
        """Show ``msg`` on the status line from the next render until the next key."""
        self.message = clean(msg)

    def time_left_text(self) -> str:
        """``"12 min left"`` in door mode with a time limit (for the title bar), else ``""``."""
        left = self.time_left() if self.time_left is not None else None
        if left is None:
            return ""
        return f"{max(1, math.ceil(left / 60))} min left"

    def set_user(self, user: User) -> None:
        """Record a signed-in or updated user (settings may change charset/colour)."""
        self.user = user
        if self._on_user is not None:
            self._on_user(user)


# --- the base screen -----------------------------------------------------------------


class Screen:
    """Base class: override what you need. ``title`` shows in the title bar and
    ``key_help`` on the bottom line (``render`` here draws both plus the status line)."""

    title: str = ""
    key_help: str = ""
    follow_up: Screen | None = None
    """A screen the session pushes on top of this one right after it is entered (used
    to open a start screen above the main menu)."""

    def render(self, canvas: Canvas, ctx: Context) -> None:
        """Draw everything, including the one-line key help at the bottom."""
        draw_chrome(canvas, ctx, self.title, self.key_help)

    async def on_enter(self, ctx: Context) -> None:
        """Load data from the services; called when the screen is first shown."""

    async def on_event(self, event: InputEvent, ctx: Context) -> Transition | None:
        """React to one input event."""
        return None

    async def on_notice(self, notice: Notice, ctx: Context) -> Transition | None:
        """A game notice arrived (the opponent moved, your turn, a game ended)."""
        return None

    async def on_resume(self, result: Any, ctx: Context) -> Transition | None:
        """The screen above popped (with ``result``); reload what may have changed."""
        return None


# --- drawing helpers ------------------------------------------------------------------


def draw_title(canvas: Canvas, ctx: Context, title: str, right: str = "") -> None:
    """Row 0: the title on the left, ``right`` (e.g. the user's name) on the right."""
    canvas.fill(0, 0, canvas.width, 1, " ", TITLE_STYLE)
    canvas.put(1, 0, clip_text(clean(title), canvas.width - 2), TITLE_STYLE)
    if right:
        r = clip_text(clean(right), max(canvas.width // 2 - 2, 0))
        canvas.put(canvas.width - 1 - text_width(r), 0, r, TITLE_STYLE)


def draw_help(canvas: Canvas, ctx: Context, text: str) -> None:
    """The last row: the one-line key help. Keys written as ``[X]`` or ``X)`` show in
    the key colour."""
    # Every screen draws this row on every key, and it is the same text most of the time.
    caches = ctx.caches
    width = canvas.width
    row = caches.help_rows.get((text, width), lambda: _help_row(text, width, caches))
    canvas.copy_rows(row, canvas.height - 1, 1, source_top=0)


def _help_row(text: str, width: int, caches: RenderCaches) -> Canvas:
    """The help row for ``text`` at ``width`` (callers only copy from it)."""
    canvas = caches.canvas(width, 1)
    y = 0
    canvas.fill(0, y, canvas.width, 1, " ", HELP_STYLE)
    x = 1
    text = clip_text(clean(text), canvas.width - 2)
    i = 0
    while i < len(text):
        ch = text[i]
        # A letter directly followed by ')' is a key name: "P)lay".
        is_key = i + 1 < len(text) and text[i + 1] == ")" and (i == 0 or text[i - 1] == " ")
        x = canvas.put(x, y, ch, HELP_KEY_STYLE if is_key else HELP_STYLE)
        i += 1
    return canvas


def draw_status(canvas: Canvas, ctx: Context) -> None:
    """The row above the help: the pending status message, if any."""
    if ctx.message:
        y = canvas.height - 2
        canvas.fill(0, y, canvas.width, 1, " ")
        canvas.put(1, y, clip_text(ctx.message, canvas.width - 2), STATUS_STYLE)


def draw_chrome(canvas: Canvas, ctx: Context, title: str, key_help: str) -> None:
    """Title bar, status line and key help: the frame every screen shares."""
    right = ctx.user.name if ctx.user is not None else ""
    left = ctx.time_left_text()
    if left:
        right = f"{left} · {right}" if right else left
    draw_title(canvas, ctx, title, right)
    draw_status(canvas, ctx)
    draw_help(canvas, ctx, key_help)
