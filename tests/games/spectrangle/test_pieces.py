"""The 36 pieces and how they lie on a field (reference §2 and §5.5)."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import pytest

from door.games.spectrangle.pieces import (
    entry_for,
    identify_entry,
    orientations,
    piece,
    piece_index,
    pieces,
)


def test_there_are_36_pieces_whose_values_sum_to_142() -> None:
    assert len(pieces()) == 36
    assert sum(p.value for p in pieces()) == 142


def test_every_colour_multiset_is_unique() -> None:
    assert len({"".join(sorted(p.code)) for p in pieces()}) == 36


def test_every_three_colour_set_appears_exactly_once_worth_3_2_or_1() -> None:
    three = [p for p in pieces() if len(set(p.code)) == 3]
    assert len(three) == 10
    assert {frozenset(p.code) for p in three} == {frozenset(c) for c in combinations("RGBYP", 3)}
    assert Counter(p.value for p in three) == {3: 4, 2: 3, 1: 3}


def test_every_ordered_two_colour_pair_appears_once_worth_5_or_4() -> None:
    two = [p for p in pieces() if len(set(p.code)) == 2]
    pairs = {(p.code[0], p.code[2]) for p in two}
    assert len(two) == 20 and len(pairs) == 20
    assert all(p.code[0] == p.code[1] != p.code[2] for p in two)
    assert Counter(p.value for p in two) == {5: 10, 4: 10}


def test_one_colour_pieces_are_worth_6_and_the_joker_1() -> None:
    mono = [p for p in pieces() if len(set(p.code)) == 1]
    assert sorted(p.code for p in mono) == sorted(["RRR", "GGG", "BBB", "YYY", "PPP", "WWW"])
    assert {p.code: p.value for p in mono}["WWW"] == 1
    assert all(p.value == 6 for p in mono if p.code != "WWW")


@pytest.mark.parametrize(
    ("code", "up", "rotation", "mirror", "entry"),
    [
        ("RGY", True, 1, False, "GRY"),  # RGY3@11:1
        ("RGY", True, 1, True, "GYR"),  # RGY3@11:1m
        ("GRB", True, 1, False, "RGB"),  # GRB3@11:1
        ("GGB", False, 0, False, "BGG"),  # GGB5@12:0
        ("YYB", True, 0, False, "YBY"),  # YYB5@11:0
    ],
)
def test_reference_placement_examples_give_the_reference_entries(
    code: str, up: bool, rotation: int, mirror: bool, entry: str
) -> None:
    assert entry_for(code, up, rotation, mirror) == entry


def test_a_rotation_step_turns_the_piece_clockwise_on_an_up_field() -> None:
    # (left, bottom, right) = (a, b, c) becomes (b, c, a); an entry is (left, right, bottom).
    for r in range(3):
        left, right, bottom = entry_for("abc", True, r, False)
        nl, nr, nb = entry_for("abc", True, (r + 1) % 3, False)
        assert (nl, nb, nr) == (bottom, right, left)


def test_down_field_rotation_0_is_the_piece_turned_180_degrees() -> None:
    # Top = b, left = c, right = a for code abc.
    left, right, top = entry_for("abc", False, 0, False)
    assert (top, left, right) == ("b", "c", "a")


def test_mirroring_reverses_the_counter_clockwise_order() -> None:
    for up in (True, False):
        for r in range(3):
            assert entry_for("abc", up, r, True) == entry_for("cba", up, r, False)


@pytest.mark.parametrize(
    ("name", "with_mirror", "without_mirror"),
    [("RRR6", 1, 1), ("WWW1", 1, 1), ("RRY5", 3, 3), ("YBP3", 6, 3)],
)
def test_distinct_orientations_per_kind_of_piece(
    name: str, with_mirror: int, without_mirror: int
) -> None:
    i = piece_index(name)
    for up in (True, False):
        assert len(orientations(i, up, True)) == with_mirror
        assert len(orientations(i, up, False)) == without_mirror


def test_identify_entry_finds_piece_and_mirroring_as_reference_52_says() -> None:
    idx, o = identify_entry("RGB", True)
    assert piece(idx).name == "GRB3" and not o.mirror
    idx, o = identify_entry("BGG", False)
    assert piece(idx).name == "GGB5"
    idx, o = identify_entry("GYR", True)
    assert piece(idx).name == "RGY3" and o.mirror


def test_piece_names_are_read_in_any_case_and_wrong_orders_get_a_suggestion() -> None:
    assert piece_index("rry5") == piece_index("RRY")
    with pytest.raises(ValueError, match="did you mean RRY5"):
        piece_index("RYR5")
    with pytest.raises(ValueError, match="write RRY5"):
        piece_index("RRY4")
    with pytest.raises(ValueError, match="three colour letters"):
        piece_index("XYZ1")
