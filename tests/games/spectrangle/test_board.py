"""Board geometry: fields, orientation, neighbours, bonuses (reference §1)."""

from __future__ import annotations

from pathlib import Path

from door.games.spectrangle.board import (
    LEFT,
    RIGHT,
    VERTICAL,
    bonus_fields,
    field,
    fields,
    index_of,
    opposite_side,
)

DATA = Path(__file__).parent / "data"


def _reference_rows() -> list[list[str]]:
    lines = (DATA / "neighbours.txt").read_text().splitlines()
    return [ln.split() for ln in lines if ln and not ln.startswith("#")]


def _opt(text: str) -> int | None:
    return None if text == "-" else int(text)


def test_board_has_36_fields_21_up_and_15_down() -> None:
    assert len(fields()) == 36
    assert sum(f.up for f in fields()) == 21
    assert sum(not f.up for f in fields()) == 15


def test_rows_have_1_3_5_7_9_11_fields_with_up_fields_at_both_ends() -> None:
    for r in range(6):
        row = [f for f in fields() if f.row == r]
        assert len(row) == 2 * r + 1
        assert row[0].up and row[-1].up


def test_corners_have_exactly_one_neighbour() -> None:
    for corner in (0, 25, 35):
        assert len(field(corner).adjacent()) == 1


def test_other_border_up_fields_have_two_neighbours_and_the_rest_three() -> None:
    two = {1, 3, 4, 8, 9, 15, 16, 24, 27, 29, 31, 33}
    for f in fields():
        expected = 1 if f.index in (0, 25, 35) else 2 if f.index in two else 3
        assert len(f.adjacent()) == expected, f.index


def test_every_field_matches_the_reference_neighbour_table() -> None:
    rows = _reference_rows()
    assert len(rows) == 36
    for idx, r, k, c, points, bonus, left, right, vertical in rows:
        f = field(int(idx))
        assert (f.row, f.k, f.column) == (int(r), int(k), int(c))
        assert f.up == (points == "up")
        assert f.bonus == int(bonus)
        assert f.neighbours == (_opt(left), _opt(right), _opt(vertical))


def test_neighbourhood_is_symmetric_and_joins_opposite_sides() -> None:
    for f in fields():
        for side, nb in enumerate(f.neighbours):
            if nb is not None:
                assert field(nb).neighbours[opposite_side(side)] == f.index
                if side == VERTICAL:
                    assert field(nb).up != f.up
    assert opposite_side(LEFT) == RIGHT and opposite_side(RIGHT) == LEFT


def test_index_of_inverts_row_and_position() -> None:
    for f in fields():
        assert index_of(f.row, f.k) == f.index


def test_bonus_map_is_three_each_of_x2_x3_x4_at_the_reference_fields() -> None:
    bonuses = {f.index: f.bonus for f in fields() if f.bonus > 1}
    assert bonuses == {2: 3, 10: 2, 11: 4, 13: 4, 14: 2, 20: 4, 26: 3, 30: 2, 34: 3}
    assert bonus_fields() == frozenset(bonuses)


def _lattice(f_index: int) -> tuple[int, int, int, bool]:
    """Distances (a, b, c) of a field from the three edges; a + b + c is 5 for up fields
    and 4 for down fields, so the triangle's symmetries permute (a, b, c)."""
    f = field(f_index)
    j = f.k // 2
    if f.up:
        return (f.row - j, j, 5 - f.row, True)
    return (f.row - 1 - j, j, 5 - f.row, False)


def _symmetries() -> list[dict[int, int]]:
    coords = {_lattice(i): i for i in range(36)}
    perms = [(0, 1, 2), (1, 2, 0), (2, 0, 1), (1, 0, 2), (0, 2, 1), (2, 1, 0)]
    result = []
    for perm in perms:
        mapping = {}
        for i in range(36):
            a = _lattice(i)
            image = (a[perm[0]], a[perm[1]], a[perm[2]], a[3])
            mapping[i] = coords[image]
        result.append(mapping)
    return result


def test_the_six_symmetries_of_the_triangle_preserve_adjacency() -> None:
    for sym in _symmetries():
        assert sorted(sym.values()) == list(range(36))
        for f in fields():
            image = {sym[n] for n in f.adjacent()}
            assert image == set(field(sym[f.index]).adjacent())


def test_bonus_map_is_invariant_under_all_six_symmetries() -> None:
    for sym in _symmetries():
        for f in fields():
            assert field(sym[f.index]).bonus == f.bonus
