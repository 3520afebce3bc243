"""The fallback evaluator's neural network: its inputs, its fast path, and what it knows."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings

from door.games.backgammon import pubeval
from door.games.backgammon.rules import BackgammonRules
from tests.bots.test_pubeval import WEIGHTS, boards, side

RULES = BackgammonRules()


def board_with(**points: int) -> list[int]:
    """An engine board from keyword entries: p10=1 one of the mover's checkers on his
    10-point, p4=-2 two of the opponent's there, bar=1 / opp_bar=1 checkers on the bars."""
    b = [0] * 26
    for key, n in points.items():
        b[{"bar": 25, "opp_bar": 0}[key] if "bar" in key else int(key[1:])] = n
    return b


@settings(max_examples=200, deadline=None)
@given(boards())
def test_the_fast_evaluation_gives_what_the_inputs_give(b: list[int]) -> None:
    net = pubeval.shipped_weights().for_board(b)
    slow = net.outputs(pubeval.features(b))
    assert net.evaluate(b) == pytest.approx(slow, rel=1e-9, abs=1e-12)


@settings(max_examples=100, deadline=None)
@given(boards())
def test_the_inputs_are_in_range_and_listed_once(b: list[int]) -> None:
    found = pubeval.features(b)
    indices = [i for i, _ in found]
    assert len(indices) == len(set(indices))
    assert all(0 <= i < pubeval.N_FEATURES and v != 0.0 for i, v in found)
    assert (pubeval.BIAS, 1.0) in found


def test_a_weights_file_read_twice_evaluates_the_same() -> None:
    text = pubeval.shipped_weights()
    again = pubeval.Weights.from_json(
        (pubeval.resources.files("door.games.backgammon") / pubeval.WEIGHTS_FILE).read_text()
    )
    b = pubeval.engine_board(side(p6=5, p8=3, p13=5, p24=2), side(p6=5, p7=2, p13=4, p24=2))
    assert pubeval.probabilities(b, text) == pubeval.probabilities(b, again)


def test_a_blot_out_of_every_checkers_reach_is_never_hit() -> None:
    assert pubeval.shot_chance(board_with(p3=1, p10=-2)) == 0.0  # the hitter is past it


def test_a_blot_six_pips_away_is_hit_by_seventeen_rolls() -> None:
    # Any 6 (11 rolls), 5-1 and 4-2 (two ways each), 3-3 and 2-2.
    assert pubeval.shot_chance(board_with(p10=1, p4=-2)) * 36 == pytest.approx(17)


def test_a_combination_shot_through_two_blocked_points_misses() -> None:
    # Eight away: only 6-2, 5-3, 4-4, 2-2 reach; with the 6 and 2 (10 and 6), the 5 and
    # 3 (9 and 7) points made, only the doubles are left, and 2-2 stops on the made 6.
    b = board_with(p12=1, p4=-1, p10=2, p6=2, p9=2, p7=2)
    assert pubeval.shot_chance(b) * 36 == pytest.approx(1)  # 4-4 through the 8-point


def test_an_opponent_on_the_bar_is_counted_as_hitting_from_the_bar_only() -> None:
    # His checker on the 2-point would hit with any 1; from the bar any 3, 1-2 and 1-1.
    b = board_with(p3=1, p2=-1, opp_bar=1)
    assert pubeval.shot_chance(b) * 36 == pytest.approx(11 + 2 + 1)


@pytest.mark.parametrize(
    ("dice", "best"),
    [((3, 1), "8/5 6/5"), ((4, 2), "8/4 6/4"), ((6, 1), "13/7 8/7"), ((5, 3), "8/3 6/3")],
)
def test_the_network_makes_a_point_with_the_opening_rolls_that_make_one(
    dice: tuple[int, int], best: str
) -> None:
    state = RULES.apply_chance(RULES.new_game(2, {"match_length": 0}), dice)
    plays = RULES.plays(state)
    i = pubeval.choose_play([pubeval.engine_board(me, opp) for _, me, opp in plays], WEIGHTS)
    assert RULES.format_move(state, RULES.legal_moves(state)[i]) == best


def test_a_race_with_all_checkers_home_against_a_far_behind_opponent_is_won() -> None:
    b = pubeval.engine_board(side(p1=5, p2=5, p3=5), side(p13=5, p14=5, p15=5))
    assert pubeval.is_race(b)
    win, gammon, _bg, _gl, _bgl = pubeval.probabilities(b, WEIGHTS)
    assert win > 0.99 and gammon > 0.5


def test_a_closed_out_checker_against_a_big_lead_is_a_likely_loss() -> None:
    # The mover has a checker on the bar against a closed board and is far behind.
    me = side(bar=1, p13=6, p8=4, p6=4)
    opp = side(p1=2, p2=2, p3=2, p4=2, p5=2, p6=5)
    p = pubeval.probabilities(pubeval.engine_board(me, opp), WEIGHTS)
    assert p[0] < 0.2 and p[3] > 0.1


def test_the_weights_file_is_small() -> None:
    text = (pubeval.resources.files("door.games.backgammon") / pubeval.WEIGHTS_FILE).read_text()
    assert len(text.encode()) < 1_000_000
    doc = json.loads(text)
    assert doc["hidden_units"] == pubeval.shipped_weights().contact.size
