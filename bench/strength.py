"""Strength of the computer levels: each backgammon level against a fixed reference, every
decision of the level analysed by the engine.

    nice -n 10 python3 bench/strength.py [--games 8] [--matches 4] [--workers 2]

Backgammon: each level (and the pure-Python fallback, ``BgEngine("bg-expert",
use_bgsage=False)``) plays ``--games`` money games with the cube (Jacoby off, no beavers)
against the reference, seats alternating. The reference is the expert (bgsage 2-ply) where
bgsage is installed, else the fallback. The expert also plays ``--matches`` 5-point matches
against the reference, analysed at the match score.

The analyst (bgsage, where installed): checker plays ranked by the expert's 2-ply search
(cubeful, the played move searched in full too); cube decisions (double / roll on, take /
drop) by bgsage's 3-ply cubeful ``cube_action``, one ply deeper than any level decides, so
the expert's cube is judged by a stronger player than itself. Figures:

* ``error_x1000`` per level: equity lost per decision (checker plays with a choice and
  cube decisions within reach of a double) x 1000, as gnubg's "mEMG per move".
* ``cube_error_x1000`` per level: the same over cube decisions only ("close decisions").
* ``wrong_double_share``: the expert's doubles that the analyst puts before the doubling
  point (no double/take would have been better and the position is not too good)
  divided by its doubles; target <= 0.125.
* ``expert_match_error_x1000``: the expert's error in the 5-point matches (target: no
  worse than its money-play error).
* ``move_ms_p95`` per level: every decision of the level timed (target: expert <= 250,
  others <= 50).
* ``fallback_error_x1000``: the fallback's error, analysed the same way.

Note that the expert's checker plays are judged by its own 2-ply search, so their error
is ~0 by construction; its figure is its cube error in effect (see ``cube_error_x1000``).

Spectrangle: :func:`spectrangle_win_rates` (every level against every other).

The last line printed is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from door.games.backgammon.position import DECIDE, DOUBLED, MOVING, BackgammonState
from door.games.backgammon.rules import BackgammonRules
from door.services.bgengine import BG_LEVELS, BgEngine, board_of, cube_view, has_bgsage

MONEY = {"match_length": 0, "cube": True, "jacoby": False, "beavers": False}
MATCH = {"match_length": 5, "cube": True, "jacoby": False, "beavers": False}
FALLBACK = "fallback"


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    k = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[k]


@dataclass
class Tally:
    """One level's analysed decisions."""

    losses: list[float] = field(default_factory=list)
    cube_losses: list[float] = field(default_factory=list)
    doubles: int = 0
    early_doubles: int = 0
    wrong_takes: int = 0
    wrong_drops: int = 0
    times_ms: list[float] = field(default_factory=list)
    points: int = 0  # points won minus points lost against the reference
    games: int = 0

    def add(self, other: Tally) -> None:
        self.losses += other.losses
        self.cube_losses += other.cube_losses
        self.doubles += other.doubles
        self.early_doubles += other.early_doubles
        self.wrong_takes += other.wrong_takes
        self.wrong_drops += other.wrong_drops
        self.times_ms += other.times_ms
        self.points += other.points
        self.games += other.games


class Scorer(Protocol):
    """What a game is played with: something that looks at each decision made."""

    def score(
        self, state: BackgammonState, after: BackgammonState, move: Any, t: Tally
    ) -> None: ...


class Analyst:
    """Scores decisions: checker plays by the expert's 2-ply search, the cube by bgsage's
    3-ply cubeful evaluation (or, without bgsage, the fallback's own view of both)."""

    def __init__(self) -> None:
        self.rules = BackgammonRules()
        self.checker = BgEngine("bg-expert", rng=random.Random(1))
        self.checker.noise = 0.0
        self._cube: Any = None
        if self.checker.engine == "bgsage":
            import bgsage

            self._cube = bgsage.BgBotAnalyzer(eval_level="3ply", cubeful=True)

    def cube(self, state: BackgammonState) -> tuple[float, float, float]:
        """(no double, double/take, double/pass) for the seat on roll."""
        if self._cube is None:
            nd, dt, dp, _, _ = self.checker.cube_analysis(state)
            return nd, dt, dp
        cv = cube_view(state)
        r = self._cube.cube_action(
            board_of(state, state.turn),
            cube_value=cv.cube,
            cube_owner=cv.owner,
            away1=cv.away1,
            away2=cv.away2,
            is_crawford=cv.crawford,
            jacoby=False,
            beaver=False,
        )
        return float(r.equity_nd), float(r.equity_dt), float(r.equity_dp)

    def score(self, state: BackgammonState, after: BackgammonState, move: Any, t: Tally) -> None:
        """Add the loss of ``move`` (made in ``state``) to ``t``, if it was a decision."""
        if state.phase == MOVING and move.action == "play":
            ranked = self.checker.rank_plays(state, also=after)
            if len(ranked) <= 1:
                return
            played = next(
                (r.equity for r in ranked if self.rules.apply(state, r.move).board == after.board),
                ranked[0].equity,
            )
            t.losses.append(max(0.0, ranked[0].equity - played))
        elif state.phase == DECIDE and move.action in ("double", "roll"):
            if move.action == "roll" and not self.checker.is_cube_decision(state):
                return
            nd, dt, dp = self.cube(state)
            best = max(nd, min(dt, dp))
            got = nd if move.action == "roll" else min(dt, dp)
            loss = max(0.0, best - got)
            t.losses.append(loss)
            t.cube_losses.append(loss)
            if move.action == "double":
                t.doubles += 1
                if nd > dt and dt <= dp:
                    t.early_doubles += 1
        elif state.phase == DOUBLED and move.action in ("take", "drop"):
            _, dt, dp = self.cube(state)  # the doubler's view: taking costs the taker dt
            best = max(-dt, -dp)
            got = -dt if move.action == "take" else -dp
            loss = max(0.0, best - got)
            t.losses.append(loss)
            t.cube_losses.append(loss)
            if loss > 0 and move.action == "take":
                t.wrong_takes += 1
            elif loss > 0:
                t.wrong_drops += 1


def play_one(
    level: str, seat: int, options: dict[str, Any], seed: int, analyst: Scorer
) -> Tally:
    """One game (or match) of ``level`` in ``seat`` against the reference."""
    rng = random.Random(seed)
    bgsage = has_bgsage()
    if level == FALLBACK:
        mine = BgEngine("bg-expert", use_bgsage=False, rng=random.Random(seed + 1))
    else:
        mine = BgEngine(level, rng=random.Random(seed + 1))
    ref = BgEngine("bg-expert", use_bgsage=bgsage, rng=random.Random(seed + 2))
    rules = BackgammonRules()
    state = rules.new_game(2, options)
    t = Tally(games=1)
    for _ in range(5000):
        if rules.outcome(state) is not None:
            break
        if rules.chance_pending(state):
            state = rules.apply_chance(state, rules.sample_chance(state, rng))
            continue
        actor = rules.to_act(state)
        assert actor is not None
        if actor == seat:
            t0 = time.perf_counter()
            move = mine.choose(state)
            t.times_ms.append(1000 * (time.perf_counter() - t0))
            after = rules.apply(state, move)
            analyst.score(state, after, move, t)
        else:
            move = ref.choose(state)
            after = rules.apply(state, move)
        state = after
    result = rules.outcome(state)
    if result is not None:
        won = seat in result.winners
        if options["match_length"] == 0:
            points = int(result.extra["points"])
            t.points = points if won else -points
        else:
            t.points = 1 if won else -1  # matches: won minus lost
    return t


_ANALYST: Analyst | None = None


def _job(job: tuple[str, int, dict[str, Any], int]) -> tuple[str, bool, Tally]:
    global _ANALYST  # one analyst per worker process (the networks load once)
    if _ANALYST is None:
        _ANALYST = Analyst()
    level, seat, options, seed = job
    return level, options["match_length"] > 0, play_one(level, seat, options, seed, _ANALYST)


def spectrangle_win_rates(args: argparse.Namespace) -> dict[str, Any]:
    """Each Spectrangle level against every other (2 players; the target is a win rate of
    at least 0.6 against the next lower level) and against greedy at 3-4 players, with
    move times: bench/strength_fallback.py's ``spectrangle_strength``."""
    from strength_fallback import spectrangle_strength

    found: dict[str, Any] = spectrangle_strength(args.spectrangle_games, args.seed)
    return found


def rate(losses: list[float]) -> float | None:
    return round(1000 * statistics.fmean(losses), 2) if losses else None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=8, help="money games per level")
    ap.add_argument("--matches", type=int, default=4, help="5-point matches for the expert")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--levels", default="", help="comma-separated subset of the levels")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--spectrangle-games", type=int, default=200,
                    help="2-player Spectrangle games per pair of levels")
    args = ap.parse_args()
    names = [n for n, _ in BG_LEVELS] if has_bgsage() else []
    if args.levels:
        names = [n for n in args.levels.split(",") if n]
    levels = [*names, FALLBACK] if FALLBACK not in names else names
    jobs = []
    for level in levels:
        for g in range(args.games):
            jobs.append((level, g % 2, MONEY, args.seed + 1000 * len(jobs)))
    if "bg-expert" in levels:
        for g in range(args.matches):
            jobs.append(("bg-expert", g % 2, MATCH, args.seed + 1000 * len(jobs)))
    money: dict[str, Tally] = {lv: Tally() for lv in levels}
    match = Tally()
    started = time.time()
    with ProcessPoolExecutor(max_workers=max(1, args.workers)) as pool:
        for level, is_match, tally in pool.map(_job, jobs):
            (match if is_match else money[level]).add(tally)
    took = time.time() - started
    print(f"reference: {'bg-expert (bgsage 2-ply)' if has_bgsage() else 'the fallback'}")
    print(f"{'level':<12} {'games':>5} {'decisions':>9} {'err/1000':>9} {'cube err':>9} "
          f"{'doubles':>7} {'early':>5} {'p95 ms':>7} {'points':>7}")  # fmt: skip
    out: dict[str, Any] = {"levels": {}}
    for level in levels:
        t = money[level]
        p95 = round(percentile(t.times_ms, 0.95), 1)
        row = {
            "games": t.games,
            "decisions": len(t.losses),
            "error_x1000": rate(t.losses),
            "cube_error_x1000": rate(t.cube_losses),
            "cube_decisions": len(t.cube_losses),
            "doubles": t.doubles,
            "early_doubles": t.early_doubles,
            "wrong_takes": t.wrong_takes,
            "wrong_drops": t.wrong_drops,
            "move_ms_p95": p95,
            "points_vs_reference": t.points,
        }
        out["levels"][level] = row
        print(f"{level:<12} {t.games:>5} {len(t.losses):>9} {row['error_x1000']!s:>9} "
              f"{row['cube_error_x1000']!s:>9} {t.doubles:>7} {t.early_doubles:>5} "
              f"{p95:>7} {t.points:>7}")  # fmt: skip
    expert = money.get("bg-expert")
    out["wrong_double_share"] = (
        round(expert.early_doubles / expert.doubles, 3) if expert and expert.doubles else None
    )
    out["expert_match_error_x1000"] = rate(match.losses)
    out["expert_match_games"] = match.games
    out["expert_match_cube_error_x1000"] = rate(match.cube_losses)
    out["expert_match_doubles"] = match.doubles
    out["expert_match_early_doubles"] = match.early_doubles
    out["expert_match_ms_p95"] = round(percentile(match.times_ms, 0.95), 1)
    out["fallback_error_x1000"] = out["levels"][FALLBACK]["error_x1000"]
    out["error_x1000"] = {lv: out["levels"][lv]["error_x1000"] for lv in levels}
    out["move_ms_p95"] = {lv: out["levels"][lv]["move_ms_p95"] for lv in levels}
    out["spectrangle"] = spectrangle_win_rates(args)
    out["seconds"] = round(took, 1)
    out["load_average"] = [round(x, 2) for x in os.getloadavg()]
    print(f"expert in 5-point matches: {out['expert_match_error_x1000']} x1000 over "
          f"{match.games} matches (cube {out['expert_match_cube_error_x1000']} over "
          f"{len(match.cube_losses)} decisions, {match.early_doubles}/{match.doubles} early "
          f"doubles, p95 {out['expert_match_ms_p95']} ms); "
          f"wrong_double_share {out['wrong_double_share']}")  # fmt: skip
    print(f"{took:.0f} s, load average {out['load_average']}")
    print(json.dumps(out, sort_keys=True))


if __name__ == "__main__":
    main()
