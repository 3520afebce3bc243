"""Board geometry: the 36 fields in UT indexing, their neighbours and bonus multipliers.

Field ``i`` lies in row ``r = isqrt(i)`` at position ``k = i - r*r`` from the left; fields
with even ``k`` point up. Every field has up to three sides: ``left``, ``right`` and
``vertical`` (the bottom of an up field, the top of a down field). A field's left side
touches its left neighbour's right side, its right side the right neighbour's left side,
and its vertical side the vertical neighbour's vertical side.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from math import isqrt

FIELD_COUNT = 36
ROWS = 6

LEFT, RIGHT, VERTICAL = 0, 1, 2
"""Side numbers, in the order a board entry lists them (left, right, vertical)."""

SIDE_NAMES = ("left", "right", "vertical")

# The bonus list of the UT course's SpectrangleBoardPrinter (reference §1.3), by index.
_BONUS_LIST = (
    1, 1, 3, 1, 1, 1, 1, 1, 1, 1, 2, 4, 1, 4, 2, 1, 1, 1,
    1, 1, 4, 1, 1, 1, 1, 1, 3, 1, 1, 1, 2, 1, 1, 1, 3, 1,
)  # fmt: skip


@dataclass(frozen=True)
class Field:
    """One of the 36 small triangles.

    ``neighbours`` is indexed by side (``LEFT``, ``RIGHT``, ``VERTICAL``): the neighbouring
    field's index, or ``None`` on the board's edge. The touching side of the neighbour is
    ``opposite_side(side)``.
    """

    index: int
    row: int
    k: int
    up: bool
    bonus: int
    neighbours: tuple[int | None, int | None, int | None]

    @property
    def column(self) -> int:
        """Centred column ``c = k - row`` (-row .. row)."""
        return self.k - self.row

    @property
    def left(self) -> int | None:
        return self.neighbours[LEFT]

    @property
    def right(self) -> int | None:
        return self.neighbours[RIGHT]

    @property
    def vertical(self) -> int | None:
        return self.neighbours[VERTICAL]

    def adjacent(self) -> tuple[int, ...]:
        """The indices of the fields sharing a side with this one."""
        return tuple(n for n in self.neighbours if n is not None)


def opposite_side(side: int) -> int:
    """The side of the neighbour that touches ``side`` of a field."""
    return (RIGHT, LEFT, VERTICAL)[side]


def index_of(row: int, k: int) -> int:
    """Field index from row and position in row; ``ValueError`` off the board.

    >>> index_of(0, 0), index_of(2, 3)
    (0, 7)
    """
    if not (0 <= row < ROWS and 0 <= k <= 2 * row):
        raise ValueError(f"no field at row {row}, position {k}")
    return row * row + k


def _build_field(i: int) -> Field:
    r = isqrt(i)
    k = i - r * r
    up = k % 2 == 0
    left = i - 1 if k >= 1 else None
    right = i + 1 if k <= 2 * r - 1 else None
    # Up fields touch the field below (none on the last row); down fields the one above.
    below = (r + 1) ** 2 + k + 1 if r <= ROWS - 2 else None
    vertical = below if up else (r - 1) ** 2 + k - 1
    return Field(i, r, k, up, _BONUS_LIST[i], (left, right, vertical))


@cache
def fields() -> tuple[Field, ...]:
    """All 36 fields, by index (built once)."""
    return tuple(_build_field(i) for i in range(FIELD_COUNT))


def field(i: int) -> Field:
    """The field with index ``i``; ``ValueError`` if there is none.

    >>> field(8).row, field(8).up, field(8).neighbours
    (2, True, (7, None, 14))
    """
    if not 0 <= i < FIELD_COUNT:
        raise ValueError(f"there is no field {i}: fields are numbered 0 to 35")
    return fields()[i]


@cache
def bonus_fields() -> frozenset[int]:
    """Indices of the fields whose multiplier is more than 1."""
    return frozenset(f.index for f in fields() if f.bonus > 1)
