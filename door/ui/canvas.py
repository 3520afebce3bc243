"""A cell canvas that screens draw into, and the diff that sends only what changed.

Screens never write to the terminal: they draw into a :class:`Canvas` (a grid of cells,
each one glyph plus a :class:`Style`), and the session sends ``diff(previous, new, caps)``.
Cells hold Unicode; the terminal encodes to CP437 or UTF-8. Widths are measured with
``wcwidth``: a double-width glyph takes its cell and the next (which then holds ``""``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from itertools import groupby
from operator import itemgetter
from typing import Any

from wcwidth import wcwidth

from door.ui.mouse import Region, Target
from door.ui.terminal import Caps

ESC = "\x1b"
CSI = "\x1b["

# Colour numbers, for readable screen code.
BLACK, RED, GREEN, YELLOW, BLUE, MAGENTA, CYAN, WHITE = range(8)


@dataclass(frozen=True)
class Style:
    """How a cell looks: 16 ANSI colours (0 black, 1 red, 2 green, 3 yellow, 4 blue,
    5 magenta, 6 cyan, 7 white; ``bold`` makes the foreground bright; ``fg`` 8–15 is
    accepted as the bright form of 0–7) plus attributes. In no-colour mode only the
    attributes are sent."""

    fg: int = 7
    bg: int = 0
    bold: bool = False
    reverse: bool = False
    underline: bool = False
    blink: bool = False


DEFAULT = Style()
Cell = tuple[str, Style]

NARROW_CELLS_KEPT = 512
"""Texts whose cells the style table remembers per style (then it starts afresh)."""
ALIASES_KEPT = 4096
"""Style objects (not values) the style table remembers the canonical one of."""


GLYPH_CELLS_KEPT = 4096
"""Glyphs a style table keeps the cell of, per style (then it starts afresh)."""
REGIONS_KEPT = 4096
"""Clickable regions a style table keeps one object of (then it starts afresh)."""
SPARE_CANVASES_KEPT = 8
"""Finished frames a style table keeps to be drawn over again (see ``spare_canvas``)."""

_UNKNOWN: Any = object()  # a text not looked at yet (see narrow_cells)


class _GlyphCells(dict[str, Cell]):
    """The cell of each glyph in one canonical style, made when first asked for."""

    def __init__(self, style: Style) -> None:
        super().__init__()
        self.style = style

    def __missing__(self, glyph: str) -> Cell:
        cell = self[glyph] = (glyph, self.style)
        return cell


class StyleTable:
    """One canonical object per distinct :class:`Style` value, and what is worked out
    from canonical styles: the SGR text between two of them and the cells of a text.

    Comparing canvases (``diff``) is then mostly an identity check rather than a
    dataclass ``__eq__`` call per cell. Canvases that share a table (a session's frames,
    the board drawings and help rows of :class:`~door.ui.caches.RenderCaches`) share
    canonical styles. The table keeps every style it was shown alive, so the ids it is
    keyed by stay theirs; no style is ever changed.
    """

    def __init__(self) -> None:
        self._by_value: dict[Style, Style] = {DEFAULT: DEFAULT}
        # id of a style object seen → its canonical style; the object itself is kept
        # alive beside it (in ``_seen``) so that its id cannot be reused.
        self._by_id: dict[int, Style] = {id(DEFAULT): DEFAULT}
        self._seen: list[Style] = [DEFAULT]
        self._sgr: dict[tuple[int, int, int], str] = {}
        self._cells: dict[int, dict[str, tuple[Cell, ...] | None]] = {}
        # canonical style's id → its cell of each glyph: the cells of every text in that
        # style are the same few tuples (see narrow_cells)
        self._glyph_cells: dict[int, _GlyphCells] = {}
        self._regions: dict[tuple[int, int, int, int, Target, Target | None], Region] = {}
        self._spares: list[Canvas] = []

    def region(
        self, x: int, y: int, w: int, h: int, target: Target, right: Target | None
    ) -> Region:
        """The one :class:`Region` of this value: a layout draws the same regions on
        every frame and into every cached board, and one object each (rather than a
        new one a drawing) took ~15 KiB a session at 500 sessions."""
        key = (x, y, w, h, target, right)
        found = self._regions.get(key)
        if found is None:
            if len(self._regions) >= REGIONS_KEPT:
                self._regions.clear()
            found = self._regions[key] = Region(x, y, w, h, target, right)
        return found

    def spare_canvas(self, width: int, height: int) -> Canvas:
        """A blank ``width`` × ``height`` canvas on this table: a frame some session has
        finished with (cleared, its old row lists kept: see ``Canvas.clear``), else a
        new one. Sessions draw a frame and diff it at once, without waiting, so a few
        spares serve every session of the process: each session keeps only the frame
        it last showed (a spare a session ~17 KiB at 80×24)."""
        spares = self._spares
        for i in range(len(spares) - 1, -1, -1):
            canvas = spares[i]
            if canvas.width == width and canvas.height == height:
                del spares[i]
                canvas.clear()
                return canvas
        return Canvas(width, height, self)

    def give_back(self, canvas: Canvas) -> None:
        """``canvas`` is no longer shown or read by anyone: ``spare_canvas`` may hand it
        out again (the caller keeps no reference to it)."""
        if canvas.styles is self:
            if len(self._spares) >= SPARE_CANVASES_KEPT:
                del self._spares[0]  # the one given back longest ago
            self._spares.append(canvas)

    def canonical(self, style: Style) -> Style:
        """The one object of ``style``'s value."""
        found = self._by_id.get(id(style))
        if found is not None:
            return found
        found = self._by_value.setdefault(style, style)
        if len(self._seen) >= ALIASES_KEPT:
            self._by_id = {id(s): s for s in self._by_value.values()}
            self._seen = list(self._by_value.values())
        self._by_id[id(style)] = found
        self._seen.append(style)
        return found

    def is_canonical(self, style: Style) -> bool:
        return self._by_id.get(id(style)) is style

    def narrow_cells(self, text: str, style: Style) -> tuple[Cell, ...] | None:
        """The cells of ``text`` in the canonical ``style`` if every glyph of it takes
        one column, else ``None`` (remembered per style: hashing a text is cheap)."""
        memo = self._cells.get(id(style))
        if memo is None:
            memo = self._cells[id(style)] = {}
        cells: tuple[Cell, ...] | None = memo.get(text, _UNKNOWN)
        if cells is _UNKNOWN:
            if len(memo) >= NARROW_CELLS_KEPT:
                memo.clear()
            cells = None
            if _all_narrow(text):
                # one shared cell per glyph and style rather than a new pair per
                # character: a text is one new tuple (a list row's 70 pairs each were
                # young objects that every garbage collection walked)
                glyph = self._glyph_cells.get(id(style))
                if glyph is None or glyph.style is not style or len(glyph) >= GLYPH_CELLS_KEPT:
                    glyph = self._glyph_cells[id(style)] = _GlyphCells(style)
                cells = tuple(map(glyph.__getitem__, text))
            memo[text] = cells
        return cells

    def sgr_between(self, cur: Style | None, new: Style, colors: int) -> str:
        """``_sgr_change``, remembered when both styles are canonical here."""
        key = (id(cur), id(new), colors)
        change = self._sgr.get(key)
        if change is not None:
            # Only canonical pairs are stored, and they live as long as the table: no
            # other object can have their ids.
            return change
        change = _sgr_change(cur, new, colors)
        if self.is_canonical(new) and (cur is None or self.is_canonical(cur)):
            self._sgr[key] = change
        return change


def char_width(ch: str) -> int:
    """Columns ``ch`` takes: 0 for combining marks, 2 for wide glyphs, -1 for controls."""
    if " " <= ch <= "~":
        return 1
    return int(wcwidth(ch))  # wcwidth remembers its answers


def _all_narrow(text: str) -> bool:
    """Every character of ``text`` takes exactly one column (no controls, marks, wide)."""
    if text.isascii():
        return text.isprintable()
    return all(char_width(ch) == 1 for ch in text)


def text_width(text: str) -> int:
    """Columns ``text`` takes on a terminal (control characters count as one, as
    :meth:`Canvas.put` shows them as ``?``)."""
    if text.isascii():
        return len(text)  # one column each, controls included
    total = 0
    for ch in text:
        w = char_width(ch)
        total += 1 if w < 0 else w
    return total


def clip_text(text: str, width: int) -> str:
    """The longest prefix of ``text`` that fits in ``width`` columns."""
    if text.isascii():
        return text[: max(width, 0)]  # one column each, controls included
    total = 0
    for i, ch in enumerate(text):
        w = char_width(ch)
        w = 1 if w < 0 else w
        if total + w > width:
            return text[:i]
        total += w
    return text


class Canvas:
    """A ``width`` × ``height`` grid of cells, blank (space, default style) at first.

    ``cursor`` is where the terminal cursor should be shown after a flush (``None``
    hides it), e.g. at the end of a line being typed. ``focus`` is a row that must stay in
    sight when a terminal smaller than the layout shows only part of it (a question, the
    highlighted list row); the cursor's row counts too. ``prompt`` is a question's row:
    kept in sight like ``focus`` and word-wrapped there when cut. ``styles`` is the style table its
    cells' styles are made canonical in (a new one if not given; canvases that are
    compared or copied between should share one). ``regions`` are the clickable places
    drawn so far (``clickable``; the last drawn wins where they overlap) and ``wheel``
    the keys the mouse wheel sends here (up, down), e.g. a list's arrows (door/ui/mouse.py).
    """

    def __init__(self, width: int, height: int, styles: StyleTable | None = None) -> None:
        if width < 1 or height < 1:
            raise ValueError(f"canvas must be at least 1×1, not {width}×{height}")
        self.width = width
        self.height = height
        self.styles = styles if styles is not None else StyleTable()
        self.cursor: tuple[int, int] | None = None
        self.focus: int | None = None
        self.prompt: int | None = None
        self.regions: list[Region] = []
        self.wheel: tuple[Target, Target] | None = None
        self._rows: list[list[Cell]] = [[(" ", DEFAULT)] * width for _ in range(height)]
        # Whether a wide glyph was ever drawn: rows of narrow glyphs only let ``diff``
        # compare cell by cell without working out glyph units.
        self._wide = False

    def clear(self) -> None:
        """Blank every cell again (and hide the cursor), keeping the row lists.

        A session draws each frame into a finished frame (``StyleTable.spare_canvas``)
        instead of a new one: hundreds of sessions making 24 new row lists of 80
        references a key kept the garbage collector's young generation full of them, and every
        collection walked them all (pauses of 50-200 ms at 550 players). Reused rows
        grow old and are left alone.
        """
        blank = [(" ", DEFAULT)] * self.width
        for row in self._rows:
            row[:] = blank
        self.cursor = None
        self.focus = None
        self.prompt = None
        self.regions = []
        self.wheel = None
        self._wide = False

    # --- drawing -----------------------------------------------------------------
    def put(self, x: int, y: int, text: str, style: Style = DEFAULT) -> int:
        """Write ``text`` from column ``x`` of row ``y``, clipped at the edges.

        Control characters show as ``?``; combining marks join the glyph before them; a
        wide glyph that would straddle the right edge is dropped. Returns the column just
        after the text (useful for writing runs of differently styled text).
        """
        if y < 0 or y >= self.height:
            return x + text_width(text)
        styles = self.styles
        canon = styles._by_id.get(id(style))  # (``canonical``, without the call)
        style = canon if canon is not None else styles.canonical(style)
        row = self._rows[y]
        cells = None if self._wide else styles.narrow_cells(text, style)
        if cells is not None:
            # The common case, as one slice: no wide glyph anywhere to split, every
            # glyph one column (what the loop below would do, cell by cell). The same
            # texts are drawn over and over (menus, list rows, labels), so their cells
            # are made once.
            start, end = max(x, 0), min(x + len(text), self.width)
            if start < end:
                row[start:end] = cells if end - start == len(text) else cells[start - x : end - x]
            return x + len(text)
        for ch in text:
            w = char_width(ch)
            if w < 0:
                ch, w = "?", 1
            if w == 0:
                # A combining mark: attach to the glyph just written, if it is on canvas.
                px = x - 1
                if 0 <= px < self.width:
                    if row[px][0] == "" and px > 0:
                        px -= 1
                    glyph, st = row[px]
                    if glyph:
                        row[px] = (glyph + ch, st)
                continue
            if x >= 0 and x + w <= self.width:
                self._clear_overlap(row, x, w)
                row[x] = (ch, style)
                if w == 2:
                    row[x + 1] = ("", style)
                    self._wide = True
            elif x < self.width and x + w > 0:
                # Straddles an edge: show blanks where it would have been.
                for cx in range(max(x, 0), min(x + w, self.width)):
                    self._clear_overlap(row, cx, 1)
                    row[cx] = (" ", style)
            x += w
        return x

    def _clear_overlap(self, row: list[Cell], x: int, w: int) -> None:
        # Overwriting half of a wide glyph blanks its other half.
        if row[x][0] == "" and x > 0:
            row[x - 1] = (" ", row[x - 1][1])
        end = x + w - 1
        if (
            end + 1 < self.width
            and row[end + 1][0] == ""
            and row[end][0] != ""
            and char_width(row[end][0][:1] or " ") == 2
        ):
            row[end + 1] = (" ", row[end + 1][1])

    def fill(self, x: int, y: int, w: int, h: int, ch: str = " ", style: Style = DEFAULT) -> None:
        """Fill the rectangle with ``ch`` (one narrow glyph), clipped at the edges."""
        if char_width(ch) != 1:
            raise ValueError(f"fill needs a single-width glyph, not {ch!r}")
        style = self.styles.canonical(style)
        x0, x1 = max(x, 0), min(x + w, self.width)
        for cy in range(max(y, 0), min(y + h, self.height)):
            row = self._rows[cy]
            if not self._wide:
                if x0 < x1:
                    row[x0:x1] = [(ch, style)] * (x1 - x0)
                continue
            for cx in range(max(x, 0), min(x + w, self.width)):
                self._clear_overlap(row, cx, 1)
                row[cx] = (ch, style)

    def box(
        self, x: int, y: int, w: int, h: int, style: Style = DEFAULT, double: bool = False
    ) -> None:
        """Draw a single- or double-line frame (box glyphs exist in CP437 and UTF-8)."""
        if w < 2 or h < 2:
            return
        if double:
            hz, vt, tl, tr, bl, br = "═", "║", "╔", "╗", "╚", "╝"
        else:
            hz, vt, tl, tr, bl, br = "─", "│", "┌", "┐", "└", "┘"
        self.put(x, y, tl + hz * (w - 2) + tr, style)
        self.put(x, y + h - 1, bl + hz * (w - 2) + br, style)
        for cy in range(y + 1, y + h - 1):
            self.put(x, cy, vt, style)
            self.put(x + w - 1, cy, vt, style)

    def set_cell(self, x: int, y: int, ch: str, style: Style = DEFAULT) -> None:
        """Set one cell (clipped); same as ``put`` with one glyph."""
        self.put(x, y, ch, style)

    def restyle(self, x: int, y: int, w: int, style: Style) -> None:
        """Change the style of ``w`` cells, keeping their glyphs (e.g. a highlight bar)."""
        if not 0 <= y < self.height:
            return
        row = self._rows[y]
        style = self.styles.canonical(style)
        for cx in range(max(x, 0), min(x + w, self.width)):
            row[cx] = (row[cx][0], style)

    # --- clicks ------------------------------------------------------------------
    def clickable(
        self, x: int, y: int, w: int, h: int, target: Target, right: Target | None = None
    ) -> None:
        """Record that a click on ``w`` × ``h`` cells at (``x``, ``y``) means ``target``
        (``right``: a right click), as drawn there now (see door/ui/mouse.py)."""
        x0, x1 = max(x, 0), min(x + w, self.width)
        y0, y1 = max(y, 0), min(y + h, self.height)
        if x0 < x1 and y0 < y1:
            self.regions.append(self.styles.region(x0, y0, x1 - x0, y1 - y0, target, right))

    def forget_clicks(self) -> None:
        """Nothing drawn so far is clickable (a question drawn over a screen: only its
        own keys, drawn after this, answer clicks)."""
        self.regions = []
        self.wheel = None

    def hit(self, x: int, y: int) -> Region | None:
        """The region at cell (``x``, ``y``): the last one drawn there, if any."""
        for region in reversed(self.regions):
            if region.contains(x, y):
                return region
        return None

    def _take_regions(self, other: Canvas, dx: int, dy: int, top: int, bottom: int) -> None:
        """``other``'s regions moved by (``dx``, ``dy``), cut to rows ``top`` ..
        ``bottom - 1`` of this canvas, replacing what lay wholly inside those rows."""
        if self.regions:
            self.regions = [r for r in self.regions if not (top <= r.y and r.y + r.h <= bottom)]
        width = self.width
        append = self.regions.append
        region = self.styles.region
        for r in other.regions:
            ry = r.y + dy
            if dx == 0 and top <= ry and ry + r.h <= bottom and r.x + r.w <= width:
                # the usual case (a cached drawing copied whole): the region as it is
                append(r if dy == 0 else region(r.x, ry, r.w, r.h, r.target, r.right))
                continue
            x0, x1 = max(r.x + dx, 0), min(r.x + dx + r.w, width)
            y0, y1 = max(r.y + dy, top), min(r.y + dy + r.h, bottom)
            if x0 < x1 and y0 < y1:
                append(region(x0, y0, x1 - x0, y1 - y0, r.target, r.right))

    def blit(self, other: Canvas, x: int = 0, y: int = 0) -> None:
        """Copy ``other`` onto this canvas with its top-left at (``x``, ``y``), clipped
        (its clickable regions with it)."""
        if other.regions:
            self._take_regions(other, x, y, max(y, 0), min(y + other.height, self.height))
        if other._wide:
            self._wide = True
        for oy in range(other.height):
            ty = y + oy
            if not 0 <= ty < self.height:
                continue
            for ox in range(other.width):
                tx = x + ox
                if 0 <= tx < self.width:
                    self._rows[ty][tx] = other._rows[oy][ox]

    def copy_rows(self, other: Canvas, top: int, count: int, source_top: int | None = None) -> None:
        """Replace rows ``top`` .. ``top + count - 1`` with ``other``'s rows from
        ``source_top`` (default: the same rows); both canvases the same width. Cells are
        shared values, so this is a list copy per row, and ``diff`` finds the copied cells
        identical to the last frame's at once: a screen keeps a part it draws the same way
        often (the backgammon board, the key help) in its own canvas and copies it in."""
        if other.width != self.width:
            raise ValueError(f"copy_rows needs equal widths, not {other.width} and {self.width}")
        if other._wide:
            self._wide = True
        shift = (top if source_top is None else source_top) - top
        if other.regions or self.regions:
            lo = max(top, 0, -shift)
            self._take_regions(other, 0, -shift, lo, max(lo, min(top + count, self.height)))
        for y in range(max(top, 0, -shift), min(top + count, self.height, other.height - shift)):
            # in place: the row list stays this canvas's own (see ``clear``)
            self._rows[y][:] = other._rows[y + shift]

    def crop(self, width: int, height: int) -> Canvas:
        """A new canvas holding the top-left ``width`` × ``height`` of this one."""
        out = Canvas(width, height, self.styles)
        out.blit(self)
        out.wheel = self.wheel
        if self.cursor is not None and self.cursor[0] < width and self.cursor[1] < height:
            out.cursor = self.cursor
        return out

    # --- reading -----------------------------------------------------------------
    def cell(self, x: int, y: int) -> tuple[str, Style]:
        """The glyph and style at (``x``, ``y``); ``""`` is the right half of a wide glyph."""
        return self._rows[y][x]

    def text_at(self, y: int) -> str:
        """Row ``y`` as plain text (wide glyphs once), for tests."""
        return "".join(ch for ch, _ in self._rows[y])

    def lines(self) -> list[str]:
        """Every row as plain text."""
        return [self.text_at(y) for y in range(self.height)]

    def row_cells(self, y: int) -> list[Cell]:
        """Row ``y``'s cells (a copy)."""
        return list(self._rows[y])

    def __iter__(self) -> Iterator[list[Cell]]:
        return iter(self._rows)


# --- ANSI output -------------------------------------------------------------------


def sgr(style: Style, colors: int) -> str:
    """The complete SGR sequence (starting from a reset) for ``style``."""
    params = ["0"]
    fg = style.fg
    bold = style.bold
    if colors and fg >= 8:
        fg -= 8
        bold = True
    if bold:
        params.append("1")
    if style.underline:
        params.append("4")
    if style.blink:
        params.append("5")
    if style.reverse:
        params.append("7")
    if colors:
        if fg != 7:
            params.append(f"3{fg & 7}")
        if style.bg & 7 != 0:
            params.append(f"4{style.bg & 7}")
    return CSI + ";".join(params) + "m"


def _sgr_change(cur: Style | None, new: Style, colors: int) -> str:
    """The shortest SGR that turns ``cur`` into ``new`` (a reset when an attribute
    must be switched off, since ANSI-BBS terminals do not all know 22/24/25/27)."""
    if cur == new:
        return ""
    if cur is None:
        return sgr(new, colors)
    if not colors:
        # Compare attributes only: colours are never sent.
        cb = cur.bold or cur.fg >= 8
        nb = new.bold or new.fg >= 8
        ca = (cb, cur.underline, cur.blink, cur.reverse)
        na = (nb, new.underline, new.blink, new.reverse)
        if ca == na:
            return ""
        return sgr(new, 0)

    def attrs(s: Style) -> tuple[bool, bool, bool, bool]:
        return (s.bold or s.fg >= 8, s.underline, s.blink, s.reverse)

    ca, na = attrs(cur), attrs(new)
    if any(c and not n for c, n in zip(ca, na, strict=True)):
        return sgr(new, colors)
    params: list[str] = []
    for code, c, n in zip(("1", "4", "5", "7"), ca, na, strict=True):
        if n and not c:
            params.append(code)
    if cur.fg & 7 != new.fg & 7:
        params.append(f"3{new.fg & 7}")
    if cur.bg & 7 != new.bg & 7:
        params.append(f"4{new.bg & 7}")
    if not params:
        return ""
    return CSI + ";".join(params) + "m"


def _encodable(ch: str, encoding: str) -> bool:
    if ch.isascii():
        return True
    try:
        ch.encode(encoding)
    except UnicodeEncodeError:
        return False
    return True


def _glyph_out(ch: str, encoding: str) -> str:
    """The text to send for one cell's glyph: in CP437 a glyph it cannot show becomes
    ``?`` per column, so the far end's cursor stays where we think it is."""
    if encoding == "utf-8" or _encodable(ch, encoding):
        return ch
    base = ch[:1]
    if _encodable(base, encoding):
        return base  # drop combining marks CP437 cannot carry
    w = char_width(base)
    return "?" * (2 if w == 2 else 1)


class _Writer:
    """Builds the output, tracking the far end's cursor and current style."""

    def __init__(self, caps: Caps, width: int, height: int, styles: StyleTable) -> None:
        self.out: list[str] = []
        self.styles = styles
        self.colors = caps.colors
        self.encoding = caps.encoding
        self.width = width
        self.height = height
        self.x: int | None = None  # None: unknown position
        self.y: int | None = None
        self.style: Style | None = None

    def move(self, x: int, y: int) -> None:
        if self.x == x and self.y == y:
            return
        if self.y == y and self.x is not None and x > self.x and x - self.x <= 4:
            n = x - self.x
            self.out.append(CSI + "C" if n == 1 else f"{CSI}{n}C")
        elif self.y == y and x == 0:
            self.out.append("\r")
        elif self.y is not None and y == self.y + 1 and x == 0 and y < self.height:
            self.out.append("\r\n")
        elif self.y == y and self.x is not None and x > self.x:
            self.out.append(f"{CSI}{x - self.x}C")
        elif x == 0:
            self.out.append(f"{CSI}{y + 1}H")
        else:
            self.out.append(f"{CSI}{y + 1};{x + 1}H")
        self.x, self.y = x, y

    def set_style(self, style: Style) -> None:
        cur = self.style
        if style is cur:
            return  # styles are interned: the usual case, without a dataclass __eq__
        change = self.styles.sgr_between(cur, style, self.colors)
        if change:
            self.out.append(change)
            self.style = style

    def runs(self, row: list[Cell], start: int, end: int) -> None:
        """Send cells ``start`` to ``end - 1`` of ``row``, all narrow glyphs in UTF-8,
        starting with the cursor at ``start``."""
        out = self.out
        first = itemgetter(0)
        # Canonical styles: equal means the same object, so groupby's key comparison
        # is an identity check and each group is one stretch of one style.
        for style, cells in groupby(row[start:end], key=itemgetter(1)):
            self.set_style(style)
            out.append("".join(map(first, cells)))
        self.x = end
        if end >= self.width:
            self.x = self.y = None  # see ``cell``

    def cell(self, x: int, ch: str, style: Style) -> None:
        self.set_style(style)
        glyph = _glyph_out(ch, self.encoding)
        self.out.append(glyph)
        w = 2 if char_width(ch[:1] or " ") == 2 else 1
        assert self.x is not None
        self.x += w
        if self.x >= self.width:
            # Terminals differ on what writing the last column does (pending wrap or
            # not), so the position is unknown until the next explicit move.
            self.x = self.y = None


def _row_units(row: list[Cell]) -> list[tuple[int, int]]:
    """(start, width) of each glyph in a row: wide glyphs are one 2-column unit."""
    units: list[tuple[int, int]] = []
    x = 0
    n = len(row)
    while x < n:
        ch = row[x][0]
        if ch and x + 1 < n and row[x + 1][0] == "" and char_width(ch[:1]) == 2:
            units.append((x, 2))
            x += 2
        else:
            units.append((x, 1))
            x += 1
    return units


def diff(old: Canvas | None, new: Canvas, caps: Caps) -> str:
    """The ANSI text that turns the far end's screen from ``old`` into ``new``.

    ``old`` is what we last sent (``None``, or a canvas of another size, means the far end's
    screen is unknown: clear it and draw everything). Only changed cells are sent; short
    unchanged gaps are re-sent rather than jumped when that is cheaper than a cursor move.
    Colours are sent only when ``caps.colors`` is non-zero. The bottom-right cell is never
    written, because on some terminals doing so scrolls the screen.
    """
    full = old is None or old.width != new.width or old.height != new.height
    w = _Writer(caps, new.width, new.height, new.styles)
    if full:
        w.out.append(CSI + "0m" + CSI + "2J" + CSI + "H")
        w.style = DEFAULT
        w.x, w.y = 0, 0
    narrow = not new._wide and (old is None or not old._wide)
    narrow_units = [(x, 1) for x in range(new.width)] if narrow else []
    blank = (" ", DEFAULT)
    for y in range(new.height):
        nrow = new._rows[y]
        orow = None if full or old is None else old._rows[y]
        if orow is not None and nrow == orow:
            continue  # most rows of most updates: one comparison in C
        units = narrow_units if narrow else _row_units(nrow)
        last_row = y == new.height - 1
        if narrow and orow is not None:
            # Narrow glyphs only: unit i is column i.
            end = new.width - 1 if last_row else new.width
            changed = [x for x in range(end) if nrow[x] != orow[x]]
        else:
            changed = _changed_units(nrow, orow, units, last_row, new.width)
        if not changed:
            continue
        erase_from: int | None = None
        if not full and nrow[units[changed[-1]][0]] == blank:
            changed, erase_from = _blank_tail(nrow, units, changed, new.width)
        if narrow and w.encoding == "utf-8" and orow is not None:
            _send_columns(w, y, nrow, changed)
        else:
            _send_units(w, y, nrow, units, changed, narrow)
        if erase_from is not None:
            w.move(erase_from, y)
            w.set_style(DEFAULT)
            w.out.append(CSI + "K")
    if new.cursor is not None:
        cx, cy = new.cursor
        w.move(min(max(cx, 0), new.width - 1), min(max(cy, 0), new.height - 1))
        if full or old is None or old.cursor is None:
            w.out.append(CSI + "?25h")
    elif full or old is None or old.cursor is not None:
        w.out.append(CSI + "?25l")
    return "".join(w.out)


def _changed_units(
    nrow: list[Cell], orow: list[Cell] | None, units: list[tuple[int, int]], last_row: bool,
    width: int,
) -> list[int]:  # fmt: skip
    """Indexes into ``units`` of the changed ones (indexes, so that bridging a gap takes
    the units between two changed ones without searching the row). ``orow`` ``None``:
    the row is blank on the far end."""
    changed: list[int] = []
    blank_default = (" ", DEFAULT)
    for i, (ux, uw) in enumerate(units):
        if last_row and ux + uw >= width:
            continue  # never the bottom-right cell
        if orow is None:
            if uw == 2 or nrow[ux] != blank_default:
                changed.append(i)
        elif uw == 1:
            if nrow[ux] != orow[ux] or (orow[ux][0] == "" and nrow[ux][0] != ""):
                # (A wide glyph that was overwritten on the old side needs re-sending.)
                changed.append(i)
        elif nrow[ux] != orow[ux] or nrow[ux + 1] != orow[ux + 1]:
            changed.append(i)
    return changed


def _blank_tail(
    nrow: list[Cell], units: list[tuple[int, int]], changed: list[int], width: int
) -> tuple[list[int], int | None]:
    """A row whose end became blank is cleared with one "erase to end of line" rather
    than by sending spaces: (the changed units left to send, the column to erase from).
    Called when the last changed glyph is a blank (otherwise none is past the text)."""
    blank_default = (" ", DEFAULT)
    tail = width
    while tail > 0 and nrow[tail - 1] == blank_default:
        tail -= 1
    blank_changed = [i for i in changed if units[i][0] >= tail]
    if len(blank_changed) <= 3:
        return changed, None
    return [i for i in changed if units[i][0] < tail], units[blank_changed[0]][0]


def _send_columns(w: _Writer, y: int, nrow: list[Cell], changed: list[int]) -> None:
    """Narrow glyphs in UTF-8 (unit i is column i): group the changed columns into runs,
    bridging gaps that are cheap to re-send, in one pass."""
    if not changed:
        return
    colors = w.colors
    start_x = prev = changed[0]
    for x in changed[1:]:
        gap = x - prev - 1
        if gap == 0 or (gap <= 4 and _gap_cheap(w, nrow, prev + 1, x, prev, colors)):
            prev = x
            continue
        w.move(start_x, y)
        w.runs(nrow, start_x, prev + 1)
        start_x = prev = x
    w.move(start_x, y)
    w.runs(nrow, start_x, prev + 1)


def _send_units(
    w: _Writer, y: int, nrow: list[Cell], units: list[tuple[int, int]], changed: list[int],
    narrow: bool,
) -> None:  # fmt: skip
    """Group changed units into runs, bridging gaps that are cheap to re-send."""
    k = 0
    while k < len(changed):
        first = changed[k]
        start_x = units[first][0]
        run = [first]
        j = k + 1
        while j < len(changed):
            prev_x, prev_w = units[run[-1]]
            gap_start = prev_x + prev_w
            nxt = changed[j]
            nx = units[nxt][0]
            gap = nx - gap_start
            if gap <= 4 and _gap_cheap(w, nrow, gap_start, nx, prev_x, w.colors):
                # Include the gap's units too (those between the two changed ones).
                run.extend(range(run[-1] + 1, nxt + 1))
                j += 1
            else:
                break
        w.move(start_x, y)
        if narrow and w.encoding == "utf-8":
            # Narrow glyphs sent as they are: the run is columns start_x..end - 1; send
            # each stretch of one style as one string (what ``cell`` would send a glyph
            # at a time).
            w.runs(nrow, start_x, run[-1] + 1)
        else:
            for i in run:
                ux = units[i][0]
                ch, st = nrow[ux]
                w.cell(ux, ch, st)
                if w.x is None:
                    break
        k = j


def _gap_cheap(
    w: _Writer, row: list[Cell], gap_start: int, gap_end: int, last_x: int, colors: int
) -> bool:
    """Re-sending the unchanged cells in a gap is cheap when they look like the run's
    last cell (at ``last_x``; no SGR switching) and contain no wide glyph halves."""
    last_style = row[last_x][1]
    for gx in range(gap_start, gap_end):
        ch, st = row[gx]
        if ch == "" or not (st is last_style or w.styles.sgr_between(st, last_style, colors) == ""):
            return False
    return True
