"""Benchmark: listing every legal Backgammon play of a (position, roll).

Over a fixed corpus of 10,000 random (position, roll) pairs (seeded: half met in games of
random legal plays, half random placements with bars and bear-offs), time
``door.games.backgammon.movegen.legal_plays`` per pair, and bgsage's C++ generator
(``bgsage.possible_moves``) on the same corpus in the same run. Prints figures; the last
line is one JSON object with ``median_ms`` and ``ratio_vs_bgsage`` (medians' ratio).

    python3 bench/backgammon_moves.py [--pairs N] [--seed S]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from door.games.backgammon import movegen
from door.games.backgammon.position import Side, start_side


def corpus(seed: int, n: int) -> list[tuple[Side, Side, int, int]]:
    rng = random.Random(seed)
    games: list[tuple[Side, Side]] = []
    me, opp = start_side(), start_side()
    while len(games) < (n + 1) // 2:
        plays = movegen.legal_plays(me, opp, rng.randint(1, 6), rng.randint(1, 6))
        if plays:
            _p, me, opp = rng.choice(plays)
            if sum(me) == 0:
                me, opp = start_side(), start_side()
        me, opp = opp, me
        if rng.random() < 0.4:
            games.append((me, opp))
    out = []
    for i in range(n):
        if i % 2 == 0:
            a, b = games[i // 2]
        else:
            a, b = placement(rng)
        out.append((a, b, rng.randint(1, 6), rng.randint(1, 6)))
    return out


def placement(rng: random.Random) -> tuple[Side, Side]:
    sides = [[0] * 25, [0] * 25]
    for who in (0, 1):
        for _ in range(rng.randint(1, 15)):
            while True:
                idx = 24 if rng.random() < 0.06 else rng.randint(0, 23)
                if idx == 24 or sides[1 - who][23 - idx] == 0:
                    break
            sides[who][idx] += 1
    return tuple(sides[0]), tuple(sides[1])


def to_bgsage(me: Side, opp: Side) -> list[int]:
    board = [0] * 26
    for i in range(24):
        board[i + 1] = me[i] or -opp[23 - i]
    board[25] = me[24]
    board[0] = opp[24]
    return board


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=20261201)
    args = parser.parse_args()
    pairs = corpus(args.seed, args.pairs)
    clock = time.perf_counter

    ours: list[float] = []
    total_plays = 0
    for me, opp, d1, d2 in pairs:
        t0 = clock()
        plays = movegen.legal_plays(me, opp, d1, d2)
        ours.append(clock() - t0)
        total_plays += len(plays)
    med = statistics.median(ours) * 1000
    p90 = statistics.quantiles(ours, n=10)[-1] * 1000
    print(f"corpus: {len(pairs)} (position, roll) pairs, seed {args.seed}")
    print(f"door movegen: median {med:.4f} ms, p90 {p90:.4f} ms, max {max(ours) * 1000:.3f} ms,"
          f" total {sum(ours):.2f} s, {total_plays} plays")

    result: dict[str, object] = {
        "pairs": len(pairs),
        "median_ms": round(med, 4),
        "p90_ms": round(p90, 4),
        "total_s": round(sum(ours), 3),
    }
    try:
        import bgsage
    except ImportError:
        print("bgsage: not installed, no ratio")
        result["ratio_vs_bgsage"] = None
    else:
        boards = [(to_bgsage(me, opp), d1, d2) for me, opp, d1, d2 in pairs]
        theirs: list[float] = []
        for board, d1, d2 in boards:
            t0 = clock()
            bgsage.possible_moves(board, d1, d2)
            theirs.append(clock() - t0)
        bmed = statistics.median(theirs) * 1000
        print(f"bgsage possible_moves: median {bmed:.4f} ms, total {sum(theirs):.2f} s")
        result["bgsage_median_ms"] = round(bmed, 4)
        result["ratio_vs_bgsage"] = round(med / bmed, 2)
        print(f"ratio (median door / median bgsage): {med / bmed:.2f}")
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
