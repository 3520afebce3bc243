"""Position builders and random positions for the Backgammon tests (seeded, reproducible)."""

from __future__ import annotations

import random

from door.games.backgammon import movegen
from door.games.backgammon.position import MOVING, BackgammonState, Options, Side, start_side


def side(**points: int) -> Side:
    """A side from keyword points: ``side(p24=1, bar=1, p6=5)``; unlisted checkers are off."""
    out = [0] * 25
    for name, n in points.items():
        if name == "bar":
            out[24] = n
        else:
            out[int(name[1:]) - 1] = n
    return tuple(out)


def opp_holding(*my_points: int, n: int = 2) -> Side:
    """An opponent side with ``n`` checkers on each of these points (mover's numbering)."""
    out = [0] * 25
    for p in my_points:
        out[24 - p] = n
    return tuple(out)


def random_placement(rng: random.Random) -> tuple[Side, Side]:
    """Checkers dropped at random: bars, bear-offs and odd shapes included."""
    me = [0] * 25
    opp = [0] * 25
    style = rng.random()
    for who, board in ((0, me), (1, opp)):
        count = rng.randint(1, 15)
        for _ in range(count):
            while True:
                if style < 0.3 and who == 0:
                    idx = rng.randint(0, 5)  # a bear-off position for the mover
                elif rng.random() < 0.06:
                    idx = 24
                else:
                    idx = rng.randint(0, 23)
                if idx == 24:
                    break
                other = opp if who == 0 else me
                if other[23 - idx] == 0:
                    break
            board[idx] += 1
    return tuple(me), tuple(opp)


def game_positions(rng: random.Random, n: int) -> list[tuple[Side, Side]]:
    """``n`` positions met in games of random legal plays (one every few turns)."""
    out: list[tuple[Side, Side]] = []
    me, opp = start_side(), start_side()
    while len(out) < n:
        d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
        plays = movegen.legal_plays(me, opp, d1, d2)
        if plays:
            _play, me, opp = rng.choice(plays)
            if sum(me) == 0:
                me, opp = start_side(), start_side()
        me, opp = opp, me
        if rng.random() < 0.4:
            out.append((me, opp))
    return out


def random_cases(seed: int, n: int) -> list[tuple[Side, Side, int, int]]:
    """``n`` (mover, opponent, die, die) cases, half from games and half placed at random."""
    rng = random.Random(seed)
    from_games = game_positions(rng, (n + 1) // 2)
    out = []
    for i in range(n):
        me, opp = from_games[i // 2] if i % 2 == 0 else random_placement(rng)
        out.append((me, opp, rng.randint(1, 6), rng.randint(1, 6)))
    return out


def to_bgsage(me: Side, opp: Side) -> list[int]:
    """bgsage's board: 1..24 the mover's points (+ mover, - opponent), 25 the mover's
    bar, 0 the opponent's bar (a positive count)."""
    board = [0] * 26
    for i in range(24):
        if me[i]:
            board[i + 1] = me[i]
        if opp[23 - i]:
            board[i + 1] = -opp[23 - i]
    board[25] = me[24]
    board[0] = opp[24]
    return board


def from_bgsage(board: list[int]) -> tuple[Side, Side]:
    me = [0] * 25
    opp = [0] * 25
    for i in range(24):
        v = board[i + 1]
        if v > 0:
            me[i] = v
        elif v < 0:
            opp[23 - i] = -v
    me[24] = board[25]
    opp[24] = board[0]
    return tuple(me), tuple(opp)


def moving_state(me: Side, opp: Side, d1: int, d2: int, seat: int = 0) -> BackgammonState:
    """A money-game state where ``seat`` has rolled ``d1``-``d2`` with this board."""
    board = (me, opp) if seat == 0 else (opp, me)
    return BackgammonState(
        board=board,
        turn=seat,
        phase=MOVING,
        dice=(d1, d2),
        options=Options(match_length=0, crawford=False),
    )
