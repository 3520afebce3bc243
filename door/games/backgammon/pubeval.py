"""A pure-Python backgammon evaluator and cube policy: the fallback where bgsage is absent.

In the style of Tesauro's *pubeval*: a linear function of a raw board encoding, with one
weight set for contact positions and one for races. Where pubeval gives one score for
ranking plays, this one has five linear heads squashed by a logistic function, giving the
probabilities of winning, of a gammon given a win, of a backgammon given a gammon, and the
same for losing. Those make a cubeless equity for choosing plays and a win probability for
the cube.

The weights are door's own, in ``pubeval_weights.json`` beside this module (loaded once,
with :mod:`importlib.resources`, by :func:`shipped_weights`): a logistic regression of
those five targets onto :func:`features`, over positions from seeded bgsage self-play,
each labelled by bgsage's 1-ply evaluation. ``tools/fit_pubeval.py`` made the file and
makes it again (its docstring gives the inputs, seed and command, and ``--check``
compares); a sensible but beatable opponent.

Boards here use the 26-entry *engine board*, from the view of one player (the one who just
moved, for :func:`probabilities`): entries 1..24 are his points 1..24 (positive: his
checkers, negative: the opponent's), entry 25 his checkers on the bar and entry 0 the
opponent's checkers on the bar. Build one with :func:`engine_board` from the rules'
sides.

Pure stdlib: no I/O but reading its own weights file once, and randomness only from an
``rng`` handed in.
"""

from __future__ import annotations

import functools
import json
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources

Probs = tuple[float, float, float, float, float]
"""(win, gammon win, backgammon win, gammon loss, backgammon loss), each cumulative
(a gammon counts among the wins, a backgammon among the gammons), bgsage's order."""

N_FEATURES = 24 * 8 + 9
"""Inputs of each linear head: 8 per point, then bars, borne-off counts, bias, race."""

HEADS = (
    "win",
    "gammon_win|win",
    "backgammon_win|gammon_win",
    "gammon_loss|loss",
    "backgammon_loss|gammon_loss",
)
"""What each head's logistic gives: the first outcome, given the second (if any)."""

Row = tuple[float, float, float, float, float]
"""One feature's weight in each of the five heads."""


@dataclass(frozen=True)
class Weights:
    """Two weight sets of :data:`N_FEATURES` rows: one for contact positions, one for
    races (:func:`is_race`)."""

    contact: tuple[Row, ...]
    race: tuple[Row, ...]

    @classmethod
    def from_json(cls, text: str, rows: int = N_FEATURES) -> Weights:
        """Read the weights file's text (``contact`` and ``race``: ``rows`` rows of five
        numbers each); ``ValueError`` if a table is misshapen.

        >>> w = Weights.from_json('{"contact": [[0, 0, 0, 0, 0]], "race": [[1, 2, 3, 4, 5]]}', 1)
        >>> w.race
        ((1.0, 2.0, 3.0, 4.0, 5.0),)
        """
        data = json.loads(text)
        tables = []
        for name in ("contact", "race"):
            table = data.get(name) if isinstance(data, dict) else None
            if not isinstance(table, list) or len(table) != rows:
                raise ValueError(f"pubeval weights: {name!r} needs {rows} rows")
            if any(not isinstance(r, list) or len(r) != len(HEADS) for r in table):
                raise ValueError(f"pubeval weights: each {name!r} row has {len(HEADS)} numbers")
            tables.append(tuple(_row(r) for r in table))
        return cls(contact=tables[0], race=tables[1])

    def for_board(self, board: Sequence[int]) -> tuple[Row, ...]:
        """The set that applies to ``board``."""
        return self.race if is_race(board) else self.contact


def _row(numbers: list[float]) -> Row:
    a, b, c, d, e = (float(n) for n in numbers)
    return (a, b, c, d, e)


WEIGHTS_FILE = "pubeval_weights.json"
"""The shipped weights: package data of ``door.games.backgammon``."""


@functools.cache
def shipped_weights() -> Weights:
    """The weights in ``pubeval_weights.json``, read once (they never change while door
    runs; the cache stands in for the literal tables this module used to hold).

    >>> len(shipped_weights().contact) == len(shipped_weights().race) == N_FEATURES
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


def features(board: Sequence[int]) -> list[tuple[int, float]]:
    """The non-zero features of a post-move board as (index, value) pairs.

    Per point, for each side: a blot, a made point, exactly three, and half the checkers
    beyond three (pubeval's encoding); then both bars, both borne-off counts, a bias, and
    the pip race: the opponent's lead (he is on roll) in rolls scaled by the race length,
    the plain difference, and each count.
    """
    out: list[tuple[int, float]] = []
    own = board[25]
    opp = board[0]
    for i in range(1, 25):
        n = board[i]
        base = (i - 1) * 8
        if n > 0:
            own += n
            if n == 1:
                out.append((base, 1.0))
            else:
                out.append((base + 1, 1.0))
                if n == 3:
                    out.append((base + 2, 1.0))
                elif n > 3:
                    out.append((base + 3, (n - 3) / 2.0))
        elif n < 0:
            m = -n
            opp += m
            if m == 1:
                out.append((base + 4, 1.0))
            else:
                out.append((base + 5, 1.0))
                if m == 3:
                    out.append((base + 6, 1.0))
                elif m > 3:
                    out.append((base + 7, (m - 3) / 2.0))
    mine, theirs = pip_counts(board)
    out.append((192, board[25] / 2.0))
    out.append((193, board[0] / 2.0))
    out.append((194, (15 - own) / 15.0))
    out.append((195, (15 - opp) / 15.0))
    out.append((196, 1.0))
    out.append((197, (theirs - mine) / 8.0 / math.sqrt(mine + theirs + 1.0)))
    out.append((198, (theirs - mine) / 100.0))
    out.append((199, mine / 100.0))
    out.append((200, theirs / 100.0))
    return out


def _sigmoid(z: float) -> float:
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


def probabilities(board: Sequence[int], weights: Weights | None = None) -> Probs:
    """Outcome probabilities for the player who just moved (the opponent is on roll),
    with ``weights`` (default: :func:`shipped_weights`).

    >>> from door.games.backgammon.position import start_side
    >>> p = probabilities(engine_board(start_side(), start_side()))
    >>> 0.4 < p[0] < 0.6 and p[0] > p[1] > p[2] >= 0.0
    True
    """
    mine = sum(n for n in board[1:25] if n > 0) + board[25]
    theirs = sum(-n for n in board[1:25] if n < 0) + board[0]
    if mine == 0:
        gammon = theirs == 15
        backgammon = gammon and (board[0] > 0 or any(board[i] < 0 for i in range(1, 7)))
        return (1.0, float(gammon), float(backgammon), 0.0, 0.0)
    table = (weights or shipped_weights()).for_board(board)
    z = [0.0] * 5
    for idx, value in features(board):
        row = table[idx]
        for k in range(5):
            z[k] += row[k] * value
    s = [_sigmoid(v) for v in z]
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


def pre_roll_probabilities(board: Sequence[int]) -> Probs:
    """Outcome probabilities for the player on roll, before he rolls (``board`` is from
    his view): the opponent has just moved, so evaluate the opponent's board and invert."""
    return invert(probabilities(flip(board)))


def cubeless_equity(p: Probs, gammons: bool = True) -> float:
    """Expected points per unit cube (gammons count double, backgammons triple)."""
    eq = 2.0 * p[0] - 1.0
    if gammons:
        eq += p[1] - p[3] + p[2] - p[4]
    return eq


def choose_play(
    boards: Sequence[Sequence[int]],
    *,
    noise: float = 0.0,
    rng: random.Random | None = None,
    gammons: bool = True,
    weights: Weights | None = None,
) -> int:
    """Index of the best of ``boards`` (post-move boards from the mover's view).

    ``noise`` adds a normal error of that many equity points to each candidate (the
    beginner level); it needs ``rng``. ``weights`` default to :func:`shipped_weights`.
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
