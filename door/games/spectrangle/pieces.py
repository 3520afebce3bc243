"""The 36 pieces (trangs), their values, and how each lies on a field.

A piece's ``code`` is its three colour letters counter-clockwise as it points up in
rotation 0, in the order left, bottom, right (the UT convention). Its ``name`` adds the
value digit (``"RRY5"``), which is how hands and moves write it.

Colours: ``R`` red, ``G`` green, ``B`` blue (cyan), ``Y`` yellow, ``P`` purple (magenta),
``W`` white (the joker, which matches any colour).

An *orientation* is the board entry the piece makes: its colours on the field's left,
right and vertical side, as a 3-letter string (see reference §5.5).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

COLOURS = "RGBYPW"
_COLOUR_WORDS = ("Red", "Green", "Blue", "Yellow", "Purple", "White")


def colour_name(letter: str) -> str:
    """The colour word for a letter of ``COLOURS`` ("R" -> "Red")."""
    return _COLOUR_WORDS[COLOURS.index(letter)]


JOKER_COLOUR = "W"
HAND_SIZE = 4

# The S8 list: code and value, in piece-table order (#0 .. #35).
_PIECE_LIST = (
    ("RRR", 6), ("BBB", 6), ("GGG", 6), ("YYY", 6), ("PPP", 6),
    ("RRY", 5), ("RRP", 5), ("BBR", 5), ("BBP", 5), ("GGR", 5),
    ("GGB", 5), ("YYG", 5), ("YYB", 5), ("PPY", 5), ("PPG", 5),
    ("RRB", 4), ("RRG", 4), ("BBG", 4), ("BBY", 4), ("GGY", 4),
    ("GGP", 4), ("YYR", 4), ("YYP", 4), ("PPR", 4), ("PPB", 4),
    ("YBP", 3), ("RGY", 3), ("BGP", 3), ("GRB", 3), ("BRP", 2),
    ("YPR", 2), ("YPG", 2), ("GRP", 1), ("BYG", 1), ("RYB", 1),
    ("WWW", 1),
)  # fmt: skip

PIECE_COUNT = 36

# Board entry (left, right, vertical) for code "abc": positions in the code, by table
# (up unmirrored, up mirrored, down unmirrored, down mirrored) and rotation 0..2 (§5.5).
_ENTRY_TABLE = (
    ((0, 2, 1), (1, 0, 2), (2, 1, 0)),  # up: acb bac cba
    ((2, 0, 1), (1, 2, 0), (0, 1, 2)),  # up, mirrored: cab bca abc
    ((2, 0, 1), (0, 1, 2), (1, 2, 0)),  # down: cab abc bca
    ((0, 2, 1), (2, 1, 0), (1, 0, 2)),  # down, mirrored: acb cba bac
)


@dataclass(frozen=True)
class Piece:
    """One trang: its table index, counter-clockwise code letters and face value."""

    index: int
    code: str
    value: int

    @property
    def name(self) -> str:
        """Code plus value, e.g. ``"RRY5"`` (the form hands and moves use)."""
        return f"{self.code}{self.value}"

    @property
    def colours(self) -> frozenset[str]:
        return frozenset(self.code)

    @property
    def is_joker(self) -> bool:
        return self.code == "WWW"

    @property
    def is_chiral(self) -> bool:
        """True for the 3-colour pieces, whose mirror image differs from every rotation."""
        return len(set(self.code)) == 3


@dataclass(frozen=True)
class Orientation:
    """A way a piece can lie on a field: rotation 0-2, mirrored or not, and the entry
    (colours on the field's left, right, vertical side) it makes."""

    rotation: int
    mirror: bool
    sides: str


@cache
def pieces() -> tuple[Piece, ...]:
    """All 36 pieces in piece-table order (built once)."""
    return tuple(Piece(i, code, value) for i, (code, value) in enumerate(_PIECE_LIST))


def piece(i: int) -> Piece:
    """The piece with table index ``i``."""
    return pieces()[i]


@cache
def _by_name() -> dict[str, int]:
    table: dict[str, int] = {}
    for p in pieces():
        table[p.name] = p.index
        table[p.code] = p.index
    return table


@cache
def _by_multiset() -> dict[str, int]:
    return {"".join(sorted(p.code)): p.index for p in pieces()}


def piece_index(text: str) -> int:
    """Read a piece written as its canonical name (``RRY5``) or code (``RRY``).

    Case does not matter. ``ValueError`` with a helpful message otherwise: a known colour
    set written in another order is answered with its canonical name.

    >>> piece_index("rry5"), piece_index("RRY")
    (5, 5)
    >>> piece_index("YRR")
    Traceback (most recent call last):
    ...
    ValueError: there is no piece 'YRR'; did you mean RRY5?
    """
    t = text.strip().upper()
    found = _by_name().get(t)
    if found is not None:
        return found
    letters = t[:-1] if t and t[-1].isdigit() else t
    if len(letters) == 3 and all(ch in COLOURS for ch in letters):
        other = _by_multiset().get("".join(sorted(letters)))
        if other is not None:
            p = piece(other)
            if t[-1:].isdigit() and letters == p.code:
                raise ValueError(f"{p.code} is worth {p.value}: write {p.name}")
            raise ValueError(f"there is no piece {text.strip()!r}; did you mean {p.name}?")
    raise ValueError(
        f"there is no piece {text.strip()!r}: a piece is three colour letters from "
        f"R G B Y P W and its value, e.g. RRY5"
    )


def entry_for(code: str, up: bool, rotation: int, mirror: bool) -> str:
    """The board entry (left, right, vertical colours) of ``code`` placed this way."""
    a = _ENTRY_TABLE[(0 if up else 2) + (1 if mirror else 0)][rotation]
    return code[a[0]] + code[a[1]] + code[a[2]]


@cache
def orientations(index: int, up: bool, allow_mirror: bool) -> tuple[Orientation, ...]:
    """The distinct ways piece ``index`` can lie on an up (or down) field.

    Each distinct entry appears once, written with the lowest rotation and without the
    mirror when an unmirrored placement gives it (reference §5.5, "suggested handling").
    """
    code = piece(index).code
    seen: dict[str, Orientation] = {}
    mirrors = (False, True) if allow_mirror else (False,)
    for m in mirrors:
        for r in range(3):
            sides = entry_for(code, up, r, m)
            if sides not in seen:
                seen[sides] = Orientation(r, m, sides)
    return tuple(seen.values())


def identify_entry(entry: str, up: bool) -> tuple[int, Orientation]:
    """Which piece lies in a board entry (3 letters) and how; ``ValueError`` if none fits."""
    letters = entry.upper()
    idx = _by_multiset().get("".join(sorted(letters)))
    if idx is None or len(letters) != 3:
        raise ValueError(f"{entry!r} is not the colours of any piece")
    # Three colours in some order always fit the piece with that colour set: the six
    # (rotation, mirror) pairs give every arrangement.
    for c in orientations(idx, up, True):
        if c.sides == letters:
            return idx, c
    raise ValueError(f"{entry!r} cannot lie on a field pointing {'up' if up else 'down'}")


def hand_value(hand: tuple[int, ...]) -> int:
    """Sum of the face values of the pieces (the end-of-game penalty for a hand)."""
    return sum(piece(i).value for i in hand)
