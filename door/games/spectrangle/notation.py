"""Move notation: ``RGY3@11:1`` (``m`` appended when mirrored), ``pass``, ``swap RRY5``.

:func:`parse_move` reads text and checks it against the state, raising the error trio of
:mod:`door.games.base` with a message for the player; :func:`format_move` writes the
canonical form (lowest rotation without ``m`` giving the same orientation).
"""

from __future__ import annotations

import re
from functools import cache

from door.games.base import AmbiguousMoveError, IllegalMoveError, InvalidMoveError
from door.games.spectrangle.board import FIELD_COUNT, fields
from door.games.spectrangle.moves import Move, can_place, placements, why_illegal
from door.games.spectrangle.pieces import entry_for, orientations, piece, piece_index
from door.games.spectrangle.state import Phase, SpectrangleState

_HELP = "write a placement like RGY3@11:1 (add m if turned over), pass, or swap RRY5"


@cache
def _placement_re() -> re.Pattern[str]:
    return re.compile(
        r"^(?P<piece>[A-Za-z]{3}\d?)\s*@\s*(?P<field>\d+)\s*"
        r"(?::\s*(?P<rot>\d+))?\s*(?P<m>[mM])?$"
    )


def format_move(move: Move) -> str:
    """The move in canonical notation: ``PIECE@FIELD:ROTATION`` (``m`` if turned over),
    ``pass`` or ``swap PIECE``.

    >>> format_move(Move.place(5, 12, 1, True)), format_move(Move.swap(5))
    ('RRY5@12:1m', 'swap RRY5')
    """
    if move.kind == "pass":
        return "pass"
    if move.piece is None:
        raise ValueError("a swap or placement names a piece")
    name = piece(move.piece).name
    if move.kind == "swap":
        return f"swap {name}"
    return f"{name}@{move.field}:{move.rotation}{'m' if move.mirror else ''}"


def canonical(state: SpectrangleState, move: Move) -> Move:
    """The same placement written the canonical way (lowest rotation, no ``m`` if an
    unmirrored placement gives the same orientation). Other moves come back unchanged.
    A mirrored orientation that no rotation gives stays mirrored (legality is checked
    elsewhere)."""
    if move.kind != "place" or move.piece is None or move.field is None:
        return move
    if not (0 <= move.field < FIELD_COUNT and 0 <= move.rotation <= 2):
        return move
    up = fields()[move.field].up
    sides = entry_for(piece(move.piece).code, up, move.rotation, move.mirror)
    for o in orientations(move.piece, up, True):
        if o.sides == sides:
            return Move.place(move.piece, move.field, o.rotation, o.mirror)
    return move


def _must_place_message(state: SpectrangleState) -> str:
    example = placements(state)[0][0]
    return f"you can place a piece (for example {format_move(example)}), so you must place one"


def parse_move(state: SpectrangleState, text: str) -> Move:
    """Read ``text`` as a move of the seat to act and check that it is legal.

    ``InvalidMoveError``: not notation at all. ``IllegalMoveError``: understood but not
    allowed, with the rule in words. ``AmbiguousMoveError``: a placement written without a
    rotation that fits in several ways (the message lists them).
    """
    t = " ".join(text.strip().split())
    if not t:
        raise InvalidMoveError(f"no move given: {_HELP}")
    low = t.lower()
    seat = state.turn
    if state.phase != Phase.PLAY or state.pending or seat is None:
        raise IllegalMoveError("it is nobody's turn to move now")
    if low == "pass":
        if can_place(state, seat):
            raise IllegalMoveError(_must_place_message(state))
        return Move.pass_()
    if low.startswith("swap"):
        rest = t[4:].strip()
        if not rest:
            raise InvalidMoveError("swap which piece? write e.g. swap RRY5")
        try:
            p = piece_index(rest)
        except ValueError as exc:
            raise InvalidMoveError(str(exc)) from None
        if p not in state.hands[seat]:
            raise IllegalMoveError(f"you do not hold {piece(p).name}")
        if can_place(state, seat):
            raise IllegalMoveError(_must_place_message(state))
        if not state.bag:
            raise IllegalMoveError("the bag is empty, so you cannot swap; pass instead")
        return Move.swap(p)
    m = _placement_re().match(t)
    if m is None:
        raise InvalidMoveError(f"{t!r} is not a move: {_HELP}")
    try:
        p = piece_index(m["piece"])
    except ValueError as exc:
        raise InvalidMoveError(str(exc)) from None
    written = m["piece"].upper()
    if written[:3] != piece(p).code:
        raise InvalidMoveError(f"write the piece as {piece(p).name}, not {m['piece']}")
    field_no = int(m["field"])
    if field_no >= FIELD_COUNT:
        raise InvalidMoveError(f"there is no field {field_no}: fields are numbered 0 to 35")
    mirror = m["m"] is not None
    if m["rot"] is None:
        return _without_rotation(state, p, field_no, mirror)
    rot = int(m["rot"])
    if rot > 2:
        raise InvalidMoveError(f"rotation {rot}? the rotation is 0, 1 or 2")
    move = canonical(state, Move.place(p, field_no, rot, mirror))
    reason = why_illegal(state, p, field_no, move.rotation, move.mirror)
    if reason is not None:
        raise IllegalMoveError(f"{format_move(move)}: {reason}")
    return move


def _without_rotation(state: SpectrangleState, p: int, field_no: int, mirror: bool) -> Move:
    fits = [
        mv
        for mv, _ in placements(state)
        if mv.piece == p
        and mv.field == field_no
        and (mv.mirror == mirror or not piece(p).is_chiral)
    ]
    if len(fits) == 1:
        return fits[0]
    if not fits:
        reason = why_illegal(state, p, field_no, 0, mirror)
        name = f"{piece(p).name}@{field_no}"
        if reason is None or reason.startswith("the "):
            reason = "it does not fit there in any rotation"
        raise IllegalMoveError(f"{name}: {reason}")
    readings = ", ".join(format_move(mv) for mv in fits)
    raise AmbiguousMoveError(f"which way round? it fits as {readings}")
