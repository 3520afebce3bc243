"""The frozen Spectrangle state, the placement record and the draw (chance) event."""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum

from door.games.spectrangle.board import FIELD_COUNT
from door.games.spectrangle.pieces import piece


class Phase(StrEnum):
    """Where a game stands. A ``StrEnum``: each phase equals its stored name (snapshots
    and comparisons with the plain strings are unchanged).

    >>> Phase.PLAY == "play", Phase("over") is Phase.OVER
    (True, True)
    """

    START = "start"
    """The starting draws (one piece per contending seat)."""
    DEAL = "deal"
    """The starter is known and hands are filled to 4."""
    PLAY = "play"
    """Turns."""
    OVER = "over"
    """Finished, penalties applied."""


@dataclass(frozen=True)
class Placement:
    """A piece on the board: its table index and its colours on the field's left, right
    and vertical side (the SPN board entry without the value)."""

    piece: int
    sides: str

    @property
    def entry(self) -> str:
        """The SPN board entry, e.g. ``"BGG5"``."""
        return f"{self.sides}{piece(self.piece).value}"


@dataclass(frozen=True)
class Draw:
    """A chance event: ``pieces[i]`` is drawn from the bag by seat ``seats[i]``.

    Set-up draws name several seats (one piece each for the starting draw, up to three or
    four each for the deal); a draw after a placement or a swap names the one seat.
    """

    pieces: tuple[int, ...]
    seats: tuple[int, ...]


@dataclass(frozen=True)
class SpectrangleState:
    """Everything about a game at one moment. Immutable; the rules return new states.

    - ``board``: 36 entries by field index, ``None`` for an empty field.
    - ``hands``: one tuple of piece indices per seat, in piece-table order (public).
    - ``scores``: running score per seat; once ``phase == "over"`` the final scores,
      hand penalties already subtracted.
    - ``turn``: the seat whose turn it is (``None`` during the starting draws and at the
      end). While a draw is pending the turn has already passed to the next seat.
    - ``bag``: the pieces in the bag, as a sorted tuple (the bag has no stored order; the
      server draws with an RNG it is handed).
    - ``pending``: seats owed one piece each by the next chance event (empty = none).
    - ``swap_out``: the piece a swapping seat gives back once its new piece is drawn (it
      stays in that hand until then, so the new piece is never the old one).
    - ``idle``: consecutive turns in which the mover neither placed nor could place (the
      safety end comes when it reaches the number of seats still playing).
    - ``out``: seats that dropped out (forfeited in a 3-4 player game), in seat order.
    - ``end``: why the game ended (``"normal"``, ``"stuck"`` for the safety end, or the
      forfeit reason such as ``"resign"``), ``None`` while it goes on.
    - ``mirror`` / ``teams``: the table options that affect the rules.
    """

    players: int
    board: tuple[Placement | None, ...]
    hands: tuple[tuple[int, ...], ...]
    scores: tuple[int, ...]
    turn: int | None
    bag: tuple[int, ...]
    phase: Phase = Phase.PLAY
    pending: tuple[int, ...] = ()
    swap_out: int | None = None
    idle: int = 0
    out: tuple[int, ...] = ()
    end: str | None = None
    mirror: bool = True
    teams: bool = False

    def __post_init__(self) -> None:
        if len(self.board) != FIELD_COUNT:
            raise ValueError("a board has 36 fields")
        if not (len(self.hands) == len(self.scores) == self.players):
            raise ValueError("one hand and one score per player")

    @property
    def is_over(self) -> bool:
        return self.phase == Phase.OVER

    @property
    def board_empty(self) -> bool:
        return all(p is None for p in self.board)

    @property
    def bag_count(self) -> int:
        return len(self.bag)

    def active_seats(self) -> tuple[int, ...]:
        """Seats still in the game (not dropped out), in seat order."""
        return tuple(s for s in range(self.players) if s not in self.out)

    def team_of(self, seat: int) -> int:
        """The team of ``seat`` in the team variant (0: seats 0+2, 1: seats 1+3); without
        teams every seat is its own team."""
        return seat % 2 if self.teams else seat

    def next_seat(self, seat: int) -> int:
        """The next seat after ``seat`` that is still playing (clockwise = seat order)."""
        for step in range(1, self.players + 1):
            s = (seat + step) % self.players
            if s not in self.out:
                return s
        return seat

    def evolve(self, **changes: object) -> SpectrangleState:
        """A copy with some fields changed (``dataclasses.replace``)."""
        return replace(self, **changes)  # type: ignore[arg-type]


State = SpectrangleState
