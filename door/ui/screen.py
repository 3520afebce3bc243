"""The screen contract: what the session asks of every screen, and what it hands them.

A screen draws itself into a canvas (``render``), loads what it needs when it becomes
visible (``on_enter``), reacts to a key (``on_event``) or a game notice (``on_notice``) and
answers with a :class:`Transition` (or ``None`` to stay). Screens never write to the
terminal and never await input: the session (``door/session.py``) does both.

Layout every screen shares (helpers below): row 0 is the title bar, the last row the
key help (two or three rows when it does not fit in one), the row above it the status
message (``ctx.status``).

Screens lay out for at least :data:`LAYOUT_SIZE`. A smaller terminal (down to
:data:`MIN_SIZE`) gets :func:`fit_view`: the layout's body cropped and scrolled to keep its
focus row in sight, ``»`` where a row is cut on the right, and the title, status and key
help drawn again at the terminal's own size, so they are never lost. Below
:data:`MIN_SIZE` the terminal gets :func:`too_small_view`, a plain sentence saying so.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
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
from door.ui.mouse import Pick
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
CUT_STYLE = Style(fg=YELLOW, bold=True)

LAYOUT_SIZE = (80, 24)
"""The size every screen lays out for; a smaller terminal sees part of it (``fit_view``)."""
MIN_SIZE = (40, 15)
"""The smallest terminal door draws screens on; below it ``too_small_view`` says so."""
CUT_MARK = "»"
"""Shown in the last column of a row cut on the right (CP437 has it too)."""
TITLE_PREFIX = "door — "
"""How screen titles begin; a title bar too narrow for the whole title drops it first."""
HELP_ROWS_MAX = 3


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
        self.alert: str | None = None
        """A standing line the session keeps on the status row while ``message`` is
        empty (the database lost, then back: door/services/outage.py)."""
        self.chrome: tuple[str, str] | None = None
        """(title, key help) of the frame being drawn, as ``draw_chrome`` last drew it."""
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

    async def on_pick(self, pick: Pick, ctx: Context) -> Transition | None:
        """A click on a region drawn with a :class:`~door.ui.mouse.Pick` (a board point);
        screens that draw none ignore it."""
        return None

    async def on_resume(self, result: Any, ctx: Context) -> Transition | None:
        """The screen above popped (with ``result``); reload what may have changed."""
        return None


# --- drawing helpers ------------------------------------------------------------------


def draw_title(canvas: Canvas, ctx: Context, title: str, right: str = "") -> None:
    """Row 0: the title on the left, ``right`` (e.g. the user's name) on the right.

    Drawn once per process for each (title, right, width) into ``ctx.caches.title_rows``
    and copied in: every frame has it, it is the same on most keys, and measuring a title
    with a non-ASCII glyph in it ("·", "—") goes glyph by glyph."""
    width = canvas.width
    row = ctx.caches.title_rows.get(
        (title, right, width), partial(_title_row, title, right, width, ctx.caches)
    )
    canvas.copy_rows(row, 0, 1, source_top=0)


def _title_row(title: str, right: str, width: int, caches: RenderCaches) -> Canvas:
    """The title row for ``title`` and ``right`` at ``width`` (callers only copy from it)."""
    canvas = caches.canvas(width, 1)
    canvas.fill(0, 0, canvas.width, 1, " ", TITLE_STYLE)
    title = clean(title)
    if right:
        # The name (up to 20 letters) whole when there is room beside the title, and
        # on a narrow terminal at least half the row.
        room = max(canvas.width - 4 - text_width(title), canvas.width // 2 - 2, 0)
        r = clip_text(clean(right), room)
        canvas.put(canvas.width - 1 - text_width(r), 0, r, TITLE_STYLE)
        avail = max(canvas.width - 4 - text_width(r), 0)
        if text_width(title) > avail and title.startswith(TITLE_PREFIX):
            title = title[len(TITLE_PREFIX) :]  # the screen's own name, before the door's
        title = clip_text(title, avail)
    canvas.put(1, 0, clip_text(title, canvas.width - 2), TITLE_STYLE)
    return canvas


def help_lines(text: str, width: int) -> list[str]:
    """The key help ``text`` as the rows it takes at ``width`` columns: one when it fits,
    else its items (separated by two or more spaces) packed into up to
    :data:`HELP_ROWS_MAX` rows, so no key is cut off."""
    text = clean(text)
    room = max(width - 2, 1)
    if text_width(text) <= room:
        return [text]
    lines: list[str] = []
    cur = ""
    for item in re.split(r" {2,}| · ", text.strip()):
        # An item too long for a row of its own is broken between words.
        pieces = [item] if text_width(item) <= room else item.split(" ")
        for j, piece in enumerate(pieces):
            sep = " " if j else "  "
            joined = f"{cur}{sep}{piece}" if cur else piece
            if cur and text_width(joined) > room:
                lines.append(cur)
                cur = piece
            else:
                cur = joined
    if cur:
        lines.append(cur)
    if len(lines) > HELP_ROWS_MAX:
        lines = [*lines[: HELP_ROWS_MAX - 1], "  ".join(lines[HELP_ROWS_MAX - 1 :])]
    return [clip_text(line, room) for line in lines]


def help_layout(ctx: Context, text: str, width: int) -> tuple[str, ...]:
    """:func:`help_lines` of ``text`` at ``width``, laid out once per process: every frame
    asks two to four times, and measuring the text's width glyph by glyph (key help has
    arrows and dots) took 2% of a key's CPU (bench/session_keys.py)."""
    return ctx.caches.help_layouts.get((text, width), lambda: tuple(help_lines(text, width)))


def draw_help(canvas: Canvas, ctx: Context, text: str) -> int:
    """The last row (or rows, see ``help_lines``): the key help. Keys written as ``[X]``
    or ``X)`` show in the key colour. Returns the number of rows used."""
    # Every screen draws this row on every key, and it is the same text most of the time.
    caches = ctx.caches
    width = canvas.width
    lines = help_layout(ctx, text, width)
    top = canvas.height - len(lines)
    for i, line in enumerate(lines):
        row = caches.help_rows.get((line, width), partial(_help_row, line, width, caches))
        canvas.copy_rows(row, top + i, 1, source_top=0)
    return len(lines)


HELP_WORD_KEYS = {"enter": "enter", "esc": "escape"}
"""Words on the key-help line that are keys themselves ("Enter pick/drop")."""


def _help_row(text: str, width: int, caches: RenderCaches) -> Canvas:
    """The help row for ``text`` at ``width`` (callers only copy from it). Each key shown
    (``X)word``, or an ``Enter``/``Esc`` word) is clickable as that key, over its whole
    label ("Y)es, log off", "Esc back")."""
    canvas = caches.canvas(width, 1)
    y = 0
    canvas.fill(0, y, canvas.width, 1, " ", HELP_STYLE)
    x = 1
    text = clip_text(clean(text), canvas.width - 2)
    starts: list[int] = []  # the column of each character
    i = 0
    while i < len(text):
        ch = text[i]
        # A letter directly followed by ')' is a key name: "P)lay".
        is_key = i + 1 < len(text) and text[i + 1] == ")" and (i == 0 or text[i - 1] == " ")
        starts.append(x)
        x = canvas.put(x, y, ch, HELP_KEY_STYLE if is_key else HELP_STYLE)
        i += 1
    starts.append(x)
    for key, first, end in _help_keys(text):
        canvas.clickable(starts[first], y, starts[end] - starts[first], 1, key)
    return canvas


def _help_keys(text: str) -> list[tuple[str, int, int]]:
    """(key, first character, end) of each key label on a key-help line: from its key
    word to the next key word, a gap of two spaces, a `` · `` or the end."""
    out: list[tuple[str, int, int]] = []
    key: str | None = None
    first = end = 0
    for m in re.finditer(r"\S+", text):
        word = m.group()
        gap = text[end : m.start()]
        if key is not None and ("  " in gap or word == "·"):
            out.append((key, first, end))
            key = None
        if word == "·":
            continue
        name = HELP_WORD_KEYS.get(re.split(r"[/,]", word, maxsplit=1)[0].lower())
        if len(word) > 1 and word[1] == ")":
            name = word[0].lower()
        if name is not None:
            if key is not None:
                out.append((key, first, end))
            key, first = name, m.start()
        end = m.end()
    if key is not None:
        out.append((key, first, end))
    return out


def draw_status(canvas: Canvas, ctx: Context, help_rows: int = 1) -> None:
    """The row above the help: the pending status message, else the standing alert
    (``ctx.alert``), if any."""
    text = ctx.message or ctx.alert
    if text:
        y = canvas.height - 1 - help_rows
        canvas.fill(0, y, canvas.width, 1, " ")
        canvas.put(1, y, clip_text(text, canvas.width - 2), STATUS_STYLE)


def draw_chrome(canvas: Canvas, ctx: Context, title: str, key_help: str) -> None:
    """Title bar, status line and key help: the frame every screen shares."""
    ctx.chrome = (title, key_help)
    right = ctx.user.name if ctx.user is not None else ""
    left = ctx.time_left_text()
    if left:
        right = f"{left} · {right}" if right else left
    draw_title(canvas, ctx, title, right)
    draw_status(canvas, ctx, len(help_layout(ctx, key_help, canvas.width)))
    draw_help(canvas, ctx, key_help)


# --- terminals smaller than the layout --------------------------------------------------


def is_too_small(width: int, height: int) -> bool:
    """True when a terminal is below :data:`MIN_SIZE`."""
    return width < MIN_SIZE[0] or height < MIN_SIZE[1]


def word_lines(text: str, width: int) -> list[str]:
    """``text`` broken at spaces into lines of at most ``width`` columns (a word longer
    than a line has a line of its own, for the caller to cut)."""
    lines: list[str] = []
    cur = ""
    for word in text.split():
        joined = f"{cur} {word}" if cur else word
        if cur and text_width(joined) > width:
            lines.append(cur)
            cur = word
        else:
            cur = joined
    lines.append(cur)
    return lines


def too_small_view(ctx: Context, width: int, height: int) -> Canvas:
    """A terminal below :data:`MIN_SIZE`: the sentence that says so, wrapped to fit."""
    view = ctx.caches.canvas(max(width, 1), max(height, 1))
    text = (
        f"Your terminal is {width}×{height}; door needs at least "
        f"{MIN_SIZE[0]}×{MIN_SIZE[1]}. Make the window larger to go on."
    )
    for y, line in enumerate(word_lines(text, width)[:height]):
        view.put(0, y, line, STATUS_STYLE)
    return view


def _wrapped_focus(canvas: Canvas, focus: int | None, width: int) -> list[tuple[str, Style]]:
    """The focus row's text word-wrapped to ``width`` (with its first glyph's style), or
    nothing when it fits."""
    if focus is None or not 0 <= focus < canvas.height:
        return []
    cells = canvas.row_cells(focus)
    if not any(ch.strip() for ch, _ in cells[width:]):
        return []
    text = "".join(ch for ch, _ in cells).strip()
    style = next((st for ch, st in cells if ch.strip()), TEXT_STYLE)
    return [(clip_text(line, width - 2), style) for line in word_lines(text, width - 2)[:3]]


def fit_view(canvas: Canvas, ctx: Context, width: int, height: int) -> Canvas:
    """What a ``width`` × ``height`` terminal shows of ``canvas`` (drawn at the layout
    size): the title, status and key help drawn again at the terminal's size, and between
    them as many of the layout's body rows as fit, scrolled down just far enough to keep
    ``canvas.focus`` (or the cursor's row, or ``canvas.prompt``, a question that is
    word-wrapped if it is cut) in sight. A row cut on the right ends in :data:`CUT_MARK`."""
    view = ctx.caches.canvas(width, height)
    chrome = ctx.chrome
    help_rows = len(help_layout(ctx, chrome[1], width)) if chrome is not None else 0
    status_rows = 1 if chrome is not None else 0
    first = 1 if chrome is not None else 0
    body = max(height - first - help_rows - status_rows, 1)
    # The layout's own body: under its title, above its status and help rows.
    src_end = canvas.height - 2 if chrome is not None else canvas.height
    if chrome is not None:
        src_end = canvas.height - 1 - len(help_layout(ctx, chrome[1], canvas.width))
    focus = canvas.focus
    wrapped: list[tuple[str, Style]] = []
    if canvas.cursor is not None:
        focus = canvas.cursor[1]
    elif canvas.prompt is not None:
        # A question cut on the right is wrapped onto the rows under it.
        focus = canvas.prompt
        wrapped = _wrapped_focus(canvas, focus, width)
    need = focus + len(wrapped) - 1 if (focus is not None and wrapped) else focus
    top = first
    if need is not None and need >= top + body:
        top = min(need - body + 1, max(src_end - body, first))
    if canvas.regions:
        view._take_regions(canvas, 0, first - top, first, first + max(min(body, src_end - top), 0))
    view.wheel = canvas.wheel
    for i in range(body):
        src = top + i
        if src >= src_end:
            break
        y = first + i
        cells = canvas.row_cells(src)
        for x in range(width):
            ch, style = cells[x]
            if ch:
                view.put(x, y, ch, style)
        if any(ch.strip() for ch, _ in cells[width:]):
            view.put(width - 1, y, CUT_MARK, CUT_STYLE)
    if wrapped and focus is not None:
        for i, (line, style) in enumerate(wrapped):
            y = focus - top + first + i
            if first <= y < first + body:
                view.fill(0, y, width, 1, " ")
                view.put(1, y, line, style)
    if canvas.cursor is not None:
        cx, cy = canvas.cursor
        if cx < width and top <= cy < top + body:
            view.cursor = (cx, cy - top + first)
    if chrome is not None:
        title, key_help = chrome
        right = ctx.user.name if ctx.user is not None else ""
        draw_title(view, ctx, title, right)
        draw_status(view, ctx, help_rows)
        draw_help(view, ctx, key_help)
    return view
