"""The glyph table: one set of names, every CP437 glyph encodable, every glyph narrow."""

from __future__ import annotations

import pytest
from wcwidth import wcwidth

from door.ui.glyphs import glyphs


def test_both_tables_have_the_same_names() -> None:
    assert glyphs("cp437").names() == glyphs("utf-8").names()


@pytest.mark.parametrize("encoding", ["cp437", "utf-8"])
def test_every_glyph_is_one_column(encoding: str) -> None:
    table = glyphs(encoding)
    for name in table.names():
        value = getattr(table, name)
        assert len(value) == 1 and wcwidth(value) == 1, name


def test_every_cp437_glyph_encodes_in_cp437() -> None:
    table = glyphs("cp437")
    for name in table.names():
        getattr(table, name).encode("cp437")  # raises if the far end could not show it


def test_cp437_glyphs_avoid_control_code_pictures() -> None:
    table = glyphs("cp437")
    for name in table.names():
        assert getattr(table, name).encode("cp437")[0] >= 0x20, name


def test_box_lines_are_the_same_in_both_tables() -> None:
    assert glyphs("cp437").h_line == glyphs("utf-8").h_line == "─"


def test_utf8_has_real_triangles_and_cp437_falls_back() -> None:
    assert glyphs("utf-8").point_up == "▲"
    assert glyphs("cp437").point_up == "^"


def test_unknown_encoding_gets_cp437() -> None:
    assert glyphs("latin-1").encoding == "cp437"


def test_utf8_spellings_are_accepted() -> None:
    assert glyphs("UTF8").encoding == "utf-8"
