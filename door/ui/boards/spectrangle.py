"""The Spectrangle board as coloured cells: 36 triangles in a 35 × 18 block.

Each field is a triangle of 9 cells over 3 text lines (1, 3, 5 cells for a field pointing
up; 5, 3, 1 for one pointing down), so the whole board is one large triangle and every
field's three sides sit where they are on the real board::

            ·                 up field:      ·          down field:  L V V V R
           L5R                              L 5 R                      L 5 R
          L V R                           L V V V R                      ·

A placed piece shows each side in its colour (the background of the side's cells, with
the colour's letter once per side) and its value in the middle. An empty field shows its
index and, on bonus fields, the multiplier. Fields that accept the selected piece show
the score the placement would make.

Without colour (``colors == 0``: the user's colour setting off, or a monochrome
terminal) the letters carry it all: every cell of a side holds its colour's letter,
upper case in fields that point up and lower case in fields that point down (so two
neighbours' letters never run together), the value sits between them, and an empty
field is dots (``·``) around its index::

      ·            up field:     ·         down field:  r y y y g
     G5R                        G 5 R                     r 5 g
    GYYYR                      G Y Y Y R                    ·
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from door.ui.canvas import BLACK, BLUE, CYAN, GREEN, MAGENTA, RED, WHITE, YELLOW, Canvas, Style
from door.ui.glyphs import Glyphs
from door.ui.mouse import Pick, Target

BOARD_WIDTH = 35
BOARD_HEIGHT = 18
ROWS = 6

LEFT, RIGHT, VERTICAL = 0, 1, 2

# Colour letter → ANSI colour ("B" is the game's blue, which is cyan on the real pieces).
_COLOUR = {"R": RED, "G": GREEN, "B": CYAN, "Y": YELLOW, "P": MAGENTA, "W": WHITE}

# Cell roles within a field.
APEX, MID = "apex", "mid"


def colour_of(letter: str) -> int:
    """The ANSI colour number for a Spectrangle colour letter (R G B Y P W)."""
    return _COLOUR.get(letter.upper(), WHITE)


@dataclass(frozen=True)
class FieldCell:
    """One cell of a field: its offset from the board's top-left corner and its role:
    ``0``/``1``/``2`` (left/right/vertical side), ``"apex"`` or ``"mid"``; ``primary``
    marks the one cell per side that carries the colour letter."""

    x: int
    y: int
    role: int | str
    primary: bool = False


def field_row_k(index: int) -> tuple[int, int]:
    """(row, position in row) of field ``index`` (UT indexing)."""
    r = 0
    while (r + 1) * (r + 1) <= index:
        r += 1
    return r, index - r * r


def is_up(index: int) -> bool:
    """True if field ``index`` points up."""
    return field_row_k(index)[1] % 2 == 0


def board_size(scale: int = 3) -> tuple[int, int]:
    """(width, height) of the board drawn with ``scale`` text lines per row of fields
    (3: 35 × 18, the 80×24 board; 4: 47 × 24, for big terminals)."""
    return 2 * scale * ROWS - 1, scale * ROWS


def field_cells(index: int, scale: int = 3) -> tuple[FieldCell, ...]:
    """The cells of field ``index`` at ``scale`` (see ``_field_cells``; the two scales the
    screens draw are worked out once, in ``FIELD_CELLS``)."""
    table = FIELD_CELLS.get(scale)
    return table[index] if table is not None else _field_cells(index, scale)


def _field_cells(index: int, scale: int) -> tuple[FieldCell, ...]:
    """The cells of field ``index`` (9 at scale 3, 16 at scale 4), relative to the board's
    top-left corner. Each line of an up field is two cells wider than the one above it;
    a down field is the same upside down. The outer cells of each line belong to the
    left and right sides, the widest line to the vertical side; the middle cell of the
    line next to it (``MID``) holds the value."""
    h = scale
    r, k = field_row_k(index)
    row_x = (ROWS - 1 - r) * h
    cells: list[FieldCell] = []
    up = k % 2 == 0
    centre_x = row_x + 2 * h * (k // 2) + (h - 1) + (0 if up else h)
    for j in range(h):
        # Distance of this line from the field's point (the apex): widths 1, 3, 5, ...
        depth = j if up else h - 1 - j
        width = 2 * depth + 1
        x0 = centre_x - depth
        mid_line = depth == h - 2
        wide_line = depth == h - 1
        for i in range(width):
            role: int | str
            primary = False
            if depth == 0:
                role = APEX
            elif wide_line and 0 < i < width - 1:
                role, primary = VERTICAL, i == depth
            elif i < depth:
                role, primary = LEFT, mid_line and i == 0
            elif i > depth:
                role, primary = RIGHT, mid_line and i == width - 1
            else:
                role = MID if mid_line else APEX
            cells.append(FieldCell(x0 + i, h * r + j, role, primary))
    return tuple(cells)


FIELD_CELLS = {scale: tuple(_field_cells(i, scale) for i in range(36)) for scale in (3, 4)}
"""The cells of every field at scale 3 (the 80×24 board) and 4 (big terminals)."""


def field_center(index: int, scale: int = 3) -> tuple[int, int]:
    """The board offset of the field's middle cell (where its value or index shows)."""
    for c in field_cells(index, scale):
        if c.role == MID:
            return c.x, c.y
    raise AssertionError("every field has a middle cell")


def neighbour_in_direction(index: int, direction: str) -> int:
    """The field a cursor reaches from ``index`` moving ``left``/``right``/``up``/``down``:
    along the row for left/right (wrapping to the next row), and to the nearest field of
    the row above/below for up/down (staying put at the board's edge)."""
    r, _ = field_row_k(index)
    if direction == "left":
        return index - 1 if index > 0 else 35
    if direction == "right":
        return index + 1 if index < 35 else 0
    target_row = r - 1 if direction == "up" else r + 1
    if not 0 <= target_row < ROWS:
        return index
    cx, _ = field_center(index)
    best = index
    best_dist = 1_000
    for kk in range(2 * target_row + 1):
        other = target_row * target_row + kk
        ox, _ = field_center(other)
        dist = abs(ox - cx)
        if dist < best_dist:
            best, best_dist = other, dist
    return best


@dataclass(frozen=True)
class Tile:
    """A piece as it lies on a field: colours on the left, right and vertical side and
    its value."""

    sides: str
    value: int


def _side_style(letter: str, colors: int) -> Style:
    if colors:
        return Style(fg=BLACK, bg=colour_of(letter))
    return Style(fg=WHITE, bold=True)


def draw_tile(
    canvas: Canvas,
    x: int,
    y: int,
    cells: Sequence[FieldCell],
    tile: Tile,
    colors: int,
    *,
    mid: str | None = None,
    mid_style: Style | None = None,
) -> None:
    """Draw ``tile`` into the cells of one field (offsets relative to ``x``, ``y``)."""
    # Without colour every side cell carries its letter; a down field's are lower case
    # (``lower``), so a row of fields reads as separate triangles.
    lower = not colors and _points_down(cells)
    for c in cells:
        if c.role == MID:
            text = mid if mid is not None else str(tile.value)
            style = mid_style or Style(fg=WHITE, bg=BLACK, bold=True)
            canvas.put(x + c.x, y + c.y, text[:1], style)
        elif c.role == APEX:
            canvas.put(x + c.x, y + c.y, " ", Style())
        else:
            assert isinstance(c.role, int)
            letter = tile.sides[c.role]
            if colors:
                ch = letter if c.primary else " "
            else:
                ch = letter.lower() if lower else letter.upper()
            canvas.put(x + c.x, y + c.y, ch, _side_style(letter, colors))


def _points_down(cells: Sequence[FieldCell]) -> bool:
    """True if these cells form a field pointing down (its widest line on top)."""
    top = min(c.y for c in cells)
    return sum(1 for c in cells if c.y == top) > 1


def _label_cells(cells: Sequence[FieldCell], wide_line: bool) -> list[FieldCell]:
    """The cells of the field's middle line (the one holding ``MID``) or of its widest
    line, left to right."""
    if wide_line:
        # The bottom line of an up field, the top line of a down field.
        ys = {c.y for c in cells}
        target = max(ys, key=lambda yy: sum(1 for c in cells if c.y == yy))
    else:
        target = next(c.y for c in cells if c.role == MID)
    return sorted((c for c in cells if c.y == target), key=lambda c: c.x)


def _put_label(
    canvas: Canvas, x: int, y: int, row: Sequence[FieldCell], text: str, style: Style
) -> None:
    width = len(row)
    text = text[:width]
    start = (width - len(text) + 1) // 2 if len(text) < width else 0
    for i, c in enumerate(row):
        j = i - start
        if 0 <= j < len(text):
            canvas.put(x + c.x, y + c.y, text[j], style)


EMPTY_UP = Style(fg=BLUE)
EMPTY_DOWN = Style(fg=BLACK, bold=True)
INDEX_STYLE = Style(fg=CYAN)
BONUS_STYLE = Style(fg=YELLOW, bold=True)
ACCEPT_STYLE = Style(fg=GREEN)
ACCEPT_TEXT = Style(fg=GREEN, bold=True)
CURSOR_STYLE = Style(fg=WHITE, reverse=True)  # reversed: shows without colour too
LAST_MOVE_STYLE = Style(fg=YELLOW, bg=BLACK, bold=True, blink=False, underline=True)


def draw_board(
    canvas: Canvas,
    x: int,
    y: int,
    board: Sequence[Tile | None],
    glyphs: Glyphs,
    colors: int,
    *,
    bonuses: Sequence[int],
    accept: Mapping[int, int] | None = None,
    cursor: int | None = None,
    preview: Tile | None = None,
    marked: frozenset[int] = frozenset(),
    scale: int = 3,
    right: Target | None = None,
) -> None:
    """Draw the 36 fields with the board's top-left corner at (``x``, ``y``).

    ``board`` has one :class:`Tile` (or ``None``) per field index; ``bonuses`` the
    multiplier per field. ``accept`` maps the fields that take the selected piece to the
    score each would make (they are highlighted and show ``+score``). ``cursor`` is the
    field under the cursor; ``preview`` the selected piece as it would lie there (drawn
    when the cursor is on an accepting field). ``marked`` fields (e.g. the last move)
    show their value underlined. ``scale`` is 3 (35 × 18) or 4 (47 × 24, big terminals).
    Each field is clickable on its cells as ``Pick("field", index)`` (``right``: what a
    right click there does).
    """
    accept = accept or {}
    for index in range(36):
        cells = field_cells(index, scale)
        _clickable_field(canvas, x, y, cells, Pick("field", index), right)
        tile = board[index]
        up = is_up(index)
        on_cursor = index == cursor
        if tile is not None:
            mid_style = Style(fg=WHITE, bg=BLACK, bold=True)
            if index in marked:
                mid_style = LAST_MOVE_STYLE
            if on_cursor:
                mid_style = CURSOR_STYLE
            draw_tile(canvas, x, y, cells, tile, colors, mid_style=mid_style)
            continue
        if on_cursor and preview is not None and index in accept:
            draw_tile(canvas, x, y, cells, preview, colors, mid_style=CURSOR_STYLE)
            continue
        if index in accept:
            base = ACCEPT_STYLE
            fill = glyphs.shade_medium
        elif not colors:
            # Shades mean nothing without colour: an empty field is dots (a clear mark
            # that is neither a letter nor a digit) around its index.
            base = Style()
            fill = glyphs.middle_dot
        else:
            base = EMPTY_UP if up else EMPTY_DOWN
            fill = glyphs.shade_light if up else " "
        for c in cells:
            canvas.put(x + c.x, y + c.y, fill, base)
        mid_row = _label_cells(cells, wide_line=False)
        wide_row = _label_cells(cells, wide_line=True)
        if on_cursor:
            for c in mid_row:
                canvas.put(x + c.x, y + c.y, " ", CURSOR_STYLE)
        if index in accept:
            label_style = CURSOR_STYLE if on_cursor else ACCEPT_TEXT
            _put_label(canvas, x, y, mid_row, f"+{accept[index]}", label_style)
        else:
            label_style = CURSOR_STYLE if on_cursor else INDEX_STYLE
            _put_label(canvas, x, y, mid_row, str(index), label_style)
        if bonuses[index] > 1:
            style = ACCEPT_TEXT if index in accept else BONUS_STYLE
            _put_label(canvas, x, y, wide_row, f"x{bonuses[index]}", style)


def _clickable_field(
    canvas: Canvas, x: int, y: int, cells: Sequence[FieldCell], pick: Pick, right: Target | None
) -> None:
    """A field's lines (a triangle: one run of cells a line) as clickable regions."""
    lines: dict[int, list[int]] = {}
    for c in cells:
        lines.setdefault(c.y, []).append(c.x)
    for cy, xs in lines.items():
        canvas.clickable(x + min(xs), y + cy, max(xs) - min(xs) + 1, 1, pick, right)


def draw_piece_preview(
    canvas: Canvas, x: int, y: int, up_sides: str, down_sides: str, value: int, colors: int
) -> None:
    """The selected piece as it would lie on an up field and on a down field, side by
    side (10 × 3 cells, the up triangle first)."""
    up_cells = [
        FieldCell(c.x - 15, c.y, c.role, c.primary) for c in field_cells(0)
    ]  # field 0 is up, at x 15..19 of the board
    down_cells = [FieldCell(c.x - 15, c.y - 3, c.role, c.primary) for c in field_cells(2)]
    draw_tile(canvas, x, y, up_cells, Tile(up_sides, value), colors)
    draw_tile(canvas, x + 5, y, down_cells, Tile(down_sides, value), colors)


def piece_label_cells(name: str, colors: int, selected: bool = False) -> list[tuple[str, Style]]:
    """A hand piece written as coloured letters plus its value, e.g. ``RRY5``."""
    out: list[tuple[str, Style]] = []
    for ch in name[:3]:
        if colors:
            st = Style(fg=colour_of(ch), bold=ch != "W", reverse=selected)
        else:
            st = Style(bold=True, reverse=selected)
        out.append((ch, st))
    out.append((name[3:], Style(fg=WHITE, bold=True, reverse=selected)))
    return out


def draw_piece_label(
    canvas: Canvas, x: int, y: int, name: str, colors: int, selected: bool = False
) -> int:
    """Draw a hand piece's name in its colours; returns the column after it."""
    for text, st in piece_label_cells(name, colors, selected):
        x = canvas.put(x, y, text, st)
    return x
