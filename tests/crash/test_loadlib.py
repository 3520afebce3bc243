"""The load and crash benchmarks' own parts: the screen model the simulated players read,
and the check that finds acknowledged moves missing from the database."""

from __future__ import annotations

import pyte
from hypothesis import given, settings
from hypothesis import strategies as st
from loadlib import Acked, ScreenModel, count_lost

from door.ui.canvas import DEFAULT, Canvas, Style, diff
from door.ui.terminal import Caps

STYLES = [DEFAULT, Style(fg=2), Style(fg=3, bold=True), Style(reverse=True)]


def pyte_lines(data: str) -> list[str]:
    screen = pyte.Screen(80, 24)
    pyte.Stream(screen).feed(data)
    return list(screen.display)


def model_lines(data: str, chunk: int) -> list[str]:
    model = ScreenModel()
    for i in range(0, len(data), chunk):
        model.feed(data[i : i + chunk])
    return [model.line(y) for y in range(24)]


writes = st.lists(
    st.tuples(
        st.integers(0, 79),
        st.integers(0, 23),
        st.text(alphabet="ab xyz─│:#/*", min_size=1, max_size=30),
        st.sampled_from(STYLES),
    ),
    max_size=20,
)


@settings(max_examples=60, deadline=None)
@given(first=writes, second=writes, chunk=st.integers(1, 200))
def test_screen_model_shows_what_pyte_shows_for_door_updates(
    first: list[tuple[int, int, str, Style]],
    second: list[tuple[int, int, str, Style]],
    chunk: int,
) -> None:
    caps = Caps(encoding="utf-8", colors=16)
    a = Canvas(80, 24)
    for x, y, text, style in first:
        a.put(x, y, text, style)
    b = Canvas(80, 24)
    for x, y, text, style in second:
        b.put(x, y, text, style)
    data = diff(None, a, caps) + diff(a, b, caps)
    assert model_lines(data, chunk) == pyte_lines(data)


def test_screen_model_follows_the_login_dialogue() -> None:
    data = "\r\nWelcome to door.\r\nName: bob\r\nPassword: \r\n"
    assert model_lines(data, 5)[:4] == pyte_lines(data)[:4]


def acked(game: int, seat: int, text: str, at: float) -> Acked:
    return Acked(game, seat, text, at)


def test_acknowledged_moves_stored_in_order_are_not_lost() -> None:
    seen = [acked(1, 0, "roll", 1.0), acked(1, 0, "13/7 8/7", 2.0), acked(1, 1, "roll", 3.0)]
    stored = {(1, 0): ["roll", "13/7 8/7", "roll"], (1, 1): ["roll"]}
    assert count_lost(seen, stored) == 0


def test_an_acknowledged_move_missing_from_the_database_is_lost() -> None:
    seen = [acked(1, 0, "roll", 1.0), acked(1, 0, "24/18 13/9", 2.0)]
    stored = {(1, 0): ["roll"]}
    assert count_lost(seen, stored) == 1


def test_a_move_stored_for_the_other_seat_does_not_count() -> None:
    seen = [acked(2, 1, "8/5 6/5", 1.0)]
    stored = {(2, 0): ["8/5 6/5"]}
    assert count_lost(seen, stored) == 1
