"""Board renderer specs: pure functions of a position, checked cell by cell."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from door.games.backgammon.position import start_side
from door.games.spectrangle.board import fields
from door.ui.boards import backgammon as bgb
from door.ui.boards import spectrangle as spb
from door.ui.canvas import Canvas, diff
from door.ui.glyphs import glyphs
from door.ui.terminal import Caps

# --- Spectrangle geometry ----------------------------------------------------------------


def test_every_field_has_nine_cells_and_no_two_fields_share_a_cell() -> None:
    seen: dict[tuple[int, int], int] = {}
    for i in range(36):
        cells = spb.field_cells(i)
        assert len(cells) == 9
        for c in cells:
            assert (c.x, c.y) not in seen, f"field {i} overlaps field {seen[(c.x, c.y)]}"
            seen[(c.x, c.y)] = i
    assert max(x for x, _ in seen) == spb.BOARD_WIDTH - 1
    assert max(y for _, y in seen) == spb.BOARD_HEIGHT - 1


def test_fields_are_drawn_pointing_the_way_the_rules_say() -> None:
    for f in fields():
        widths = [
            sum(1 for c in spb.field_cells(f.index) if c.y == y)
            for y in range(3 * f.row, 3 * f.row + 3)
        ]
        assert widths == ([1, 3, 5] if f.up else [5, 3, 1]), f.index


def test_fields_that_touch_on_screen_are_exactly_the_rules_neighbours() -> None:
    owner = {(c.x, c.y): i for i in range(36) for c in spb.field_cells(i)}
    for f in fields():
        touching: set[int] = set()
        for c in spb.field_cells(f.index):
            # Side by side on a line, or one above the other across a row boundary
            # (only a field's wide line meets the next row).
            for dx, dy in ((-1, 0), (1, 0), (0, -1), (0, 1)):
                other = owner.get((c.x + dx, c.y + dy))
                if other is None or other == f.index:
                    continue
                if dy and spb.field_row_k(other)[0] == f.row:
                    continue
                # Two apexes meet only at a corner of the real board, not along a side.
                theirs = next(
                    o for o in spb.field_cells(other) if (o.x, o.y) == (c.x + dx, c.y + dy)
                )
                if c.role == spb.APEX and theirs.role == spb.APEX:
                    continue
                touching.add(other)
        assert touching == set(f.adjacent()), f.index


def test_each_side_letter_sits_on_its_side_of_the_field() -> None:
    for f in fields():
        cells = spb.field_cells(f.index)
        mid_x, mid_y = spb.field_center(f.index)
        primary = {c.role: c for c in cells if c.primary}
        assert primary[spb.LEFT].x < mid_x < primary[spb.RIGHT].x
        vertical = primary[spb.VERTICAL]
        assert vertical.x == mid_x
        assert vertical.y == (mid_y + 1 if f.up else mid_y - 1)


def test_the_cursor_moves_along_rows_and_to_the_nearest_field_above_and_below() -> None:
    assert spb.neighbour_in_direction(11, "left") == 10
    assert spb.neighbour_in_direction(11, "right") == 12
    assert spb.neighbour_in_direction(35, "right") == 0
    assert spb.neighbour_in_direction(0, "up") == 0
    assert spb.neighbour_in_direction(0, "down") == 2
    assert spb.neighbour_in_direction(30, "down") == 30
    assert spb.neighbour_in_direction(30, "up") == 20


def board_canvas(board: list[spb.Tile | None], **kw: object) -> Canvas:
    canvas = Canvas(80, 24)
    spb.draw_board(
        canvas, 0, 0, board, glyphs("utf-8"), 16, bonuses=[f.bonus for f in fields()],
        **kw,  # type: ignore[arg-type]
    )  # fmt: skip
    return canvas


def test_a_placed_piece_shows_its_value_in_the_middle_and_each_side_colour() -> None:
    board: list[spb.Tile | None] = [None] * 36
    board[11] = spb.Tile("YBR", 5)  # left yellow, right blue, bottom red
    canvas = board_canvas(board)
    mx, my = spb.field_center(11)
    assert canvas.cell(mx, my)[0] == "5"
    for c in spb.field_cells(11):
        if isinstance(c.role, int):
            ch, style = canvas.cell(c.x, c.y)
            letter = "YBR"[c.role]
            assert style.bg == spb.colour_of(letter)
            if c.primary:
                assert ch == letter


def test_empty_bonus_fields_show_their_multiplier_and_every_empty_field_its_index() -> None:
    canvas = board_canvas([None] * 36)
    text = "\n".join(canvas.lines())
    assert text.count("x2") == 3 and text.count("x3") == 3 and text.count("x4") == 3
    for f in fields():
        row = [c for c in spb.field_cells(f.index) if c.y == spb.field_center(f.index)[1]]
        shown = "".join(canvas.cell(c.x, c.y)[0] for c in sorted(row, key=lambda c: c.x))
        assert str(f.index) in shown


def test_accepting_fields_show_the_score_the_placement_would_make() -> None:
    canvas = board_canvas([None] * 36, accept={20: 24, 3: 6})
    for idx, score in ((20, 24), (3, 6)):
        row = [c for c in spb.field_cells(idx) if c.y == spb.field_center(idx)[1]]
        shown = "".join(canvas.cell(c.x, c.y)[0] for c in sorted(row, key=lambda c: c.x))
        assert shown.strip(" ░▒") == f"+{score}"


# --- Backgammon geometry ---------------------------------------------------------------


def test_white_sees_point_one_bottom_right_and_thirteen_top_left() -> None:
    assert bgb.point_column(1, bgb.WHITE_SIDE) == (11, False)
    assert bgb.point_column(12, bgb.WHITE_SIDE) == (0, False)
    assert bgb.point_column(13, bgb.WHITE_SIDE) == (0, True)
    assert bgb.point_column(24, bgb.WHITE_SIDE) == (11, True)


def test_black_sees_the_mirror_image_point_one_bottom_left() -> None:
    assert bgb.point_column(1, bgb.BLACK_SIDE) == (0, False)
    assert bgb.point_column(12, bgb.BLACK_SIDE) == (11, False)
    assert bgb.point_column(13, bgb.BLACK_SIDE) == (11, True)
    assert bgb.point_column(24, bgb.BLACK_SIDE) == (0, True)


def test_the_tray_is_beside_the_viewers_home_board() -> None:
    white = Canvas(60, 16)
    bgb.draw_board(white, 0, 0, bgb.BoardPicture(start_side(), start_side()), glyphs("utf-8"), 16)
    black = Canvas(60, 16)
    pic = bgb.BoardPicture(start_side(), start_side(), bgb.BLACK_SIDE)
    bgb.draw_board(black, 0, 0, pic, glyphs("utf-8"), 16)
    assert white.text_at(7).index("OFF") > white.text_at(7).index("BAR")
    assert black.text_at(7).index("OFF") < black.text_at(7).index("BAR")
    # Point 1 sits next to the tray in both views.
    assert white.text_at(14).rstrip().endswith("1")
    assert black.text_at(14).lstrip().startswith("1")


sides = st.lists(st.integers(0, 15), min_size=25, max_size=25)


def count_checkers(canvas: Canvas, glyph: str) -> int:
    """Checkers drawn as glyphs plus the numbers written on tall stacks."""
    total = 0
    for y in range(canvas.height):
        row = canvas.text_at(y).replace("OFF", "").replace("BAR", "")
        total += row.count(glyph)
    return total


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_every_checker_is_on_the_board_the_bar_or_in_the_tray(data: st.DataObject) -> None:
    # A random legal-looking split of 15 checkers each, no point shared.
    mine = [0] * 25
    theirs = [0] * 25
    for side, other in ((mine, theirs), (theirs, mine)):
        n = data.draw(st.integers(0, 15))
        for _ in range(n):
            spot = data.draw(st.integers(0, 24))
            if spot < 24 and other[23 - spot]:
                continue
            if side[spot] < 5:  # keep stacks short enough to count glyphs
                side[spot] += 1
    canvas = Canvas(70, 20)
    pic = bgb.BoardPicture(
        mine, theirs, data.draw(st.sampled_from([bgb.WHITE_SIDE, bgb.BLACK_SIDE]))
    )
    g = glyphs("cp437")
    bgb.draw_board(canvas, 0, 0, pic, g, 0, data.draw(st.sampled_from([bgb.SMALL, bgb.BIG])))
    mine_glyph = bgb.checker_glyph(pic.my_colour, g, 0)
    theirs_glyph = bgb.checker_glyph(bgb.other_colour(pic.my_colour), g, 0)
    # 15 each: on the board and bar, plus borne off in the tray.
    assert count_checkers(canvas, mine_glyph) == 15
    assert count_checkers(canvas, theirs_glyph) == 15


def test_a_stack_taller_than_five_shows_its_count() -> None:
    mine = list(start_side())
    mine[5] = 9
    mine[12] = 1
    canvas = Canvas(60, 16)
    bgb.draw_board(canvas, 0, 0, bgb.BoardPicture(mine, start_side()), glyphs("utf-8"), 16)
    assert "9" in canvas.text_at(8)  # the fifth checker from the bottom edge of point 6


def test_the_cursor_reaches_every_point_the_bar_and_the_tray() -> None:
    for colour in (bgb.WHITE_SIDE, bgb.BLACK_SIDE):
        reached = set()
        frontier = [(24, True)]
        while frontier:
            spot, top = frontier.pop()
            if (spot, top) in reached:
                continue
            reached.add((spot, top))
            for d in ("up", "down", "left", "right"):
                frontier.append(bgb.move_cursor(spot, d, colour, top))
        spots = {s for s, _ in reached}
        assert spots == set(range(0, 26))


def test_moving_the_cursor_changes_only_the_two_labels_and_arrows_and_costs_few_bytes() -> None:
    g = glyphs("utf-8")
    caps = Caps(encoding="utf-8", width=80, height=24)
    before = Canvas(80, 24)
    after = Canvas(80, 24)
    bgb.draw_board(before, 1, 1, bgb.BoardPicture(start_side(), start_side(), cursor=13), g, 16)
    bgb.draw_board(after, 1, 1, bgb.BoardPicture(start_side(), start_side(), cursor=14), g, 16)
    changed = {
        (x, y) for y in range(24) for x in range(80) if before.cell(x, y) != after.cell(x, y)
    }
    labels = set()
    for spot in (13, 14):
        lx, ly, w = bgb.spot_label_cell(spot, bgb.WHITE_SIDE)
        labels |= {(1 + lx + i, 1 + ly) for i in range(w)}
        px, py, _ = bgb.pointer_cell(spot, bgb.WHITE_SIDE)
        labels.add((1 + px, 1 + py))  # the arrow on the frame
    assert changed and changed <= labels
    assert len(diff(before, after, caps).encode()) <= 80


def test_every_glyph_a_board_draws_exists_in_cp437() -> None:
    g = glyphs("cp437")
    canvas = Canvas(80, 24)
    mine = list(start_side())
    mine[24] = 1
    mine[5] -= 1
    bgb.draw_board(
        canvas, 0, 0,
        bgb.BoardPicture(mine, start_side(), cursor=6, lifted=6, targets=frozenset({3}),
                         dice=(6, 6, 6, 6), dice_used=(True, False, False, False)),
        g, 16,
    )  # fmt: skip
    board: list[spb.Tile | None] = [None] * 36
    board[12] = spb.Tile("WWW", 1)
    spb.draw_board(
        canvas, 0, 0, board, g, 16, bonuses=[f.bonus for f in fields()], accept={11: 4}, cursor=11
    )
    spb.draw_piece_preview(canvas, 40, 0, "RGB", "BGR", 3, 16)
    for y in range(canvas.height):
        canvas.text_at(y).encode("cp437")


def test_the_bigger_board_keeps_the_same_geometry() -> None:
    owner = {(c.x, c.y): i for i in range(36) for c in spb.field_cells(i, 4)}
    assert len(owner) == 36 * 16  # no overlaps
    width, height = spb.board_size(4)
    assert max(x for x, _ in owner) == width - 1 and max(y for _, y in owner) == height - 1
    for f in fields():
        primary = {c.role: c for c in spb.field_cells(f.index, 4) if c.primary}
        mid_x, mid_y = spb.field_center(f.index, 4)
        assert primary[spb.LEFT].x < mid_x < primary[spb.RIGHT].x
        assert primary[spb.VERTICAL].y == (mid_y + 1 if f.up else mid_y - 1)


# --- helpers the game screens share ------------------------------------------------------


def test_deadline_text_says_how_long_is_left_in_the_largest_units() -> None:
    from datetime import UTC, datetime, timedelta

    from door.ui.boards.common import deadline_text

    now = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
    assert deadline_text(None, now) == ""
    assert deadline_text(now + timedelta(days=2, hours=4, minutes=5), now) == "2d 4h left"
    assert deadline_text(now + timedelta(hours=3, minutes=7), now) == "3h 7m left"
    assert deadline_text(now + timedelta(minutes=35, seconds=20), now) == "35m left"
    assert deadline_text(now - timedelta(seconds=1), now) == "overdue"


def test_the_last_turn_of_the_others_is_everything_since_my_own_last_move() -> None:
    from door.ui.boards.common import LoggedMove, last_turn_of_others

    def m(seq: int, seat: int) -> LoggedMove:
        return LoggedMove(seq, seat, f"move {seq}", None, None)

    log = [m(1, 0), m(2, 1), m(3, 2), m(4, 0), m(5, 1), m(6, 2)]
    assert [x.seq for x in last_turn_of_others(log, 0)] == [5, 6]
    assert [x.seq for x in last_turn_of_others(log, 2)] == []
    # A spectator sees the last player's last run of moves (e.g. roll, then the play).
    log2 = [m(1, 0), m(2, 1), m(3, 1)]
    assert [x.seq for x in last_turn_of_others(log2, None)] == [2, 3]


# --- Backgammon: a board drawn from its shared empty ground ---------------------------------


@st.composite
def board_pictures(draw: st.DrawFn) -> bgb.BoardPicture:
    """Any legal-looking position: 15 checkers a side spread over points, bar and tray,
    never both sides on one point, with dice, cube, marks, targets and a flying checker."""
    mine, theirs = [0] * 25, [0] * 25
    for side in (mine, theirs):
        for spot in draw(st.lists(st.integers(0, 25), min_size=15, max_size=15)):
            if spot < 25:  # 25: borne off
                side[spot] += 1
    for p in range(24):
        if mine[p] and theirs[23 - p]:
            theirs[23 - p] = 0
    spots = st.sampled_from([*range(1, 25), bgb.BAR])
    return bgb.BoardPicture(
        mine, theirs, draw(st.sampled_from([bgb.WHITE_SIDE, bgb.BLACK_SIDE])), None,
        draw(st.none() | spots), draw(st.frozensets(spots, max_size=4)),
        draw(st.frozensets(spots, max_size=4)),
        tuple(draw(st.lists(st.integers(1, 6), max_size=4))), (), draw(st.booleans()),
        draw(st.sampled_from([None, (1, "centre"), (4, "mine"), (8, "offer_theirs")])),
        draw(st.none() | st.tuples(st.integers(1, 24), st.booleans())),
    )  # fmt: skip


@settings(max_examples=150, deadline=None)
@given(
    st.lists(board_pictures(), min_size=2, max_size=3),
    st.sampled_from(["utf-8", "cp437"]),
    st.sampled_from([0, 16]),
    st.sampled_from([bgb.SMALL, bgb.BIG]),
)
def test_a_board_drawn_from_the_shared_ground_is_the_board_drawn_whole(
    pictures: list[bgb.BoardPicture], encoding: str, colors: int, geo: bgb.Geometry
) -> None:
    from door.ui.caches import RenderCaches
    from door.ui.screens import backgammon as screen

    caches = RenderCaches()
    for pic in pictures:  # one after the other: no drawing changes the ground it came from
        key: screen.BoardKey = (
            90, geo, encoding, colors, tuple(pic.mine), tuple(pic.theirs), pic.my_colour,
            pic.lifted, pic.targets, pic.marks, pic.dice, pic.dice_used, pic.dice_mine,
            pic.cube, pic.flying,
        )  # fmt: skip
        drawn = screen.board_drawing(key, caches)
        whole = caches.canvas(90, screen.BOARD_Y + geo.height)
        bgb.draw_board(whole, screen.BOARD_X, screen.BOARD_Y, pic, glyphs(encoding), colors, geo)
        assert drawn.lines() == whole.lines()
        assert diff(whole, drawn, Caps(encoding=encoding, colors=colors)) == ""  # styles too
        spots = [(r.x, r.y, r.w, r.h, r.target) for r in drawn.regions]
        assert spots == [(r.x, r.y, r.w, r.h, r.target) for r in whole.regions]
