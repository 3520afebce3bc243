"""Round-robin: everyone meets everyone, at tables of 2 (circle method) or 3/4 (covering draw).

At tables of 3 or 4 (Spectrangle) the draw for a field of n players follows this rule:

1. Every round seats everyone, at the tables `table_sizes(n, size)` gives: as many of the chosen
   size as fit and the rest of the other of 3/4, so tables differ by at most one seat (only 5
   players need a table of 2). Nobody sits out, so the draw makes no byes (absent players make
   the only ones) and everyone plays the same number of games: one a round.
2. Every pair of players sits together at least once: the round-robin's promise.
3. In as few rounds as the draw finds, never fewer than `lower_bound_rounds`. Every round seats
   the same tables, so the repeated meetings (the sum over pairs of meetings − 1) are then
   fixed by the number of rounds: fewest rounds is fewest repeats.
4. With that many rounds, repeats are spread out (the search minimises the sum over pairs of
   C(meetings, 2)), so pairs meet twice rather than some pair three times where it can.

How it is drawn: where a resolvable design is known, the draw is that design and every pair
meets exactly once, in (n − 1)/(size − 1) rounds: the affine spaces AG(2, 3), AG(3, 3) and
AG(2, 4) (9 and 27 players at 3, 16 at 4); by the difference method, Kirkman triple systems (15,
21 and 39 at 3) and resolvable 2-(28, 4, 1) and 2-(40, 4, 1) designs; and at 4 those designs
less a player (15, 27, 39). 28 and 40 at 3 are a Kirkman system plus one player who joins a
table each round, in the fewest rounds possible (see `one_more`). Otherwise a simulated
annealing over seat swaps with a fixed step budget and its own integer-only random generator,
so the draw depends on (n, size) alone and two processes, or a restart, draw the same. For 5 to
40 players the number of rounds and the seed come from `_TUNED` (found offline by the same
search, tests/tournaments/tables_tune.py); other fields try rounds upwards from the lower bound;
and should the search ever fall short, greedy rounds seat the pairs still unmet, so the promise
holds whatever happens. tests/tournaments/tables_golden.py prints, per field, the rounds and
repeats beside their lower bounds.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from itertools import combinations, product

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


def lower_bound_rounds(n: int, size: int) -> int:
    """No draw at tables of `size` (3 or 4) meets every pair of n players in fewer rounds.

    With the tables `table_sizes` gives, a round holds P pairs, so R·P ≥ n(n-1)/2; a player
    meets (table − 1) others a round, so R·(biggest − 1) ≥ n − 1; and the seats at the bigger
    tables, R a round of them, must give every player the opponents the smaller tables leave
    short. The least R meeting all three.
    """
    if n < 2:
        return 0
    seats = [t for t in table_sizes(n, size) for _ in range(t)]
    pairs = sum(t - 1 for t in seats) // 2
    low, high = min(seats) - 1, max(seats) - 1
    extra = sum(t - 1 - low for t in seats)  # opponents above `low` that one round hands out
    need = n * (n - 1) // 2
    rounds = 1
    while not (
        rounds * pairs >= need
        and rounds * high >= n - 1
        and n * max(0, n - 1 - rounds * low) <= rounds * extra
    ):
        rounds += 1
    return rounds


def _field_table(q: int) -> tuple[list[list[int]], list[list[int]]] | None:
    """Addition and multiplication tables of GF(q), elements 0..q-1, for q prime or 4."""
    if q == 4:  # polynomials over GF(2) modulo x² + x + 1: 2 is x, 3 is x + 1
        mul = [[0, 0, 0, 0], [0, 1, 2, 3], [0, 2, 3, 1], [0, 3, 1, 2]]
        return [[a ^ b for b in range(4)] for a in range(4)], mul
    if q >= 2 and all(q % d for d in range(2, q)):
        return (
            [[(a + b) % q for b in range(q)] for a in range(q)],
            [[a * b % q for b in range(q)] for a in range(q)],
        )
    return None


def affine_schedule(q: int, k: int) -> list[list[tuple[int, ...]]]:
    """The parallel classes of the affine space AG(k, q), q prime or 4: q^k players at tables of q.

    The players are the points; each round is one direction, its tables the lines x + t·d. Any
    two points lie on exactly one line, so every pair meets exactly once, in (q^k − 1)/(q − 1)
    rounds (9 players at 3: 4 rounds; 27 at 3: 13; 16 at 4: 5).
    """
    gf = _field_table(q)
    if gf is None:
        raise ValueError(f"no field of {q} elements here")
    add, mul = gf
    points = list(product(range(q), repeat=k))
    index = {p: i for i, p in enumerate(points)}
    rounds: list[list[tuple[int, ...]]] = []
    for d in points:
        lead = next((x for x in d if x), 0)
        if lead != 1:  # one representative of each direction: first nonzero coordinate 1
            continue
        seated: set[int] = set()
        tables: list[tuple[int, ...]] = []
        for p in points:
            if index[p] in seated:
                continue
            line = tuple(
                sorted(index[tuple(add[p[i]][mul[t][d[i]]] for i in range(k))] for t in range(q))
            )
            seated.update(line)
            tables.append(line)
        rounds.append(tables)
    return rounds


# Resolvable designs by the difference method: the players are Z_m × levels, player x + m·level,
# and one more player ∞ (the last index, m·levels). Each base parallel class below, developed by
# adding r = 0 … m − 1 to every player but ∞, gives m rounds; between them every difference
# (within a level, ±d; across two levels, d) and every pairing with ∞ occurs exactly once, so
# every pair meets exactly once. Kirkman triple systems KTS(2q + 1), q = 6t + 1 prime, at 15 and
# 39 (levels 2: x and −x of level 0 share a table with one point of level 1); KTS(21) over Z_5
# with 4 levels and two base classes; resolvable 2-(28, 4, 1) over Z_9 and 2-(40, 4, 1) over Z_13,
# 3 levels each (the 40's base class is fixed by multiplying by 3, an element of order 3, which
# cuts the search to three blocks). Found by small backtracking searches over the differences,
# checked by the tests.
# (table size, players) → (m, base classes)
# fmt: off
_DEVELOPED: dict[tuple[int, int], tuple[int, tuple[tuple[tuple[int, ...], ...], ...]]] = {
    (3, 15): (7, (
        ((14, 0, 7), (1, 6, 9), (2, 5, 11), (3, 4, 8), (10, 12, 13),),
    )),
    (3, 21): (5, (
        ((0, 5, 20), (4, 10, 19), (1, 15, 18), (6, 13, 16), (8, 11, 17), (2, 12, 14), (3, 7, 9),),
        ((10, 15, 20), (0, 4, 13), (2, 5, 9), (1, 3, 19), (6, 17, 18), (7, 11, 12), (8, 14, 16),),
    )),
    (3, 39): (19, (
        ((38, 0, 19), (1, 18, 21), (2, 17, 25), (3, 16, 29), (4, 15, 33), (5, 14, 26), (6, 13, 30),
         (7, 12, 23), (8, 11, 36), (9, 10, 24), (20, 27, 28), (22, 31, 35), (32, 34, 37),),
    )),
    (4, 28): (9, (
        ((0, 9, 18, 27), (1, 8, 12, 15), (2, 7, 10, 17), (4, 5, 19, 26), (11, 16, 21, 24),
         (13, 14, 20, 25), (3, 6, 22, 23),),
    )),
    (4, 40): (13, (
        ((0, 13, 26, 39), (1, 2, 16, 25), (3, 6, 22, 23), (5, 9, 14, 17), (4, 11, 31, 36),
         (7, 12, 28, 30), (8, 10, 32, 38), (15, 21, 29, 33), (19, 24, 34, 35), (18, 20, 27, 37),),
    )),
}
# fmt: on


def developed_schedule(n: int, size: int) -> list[list[tuple[int, ...]]]:
    """The design `_DEVELOPED` holds for n players at tables of `size`, round by round."""
    m, classes = _DEVELOPED[(size, n)]
    inf = n - 1

    def shift(p: int, r: int) -> int:
        return p if p == inf else (p % m + r) % m + p - p % m

    return [
        sorted(tuple(sorted(shift(p, r) for p in t)) for t in base)
        for base in classes
        for r in range(m)
    ]


def known_design(n: int, size: int) -> list[list[tuple[int, ...]]] | None:
    """A design for n players at tables of `size` (3 or 4), if this module knows one, in which
    every pair meets exactly once: a resolvable design in (n − 1)/(size − 1) rounds, or at 4, one
    for n + 1 players with its last player taken out (that player's table becomes a 3 each
    round, which is what `table_sizes` asks for there: 15, 27 and 39 players)."""
    if n == size:
        return [[tuple(range(n))]]
    for k in (2, 3):
        if size**k == n and _field_table(size) is not None:
            return affine_schedule(size, k)
    if (size, n) in _DEVELOPED:
        return developed_schedule(n, size)
    if size == 4 and n % 4 == 3 and n > 3:
        whole = known_design(n + 1, size)
        if whole is not None:
            return [sorted(tuple(p for p in t if p != n) for t in rnd) for rnd in whole]
    return None


def one_more(n: int) -> list[list[tuple[int, ...]]] | None:
    """At 3, n players as a Kirkman triple system on n − 1 plus one more player, who each round
    joins a table of 3 (making the 4 that `table_sizes` asks for), where that works: 28 and 40.

    The old pairs meet exactly once; the new player's tables are picked, by a depth-first search
    in a fixed order, so that (n − 1)/3 of them are disjoint, one from each of as many rounds (in
    the other rounds, tables of players it has met once at most where the rounds allow it, else
    those it has met least): the newcomer then meets everyone, in the (n − 2)/2 rounds of the
    triple system, which no draw at these tables can beat, with 3·rounds − (n − 1) repeats, the
    fewest those rounds allow. None when the system this module has holds no such disjoint
    tables (9, 15 and 21 players: in AG(2, 3) any two lines of different rounds cross), which
    leaves 10, 16 and 22 to the search.
    """
    base = known_design(n - 1, 3)
    if base is None or n < 10:
        return None
    rounds = [sorted(rnd) for rnd in base]
    chosen: dict[int, int] = {}  # round → index of the table the newcomer joins

    def cover(free: frozenset[int]) -> bool:
        if not free:
            return True
        p = min(free)
        for r, rnd in enumerate(rounds):
            if r in chosen:
                continue
            i = next(i for i, t in enumerate(rnd) if p in t)
            if set(rnd[i]) <= free:
                chosen[r] = i
                if cover(free - set(rnd[i])):
                    return True
                del chosen[r]
        return False

    if not cover(frozenset(range(n - 1))):
        return None
    met = [0] * (n - 1)  # how often the newcomer has met each old player
    for r, i in chosen.items():
        for p in rounds[r][i]:
            met[p] += 1
    others = [r for r in range(len(rounds)) if r not in chosen]

    def spread(k: int) -> bool:  # the other rounds: tables of players met only once so far
        if k == len(others):
            return True
        rnd = rounds[others[k]]
        for i, t in enumerate(rnd):
            if all(met[p] < 2 for p in t):
                chosen[others[k]] = i
                for p in t:
                    met[p] += 1
                if spread(k + 1):
                    return True
                for p in t:
                    met[p] -= 1
                del chosen[others[k]]
        return False

    if not spread(0):
        for r in others:  # no such tables: the ones met least
            rnd = rounds[r]
            chosen[r] = min(
                range(len(rnd)),
                key=lambda i: (max(met[p] for p in rnd[i]), sum(met[p] for p in rnd[i]), i),
            )
            for p in rnd[chosen[r]]:
                met[p] += 1
    return [
        sorted((*t, n - 1) if i == chosen[r] else t for i, t in enumerate(rnd))
        for r, rnd in enumerate(rounds)
    ]


# (table size, players) → (rounds, seed): the fewest rounds for which the search below, in its
# fixed number of steps, finds a draw that meets every pair, and the first seed that does.
# Found offline by tests/tournaments/tables_tune.py; a field missing here (or a seed that stops
# working because the search changed) falls back to trying rounds upwards from the lower bound.
# fmt: off
_TUNED: dict[tuple[int, int], tuple[int, int]] = {
    (3, 5): (3, 0), (3, 6): (4, 0), (3, 7): (3, 0), (3, 8): (3, 0), (3, 10): (4, 0),
    (3, 11): (5, 0), (3, 12): (7, 0), (3, 13): (6, 1), (3, 14): (6, 1), (3, 16): (8, 0),
    (3, 17): (8, 0), (3, 18): (10, 0), (3, 19): (10, 0), (3, 20): (10, 0), (3, 22): (11, 0),
    (3, 23): (11, 0), (3, 24): (13, 0), (3, 25): (13, 0), (3, 26): (13, 0),
    (3, 29): (14, 0), (3, 30): (16, 11), (3, 31): (16, 1), (3, 32): (16, 0), (3, 33): (18, 0),
    (3, 34): (18, 0), (3, 35): (18, 0), (3, 36): (19, 18), (3, 37): (19, 5), (3, 38): (19, 2),
    (4, 5): (3, 0), (4, 6): (4, 0), (4, 7): (3, 0), (4, 8): (3, 0), (4, 9): (4, 0),
    (4, 10): (4, 0), (4, 11): (5, 0), (4, 12): (5, 0), (4, 13): (6, 0), (4, 14): (6, 0),
    (4, 17): (8, 0), (4, 18): (8, 0), (4, 19): (8, 0), (4, 20): (8, 0),
    (4, 21): (9, 28), (4, 22): (9, 21), (4, 23): (10, 0), (4, 24): (10, 0), (4, 25): (11, 1),
    (4, 26): (11, 0), (4, 29): (13, 0), (4, 30): (13, 0), (4, 31): (13, 0),
    (4, 32): (13, 0), (4, 33): (14, 15), (4, 34): (14, 6), (4, 35): (14, 57), (4, 36): (14, 21),
    (4, 37): (16, 0), (4, 38): (16, 1),
}
# fmt: on

_MASK = (1 << 64) - 1


class _SplitMix:
    """splitmix64: a tiny generator fixed to the bit, so every process and Python draws alike."""

    def __init__(self, seed: int) -> None:
        self.state = seed & _MASK

    def next(self) -> int:
        self.state = z = (self.state + 0x9E3779B97F4A7C15) & _MASK
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def below(self, k: int) -> int:
        return self.next() % k


def search_steps(n: int) -> int:
    """The annealing's fixed step budget for n players (the same everywhere, for determinism)."""
    return 1500 * n


def search_seed(n: int, size: int, seed: int) -> int:
    """The generator's seed for try number `seed` at n players and tables of `size`."""
    return (size << 40) | (n << 20) | seed


# Beyond this many players the draw is greedy rounds alone (the search's memory and time grow as
# n² and n³); round-robins that big are not sensible at Spectrangle tables anyway.
SEARCH_MAX = 64


_PHASES = 32
_Q0 = 29000  # acceptance of a one-point worsening at the start, in 65536ths (about e^(−1/1.2))


def _anneal(
    n: int, sizes: Sequence[int], n_rounds: int, seed: int, steps: int
) -> tuple[list[list[list[int]]], int]:
    """Simulated annealing over `n_rounds` rounds of tables `sizes`; the tables and how many
    pairs are left unmet.

    The cost is the sum over pairs of 1 if unmet, else C(meetings, 2), so it first seats unmet
    pairs together and then spreads repeats. A step swaps two players of one round, usually
    moving one player of an unmet pair to the other's table. Worse steps are taken with a
    probability falling to nought over the steps, in integers only (no floating point), so the
    walk is the same on every machine. Once every pair has met, a shorter descent that never
    unseats a pair's only meeting spreads the repeats further.
    """
    rng = _SplitMix(seed)
    top = n_rounds + 2
    cost = [1] + [c * (c - 1) // 2 for c in range(1, top + 1)]
    up = [cost[c + 1] - cost[c] for c in range(top)]
    down = [0] + [cost[c - 1] - cost[c] for c in range(1, top)]
    met = [0] * (n * n)
    where: list[list[int]] = []  # where[r][p]: p's table in round r
    seats: list[list[list[int]]] = []  # seats[r][t]: the players at table t of round r
    for _ in range(n_rounds):
        order = list(range(n))
        for i in range(n - 1, 0, -1):
            j = rng.below(i + 1)
            order[i], order[j] = order[j], order[i]
        tables: list[list[int]] = []
        at = [0] * n
        k = 0
        for t, sz in enumerate(sizes):
            tables.append(order[k : k + sz])
            for p in order[k : k + sz]:
                at[p] = t
            k += sz
        where.append(at)
        seats.append(tables)
        for tab in tables:
            for i, a in enumerate(tab):
                for b in tab[i + 1 :]:
                    met[a * n + b] += 1
                    met[b * n + a] += 1
    unmet: list[int] = []  # pair keys a·n + b (a < b) never met, with their places in the list
    place: dict[int, int] = {}
    for a in range(n):
        for b in range(a + 1, n):
            if met[a * n + b] == 0:
                place[a * n + b] = len(unmet)
                unmet.append(a * n + b)

    def lose(a: int, b: int) -> None:  # a and b no longer meet
        key = a * n + b if a < b else b * n + a
        place[key] = len(unmet)
        unmet.append(key)

    def gain(a: int, b: int) -> None:  # a and b meet for the first time
        key = a * n + b if a < b else b * n + a
        i = place.pop(key)
        last = unmet.pop()
        if last != key:
            unmet[i] = last
            place[last] = i

    def trade(table: list[int], out: int, into: int) -> None:  # `into` takes `out`'s seat
        on, jn = out * n, into * n
        for x in table:
            if x != out:
                c = met[on + x] - 1
                met[on + x] = met[x * n + out] = c
                if c == 0:
                    lose(out, x)
                c = met[jn + x] + 1
                met[jn + x] = met[x * n + into] = c
                if c == 1:
                    gain(into, x)

    def swap(r: int, a: int, b: int) -> None:  # a and b change tables in round r
        at, tables = where[r], seats[r]
        ta, tb = tables[at[a]], tables[at[b]]
        trade(ta, a, b)
        trade(tb, b, a)
        ta[ta.index(a)] = b
        tb[tb.index(b)] = a
        at[a], at[b] = at[b], at[a]

    def propose(at: list[int], tables: list[list[int]]) -> tuple[int, int, int] | None:
        """Two players of one round to swap, usually one of an unmet pair to the other's table,
        and what the swap would add to the cost; None if the pick is no swap."""
        if unmet and rng.below(4):
            x, y = divmod(unmet[rng.below(len(unmet))], n)
            if rng.below(2):
                x, y = y, x
            home = tables[at[x]]
            a = x
            while a == x:
                a = home[rng.below(len(home))]
            b = y
        else:
            a, b = rng.below(n), rng.below(n)
            if at[a] == at[b]:
                return None
        an, bn = a * n, b * n
        delta = 0
        for x in tables[at[a]]:
            if x != a:
                delta += down[met[an + x]] + up[met[bn + x]]
        for y in tables[at[b]]:
            if y != b:
                delta += down[met[bn + y]] + up[met[an + y]]
        return a, b, delta

    limit = 16
    step = 0
    while step < steps and unmet:
        if step % (steps // _PHASES + 1) == 0:
            q = _Q0 * max(0, _PHASES - 1 - step * _PHASES // steps) // (_PHASES - 1)
            accept = [(q**d << 32) >> (16 * d) for d in range(limit)]
        step += 1
        r = rng.below(n_rounds)
        move = propose(where[r], seats[r])
        if move is None:
            continue
        a, b, delta = move
        if delta <= 0 or (delta < limit and rng.next() >> 32 < accept[delta]):
            swap(r, a, b)
    if unmet:
        return seats, len(unmet)
    # The polish: a quarter as many steps again, none worse; sideways steps may unseat a pair
    # for a while, and the best draw seen with every pair met is the one returned.
    total = sum(cost[met[a * n + b]] for a in range(n) for b in range(a + 1, n))
    best, best_total = [[t[:] for t in rnd] for rnd in seats], total
    for _ in range(steps // 4):
        r = rng.below(n_rounds)
        move = propose(where[r], seats[r])
        if move is None or move[2] > 0:
            continue
        a, b, delta = move
        swap(r, a, b)
        total += delta
        if total < best_total and not unmet:
            best, best_total = [[t[:] for t in rnd] for rnd in seats], total
    return best, 0


def covering_schedule(n: int, size: int) -> list[list[tuple[int, ...]]]:
    """Rounds of tables of `size` (3 or 4; mixed 3/4 when n does not divide) over indexes 0..n-1,
    drawn by the rule in the module docstring; the same n and size always give the same draw."""
    if n < 2:
        return []
    if n <= 4:
        return [[tuple(range(n))]]
    known = known_design(n, size) or (one_more(n) if size == 3 else None)
    if known is not None:
        return known
    sizes = table_sizes(n, size)
    low = lower_bound_rounds(n, size)
    tuned = _TUNED.get((size, n))
    tries = [tuned] if tuned is not None else [(r, 0) for r in range(low, low + 3)]
    drawn: list[list[list[int]]] = []
    for rounds, seed in tries if n <= SEARCH_MAX else []:
        drawn, left = _anneal(n, sizes, rounds, search_seed(n, size, seed), search_steps(n))
        if left == 0:
            break
    met = {pair_key(a, b) for rnd in drawn for t in rnd for a, b in combinations(t, 2)}
    while len(met) < n * (n - 1) // 2:  # the search fell short: finish with greedy rounds
        extra = _draw_round(n, sizes, met)
        drawn.append(extra)
        met.update(pair_key(a, b) for t in extra for a, b in combinations(t, 2))
    return [sorted(tuple(sorted(t)) for t in rnd) for rnd in drawn]


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


def greedy_schedule(n: int, size: int) -> list[list[tuple[int, ...]]]:
    """The draw of 3/4-seat tables before the designs and the search (``draw`` 1, kept for
    the round-robins begun with it: a running event goes on with the draw it started
    with, and ``door check`` recomputes it the same way): round after round drawn by
    :func:`_draw_round` until every pair has met; 9 players at 3 by AG(2, 3)."""
    if n <= size:
        return [[tuple(range(n))]] if n >= 2 else []
    if size == 3 and n == 9:
        return _affine_plane_v1(3)
    sizes = table_sizes(n, size)
    met: set[tuple[int, int]] = set()
    rounds: list[list[tuple[int, ...]]] = []
    while len(met) < n * (n - 1) // 2:
        rnd = _draw_round(n, sizes, met)
        rounds.append([tuple(sorted(t)) for t in rnd])
        met.update(pair_key(a, b) for t in rnd for a, b in combinations(t, 2))
    return rounds


def _affine_plane_v1(p: int) -> list[list[tuple[int, ...]]]:
    """AG(2, p) in the order draw 1 seated it: vertical lines, then slopes 0..p-1."""
    rounds = [[tuple(x * p + y for y in range(p)) for x in range(p)]]
    for m in range(p):
        rounds.append([tuple(x * p + (m * x + c) % p for x in range(p)) for c in range(p)])
    return rounds


DRAW_LATEST = 2
"""The draw new round-robins get (2: :func:`covering_schedule`; 1: :func:`greedy_schedule`,
for events stored before it, whose options carry no ``draw``)."""


class RoundRobin:
    """Everyone meets everyone; ranked by points, then head-to-head, then rating."""

    name = "roundrobin"
    tiebreak_rule = "Points, then head-to-head among the players tied on points, then rating"

    def __init__(self, table_size: int = 2, draw: int = DRAW_LATEST) -> None:
        if table_size not in (2, 3, 4):
            raise ValueError("round-robin tables seat 2, 3 or 4")
        if draw not in (1, 2):
            raise ValueError(f"no round-robin draw {draw}")
        self.table_size = table_size
        self.draw = draw
        self._drawn: dict[int, list[list[tuple[int, ...]]]] = {}  # n → schedule, this object only

    def schedule(self, n: int) -> list[list[tuple[int, ...]]]:
        """Every round's tables as seed indexes (0 = top seed)."""
        if n not in self._drawn:
            if self.table_size == 2:
                self._drawn[n] = circle_schedule(n) if n >= 2 else []
            elif self.draw == 1:
                self._drawn[n] = greedy_schedule(n, self.table_size)
            else:
                self._drawn[n] = covering_schedule(n, self.table_size)
        return [list(r) for r in self._drawn[n]]

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
