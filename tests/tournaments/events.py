"""Helpers that play whole events with chosen results, and recompute standings by hand."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from itertools import combinations

from door.services.tournaments import Entrant, Format, GameResult, Table

Decide = Callable[[int, tuple[int, ...]], tuple[int, ...]]


def field(n: int, *, ties: bool = False) -> list[Entrant]:
    """n entrants, ids 1..n; ratings fall with the id (or pair up equal, to test tie order)."""
    return [Entrant(i, 2000.0 - (i // 2 if ties else i) * 7) for i in range(1, n + 1)]


def by_seed(seats: tuple[int, ...]) -> tuple[int, ...]:
    """The lower id (the stronger, in `field`) always finishes ahead."""
    return tuple(sorted(seats))


def play(
    fmt: Format,
    entrants: Sequence[Entrant],
    decide: Decide,
    *,
    absent_from: dict[int, int] | None = None,
) -> tuple[list[GameResult], list[list[Table]]]:
    """Every round to the end: pair, then record each table's result (a bye as itself)."""
    results: list[GameResult] = []
    rounds: list[list[Table]] = []
    for r in range(1, fmt.total_rounds(len(entrants)) + 1):
        absent = frozenset(u for u, k in (absent_from or {}).items() if r >= k)
        tables = fmt.pair(r, entrants, results, absent=absent)
        rounds.append(tables)
        for t in tables:
            placing = t.seats if len(t.seats) == 1 else decide(r, t.seats)
            results.append(GameResult(r, t.seats, placing))
    return results, rounds


def pairs_of(rounds: Sequence[Sequence[Table]]) -> list[tuple[int, int]]:
    return [
        (min(a, b), max(a, b))
        for tables in rounds
        for t in tables
        for a, b in combinations(t.seats, 2)
    ]


def game_points(placing: tuple[int, ...], u: int) -> Fraction:
    """Written out again here: winner 1, last 0, evenly between; a bye 1."""
    if len(placing) == 1:
        return Fraction(1)
    return 1 - Fraction(placing.index(u), len(placing) - 1)
