"""Bot benchmark: time per bot move at every level, and how the strong levels fare.

    python3 bench/bots.py [--bg-games 200] [--sp-games 200] [--timing-games 8] [--workers 2]

1. Timing: each level plays ``--timing-games`` games against a partner (backgammon: the
   fallback bot; Spectrangle: the other level), one process, bgsage with its default
   threads, as the server runs it; every decision of the level is timed (cube decisions
   and resignation answers included, not only checker plays).
2. Strength: backgammon expert against the fallback bot (pubeval, its strongest setting)
   over ``--bg-games`` single money games with the cube (Jacoby off, no beavers), seats
   alternating; the figure is the expert's share of all points won. Spectrangle strong
   against greedy over ``--sp-games`` 2-player games, seats alternating; the figure is
   strong's win rate (a tie counts half). Games run in ``--workers`` processes, each
   bgsage search on one thread.

The last line printed is one JSON object; targets: ``bg_expert_p95_ms`` <= 250,
``bg_expert_vs_fallback`` >= 0.6, ``spectrangle_strong_vs_greedy`` >= 0.55.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from door.games.backgammon.rules import BackgammonRules
from door.games.spectrangle import bot as spectrangle_bot
from door.games.spectrangle.rules import SpectrangleRules
from door.services.bgengine import BgEngine, has_bgsage

BG_MONEY = {"match_length": 0, "cube": True, "jacoby": False, "beavers": False}


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    k = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[k]


# --- one game of each ---------------------------------------------------------------------


def bg_game(
    engines: tuple[BgEngine, BgEngine], rng: random.Random, timed: int | None = None
) -> tuple[int, int, list[tuple[float, str]]]:
    """One money game: (winner seat, points won, (time, phase) of each decision of seat
    ``timed``)."""
    rules = BackgammonRules()
    state = rules.new_game(2, BG_MONEY)
    times: list[tuple[float, str]] = []
    while rules.outcome(state) is None:
        while rules.chance_pending(state):
            state = rules.apply_chance(state, rules.sample_chance(state, rng))
        if rules.outcome(state) is not None:
            break
        seat = rules.to_act(state)
        assert seat is not None
        started = time.perf_counter()
        move = engines[seat].choose(state)
        if seat == timed:
            times.append((time.perf_counter() - started, state.phase))
        state = rules.apply(state, move)
    outcome = rules.outcome(state)
    assert outcome is not None
    return outcome.winners[0], int(outcome.extra["points"]), times


def sp_game(
    levels: tuple[str, str], rng: random.Random, timed: int | None = None
) -> tuple[tuple[int, ...], list[float]]:
    """One 2-player game: (winner seats, move times of seat ``timed``)."""
    rules = SpectrangleRules()
    state = rules.new_game(2, {})
    times: list[float] = []
    while rules.outcome(state) is None:
        while rules.chance_pending(state):
            state = rules.apply_chance(state, rules.sample_chance(state, rng))
        if rules.outcome(state) is not None:
            break
        seat = rules.to_act(state)
        assert seat is not None
        started = time.perf_counter()
        move = spectrangle_bot.choose_move(state, levels[seat].removeprefix("spectrangle-"), rng)
        if seat == timed:
            times.append(time.perf_counter() - started)
        state = rules.apply(state, move)
    outcome = rules.outcome(state)
    assert outcome is not None
    return outcome.winners, times


# --- workers (module level so a process pool can run them) --------------------------------


def bg_match_worker(args: tuple[int, int]) -> tuple[float, float]:
    """Games ``start`` .. ``start + count - 1`` of expert vs fallback: (expert points,
    fallback points)."""
    start, count = args
    expert = BgEngine("bg-expert", threads=1, rng=random.Random(start))
    fallback = BgEngine("bg-expert", use_bgsage=False, rng=random.Random(start + 1))
    mine = theirs = 0.0
    for g in range(start, start + count):
        rng = random.Random(1000 + g)
        expert_seat = g % 2
        engines = (expert, fallback) if expert_seat == 0 else (fallback, expert)
        winner, points, _ = bg_game(engines, rng)
        if winner == expert_seat:
            mine += points
        else:
            theirs += points
    return mine, theirs


def sp_match_worker(args: tuple[int, int]) -> float:
    """Games ``start`` .. of strong vs greedy: strong's score (win 1, tie 1/2)."""
    start, count = args
    score = 0.0
    for g in range(start, start + count):
        rng = random.Random(5000 + g)
        strong_seat = g % 2
        levels = ("strong", "greedy") if strong_seat == 0 else ("greedy", "strong")
        winners, _ = sp_game(levels, rng)
        if strong_seat in winners:
            score += 1.0 / len(winners)
    return score


def chunks(total: int, parts: int) -> list[tuple[int, int]]:
    size = max(1, (total + parts * 4 - 1) // (parts * 4))
    return [(s, min(size, total - s)) for s in range(0, total, size)]


# --- main ---------------------------------------------------------------------------------


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bg-games", type=int, default=200)
    ap.add_argument("--sp-games", type=int, default=200)
    ap.add_argument("--timing-games", type=int, default=8)
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    results: dict[str, Any] = {"bgsage": has_bgsage()}
    print(f"bgsage available: {has_bgsage()}")

    # 1. timing
    print("\ntime per bot decision, by level (ms)")
    fallback = BgEngine("bg-expert", use_bgsage=False, rng=random.Random(9))
    timing: dict[str, dict[str, float]] = {}
    bg_levels: list[tuple[str, BgEngine]] = [
        (name, BgEngine(name, rng=random.Random(3)))
        for name in ("bg-beginner", "bg-intermediate", "bg-expert")
    ]
    bg_levels.append(("bg-fallback", BgEngine("bg-expert", use_bgsage=False)))
    for name, eng in bg_levels:
        timed: list[tuple[float, str]] = []
        for g in range(args.timing_games):
            seat = g % 2
            engines = (eng, fallback) if seat == 0 else (fallback, eng)
            _, _, t = bg_game(engines, random.Random(300 + g), timed=seat)
            timed += t
        timing[name] = report(name, [t for t, _ in timed])
        timing[name + " plays"] = report(
            name + " plays", [t for t, phase in timed if phase == "moving"]
        )
        timing[name + " cube"] = report(
            name + " cube", [t for t, phase in timed if phase in ("decide", "doubled")]
        )
    for level in ("spectrangle-greedy", "spectrangle-strong"):
        other = "spectrangle-strong" if level.endswith("greedy") else "spectrangle-greedy"
        times: list[float] = []
        for g in range(args.timing_games * 4):
            seat = g % 2
            levels = (level, other) if seat == 0 else (other, level)
            _, t = sp_game(levels, random.Random(700 + g), timed=seat)
            times += t
        timing[level] = report(level, times)
    results["timing_ms"] = timing
    results["bg_expert_p95_ms"] = round(timing["bg-expert"]["p95"], 1)

    # 2. strength
    started = time.perf_counter()
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        bg_parts = list(pool.map(bg_match_worker, chunks(args.bg_games, args.workers)))
        sp_parts = list(pool.map(sp_match_worker, chunks(args.sp_games, args.workers)))
    mine = sum(m for m, _ in bg_parts)
    theirs = sum(t for _, t in bg_parts)
    share = mine / (mine + theirs) if mine + theirs else 0.0
    strong = sum(sp_parts) / args.sp_games if args.sp_games else 0.0
    print(
        f"\nbackgammon expert vs fallback over {args.bg_games} money games: "
        f"{mine:.0f} to {theirs:.0f} points, expert's share {share:.3f}"
    )
    print(
        f"spectrangle strong vs greedy over {args.sp_games} games: strong's win rate {strong:.3f}"
    )
    print(f"(strength runs took {time.perf_counter() - started:.0f} s on {args.workers} workers)")
    results["bg_games"] = args.bg_games
    results["bg_expert_points"] = mine
    results["bg_fallback_points"] = theirs
    results["bg_expert_vs_fallback"] = round(share, 3)
    results["sp_games"] = args.sp_games
    results["spectrangle_strong_vs_greedy"] = round(strong, 3)
    print(json.dumps(results, sort_keys=True))


def report(name: str, times: list[float]) -> dict[str, float]:
    ms = [t * 1000.0 for t in times]
    row = {
        "decisions": float(len(ms)),
        "median": round(statistics.median(ms), 2) if ms else 0.0,
        "p95": round(percentile(ms, 0.95), 2),
        "max": round(max(ms), 2) if ms else 0.0,
    }
    print(
        f"  {name:20s} {len(ms):5d} decisions  median {row['median']:7.2f}  "
        f"p95 {row['p95']:7.2f}  max {row['max']:7.2f}"
    )
    return row


if __name__ == "__main__":
    main()
