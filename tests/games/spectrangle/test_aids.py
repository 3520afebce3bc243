"""The seed's aids (HINT, SHOW BAG) and the helpers the board screen uses."""

from __future__ import annotations

from door.games.spectrangle.aids import (
    accepting_fields,
    field_info,
    field_sides,
    hint,
    piece_sides,
    show_bag,
)
from door.games.spectrangle.rules import SpectrangleRules
from tests.games.spectrangle.util import EMPTY_BOARD, p, play_random, spn_with

R = SpectrangleRules()
AFTER_TWO = (
    "-/-/-/-/-/-/-/-/-/-/-/YBY5/BGG5/-/-/-/-/-/-/-/-/-/-/-/-/-/-/-/-/-/-/-/-/-/-/- "
    "RRR6,BBY4,YBP3,BRP2|PPY5,RGY3,GRP1,WWW1 5,20 0 26"
)


def test_hint_lists_the_best_placements_first_with_their_scores() -> None:
    s = R.from_id(AFTER_TWO)
    best = hint(s, 3)
    assert [R.format_move(s, m) for m, _ in best] == ["BBY4@10:2", "YBP3@10:0", "YBP3@10:2m"]
    assert [score for _, score in best] == [8, 6, 6]
    everything = R.scored_moves(s)
    assert max(score for _, score in everything) == best[0][1]


def test_hint_for_a_stuck_player_offers_pass_and_swaps() -> None:
    s = R.from_id(spn_with(board={12: "BGG5"}, hands=("RRR6", "YYY6")))
    assert [R.format_move(s, m) for m, _ in hint(s, 5)] == ["pass", "swap RRR6"]


def test_show_bag_is_every_piece_neither_on_the_board_nor_in_a_hand() -> None:
    s = R.from_id(AFTER_TWO)
    bag = show_bag(s)
    assert len(bag) == 26
    shown = {x.name for x in bag}
    assert shown.isdisjoint({"YYB5", "GGB5", "RRR6", "BBY4", "PPY5", "WWW1"})
    assert [x.index for x in bag] == sorted(x.index for x in bag)


def test_show_bag_matches_the_hidden_bag_throughout_a_game() -> None:
    for s in play_random(R, 3, seed=9).states:
        if s.swap_out is None:
            assert tuple(x.index for x in show_bag(s)) == s.bag


def test_field_helpers_give_geometry_and_placed_colours() -> None:
    s = R.from_id(AFTER_TWO)
    f = field_info(11)
    assert (f.row, f.k, f.up, f.bonus, f.neighbours) == (3, 2, True, 4, (10, 12, 19))
    assert field_sides(s, 12) == ("B", "G", "G") and field_sides(s, 13) is None
    assert piece_sides(p("GGB5"), False, 0, False) == ("B", "G", "G")


def test_accepting_fields_lists_where_a_turned_piece_fits_and_its_score() -> None:
    s = R.from_id(AFTER_TWO)
    # BBY4 rotation 2 on a down field: left B, right Y, top B -> only field 10 (x2) fits.
    assert accepting_fields(s, p("BBY4"), 2) == {10: 8}
    assert accepting_fields(s, p("RRR6"), 0) == {}
    assert accepting_fields(s, p("PPY5"), 0) == {}  # not the mover's piece


def test_accepting_fields_on_an_empty_board_are_the_plain_fields() -> None:
    s = R.from_id(f"{EMPTY_BOARD} RRR6,GGB5,YBP3,BRP2|YYB5,PPY5,RGY3,WWW1 0,0 0 28")
    fits = accepting_fields(s, p("RRR6"), 0)
    assert len(fits) == 27 and set(fits.values()) == {6}


def test_accepting_fields_respects_the_tables_mirror_setting() -> None:
    s = R.from_id(AFTER_TWO, {"mirror": False})
    # YBP3 turned over fits field 10 with mirroring on only.
    assert accepting_fields(R.from_id(AFTER_TWO), p("YBP3"), 2, True) == {10: 6}
    assert accepting_fields(s, p("YBP3"), 2, True) == {}
    # A two-colour piece "turned over" is only a rotation: still accepted.
    assert accepting_fields(s, p("BBY4"), 0, True) == accepting_fields(s, p("BBY4"), 2)
