"""The frozen Backgammon state: board, dice, cube, phase and the match around them.

Seats 0 and 1 are gnubg's player 0 and player 1. Each seat's checkers are counted from its
own side, gnubg ``anBoard`` style: ``board[seat][i]`` for ``i`` in 0..23 is that seat's
point ``i + 1``, ``board[seat][24]`` its bar; borne-off checkers are ``15 - sum``. The
same physical point is ``board[s][i]`` and ``board[1 - s][23 - i]``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

CHECKERS = 15
BAR = 24
"""Index of the bar in one seat's 25-entry board."""

Side = tuple[int, ...]
"""One seat's 25 counts: points 1..24 then the bar."""



class Phase(StrEnum):
    """Where a match stands: who acts (or that chance is next) and which actions are legal.

    A ``StrEnum``: each phase equals its stored name, so IDs, JSON views and comparisons
    with the old plain strings are unchanged.

    >>> Phase.MOVING == "moving", Phase("over") is Phase.OVER
    (True, True)
    """

    OPENING = "opening"
    """Before a game: the opening roll (one die each) is the pending chance event."""
    DECIDE = "decide"
    """The seat on roll may ``roll`` or ``double``."""
    DICE = "dice"
    """The dice of the seat on roll are the pending chance event (it rolled, or could not
    double)."""
    MOVING = "moving"
    """The seat on roll has dice and must play them."""
    DOUBLED = "doubled"
    """The seat on roll doubled; the other seat must take, drop (or beaver)."""
    RESIGNING = "resigning"
    """A resignation was offered; the other seat must accept or reject it."""
    OVER = "over"
    """The match (or the money game) is over."""


# The phases by their old module-level names, which the screens and services import.
OPENING = Phase.OPENING
DECIDE = Phase.DECIDE
DICE = Phase.DICE
MOVING = Phase.MOVING
DOUBLED = Phase.DOUBLED
RESIGNING = Phase.RESIGNING
OVER = Phase.OVER

PHASES = (OPENING, DECIDE, DICE, MOVING, DOUBLED, RESIGNING, OVER)

MAX_CUBE = 1 << 12
"""The largest cube: gnubg stops doubling at 4096 (its Match ID could hold 2**15)."""

RESIGN_WORDS = {1: "single", 2: "gammon", 3: "backgammon"}


def start_side() -> Side:
    """One seat's checkers in the standard starting position."""
    side = [0] * 25
    side[5] = 5  # 6-point
    side[7] = 3  # 8-point
    side[12] = 5  # mid-point (13)
    side[23] = 2  # 24-point
    return tuple(side)


def borne_off(side: Side) -> int:
    """How many of this seat's checkers are off the board."""
    return CHECKERS - sum(side)


def pips(side: Side) -> int:
    """Pip count of one seat (bar counts 25).

    >>> pips(start_side())
    167
    """
    return sum((i + 1) * n for i, n in enumerate(side))


@dataclass(frozen=True)
class Options:
    """The rules a match is played under (checked by ``BackgammonRules.validate_options``).

    ``match_length`` 0 means one money game. ``jacoby``, ``beavers`` and ``auto_doubles``
    apply to money play only; ``crawford`` to matches only.
    """

    match_length: int = 5
    cube: bool = True
    crawford: bool = True
    jacoby: bool = False
    beavers: bool = False
    auto_doubles: bool = False


@dataclass(frozen=True)
class GameResult:
    """How one game ended: ``winner`` seat, game ``value`` (1 single, 2 gammon, 3 backgammon),
    the ``cube`` it was played for, the ``points`` it scored and the ``reason`` (``normal``,
    ``resign``, ``drop``, ``timeout``, ``forfeit``)."""

    winner: int
    value: int
    cube: int
    points: int
    reason: str = "normal"


@dataclass(frozen=True)
class BackgammonState:
    """Everything about a Backgammon match at one moment. Immutable: new states come from
    ``BackgammonRules`` or from :meth:`evolve` (``dataclasses.replace``).

    ``turn`` is the seat on roll (the one who rolled or is about to roll; gnubg's dice owner).
    ``resigner``/``resign_level`` describe a pending resignation offer. ``last_game`` is the
    result of the most recently finished game of the match (``None`` before the first ends).
    ``rolled`` marks the ``DICE`` phase reached by choosing to ``roll`` although a double was
    possible (it only matters for telling the two ``DICE`` entries apart in the ID).
    ``beavered`` marks a ``DOUBLED`` phase in which the doubled seat beavered: the cube is
    already doubled and owned by the beaverer, and the original doubler must take or drop
    the redouble (as gnubg models it).
    """

    board: tuple[Side, Side] = (start_side(), start_side())
    turn: int = 0
    phase: Phase = Phase.OPENING
    dice: tuple[int, int] | None = None
    cube: int = 1
    cube_owner: int | None = None
    score: tuple[int, int] = (0, 0)
    crawford_game: bool = False
    post_crawford: bool = False
    resigner: int | None = None
    resign_level: int = 0
    last_game: GameResult | None = None
    rolled: bool = False
    beavered: bool = False
    options: Options = field(default_factory=Options)

    @property
    def match_length(self) -> int:
        return self.options.match_length

    @property
    def is_money(self) -> bool:
        return self.options.match_length == 0

    def side(self, seat: int) -> Side:
        """The checkers of ``seat``, counted from its own side."""
        return self.board[seat]

    def off(self, seat: int) -> int:
        """Checkers ``seat`` has borne off."""
        return borne_off(self.board[seat])

    def pips(self, seat: int) -> int:
        return pips(self.board[seat])

    def evolve(self, **changes: object) -> BackgammonState:
        """A copy with some fields changed: the state ``dataclasses.replace(self,
        **changes)`` gives, made the way :func:`copy.copy` makes a copy (a new object
        given the field values) rather than through ``__init__``, which is most of the
        cost of a move for a frozen dataclass of 15 fields. That is the same state
        because the class has no ``__post_init__``, no init-less field and no
        ``__slots__``; ``tests/games/backgammon/test_state.py`` pins all three.

        >>> import dataclasses
        >>> BackgammonState().evolve(turn=1) == dataclasses.replace(BackgammonState(), turn=1)
        True
        >>> BackgammonState().evolve(colour=1)
        Traceback (most recent call last):
        ...
        TypeError: BackgammonState has no field 'colour'
        """
        values = self.__dict__
        for name in changes:
            if name not in values:
                raise TypeError(f"BackgammonState has no field {name!r}")
        copy = object.__new__(BackgammonState)
        fresh = copy.__dict__
        fresh.update(values)
        fresh.update(changes)
        return copy

    def with_board(self, mover: Side, other: Side) -> BackgammonState:
        """This state with the board given from the view of ``turn`` (mover first)."""
        if self.turn == 0:
            return self.evolve(board=(mover, other))
        return self.evolve(board=(other, mover))


def check_board(board: tuple[Side, Side]) -> None:
    """Raise ``ValueError`` unless ``board`` is a possible Backgammon position."""
    for seat in (0, 1):
        side = board[seat]
        if len(side) != 25:
            raise ValueError("each side needs 25 counts (24 points and the bar)")
        if any(n < 0 for n in side):
            raise ValueError("a point cannot hold a negative number of checkers")
        if sum(side) > CHECKERS:
            raise ValueError(f"a player has {sum(side)} checkers; the most is {CHECKERS}")
    for i in range(24):
        if board[0][i] and board[1][23 - i]:
            raise ValueError(f"both players have checkers on the same point ({i + 1})")
