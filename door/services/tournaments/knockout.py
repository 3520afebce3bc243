"""Single elimination, seeded by rating, in the standard bracket order."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from door.services.tournaments.model import (
    Entrant,
    GameResult,
    Standing,
    Table,
    before_round,
    rank_lines,
    seeded,
)


def bracket_order(size: int) -> list[int]:
    """Seed numbers (1-based) down a bracket of `size` (a power of two): 1, 16, 8, 9, 5, 12, …

    Built by doubling: each seed s of the smaller bracket is followed by its partner
    size + 1 - s, so seeds 1 and 2 can only meet in the final.
    """
    order = [1]
    while len(order) < size:
        n = len(order) * 2
        order = [x for s in order for x in (s, n + 1 - s)]
    return order


class Knockout:
    """Single elimination: seeded by rating, byes to the top seeds in round 1 only."""

    name = "knockout"
    tiebreak_rule = "Rounds survived, then rating"

    def total_rounds(self, n_entrants: int) -> int:
        return max(0, (n_entrants - 1).bit_length())

    def _rounds(
        self, upto: int, entrants: Sequence[Entrant], results: Sequence[GameResult]
    ) -> list[list[Table]]:
        """The tables of rounds 1..upto; round r > 1 needs every game of round r - 1."""
        field = seeded(entrants)
        n = len(field)
        if n < 2:
            raise ValueError("a knock-out needs at least 2 entrants")
        if not 1 <= upto <= self.total_rounds(n):
            raise ValueError(f"a knock-out of {n} has rounds 1 to {self.total_rounds(n)}")
        size = 1 << self.total_rounds(n)
        seats = [field[s - 1].user_id if s <= n else None for s in bracket_order(size)]
        first: list[Table] = []
        for i in range(0, size, 2):
            a, b = seats[i], seats[i + 1]
            # Byes are the seeds beyond n, which the bracket order puts against the top seeds.
            pair = tuple(x for x in (a, b) if x is not None)
            first.append(Table(pair))
        rounds = [first]
        done = before_round(results, upto)
        for r in range(2, upto + 1):
            winners = [_winner_of(t, r - 1, done) for t in rounds[-1]]
            rounds.append([Table((winners[i], winners[i + 1])) for i in range(0, len(winners), 2)])
        return rounds

    def pair(
        self,
        round_no: int,
        entrants: Sequence[Entrant],
        results: Sequence[GameResult],
        *,
        absent: frozenset[int] = frozenset(),
    ) -> list[Table]:
        """Round `round_no`'s tables in bracket order (top half first).

        `absent` is ignored: a player who left is still paired and loses by forfeit,
        which the caller records as an ordinary loss.
        """
        del absent
        return self._rounds(round_no, entrants, results)[-1]

    def standings(
        self, entrants: Sequence[Entrant], results: Sequence[GameResult]
    ) -> list[Standing]:
        """Points are rounds survived (a bye counts as one); ties by rating, then lower id."""
        field = seeded(entrants)
        rating = {e.user_id: e.rating for e in field}
        played = dict.fromkeys(rating, 0)
        won = dict.fromkeys(rating, 0)
        survived = dict.fromkeys(rating, 0)
        for res in results:
            if res.is_bye:
                continue
            for u in res.seats:
                played[u] += 1
            won[res.placing[0]] += 1
        if len(field) >= 2:
            for tables in self._played_rounds(entrants, results):
                for t in tables:
                    if t.is_bye:
                        survived[t.seats[0]] += 1
        for u in won:
            survived[u] += won[u]
        return rank_lines(
            [(u, Fraction(survived[u]), (rating[u],), played[u], won[u]) for u in rating]
        )

    def _played_rounds(
        self, entrants: Sequence[Entrant], results: Sequence[GameResult]
    ) -> list[list[Table]]:
        """The rounds that have started so far (round 1 always has, once there are entrants)."""
        last = max((r.round_no for r in results), default=1)
        return self._rounds(min(last, self.total_rounds(len(entrants))), entrants, results)

    def is_finished(self, entrants: Sequence[Entrant], results: Sequence[GameResult]) -> bool:
        return self.winner(entrants, results) is not None

    def winner(self, entrants: Sequence[Entrant], results: Sequence[GameResult]) -> int | None:
        n = len(entrants)
        if n < 2:
            return None
        final_round = self.total_rounds(n)
        if not any(r.round_no == final_round for r in results):
            return None
        (final,) = self._rounds(final_round, entrants, results)[-1]
        return _winner_of(final, final_round, before_round(results, final_round + 1))


def _winner_of(table: Table, round_no: int, results: Sequence[GameResult]) -> int:
    if table.is_bye:
        return table.seats[0]
    want = frozenset(table.seats)
    for r in results:
        if r.round_no == round_no and frozenset(r.seats) == want:
            return r.placing[0]
    raise ValueError(f"round {round_no}: no result for the game {table.seats}")
