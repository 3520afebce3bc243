"""Time Spectrangle legal-move generation for a full hand over random mid-game positions.

Positions come from random self-play (seeded): each game is stopped after a random number
of placements (3-20) at a turn where the mover holds 4 pieces. Each position is timed once
cold (tables built beforehand, as in a running server) with ``rules.legal_moves``.

    python3 bench/spectrangle_moves.py [--positions 1000] [--seed 1]

The last line is one JSON object: ``median_ms`` (target <= 2), ``p90_ms``, ``max_ms``,
``mean_moves``, ``positions``.
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

from door.games.spectrangle.rules import SpectrangleRules
from door.games.spectrangle.state import SpectrangleState


def mid_game_positions(count: int, seed: int) -> list[SpectrangleState]:
    rules = SpectrangleRules()
    rng = random.Random(seed)
    found: list[SpectrangleState] = []
    while len(found) < count:
        state = rules.new_game(rng.choice((2, 3, 4)), {})
        stop_after = rng.randint(3, 20)
        placed = 0
        while rules.outcome(state) is None:
            while rules.chance_pending(state):
                state = rules.apply_chance(state, rules.sample_chance(state, rng))
            seat = rules.to_act(state)
            if seat is None:
                break
            if placed >= stop_after and len(state.hands[seat]) == 4:
                found.append(state)
                break
            move = rng.choice(list(rules.legal_moves(state)))
            placed += move.kind == "place"
            state = rules.apply(state, move)
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rules = SpectrangleRules()
    positions = mid_game_positions(args.positions, args.seed)
    rules.legal_moves(positions[0])  # build the cached tables once
    times: list[float] = []
    counts: list[int] = []
    for state in positions:
        t0 = time.perf_counter()
        moves = rules.legal_moves(state)
        times.append((time.perf_counter() - t0) * 1000.0)
        counts.append(len(moves))
    times.sort()
    result = {
        "positions": len(positions),
        "median_ms": round(statistics.median(times), 4),
        "p90_ms": round(times[int(0.9 * (len(times) - 1))], 4),
        "max_ms": round(times[-1], 4),
        "mean_moves": round(statistics.fmean(counts), 2),
        "target_median_ms": 2.0,
    }
    print(f"positions: {result['positions']} (full hands, mid-game)")
    print(f"legal moves per position: mean {result['mean_moves']}")
    print(
        f"time to list them: median {result['median_ms']} ms, "
        f"p90 {result['p90_ms']} ms, max {result['max_ms']} ms"
    )
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
