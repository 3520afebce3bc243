"""Moves, legal-move generation, scoring, and plain-words reasons for illegal placements.

A placement scores ``value × bonus × max(1, touching sides)``. The first piece goes on
any field without a bonus; every later piece shares at least one side with a placed piece
and every touching side matches in colour (white matches everything).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Literal

from door.games.spectrangle.board import FIELD_COUNT, SIDE_NAMES, fields, opposite_side
from door.games.spectrangle.pieces import (
    JOKER_COLOUR,
    colour_name,
    entry_for,
    orientations,
    piece,
)
from door.games.spectrangle.state import Phase, SpectrangleState

MoveKind = Literal["place", "pass", "swap"]


@dataclass(frozen=True)
class Move:
    """One action of the seat to move.

    ``kind`` is ``"place"`` (``piece`` on ``field`` turned ``rotation`` steps clockwise,
    turned over if ``mirror``), ``"pass"``, or ``"swap"`` (give back ``piece`` for a new
    one from the bag). Build them with :meth:`place`, :meth:`pass_` and :meth:`swap`.
    """

    kind: MoveKind
    piece: int | None = None
    field: int | None = None
    rotation: int = 0
    mirror: bool = False

    @staticmethod
    def place(piece: int, field: int, rotation: int = 0, mirror: bool = False) -> Move:
        return Move("place", piece, field, rotation, mirror)

    @staticmethod
    def pass_() -> Move:
        return Move("pass")

    @staticmethod
    def swap(piece: int) -> Move:
        return Move("swap", piece)

    @property
    def sides(self) -> str:
        """For a placement: the board entry colours (left, right, vertical) it makes."""
        if self.kind != "place" or self.piece is None or self.field is None:
            raise ValueError("only a placement has sides")
        up = fields()[self.field].up
        return entry_for(piece(self.piece).code, up, self.rotation, self.mirror)


# Per field: (index, up, bonus, ((side, neighbour, neighbour's side), ...)).
FieldRow = tuple[int, bool, int, tuple[tuple[int, int, int], ...]]


@cache
def _field_rows() -> tuple[FieldRow, ...]:
    rows = []
    for f in fields():
        links = tuple(
            (side, nb, opposite_side(side))
            for side, nb in enumerate(f.neighbours)
            if nb is not None
        )
        rows.append((f.index, f.up, f.bonus, links))
    return tuple(rows)


def _constraints(
    state: SpectrangleState,
) -> list[tuple[int, bool, int, tuple[tuple[int, str], ...]]]:
    """Open fields with the colours their sides must match: (field, up, bonus, ((side,
    colour), ...)). On an empty board: every field without a bonus, with no constraint."""
    board = state.board
    out: list[tuple[int, bool, int, tuple[tuple[int, str], ...]]] = []
    if all(p is None for p in board):
        for idx, up, bonus, _ in _field_rows():
            if bonus == 1:
                out.append((idx, up, bonus, ()))
        return out
    for idx, up, bonus, links in _field_rows():
        if board[idx] is not None:
            continue
        need = []
        for side, nb, nb_side in links:
            placed = board[nb]
            if placed is not None:
                need.append((side, placed.sides[nb_side]))
        if need:
            out.append((idx, up, bonus, tuple(need)))
    return out


def _fits(sides: str, need: tuple[tuple[int, str], ...]) -> bool:
    for side, colour in need:
        c = sides[side]
        if c != colour and c != JOKER_COLOUR and colour != JOKER_COLOUR:
            return False
    return True


def placements(state: SpectrangleState, seat: int | None = None) -> list[tuple[Move, int]]:
    """Every legal placement for ``seat`` (default: the seat to move) with its score.

    De-duplicated by resulting board: each distinct (piece, field, entry) once, written
    with the lowest rotation and without the mirror where possible. Order: hand order,
    then field, then rotation (not sorted by score; see :func:`scored_moves`).
    """
    if seat is None:
        seat = state.turn
    if seat is None:
        return []
    cons = _constraints(state)
    mirror = state.mirror
    result: list[tuple[Move, int]] = []
    for p in state.hands[seat]:
        value = piece(p).value
        for idx, up, bonus, need in cons:
            base = value * bonus * max(1, len(need))
            for o in orientations(p, up, mirror):
                if _fits(o.sides, need):
                    result.append((Move("place", p, idx, o.rotation, o.mirror), base))
    return result


def can_place(state: SpectrangleState, seat: int) -> bool:
    """True if ``seat`` has at least one legal placement on this board."""
    hand = state.hands[seat]
    if not hand:
        return False
    cons = _constraints(state)
    if not cons:
        return False
    mirror = state.mirror
    for p in hand:
        for _, up, _, need in cons:
            for o in orientations(p, up, mirror):
                if _fits(o.sides, need):
                    return True
    return False


def scored_moves(state: SpectrangleState) -> list[tuple[Move, int]]:
    """Every legal action of the seat to move with its score, best first.

    When no placement exists: ``pass`` and, if the bag is not empty, one ``swap`` per
    piece in hand, each scoring 0. Ties keep piece-table, field, rotation order.
    """
    if state.phase != Phase.PLAY or state.pending or state.turn is None:
        return []
    found = placements(state)
    if found:
        found.sort(key=lambda ms: (-ms[1], ms[0].piece, ms[0].field, ms[0].mirror, ms[0].rotation))
        return found
    moves: list[tuple[Move, int]] = [(Move.pass_(), 0)]
    if state.bag:
        moves.extend((Move.swap(p), 0) for p in state.hands[state.turn])
    return moves


def placement_score(state: SpectrangleState, field: int) -> int:
    """The multiplier part of a placement on ``field``: bonus × max(1, touching sides).
    Multiply by the piece value for the score."""
    f = fields()[field]
    touching = sum(1 for nb in f.neighbours if nb is not None and state.board[nb] is not None)
    return f.bonus * max(1, touching)


def why_illegal(
    state: SpectrangleState, piece_index: int, field: int, rotation: int, mirror: bool
) -> str | None:
    """``None`` if the placement is legal for the seat to move, else the reason in words
    a player understands ("the left side touches Red, your piece shows Blue there")."""
    p = piece(piece_index)
    if state.turn is None or state.phase != Phase.PLAY or state.pending:
        return "it is nobody's turn to place a piece now"
    if piece_index not in state.hands[state.turn]:
        return f"you do not hold {p.name}"
    if not 0 <= field < FIELD_COUNT:
        return f"there is no field {field}: fields are numbered 0 to 35"
    if not 0 <= rotation <= 2:
        return "the rotation is 0, 1 or 2"
    if mirror and not state.mirror:
        return "pieces may not be turned over (mirrored) at this table"
    f = fields()[field]
    if state.board[field] is not None:
        return f"field {field} is already taken"
    if state.board_empty:
        if f.bonus > 1:
            return (
                f"field {field} is a x{f.bonus} bonus field; "
                "the first piece must go on a field without a bonus"
            )
        return None
    sides = entry_for(p.code, f.up, rotation, mirror)
    touching = 0
    for side, nb in enumerate(f.neighbours):
        if nb is None:
            continue
        placed = state.board[nb]
        if placed is None:
            continue
        touching += 1
        theirs = placed.sides[opposite_side(side)]
        mine = sides[side]
        if theirs != mine and JOKER_COLOUR not in (theirs, mine):
            return (
                f"the {SIDE_NAMES[side]} side touches {colour_name(theirs)}, "
                f"your piece shows {colour_name(mine)} there"
            )
    if touching == 0:
        return f"field {field} does not touch any placed piece"
    return None
