"""The value types every format shares, and the scoring helpers they use.

Pure and deterministic: no I/O, no clock, no randomness. Points are kept as exact
fractions inside so that ties compare exactly; they become floats only in a Standing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Protocol


@dataclass(frozen=True)
class Entrant:
    """One player in an event; higher rating is stronger (seeds by rating, ties by user id)."""

    user_id: int
    rating: float


@dataclass(frozen=True)
class Table:
    """The user ids at one game: 2 for backgammon, 2–4 for Spectrangle; a 1-tuple is a bye."""

    seats: tuple[int, ...]

    @property
    def is_bye(self) -> bool:
        return len(self.seats) == 1


@dataclass(frozen=True)
class GameResult:
    """One finished game of a round: the same ids as paired, in finishing order (best first).

    A bye handed out by ``pair`` is recorded as a 1-seat result (``placing == seats``);
    a forfeit, timeout or resignation is simply a loss.
    """

    round_no: int
    seats: tuple[int, ...]
    placing: tuple[int, ...]

    @property
    def is_bye(self) -> bool:
        return len(self.seats) == 1


@dataclass(frozen=True)
class Standing:
    """One line of a standings table; ranks are 1-based and never shared."""

    user_id: int
    rank: int
    points: float
    tiebreaks: tuple[float, ...]
    played: int
    won: int


class Format(Protocol):
    """A tournament format: who meets whom each round, and the table of standings."""

    name: str
    tiebreak_rule: str

    def total_rounds(self, n_entrants: int) -> int: ...

    def pair(
        self,
        round_no: int,
        entrants: Sequence[Entrant],
        results: Sequence[GameResult],
        *,
        absent: frozenset[int] = frozenset(),
    ) -> list[Table]:
        """The tables of round `round_no`, given the results of every earlier round."""
        ...

    def standings(
        self, entrants: Sequence[Entrant], results: Sequence[GameResult]
    ) -> list[Standing]: ...

    def is_finished(self, entrants: Sequence[Entrant], results: Sequence[GameResult]) -> bool: ...

    def winner(self, entrants: Sequence[Entrant], results: Sequence[GameResult]) -> int | None: ...


def seeded(entrants: Sequence[Entrant]) -> list[Entrant]:
    """Entrants strongest first: by rating, ties by the lower user id."""
    ids = [e.user_id for e in entrants]
    if len(set(ids)) != len(ids):
        raise ValueError("an entrant is listed twice")
    return sorted(entrants, key=lambda e: (-e.rating, e.user_id))


def placing_points(placing: tuple[int, ...], user_id: int) -> Fraction:
    """Points for one game: 1 for first, 0 for last, evenly between (so ½ for 2nd of 3).

    The same scale at every table size keeps mixed 3- and 4-player rounds fair; a 2-player
    game is simply 1 for a win. A bye (1-seat result) is worth a win's point.
    """
    k = len(placing)
    if k == 1:
        return Fraction(1)
    return Fraction(k - 1 - placing.index(user_id), k - 1)


def check_result(result: GameResult) -> None:
    """Reject a result whose placing is not a reordering of its seats."""
    if sorted(result.placing) != sorted(result.seats) or len(set(result.seats)) != len(
        result.seats
    ):
        raise ValueError(
            f"round {result.round_no}: placing {result.placing} does not match seats {result.seats}"
        )


def before_round(results: Sequence[GameResult], round_no: int) -> list[GameResult]:
    """The results of rounds earlier than `round_no`, each checked."""
    out = [r for r in results if r.round_no < round_no]
    for r in out:
        check_result(r)
    return out


def pair_key(a: int, b: int) -> tuple[int, int]:
    return (a, b) if a < b else (b, a)


def met_counts(results: Sequence[GameResult]) -> dict[tuple[int, int], int]:
    """How often each pair of players has sat at the same table."""
    counts: dict[tuple[int, int], int] = {}
    for r in results:
        s = r.seats
        for i in range(len(s)):
            for j in range(i + 1, len(s)):
                k = pair_key(s[i], s[j])
                counts[k] = counts.get(k, 0) + 1
    return counts


def table_sizes(n: int, size: int) -> list[int]:
    """Split `n` players into tables of `size`, mixing in tables of 3 or 4 when it does not divide.

    2 keeps to pairs plus one bye when odd. For 3 or 4 the most tables of `size` are used and the
    rest are of the other of 3/4; only 1, 2 and 5 players cannot be split so (2 → one table of 2,
    5 → 3 + 2, 1 → a bye). Largest tables first.
    """
    if n <= 0:
        return []
    if size == 2:
        return [2] * (n // 2) + [1] * (n % 2)
    other = 7 - size
    for a in range(n // size, -1, -1):
        rest = n - a * size
        if rest % other == 0:
            return sorted([size] * a + [other] * (rest // other), reverse=True)
    return {1: [1], 2: [2], 5: [3, 2]}[n]


def rank_lines(
    lines: list[tuple[int, Fraction, tuple[Fraction | float, ...], int, int]],
) -> list[Standing]:
    """Order (user, points, tiebreaks, played, won) lines, best first, ties last by lower id."""
    ordered = sorted(lines, key=lambda ln: (-ln[1], tuple(-t for t in ln[2]), ln[0]))
    return [
        Standing(
            user_id=uid,
            rank=i + 1,
            points=float(points),
            tiebreaks=tuple(float(t) for t in tbs),
            played=played,
            won=won,
        )
        for i, (uid, points, tbs, played, won) in enumerate(ordered)
    ]
