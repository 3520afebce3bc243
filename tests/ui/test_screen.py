"""The shared screen parts: clean() for user-visible text, the chrome, the context."""

from __future__ import annotations

from typing import Any

from door.ui.caches import RenderCaches
from door.ui.canvas import Canvas
from door.ui.glyphs import glyphs
from door.ui.screen import Context, clean, draw_chrome
from door.ui.terminal import Caps


def test_clean_removes_escape_and_bell() -> None:
    assert clean("a\x1b[2Jb\x07c") == "a[2Jbc"


def test_clean_removes_bidi_overrides() -> None:
    assert clean("evil\u202egnp.exe") == "evilgnp.exe"


def test_clean_turns_newlines_and_tabs_into_spaces() -> None:
    assert clean("a\r\nb\tc") == "a  b c"


def test_clean_keeps_ordinary_unicode() -> None:
    assert clean("Zoë 日本") == "Zoë 日本"


def test_clean_limits_length() -> None:
    assert clean("abcdef", 3) == "abc"


class _User:
    def __init__(self, name: str) -> None:
        self.name = name


def context(user: Any = None) -> Context:
    return Context(None, user, Caps(encoding="utf-8"), glyphs("utf-8"))  # type: ignore[arg-type]


def test_chrome_puts_title_left_user_right_and_help_at_the_bottom() -> None:
    c = Canvas(80, 24)
    draw_chrome(c, context(_User("日本")), "Title", "Q)uit")
    assert c.text_at(0).startswith(" Title")
    assert c.text_at(0).rstrip().endswith("日本")
    assert c.cell(79, 0)[0] == " "  # wide name measured by columns, not characters
    assert c.text_at(23).startswith(" Q)uit")


def test_sessions_sharing_the_render_caches_each_see_their_own_title_bar() -> None:
    caches = RenderCaches()  # one for the process, as App hands down
    shown = {}
    for name, width in (("alice", 80), ("bob", 80), ("alice", 100), ("bob", 80)):
        ctx = Context(None, _User(name), Caps(encoding="utf-8"), glyphs("utf-8"),  # type: ignore[arg-type]
                      caches=caches)  # fmt: skip
        c = caches.canvas(width, 24)
        draw_chrome(c, ctx, "Backgammon · #12", "Q)uit")
        shown[name, width] = c.text_at(0)
        assert c.text_at(0).startswith(" Backgammon · #12")
        assert c.text_at(0).rstrip().endswith(name)
        assert len(c.text_at(0)) == width
    assert shown["alice", 80] != shown["bob", 80]


def test_chrome_shows_status_above_help() -> None:
    ctx = context()
    ctx.status("Saved\x1b[31m!")
    c = Canvas(80, 24)
    draw_chrome(c, ctx, "T", "help")
    assert c.text_at(22).strip() == "Saved[31m!"


def test_bell_rings_only_with_sound_on() -> None:
    rung: list[int] = []

    class U:
        name = "x"

        class settings:
            sound = False

    ctx = Context(None, U(), Caps(), glyphs("cp437"), ring=lambda: rung.append(1))  # type: ignore[arg-type]
    ctx.bell()
    assert rung == []
    U.settings.sound = True
    ctx.bell()
    assert rung == [1]
