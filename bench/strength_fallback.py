"""Strength of door's own computer players: Spectrangle levels, and the bgsage-free fallback.

Spectrangle: every pair of levels plays 2-player games (seats alternate so neither level
always opens), seeded; a game's winner is the seat placed first (ties count half). Move
time is timed per level over the same games.

    python3 bench/strength_fallback.py [--games 200] [--seed 1]

Prints the figures, then one JSON line: ``spectrangle_win_rates`` ({"a>b": rate of a
against b}), ``spectrangle_next_lower`` (each level against the next lower one; target
>= 0.6), ``spectrangle_move_p95_ms`` per level (target <= 50), ``spectrangle_games``,
and with ``--bg-games N`` the fallback's figures from :func:`fallback_strength` (needs
bench/strength.py and bgsage).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from door.games.spectrangle import bot
from door.games.spectrangle.rules import SpectrangleRules
from door.games.spectrangle.state import SpectrangleState


def _p95(times: list[float]) -> float:
    if not times:
        return 0.0
    ordered = sorted(times)
    return ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]


def _play(
    rules: SpectrangleRules,
    levels: list[str],
    rng: random.Random,
    times: dict[str, list[float]],
) -> tuple[float, ...]:
    """One game; each seat's share of the win (1, 0, or split on a tie)."""
    state: SpectrangleState = rules.new_game(len(levels), {})
    while True:
        while rules.chance_pending(state):
            state = rules.apply_chance(state, rules.sample_chance(state, rng))
        outcome = rules.outcome(state)
        if outcome is not None:
            break
        seat = rules.to_act(state)
        assert seat is not None
        t0 = time.perf_counter()
        move = bot.choose_move(state, levels[seat], rng)
        times[levels[seat]].append((time.perf_counter() - t0) * 1000)
        state = rules.apply(state, move)
    winners = outcome.winners
    return tuple((1.0 / len(winners) if s in winners else 0.0) for s in range(len(levels)))


def spectrangle_strength(games: int, seed: int) -> dict[str, object]:
    """Win rates of every level against every other (2 players) and against greedy at 3-4.

    ``games`` per pair of levels, half with each level opening.
    """
    rules = SpectrangleRules()
    rng = random.Random(seed)
    levels = list(bot.LEVELS)
    times: dict[str, list[float]] = {lv: [] for lv in levels}
    rates: dict[str, float] = {}
    for i, a in enumerate(levels):
        for b in levels[i + 1 :]:
            won = 0.0
            for g in range(games):
                seats = [a, b] if g % 2 == 0 else [b, a]
                share = _play(rules, seats, rng, times)
                won += share[seats.index(a)]
            rates[f"{a}>{b}"] = round(won / games, 3)
            rates[f"{b}>{a}"] = round(1 - won / games, 3)
    # At bigger tables: one seat of the level among greedy players (its win share; a fair
    # share is 1/players).
    multi: dict[str, float] = {}
    for players in (3, 4):
        for lv in levels:
            if lv == "greedy":
                continue
            won = 0.0
            n = max(1, games // 2)
            for g in range(n):
                seats = ["greedy"] * players
                seats[g % players] = lv
                won += _play(rules, seats, rng, times)[g % players]
            multi[f"{lv}@{players}p_vs_greedy"] = round(won / n, 3)
    next_lower = {
        f"{levels[i]}>{levels[i - 1]}": rates[f"{levels[i]}>{levels[i - 1]}"]
        for i in range(1, len(levels))
    }
    return {
        "spectrangle_games": games,
        "spectrangle_win_rates": rates,
        "spectrangle_next_lower": next_lower,
        "spectrangle_multi_share": multi,
        "spectrangle_move_p95_ms": {lv: round(_p95(t), 2) for lv, t in times.items()},
    }


def fallback_strength(games: int, seed: int) -> dict[str, object]:
    """The bgsage-free fallback's error x1000 and move time, analysed by bgsage.

    Plays ``games`` money games of the fallback (``BgEngine(..., use_bgsage=False)``)
    against the reference with ``bench/strength.py``'s analyst (every decision judged by
    bgsage 2-ply / 3-ply cube), seats alternating. ``None`` figures where that bench or
    bgsage is missing.
    """
    try:
        import strength as sb  # bench/strength.py (bench/ is on sys.path when run from it)
    except ImportError:
        try:
            from bench import strength as sb
        except ImportError:
            return {"fallback_error_x1000": None, "fallback_games": 0}
    if not sb.has_bgsage():
        return {"fallback_error_x1000": None, "fallback_games": 0}
    analyst = sb.Analyst()
    total = sb.Tally()
    for g in range(games):
        total.add(sb.play_one(sb.FALLBACK, g % 2, sb.MONEY, seed + 1000 * g, analyst))
    return {
        "fallback_error_x1000": sb.rate(total.losses),
        "fallback_cube_error_x1000": sb.rate(total.cube_losses),
        "fallback_decisions": len(total.losses),
        "fallback_games": games,
        "fallback_move_ms_p95": round(_p95(total.times_ms), 1),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--bg-games", type=int, default=0, help="fallback money games")
    args = parser.parse_args()
    t0 = time.perf_counter()
    result: dict[str, object] = dict(spectrangle_strength(args.games, args.seed))
    if args.bg_games:
        result.update(fallback_strength(args.bg_games, args.seed))
    for key, value in result.items():
        print(f"{key}: {value}")
    print(f"took {time.perf_counter() - t0:.1f} s")
    print(json.dumps(result, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
