"""The expert's cube against GNU Backgammon's: issue 22 point 2, judged by gnubg itself.

    nice -n 10 python3 bench/gnubg_cube.py [--games 200] [--workers 2] [--seed 2026]
        [--judge-plies 2] [--player-plies 0] [--gnubg /usr/games/gnubg] [--show 10]

The expert (``BgEngine("bg-expert")``, bgsage 2-ply) plays ``--games`` money games (cube
on, Jacoby off, no beavers) against the same reference bench/strength.py uses (the expert
again, its own engine), seats alternating, each game seeded from ``--seed`` as
bench/strength.py seeds its jobs (the game loop is bench/strength.py's ``play_one``).
Every close cube decision the expert makes is kept: before its roll when doubling is
within reach (``BgEngine.is_cube_decision``: a cubeless win chance of 0.58 or more, the
same filter bench/strength.py uses), and every take / drop when it is doubled.

Each kept position goes to one long-lived gnubg process (``gnubg -t -q -p``, the
embedded Python's ``gnubg.cfevaluate``: no double, double/take, double/pass equities,
cubeful, money, per unit of the current cube, from the doubler's view). gnubg at
``--player-plies`` (0: "gnubg 0-ply") says what it would do there; gnubg at
``--judge-plies`` (2) judges both that and the expert's action: the equity the chosen
action loses against the best one, x 1000 (gnubg's "mEMG" error, per close decision).
A double is "before the doubling point" when the judge prefers no double / take
(``nd > dt`` and ``dt <= dp``).

Printed: one row per decision type (double / no double as doubler, take / drop as
taker: count, each player's error x 1000 and wrong actions), the worst ``--show``
expert decisions (position ID, cube, equities), and last one JSON object:

* ``expert_cube_error_x1000`` / ``gnubg0_cube_error_x1000``: mean loss per close
  decision, same positions, same judge; ``ratio`` = expert / gnubg0 (target <= 0.5).
* ``decisions``: how many close decisions were judged.
* ``wrong_double_share``: the expert's doubles before the doubling point / its doubles
  (target <= 0.125); ``gnubg0_wrong_double_share`` the same for gnubg 0-ply's doubles
  in these positions.
* per-type counts, wrong takes / drops, missed doubles, seconds, load average.

``--margins 0,0.03,0.05``: the expert's own (nd, dt, dp) is kept for every decision and
its doubling replayed at each margin (bgengine's ``MONEY_DOUBLE_MARGIN`` is 0.03), judged
the same way; takes and drops as played.

Measured (2 shared cores, load average 2-3, 300 games each, about 880 decisions):
seed 2026, 2-ply judge: expert 1.10 against gnubg 0-ply 2.36 (ratio 0.465), 19 of 167
doubles early (0.114); seed 7: 1.26 against 2.56 (0.491), 20 of 179 (0.112); seed 2026
with a 3-ply judge: 1.18 against 2.99 (0.396), 17 of 167 (0.102). The margin sweep puts
0.03 at or next to the lowest error on both seeds (0.04: 0.95 and 1.35; 0.02: 1.08 and
1.35; 0: 1.54 and 1.81).

gnubg's directory is a throwaway ``HOME`` (it writes a settings directory there).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from door.games.backgammon.ids import encode_position
from door.games.backgammon.position import DECIDE, DOUBLED, BackgammonState, Side
from door.services.bgengine import BgEngine

SERVER = r"""
import json
import sys

import gnubg

gnubg.command("set jacoby off")
gnubg.command("set beavers off")
CONTEXTS = {}


def context(plies):
    if plies not in CONTEXTS:
        CONTEXTS[plies] = gnubg.evalcontext(1, plies, 0, 1, 0.0)
    return CONTEXTS[plies]


sys.stdout.write("@@ready\n")
sys.stdout.flush()
for line in sys.stdin:
    if not line.strip():
        continue
    ask = json.loads(line)
    board = (tuple(ask["opponent"]), tuple(ask["on_roll"]))
    ci = gnubg.cubeinfo(ask["cube"], ask["owner"], 0, 0, (0, 0), 0, 0)
    ci["jacoby"] = 0
    ci["beavers"] = 0
    out = {}
    for plies in ask["plies"]:
        r = gnubg.cfevaluate(board, ci, context(plies))
        out[str(plies)] = [r[1], r[2], r[3], r[5]]
    sys.stdout.write("@@" + json.dumps(out) + "\n")
    sys.stdout.flush()
"""
"""The gnubg side: one JSON question a line on stdin (``on_roll`` / ``opponent``: 25
counts each, points 1..24 then the bar, each from its own side; ``cube``; ``owner``: -1
centered, 0 the player on roll, 1 his opponent; ``plies``), one answer a line on stdout
after ``@@``: for each ply, [no double, double/take, double/pass, gnubg's words]."""


def gnubg_path() -> str | None:
    """The gnubg program (Debian puts it in /usr/games, often not on PATH), or None."""
    found = shutil.which("gnubg")
    if found:
        return found
    debian = Path("/usr/games/gnubg")
    return str(debian) if debian.exists() else None


@dataclass(frozen=True)
class Cube:
    """gnubg's cubeful money equities for the player on roll, per unit of the cube."""

    nd: float  # no double
    dt: float  # double, take
    dp: float  # double, pass
    words: str  # gnubg's own verdict, e.g. "No double, take"

    @property
    def best_for_doubler(self) -> float:
        return max(self.nd, min(self.dt, self.dp))

    @property
    def double_right(self) -> bool:
        """Doubling beats playing on (so "too good" is no double)."""
        return min(self.dt, self.dp) > self.nd

    @property
    def take_right(self) -> bool:
        return self.dt <= self.dp

    def doubler_loss(self, doubled: bool) -> float:
        return max(0.0, self.best_for_doubler - (min(self.dt, self.dp) if doubled else self.nd))

    def taker_loss(self, took: bool) -> float:
        return max(0.0, max(-self.dt, -self.dp) - (-self.dt if took else -self.dp))

    @property
    def before_doubling_point(self) -> bool:
        """A double here is early: no double / take is the right verdict."""
        return self.nd > self.dt and self.dt <= self.dp


class Gnubg:
    """One long-lived gnubg process answering cube questions (see :data:`SERVER`)."""

    def __init__(self, program: str | None = None, *, timeout: float = 60.0) -> None:
        found = program or gnubg_path()
        if found is None:
            raise FileNotFoundError("gnubg is not installed")
        self._dir = tempfile.TemporaryDirectory(prefix="gnubg-cube-")
        work = Path(self._dir.name)
        script = work / "server.py"
        script.write_text(SERVER)
        env = {**os.environ, "HOME": str(work), "LANG": "C.UTF-8"}
        self._proc = subprocess.Popen(
            [found, "-t", "-q", "-p", str(script)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            text=True, env=env, cwd=work, bufsize=1,
        )  # fmt: skip
        self._timeout = timeout
        self._read()  # "@@ready"

    def _read(self) -> str:
        assert self._proc.stdout is not None
        seen: list[str] = []
        while True:
            line = self._proc.stdout.readline()
            if not line:
                raise RuntimeError("gnubg ended:\n" + "".join(seen[-40:]))
            if line.startswith("@@"):
                return line[2:].strip()
            seen.append(line)

    def cube(self, on_roll: Side, opponent: Side, cube: int, owner: int,
             plies: tuple[int, ...] = (0, 2)) -> dict[int, Cube]:  # fmt: skip
        """gnubg's cube verdict at each of ``plies`` for the player on roll (money play;
        ``owner``: -1 centered, 0 the player on roll, 1 the opponent)."""
        assert self._proc.stdin is not None
        ask = {"on_roll": list(on_roll), "opponent": list(opponent), "cube": cube,
               "owner": owner, "plies": list(plies)}  # fmt: skip
        self._proc.stdin.write(json.dumps(ask) + "\n")
        self._proc.stdin.flush()
        got = json.loads(self._read())
        out = {}
        for p in plies:
            nd, dt, dp, words = got[str(p)]
            out[p] = Cube(float(nd), float(dt), float(dp), str(words))
        return out

    def close(self) -> None:
        if self._proc.poll() is None:
            assert self._proc.stdin is not None
            self._proc.stdin.close()
            try:
                self._proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
        self._dir.cleanup()

    def __enter__(self) -> Gnubg:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclass(frozen=True)
class Decision:
    """One close cube decision of the expert: ``kind`` "double" (it was on roll, may
    double: ``action`` double / roll) or "take" (it was doubled: take / drop). The board
    is the doubler's (on roll) and the cube before the double."""

    kind: str
    action: str
    on_roll: Side
    opponent: Side
    cube: int
    owner: int
    game: int
    own: tuple[float, float, float] | None = None  # the expert's own (nd, dt, dp)


def decision_of(
    state: BackgammonState, action: str, game: int, engine: BgEngine | None = None
) -> Decision:
    """The decision ``action`` in ``state``; with ``engine``, its own cube equities too."""
    turn = state.turn
    owner = -1 if state.cube_owner is None else (0 if state.cube_owner == turn else 1)
    kind = "double" if state.phase == DECIDE else "take"
    own = engine.cube_analysis(state)[:3] if engine is not None else None
    return Decision(kind, action, state.board[turn], state.board[1 - turn], state.cube,
                    owner, game, own)  # fmt: skip


@dataclass
class Collector:
    """Takes bench/strength.py's ``Analyst`` place in its game loop: keeps the expert's
    close cube decisions instead of scoring them."""

    game: int
    engine: BgEngine
    own: bool = False  # keep the expert's own cube equities as well
    found: list[Decision] = field(default_factory=list)

    def score(self, state: BackgammonState, after: BackgammonState, move: Any, t: Any) -> None:
        if state.phase == DECIDE and move.action in ("double", "roll"):
            if move.action == "roll" and not self.engine.is_cube_decision(state):
                return
            self.found.append(decision_of(state, move.action, self.game, self._own()))
        elif state.phase == DOUBLED and not state.beavered and move.action in ("take", "drop"):
            self.found.append(decision_of(state, move.action, self.game, self._own()))

    def _own(self) -> BgEngine | None:
        return self.engine if self.own else None


_JUDGE: BgEngine | None = None


def _game(job: tuple[int, int, int, bool]) -> tuple[list[Decision], list[float]]:
    """One money game of the expert (seat ``seat``) against the reference: its close cube
    decisions and its move times (ms)."""
    from strength import MONEY, play_one

    global _JUDGE  # one quick engine per worker for the closeness filter
    if _JUDGE is None:
        _JUDGE = BgEngine("bg-expert", rng=random.Random(1))
    game, seat, seed, own = job
    c = Collector(game, _JUDGE, own)
    t = play_one("bg-expert", seat, dict(MONEY), seed, c)
    return c.found, t.times_ms


@dataclass
class Row:
    n: int = 0
    expert: list[float] = field(default_factory=list)
    gnubg0: list[float] = field(default_factory=list)
    expert_wrong: int = 0
    gnubg0_wrong: int = 0


def rate(losses: list[float]) -> float | None:
    return round(1000 * statistics.fmean(losses), 3) if losses else None


def margin_sweep(
    judged: list[tuple[Decision, Cube]], margins: list[float]
) -> dict[str, dict[str, Any]]:
    """The expert's cube error had it doubled when doubling beats playing on by each of
    ``margins`` (by its own equities; its takes and drops as played), judged as played."""
    out: dict[str, dict[str, Any]] = {}
    for m in margins:
        losses: list[float] = []
        doubles = early = changed = 0
        for d, j in judged:
            if d.kind != "double" or d.own is None:
                losses.append(j.taker_loss(d.action == "take") if d.kind == "take" else
                              j.doubler_loss(d.action == "double"))  # fmt: skip
                continue
            nd, dt, dp = d.own
            doubled = min(dt, dp) > nd + m
            changed += doubled != (d.action == "double")
            losses.append(j.doubler_loss(doubled))
            doubles += doubled
            early += doubled and j.before_doubling_point
        out[str(m)] = {"cube_error_x1000": rate(losses), "doubles": doubles,
                       "early": early, "wrong_double_share": round(early / doubles, 3)
                       if doubles else None, "changed": changed}  # fmt: skip
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=200, help="money games of the expert")
    ap.add_argument("--workers", type=int, default=2, help="processes playing the games")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--judge-plies", type=int, default=2, help="gnubg's depth as judge")
    ap.add_argument("--player-plies", type=int, default=0, help="gnubg's depth as player")
    ap.add_argument("--gnubg", default=None, help="the gnubg program (default: found)")
    ap.add_argument("--show", type=int, default=10, help="worst expert decisions to list")
    ap.add_argument(
        "--margins",
        default="",
        help="comma-separated double margins to replay the expert's doubling at "
        "(from its own equities, kept for each decision: slower)",
    )
    args = ap.parse_args()
    program = args.gnubg or gnubg_path()
    if program is None:
        sys.exit("gnubg is not installed (Debian: apt-get install gnubg)")
    started = time.time()
    margins = [float(m) for m in args.margins.split(",") if m]
    jobs = [(g, g % 2, args.seed + 1000 * g, bool(margins)) for g in range(args.games)]
    decisions: list[Decision] = []
    times: list[float] = []
    with ProcessPoolExecutor(max_workers=max(1, args.workers)) as pool:
        for found, ms in pool.map(_game, jobs):
            decisions += found
            times += ms
    played = time.time() - started
    judge, player = args.judge_plies, args.player_plies
    rows: dict[str, Row] = {}
    worst: list[tuple[float, Decision, Cube]] = []
    judged: list[tuple[Decision, Cube]] = []
    doubles = early = g0_doubles = g0_early = missed = g0_missed = 0
    wrong_takes = wrong_drops = 0
    with Gnubg(program) as gnubg:
        for d in decisions:
            verdict = gnubg.cube(d.on_roll, d.opponent, d.cube, d.owner, (player, judge))
            j, p = verdict[judge], verdict[player]
            if d.kind == "double":
                doubled = d.action == "double"
                loss = j.doubler_loss(doubled)
                g0 = j.doubler_loss(p.double_right)
                doubles += doubled
                early += doubled and j.before_doubling_point
                g0_doubles += p.double_right
                g0_early += p.double_right and j.before_doubling_point
                missed += (not doubled) and j.double_right
                g0_missed += (not p.double_right) and j.double_right
                key = "double" if doubled else "no double"
            else:
                took = d.action == "take"
                loss = j.taker_loss(took)
                g0 = j.taker_loss(p.take_right)
                wrong_takes += took and not j.take_right
                wrong_drops += (not took) and j.take_right
                key = d.action
            row = rows.setdefault(key, Row())
            row.n += 1
            row.expert.append(loss)
            row.gnubg0.append(g0)
            row.expert_wrong += loss > 0
            row.gnubg0_wrong += g0 > 0
            worst.append((loss, d, j))
            judged.append((d, j))
    took_s = time.time() - started
    print(f"{args.games} money games, expert (bgsage 2-ply) vs the same reference; judge: "
          f"gnubg {judge}-ply cubeful, player compared: gnubg {player}-ply")  # fmt: skip
    print(f"{'expert did':<10} {'n':>5} {'expert x1000':>13} {'gnubg0 x1000':>13} "
          f"{'expert wrong':>12} {'gnubg0 wrong':>12}")  # fmt: skip
    for key in ("double", "no double", "take", "drop"):
        r = rows.get(key, Row())
        print(f"{key:<10} {r.n:>5} {rate(r.expert)!s:>13} {rate(r.gnubg0)!s:>13} "
              f"{r.expert_wrong:>12} {r.gnubg0_wrong:>12}")  # fmt: skip
    worst.sort(key=lambda x: -x[0])
    for loss, d, j in worst[: args.show]:
        if loss <= 0:
            break
        print(
            f"  loss {1000 * loss:7.1f}  {d.kind:<6} {d.action:<6} "
            f"{encode_position(d.on_roll, d.opponent)} cube {d.cube} owner {d.owner}: "
            f"nd {j.nd:+.3f} dt {j.dt:+.3f} dp {j.dp:+.3f} ({j.words}) game {d.game}"
        )  # fmt: skip
    sweep = margin_sweep(judged, margins) if margins else None
    if sweep:
        print("the expert's doubles replayed at other margins (its own nd/dt/dp, same judge):")
        for m, figures in sweep.items():
            print(f"  margin {m}: " + ", ".join(f"{k} {v}" for k, v in figures.items()))
    expert_all = [x for r in rows.values() for x in r.expert]
    gnubg0_all = [x for r in rows.values() for x in r.gnubg0]
    e, g = rate(expert_all), rate(gnubg0_all)
    out: dict[str, Any] = {
        "games": args.games,
        "decisions": len(decisions),
        "expert_cube_error_x1000": e,
        "gnubg0_cube_error_x1000": g,
        "ratio": round(e / g, 3) if e is not None and g else None,
        "wrong_double_share": round(early / doubles, 3) if doubles else None,
        "expert_doubles": doubles,
        "expert_early_doubles": early,
        "expert_missed_doubles": missed,
        "expert_wrong_takes": wrong_takes,
        "expert_wrong_drops": wrong_drops,
        "gnubg0_wrong_double_share": round(g0_early / g0_doubles, 3) if g0_doubles else None,
        "gnubg0_doubles": g0_doubles,
        "gnubg0_missed_doubles": g0_missed,
        "by_type": {k: {"n": r.n, "expert_x1000": rate(r.expert),
                        "gnubg0_x1000": rate(r.gnubg0), "expert_wrong": r.expert_wrong,
                        "gnubg0_wrong": r.gnubg0_wrong} for k, r in rows.items()},
        "margin_sweep": sweep,
        "judge_plies": judge,
        "player_plies": player,
        "expert_move_ms_p95": round(sorted(times)[int(0.95 * (len(times) - 1))], 1)
        if times else None,
        "seconds_games": round(played, 1),
        "seconds": round(took_s, 1),
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }  # fmt: skip
    print(json.dumps(out, sort_keys=True))


if __name__ == "__main__":
    main()
