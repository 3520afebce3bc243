"""Move notation: placements, pass, swap, and the error trio's messages (reference §5.5)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from door.games.base import AmbiguousMoveError, IllegalMoveError, InvalidMoveError
from door.games.spectrangle.moves import Move
from door.games.spectrangle.notation import format_move
from door.games.spectrangle.rules import SpectrangleRules
from tests.games.spectrangle.util import EMPTY_BOARD, p, spn_with

R = SpectrangleRules()
START = f"{EMPTY_BOARD} RRR6,GGB5,YBP3,BRP2|YYB5,PPY5,RGY3,WWW1 0,0 0 28"


@pytest.mark.parametrize(
    ("move", "text"),
    [
        (Move.place(p("RGY3"), 11, 1), "RGY3@11:1"),
        (Move.place(p("RGY3"), 11, 1, True), "RGY3@11:1m"),
        (Move.pass_(), "pass"),
        (Move.swap(p("PPY5")), "swap PPY5"),
    ],
)
def test_moves_are_written_as_the_reference_shows(move: Move, text: str) -> None:
    assert format_move(move) == text


def test_every_legal_move_reads_back_from_its_text() -> None:
    s = R.from_id(START)
    for m in R.legal_moves(s):
        assert R.parse_move(s, R.format_move(s, m)) == m


def test_equivalent_rotations_are_written_the_lowest_way_without_m() -> None:
    s = R.from_id(START)
    # RRR6 looks the same every way round.
    assert R.format_move(s, R.parse_move(s, "RRR6@12:2m")) == "RRR6@12:0"


def test_lower_case_and_spaces_are_accepted() -> None:
    s = R.from_id(START)
    assert R.parse_move(s, "  ggb5 @ 12 : 0 ") == R.parse_move(s, "GGB5@12:0")
    assert R.parse_move(s, "RRR6@12") == R.parse_move(s, "RRR6@12:0")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "no move given"),
        ("hello", "not a move"),
        ("RRR6@40:0", "no field 40"),
        ("RRR6@12:3", "rotation is 0, 1 or 2"),
        ("QQQ6@12:0", "three colour letters"),
        ("RYR5@12:0", "did you mean RRY5"),
        ("swap", "swap which piece"),
    ],
)
def test_unreadable_text_raises_invalid_move_error(text: str, message: str) -> None:
    s = R.from_id(START)
    with pytest.raises(InvalidMoveError, match=message):
        R.parse_move(s, text)


def test_a_piece_not_in_hand_is_illegal_and_says_so() -> None:
    s = R.from_id(START)
    with pytest.raises(IllegalMoveError, match="you do not hold PPY5"):
        R.parse_move(s, "PPY5@12:0")


def test_placement_without_rotation_that_fits_several_ways_is_ambiguous() -> None:
    s = R.from_id(START)
    with pytest.raises(AmbiguousMoveError, match="GGB5@12:0, GGB5@12:1, GGB5@12:2"):
        R.parse_move(s, "GGB5@12")


def test_placement_without_rotation_that_fits_one_way_is_taken() -> None:
    s = R.from_id(spn_with(board={12: "BGG5"}, hands=("RRB4", "RRR6")))
    assert R.format_move(s, R.parse_move(s, "RRB4@11")) == "RRB4@11:0"


def test_placement_without_rotation_that_fits_no_way_is_illegal() -> None:
    s = R.from_id(spn_with(board={12: "BGG5"}, hands=("RRY5", "RRR6")))
    with pytest.raises(IllegalMoveError, match="does not fit there in any rotation"):
        R.parse_move(s, "RRY5@11")


def test_errors_are_value_errors_so_callers_may_catch_them_together() -> None:
    for err in (InvalidMoveError, IllegalMoveError, AmbiguousMoveError):
        assert issubclass(err, ValueError)


def test_no_move_is_read_while_a_draw_is_pending() -> None:
    with pytest.raises(IllegalMoveError, match="nobody's turn"):
        R.parse_move(R.new_game(2, {}), "pass")


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="RGBYPWrgbm@:0123456789 swapas", max_size=24))
def test_any_text_is_either_a_legal_move_or_one_of_the_error_trio(text: str) -> None:
    s = R.from_id(START)
    try:
        move = R.parse_move(s, text)
    except (InvalidMoveError, IllegalMoveError, AmbiguousMoveError) as exc:
        assert str(exc)
        return
    assert move in R.legal_moves(s)
