"""Canvas.copy_rows: a screen keeps a part it often draws the same way and copies it in."""

from __future__ import annotations

import pytest

from door.ui.canvas import Canvas, Style, diff
from door.ui.terminal import Caps


def board(width: int = 20, height: int = 6) -> Canvas:
    canvas = Canvas(width, height)
    for y in range(height):
        canvas.put(0, y, f"row {y}", Style(fg=y % 8))
    return canvas


def test_copy_rows_gives_the_same_cells_as_drawing_them() -> None:
    target = Canvas(20, 6)
    target.copy_rows(board(), 1, 3)
    drawn = Canvas(20, 6)
    for y in (1, 2, 3):
        drawn.put(0, y, f"row {y}", Style(fg=y % 8))
    assert [target.text_at(y) for y in range(6)] == [drawn.text_at(y) for y in range(6)]
    assert diff(drawn, target, Caps(encoding="utf-8")) == ""


def test_copy_rows_leaves_other_rows_alone() -> None:
    target = Canvas(20, 6)
    target.put(0, 0, "keep me")
    target.put(0, 5, "and me")
    target.copy_rows(board(), 1, 3)
    assert target.text_at(0).rstrip() == "keep me"
    assert target.text_at(5).rstrip() == "and me"


def test_copy_rows_from_another_place_in_the_source() -> None:
    target = Canvas(20, 6)
    target.copy_rows(board(), 0, 2, source_top=4)
    assert [target.text_at(y).rstrip() for y in (0, 1)] == ["row 4", "row 5"]


def test_copy_rows_clips_at_both_canvases_edges() -> None:
    target = Canvas(20, 3)
    target.copy_rows(board(height=6), 1, 10, source_top=4)
    assert [target.text_at(y).rstrip() for y in range(3)] == ["", "row 4", "row 5"]


def test_copied_rows_are_not_shared_with_the_source() -> None:
    source = board()
    target = Canvas(20, 6)
    target.copy_rows(source, 0, 6)
    source.put(0, 2, "changed")
    assert target.text_at(2).rstrip() == "row 2"


def test_copy_rows_refuses_different_widths() -> None:
    with pytest.raises(ValueError, match="equal widths"):
        Canvas(21, 6).copy_rows(board(), 0, 1)
