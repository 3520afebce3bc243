"""One table of named glyphs for CP437 and UTF-8 terminals.

Screens ask ``ctx.glyphs.h_line`` rather than spelling "─", so the same screen draws on a
CP437 BBS terminal (SyncTERM, NetRunner) and on a UTF-8 xterm. Every CP437 glyph here is
one the ``cp437`` codec can encode (CP437's 0x01–0x1F pictures are control codes on the
wire, so triangles and arrows fall back to ASCII-ish look-alikes there).
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from door.ui.terminal import Encoding


@dataclass(frozen=True)
class Glyphs:
    """Named glyphs; each value is one single-width character."""

    encoding: str
    # single-line box
    h_line: str
    v_line: str
    top_left: str
    top_right: str
    bottom_left: str
    bottom_right: str
    tee_down: str  # ┬
    tee_up: str  # ┴
    tee_right: str  # ├
    tee_left: str  # ┤
    cross: str  # ┼
    # double-line box
    dh_line: str
    dv_line: str
    d_top_left: str
    d_top_right: str
    d_bottom_left: str
    d_bottom_right: str
    d_tee_down: str
    d_tee_up: str
    d_tee_right: str
    d_tee_left: str
    d_cross: str
    # shades and blocks
    shade_light: str  # ░
    shade_medium: str  # ▒
    shade_dark: str  # ▓
    block: str  # █
    half_upper: str  # ▀
    half_lower: str  # ▄
    half_left: str  # ▌
    half_right: str  # ▐
    square: str  # ■
    # game pieces
    checker_white: str
    checker_black: str
    checker_empty: str
    point_up: str  # a triangle pointing up (a board point seen from below)
    point_down: str
    tri_up: str
    tri_down: str
    # arrows, marks
    arrow_up: str
    arrow_down: str
    arrow_left: str
    arrow_right: str
    bullet: str
    middle_dot: str
    check: str
    selector: str  # marks the selected menu line
    ellipsis: str
    degree: str

    def names(self) -> list[str]:
        """Every glyph name (for tests and documentation)."""
        return [f.name for f in fields(self) if f.name != "encoding"]


# Every glyph once: its name, then what UTF-8 and CP437 terminals get (one glyph when both
# get the same; CP437's box lines, shades and blocks are UTF-8's own).
GLYPH_TABLE: tuple[tuple[str, str] | tuple[str, str, str], ...] = (
    ("h_line", "─"), ("v_line", "│"), ("top_left", "┌"), ("top_right", "┐"),
    ("bottom_left", "└"), ("bottom_right", "┘"), ("tee_down", "┬"), ("tee_up", "┴"),
    ("tee_right", "├"), ("tee_left", "┤"), ("cross", "┼"),
    ("dh_line", "═"), ("dv_line", "║"), ("d_top_left", "╔"), ("d_top_right", "╗"),
    ("d_bottom_left", "╚"), ("d_bottom_right", "╝"), ("d_tee_down", "╦"), ("d_tee_up", "╩"),
    ("d_tee_right", "╠"), ("d_tee_left", "╣"), ("d_cross", "╬"),
    ("shade_light", "░"), ("shade_medium", "▒"), ("shade_dark", "▓"), ("block", "█"),
    ("half_upper", "▀"), ("half_lower", "▄"), ("half_left", "▌"), ("half_right", "▐"),
    ("square", "■"),
    ("checker_white", "○", "O"), ("checker_black", "●", "X"), ("checker_empty", "·"),
    ("point_up", "▲", "^"), ("point_down", "▼", "v"), ("tri_up", "▲", "^"),
    ("tri_down", "▼", "v"),
    ("arrow_up", "↑", "^"), ("arrow_down", "↓", "v"), ("arrow_left", "←", "«"),
    ("arrow_right", "→", "»"),
    ("bullet", "•", "∙"), ("middle_dot", "·"), ("check", "✓", "√"), ("selector", "►", "»"),
    ("ellipsis", "…", "~"), ("degree", "°"),
)  # fmt: skip


def _table(encoding: str) -> Glyphs:
    """The :class:`Glyphs` of ``encoding`` ("utf-8" or "cp437") from ``GLYPH_TABLE``."""
    column = 1 if encoding == "utf-8" else -1
    return Glyphs(encoding=encoding, **{row[0]: row[column] for row in GLYPH_TABLE})


def glyphs(encoding: Encoding | str) -> Glyphs:
    """The glyph table for ``encoding`` (``"cp437"`` or ``"utf-8"``; anything else gets
    the CP437 table, whose glyphs every BBS terminal shows)."""
    if encoding.lower().replace("_", "-") in ("utf-8", "utf8"):
        return _table("utf-8")
    return _table("cp437")
