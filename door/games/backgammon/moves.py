"""The Backgammon move type: every action a seat can take, and the chance event (dice).

A :class:`BgMove` is one of

* ``play`` — a checker play; ``steps`` are its single-die steps (see ``movegen``). The
  empty play (no legal move with the dice; the turn passes) has no steps and is written
  ``(no play)``;
* ``roll``, ``double``, ``take``, ``drop`` (also read as ``pass``), ``beaver``;
* ``resign`` with ``level`` 1 single, 2 gammon, 3 backgammon; ``accept``, ``reject``.
"""

from __future__ import annotations

from dataclasses import dataclass

from door.games.backgammon.movegen import Step

ACTIONS = ("play", "roll", "double", "take", "drop", "beaver", "resign", "accept", "reject")
NO_PLAY = "(no play)"

Dice = tuple[int, int]
"""A chance event: two dice. For the opening roll, seat 0's die then seat 1's."""


@dataclass(frozen=True)
class BgMove:
    """One action of the seat to act (see the module doc)."""

    action: str
    steps: tuple[Step, ...] = ()
    level: int = 0

    def __post_init__(self) -> None:
        if self.action not in ACTIONS:
            raise ValueError(f"unknown backgammon action {self.action!r}")


ROLL = BgMove("roll")
DOUBLE = BgMove("double")
TAKE = BgMove("take")
DROP = BgMove("drop")
BEAVER = BgMove("beaver")
ACCEPT = BgMove("accept")
REJECT = BgMove("reject")
EMPTY_PLAY = BgMove("play")


def resign(level: int) -> BgMove:
    """Offer to resign a single (1), gammon (2) or backgammon (3)."""
    if level not in (1, 2, 3):
        raise ValueError("resign level is 1 (single), 2 (gammon) or 3 (backgammon)")
    return BgMove("resign", level=level)


def play(steps: tuple[Step, ...]) -> BgMove:
    return BgMove("play", steps=tuple(steps))
