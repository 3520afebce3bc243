"""Print the round-robin draw at tables of 3 and 4 for each field: rounds, the lower bound on
rounds, repeated meetings (sum over pairs of meetings − 1), the fewest repeats the lower bound
allows, the most times any pair meets, and the CPU time the draw took.

Run: PYTHONPATH=$PWD python3 tests/tournaments/tables_golden.py [MAX_N]   (default 24)
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from itertools import combinations

from door.services.tournaments.model import table_sizes
from door.services.tournaments.roundrobin import covering_schedule, lower_bound_rounds


def row(n: int, size: int) -> tuple[int, int, int, int, int, float]:
    t0 = time.process_time()
    rounds = covering_schedule(n, size)
    took = time.process_time() - t0
    met = Counter(pair for rnd in rounds for t in rnd for pair in combinations(t, 2))
    per_round = sum(t * (t - 1) // 2 for t in table_sizes(n, size))
    low = lower_bound_rounds(n, size)
    return (
        len(rounds),
        low,
        sum(c - 1 for c in met.values()),
        low * per_round - n * (n - 1) // 2,
        max(met.values()),
        took,
    )


def main() -> None:
    top = int(sys.argv[1]) if len(sys.argv) > 1 else 24
    print(" n@size rounds  lower  repeats  fewest  max-meet  cpu-ms")
    for size in (3, 4):
        for n in range(3, top + 1):
            r, low, rep, rep_low, most, took = row(n, size)
            cpu = took * 1000
            print(f"{n:3d}@{size}  {r:5d}  {low:5d}  {rep:7d}  {rep_low:6d}  {most:8d}  {cpu:6.0f}")


if __name__ == "__main__":
    main()
