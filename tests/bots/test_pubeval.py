"""The pure-Python fallback evaluator and its cube policy."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from door.games.backgammon import pubeval
from door.games.backgammon.position import start_side
from door.games.backgammon.rules import BackgammonRules

RULES = BackgammonRules()
START = pubeval.engine_board(start_side(), start_side())
WEIGHTS = pubeval.shipped_weights()  # read once for the module


def side(**points: int) -> tuple[int, ...]:
    """A 25-entry side from keyword points: p6=5 puts five checkers on the 6-point,
    bar=1 one on the bar."""
    s = [0] * 25
    for key, n in points.items():
        s[24 if key == "bar" else int(key[1:]) - 1] = n
    return tuple(s)


@st.composite
def boards(draw: st.DrawFn) -> list[int]:
    """Random legal engine boards (each side 0-15 checkers, no shared points)."""
    points = draw(st.permutations(list(range(1, 25))))
    mine = draw(st.integers(1, 15))
    theirs = draw(st.integers(1, 15))
    b = [0] * 26
    for n, sign in ((mine, 1), (theirs, -1)):
        for _ in range(n):
            where = draw(st.sampled_from(points[:12] if sign > 0 else points[12:]) | st.just(-1))
            if where == -1:
                b[25 if sign > 0 else 0] += 1
            else:
                b[where] += sign
    return b


def test_the_opening_position_is_about_even() -> None:
    win = pubeval.pre_roll_probabilities(START, WEIGHTS)[0]
    assert 0.42 < win < 0.58


def test_engine_board_puts_the_movers_checkers_positive_and_bars_at_the_ends() -> None:
    b = pubeval.engine_board(side(p6=5, bar=2), side(p1=3, bar=1))
    assert b[6] == 5 and b[25] == 2
    assert b[24] == -3 and b[0] == 1


def test_flip_turns_the_board_round_and_back() -> None:
    flipped = pubeval.flip(START)
    assert flipped == START  # the opening position is symmetric
    b = pubeval.engine_board(side(p6=5, bar=2), side(p1=3, bar=1))
    assert pubeval.flip(pubeval.flip(b)) == b
    f = pubeval.flip(b)
    assert f[1] == 3 and f[19] == -5
    assert f[25] == 1 and f[0] == 2


@settings(max_examples=150, deadline=None)
@given(boards())
def test_probabilities_are_nested_and_between_zero_and_one(b: list[int]) -> None:
    win, gw, bw, gl, bl = pubeval.probabilities(b, WEIGHTS)
    assert 0.0 <= bw <= gw <= win <= 1.0
    assert 0.0 <= bl <= gl <= 1.0 - win + 1e-12


@settings(max_examples=150, deadline=None)
@given(boards())
def test_a_player_who_has_borne_off_cannot_be_gammoned(b: list[int]) -> None:
    mine = sum(n for n in b[1:25] if n > 0) + b[25]
    p = pubeval.probabilities(b, WEIGHTS)
    if mine < 15:
        assert p[3] == 0.0 and p[4] == 0.0


def test_the_last_checker_off_wins_for_sure() -> None:
    b = pubeval.engine_board(side(), side(p6=15))
    assert pubeval.probabilities(b, WEIGHTS)[:3] == (1.0, 1.0, 0.0)


def test_a_far_ahead_race_is_almost_surely_won() -> None:
    b = pubeval.engine_board(side(p1=2), side(p6=8, p5=7))
    assert pubeval.is_race(b)
    assert pubeval.pre_roll_probabilities(b, WEIGHTS)[0] > 0.95


def test_contact_is_not_a_race() -> None:
    assert not pubeval.is_race(START)


def test_the_fallback_plays_the_textbook_opening_three_one() -> None:
    state = RULES.apply_chance(RULES.new_game(2, {"match_length": 0}), (3, 1))
    plays = RULES.plays(state)
    i = pubeval.choose_play([pubeval.engine_board(me, opp) for _, me, opp in plays], WEIGHTS)
    assert RULES.format_move(state, RULES.legal_moves(state)[i]) == "8/5 6/5"


def test_hitting_a_blot_in_the_home_board_is_preferred_to_a_quiet_move() -> None:
    # Opponent blot on our 5-point; with 6-1 we can hit it from 11 (11/5*) or just run.
    me = side(p6=5, p8=3, p13=4, p11=1, p24=2)
    opp = side(p20=1, p6=5, p8=3, p13=5, p24=1)
    state = replace(RULES.apply_chance(RULES.new_game(2, {"match_length": 0}), (6, 1)))
    state = state.with_board(me, opp)
    plays = RULES.plays(state)
    i = pubeval.choose_play([pubeval.engine_board(m, o) for _, m, o in plays], WEIGHTS)
    assert "*" in RULES.format_move(state, RULES.legal_moves(state)[i])


MONEY = pubeval.CubeState()


def probs(win: float, gammon_share: float = 0.0) -> pubeval.Probs:
    return (win, win * gammon_share, 0.0, (1 - win) * gammon_share, 0.0)


@pytest.mark.parametrize(("win", "double"), [(0.5, False), (0.65, False), (0.72, True)])
def test_money_double_from_about_seventy_percent(win: float, double: bool) -> None:
    assert pubeval.should_double(probs(win), MONEY) is double


def test_too_good_to_double_plays_on_for_the_gammon() -> None:
    assert not pubeval.should_double(probs(0.9, gammon_share=0.5), MONEY)


@pytest.mark.parametrize(("win", "take"), [(0.3, True), (0.23, True), (0.15, False)])
def test_money_take_down_to_about_a_quarter(win: float, take: bool) -> None:
    assert pubeval.should_take(probs(win), MONEY) is take


def test_nobody_doubles_in_the_crawford_game() -> None:
    assert not pubeval.should_double(
        probs(0.8), pubeval.CubeState(away=3, opp_away=1, crawford=True)
    )


def test_the_trailer_doubles_at_once_against_a_one_away_opponent() -> None:
    assert pubeval.should_double(probs(0.3), pubeval.CubeState(away=4, opp_away=1))


def test_a_take_is_forced_when_dropping_loses_the_match() -> None:
    assert pubeval.should_take(probs(0.05), pubeval.CubeState(away=1, opp_away=3))


@pytest.mark.parametrize(("level", "accept"), [(1, False), (2, True)])
def test_a_resignation_is_accepted_when_it_gives_at_least_the_expected_points(
    level: int, accept: bool
) -> None:
    winning_gammonish = (0.97, 0.5, 0.0, 0.0, 0.0)  # about 1.44 points a game
    assert pubeval.should_accept_resignation(winning_gammonish, level, MONEY) is accept
