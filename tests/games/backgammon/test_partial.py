"""Partial plays for the cursor UI: only steps that can still finish legally are offered."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from door.games.backgammon.movegen import legal_plays
from door.games.backgammon.partial import PartialPlay
from door.games.backgammon.position import start_side
from door.games.backgammon.rules import BackgammonRules, mover_sides
from door.games.base import IllegalMoveError
from tests.games.backgammon.helpers import moving_state, opp_holding, random_cases, side

R = BackgammonRules()


def test_first_steps_of_the_opening_3_1() -> None:
    pp = PartialPlay.start(moving_state(start_side(), start_side(), 3, 1))
    assert sorted((s[0], s[1]) for s in pp.next_steps()) == sorted(
        [(24, 21), (13, 10), (8, 5), (6, 3), (24, 23), (8, 7), (6, 5)]
    )
    assert not pp.is_complete() and pp.dice_left() == (3, 1)


def test_must_use_both_dice_allows_only_the_order_that_works() -> None:
    # Checker on 24, 19 held, 5-2: only the 2 may be played first.
    pp = PartialPlay.start(moving_state(side(p24=1), opp_holding(19), 5, 2))
    assert [(s[0], s[1], s[2]) for s in pp.next_steps()] == [(24, 22, 2)]
    with pytest.raises(IllegalMoveError):
        pp.add((24, 19, 5, False))


def test_larger_die_rule_offers_only_the_larger_die() -> None:
    pp = PartialPlay.start(moving_state(side(p24=1), opp_holding(13), 6, 5))
    assert [(s[0], s[1]) for s in pp.next_steps()] == [(24, 18)]


def test_destinations_include_moves_using_several_dice() -> None:
    pp = PartialPlay.start(moving_state(start_side(), start_side(), 6, 5))
    dests = dict(pp.destinations(24))
    assert set(dests) == {18, 13}  # 24/19 is blocked (opponent's 6-point)
    assert [s[2] for s in dests[13]] == [6, 5]


def test_move_checker_takes_several_steps_and_completes_the_play() -> None:
    state = moving_state(start_side(), start_side(), 6, 5)
    pp = PartialPlay.start(state).move_checker(24, 13)
    assert pp.is_complete() and pp.notation() == "24/13"
    after = R.apply(state, pp.move())
    assert mover_sides(after)[1][12] == 6  # the mover (now the opponent) has 6 on 13


def test_undo_takes_back_the_last_step() -> None:
    pp = PartialPlay.start(moving_state(start_side(), start_side(), 3, 1))
    one = pp.add((8, 5, 3, False))
    two = one.add((6, 5, 1, False))
    assert two.is_complete() and two.notation() == "8/5 6/5"
    assert two.undo() == one and one.undo().steps == () and pp.undo() == pp
    assert two.reset().steps == ()


def test_an_unfinished_play_cannot_be_submitted() -> None:
    pp = PartialPlay.start(moving_state(start_side(), start_side(), 3, 1)).add((8, 5, 3, False))
    with pytest.raises(IllegalMoveError, match="not finished"):
        pp.move()


def test_bearing_off_is_destination_off() -> None:
    pp = PartialPlay.start(moving_state(side(p5=1, p4=1), (0,) * 25, 6, 1))
    dests = dict(pp.destinations(5))
    assert 0 in dests
    assert set(dict(pp.destinations(4))) == {3}  # 4/off with the 6 is illegal while 5 is occupied


def test_no_legal_play_is_complete_at_once() -> None:
    state = moving_state(side(bar=1, p6=5), opp_holding(19, 20, 21, 22, 23, 24), 6, 5)
    pp = PartialPlay.start(state)
    assert pp.next_steps() == [] and pp.is_complete()
    assert R.format_move(state, pp.move()) == "(no play)"


def test_partial_play_needs_a_roll() -> None:
    with pytest.raises(IllegalMoveError):
        PartialPlay.start(R.new_game(2, {}))


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_following_next_steps_always_ends_in_a_legal_play(seed: int) -> None:
    me, opp, d1, d2 = random_cases(seed, 1)[0]
    state = moving_state(me, opp, d1, d2)
    legal = {(p[1], p[2]) for p in legal_plays(me, opp, d1, d2)}
    rng = random.Random(seed)
    pp = PartialPlay.start(state)
    while not pp.is_complete():
        steps = pp.next_steps()
        assert steps, "stuck before the play was complete"
        pp = pp.add(rng.choice(steps))
    assert pp.next_steps() == []
    if legal:
        assert pp.sides() in legal
    R.apply(state, pp.move())  # accepted by the rules
