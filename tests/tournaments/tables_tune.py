"""Find `_TUNED` for door/services/tournaments/roundrobin.py: per (table size, players), the fewest
rounds for which the draw's search, in its fixed step budget, meets every pair, and the first seed
that does it. Run: PYTHONPATH=$PWD python3 tests/tournaments/tables_tune.py [SIZE ...]

Prints one dict line per field as it goes (paste them into `_TUNED`). Seeds 0..SEEDS-1 are tried
at each round count from the lower bound up; a round count is given up early when its first two
seeds leave many pairs unmet.
"""

from __future__ import annotations

import sys
import time

from door.services.tournaments.model import table_sizes
from door.services.tournaments.roundrobin import (
    _anneal,
    known_design,
    lower_bound_rounds,
    search_seed,
    search_steps,
)

SEEDS = 6
HOPELESS = 8  # unmet pairs after two seeds at which a round count is given up


def tune(n: int, size: int) -> tuple[int, int]:
    rounds = lower_bound_rounds(n, size)
    while True:
        best = n * n
        for seed in range(SEEDS):
            _, left = _anneal(
                n, table_sizes(n, size), rounds, search_seed(n, size, seed), search_steps(n)
            )
            if left == 0:
                return rounds, seed
            best = min(best, left)
            if seed == 1 and best >= HOPELESS:
                break
        rounds += 1


def main() -> None:
    sizes = [int(a) for a in sys.argv[1:]] or [3, 4]
    for size in sizes:
        for n in range(5, 41):
            if known_design(n, size) is not None:
                continue
            t0 = time.perf_counter()
            rounds, seed = tune(n, size)
            took = time.perf_counter() - t0
            print(f"    ({size}, {n}): ({rounds}, {seed}),  # {took:.1f}s", flush=True)


if __name__ == "__main__":
    main()
