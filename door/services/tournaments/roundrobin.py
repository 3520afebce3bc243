"""Round-robin: everyone meets everyone, at tables of 2 (circle method) or 3/4 (covering draw)."""

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
    pair_key,
    placing_points,
    rank_lines,
    seeded,
    table_sizes,
)


def circle_schedule(n: int) -> list[list[tuple[int, ...]]]:
    """The circle method over seed indexes 0..n-1: n-1 rounds (n if odd, one bye each).

    Index 0 stays put and the others rotate one place a round; every pair meets exactly once.
    """
    slots: list[int | None] = list(range(n)) + ([None] if n % 2 else [])
    m = len(slots)
    rounds: list[list[tuple[int, ...]]] = []
    for _ in range(m - 1):
        tables: list[tuple[int, ...]] = []
        for i in range(m // 2):
            a, b = slots[i], slots[m - 1 - i]
            tables.append(tuple(x for x in (a, b) if x is not None))
        rounds.append(tables)
        slots = [slots[0], slots[-1], *slots[1:-1]]
    return rounds


def affine_schedule(p: int) -> list[list[tuple[int, ...]]]:
    """For p² players with p prime: the p + 1 parallel classes of the affine plane AG(2, p).

    Player x·p + y is the point (x, y); each round is one direction of lines, so every pair
    meets exactly once, in p + 1 rounds of p tables of p.
    """
    rounds = [[tuple(x * p + y for y in range(p)) for x in range(p)]]  # vertical lines x = c
    for m in range(p):
        rounds.append([tuple(x * p + (m * x + c) % p for x in range(p)) for c in range(p)])
    return rounds


def covering_schedule(n: int, size: int) -> list[list[tuple[int, ...]]]:
    """Rounds of tables of `size` (3 or 4; mixed 3/4 when n does not divide) over indexes 0..n-1.

    Guarantees: every pair of players sits together at least once; every player plays every
    round (only 1, 2 or 5 players need a bye or a smaller table, see `table_sizes`); and the
    schedule depends on n and size alone. For 9 players at 3 (and 4 at 4, 3 at 3) it is
    exact: every pair exactly once (the affine plane). Otherwise each round is drawn greedily
    to seat together as many pairs not yet met as it can, then improved by swapping players
    between tables, so pairs repeat only where a round cannot be filled with new pairs.
    """
    if n <= size:
        return [[tuple(range(n))]] if n >= 2 else []
    if size == 3 and n == 9:
        return affine_schedule(3)
    sizes = table_sizes(n, size)
    met: set[tuple[int, int]] = set()
    total = n * (n - 1) // 2
    rounds: list[list[tuple[int, ...]]] = []
    while len(met) < total:
        rnd = _draw_round(n, sizes, met)
        rounds.append([tuple(sorted(t)) for t in rnd])
        for t in rnd:
            for i in range(len(t)):
                for j in range(i + 1, len(t)):
                    met.add(pair_key(t[i], t[j]))
    return rounds


def _new_pairs(table: Sequence[int], met: set[tuple[int, int]]) -> int:
    return sum(
        1
        for i in range(len(table))
        for j in range(i + 1, len(table))
        if pair_key(table[i], table[j]) not in met
    )


def _draw_round(n: int, sizes: list[int], met: set[tuple[int, int]]) -> list[list[int]]:
    unmet = [0] * n
    for a in range(n):
        for b in range(a + 1, n):
            if (a, b) not in met:
                unmet[a] += 1
                unmet[b] += 1
    free = set(range(n))
    tables: list[list[int]] = []
    for sz in sizes:
        # Start from the player with most partners still to meet, so nobody is left behind.
        start = min(free, key=lambda u: (-unmet[u], u))
        table = [start]
        free.discard(start)
        while len(table) < sz:
            best = min(
                free,
                key=lambda u: (-sum(pair_key(u, v) not in met for v in table), -unmet[u], u),
            )
            table.append(best)
            free.discard(best)
        tables.append(table)
    # Swap players between tables while that seats more new pairs together.
    improved = True
    while improved:
        improved = False
        for ti in range(len(tables)):
            for tj in range(ti + 1, len(tables)):
                a_t, b_t = tables[ti], tables[tj]
                base = _new_pairs(a_t, met) + _new_pairs(b_t, met)
                for ai in range(len(a_t)):
                    for bi in range(len(b_t)):
                        a2 = [*a_t[:ai], b_t[bi], *a_t[ai + 1 :]]
                        b2 = [*b_t[:bi], a_t[ai], *b_t[bi + 1 :]]
                        if _new_pairs(a2, met) + _new_pairs(b2, met) > base:
                            tables[ti], tables[tj] = a_t, b_t = a2, b2
                            base = _new_pairs(a_t, met) + _new_pairs(b_t, met)
                            improved = True
    return tables


class RoundRobin:
    """Everyone meets everyone; ranked by points, then head-to-head, then rating."""

    name = "roundrobin"
    tiebreak_rule = "Points, then head-to-head among the players tied on points, then rating"

    def __init__(self, table_size: int = 2) -> None:
        if table_size not in (2, 3, 4):
            raise ValueError("round-robin tables seat 2, 3 or 4")
        self.table_size = table_size

    def schedule(self, n: int) -> list[list[tuple[int, ...]]]:
        """Every round's tables as seed indexes (0 = top seed)."""
        if self.table_size == 2:
            return circle_schedule(n) if n >= 2 else []
        return covering_schedule(n, self.table_size)

    def total_rounds(self, n_entrants: int) -> int:
        return len(self.schedule(n_entrants))

    def pair(
        self,
        round_no: int,
        entrants: Sequence[Entrant],
        results: Sequence[GameResult],
        *,
        absent: frozenset[int] = frozenset(),
    ) -> list[Table]:
        """Round `round_no` of the fixed schedule; absent players are left out of it.

        A table left with one player by absences becomes a bye; one left empty is dropped.
        Byes score nothing in a round-robin (everyone meets everyone regardless).
        """
        before_round(results, round_no)
        field = seeded(entrants)
        sched = self.schedule(len(field))
        if not 1 <= round_no <= len(sched):
            raise ValueError(f"this round-robin has rounds 1 to {len(sched)}")
        tables: list[Table] = []
        for idx in sched[round_no - 1]:
            seats = tuple(field[i].user_id for i in idx if field[i].user_id not in absent)
            if seats:
                tables.append(Table(seats))
        return tables

    def standings(
        self, entrants: Sequence[Entrant], results: Sequence[GameResult]
    ) -> list[Standing]:
        field = seeded(entrants)
        rating = {e.user_id: e.rating for e in field}
        points = dict.fromkeys(rating, Fraction(0))
        played = dict.fromkeys(rating, 0)
        won = dict.fromkeys(rating, 0)
        beat: dict[tuple[int, int], int] = {}  # (a, b): games a finished ahead of b
        for res in results:
            check_result(res)
            if res.is_bye:
                continue
            for i, u in enumerate(res.placing):
                points[u] += placing_points(res.placing, u)
                played[u] += 1
                for v in res.placing[i + 1 :]:
                    beat[(u, v)] = beat.get((u, v), 0) + 1
            won[res.placing[0]] += 1
        groups: dict[Fraction, list[int]] = {}
        for u, p in points.items():
            groups.setdefault(p, []).append(u)
        h2h: dict[int, int] = {}
        for members in groups.values():
            for u in members:
                h2h[u] = sum(beat.get((u, v), 0) for v in members if v != u)
        return rank_lines(
            [(u, points[u], (Fraction(h2h[u]), rating[u]), played[u], won[u]) for u in rating]
        )

    def is_finished(self, entrants: Sequence[Entrant], results: Sequence[GameResult]) -> bool:
        """True once the last scheduled round has results (rounds are played in order)."""
        total = self.total_rounds(len(entrants))
        return total > 0 and any(r.round_no >= total for r in results)

    def winner(self, entrants: Sequence[Entrant], results: Sequence[GameResult]) -> int | None:
        if not self.is_finished(entrants, results):
            return None
        return self.standings(entrants, results)[0].user_id
