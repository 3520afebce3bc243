"""Swiss: a fixed number of rounds, pairing players on equal scores, no repeat pairings."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from door.services.tournaments.model import (
    Entrant,
    GameResult,
    Standing,
    Table,
    before_round,
    check_result,
    met_counts,
    pair_key,
    placing_points,
    rank_lines,
    seeded,
    table_sizes,
)

# Search steps per attempt before allowing one more repeat pairing; keeps pairing bounded
# (and deterministic) when few repeat-free pairings remain.
SEARCH_BUDGET = 20_000


class Swiss:
    """Swiss system; ranked by points, then Buchholz (opponents' points), then rating."""

    name = "swiss"
    tiebreak_rule = "Points, then Buchholz (the sum of your opponents' points), then rating"

    def __init__(self, rounds: int, table_size: int = 2) -> None:
        if rounds < 1:
            raise ValueError("a Swiss needs at least one round")
        if table_size not in (2, 3, 4):
            raise ValueError("Swiss tables seat 2, 3 or 4")
        self.rounds = rounds
        self.table_size = table_size

    def total_rounds(self, n_entrants: int) -> int:
        return self.rounds if n_entrants >= 2 else 0

    def _scores(
        self, field: Sequence[Entrant], results: Sequence[GameResult]
    ) -> dict[int, Fraction]:
        points = {e.user_id: Fraction(0) for e in field}
        for r in results:
            for u in r.placing:
                if u in points:
                    points[u] += placing_points(r.placing, u)
        return points

    def pair(
        self,
        round_no: int,
        entrants: Sequence[Entrant],
        results: Sequence[GameResult],
        *,
        absent: frozenset[int] = frozenset(),
    ) -> list[Table]:
        """Round `round_no`: players ordered by score, then rating, paired down that order.

        2-player: when the count is odd the lowest-ranked player who has had no bye gets one
        (worth a win); then the pairing with no repeat opponent that keeps closest to the
        order is searched for. When none exists (too many rounds for the field) the fewest
        repeats are allowed, and a second bye goes to the lowest-ranked of those with fewest.
        3/4-player tables: the order is cut into tables (see `table_sizes`), each filled by
        the nearest-ranked players who have met the table least; repeats are minimised
        greedily, not forbidden.
        """
        if not 1 <= round_no <= self.rounds:
            raise ValueError(f"this Swiss has rounds 1 to {self.rounds}")
        done = before_round(results, round_no)
        field = seeded(entrants)
        scores = self._scores(field, done)
        order = [
            e.user_id
            for e in sorted(field, key=lambda e: (-scores[e.user_id], -e.rating, e.user_id))
            if e.user_id not in absent
        ]
        met = met_counts([r for r in done if not r.is_bye])
        byes: dict[int, int] = {}
        for r in done:
            if r.is_bye:
                byes[r.seats[0]] = byes.get(r.seats[0], 0) + 1
        if self.table_size == 2:
            return _pair_twos(order, met, byes)
        return _pair_tables(order, met, self.table_size)

    def standings(
        self, entrants: Sequence[Entrant], results: Sequence[GameResult]
    ) -> list[Standing]:
        field = seeded(entrants)
        rating = {e.user_id: e.rating for e in field}
        for r in results:
            check_result(r)
        points = self._scores(field, results)
        played = dict.fromkeys(rating, 0)
        won = dict.fromkeys(rating, 0)
        buchholz = dict.fromkeys(rating, Fraction(0))
        for r in results:
            if r.is_bye:
                continue  # a bye has no opponent, so it adds nothing to Buchholz
            won[r.placing[0]] += 1
            for u in r.seats:
                played[u] += 1
                buchholz[u] += sum((points[v] for v in r.seats if v != u), Fraction(0))
        return rank_lines(
            [(u, points[u], (buchholz[u], rating[u]), played[u], won[u]) for u in rating]
        )

    def is_finished(self, entrants: Sequence[Entrant], results: Sequence[GameResult]) -> bool:
        """True once the last round has results (rounds are played in order)."""
        return len(entrants) >= 2 and any(r.round_no >= self.rounds for r in results)

    def winner(self, entrants: Sequence[Entrant], results: Sequence[GameResult]) -> int | None:
        if not self.is_finished(entrants, results):
            return None
        return self.standings(entrants, results)[0].user_id


def _pair_twos(
    order: list[int], met: dict[tuple[int, int], int], byes: dict[int, int]
) -> list[Table]:
    if len(order) < 2:
        return [Table((u,)) for u in order]
    bye_order: list[int | None] = [None]
    if len(order) % 2:
        # Only the players with the fewest byes (0 whenever anyone has none) may have this
        # one, lowest-ranked first: a repeat pairing is allowed before a second bye, since
        # with repeats allowed any of them can sit out.
        rank = {u: i for i, u in enumerate(order)}
        fewest = min(byes.get(u, 0) for u in order)
        candidates: list[int] = [u for u in order if byes.get(u, 0) == fewest]
        candidates.sort(key=lambda u: -rank[u])
        bye_order = list(candidates)
    max_repeats = 0
    while True:
        for bye in bye_order:
            rest = [u for u in order if u != bye]
            found = _search(rest, met, max_repeats)
            if found is not None:
                tables = [Table(p) for p in found]
                return tables + ([Table((bye,))] if bye is not None else [])
        max_repeats += 1


def _search(
    order: list[int], met: dict[tuple[int, int], int], max_repeats: int
) -> list[tuple[int, int]] | None:
    """Pairs down `order` (top player with the nearest allowed opponent), backtracking.

    At most `max_repeats` pairs may have met before; None if no pairing found in budget.
    """
    steps = [0]

    def go(free: list[int], repeats: int) -> list[tuple[int, int]] | None:
        if not free:
            return []
        steps[0] += 1
        if steps[0] > SEARCH_BUDGET:
            return None
        top, rest = free[0], free[1:]
        for i, v in enumerate(rest):
            r = repeats + (1 if met.get(pair_key(top, v), 0) else 0)
            if r > max_repeats:
                continue
            tail = go(rest[:i] + rest[i + 1 :], r)
            if tail is not None:
                return [(top, v), *tail]
            if steps[0] > SEARCH_BUDGET:
                return None
        return None

    return go(order, 0)


def _pair_tables(order: list[int], met: dict[tuple[int, int], int], size: int) -> list[Table]:
    free = list(order)
    tables: list[Table] = []
    for sz in table_sizes(len(order), size):
        table = [free.pop(0)]
        while len(table) < sz:
            # Nearest in rank among those who have met this table least.
            best = min(
                range(len(free)),
                key=lambda i: (sum(met.get(pair_key(free[i], v), 0) for v in table), i),
            )
            table.append(free.pop(best))
        tables.append(Table(tuple(table)))
    return tables
