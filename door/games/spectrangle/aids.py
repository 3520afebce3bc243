"""The seed's player aids (HINT and SHOW BAG) and what the board screen asks of the rules.

All pure functions of the state. Whether a table allows the aids is the service's call.
"""

from __future__ import annotations

from door.games.spectrangle.board import Field, fields
from door.games.spectrangle.moves import Move, placements, scored_moves
from door.games.spectrangle.pieces import Piece, entry_for, piece, pieces
from door.games.spectrangle.state import SpectrangleState


def hint(state: SpectrangleState, n: int = 3) -> list[tuple[Move, int]]:
    """The ``n`` best-scoring placements for the seat to move, best first, with scores.

    When the mover cannot place, the allowed ``pass`` / ``swap`` moves (score 0) instead;
    an empty list when nobody is to move.
    """
    return scored_moves(state)[: max(0, n)]


def show_bag(state: SpectrangleState) -> tuple[Piece, ...]:
    """The pieces neither on the board nor in any hand, in piece-table order."""
    on_board = {p.piece for p in state.board if p is not None}
    in_hands = {i for h in state.hands for i in h}
    return tuple(p for p in pieces() if p.index not in on_board and p.index not in in_hands)


def field_info(index: int) -> Field:
    """Geometry of one field: row, k, up/down, neighbours by side, bonus."""
    return fields()[index]


def field_sides(state: SpectrangleState, index: int) -> tuple[str, str, str] | None:
    """The colours (left, right, vertical) of the piece on field ``index``, or ``None``."""
    placed = state.board[index]
    if placed is None:
        return None
    s = placed.sides
    return (s[0], s[1], s[2])


def piece_sides(piece_index: int, up: bool, rotation: int, mirror: bool) -> tuple[str, str, str]:
    """How a hand piece would look on an up (or down) field: (left, right, vertical)."""
    s = entry_for(piece(piece_index).code, up, rotation, mirror)
    return (s[0], s[1], s[2])


def accepting_fields(
    state: SpectrangleState, piece_index: int, rotation: int, mirror: bool = False
) -> dict[int, int]:
    """For the mover's hand piece turned this way: field index -> score, for every field
    where that placement is legal (the piece must be in the mover's hand).

    ``rotation`` and ``mirror`` describe the piece, so a field pointing the other way
    receives it turned 180° as the notation defines.
    """
    result: dict[int, int] = {}
    if state.turn is None or piece_index not in state.hands[state.turn]:
        return result
    legal = {(m.field, m.sides): score for m, score in placements(state) if m.piece == piece_index}
    code = piece(piece_index).code
    for f in fields():
        # Compare by the colours it would show, so a "mirrored" two-colour piece (only a
        # rotation) is treated exactly as the notation treats it.
        score = legal.get((f.index, entry_for(code, f.up, rotation, mirror)))
        if score is not None:
            result[f.index] = score
    return result
