"""The bgsage-free cube: Janowski's cubeful approximation at money play.

Pure functions of a player's cubeless probabilities (:data:`pubeval.Probs`, from any
evaluator) and the cube (:class:`pubeval.CubeState`). At money play the cubeful equity is
interpolated between the dead-cube equity and the fully live one with a cube-efficiency
``x`` (R. Janowski, "Take-Points in Money Games", 1993): with ``W``/``L`` the player's
average points won/lost when he wins/loses,

- his take point ``TP = (L - 1/2) / (W + L + x/2)``; the opponent's likewise with the
  roles swapped, so his cash point is ``1 - TP(opponent)``;
- the live-cube equity is linear in the win chance between the point where the other side
  cashes (equity -1) and where he cashes (+1), or the game's end values (``-L`` / ``W``)
  where that side cannot double.

A double is right when ``min(2 * E(opponent owns), 1) > E(centred or own)``; a take when
``2 * E(taker owns) >= -1`` per cube. So the underdog never doubles (his equity after the
double only falls), and a take needs the taker's chances above his own take point with
gammons counted. Match play keeps :mod:`pubeval`'s match-score rules (no match-equity
table here yet).
"""

from __future__ import annotations

from door.games.backgammon import pubeval
from door.games.backgammon.pubeval import CubeState, Probs

CUBE_EFFICIENCY = 0.68
"""Janowski's ``x`` for a typical contact position (gnubg's default)."""


def _values(p: Probs, gammons: bool) -> tuple[float, float, float]:
    """(win chance, average win W, average loss L) per unit cube."""
    win = min(max(p[0], 1e-9), 1.0 - 1e-9)
    if not gammons:
        return win, 1.0, 1.0
    w = (win + p[1] + p[2]) / win
    lose = 1.0 - win
    l_ = (lose + p[3] + p[4]) / lose
    return win, w, l_


def money_equities(p: Probs, cs: CubeState, x: float = CUBE_EFFICIENCY) -> tuple[float, float]:
    """(no double, double/take) cubeful equities for the player on roll, per unit cube now.

    ``cs.owned`` says who holds the cube before the double (``None`` centred).
    """
    win, w, l_ = _values(p, cs.gammons)
    dead = win * w - (1.0 - win) * l_
    my_tp = (l_ - 0.5) / (w + l_ + 0.5 * x)
    opp_tp = (w - 0.5) / (w + l_ + 0.5 * x)
    my_cash = 1.0 - opp_tp  # where I cash (the opponent's drop point)
    their_cash = my_tp  # where the opponent cashes against me

    def live(lo: float, lo_eq: float, hi: float, hi_eq: float) -> float:
        if win <= lo:
            return lo_eq
        if win >= hi:
            return hi_eq
        return lo_eq + (hi_eq - lo_eq) * (win - lo) / (hi - lo)

    if cs.owned is None:
        live_nd = live(their_cash, -1.0, my_cash, 1.0)
    elif cs.owned:
        live_nd = live(0.0, -l_, my_cash, 1.0)
    else:
        live_nd = live(their_cash, -1.0, 1.0, w)
    # After double/take the opponent owns the cube at twice the value.
    live_dt = live(their_cash, -1.0, 1.0, w)
    nd = x * live_nd + (1.0 - x) * dead
    dt = 2.0 * (x * live_dt + (1.0 - x) * dead)
    return nd, dt


def should_double(p: Probs, cs: CubeState) -> bool:
    """Should the player on roll (``p``: his pre-roll probabilities) double?"""
    if not cs.is_money:
        return pubeval.should_double(p, cs)
    if cs.owned is False:
        return False
    nd, dt = money_equities(p, cs)
    return min(dt, 1.0) > nd


def should_take(p: Probs, cs: CubeState) -> bool:
    """Should the doubled player (``p``: his probabilities, the doubler on roll) take?"""
    if not cs.is_money:
        return pubeval.should_take(p, cs)
    doubler = pubeval.invert(p)
    _, dt = money_equities(doubler, CubeState(cs.cube, None, gammons=True))
    return dt <= 1.0


def should_beaver(p: Probs, cs: CubeState) -> bool:
    """Beaver when, after taking, the taker is the favourite in cubeful terms."""
    if not cs.is_money or not should_take(p, cs):
        return False
    doubler = pubeval.invert(p)
    _, dt = money_equities(doubler, CubeState(cs.cube, None, gammons=True))
    return dt < 0.0


def should_accept_resignation(p: Probs, level: int, cs: CubeState) -> bool:
    """Accept an offer to resign ``level`` (1 single, 2 gammon, 3 backgammon) times the cube?

    ``p``: the accepting player's probabilities. At money play accept when the offer is worth
    at least what playing on is (cubeless, gammons counted: the game is settled by then).
    """
    if not cs.is_money:
        return pubeval.should_accept_resignation(p, level, cs)
    return float(level) >= pubeval.cubeless_equity(p, True) - 1e-6
