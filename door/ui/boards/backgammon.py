"""The Backgammon board as coloured cells, seen from one player's side (47 × 15).

The viewer's home board is at the bottom: on the right for White, who moves
counter-clockwise, and on the left for Black, who moves clockwise (the UltraSoft door's
figure). Points are numbered for the viewer, 1..24; the bar is in the middle and the
borne-off tray beside the viewer's home board. Each point is three columns wide with
its checkers stacked from the edge (five shown, then a count); the number row above or
below a point doubles as the cursor and the highlight for legal destinations, so moving
the cursor changes only a handful of cells.

Spots are numbered like points: 1..24, ``BAR`` (25) for the bar and ``OFF`` (0) for the
borne-off tray.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from door.ui.canvas import BLACK, GREEN, RED, WHITE, YELLOW, Canvas, Style
from door.ui.glyphs import Glyphs
from door.ui.mouse import Pick

BOARD_WIDTH = 47  # at the default geometry; see Geometry for bigger boards
BOARD_HEIGHT = 15
BAR = 25
OFF = 0

WHITE_SIDE = "white"
BLACK_SIDE = "black"


@dataclass(frozen=True)
class BoardPicture:
    """What to draw. ``mine``/``theirs`` are 25 counts each (points 1..24 from that
    player's own side, then the bar); ``my_colour`` decides the orientation. ``cursor``
    is a spot or ``None``; ``lifted`` the spot whose top checker is picked up;
    ``targets`` the spots that accept it; ``marks`` spots to flag (the last move).
    ``cube`` is the doubling cube as (value, place) or ``None`` for a table without one:
    place ``"centre"`` (on the bar), ``"mine"``/``"theirs"`` (its owner's side, by the
    bar on that player's edge), or ``"offer_mine"``/``"offer_theirs"`` (a double offered
    to that player: the new value in the middle of their half). ``flying`` is a checker
    on its way to the bar after a hit, as (the point it was hit on, is the viewer's): it is
    drawn on the middle row by that point, and counts neither on the board nor as borne
    off (the sides given hold it nowhere)."""

    mine: Sequence[int]
    theirs: Sequence[int]
    my_colour: str = WHITE_SIDE
    cursor: int | None = None
    lifted: int | None = None
    targets: frozenset[int] = field(default_factory=frozenset)
    marks: frozenset[int] = field(default_factory=frozenset)
    dice: tuple[int, ...] = ()
    dice_used: tuple[bool, ...] = ()
    dice_mine: bool = True
    cube: tuple[int, str] | None = None
    flying: tuple[int, bool] | None = None


# --- geometry ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Geometry:
    """The board's size: ``pw`` columns per point and ``stack`` checkers drawn per point
    before a count. The default (3, 5) is the 47 × 15 board of an 80×24 screen; big
    terminals get (4, 6), 59 × 17."""

    pw: int = 3
    stack: int = 5

    @property
    def width(self) -> int:
        return 11 + 12 * self.pw

    @property
    def height(self) -> int:
        return 5 + 2 * self.stack

    @property
    def mid_row(self) -> int:
        """The row between the two halves (dice, BAR, OFF)."""
        return 2 + self.stack

    @property
    def bottom_border(self) -> int:
        return 3 + 2 * self.stack

    @property
    def bottom_label(self) -> int:
        return 4 + 2 * self.stack


SMALL = Geometry()
BIG = Geometry(4, 6)


def board_x0(my_colour: str, g: Geometry = SMALL) -> int:
    """Column offset of the playing area (the tray sits left of it for Black)."""
    return 0 if my_colour == WHITE_SIDE else 4


def tray_x0(my_colour: str, g: Geometry = SMALL) -> int:
    """Column of the tray's left border."""
    return g.width - 5 if my_colour == WHITE_SIDE else 0


def point_column(point: int, my_colour: str) -> tuple[int, bool]:
    """(visual column 0..11 from the left, is on the top row) of the viewer's ``point``."""
    if not 1 <= point <= 24:
        raise ValueError(f"no point {point}")
    top = point >= 13
    if my_colour == WHITE_SIDE:
        col = point - 13 if top else 12 - point
    else:
        col = 24 - point if top else point - 1
    return col, top


def column_x(col: int, my_colour: str, g: Geometry = SMALL) -> int:
    """Left column of visual point column ``col`` (each point is ``g.pw`` wide)."""
    return board_x0(my_colour, g) + 1 + g.pw * col + (5 if col >= 6 else 0)


def bar_x(my_colour: str, g: Geometry = SMALL) -> int:
    """The bar's middle column."""
    return board_x0(my_colour, g) + 3 + 6 * g.pw


def spot_label_cell(
    spot: int, my_colour: str, top: bool = False, g: Geometry = SMALL
) -> tuple[int, int, int]:
    """(x, y, width) of the label that shows ``spot`` (its number, ``BAR`` or ``OFF``):
    the cursor and the destination highlight are drawn there."""
    if spot == BAR:
        return bar_x(my_colour, g) - 1, g.mid_row, 3
    if spot == OFF:
        return tray_x0(my_colour, g) + 1, g.mid_row, 3
    col, is_top = point_column(spot, my_colour)
    return column_x(col, my_colour, g), 0 if is_top else g.bottom_label, g.pw


def pointer_cell(
    spot: int, my_colour: str, top: bool = True, g: Geometry = SMALL
) -> tuple[int, int, bool]:
    """(x, y, on the top edge) of the frame cell beside ``spot``'s label where the cursor's
    arrow (or a destination's dot) goes: on the top or bottom edge of the frame, over the
    point's checkers; for the bar and the tray, on the edge ``top`` names."""
    if spot == BAR:
        return bar_x(my_colour, g), 1 if top else g.bottom_border, top
    if spot == OFF:
        return tray_x0(my_colour, g) + 2, 1 if top else g.bottom_border, top
    col, is_top = point_column(spot, my_colour)
    x = column_x(col, my_colour, g) + g.pw // 2
    return x, 1 if is_top else g.bottom_border, is_top


def draw_cursor(
    canvas: Canvas,
    x: int,
    y: int,
    spot: int,
    my_colour: str,
    targets: frozenset[int],
    glyphs: Glyphs,
    top: bool = True,
    g: Geometry = SMALL,
) -> None:
    """The cursor at ``spot`` on a board drawn at (``x``, ``y``): its label restyled and
    an arrow on the frame pointing at it (a shape, so it reads without colour)."""
    lx, ly, w = spot_label_cell(spot, my_colour, g=g)
    canvas.restyle(x + lx, y + ly, w, TARGET_CURSOR if spot in targets else CURSOR)
    px, py, on_top = pointer_cell(spot, my_colour, top, g)
    canvas.put(x + px, y + py, glyphs.point_down if on_top else glyphs.point_up, POINTER)


def visual_spots(my_colour: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The spots in left-to-right order on the top and the bottom row (the bar and the
    tray are in both rows), for cursor movement."""
    return VISUAL_SPOTS[my_colour]


def _visual_spots(my_colour: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    top: list[int] = []
    bottom: list[int] = []
    for col in range(12):
        if col == 6:
            top.append(BAR)
            bottom.append(BAR)
        for p in range(1, 25):
            c, is_top = point_column(p, my_colour)
            if c == col:
                (top if is_top else bottom).append(p)
    if my_colour == WHITE_SIDE:
        top.append(OFF)
        bottom.append(OFF)
    else:
        top.insert(0, OFF)
        bottom.insert(0, OFF)
    return tuple(top), tuple(bottom)


VISUAL_SPOTS = {colour: _visual_spots(colour) for colour in (WHITE_SIDE, BLACK_SIDE)}
"""``visual_spots`` of each colour, worked out once (it is asked on every cursor key)."""


def move_cursor(
    spot: int, direction: str, my_colour: str, top_row: bool, *, bar_stop: bool = True
) -> tuple[int, bool]:
    """Where the cursor goes from ``spot`` (on the top row if ``top_row``) moving ``left``,
    ``right``, ``up`` or ``down``: (new spot, now on the top row). ``bar_stop=False``
    steps over the bar (the game screen stops there only while the mover has a checker
    on it, so counting points with the arrows is never off by one)."""
    top, bottom = visual_spots(my_colour)
    if not bar_stop and spot != BAR:
        top = tuple(s for s in top if s != BAR)
        bottom = tuple(s for s in bottom if s != BAR)
    if 1 <= spot <= 24:
        top_row = point_column(spot, my_colour)[1]
    row = top if top_row else bottom
    i = row.index(spot) if spot in row else 0
    if direction == "left":
        return row[max(i - 1, 0)], top_row
    if direction == "right":
        return row[min(i + 1, len(row) - 1)], top_row
    if direction in ("up", "down"):
        want_top = direction == "up"
        other = top if want_top else bottom
        return other[i], want_top
    return spot, top_row


# --- styles -------------------------------------------------------------------------------

FRAME = Style(fg=YELLOW)
FELT = Style(fg=YELLOW, bg=BLACK)
LABEL = Style(fg=WHITE)
# Highlights differ in attributes and in shape as well as colour, so they show without
# colour too: the cursor's label is reversed with an arrow on the frame pointing at it,
# a legal destination's label reversed and underlined with a dot on the frame, the cursor
# on a legal destination bold and underlined (with the arrow).
CURSOR = Style(fg=WHITE, reverse=True)
TARGET = Style(fg=GREEN, reverse=True, underline=True)
TARGET_CURSOR = Style(fg=WHITE, bg=GREEN, bold=True, underline=True)
POINTER = Style(fg=WHITE, bold=True)
TARGET_DOT = Style(fg=GREEN, bold=True)
MARK = Style(fg=YELLOW, bold=True)
COUNT = Style(fg=YELLOW, bold=True)
DIE = Style(fg=WHITE, reverse=True)
DIE_USED = Style(fg=WHITE, bold=False)
CUBE = Style(fg=YELLOW, bold=True, reverse=True, underline=True)


def cube_cell(place: str, my_colour: str, g: Geometry = SMALL) -> tuple[int, int]:
    """(x, y) of the cube's 3-cell face for ``place`` (see :class:`BoardPicture`): on the
    bar, level with the points' numbers on its owner's edge, or on the bar's middle row
    when centred; an offered cube sits in the middle of the half of the player offered
    it, on the middle row (no dice are out while a double waits)."""
    bx = bar_x(my_colour, g) - 1
    if place == "mine":
        return bx, g.bottom_label
    if place == "theirs":
        return bx, 0
    if place in ("offer_mine", "offer_theirs"):
        half = 6 * g.pw
        left = board_x0(my_colour, g) + (half + 6 if place == "offer_mine" else 1)
        return left + (half - 3) // 2, g.mid_row
    return bx, g.mid_row


def checker_style(colour: str, colors: int, lifted: bool = False) -> Style:
    """How a checker of ``colour`` looks (one shared object per look: styles are
    compared by identity when the screen is sent)."""
    return CHECKER_STYLES[colour, bool(colors), lifted]


def _checker_style(colour: str, colors: bool, lifted: bool) -> Style:
    if not colors:
        return Style(bold=colour == WHITE_SIDE, reverse=lifted, blink=lifted)
    if colour == WHITE_SIDE:
        return Style(fg=WHITE, bold=True, reverse=lifted)
    return Style(fg=RED, bold=False, reverse=lifted)


CHECKER_STYLES = {
    (colour, colors, lifted): _checker_style(colour, colors, lifted)
    for colour in (WHITE_SIDE, BLACK_SIDE)
    for colors in (False, True)
    for lifted in (False, True)
}
"""Every look of a checker: (colour, in colour, lifted) → style."""


def checker_glyph(colour: str, glyphs: Glyphs, colors: int) -> str:
    """White and black checkers differ in colour; without colour, in shape too."""
    return glyphs.checker_white if colour == WHITE_SIDE else glyphs.checker_black


def other_colour(colour: str) -> str:
    return BLACK_SIDE if colour == WHITE_SIDE else WHITE_SIDE


# --- drawing ------------------------------------------------------------------------------


def _draw_frame(
    canvas: Canvas, x: int, y: int, my_colour: str, g: Glyphs, geo: Geometry
) -> None:
    bx = x + board_x0(my_colour, geo)
    tx = x + tray_x0(my_colour, geo)
    half = 6 * geo.pw
    right = bx + 2 + 2 * half + 4  # the right border
    bot = geo.bottom_border
    # Outer frame of the playing area and the bar, double lines like a wooden board.
    canvas.put(bx, y + 1, g.d_top_left + g.dh_line * half + g.d_tee_down, FRAME)
    canvas.put(bx + half + 2, y + 1, g.dh_line * 3, FRAME)
    canvas.put(bx + half + 5, y + 1, g.d_tee_down + g.dh_line * half + g.d_top_right, FRAME)
    canvas.put(bx, y + bot, g.d_bottom_left + g.dh_line * half + g.d_tee_up, FRAME)
    canvas.put(bx + half + 2, y + bot, g.dh_line * 3, FRAME)
    canvas.put(bx + half + 5, y + bot, g.d_tee_up + g.dh_line * half + g.d_bottom_right, FRAME)
    for row in range(2, bot):
        for cx in (bx, bx + half + 1, bx + half + 5, right):
            canvas.put(cx, y + row, g.dv_line, FRAME)
    # The tray: a single-line box sharing the board's edge.
    if my_colour == WHITE_SIDE:
        canvas.put(tx + 1, y + 1, g.h_line * 3 + g.top_right, FRAME)
        canvas.put(tx + 1, y + bot, g.h_line * 3 + g.bottom_right, FRAME)
        edge = tx + 4
    else:
        canvas.put(tx, y + 1, g.top_left + g.h_line * 3, FRAME)
        canvas.put(tx, y + bot, g.bottom_left + g.h_line * 3, FRAME)
        edge = tx
    for row in range(2, bot):
        canvas.put(edge, y + row, g.v_line, FRAME)
    canvas.put(tx + 1, y + geo.mid_row, "OFF", LABEL)
    canvas.put(x + bar_x(my_colour, geo) - 1, y + geo.mid_row, "BAR", LABEL)


def _stack_row(y: int, top: bool, i: int, geo: Geometry) -> int:
    """The row of the ``i``-th checker (0 = at the edge) of a point on the top or bottom."""
    return y + 2 + i if top else y + geo.bottom_border - 1 - i


SPIKE_RED = Style(fg=RED, bold=False)
SPIKE_WHITE = Style(fg=WHITE, bold=False)
SPIKE_PLAIN = Style()


def _spike_style(red: bool, colors: bool) -> Style:
    if not colors:
        return SPIKE_PLAIN
    return SPIKE_RED if red else SPIKE_WHITE


def _point_body(
    canvas: Canvas, cx: int, y: int, top: bool, col: int, g: Glyphs, colors: int, geo: Geometry
) -> None:
    """The empty point: a shaded spike in alternating colours, tip towards the middle."""
    style = _spike_style(col % 2 == 0, bool(colors))
    for i in range(geo.stack):
        ch = g.shade_light if i < geo.stack - 1 else (g.point_down if top else g.point_up)
        canvas.put(cx, _stack_row(y, top, i, geo), ch, style)


def _stack(
    canvas: Canvas,
    cx: int,
    y: int,
    top: bool,
    count: int,
    colour: str,
    g: Glyphs,
    colors: int,
    lifted: bool,
    geo: Geometry,
) -> None:
    glyph = checker_glyph(colour, g, colors)
    shown = min(count, geo.stack)
    for i in range(shown):
        ry = _stack_row(y, top, i, geo)
        is_top_checker = i == shown - 1
        if count > geo.stack and is_top_checker:
            canvas.put(cx - (1 if count >= 10 else 0), ry, str(count), COUNT)
            if lifted:
                canvas.put(cx + 1, ry, glyph, checker_style(colour, colors, True))
            continue
        canvas.put(cx, ry, glyph, checker_style(colour, colors, lifted and is_top_checker))


def _label(p: int, pw: int) -> str:
    """A point's number over its checkers' column."""
    if pw == 3:
        return f"{p:^3}" if p < 10 else f" {p}"
    lead = pw // 2 + 1 - len(str(p))  # the last digit over the checkers
    return (" " * lead + str(p)).ljust(pw)


def draw_board(
    canvas: Canvas,
    x: int,
    y: int,
    pic: BoardPicture,
    glyphs: Glyphs,
    colors: int,
    geometry: Geometry = SMALL,
) -> None:
    """Draw the board with its top-left corner at (``x``, ``y``), ``geometry`` sized: its
    ground (``draw_ground``), then what lies on it (``draw_pieces``)."""
    draw_ground(canvas, x, y, pic.my_colour, glyphs, colors, geometry)
    draw_pieces(canvas, x, y, pic, glyphs, colors, geometry)


def draw_ground(
    canvas: Canvas, x: int, y: int, my_colour: str, glyphs: Glyphs, colors: int, geo: Geometry
) -> None:
    """What every position of a board seen from ``my_colour``'s side shares: the frame,
    the points' numbers, the empty spikes, and where each spot is clickable. About two
    thirds of drawing a board (some 200 single-cell writes), so a screen may draw it once
    and copy it (``door/ui/screens/backgammon.py``)."""
    _draw_frame(canvas, x, y, my_colour, glyphs, geo)
    off_x = geo.pw // 2  # the checkers' column within a point
    for p in range(1, 25):
        col, top = point_column(p, my_colour)
        px = x + column_x(col, my_colour, geo)
        canvas.put(px, y + (0 if top else geo.bottom_label), _label(p, geo.pw), LABEL)
        _point_body(canvas, px + off_x, y, top, col, glyphs, colors, geo)
    _clickable_spots(canvas, x, y, my_colour, geo)


def draw_pieces(
    canvas: Canvas, x: int, y: int, pic: BoardPicture, glyphs: Glyphs, colors: int,
    geometry: Geometry = SMALL,
) -> None:  # fmt: skip
    """What lies on a board drawn by ``draw_ground`` at (``x``, ``y``): the checkers, on
    the points, the bar and in the trays, the dice, the cube, the marks of the last move,
    the legal destinations and the cursor."""
    g = glyphs
    geo = geometry
    mine_c = pic.my_colour
    theirs_c = other_colour(mine_c)
    off_x = geo.pw // 2
    for p in range(1, 25):
        n_mine = pic.mine[p - 1]
        n_theirs = pic.theirs[24 - p]
        if not (n_mine or n_theirs):
            continue
        col, top = point_column(p, mine_c)
        px = x + column_x(col, mine_c, geo) + off_x
        if n_mine:
            _stack(canvas, px, y, top, n_mine, mine_c, g, colors, pic.lifted == p, geo)
        else:
            _stack(canvas, px, y, top, n_theirs, theirs_c, g, colors, False, geo)
    # The bar: the opponent's checkers in the top half, the viewer's in the bottom half,
    # each stacked from the middle outwards.
    bx = x + bar_x(mine_c, geo)
    for count, colour, top, lifted in (
        (pic.theirs[24], theirs_c, True, False),
        (pic.mine[24], mine_c, False, pic.lifted == BAR),
    ):
        glyph = checker_glyph(colour, g, colors)
        shown = min(count, geo.stack)
        for i in range(shown):
            ry = y + geo.mid_row - 1 - i if top else y + geo.mid_row + 1 + i
            if count > geo.stack and i == shown - 1:
                canvas.put(bx - (1 if count >= 10 else 0), ry, str(count), COUNT)
            else:
                canvas.put(bx, ry, glyph, checker_style(colour, colors, lifted and i == shown - 1))
    # The tray: borne-off checkers, three to a row, the viewer's in the bottom half.
    tx = x + tray_x0(mine_c, geo) + 1
    fly_mine = pic.flying is not None and pic.flying[1]
    fly_theirs = pic.flying is not None and not pic.flying[1]
    for off, colour, top in (
        (15 - sum(pic.theirs) - fly_theirs, theirs_c, True),
        (15 - sum(pic.mine) - fly_mine, mine_c, False),
    ):
        glyph = checker_glyph(colour, g, colors)
        for i in range(off):
            row, c = divmod(i, 3)
            canvas.put(tx + c, _stack_row(y, top, row, geo), glyph, checker_style(colour, colors))
    # Dice on the middle row, on the half of the player who rolled.
    if pic.dice:
        parts = [f"[{d}]" for d in pic.dice]
        half = 6 * geo.pw
        half_x = x + board_x0(mine_c, geo) + (half + 6 if pic.dice_mine else 1)
        dx = half_x + (half - 4 * len(parts)) // 2
        for i, part in enumerate(parts):
            used = i < len(pic.dice_used) and pic.dice_used[i]
            canvas.put(dx + 4 * i, y + geo.mid_row, part, DIE_USED if used else DIE)
    if pic.flying is not None:
        spot, is_mine = pic.flying
        colour = mine_c if is_mine else theirs_c
        col, _ = point_column(spot, mine_c)
        fx = x + column_x(col, mine_c, geo) + off_x
        glyph = checker_glyph(colour, g, colors)
        canvas.put(fx, y + geo.mid_row, glyph, checker_style(colour, colors, True))
    if pic.cube is not None:
        value, place = pic.cube
        cx, cy = cube_cell(place, mine_c, geo)
        canvas.put(x + cx, y + cy, f"{value:^3}", CUBE)
    # Marks (the last move), then targets and the cursor on the labels.
    for spot in pic.marks:
        lx, ly, w = spot_label_cell(spot, mine_c, g=geo)
        canvas.restyle(x + lx, y + ly, w, MARK)
    for spot in pic.targets:
        lx, ly, w = spot_label_cell(spot, mine_c, g=geo)
        canvas.restyle(x + lx, y + ly, w, TARGET)
        px, py, _ = pointer_cell(spot, mine_c, True, geo)
        canvas.put(x + px, y + py, g.bullet, TARGET_DOT)
    if pic.cursor is not None:
        draw_cursor(canvas, x, y, pic.cursor, mine_c, pic.targets, g, True, geo)


def _clickable_spots(canvas: Canvas, x: int, y: int, my_colour: str, geo: Geometry) -> None:
    """Each point (its label, frame edge and checkers: its half of the board), the bar and
    the tray are clickable where they were drawn, as ``Pick("spot", n)``."""
    for p in range(1, 25):
        col, top = point_column(p, my_colour)
        px = x + column_x(col, my_colour, geo)
        if top:
            canvas.clickable(px, y, geo.pw, geo.mid_row, Pick("spot", p))
        else:
            rows = geo.bottom_label - geo.mid_row
            canvas.clickable(px, y + geo.mid_row + 1, geo.pw, rows, Pick("spot", p))
    canvas.clickable(x + bar_x(my_colour, geo) - 1, y + 1, 3, geo.bottom_border, Pick("spot", BAR))
    tx = x + tray_x0(my_colour, geo)
    canvas.clickable(tx, y + 1, 5, geo.bottom_border, Pick("spot", OFF))
