"""Widgets: menus as data, a line editor and a paged list.

Widgets hold state, draw into a canvas and return results from ``handle(event)``; they
never write to the terminal and never await. A screen owns its widgets, feeds them the
events it gets and acts on what they return.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

from door.ui.canvas import BLACK, BLUE, CYAN, WHITE, YELLOW, Canvas, Style, clip_text, text_width
from door.ui.screen import clean
from door.ui.terminal import InputEvent, Key, Text

T = TypeVar("T")

MENU_STYLE = Style(fg=WHITE)
MENU_KEY_STYLE = Style(fg=YELLOW, bold=True)
MENU_SELECTED = Style(fg=BLACK, bg=CYAN)
MENU_DISABLED = Style(fg=BLACK, bold=True)
EDIT_STYLE = Style(fg=WHITE, bg=BLUE, bold=True)
LIST_STYLE = Style(fg=WHITE)
LIST_SELECTED = Style(fg=BLACK, bg=CYAN)
LIST_HEADER = Style(fg=YELLOW, bold=True, underline=False)
LIST_FOOTER = Style(fg=CYAN)


@dataclass(frozen=True)
class MenuItem:
    """One menu line: ``key`` (a letter or digit, matched ignoring case), ``label``
    (shown after ``key)``), ``action`` (whatever the screen wants back), optional
    right-hand ``note`` (e.g. a count) and ``enabled``."""

    key: str
    label: str
    action: Any = None
    note: str = ""
    enabled: bool = True


class Menu:
    """A vertical menu: a letter picks its item at once; arrows move the bar and Enter
    picks the highlighted item. ``handle`` returns the chosen :class:`MenuItem` or None."""

    def __init__(self, items: Sequence[MenuItem], selected: int = 0) -> None:
        self.items = list(items)
        self.selected = min(max(selected, 0), max(len(self.items) - 1, 0))
        self._skip_disabled(1)

    def _skip_disabled(self, step: int) -> None:
        n = len(self.items)
        for _ in range(n):
            if self.items[self.selected].enabled:
                return
            self.selected = (self.selected + step) % n

    def select_action(self, action: Any) -> None:
        """Move the bar to the item whose action is ``action`` (if any)."""
        for i, item in enumerate(self.items):
            if item.action == action:
                self.selected = i
                return

    def handle(self, event: InputEvent) -> MenuItem | None:
        """The item chosen by ``event`` (letter key or Enter), or None."""
        if not self.items:
            return None
        if isinstance(event, Text):
            ch = event.text.strip()[:1].lower()
            if not ch:
                return None
            for i, item in enumerate(self.items):
                if item.enabled and item.key.lower() == ch:
                    self.selected = i
                    return item
            return None
        if isinstance(event, Key):
            n = len(self.items)
            if event.name in ("up", "left"):
                self.selected = (self.selected - 1) % n
                self._skip_disabled(-1)
            elif event.name in ("down", "right", "tab"):
                self.selected = (self.selected + 1) % n
                self._skip_disabled(1)
            elif event.name == "home":
                self.selected = 0
                self._skip_disabled(1)
            elif event.name == "end":
                self.selected = n - 1
                self._skip_disabled(-1)
            elif event.name == "enter":
                item = self.items[self.selected]
                return item if item.enabled else None
        return None

    def width(self) -> int:
        """Columns the widest line needs."""
        return max((4 + text_width(clean(i.label)) + (2 + len(i.note) if i.note else 0)
                    for i in self.items), default=0)  # fmt: skip

    def render(
        self, canvas: Canvas, x: int, y: int, width: int | None = None, *, clickable: bool = True
    ) -> int:
        """Draw at (x, y), one item per row; returns the rows used. Each enabled line is
        clickable as its letter (``clickable=False``: a menu shown but not answering now)."""
        width = width or self.width() + 2
        for i, item in enumerate(self.items):
            row = y + i
            selected = i == self.selected
            base = MENU_SELECTED if selected else (MENU_STYLE if item.enabled else MENU_DISABLED)
            keyst = MENU_SELECTED if selected else (MENU_KEY_STYLE if item.enabled else base)
            canvas.fill(x, row, width, 1, " ", base)
            cx = canvas.put(x + 1, row, item.key.upper(), keyst)
            cx = canvas.put(cx, row, ")", base)
            label = clean(item.label)
            note = clean(item.note)
            room = width - 4 - (len(note) + 1 if note else 0)
            if text_width(label) > room > 1:  # cut short: say so, and keep the note
                label = clip_text(label, room - 1) + "…"
            canvas.put(cx + 1, row, clip_text(label, max(room, 0)), base)
            if note:
                canvas.put(x + width - 1 - text_width(note), row, note, base)
            if selected:
                canvas.focus = row  # kept in sight on a small terminal
            if item.enabled and clickable:
                canvas.clickable(x, row, width, 1, item.key.lower())  # a click: its letter
        return len(self.items)


EditResult = Literal["submit", "cancel", "changed"]


UNDECODABLE = "\ufffd"
"""What the key decoder makes of bytes that are not text in the session's encoding: never
something typed, so never part of a field."""


class LineEditor:
    """One line of typed text (a name, a password, a move in notation).

    ``handle`` returns ``"submit"`` on Enter, ``"cancel"`` on Escape, ``"changed"`` when
    the text or cursor moved, ``None`` for events it does not use. Only printable
    characters are accepted (not controls, nor the stand-in for undecodable bytes);
    ``max_len`` caps the length; ``secret`` shows stars.
    """

    def __init__(
        self,
        text: str = "",
        *,
        max_len: int = 60,
        secret: bool = False,
        allowed: Callable[[str], bool] | None = None,
    ) -> None:
        self.max_len = max_len
        self.secret = secret
        self.allowed = allowed
        self.text = clean(text)[:max_len]
        self.pos = len(self.text)

    def clear(self) -> None:
        self.text = ""
        self.pos = 0

    def set(self, text: str) -> None:
        self.text = clean(text)[: self.max_len]
        self.pos = len(self.text)

    def handle(self, event: InputEvent) -> EditResult | None:
        if isinstance(event, Text):
            typed = clean(event.text).replace(UNDECODABLE, "")
            if self.allowed is not None:
                typed = "".join(ch for ch in typed if self.allowed(ch))
            room = self.max_len - len(self.text)
            typed = typed[:room]
            if not typed:
                return None
            self.text = self.text[: self.pos] + typed + self.text[self.pos :]
            self.pos += len(typed)
            return "changed"
        if not isinstance(event, Key):
            return None
        name = event.name
        if name == "enter":
            return "submit"
        if name == "escape":
            return "cancel"
        if name in ("backspace", "ctrl-h"):
            if self.pos == 0:
                return None
            self.text = self.text[: self.pos - 1] + self.text[self.pos :]
            self.pos -= 1
        elif name in ("delete", "ctrl-d"):
            if self.pos >= len(self.text):
                return None
            self.text = self.text[: self.pos] + self.text[self.pos + 1 :]
        elif name == "left":
            self.pos = max(self.pos - 1, 0)
        elif name == "right":
            self.pos = min(self.pos + 1, len(self.text))
        elif name in ("home", "ctrl-a"):
            self.pos = 0
        elif name in ("end", "ctrl-e"):
            self.pos = len(self.text)
        elif name == "ctrl-u":
            self.clear()
        else:
            return None
        return "changed"

    def render(self, canvas: Canvas, x: int, y: int, width: int, focused: bool = True) -> None:
        """Draw the field (``width`` columns) and, when focused, place the cursor in it."""
        shown = "*" * len(self.text) if self.secret else self.text
        # Scroll so the cursor stays visible in a narrow field.
        start = max(0, self.pos - width + 1)
        canvas.fill(x, y, width, 1, " ", EDIT_STYLE)
        canvas.put(x, y, clip_text(shown[start:], width), EDIT_STYLE)
        if focused:
            canvas.cursor = (x + text_width(shown[start : self.pos]), y)


@dataclass(frozen=True)
class ListAction(Generic[T]):
    """What a list event asks for: ``"open"`` the ``item``, or fetch the ``"page"``
    starting at ``offset``."""

    kind: Literal["open", "page"]
    item: T | None = None
    offset: int = 0


class ListView(Generic[T]):
    """A list shown a page at a time; the items of the current page are set by the
    owner (who may fetch them from a service: ``total`` is the count of all items).

    Up/Down move the bar (crossing a page edge asks for the next/previous page),
    PgUp/PgDn/N/P page, Enter opens the highlighted item.
    """

    def __init__(self, page_size: int = 10) -> None:
        self.page_size = max(page_size, 1)
        self.items: list[T] = []
        self.total = 0
        self.offset = 0
        self.selected = 0

    def set_page(self, items: Sequence[T], total: int, offset: int) -> None:
        self.items = list(items)
        self.total = total
        self.offset = offset
        self.selected = min(self.selected, max(len(self.items) - 1, 0))

    @property
    def current(self) -> T | None:
        return self.items[self.selected] if self.items else None

    @property
    def page(self) -> int:
        return self.offset // self.page_size + 1

    @property
    def pages(self) -> int:
        return max((self.total + self.page_size - 1) // self.page_size, 1)

    def _page_to(self, offset: int, select: int) -> ListAction[T] | None:
        if offset < 0 or offset >= max(self.total, 1) or offset == self.offset:
            return None
        self.selected = select
        return ListAction("page", offset=offset)

    def handle(self, event: InputEvent) -> ListAction[T] | None:
        if isinstance(event, Text):
            ch = event.text[:1].lower()
            if ch in ("n", "+", ">"):
                return self._page_to(self.offset + self.page_size, 0)
            if ch in ("p", "-", "<"):
                return self._page_to(self.offset - self.page_size, 0)
            return None
        if not isinstance(event, Key):
            return None
        if event.name == "up":
            if self.selected > 0:
                self.selected -= 1
            else:
                return self._page_to(self.offset - self.page_size, self.page_size - 1)
        elif event.name == "down":
            if self.selected < len(self.items) - 1:
                self.selected += 1
            else:
                return self._page_to(self.offset + self.page_size, 0)
        elif event.name == "pgdn":
            return self._page_to(self.offset + self.page_size, 0)
        elif event.name == "pgup":
            return self._page_to(self.offset - self.page_size, 0)
        elif event.name == "home":
            self.selected = 0
        elif event.name == "end":
            self.selected = max(len(self.items) - 1, 0)
        elif event.name == "enter" and self.items:
            return ListAction("open", item=self.items[self.selected])
        return None

    def render(
        self,
        canvas: Canvas,
        x: int,
        y: int,
        width: int,
        header: str,
        format_row: Callable[[T], str],
        empty: str = "Nothing here.",
    ) -> None:
        """Header line, one line per item on this page, then a footer with the page; a
        click on a row opens it (as the arrows and Enter would), the wheel moves the bar."""
        canvas.put(x, y, clip_text(header, width), LIST_HEADER)
        if not self.items:
            canvas.put(x + 1, y + 2, clip_text(empty, width - 1), LIST_STYLE)
        for i, item in enumerate(self.items):
            style = LIST_SELECTED if i == self.selected else LIST_STYLE
            canvas.fill(x, y + 1 + i, width, 1, " ", style)
            canvas.put(x, y + 1 + i, clip_text(clean(format_row(item)), width), style)
            # A click on a row: the bar moved there with the keys, then Enter.
            canvas.clickable(x, y + 1 + i, width, 1, ("home", *(("down",) * i), "enter"))
        canvas.wheel = ("up", "down")  # the wheel moves the bar, page to page
        if self.items:
            canvas.focus = y + 1 + self.selected  # kept in sight on a small terminal
        footer = f"Page {self.page} of {self.pages}  ({self.total} in all)"
        canvas.put(x, y + 2 + self.page_size, clip_text(footer, width), LIST_FOOTER)


def abbreviate(name: str, width: int) -> str:
    """``name`` in at most ``width`` columns: whole when it fits, else its start, ``…``
    and its end (where names that share a prefix, like the bots' ``spectrangle-expert``
    and ``spectrangle-easy``, differ)."""
    if text_width(name) <= width:
        return name
    if width <= 1:
        return name[:width]
    head = min(4, (width - 1) // 3)
    tail = width - 1 - head
    return name[:head] + "…" + (name[-tail:] if tail > 0 else "")


def short_names(names: Sequence[str], width: int) -> list[str]:
    """Every name of ``names`` in at most ``width`` columns (see :func:`abbreviate`),
    never two different names shown alike: a clash keeps more of their ends."""
    out = [abbreviate(n, width) for n in names]
    for i, shown in enumerate(out):
        for j in range(i + 1, len(out)):
            if out[j] == shown and names[j] != names[i]:
                # Same start and end: show the ends only, which then differ (or the
                # names are equal up to width, where nothing shorter could help).
                out[i] = "…" + names[i][-(width - 1) :]
                out[j] = "…" + names[j][-(width - 1) :]
    return out


def fit_names(names: Sequence[str], room: int, sep: str = " v ") -> str:
    """``names`` joined by ``sep`` in at most ``room`` columns: whole when they fit, else
    the longest shortened first (see :func:`abbreviate`), never two shown alike."""
    widths = [text_width(n) for n in names]
    need = sum(widths) + len(sep) * max(len(names) - 1, 0)
    while need > room and max(widths, default=0) > 4:
        i = widths.index(max(widths))
        widths[i] -= 1
        need -= 1
    shown = [abbreviate(n, w) for n, w in zip(names, widths, strict=True)]
    if len(set(shown)) < len(set(names)):
        shown = short_names(names, max(min(widths), 4))
    return clip_text(sep.join(shown), room)


def fit_phrases(text: str, room: int) -> str:
    """``text`` in ``room`` columns, dropping whole trailing ``", "`` phrases before
    cutting one ("5-pt match, 2-1, Black to roll" → "5-pt match, 2-1")."""
    parts = text.split(", ")
    while len(parts) > 1 and text_width(", ".join(parts)) > room:
        parts.pop()
    out = ", ".join(parts)
    if text_width(out) <= room:
        return out
    # One phrase too long: whole words and "…" ("drawing pieces…"), never half a word.
    words = out.split(" ")
    while len(words) > 1 and text_width(" ".join(words)) > room - 1:
        words.pop()
    return clip_text(" ".join(words), room - 1) + "…"
