"""The expert's cube on positions with a known answer, for money and at match scores
(bgsage's cubeful evaluation; the match-equity table at match play)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from door.games.backgammon.moves import DOUBLE, DROP, ROLL, TAKE
from door.games.backgammon.position import DECIDE, DOUBLED, BackgammonState, check_board
from door.games.backgammon.rules import BackgammonRules
from door.services.bgengine import BgEngine, has_bgsage

pytestmark = pytest.mark.skipif(not has_bgsage(), reason="bgsage is not installed here")
RULES = BackgammonRules()


def side(**points: int) -> tuple[int, ...]:
    s = [0] * 25
    for key, n in points.items():
        s[24 if key == "bar" else int(key[1:]) - 1] = n
    return tuple(s)


def position(
    me: tuple[int, ...], opp: tuple[int, ...], phase: str, length: int = 0, **changes: Any
) -> BackgammonState:
    """Seat 0 on roll (``DECIDE``), or seat 1 doubled by seat 0 (``DOUBLED``)."""
    state = RULES.new_game(2, {"match_length": length, "jacoby": False})
    state = replace(state, turn=0, phase=phase, dice=None, **changes)
    check_board((me, opp))
    return state.with_board(me, opp)


@pytest.fixture(scope="module")
def expert() -> BgEngine:
    return BgEngine("bg-expert")


EVEN = (side(p6=5, p8=3, p13=5, p24=2), side(p6=5, p8=3, p13=5, p24=2))
# A race of 55 against 64 pips, the leader on roll: past the point, and a pass (16%).
RACE_PASS = (side(p2=2, p3=2, p4=3, p5=3, p6=3), side(p2=2, p3=2, p4=3, p5=3, p6=2, p7=1, p8=1))
# The leader is bearing off while the other has all 15 far from home: a near-sure gammon.
GAMMON = (side(p1=3, p2=3, p3=2), side(p13=5, p14=5, p15=5))


def test_nobody_doubles_an_even_opening_for_money_and_the_double_is_taken(
    expert: BgEngine,
) -> None:
    assert expert.choose(position(*EVEN, DECIDE)) == ROLL
    assert expert.choose(position(*EVEN, DOUBLED)) == TAKE


def test_a_race_lead_of_sixteen_percent_is_doubled_and_dropped(expert: BgEngine) -> None:
    assert expert.choose(position(*RACE_PASS, DECIDE)) == DOUBLE
    assert expert.choose(position(*RACE_PASS, DOUBLED)) == DROP


def test_a_near_sure_gammon_is_too_good_to_double_for_money(expert: BgEngine) -> None:
    assert expert.choose(position(*GAMMON, DECIDE)) == ROLL
    assert expert.choose(position(*GAMMON, DOUBLED)) == DROP


def test_in_the_crawford_game_the_trailer_cannot_double_and_rolls(expert: BgEngine) -> None:
    state = position(*RACE_PASS, DECIDE, length=5, score=(3, 4), crawford_game=True)
    assert DOUBLE not in RULES.legal_moves(state)
    assert expert.choose(state) == ROLL


def test_after_crawford_the_trailer_doubles_an_even_position_at_once(expert: BgEngine) -> None:
    # For money the same position is no double (above); at 2-away against 1-away the
    # trailer has nothing to lose by doubling.
    state = position(*EVEN, DECIDE, length=5, score=(3, 4), post_crawford=True)
    assert expert.choose(state) == DOUBLE


def test_the_leader_at_one_away_uses_his_free_drop_where_money_would_take(
    expert: BgEngine,
) -> None:
    # Dropping leaves double match point (50%), better than the game the trailer (on
    # roll) is favourite in; for money the same double is a clear take.
    state = position(*EVEN, DOUBLED, length=5, score=(3, 4), post_crawford=True, cube=1)
    assert expert.choose(state) == DROP
    assert expert.choose(position(*EVEN, DOUBLED)) == TAKE


def test_after_crawford_a_trailer_sure_of_a_gammon_plays_on_rather_than_double(
    expert: BgEngine,
) -> None:
    # At 2-away the near-sure gammon at a cube of 1 is the match; a double would let the
    # leader drop to double match point (bgsage's own should_double gets this wrong).
    state = position(*GAMMON, DECIDE, length=5, score=(3, 4), post_crawford=True)
    assert expert.choose(state) == ROLL
