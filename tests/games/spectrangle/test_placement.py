"""Placement legality, scoring, forced placement, pass and swap (reference §3.2-3.4)."""

from __future__ import annotations

import random

import pytest

from door.games.base import IllegalMoveError
from door.games.spectrangle.board import fields
from door.games.spectrangle.moves import Move, placements, why_illegal
from door.games.spectrangle.rules import SpectrangleRules
from door.games.spectrangle.state import Draw, SpectrangleState
from tests.games.spectrangle.util import EMPTY_BOARD, p, place, play_random, spn_with

R = SpectrangleRules()
START = f"{EMPTY_BOARD} RRR6,GGB5,YBP3,BRP2|YYB5,PPY5,RGY3,WWW1 0,0 0 28"  # reference §5.3


def test_first_move_scores_the_face_value_and_lies_as_the_reference_shows() -> None:
    s = R.from_id(START)
    after = R.apply(s, place("GGB5", 12, 0))
    assert after.board[12] is not None and after.board[12].entry == "BGG5"
    assert after.scores == (5, 0)


def test_the_reference_example_game_reaches_the_reference_spn() -> None:
    s = R.from_id(START)
    s = R.apply(s, R.parse_move(s, "GGB5@12:0"))
    s = R.apply_chance(s, Draw((p("BBY4"),), (0,)))
    s = R.apply(s, R.parse_move(s, "YYB5@11:0"))
    s = R.apply_chance(s, Draw((p("GRP1"),), (1,)))
    assert R.to_id(s) == (
        "-/-/-/-/-/-/-/-/-/-/-/YBY5/BGG5/-/-/-/-/-/-/-/-/-/-/-/-/-/-/-/-/-/-/-/-/-/-/- "
        "RRR6,BBY4,YBP3,BRP2|PPY5,RGY3,GRP1,WWW1 5,20 0 26"
    )


@pytest.mark.parametrize("bonus_field", sorted(i for i in range(36) if fields()[i].bonus > 1))
def test_first_piece_may_not_go_on_a_bonus_field(bonus_field: int) -> None:
    s = R.from_id(START)
    reason = why_illegal(s, p("RRR6"), bonus_field, 0, False)
    assert reason is not None and "bonus" in reason
    with pytest.raises(IllegalMoveError, match="first piece must go on a field without a bonus"):
        R.parse_move(s, f"RRR6@{bonus_field}:0")


def test_first_move_may_use_any_of_the_27_plain_fields_in_every_orientation() -> None:
    s = R.from_id(START)
    moves = placements(s)
    assert {m.field for m, _ in moves} == {f.index for f in fields() if f.bonus == 1}
    # RRR6 1 way, GGB5 3 ways, YBP3 and BRP2 6 ways each (mirroring on): 16 x 27.
    assert len(moves) == 16 * 27


def test_a_six_on_a_x4_field_touching_three_pieces_scores_72() -> None:
    # Field 20 (up, x4): left 19, right 21, bottom 30. All red where they touch 20.
    spn = spn_with(
        board={19: "GRR4", 21: "RBR4", 30: "PRR5"},
        hands=("RRR6", "BBB6"),
    )
    # 19's right side, 21's left side and 30's top are red.
    s = R.from_id(spn)
    move = R.parse_move(s, "RRR6@20:0")
    assert R.move_score(s, move) == 72
    assert R.apply(s, move).scores[0] == 72


def test_one_touching_side_scores_the_value_times_the_bonus_only() -> None:
    s = R.from_id(spn_with(board={12: "BGG5"}, hands=("YYB5", "RRR6")))
    assert R.move_score(s, R.parse_move(s, "YYB5@11:0")) == 5 * 4 * 1


def test_two_touching_sides_double_the_score() -> None:
    # Field 6 (up) touches 5 on the left, 7 on the right and 12 below.
    s = R.from_id(spn_with(board={5: "RRP5", 7: "GGY4"}, hands=("RGY3", "BBB6")))
    scores = {R.format_move(s, m): sc for m, sc in R.scored_moves(s) if m.field == 6}
    assert scores and set(scores.values()) == {3 * 1 * 2}


def test_every_touching_side_must_match_and_the_message_names_the_colours() -> None:
    s = R.from_id(spn_with(board={12: "BGG5"}, hands=("RRB4", "RRR6")))
    # RRB4 on field 11 rotation 0: left R, bottom R, right B -> right B touches 12's B: ok.
    assert why_illegal(s, p("RRB4"), 11, 0, False) is None
    # Rotation 1: left R, bottom B, right R -> right side R against 12's left B.
    with pytest.raises(IllegalMoveError, match="the right side touches Blue, your piece shows Red"):
        R.parse_move(s, "RRB4@11:1")


def test_a_piece_must_touch_a_placed_piece_after_the_first_move() -> None:
    s = R.from_id(spn_with(board={12: "BGG5"}, hands=("RRR6", "BBB6")))
    with pytest.raises(IllegalMoveError, match="does not touch any placed piece"):
        R.parse_move(s, "RRR6@0:0")


def test_a_taken_field_is_refused() -> None:
    s = R.from_id(spn_with(board={12: "BGG5"}, hands=("RRR6", "BBB6")))
    with pytest.raises(IllegalMoveError, match="already taken"):
        R.parse_move(s, "RRR6@12:0")


def test_the_joker_may_be_placed_next_to_any_piece() -> None:
    s = R.from_id(spn_with(board={12: "BGG5"}, hands=("WWW1", "RRR6")))
    fields_ok = {m.field for m, _ in placements(s)}
    assert fields_ok == {11, 13, 6}


def test_any_piece_may_be_placed_against_a_joker_on_the_board() -> None:
    s = R.from_id(spn_with(board={12: "WWW1"}, hands=("RRR6", "BBB6")))
    assert {m.field for m, _ in placements(s)} == {11, 13, 6}
    # And the touching side counts for the score: 6 x 4 (field 11) x 1.
    assert R.move_score(s, R.parse_move(s, "RRR6@11:0")) == 24


def test_a_player_who_can_place_may_neither_pass_nor_swap() -> None:
    s = R.from_id(spn_with(board={12: "BGG5"}, hands=("GGG6", "RRR6")))
    with pytest.raises(IllegalMoveError, match="so you must place one"):
        R.parse_move(s, "pass")
    with pytest.raises(IllegalMoveError, match="so you must place one"):
        R.parse_move(s, "swap GGG6")
    with pytest.raises(IllegalMoveError):
        R.apply(s, Move.pass_())
    assert all(m.kind == "place" for m in R.legal_moves(s))


def test_a_player_who_cannot_place_may_pass_or_swap_each_piece() -> None:
    s = R.from_id(spn_with(board={12: "BGG5"}, hands=("RRR6,YYY6", "BBB6")))
    assert [R.format_move(s, m) for m in R.legal_moves(s)] == ["pass", "swap RRR6", "swap YYY6"]
    after = R.apply(s, R.parse_move(s, "pass"))
    assert after.turn == 1 and after.hands == s.hands and after.scores == s.scores


def _stuck_with_empty_bag() -> SpectrangleState:
    """A real position from self-play: bag empty, the mover holds pieces but cannot place."""
    for seed in range(200):
        for st in play_random(R, 2, seed).states:
            seat = R.to_act(st)
            if seat is not None and not st.bag and st.hands[seat] and not placements(st):
                return st
    raise AssertionError("no such position in 200 games")


def test_swap_with_an_empty_bag_is_refused_and_only_pass_remains() -> None:
    s = _stuck_with_empty_bag()
    seat = R.to_act(s)
    assert seat is not None
    assert [m.kind for m in R.legal_moves(s)] == ["pass"]
    name = R.format_move(s, Move.swap(s.hands[seat][0]))
    with pytest.raises(IllegalMoveError, match="the bag is empty"):
        R.parse_move(s, name)


def test_swap_draws_the_new_piece_first_then_returns_the_old_one() -> None:
    s = R.from_id(spn_with(board={12: "BGG5"}, hands=("RRR6,YYY6", "BBB6")))
    after = R.apply(s, R.parse_move(s, "swap RRR6"))
    assert R.chance_pending(after) and after.pending == (0,)
    assert p("RRR6") in after.hands[0] and p("RRR6") not in after.bag
    event = R.sample_chance(after, random.Random(1))
    assert p("RRR6") not in event.pieces
    done = R.apply_chance(after, event)
    assert p("RRR6") in done.bag and p("RRR6") not in done.hands[0]
    assert event.pieces[0] in done.hands[0] and len(done.hands[0]) == 2
    assert done.turn == 1 and R.to_act(done) == 1


def test_placing_draws_one_piece_for_the_mover_while_the_bag_has_pieces() -> None:
    s = R.from_id(START)
    after = R.apply(s, place("GGB5", 12))
    assert after.pending == (0,) and R.to_act(after) is None
    done = R.apply_chance(after, R.sample_chance(after, random.Random(3)))
    assert len(done.hands[0]) == 4 and len(done.bag) == 27 and R.to_act(done) == 1


def test_a_mirrored_placement_is_refused_when_the_table_turns_mirroring_off() -> None:
    s = R.from_id(START, {"mirror": False})
    with pytest.raises(IllegalMoveError, match="turned over"):
        R.parse_move(s, "YBP3@12:0m")
    # A two-colour piece "mirrored" is only a rotation, so it is accepted.
    assert R.parse_move(s, "GGB5@12:0m") == R.parse_move(s, "GGB5@12:2")
    assert len(placements(s)) == (1 + 3 + 3 + 3) * 27


def test_apply_refuses_an_illegal_move_object_and_changes_nothing() -> None:
    s = R.from_id(START)
    with pytest.raises(IllegalMoveError, match="bonus"):
        R.apply(s, place("RRR6", 11))
    assert R.to_id(s) == START
