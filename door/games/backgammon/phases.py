"""The phase machine: who acts in each :class:`~door.games.backgammon.position.Phase`, what
each action and roll does to the state, and how a game and a match end.

Functions of the state only; :class:`~door.games.backgammon.rules.BackgammonRules`
puts them behind the ``GameRules`` contract (its module doc lists the phases). Checker
plays are made here (:func:`after_play`) once the rules have checked them.
"""

from __future__ import annotations

from door.games.backgammon import moves
from door.games.backgammon.moves import BgMove
from door.games.backgammon.position import (
    BAR,
    DECIDE,
    DICE,
    DOUBLED,
    MAX_CUBE,
    MOVING,
    OPENING,
    OVER,
    RESIGNING,
    BackgammonState,
    GameResult,
    Side,
    borne_off,
    start_side,
)
from door.games.base import IllegalMoveError

SEAT_NAMES = ("White", "Black")
"""What ``describe`` and messages call seat 0 and seat 1."""


def seat_name(seat: int) -> str:
    """``White`` for seat 0, ``Black`` for seat 1.

    >>> seat_name(1)
    'Black'
    """
    return SEAT_NAMES[seat]


def mover_sides(state: BackgammonState) -> tuple[Side, Side]:
    """(seat on roll's side, opponent's side)."""
    return state.board[state.turn], state.board[1 - state.turn]


# --- the cube ------------------------------------------------------------------------------


def can_double(state: BackgammonState) -> bool:
    """May the seat on roll double now (ignoring the phase)?

    >>> can_double(BackgammonState()), can_double(BackgammonState().evolve(cube_owner=1))
    (True, False)
    """
    opts = state.options
    if not opts.cube or state.crawford_game:
        return False
    if state.cube_owner is not None and state.cube_owner != state.turn:
        return False
    if dead_cube(state):
        return False
    return state.cube * 2 <= MAX_CUBE


def dead_cube(state: BackgammonState) -> bool:
    """In a match the cube is dead for the seat on roll once it already covers the points
    that seat needs: doubling could not gain it anything, and gnubg refuses it."""
    return state.match_length > 0 and state.cube >= state.match_length - state.score[state.turn]


def why_no_double(state: BackgammonState) -> str:
    """The rule that forbids the seat on roll to double, for the player."""
    if not state.options.cube:
        return "this game is played without the doubling cube"
    if state.crawford_game:
        return "nobody may double in the Crawford game"
    if state.cube_owner is not None and state.cube_owner != state.turn:
        return "the cube belongs to your opponent: only its owner may redouble"
    if dead_cube(state):
        return "the cube is dead: winning this game at its present value wins you the match"
    if state.cube * 2 > MAX_CUBE:
        return f"the cube cannot go above {MAX_CUBE}"
    return "you can only double at the start of your turn, before rolling"


def may_beaver(state: BackgammonState) -> bool:
    """Does this game allow a beaver (money play with the option, cube room left)?"""
    return state.is_money and state.options.beavers and state.cube * 4 <= MAX_CUBE


# --- turns and who acts --------------------------------------------------------------------


def start_turn(state: BackgammonState) -> BackgammonState:
    """The seat on roll begins its turn: it decides, or its dice are due at once."""
    phase = DECIDE if can_double(state) else DICE
    return state.evolve(phase=phase, dice=None, rolled=False, resigner=None, resign_level=0)


def to_act(state: BackgammonState) -> int | None:
    """The seat that must act, or ``None`` (chance is due, or the match is over)."""
    if state.phase in (DECIDE, MOVING):
        return state.turn
    if state.phase in (DOUBLED, RESIGNING):
        if state.phase == RESIGNING and state.resigner is not None:
            return 1 - state.resigner
        return state.turn if state.beavered else 1 - state.turn
    return None


def chance_pending(state: BackgammonState) -> bool:
    """Are dice due (the opening roll, or the roll of the seat on roll)?"""
    return state.phase in (OPENING, DICE)


def roll(state: BackgammonState, d1: int, d2: int) -> BackgammonState:
    """Apply checked dice to the pending roll; ``ValueError`` when no dice are due."""
    if state.phase == OPENING:
        if d1 == d2:
            opts = state.options
            if state.is_money and opts.auto_doubles and opts.cube and state.cube == 1:
                return state.evolve(cube=2)
            return state
        turn = 0 if d1 > d2 else 1
        return state.evolve(
            turn=turn, phase=MOVING, dice=(max(d1, d2), min(d1, d2)), rolled=False
        )
    if state.phase == DICE:
        # Kept higher die first, as gnubg keeps them (and writes them in the Match ID).
        return state.evolve(phase=MOVING, dice=(max(d1, d2), min(d1, d2)), rolled=False)
    raise ValueError(f"no dice are due now (the game is in its {state.phase} phase)")


def not_now(state: BackgammonState, what: str) -> str:
    """Why ``what`` (e.g. ``"double"``) cannot be done in this phase, for the player."""
    phase = state.phase
    if phase == MOVING:
        return f"you cannot {what} now: play your roll first"
    if phase == DECIDE:
        return f"you cannot {what} now: roll (or double) first"
    if phase == DOUBLED:
        return f"you cannot {what} now: the double must be taken or dropped first"
    if phase == RESIGNING:
        return f"you cannot {what} now: the resignation must be accepted or rejected first"
    return f"you cannot {what} now"


# --- actions other than checker plays -----------------------------------------------------


def apply_action(state: BackgammonState, action: str, level: int = 0) -> BackgammonState:
    """The state after a checked-for-phase action (every ``BgMove`` action but ``play``);
    ``IllegalMoveError`` names the rule that forbids it."""
    phase = state.phase
    if action == "roll":
        if phase != DECIDE:
            raise IllegalMoveError(not_now(state, "roll"))
        return state.evolve(phase=DICE, rolled=True)
    if action == "double":
        return _double(state)
    if action in ("take", "drop", "beaver"):
        return _answer_double(state, action)
    if action == "resign":
        if phase not in (DECIDE, MOVING):
            raise IllegalMoveError(not_now(state, "resign"))
        if level not in (1, 2, 3):
            raise IllegalMoveError("resign single, gammon or backgammon")
        return state.evolve(phase=RESIGNING, resigner=state.turn, resign_level=level)
    if action in ("accept", "reject"):
        return _answer_resignation(state, action)
    raise IllegalMoveError(f"unknown action {action!r}")


def legal_actions(state: BackgammonState) -> list[BgMove]:
    """The actions the seat to act may take outside the moving phase (resigning, which
    bots would offer at random, is left out).

    >>> [m.action for m in legal_actions(BackgammonState().evolve(phase=DECIDE))]
    ['roll', 'double']
    """
    phase = state.phase
    if phase == DECIDE:
        return [moves.ROLL, moves.DOUBLE] if can_double(state) else [moves.ROLL]
    if phase == DOUBLED:
        out = [moves.TAKE, moves.DROP]
        if may_beaver(state) and not state.beavered:
            out.append(moves.BEAVER)
        return out
    if phase == RESIGNING:
        return [moves.ACCEPT, moves.REJECT]
    return []


def _double(state: BackgammonState) -> BackgammonState:
    if state.phase != DECIDE:
        if state.phase == MOVING:
            raise IllegalMoveError("you can only double at the start of your turn, before rolling")
        raise IllegalMoveError(not_now(state, "double"))
    if not can_double(state):
        raise IllegalMoveError(why_no_double(state))
    return state.evolve(phase=DOUBLED, rolled=False)


def _answer_double(state: BackgammonState, action: str) -> BackgammonState:
    if state.phase != DOUBLED:
        raise IllegalMoveError(f"there is no double to {action}")
    doubler = state.turn
    if state.beavered:
        # The original doubler answers the beaver; the beaverer keeps the cube.
        if action == "take":
            return state.evolve(phase=DICE, cube=state.cube * 2, beavered=False)
        if action == "drop":
            return end_game(state, 1 - doubler, 1, "drop")
        raise IllegalMoveError("a beaver cannot be beavered back (no raccoons here)")
    if action == "take":
        return state.evolve(phase=DICE, cube=state.cube * 2, cube_owner=1 - doubler)
    if action == "drop":
        return end_game(state, doubler, 1, "drop")
    if not may_beaver(state):
        raise IllegalMoveError("beavers are allowed only in money play with the beaver option")
    return state.evolve(cube=state.cube * 2, cube_owner=1 - doubler, beavered=True)


def _answer_resignation(state: BackgammonState, action: str) -> BackgammonState:
    if state.phase != RESIGNING or state.resigner is None:
        raise IllegalMoveError(f"there is no resignation to {action}")
    if action == "accept":
        return end_game(state, 1 - state.resigner, state.resign_level, "resign")
    back = state.evolve(resigner=None, resign_level=0)
    if back.dice is not None:
        return back.evolve(phase=MOVING)
    return start_turn(back)


# --- the end of a play, a game and a match -------------------------------------------------


def after_play(state: BackgammonState, after_me: Side, after_opp: Side) -> BackgammonState:
    """The state once the seat on roll's checker play left the sides ``after_me`` (its
    own) and ``after_opp``: the game ends when it bore off its last checker, else the
    other seat's turn begins. The play is not checked here."""
    board = (after_me, after_opp) if state.turn == 0 else (after_opp, after_me)
    if sum(after_me) == 0:
        moved = state.evolve(board=board)
        return end_game(moved, state.turn, game_value(after_me, after_opp), "normal")
    return start_turn(state.evolve(board=board, turn=1 - state.turn))


def game_value(winner_side: Side, loser_side: Side) -> int:
    """1 single, 2 gammon (loser bore off nothing), 3 backgammon (and has a checker on the
    bar or in the winner's home board).

    >>> game_value((0,) * 25, start_side())
    3
    """
    del winner_side
    if borne_off(loser_side) > 0:
        return 1
    if loser_side[BAR] or any(loser_side[18:24]):
        return 3
    return 2


def _jacoby_applies(state: BackgammonState) -> bool:
    # Money play only; "turned" means a double was offered and taken (an automatic double
    # on the opening roll does not turn the cube).
    return state.is_money and state.options.jacoby and state.cube_owner is None


def _over(state: BackgammonState, score: tuple[int, int], result: GameResult) -> BackgammonState:
    """The match (or money game) over with ``score``, ``result`` its last game."""
    return state.evolve(
        phase=OVER,
        dice=None,
        resigner=None,
        resign_level=0,
        rolled=False,
        beavered=False,
        score=score,
        last_game=result,
    )


def end_game(state: BackgammonState, winner: int, value: int, reason: str) -> BackgammonState:
    """Score a finished game; start the next game of the match or end it."""
    if _jacoby_applies(state) and reason in ("normal", "resign"):
        value = 1
    points = value * state.cube
    result = GameResult(winner=winner, value=value, cube=state.cube, points=points, reason=reason)
    score = [state.score[0], state.score[1]]
    length = state.match_length
    if state.is_money:
        score[winner] += points
        return _over(state, (score[0], score[1]), result)
    score[winner] = min(length, score[winner] + points)  # points beyond the length don't count
    new_score = (score[0], score[1])
    if score[winner] >= length:
        return _over(state, new_score, result)
    post = state.post_crawford or state.crawford_game
    crawford = state.options.crawford and not post and any(s == length - 1 for s in new_score)
    return BackgammonState(
        board=(start_side(), start_side()),
        turn=0,
        phase=OPENING,
        dice=None,
        cube=1,
        cube_owner=None,
        score=new_score,
        crawford_game=crawford,
        post_crawford=post and state.options.crawford,
        last_game=result,
        options=state.options,
    )


def forfeit(state: BackgammonState, seat: int, reason: str) -> BackgammonState:
    """``seat`` gives up the whole match: the other seat wins it. In money play the game
    counts as lost with the gammon/backgammon the board shows."""
    if state.phase == OVER:
        return state
    winner = 1 - seat
    value = game_value(state.board[winner], state.board[seat])
    if state.phase == OPENING:
        value = 1
    ended = end_game(state, winner, value, reason)
    if state.is_money:
        return ended
    assert ended.last_game is not None
    score = [ended.score[0], ended.score[1]]
    score[winner] = state.match_length
    # The board and cube stay as they were when the match was given up.
    return _over(state, (score[0], score[1]), ended.last_game)
