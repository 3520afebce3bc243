"""Without bgsage a computer player still resigns a dead race (issue 22, point 3), but only
what exact bounds on the turns left make sure: never a game it could still save."""

from __future__ import annotations

from dataclasses import replace

from door.games.backgammon.moves import ROLL, resign
from door.games.backgammon.position import DECIDE, BackgammonState, check_board
from door.games.backgammon.rules import BackgammonRules
from door.services.bgengine import BgEngine

RULES = BackgammonRules()


def side(**points: int) -> tuple[int, ...]:
    s = [0] * 25
    for key, n in points.items():
        s[int(key[1:]) - 1] = n
    return tuple(s)


def on_roll(me: tuple[int, ...], opp: tuple[int, ...]) -> BackgammonState:
    state = replace(RULES.new_game(2, {"match_length": 0}), turn=0, phase=DECIDE, dice=None)
    check_board((me, opp))
    return state.with_board(me, opp)


def fallback() -> BgEngine:
    return BgEngine("bg-expert", use_bgsage=False)


# The opponent bears off its last two checkers next turn whatever it rolls.
LAST_TWO = side(p1=2)


def test_a_race_lost_for_sure_with_checkers_off_is_resigned_as_a_single() -> None:
    state = on_roll(side(p6=5, p5=5), LAST_TWO)  # 5 borne off, 10 to go: 3 turns at least
    assert fallback().choose(state) == resign(1)


def test_a_race_lost_without_a_checker_off_in_time_is_resigned_as_a_gammon() -> None:
    state = on_roll(side(p8=15), LAST_TWO)  # none off, none home yet
    assert fallback().choose(state) == resign(2)


def test_checkers_stuck_in_the_opponents_home_board_are_resigned_as_a_backgammon() -> None:
    state = on_roll(side(p20=15), LAST_TWO)
    assert fallback().choose(state) == resign(3)


def test_a_race_that_doubles_could_still_save_is_played_on() -> None:
    # four checkers on the one point: double ones bear them all off at once
    state = on_roll(side(p1=4), side(p1=2, p2=1))
    assert fallback().choose(state) == ROLL
