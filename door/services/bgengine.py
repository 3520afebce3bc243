"""Backgammon decisions for the bots, hints and reviews: bgsage where present, else pubeval.

This is the only module that imports ``bgsage`` (the Open Sage engine, MPL-2.0, shipped as
x86-64 wheels). It is imported lazily by :func:`load_bgsage`; where it is missing (ARM
boards) every level falls back to the pure-Python evaluator and cube policy in
:mod:`door.games.backgammon.pubeval`. Tests simulate the absence by monkeypatching
:func:`load_bgsage` to return ``None``.

Everything here is synchronous and CPU-bound: callers run it off the event loop
(``asyncio.to_thread``; bgsage releases the GIL while it thinks). A :class:`BgEngine` is
safe to share between threads.

Moves are always chosen from the rules' own legal plays (``BackgammonRules.plays``): bgsage
only ranks the positions they lead to, so a bot can never play an illegal move even if the
two move generators disagreed.
"""

from __future__ import annotations

import importlib
import random
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from door.games.backgammon import pubeval
from door.games.backgammon.moves import (
    ACCEPT,
    BEAVER,
    DOUBLE,
    DROP,
    REJECT,
    ROLL,
    TAKE,
    BgMove,
    resign,
)
from door.games.backgammon.position import (
    DECIDE,
    DOUBLED,
    MOVING,
    RESIGNING,
    BackgammonState,
)
from door.games.backgammon.rules import BackgammonRules
from door.games.replay import LoggedEvent, replay


@dataclass(frozen=True)
class BgLevel:
    """One backgammon computer level: how it plays and how strong it was measured.

    ``ply`` and ``noise`` weaken it by principle, not by random blunders: ``ply`` is
    bgsage's search depth, ``noise`` the standard deviation (in equity) of a Gaussian
    error added to every candidate's evaluation, so a weaker level misjudges close plays
    often and clear ones seldom. ``error_bgsage`` / ``error_fallback`` are the error rates
    (equity lost per decision x 1000, as bench/strength.py measures them against bgsage
    2-ply) with and without bgsage; ``None`` where not measured yet. ``rating`` is the
    starting rating its account should carry (FIBS-style, from the error rate).
    """

    name: str
    word: str
    feel: str
    ply: str
    noise: float
    fallback_noise: float
    rating: float
    error_bgsage: float | None
    error_fallback: float | None


BG_LEVEL_TABLE: tuple[BgLevel, ...] = (
    BgLevel("bg-beginner", "Beginner", "plays by feel, often misjudges", "1ply", 0.10, 0.065,
            1250.0, 34.0, 33.0),
    BgLevel("bg-casual", "Casual", "knows the basics, slips often", "1ply", 0.05,
            0.028, 1450.0, 17.0, 17.0),
    BgLevel("bg-club", "Club", "a solid club player", "1ply", 0.03, 0.014, 1650.0, 8.9, 15.0),
    BgLevel("bg-strong", "Strong", "a strong program, one roll deep", "1ply",
            0.010, 0.0, 1850.0, 3.8, 12.9),
    BgLevel("bg-expert", "Expert", "looks two rolls ahead", "2ply", 0.0,
            0.0, 2000.0, 1.9, 12.9),
)  # fmt: skip
"""The backgammon levels, weakest first. Error figures: bench/strength.py, 24 money games
per level against the expert (load average 6.3 on 2 cores); the expert's own 1.9 is gnubg
2-ply's analysis (issue 22), since bgsage 2-ply cannot judge its own plays. The fallback's
figures (no bgsage: the network of :mod:`door.games.backgammon.pubeval`, one evaluation
per play) are the same bench against the same reference: 12.9 over 200 games of its
noiseless setting (strong and expert alike), and 80 games each of the noisier three
(load average 2.5-3 on 2 cores; move time p95 under 7 ms), whose noise falls on their
win chances, cube decisions included (``_noisy_probs``). The fallback cannot play as
well as bgsage's club (its best is 12.9), so its club is just below its strong."""

MONEY_DOUBLE_MARGIN = 0.03
"""How much better (in equity per cube) doubling must look than playing on before the
expert (the deep search) doubles in money play. Measured by bench/strength.py, 100 money
games against the same 2-ply reference with the same seeds (load average ≈2): without a
margin 19 of its 65 doubles came before the doubling point (wrong_double_share 0.29,
cube error 2.17 x 1000); with 0.03, 6 of 54 (0.11, cube error 1.0), its error 0.27 → 0.17."""

LEVEL_ALIASES: dict[str, str] = {"bg-intermediate": "bg-strong"}
"""Retired level names and the level that now plays their seats: ``bg-intermediate``
(bgsage 1-ply, measured 3.6 x 1000) is as strong as ``bg-strong``."""

BG_LEVELS: tuple[tuple[str, str], ...] = tuple(
    (lv.name, f"{lv.word}: {lv.feel}") for lv in BG_LEVEL_TABLE
)
"""Backgammon bot levels, weakest first: (level name, plain description);
:func:`bg_levels` gives the descriptions with the strength measured on this machine."""

_LEVELS_BY_NAME = {lv.name: lv for lv in BG_LEVEL_TABLE}


def bg_level(name: str) -> BgLevel:
    """The level called ``name`` (a retired name gives the level that replaced it)."""
    key = name.lower()
    lv = _LEVELS_BY_NAME.get(LEVEL_ALIASES.get(key, key))
    if lv is None:
        known = ", ".join(n for n, _ in BG_LEVELS)
        raise ValueError(f"unknown backgammon level {name!r} (known: {known})")
    return lv


def describe(lv: BgLevel, *, bgsage: bool) -> str:
    """A level's description with the strength it has on a machine with (or without)
    bgsage: its measured error rate, or that it was not measured."""
    err = lv.error_bgsage if bgsage else lv.error_fallback
    # Short: each description must fit one 80-column line of the Begin screen; it names
    # the engine that plays (bgsage, or door's own network where bgsage is missing).
    engine = ", bgsage" if bgsage else ", no bgsage"
    figure = f"~{err:.0f} errors/1000" if err is not None else "unmeasured"
    if err is not None and err < 2.5:
        figure = f"~{err:.1f} errors/1000"
    feel = lv.feel
    if not bgsage and lv.ply != "1ply":
        feel = "plays as Strong here"  # the fallback has no deeper search
    return f"{lv.word}: {feel} ({figure}{engine})"


def strength_tag(name: str) -> str:
    """A short mark of a computer account's measured strength for lists, e.g. ``"~9"``
    (errors per 1000 decisions) for ``bg-club``; ``""`` for any other name or where the
    level was not measured with this machine's engine."""
    key = name.lower()
    lv = _LEVELS_BY_NAME.get(LEVEL_ALIASES.get(key, key))
    if lv is None:
        return ""
    err = lv.error_bgsage if has_bgsage() else lv.error_fallback
    if err is None:
        return ""
    return f"~{err:.1f}" if err < 2.5 else f"~{err:.0f}"


def bg_levels() -> list[tuple[str, str]]:
    """The backgammon levels with descriptions of how they play on this machine."""
    with_bgsage = has_bgsage()
    return [(lv.name, describe(lv, bgsage=with_bgsage)) for lv in BG_LEVEL_TABLE]


# Below this cubeless winning chance no double can be right (money or match, except for
# the trailer against a 1-away opponent, which is handled apart).
_NO_DOUBLE_BELOW = 0.58
# How many of the cubeless search's best plays the expert re-scores cube-aware.
_CUBEFUL_TOP = 3
# A chance below this is no chance: a game this settled is resigned.
_SETTLED = 1e-4
# Positions in which an engine remembers having offered to resign (one offer each).
_OFFERS_KEPT = 256


def load_bgsage() -> Any | None:
    """The ``bgsage`` module, or ``None`` where it is not installed or will not load."""
    try:
        return importlib.import_module("bgsage")
    except Exception:  # ImportError, or a wheel for another CPU failing to load
        return None


def has_bgsage() -> bool:
    """True when bgsage can be used on this machine."""
    return load_bgsage() is not None


@dataclass(frozen=True)
class CubeView:
    """The cube and score from the view of the seat on roll, in both engines' terms."""

    cube: int
    owner: str  # "centered", "player" (the seat on roll) or "opponent"
    away1: int  # points the seat on roll needs (0 in money play)
    away2: int
    crawford: bool
    jacoby: bool
    beavers: bool

    def for_pubeval(self, *, flipped: bool = False) -> pubeval.CubeState:
        """The same as a :class:`pubeval.CubeState`, for the seat on roll or (``flipped``)
        for his opponent."""
        owned: bool | None = None
        if self.owner != "centered":
            owned = (self.owner == "player") != flipped
        away, opp_away = (self.away2, self.away1) if flipped else (self.away1, self.away2)
        gammons = not (self.jacoby and self.owner == "centered" and self.away1 == 0)
        return pubeval.CubeState(self.cube, owned, away, opp_away, self.crawford, gammons)


def cube_view(state: BackgammonState) -> CubeView:
    """The cube and score as the seat on roll (``state.turn``) sees them."""
    turn = state.turn
    if state.cube_owner is None:
        owner = "centered"
    else:
        owner = "player" if state.cube_owner == turn else "opponent"
    if state.is_money:
        away1 = away2 = 0
    else:
        away1 = state.match_length - state.score[turn]
        away2 = state.match_length - state.score[1 - turn]
    return CubeView(
        cube=state.cube,
        owner=owner,
        away1=away1,
        away2=away2,
        crawford=state.crawford_game,
        jacoby=state.options.jacoby,
        beavers=state.options.beavers,
    )


def board_of(state: BackgammonState, seat: int) -> list[int]:
    """The engine board (see :mod:`pubeval`) from ``seat``'s view."""
    return pubeval.engine_board(state.board[seat], state.board[1 - seat])


@dataclass(frozen=True)
class RankedPlay:
    """A checker play with its equity for the mover (cubeful where bgsage is used)."""

    move: BgMove
    equity: float


class AnalyzerPool:
    """bgsage analyzers by (depth, cubeful), built on first use and shared by the levels.

    Each one holds its own copy of the networks and the bearoff database (30-40 MB), so
    the three levels share two: 1-ply cubeful and 2-ply cubeless. Thread-safe.
    """

    def __init__(self, module: Any, threads: int = 0) -> None:
        self._module = module
        self._threads = threads
        self._made: dict[tuple[str, bool], Any] = {}
        self._lock = threading.Lock()

    def get(self, ply: str, *, cubeful: bool) -> Any:
        with self._lock:
            key = (ply, cubeful)
            if key not in self._made:
                self._made[key] = self._module.BgBotAnalyzer(
                    eval_level=ply, cubeful=cubeful, parallel_threads=self._threads
                )
            return self._made[key]


def analyzer_pool(threads: int = 0) -> AnalyzerPool | None:
    """A pool to share between :class:`BgEngine` instances; ``None`` without bgsage."""
    module = load_bgsage()
    return AnalyzerPool(module, threads) if module is not None else None


class BgEngine:
    """Backgammon decisions at one level.

    ``engine`` is ``"bgsage"`` or ``"pubeval"``: the one actually in use (bgsage is chosen
    when it loads, unless ``use_bgsage=False``). Engines of several levels should share
    one :class:`AnalyzerPool` (``analyzers``) to load bgsage's networks once.
    """

    def __init__(
        self,
        level: str = "bg-expert",
        *,
        use_bgsage: bool | None = None,
        rng: random.Random | None = None,
        threads: int = 0,
        analyzers: AnalyzerPool | None = None,
        weights: pubeval.Weights | None = None,
    ) -> None:
        spec = bg_level(level)
        self.weights = weights if weights is not None else pubeval.shipped_weights()
        """The fallback's networks (``pubeval``): engines of several levels should share
        one (:class:`door.services.bots.Bots` reads the file once for all of them)."""
        self.level = spec.name
        self.spec = spec
        self.rules = BackgammonRules()
        self.rng = rng if rng is not None else random.Random()
        self._rng_lock = threading.Lock()
        self._offered: OrderedDict[tuple[object, ...], None] = OrderedDict()
        module = load_bgsage() if use_bgsage is not False else None
        self.engine = "bgsage" if module is not None else "pubeval"
        self._analyzer: Any = None
        self._play_analyzer: Any = None
        self._quick: Any = None
        self._cpp: Any = None
        self._deep = False
        if module is not None:
            # bgsage's compiled core, shipped in the same wheel (cube arithmetic).
            self._cpp = importlib.import_module("bgbot_cpp")
            pool = analyzers if analyzers is not None else AnalyzerPool(module, threads)
            ply = spec.ply
            # One network evaluation for quick estimates (post-move analyses ignore the
            # analyzer's cubeful flag, so the 1-ply cubeful analyzer serves).
            self._quick = pool.get("1ply", cubeful=True)
            if ply == "1ply":
                self._play_analyzer = self._analyzer = self._quick
            else:
                # Deeper than 1-ply, bgsage's cubeful checker play re-searches every
                # candidate cube-aware (over a second for a 4-4 with 200 plays); the
                # cubeless search narrows to the best few at 1-ply first, and those are
                # then re-scored cube-aware (see ``_cubeful_top``). Post-move analyses
                # of the same analyzer give cubeful equities.
                self._deep = True
                self._play_analyzer = self._analyzer = pool.get(ply, cubeful=False)
        self.noise = spec.noise if module is not None else spec.fallback_noise

    # --- the decision for the seat to act -------------------------------------------------

    def choose(self, state: BackgammonState) -> BgMove:
        """The move this level makes for the seat to act. ``ValueError`` if nobody acts.

        In a settled game (see :meth:`settled_loss`) the seat on roll first offers to
        resign what it is sure to lose; offered once per position, so an opponent who
        rejects gets the turn back and the bot plays on."""
        phase = state.phase
        if phase in (DECIDE, MOVING):
            level = self.settled_loss(state)
            if level and self._first_offer(state):
                return resign(level)
        if phase == MOVING:
            ranked = self.rank_plays(state, noisy=True)
            if ranked:
                return ranked[0].move
        legal = list(self.rules.legal_moves(state))
        if not legal:
            raise ValueError("nobody is to act in this position")
        if phase == DECIDE:
            if DOUBLE in legal and self._wants_double(state):
                return DOUBLE
            return ROLL
        if phase == DOUBLED and state.beavered:
            # The doubler answers a beaver: play on for twice the (already doubled)
            # cube, which the beaverer keeps, or give up the doubled cube now.
            return TAKE if self.beaver_take_worth(state) > -1.0 else DROP
        if phase == DOUBLED:
            take, beaver = self._take_decision(state)
            if beaver and BEAVER in legal:
                return BEAVER
            return TAKE if take else DROP
        if phase == RESIGNING:
            return ACCEPT if self._accepts_resignation(state) else REJECT
        return legal[0]

    def _first_offer(self, state: BackgammonState) -> bool:
        """True the first time this engine offers to resign in this exact position."""
        key = (state.board, state.turn, state.dice, state.score, state.cube, state.phase)
        with self._rng_lock:
            if key in self._offered:
                return False
            self._offered[key] = None
            while len(self._offered) > _OFFERS_KEPT:
                self._offered.popitem(last=False)
            return True

    def settled_loss(self, state: BackgammonState) -> int:
        """How much the seat on roll is sure to lose, when that is settled: 1 (single),
        2 (gammon), 3 (backgammon); 0 while anything is still in doubt.

        Only a race (no contact left) counts, where bgsage's bearoff database and race
        net are near exact; the thresholds leave no practical chance either way. The
        fallback (no bgsage) resigns only what exact bounds on the turns left make sure
        (:func:`pubeval.settled_race_loss`): its network's odds are rougher."""
        if self._analyzer is None or self._cpp is None:
            return pubeval.settled_race_loss(board_of(state, state.turn))
        board = board_of(state, state.turn)
        if not self._cpp.is_race(board):
            return 0
        r = self._quick.post_move_analytics(board_of(state, 1 - state.turn))
        p = r.probs.to_list()  # the opponent's view: win, wing, winbg, loseg, losebg
        # Before the roll the chance must be none for the roll to come; with the dice
        # rolled, none for any one roll (the pre-roll chance spread over 36 rolls).
        none = _SETTLED if state.phase == DECIDE else _SETTLED / 36
        sure = 1.0 - none
        if p[0] < sure:
            return 0
        if p[2] >= sure:
            return 3
        if p[1] >= sure and p[2] <= none:
            return 2
        if p[1] <= none:
            return 1
        return 0

    # --- checker play -------------------------------------------------------------------

    def rank_plays(
        self,
        state: BackgammonState,
        *,
        noisy: bool = False,
        also: BackgammonState | None = None,
    ) -> list[RankedPlay]:
        """Every legal checker play with its equity, best first (empty outside the moving
        phase; one empty play when the roll cannot be played). ``noisy`` applies the
        level's noise (what the bot plays; hints and reviews use the plain ranking).

        Deeper than 1-ply only the most promising plays are searched in full; ``also`` (the
        state after a play actually made, for reviews) has its play searched in full too,
        so it is compared with the best on the same footing."""
        if state.phase != MOVING or state.dice is None:
            return []
        plays = self.rules.plays(state)
        if not plays:
            return [RankedPlay(BgMove("play"), 0.0)]
        boards = [pubeval.engine_board(me, opp) for _, me, opp in plays]
        if len(plays) == 1:
            # A forced play: the bot need not think; hints still show what it is worth.
            equity = 0.0 if noisy else self._static_equity(state, boards[0])
            return [RankedPlay(BgMove("play", plays[0][0]), equity)]
        if self._analyzer is not None:
            force = None
            if also is not None:
                force = [board_of(also, state.turn)]
            equities = self._bgsage_equities(state, boards, force)
        else:
            cv = cube_view(state).for_pubeval()
            equities = [
                pubeval.cubeless_equity(pubeval.probabilities(b, self.weights), cv.gammons)
                for b in boards
            ]
        shown = list(equities)
        if noisy and self.noise:
            with self._rng_lock:
                shown = [e + self.rng.gauss(0.0, self.noise) for e in equities]
        order = sorted(range(len(plays)), key=lambda i: -shown[i])
        return [RankedPlay(BgMove("play", plays[i][0]), equities[i]) for i in order]

    def _static_equity(self, state: BackgammonState, board: list[int]) -> float:
        if self._analyzer is not None:
            cv = cube_view(state)
            r = self._analyzer.post_move_analytics(
                board,
                cube_owner=cv.owner,
                cube_value=cv.cube,
                away1=cv.away1,
                away2=cv.away2,
                is_crawford=cv.crawford,
                jacoby=cv.jacoby,
            )
            return float(r.cubeful_equity)
        return pubeval.cubeless_equity(pubeval.probabilities(board, self.weights))

    def _bgsage_equities(
        self,
        state: BackgammonState,
        boards: list[list[int]],
        force: list[list[int]] | None = None,
    ) -> list[float]:
        assert state.dice is not None
        cv = cube_view(state)
        result = self._play_analyzer.checker_play(
            board_of(state, state.turn),
            state.dice[0],
            state.dice[1],
            cube_value=cv.cube,
            cube_owner=cv.owner,
            away1=cv.away1,
            away2=cv.away2,
            is_crawford=cv.crawford,
            jacoby=cv.jacoby,
            beaver=cv.beavers,
            force_boards=force,
        )
        found = {tuple(m.board): float(m.equity) for m in result.moves}
        if self._deep and found:
            found = self._cubeful_top(state, result.moves, found, force, self._match_top(state))
        worst = min(found.values(), default=0.0)
        out = []
        for b in boards:
            eq = found.get(tuple(b))
            if eq is None:
                # The engines disagree about this play (should not happen): rank it
                # below everything bgsage knows rather than guess.
                eq = pubeval.cubeless_equity(pubeval.probabilities(b, self.weights))
                eq = worst - 1.0 + eq / 10.0
            out.append(eq)
        return out

    def _match_top(self, state: BackgammonState) -> list[tuple[int, ...]] | None:
        """At a match score, the two best plays of the match-aware 1-ply search (bgsage's
        cubeless 2-ply search ignores the score); ``None`` in money play."""
        cv = cube_view(state)
        if not cv.away1 or state.dice is None:
            return None
        result = self._quick.checker_play(
            board_of(state, state.turn),
            state.dice[0],
            state.dice[1],
            cube_value=cv.cube,
            cube_owner=cv.owner,
            away1=cv.away1,
            away2=cv.away2,
            is_crawford=cv.crawford,
            jacoby=False,
            beaver=False,
        )
        return [tuple(m.board) for m in result.moves[:2]]

    def _cubeful_top(
        self,
        state: BackgammonState,
        moves: list[Any],
        found: dict[tuple[int, ...], float],
        force: list[list[int]] | None,
        match_top: list[tuple[int, ...]] | None = None,
    ) -> dict[tuple[int, ...], float]:
        """Re-score the best few plays of a cubeless search cube- and score-aware.

        The cubeless search values plays in money-game terms; in a match (or with the cube
        turned) the right play can differ, e.g. gammons count for nothing at double match
        point. Searching every play cubefully costs seconds, so only the top
        ``_CUBEFUL_TOP`` (and any forced board) are; the others are moved onto the same
        scale by the mean difference, which keeps them below the re-scored ones.
        """
        cv = cube_view(state)
        ranked = [tuple(m.board) for m in moves]
        if match_top:
            # At a match score: the cubeless search's best two and the match-aware
            # 1-ply's best two (what the score favours), then the cubeless order.
            picked = list(dict.fromkeys([*ranked[:2], *(b for b in match_top if b in found)]))
            for key in ranked:
                if len(picked) >= _CUBEFUL_TOP:
                    break
                if key not in picked:
                    picked.append(key)
        else:
            picked = ranked[:_CUBEFUL_TOP]
        for b in force or ():
            if tuple(b) in found and tuple(b) not in picked:
                picked.append(tuple(b))
        rescored: dict[tuple[int, ...], float] = {}
        for key in picked:
            r = self._analyzer.post_move_analytics(
                list(key),
                cube_owner=cv.owner,
                cube_value=cv.cube,
                away1=cv.away1,
                away2=cv.away2,
                is_crawford=cv.crawford,
                jacoby=cv.jacoby,
            )
            rescored[key] = float(r.cubeful_equity)
        shift = sum(rescored[k] - found[k] for k in rescored) / len(rescored)
        floor = min(rescored.values())
        out = {}
        for key, eq in found.items():
            if key in rescored:
                out[key] = rescored[key]
            else:
                out[key] = min(eq + shift, floor - 1e-6)
        return out

    # --- the cube and resignations --------------------------------------------------------

    def cube_analysis(self, state: BackgammonState) -> tuple[float, float, float, bool, bool]:
        """For the seat on roll before rolling: (no double, double/take, double/pass)
        equities, whether he should double and whether the opponent should take.

        Equities are per unit of the current cube, from the seat on roll's view.
        """
        cv = cube_view(state)
        board = board_of(state, state.turn)
        if self._analyzer is not None:
            d = self._bgsage_cube(state)
            nd, dt, dp = float(d.equity_nd), float(d.equity_dt), float(d.equity_dp)
            if not self._deep:
                return nd, dt, dp, bool(d.should_double), bool(d.should_take)
            # The decisions follow from the equities themselves: bgsage's own
            # ``should_double`` says double in a post-Crawford game where the trailer's
            # near-sure gammon (the match) is worth more than the leader's drop to double
            # match point (nd 3.0, dp 1.0). In money play it doubles only by a margin
            # (:data:`MONEY_DOUBLE_MARGIN`): a 2-ply search's double that wins by less is
            # more often before the doubling point than after it.
            margin = MONEY_DOUBLE_MARGIN if state.is_money else 1e-9
            return nd, dt, dp, min(dt, dp) > nd + margin, dt <= dp
        p = pubeval.pre_roll_probabilities(board, self.weights)
        mine = cv.for_pubeval()
        theirs = cv.for_pubeval(flipped=True)
        nd = pubeval.cubeless_equity(p, mine.gammons)
        dt = 2.0 * pubeval.cubeless_equity(p, True)
        return (
            nd,
            dt,
            1.0,
            pubeval.should_double(p, mine),
            pubeval.should_take(pubeval.invert(p), theirs),
        )

    def _pre_roll_probs(self, state: BackgammonState) -> list[float]:
        """bgsage's cubeless probabilities for the seat on roll before he rolls, at this
        level's depth: the opponent has just moved, so evaluate his view and invert."""
        cv = cube_view(state)
        opp_owner = {"centered": "centered", "player": "opponent", "opponent": "player"}
        analyzer = self._play_analyzer if self._play_analyzer is not None else self._quick
        r = analyzer.post_move_analytics(
            board_of(state, 1 - state.turn),
            cube_owner=opp_owner[cv.owner],
            cube_value=cv.cube,
            away1=cv.away2,
            away2=cv.away1,
            is_crawford=cv.crawford,
            jacoby=cv.jacoby,
        )
        p = r.probs.to_list()
        return [1.0 - p[0], p[3], p[4], p[1], p[2]]

    def _bgsage_cube(self, state: BackgammonState) -> Any:
        """bgsage's cubeful cube decision for the seat on roll, at this level's depth: an
        object with ``equity_nd``, ``equity_dt``, ``equity_dp``, ``should_double``,
        ``should_take``.

        ``BgBotAnalyzer.cube_action`` evaluates the position cubefully at the analyzer's
        depth (at a match score through bgsage's match-equity table, Crawford included),
        where the old Janowski estimate from cubeless probabilities doubled too early
        (issue 22: 32 of 123 expert doubles before the doubling point). The 1-ply levels
        keep that cheaper estimate (a few ms against 40 ms): their noise costs far more.
        """
        cv = cube_view(state)
        if not self._deep:
            return self._janowski_cube(state)
        return self._analyzer.cube_action(
            board_of(state, state.turn),
            cube_value=cv.cube,
            cube_owner=cv.owner,
            away1=cv.away1,
            away2=cv.away2,
            is_crawford=cv.crawford,
            jacoby=cv.jacoby and cv.away1 == 0,
            beaver=cv.beavers and cv.away1 == 0,
        )

    def _janowski_cube(self, state: BackgammonState) -> Any:
        """bgsage's Janowski cube estimate from the pre-roll probabilities at this level's
        depth (the same fields as :meth:`_bgsage_cube`)."""
        cpp = self._cpp
        cv = cube_view(state)
        board = board_of(state, state.turn)
        probs = self._pre_roll_probs(state)
        pp, op = cpp.pip_counts(board)
        x = cpp.cube_efficiency(probs, cpp.is_race(board), pp, op)
        owner = {
            "centered": cpp.CubeOwner.CENTERED,
            "player": cpp.CubeOwner.PLAYER,
            "opponent": cpp.CubeOwner.OPPONENT,
        }[cv.owner]
        jacoby = cv.jacoby and cv.away1 == 0
        return cpp.cube_decision_1ply(
            probs, cv.cube, owner, x, cv.away1, cv.away2, cv.crawford, jacoby
        )

    def _noisy(self, values: tuple[float, ...]) -> tuple[float, ...]:
        """``values`` with this level's evaluation noise (unchanged without noise)."""
        if not self.noise:
            return values
        with self._rng_lock:
            return tuple(v + self.rng.gauss(0.0, self.noise) for v in values)

    def _noisy_probs(self, p: pubeval.Probs) -> pubeval.Probs:
        """The fallback's probabilities with this level's noise on the win chance (half
        the equity noise: equity moves about twice as fast as the win chance), the
        gammon chances kept in proportion."""
        (w,) = self._noisy((p[0],))
        w = min(1.0, max(0.0, p[0] + (w - p[0]) / 2.0))
        win_scale = w / p[0] if p[0] > 0 else 0.0
        loss_scale = (1.0 - w) / (1.0 - p[0]) if p[0] < 1 else 0.0
        return (w, p[1] * win_scale, p[2] * win_scale, p[3] * loss_scale, p[4] * loss_scale)

    def _wants_double(self, state: BackgammonState) -> bool:
        if not self.is_cube_decision(state):
            return False
        if self._analyzer is None and self.noise:
            # The fallback's (nd, dt, dp) are rough (dt is twice the cubeless equity), so
            # noise on them makes it double whenever it is ahead: a weaker level misjudges
            # its chances instead, and its cube rule decides from those.
            p = pubeval.pre_roll_probabilities(board_of(state, state.turn), self.weights)
            return pubeval.should_double(self._noisy_probs(p), cube_view(state).for_pubeval())
        nd, dt, dp, double, _ = self.cube_analysis(state)
        if not self.noise:
            return double
        # A weaker level misjudges the cube as it misjudges plays: by its noise.
        nd, dt, dp = self._noisy((nd, dt, dp))
        return min(dt, dp) > nd

    def is_cube_decision(self, state: BackgammonState) -> bool:
        """Is doubling worth thinking about for the seat on roll (in the deciding phase)?

        False far from any doubling window, so the full cube search (50-150 ms with
        bgsage, and the question comes up before nearly every roll) is skipped.
        """
        if state.phase != DECIDE or DOUBLE not in self.rules.legal_moves(state):
            return False
        if cube_view(state).away2 == 1:
            return True  # the trailer against a 1-away opponent doubles at once
        if self._analyzer is not None:
            win = self._quick_win_chance(state)
        else:
            win = pubeval.pre_roll_probabilities(board_of(state, state.turn), self.weights)[0]
        return win >= _NO_DOUBLE_BELOW

    def _quick_win_chance(self, state: BackgammonState) -> float:
        """The seat on roll's cubeless chance of winning, from one network evaluation:
        the position is the opponent's just after his move, so evaluate that and invert."""
        opp_view = board_of(state, 1 - state.turn)
        r = self._quick.post_move_analytics(opp_view)
        return 1.0 - float(r.probs.win)

    def beaver_take_worth(self, state: BackgammonState) -> float:
        """What taking a beaver is worth to the doubler (on roll), per unit of the current
        (beavered) cube: twice his no-double equity with the beaverer owning the cube;
        dropping is worth -1."""
        return 2.0 * self.cube_analysis(state)[0]

    def _take_decision(self, state: BackgammonState) -> tuple[bool, bool]:
        """(take?, beaver?) for the doubled seat (the doubler is ``state.turn``)."""
        cv = cube_view(state)
        board = board_of(state, state.turn)
        if self._analyzer is not None:
            d = self._bgsage_cube(state)
            take = bool(d.should_take)
            if self._deep:
                take = float(d.equity_dt) <= float(d.equity_dp)
            if self.noise:
                dt, dp = self._noisy((float(d.equity_dt), float(d.equity_dp)))
                take = dt <= dp
            # A beaver is right when the taker is the favourite after taking.
            return take, take and cv.beavers and float(d.equity_dt) < 0.0
        p = pubeval.invert(pubeval.pre_roll_probabilities(board, self.weights))
        if self.noise:
            p = self._noisy_probs(p)  # a weaker level misjudges the take as the double
        cs = cv.for_pubeval(flipped=True)
        take = pubeval.should_take(p, cs)
        return take, take and pubeval.should_beaver(p, cs)

    def _accepts_resignation(self, state: BackgammonState) -> bool:
        """Should the seat facing a resignation offer accept it?"""
        resigner = state.resigner if state.resigner is not None else state.turn
        me = 1 - resigner
        level = state.resign_level
        cv = cube_view(state)
        on_roll_is_me = state.turn == me
        my_away = cv.away1 if on_roll_is_me else cv.away2
        if my_away and level * state.cube >= my_away:
            return True  # it wins the match
        board = board_of(state, state.turn)
        if self._analyzer is not None:
            probs = self._pre_roll_probs(state)
            p5 = (probs[0], probs[1], probs[2], probs[3], probs[4])
            if not on_roll_is_me:
                p5 = pubeval.invert(p5)
            # Playing on is worth about the cubeless equity (gammons included): accept
            # when the offer gives at least that.
            return level >= pubeval.cubeless_equity(p5, True) - 1e-6
        p = pubeval.pre_roll_probabilities(board, self.weights)
        if not on_roll_is_me:
            p = pubeval.invert(p)
        return pubeval.should_accept_resignation(
            p, level, cv.for_pubeval(flipped=not on_roll_is_me)
        )

    # --- hints --------------------------------------------------------------------------

    def hint(self, state: BackgammonState, n: int = 3) -> list[tuple[str, str]]:
        """The best ``n`` actions for the seat to act: (move text, equity such as
        ``"+0.123"``); for a checker play the equity after it, for the cube the equity of
        each choice."""
        phase = state.phase
        if phase == MOVING:
            ranked = self.rank_plays(state)
            return [
                (self.rules.format_move(state, r.move), f"{r.equity:+.3f}") for r in ranked[:n]
            ]
        if phase == DECIDE:
            nd, dt, dp, double, _ = self.cube_analysis(state)
            rows = [("roll", nd)]
            if DOUBLE in self.rules.legal_moves(state):
                rows.append(("double", min(dt, dp)))
            rows.sort(key=lambda r: -r[1])
            if double != (rows[0][0] == "double"):
                rows.reverse()  # the first row is what this engine would do
            return [(m, f"{e:+.3f}") for m, e in rows[:n]]
        if phase == DOUBLED and state.beavered:
            worth = self.beaver_take_worth(state)
            rows3 = sorted([("take", worth), ("drop", -1.0)], key=lambda r: -r[1])
            return [(m, f"{e:+.3f}") for m, e in rows3[:n]]
        if phase == DOUBLED:
            nd, dt, dp, _, take = self.cube_analysis(state)
            # The doubled seat's view: taking is worth -dt, dropping -dp.
            rows2 = [("take", -dt), ("drop", -dp)]
            rows2.sort(key=lambda r: -r[1])
            if take != (rows2[0][0] == "take"):
                rows2.reverse()
            return [(m, f"{e:+.3f}") for m, e in rows2[:n]]
        if phase == RESIGNING:
            word = "accept" if self._accepts_resignation(state) else "reject"
            other = "reject" if word == "accept" else "accept"
            return [(word, ""), (other, "")][:n]
        return []


# --- review -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Mistake:
    """One decision a player got wrong, as the engine sees it."""

    seat: int
    move_number: int  # the seat's own move count in the game, from 1
    dice: tuple[int, int] | None
    played: str
    best: str
    loss: float  # equity given away (per unit cube), > 0


@dataclass(frozen=True)
class PlayerReview:
    """How one seat played: ``error_rate`` is the mean equity lost per decision, in
    thousandths (gnubg's "mEMG per move"), over checker plays with a choice and cube
    decisions; ``mistakes`` the biggest errors, worst first."""

    seat: int
    decisions: int
    total_loss: float
    error_rate: float
    rating: str
    mistakes: tuple[Mistake, ...]


@dataclass(frozen=True)
class GameReview:
    """The review of one finished backgammon game (or match): one entry per seat."""

    engine: str
    players: tuple[PlayerReview, ...]


_RATING_SCALE = (
    (2.0, "Supernatural"),
    (5.0, "World class"),
    (8.0, "Expert"),
    (12.0, "Advanced"),
    (18.0, "Intermediate"),
    (26.0, "Casual player"),
    (35.0, "Beginner"),
)


def rating_for(error_rate: float) -> str:
    """gnubg's words for an error rate in thousandths per decision."""
    for limit, word in _RATING_SCALE:
        if error_rate < limit:
            return word
    return "Awful"


def review_log(
    engine: BgEngine,
    options: Mapping[str, Any],
    events: Iterable[LoggedEvent],
    *,
    worst: int = 5,
) -> GameReview:
    """Review a backgammon log: ``events`` as the game service stores them (``kind``,
    ``seat``, ``payload``; see :mod:`door.games.replay`). Every checker play with a choice
    and every cube decision is scored against the engine's best (see ``_SCORERS``).

    :class:`~door.games.replay.ReplayError` (a ``ValueError``) if the log does not replay.
    """
    rules = engine.rules
    losses: dict[int, list[float]] = {0: [], 1: []}
    mistakes: list[Mistake] = []
    plays = {0: 0, 1: 0}  # each seat's checker plays so far
    for step in replay(rules, rules.new_game(2, options), events):
        seat, move, before = step.event.seat, step.move, step.before
        if seat is None or move is None:
            continue  # chance and system events are nobody's decision
        key = (_review_phase(before), move.action)
        if key == (MOVING, "play"):
            plays[seat] += 1
        scorer = _SCORERS.get(key)
        scored = scorer(engine, before, step.after, move) if scorer is not None else None
        if scored is None:
            continue
        losses[seat].append(scored.loss)
        if scored.loss > _MISTAKE_ABOVE:
            # A cube decision belongs to the seat's next checker play.
            number = plays[seat] if key == (MOVING, "play") else plays[seat] + 1
            mistakes.append(
                Mistake(seat, number, scored.dice, scored.played, scored.best, scored.loss)
            )
    players = tuple(_player_review(seat, losses[seat], mistakes, worst) for seat in (0, 1))
    return GameReview(engine.engine, players)


def _player_review(
    seat: int, losses: list[float], mistakes: list[Mistake], worst: int
) -> PlayerReview:
    """One seat's figures from the loss of each of its decisions."""
    total = sum(losses)
    rate = 1000.0 * total / len(losses) if losses else 0.0
    mine = sorted((m for m in mistakes if m.seat == seat), key=lambda m: -m.loss)
    return PlayerReview(seat, len(losses), total, rate, rating_for(rate), tuple(mine[:worst]))


# A loss this small is the engine's rounding, not a mistake.
_MISTAKE_ABOVE = 0.0005
# The review's name for the doubler's answer to a beaver (a DOUBLED state, beavered).
_BEAVERED = "beavered"

@dataclass(frozen=True)
class Scored:
    """One scored decision: the equity given away (per unit cube, >= 0), what was played
    and what the engine prefers (in notation), and the dice of a checker play."""

    loss: float
    played: str
    best: str
    dice: tuple[int, int] | None = None


def _review_phase(state: BackgammonState) -> str:
    """The state's phase, with the doubler's answer to a beaver told apart."""
    if state.phase == DOUBLED and state.beavered:
        return _BEAVERED
    return state.phase


def _choice(played: str, chose: str, options: dict[str, float]) -> Scored:
    """A choice between named options, each worth ``options[name]`` to the seat, that
    chose ``chose`` (played as ``played``); the best is the first of the highest."""
    best = max(options, key=lambda name: options[name])
    return Scored(max(0.0, options[best] - options[chose]), played, best)


def _score_play(
    engine: BgEngine, state: BackgammonState, after: BackgammonState, move: BgMove
) -> Scored | None:
    """A checker play against the best play (None when the roll left no choice)."""
    rules = engine.rules
    ranked = engine.rank_plays(state, also=after)
    if len(ranked) <= 1:
        return None
    best = ranked[0]
    played_eq = next(
        (r.equity for r in ranked if rules.apply(state, r.move).board == after.board),
        best.equity,
    )
    return Scored(
        max(0.0, best.equity - played_eq),
        rules.format_move(state, move),
        rules.format_move(state, best.move),
        state.dice,
    )


def _score_cube(
    engine: BgEngine, state: BackgammonState, after: BackgammonState, move: BgMove
) -> Scored | None:
    """Double or roll on, against the better of the two (None far from any doubling
    window, where rolling on is no decision)."""
    if move.action == "roll" and not engine.is_cube_decision(state):
        return None
    nd, dt, dp, _, _ = engine.cube_analysis(state)
    return _choice(move.action, move.action, {"roll": nd, "double": min(dt, dp)})


def _score_take(
    engine: BgEngine, state: BackgammonState, after: BackgammonState, move: BgMove
) -> Scored:
    """Take (or beaver) or drop a double, from the doubled seat's view: taking is worth
    -dt, dropping -dp."""
    _, dt, dp, _, _ = engine.cube_analysis(state)
    chose = "drop" if move.action == "drop" else "take"
    return _choice(move.action, chose, {"take": -dt, "drop": -dp})


def _score_beaver_take(
    engine: BgEngine, state: BackgammonState, after: BackgammonState, move: BgMove
) -> Scored:
    """The doubler's take or drop of a beaver (dropping is worth -1)."""
    worth = engine.beaver_take_worth(state)
    return _choice(move.action, move.action, {"drop": -1.0, "take": worth})


Scorer = Callable[[BgEngine, BackgammonState, BackgammonState, BgMove], Scored | None]
"""Scores one decision: (engine, state before, state after, the move made) → the loss,
or None when it was no real choice."""

_SCORERS: dict[tuple[str, str], Scorer] = {
    (MOVING, "play"): _score_play,
    (DECIDE, "double"): _score_cube,
    (DECIDE, "roll"): _score_cube,
    (DOUBLED, "take"): _score_take,
    (DOUBLED, "beaver"): _score_take,
    (DOUBLED, "drop"): _score_take,
    (_BEAVERED, "take"): _score_beaver_take,
    (_BEAVERED, "drop"): _score_beaver_take,
}
"""The scorer of each decision a review counts, by (phase, action); other actions (a
resignation and its answer) are not counted."""
