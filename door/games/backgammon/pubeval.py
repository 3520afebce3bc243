"""A pure-Python backgammon evaluator and cube policy: the fallback where bgsage is absent.

The module keeps the name of Tesauro's *pubeval*, which it began as, but the evaluator is
now a small neural network: one hidden layer of sigmoid units over a raw board encoding
(pubeval's four inputs per point and side, bars, borne-off counts, the pip race) and one
hand-made input (the chance the opponent on roll hits a blot), with five sigmoid outputs:
the probabilities of winning, of a gammon given a win, of a backgammon given a gammon, and
the same for losing. There is one network for contact positions and one for races. The
outputs make a cubeless equity for choosing plays and a win probability for the cube.

The weights are door's own, in ``pubeval_weights.json`` beside this module (read with
:mod:`importlib.resources` by :func:`shipped_weights`, about 40 ms: whoever evaluates
loads them once and hands them to every call, as ``door.services.bots`` does for its
engines): fitted to bgsage's
evaluations of over a million positions from seeded, partly noisy bgsage self-play.
``tools/fit_fallback_net.py`` made the file and makes it again (its docstring gives the
inputs, seed and command, and ``--check`` compares). Evaluation exploits the encoding's
sparsity: the hidden sums add up the weight rows of the few non-zero inputs.

Boards here use the 26-entry *engine board*, from the view of one player (the one who just
moved, for :func:`probabilities`): entries 1..24 are his points 1..24 (positive: his
checkers, negative: the opponent's), entry 25 his checkers on the bar and entry 0 the
opponent's checkers on the bar. Build one with :func:`engine_board` from the rules'
sides.

Pure stdlib: no I/O but reading its own weights file when asked, and randomness only from
an ``rng`` handed in.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from importlib import resources
from itertools import repeat
from operator import add, mul

Probs = tuple[float, float, float, float, float]
"""(win, gammon win, backgammon win, gammon loss, backgammon loss), each cumulative
(a gammon counts among the wins, a backgammon among the gammons), bgsage's order."""

N_FEATURES = 24 * 8 + 10
"""Inputs of each network: 8 per point, then bars, borne-off counts, bias, the pip race
and the shot chance (see :func:`features`)."""

BIAS = 196
"""The input that is always 1 (its weight row is the hidden layer's bias)."""

HEADS = (
    "win",
    "gammon_win|win",
    "backgammon_win|gammon_win",
    "gammon_loss|loss",
    "backgammon_loss|gammon_loss",
)
"""What each output gives: the first outcome, given the second (if any)."""


@dataclass(frozen=True)
class Net:
    """One network: ``hidden`` has a row of hidden-unit weights per input
    (:data:`N_FEATURES` rows; row :data:`BIAS` is the bias), ``out`` a row of weights on
    the hidden units per output (five rows, :data:`HEADS`), ``out_bias`` the outputs'
    biases."""

    hidden: tuple[tuple[float, ...], ...]
    out: tuple[tuple[float, ...], ...]
    out_bias: tuple[float, ...]
    points: tuple[tuple[tuple[float, ...], ...], ...] = ()
    """Derived from ``hidden`` by :meth:`from_data`: for point ``i`` (1..24) holding
    ``n`` checkers (-15..15, negative the opponent's), ``points[i - 1][n + 15]`` is the
    sum of the rows of that point's inputs, so a board costs one addition per point."""

    @property
    def size(self) -> int:
        """The number of hidden units."""
        return len(self.out[0])

    @classmethod
    def from_data(cls, data: object, name: str, rows: int = N_FEATURES) -> Net:
        """The network in ``data`` (the weights file's ``name`` entry: ``hidden``,
        ``out``, ``out_bias``); ``ValueError`` if it is misshapen."""
        if not isinstance(data, dict):
            raise ValueError(f"pubeval weights: {name!r} must be an object")
        hidden, out, bias = data.get("hidden"), data.get("out"), data.get("out_bias")
        if not isinstance(hidden, list) or len(hidden) != rows:
            raise ValueError(f"pubeval weights: {name!r} needs {rows} hidden rows")
        if not isinstance(out, list) or len(out) != len(HEADS):
            raise ValueError(f"pubeval weights: {name!r} needs {len(HEADS)} output rows")
        if not isinstance(bias, list) or len(bias) != len(HEADS):
            raise ValueError(f"pubeval weights: {name!r} needs {len(HEADS)} output biases")
        size = len(out[0]) if isinstance(out[0], list) else 0
        if size == 0 or any(not isinstance(r, list) or len(r) != size for r in hidden + out):
            raise ValueError(f"pubeval weights: each {name!r} row has the same length")
        rows_ = tuple(tuple(float(v) for v in r) for r in hidden)
        return cls(
            hidden=rows_,
            out=tuple(tuple(float(v) for v in r) for r in out),
            out_bias=tuple(float(v) for v in bias),
            points=tuple(
                tuple(_summed(rows_, size, _point_inputs(i, n)) for n in range(-15, 16))
                for i in range(1, 25)
            )
            if rows == N_FEATURES
            else (),
        )

    def outputs(self, inputs: Sequence[tuple[int, float]]) -> list[float]:
        """The five outputs (each in (0, 1)) for the non-zero ``inputs`` of
        :func:`features`."""
        return self._finish(_summed(self.hidden, self.size, inputs))

    def evaluate(self, board: Sequence[int]) -> list[float]:
        """The five outputs for ``board``: :meth:`outputs` of its :func:`features`, but
        adding one precomputed row per occupied point, all rows summed at once (the same
        sums in another order)."""
        points = self.points
        rows = self.hidden
        picked: list[Iterable[float]] = [rows[BIAS]]
        own = board[25]
        opp = board[0]
        mine = 25 * own
        theirs = 25 * opp
        for i in range(1, 25):
            n = board[i]
            if n:
                picked.append(points[i - 1][n + 15])
                if n > 0:
                    own += n
                    mine += n * i
                else:
                    opp -= n
                    theirs -= n * (25 - i)
        for idx, value in _race_inputs(board, own, opp, mine, theirs):
            picked.append(map(mul, rows[idx], repeat(value)))
        return self._finish(list(map(sum, zip(*picked, strict=True))))

    def _finish(self, acc: Sequence[float]) -> list[float]:
        h = [1.0 / (1.0 + math.exp(-a)) if a > -700.0 else 0.0 for a in acc]
        return [
            _sigmoid(b + sum(map(mul, h, row)))
            for b, row in zip(self.out_bias, self.out, strict=True)
        ]


def _summed(
    rows: Sequence[Sequence[float]], size: int, inputs: Sequence[tuple[int, float]]
) -> tuple[float, ...]:
    """The hidden sums: each input's row times its value, added up."""
    acc: Sequence[float] = (0.0,) * size
    for idx, value in inputs:
        acc = list(map(add, acc, map(mul, rows[idx], repeat(value))))
    return tuple(acc)


@dataclass(frozen=True)
class Weights:
    """Two networks: one for contact positions, one for races (:func:`is_race`)."""

    contact: Net
    race: Net

    @classmethod
    def from_json(cls, text: str, rows: int = N_FEATURES) -> Weights:
        """Read the weights file's text (``contact`` and ``race``: a network each, of
        ``rows`` inputs); ``ValueError`` if either is misshapen.

        >>> one = {"hidden": [[1, 2]], "out": [[0, 0]] * 5, "out_bias": [0] * 5}
        >>> w = Weights.from_json(json.dumps({"contact": one, "race": one}), 1)
        >>> w.race.size, w.race.hidden
        (2, ((1.0, 2.0),))
        """
        data = json.loads(text)
        if not isinstance(data, dict):
            raise ValueError("pubeval weights: the file must hold an object")
        contact, race = (Net.from_data(data.get(name), name, rows) for name in ("contact", "race"))
        return cls(contact=contact, race=race)

    def for_board(self, board: Sequence[int]) -> Net:
        """The network that applies to ``board``."""
        return self.race if is_race(board) else self.contact


WEIGHTS_FILE = "pubeval_weights.json"
"""The shipped weights: package data of ``door.games.backgammon``."""


def shipped_weights() -> Weights:
    """The weights in ``pubeval_weights.json``, read from the file each call (they never
    change while door runs: read them once and pass them on).

    >>> len(shipped_weights().contact.hidden) == len(shipped_weights().race.hidden)
    True
    """
    weights_file = resources.files("door.games.backgammon").joinpath(WEIGHTS_FILE)
    return Weights.from_json(weights_file.read_text(encoding="utf-8"))


def engine_board(me: Sequence[int], opp: Sequence[int]) -> list[int]:
    """The engine board from ``me``'s view, given both 25-entry sides (points 1..24 then
    the bar, each counted from its owner's side, as ``BackgammonState.board`` holds them)."""
    b = [0] * 26
    for i in range(1, 25):
        b[i] = me[i - 1] - opp[24 - i]
    b[25] = me[24]
    b[0] = opp[24]
    return b


def flip(board: Sequence[int]) -> list[int]:
    """The same position from the other player's view."""
    out = [0] * 26
    out[0] = board[25]
    out[25] = board[0]
    for i in range(1, 25):
        out[i] = -board[25 - i]
    return out


def is_race(board: Sequence[int]) -> bool:
    """True when contact is broken: no checker can ever hit or be hit again."""
    if board[25] or board[0]:
        return False
    own_max = max((i for i in range(1, 25) if board[i] > 0), default=0)
    opp_min = min((i for i in range(1, 25) if board[i] < 0), default=25)
    return own_max < opp_min


def settled_race_loss(board: Sequence[int]) -> int:
    """What the board's owner, on roll in a race, is sure to lose whatever the dice: 1
    (single), 2 (gammon), 3 (backgammon); 0 while anything is in doubt. Exact bounds, not
    estimates: he needs at least max(pips/24, checkers/4) turns (double sixes every time,
    four checkers a turn), and the opponent at most pips/2 (each die of a race moves or
    bears off: a pip at least), so he is sure to lose when his fewest turns exceed the
    opponent's most; a gammon when he cannot bear off a first checker by then, a
    backgammon when he cannot bring his last checkers out of the opponent's home board
    either. Such positions come late (a dead bear-off), which is when a resignation
    spares the opponent the dice."""
    if not is_race(board):
        return 0
    mine, theirs = pip_counts(board)
    on_board = sum(n for n in board[1:25] if n > 0)
    if on_board == 0 or theirs == 0:
        return 0
    most = -(-theirs // 2)  # the opponent's most turns to finish
    if max(-(-mine // 24), -(-on_board // 4)) <= most:
        return 0
    outside = [(i, board[i]) for i in range(7, 25) if board[i] > 0]
    to_home = sum((i - 6) * n for i, n in outside) + 1  # + a pip to bear one off
    gammon = on_board == 15 and max(
        -(-to_home // 24), -(-(sum(n for _, n in outside) + 1) // 4)
    ) > most
    if not gammon:
        return 1 if on_board < 15 else 0
    back = [(i, board[i]) for i in range(19, 25) if board[i] > 0]
    if not back:
        return 2
    out_pips = sum((i - 18) * n for i, n in back)
    out_turns = max(-(-out_pips // 24), -(-sum(n for _, n in back) // 4))
    return 3 if out_turns > most else 0


def pip_counts(board: Sequence[int]) -> tuple[int, int]:
    """(pips of the board's owner, pips of the opponent)."""
    mine = 25 * board[25]
    theirs = 25 * board[0]
    for i in range(1, 25):
        n = board[i]
        if n > 0:
            mine += n * i
        elif n < 0:
            theirs += -n * (25 - i)
    return mine, theirs


_ROLLS = tuple((a, b) for a in range(1, 7) for b in range(a, 7))
"""The 21 distinct rolls (a <= b); a non-double comes two ways in 36."""


def shot_chance(board: Sequence[int]) -> float:
    """The chance that the opponent, on roll, can hit one of the mover's blots: the share
    of the 36 rolls with which some opponent checker reaches a blot, by one die, or by
    the dice together through points that are not blocked (made by the mover). An
    opponent on the bar is counted as hitting only from the bar (he must enter first).

    >>> b = [0] * 26; b[10] = 1; b[4] = -2   # a blot six pips in front of two checkers
    >>> round(36 * shot_chance(b))
    17
    """
    blots = {i for i in range(1, 25) if board[i] == 1}
    if not blots:
        return 0.0
    top = max(blots)
    hitters = [0] if board[0] else [j for j in range(1, top) if board[j] < 0]
    if not hitters:
        return 0.0
    hits = 0
    for a, b in _ROLLS:
        if _roll_hits(board, blots, hitters, a, b):
            hits += 1 if a == b else 2
    return hits / 36.0


def _roll_hits(board: Sequence[int], blots: set[int], hitters: list[int], a: int, b: int) -> bool:
    for j in hitters:
        if a == b:
            p = j
            for _ in range(4):
                p += a
                if p > 24 or board[p] >= 2:
                    break
                if p in blots:
                    return True
        else:
            pa, pb = j + a, j + b
            if pa in blots or pb in blots:
                return True
            if j + a + b in blots and (board[pa] < 2 or board[pb] < 2):
                return True
    return False


def _point_inputs(i: int, n: int) -> list[tuple[int, float]]:
    """The inputs of point ``i`` (1..24) holding ``n`` checkers (negative: the opponent's):
    a blot, a made point, exactly three, and half the checkers beyond three."""
    base = (i - 1) * 8 + (0 if n > 0 else 4)
    m = abs(n)
    if m == 0:
        return []
    if m == 1:
        return [(base, 1.0)]
    if m == 3:
        return [(base + 1, 1.0), (base + 2, 1.0)]
    if m > 3:
        return [(base + 1, 1.0), (base + 3, (m - 3) / 2.0)]
    return [(base + 1, 1.0)]


def _global_inputs(board: Sequence[int]) -> list[tuple[int, float]]:
    """The non-zero inputs that are not per point, the bias aside."""
    own = board[25] + sum(n for n in board[1:25] if n > 0)
    opp = board[0] - sum(n for n in board[1:25] if n < 0)
    mine, theirs = pip_counts(board)
    return _race_inputs(board, own, opp, mine, theirs)


def _race_inputs(
    board: Sequence[int], own: int, opp: int, mine: int, theirs: int
) -> list[tuple[int, float]]:
    """:func:`_global_inputs`, given each side's checkers left (``own``, ``opp``) and
    pips (``mine``, ``theirs``)."""
    out: list[tuple[int, float]] = []
    if board[25]:
        out.append((192, board[25] / 2.0))
    if board[0]:
        out.append((193, board[0] / 2.0))
    if own < 15:
        out.append((194, (15 - own) / 15.0))
    if opp < 15:
        out.append((195, (15 - opp) / 15.0))
    if theirs != mine:
        out.append((197, (theirs - mine) / 8.0 / math.sqrt(mine + theirs + 1.0)))
        out.append((198, (theirs - mine) / 100.0))
    if mine:
        out.append((199, mine / 100.0))
    if theirs:
        out.append((200, theirs / 100.0))
    shots = shot_chance(board)
    if shots:
        out.append((201, shots))
    return out


def features(board: Sequence[int]) -> list[tuple[int, float]]:
    """The non-zero inputs of a post-move board as (index, value) pairs.

    Per point, for each side: a blot, a made point, exactly three, and half the checkers
    beyond three (pubeval's encoding); then both bars, both borne-off counts, the bias
    (:data:`BIAS`), the pip race (the opponent's lead, he being on roll, in rolls scaled
    by the race length; the plain difference; each count) and :func:`shot_chance`.
    """
    out = [x for i in range(1, 25) for x in _point_inputs(i, board[i])]
    out.append((BIAS, 1.0))
    return out + _global_inputs(board)


def _sigmoid(z: float) -> float:
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


def probabilities(board: Sequence[int], weights: Weights) -> Probs:
    """Outcome probabilities for the player who just moved (the opponent is on roll),
    by the networks ``weights``.

    >>> from door.games.backgammon.position import start_side
    >>> p = probabilities(engine_board(start_side(), start_side()), shipped_weights())
    >>> 0.4 < p[0] < 0.6 and p[0] > p[1] > p[2] >= 0.0
    True
    """
    mine = sum(n for n in board[1:25] if n > 0) + board[25]
    theirs = sum(-n for n in board[1:25] if n < 0) + board[0]
    if mine == 0:
        gammon = theirs == 15
        backgammon = gammon and (board[0] > 0 or any(board[i] < 0 for i in range(1, 7)))
        return (1.0, float(gammon), float(backgammon), 0.0, 0.0)
    net = weights.for_board(board)
    s = net.evaluate(board)
    win = s[0]
    gammon_win = win * s[1]
    bg_win = gammon_win * s[2]
    gammon_loss = (1.0 - win) * s[3]
    bg_loss = gammon_loss * s[4]
    if mine < 15:
        # The mover has borne a checker off: he cannot be gammoned.
        gammon_loss = bg_loss = 0.0
    if theirs < 15:
        gammon_win = bg_win = 0.0
    return (win, gammon_win, bg_win, gammon_loss, bg_loss)


def invert(p: Probs) -> Probs:
    """The same probabilities from the other player's view."""
    return (1.0 - p[0], p[3], p[4], p[1], p[2])


def pre_roll_probabilities(board: Sequence[int], weights: Weights) -> Probs:
    """Outcome probabilities for the player on roll, before he rolls (``board`` is from
    his view): the opponent has just moved, so evaluate the opponent's board and invert."""
    return invert(probabilities(flip(board), weights))


def cubeless_equity(p: Probs, gammons: bool = True) -> float:
    """Expected points per unit cube (gammons count double, backgammons triple)."""
    eq = 2.0 * p[0] - 1.0
    if gammons:
        eq += p[1] - p[3] + p[2] - p[4]
    return eq


def choose_play(
    boards: Sequence[Sequence[int]],
    weights: Weights,
    *,
    noise: float = 0.0,
    rng: random.Random | None = None,
    gammons: bool = True,
) -> int:
    """Index of the best of ``boards`` (post-move boards from the mover's view) by the
    networks ``weights``.

    ``noise`` adds a normal error of that many equity points to each candidate (the
    beginner level); it needs ``rng``.
    """
    best_i = 0
    best = -math.inf
    for i, b in enumerate(boards):
        eq = cubeless_equity(probabilities(b, weights), gammons)
        if noise and rng is not None:
            eq += rng.gauss(0.0, noise)
        if eq > best:
            best, best_i = eq, i
    return best_i


# --- the cube ---------------------------------------------------------------------------


@dataclass(frozen=True)
class CubeState:
    """The cube and score as one player sees them.

    ``away`` / ``opp_away``: points each needs to win the match (0 for money play);
    ``cube``: its value; ``owned``: ``None`` centred, ``True`` this player owns it,
    ``False`` the opponent does; ``gammons``: whether gammons count now (not under the
    Jacoby rule with a centred cube).
    """

    cube: int = 1
    owned: bool | None = None
    away: int = 0
    opp_away: int = 0
    crawford: bool = False
    gammons: bool = True

    @property
    def is_money(self) -> bool:
        return self.away == 0 and self.opp_away == 0


# Money-play thresholds on the win probability and on cubeless equity, the textbook
# round numbers (a double is right from about 68-70% with normal gammon chances, a take
# from about 25% or an equity of -0.5 before the cube's recube value).
_DOUBLE_WIN = 0.68
_REDOUBLE_WIN = 0.70
_TOO_GOOD_EQUITY = 1.0
_TAKE_EQUITY = -0.56
_BEAVER_EQUITY = 0.05


def should_double(p: Probs, cs: CubeState) -> bool:
    """Should the player on roll (``p``: his pre-roll probabilities) double?"""
    if not cs.is_money:
        if cs.crawford:
            return False
        if cs.cube >= cs.away:
            return False  # the cube already wins him the match: doubling is only risk
        if cs.opp_away == 1:
            return True  # post-Crawford trailer: double at once, the take is forced
        if cs.away == 1:
            return False
    eq = cubeless_equity(p, cs.gammons)
    if eq >= _TOO_GOOD_EQUITY and p[1] > 0.05:
        return False  # too good: play on for the gammon
    threshold = _REDOUBLE_WIN if cs.owned else _DOUBLE_WIN
    if not cs.is_money and 2 * cs.cube >= cs.away:
        # Doubling puts the match on this game for him: be a bit readier.
        threshold -= 0.03
    return p[0] >= threshold


def should_take(p: Probs, cs: CubeState) -> bool:
    """Should the doubled player (``p``: his probabilities, the doubler on roll) take?"""
    if not cs.is_money and cs.cube >= cs.away:
        return True  # dropping loses the match anyway
    if not cs.is_money and cs.away == 1:
        return True
    return cubeless_equity(p, cs.gammons) >= _TAKE_EQUITY


def should_beaver(p: Probs, cs: CubeState) -> bool:
    """Should the doubled player beaver (money play only)?"""
    return cs.is_money and cubeless_equity(p, cs.gammons) >= _BEAVER_EQUITY


def should_accept_resignation(p: Probs, level: int, cs: CubeState) -> bool:
    """Accept an offer to resign ``level`` (1 single, 2 gammon, 3 backgammon) times the
    cube? ``p``: the accepting player's probabilities."""
    if not cs.is_money and level * cs.cube >= cs.away:
        return True  # it wins the match
    return level >= cubeless_equity(p, True) - 1e-6
