"""Ratings: the FIBS formula (reference/backgammon.md §4 worked examples) and pairwise Elo."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from door.services.ratings import (
    elo_changes,
    fibs_changes,
    fibs_k,
    fibs_upset_probability,
    match_length,
)

VETERAN = 400  # experience at which K = 1


@pytest.mark.parametrize(
    "winner, loser, length, upset, gain, loss, shown",
    [
        # 1600 vs 1500, 5 points, the favourite wins
        ((1600, VETERAN), (1500, VETERAN), 5, 0.436, 3.90, 3.90, 0.005),
        # 1600 vs 1500, 5 points, the underdog wins
        ((1500, VETERAN), (1600, VETERAN), 5, 0.436, 5.04, 5.04, 0.005),
        # both new (K = 5), 1 point
        ((1500, 0), (1500, 0), 1, 0.5, 10.0, 10.0, 0.05),
        # the new player (K = 5) beats a veteran (K = 1) over 7 points
        ((1500, 0), (1500, VETERAN), 7, 0.5, 26.5, 5.3, 0.05),
    ],
)
def test_fibs_worked_examples(
    winner: tuple[float, int],
    loser: tuple[float, int],
    length: int,
    upset: float,
    gain: float,
    loss: float,
    shown: float,
) -> None:
    """``shown`` is half the last digit the reference table prints."""
    assert fibs_upset_probability(winner[0], loser[0], length) == pytest.approx(upset, abs=5e-4)
    got_gain, got_loss = fibs_changes(winner[0], winner[1], loser[0], loser[1], length)
    assert got_gain == pytest.approx(gain, abs=shown)
    assert got_loss == pytest.approx(loss, abs=shown)


@pytest.mark.parametrize(
    "experience, k", [(0, 5.0), (100, 4.0), (250, 2.5), (400, 1.0), (9000, 1.0)]
)
def test_fibs_k_falls_from_five_to_one_with_experience(experience: int, k: float) -> None:
    assert fibs_k(experience) == k


@settings(max_examples=200, deadline=None)
@given(
    st.floats(800, 2400),
    st.floats(800, 2400),
    st.integers(0, 2000),
    st.integers(1, 25),
)
def test_fibs_the_winner_gains_and_an_upset_pays_more(
    r1: float, r2: float, exp: int, length: int
) -> None:
    gain, loss = fibs_changes(r1, exp, r2, exp, length)
    assert gain > 0 and loss > 0
    assert gain == pytest.approx(loss)  # equal experience: zero-sum
    upset_gain, _ = fibs_changes(r2, exp, r1, exp, length)
    if r1 > r2 + 1e-9:
        assert upset_gain > gain
    assert gain + upset_gain == pytest.approx(4 * fibs_k(exp) * math.sqrt(length))


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.floats(800, 2400), min_size=2, max_size=4).flatmap(
        lambda rs: st.tuples(
            st.just(rs), st.lists(st.integers(1, 4), min_size=len(rs), max_size=len(rs))
        )
    )
)
def test_elo_is_zero_sum_and_a_better_place_never_loses_to_a_worse_one(
    case: tuple[list[float], list[int]],
) -> None:
    ratings, placings = case
    changes = elo_changes(ratings, placings)
    assert sum(changes) == pytest.approx(0, abs=1e-9)
    if len(set(ratings)) == 1:
        for i in range(len(ratings)):
            for j in range(len(ratings)):
                if placings[i] < placings[j]:
                    assert changes[i] > changes[j]


def test_elo_two_equal_players_move_sixteen_points() -> None:
    assert elo_changes([1500, 1500], [1, 2]) == pytest.approx([16.0, -16.0])


def test_elo_a_four_player_game_moves_the_winner_like_one_two_player_game() -> None:
    changes = elo_changes([1500] * 4, [1, 2, 3, 4])
    assert changes[0] == pytest.approx(16.0)
    assert changes[3] == pytest.approx(-16.0)


@pytest.mark.parametrize(
    "options, length",
    [({"match_length": 7}, 7), ({"match_length": 0}, 0), ({}, 0), ({"match_length": "x"}, 0)],
)
def test_match_length_reads_the_options_and_money_play_is_zero(
    options: dict[str, object], length: int
) -> None:
    assert match_length(options) == length
