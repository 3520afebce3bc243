"""Backgammon: the pure rules (state, legal plays, notation, gnubg IDs, partial plays).

Start with :class:`BackgammonRules` (the ``GameRules`` contract) and
:class:`BackgammonState`; the cursor UI builds plays with :class:`PartialPlay`.
"""

from __future__ import annotations

from door.games.backgammon.moves import BgMove, Dice
from door.games.backgammon.partial import PartialPlay
from door.games.backgammon.position import BackgammonState, GameResult, Options, Phase
from door.games.backgammon.rules import BackgammonRules

__all__ = [
    "BackgammonRules",
    "BackgammonState",
    "BgMove",
    "Dice",
    "GameResult",
    "Options",
    "PartialPlay",
    "Phase",
]
