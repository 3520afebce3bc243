"""Game kind name → rules object.

Built on demand (no import-time globals): ``build_registry()`` returns a fresh mapping that
the composition root hands to the services.
"""

from __future__ import annotations

from typing import Any

from door.games.base import GameRules

AnyRules = GameRules[Any, Any, Any]


def build_registry() -> dict[str, AnyRules]:
    """Every game door knows, keyed by its kind name, in menu order.

    >>> list(build_registry())
    ['backgammon', 'spectrangle']
    """
    from door.games.backgammon.rules import BackgammonRules
    from door.games.spectrangle.rules import SpectrangleRules

    games: list[AnyRules] = [BackgammonRules(), SpectrangleRules()]
    return {g.kind: g for g in games}

