"""Widgets: menus answer letters and arrows+Enter, the line editor edits, lists page."""

from __future__ import annotations

from door.ui.canvas import Canvas
from door.ui.terminal import Key, Resize, Text
from door.ui.widgets import LineEditor, ListView, Menu, MenuItem


def menu() -> Menu:
    return Menu([
        MenuItem("V", "View", "view"),
        MenuItem("P", "Play", "play", enabled=False),
        MenuItem("B", "Begin", "begin"),
    ])  # fmt: skip


def test_menu_letter_picks_item_at_once() -> None:
    item = menu().handle(Text("b"))
    assert item is not None and item.action == "begin"


def test_menu_letter_is_case_insensitive() -> None:
    item = menu().handle(Text("V"))
    assert item is not None and item.action == "view"


def test_menu_unknown_letter_picks_nothing() -> None:
    assert menu().handle(Text("z")) is None


def test_menu_disabled_item_cannot_be_picked_by_letter() -> None:
    assert menu().handle(Text("p")) is None


def test_menu_arrows_move_and_enter_picks() -> None:
    m = menu()
    assert m.handle(Key("down")) is None
    item = m.handle(Key("enter"))
    assert item is not None and item.action == "begin"  # skipped the disabled item


def test_menu_arrows_wrap_around() -> None:
    m = menu()
    m.handle(Key("up"))
    item = m.handle(Key("enter"))
    assert item is not None and item.action == "begin"


def test_menu_ignores_other_events() -> None:
    assert menu().handle(Resize(80, 24)) is None


def test_menu_render_highlights_selected_line() -> None:
    m = menu()
    c = Canvas(40, 5)
    m.render(c, 0, 0, 30)
    assert c.text_at(0).startswith(" V) View")
    assert c.cell(3, 0)[1] != c.cell(3, 2)[1]


def test_menu_render_shows_note_on_the_right() -> None:
    m = Menu([MenuItem("P", "Play", "play", note="(3)")])
    c = Canvas(40, 1)
    m.render(c, 0, 0, 30)
    assert c.text_at(0)[:30].endswith("(3) ")


def test_editor_types_and_submits() -> None:
    e = LineEditor()
    assert e.handle(Text("13/7")) == "changed"
    assert e.handle(Text(" 8/7")) == "changed"
    assert e.handle(Key("enter")) == "submit"
    assert e.text == "13/7 8/7"


def test_editor_takes_no_control_characters_nor_undecodable_bytes() -> None:
    e = LineEditor()
    assert e.handle(Text("\x00\x07\x85\x9b\ufffd\ufffd")) is None
    assert e.handle(Text("b\x01o\ufffdb\u0085")) == "changed"
    assert e.text == "bob"


def test_editor_backspace_and_cursor_keys() -> None:
    e = LineEditor("abc")
    e.handle(Key("left"))
    e.handle(Key("backspace"))
    assert e.text == "ac"
    e.handle(Key("home"))
    e.handle(Text("x"))
    assert e.text == "xac"


def test_editor_backspace_at_start_does_nothing() -> None:
    e = LineEditor("ab")
    e.handle(Key("home"))
    assert e.handle(Key("backspace")) is None
    assert e.text == "ab"


def test_editor_escape_cancels() -> None:
    assert LineEditor("x").handle(Key("escape")) == "cancel"


def test_editor_drops_control_characters() -> None:
    e = LineEditor()
    e.handle(Text("a\x1b[31mb\x07"))
    assert e.text == "a[31mb"


def test_editor_respects_max_len() -> None:
    e = LineEditor(max_len=3)
    e.handle(Text("abcdef"))
    assert e.text == "abc"


def test_editor_secret_shows_stars_and_places_cursor() -> None:
    e = LineEditor("pw", secret=True)
    c = Canvas(20, 1)
    e.render(c, 2, 0, 10)
    assert c.text_at(0).startswith("  **")
    assert c.cursor == (4, 0)


def page(view: ListView[int], offset: int, total: int = 25) -> None:
    view.set_page(list(range(offset, min(offset + view.page_size, total))), total, offset)


def test_list_enter_opens_selected_item() -> None:
    v: ListView[int] = ListView(page_size=10)
    page(v, 0)
    v.handle(Key("down"))
    action = v.handle(Key("enter"))
    assert action is not None and action.kind == "open" and action.item == 1


def test_list_pgdn_asks_for_next_page() -> None:
    v: ListView[int] = ListView(page_size=10)
    page(v, 0)
    action = v.handle(Key("pgdn"))
    assert action is not None and action.kind == "page" and action.offset == 10


def test_list_down_past_last_row_asks_for_next_page() -> None:
    v: ListView[int] = ListView(page_size=10)
    page(v, 0)
    for _ in range(9):
        assert v.handle(Key("down")) is None
    action = v.handle(Key("down"))
    assert action is not None and action.offset == 10


def test_list_no_page_past_the_end() -> None:
    v: ListView[int] = ListView(page_size=10)
    page(v, 20)
    assert v.handle(Key("pgdn")) is None
    assert v.handle(Text("n")) is None


def test_list_no_page_before_the_start() -> None:
    v: ListView[int] = ListView(page_size=10)
    page(v, 0)
    assert v.handle(Key("pgup")) is None


def test_list_counts_pages() -> None:
    v: ListView[int] = ListView(page_size=10)
    page(v, 10)
    assert (v.page, v.pages) == (2, 3)


def test_list_render_shows_rows_and_footer() -> None:
    v: ListView[int] = ListView(page_size=5)
    page(v, 5, total=12)
    c = Canvas(40, 10)
    v.render(c, 0, 0, 40, "Header", lambda i: f"item {i}")
    assert c.text_at(0).startswith("Header")
    assert c.text_at(1).startswith("item 5")
    assert "Page 2 of 3" in c.text_at(7)


def test_list_render_empty_message() -> None:
    v: ListView[int] = ListView(page_size=5)
    c = Canvas(40, 10)
    v.render(c, 0, 0, 40, "Header", str, empty="Nothing yet.")
    assert "Nothing yet." in c.text_at(2)
