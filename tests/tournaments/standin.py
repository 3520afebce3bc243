"""A knock-out-only stand-in for door/services/tournaments/formats.py (another branch's),
used by these tests only while that module is not here. Same API, simplest rules."""

from __future__ import annotations

import sys
import types
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Entrant:
    user_id: int
    rating: float


@dataclass(frozen=True)
class Table:
    seats: tuple[int, ...]


@dataclass(frozen=True)
class GameResult:
    round_no: int
    seats: tuple[int, ...]
    placing: tuple[int, ...]


@dataclass(frozen=True)
class Standing:
    user_id: int
    rank: int
    points: float
    tiebreaks: tuple[float, ...]
    played: int
    won: int


class Knockout:
    name = "knockout"
    tiebreak_rule = "none"

    def total_rounds(self, n: int) -> int:
        r = 0
        while (1 << r) < n:
            r += 1
        return r

    def _alive(
        self, entrants: Sequence[Entrant], results: Sequence[GameResult], upto: int
    ) -> list[int]:
        alive = [e.user_id for e in sorted(entrants, key=lambda e: (-e.rating, e.user_id))]
        for r in range(1, upto + 1):
            winners = {x.placing[0] for x in results if x.round_no == r}
            alive = [u for u in alive if u in winners]
        return alive

    def pair(
        self,
        round_no: int,
        entrants: Sequence[Entrant],
        results: Sequence[GameResult],
        *,
        absent: frozenset[int] = frozenset(),
    ) -> list[Table]:
        alive = self._alive(entrants, results, round_no - 1)
        if round_no == 1:
            size = 1 << self.total_rounds(len(alive))
            byes = size - len(alive)
            tables = [Table((u,)) for u in alive[:byes]]
            rest = alive[byes:]
        else:
            tables, rest = [], alive
        half = len(rest) // 2
        for i in range(half):
            tables.append(Table((rest[i], rest[len(rest) - 1 - i])))
        return tables

    def standings(
        self, entrants: Sequence[Entrant], results: Sequence[GameResult]
    ) -> list[Standing]:
        won = {e.user_id: 0 for e in entrants}
        for x in results:
            if len(x.seats) > 1:
                won[x.placing[0]] += 1
        order = sorted(won, key=lambda u: (-won[u], u))
        return [Standing(u, i + 1, float(won[u]), (), 0, won[u]) for i, u in enumerate(order)]

    def is_finished(self, entrants: Sequence[Entrant], results: Sequence[GameResult]) -> bool:
        last = max((x.round_no for x in results), default=0)
        return last >= 1 and len(self._alive(entrants, results, last)) == 1

    def winner(self, entrants: Sequence[Entrant], results: Sequence[GameResult]) -> int | None:
        if not self.is_finished(entrants, results):
            return None
        return self._alive(entrants, results, max(x.round_no for x in results))[0]


class Ladder:
    def __init__(self, reach: int) -> None:
        self.reach = reach

    def may_challenge(self, positions: tuple[int, ...], challenger: int, target: int) -> bool:
        c, t = positions.index(challenger), positions.index(target)
        return 0 < c - t <= self.reach

    def after_result(
        self, positions: tuple[int, ...], challenger: int, target: int, winner: int
    ) -> tuple[int, ...]:
        if winner != challenger:
            return positions
        p = list(positions)
        p.remove(challenger)
        p.insert(p.index(target), challenger)
        return tuple(p)


def make_format(name: str, *, table_size: int = 2, rounds: int | None = None) -> Knockout:
    if name != "knockout":
        raise ValueError(f"the stand-in knows only knockout, not {name}")
    return Knockout()


def install() -> None:
    """Put this module where the real formats module goes, unless that one exists."""
    from pathlib import Path

    import door

    if not (Path(door.__file__).parent / "services/tournaments/formats.py").exists():
        mod = types.ModuleType("door.services.tournaments.formats")
        for name in ("Entrant", "Table", "GameResult", "Standing", "Ladder", "make_format"):
            setattr(mod, name, globals()[name])
        sys.modules["door.services.tournaments.formats"] = mod
