"""The bgsage-free cube (door.games.backgammon.fallback): Janowski at money play."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from door.games.backgammon import fallback
from door.games.backgammon.pubeval import CubeState, Probs, invert

CENTRED = CubeState()


def test_a_clear_double_and_take_at_seventy_two_percent_without_gammons() -> None:
    p: Probs = (0.72, 0.0, 0.0, 0.0, 0.0)
    assert fallback.should_double(p, CENTRED)
    assert fallback.should_take(invert(p), CENTRED)


def test_a_clear_drop_at_eighty_five_percent_with_gammons() -> None:
    p: Probs = (0.85, 0.10, 0.0, 0.01, 0.0)
    assert fallback.should_double(p, CENTRED)
    assert not fallback.should_take(invert(p), CENTRED)


def test_the_race_underdog_never_doubles() -> None:
    for win in (0.30, 0.45, 0.49):
        assert not fallback.should_double((win, 0.0, 0.0, 0.0, 0.0), CENTRED)


def test_a_player_does_not_double_a_cube_the_opponent_owns() -> None:
    assert not fallback.should_double((0.9, 0.2, 0.0, 0.0, 0.0), CubeState(2, False))


def test_beaver_only_when_the_taker_is_the_cubeful_favourite() -> None:
    taker_ahead: Probs = (0.60, 0.0, 0.0, 0.0, 0.0)  # the doubler has 40 %
    assert fallback.should_beaver(taker_ahead, CENTRED)
    assert not fallback.should_beaver((0.35, 0.0, 0.0, 0.0, 0.0), CENTRED)


def test_a_gammon_resignation_is_accepted_when_a_gammon_is_all_that_is_left() -> None:
    p: Probs = (1.0, 1.0, 0.0, 0.0, 0.0)
    assert fallback.should_accept_resignation(p, 2, CENTRED)
    assert not fallback.should_accept_resignation(p, 1, CENTRED)


probs = st.tuples(
    st.floats(0.01, 0.99),
    st.floats(0.0, 1.0),
    st.floats(0.0, 1.0),
    st.floats(0.0, 1.0),
    st.floats(0.0, 1.0),
).map(
    lambda t: (t[0], t[0] * t[1], t[0] * t[1] * t[2], (1 - t[0]) * t[3], (1 - t[0]) * t[3] * t[4])
)


@given(probs)
def test_nobody_doubles_as_the_cubeless_underdog(p: Probs) -> None:
    if p[0] < 0.5 and p[1] <= p[3]:
        assert not fallback.should_double(p, CENTRED)


@given(probs)
def test_a_double_the_taker_should_drop_is_never_one_the_doubler_should_skip_by_much(
    p: Probs,
) -> None:
    # Past the drop point doubling cashes a full point, never less than no double + 0.
    nd, dt = fallback.money_equities(p, CENTRED)
    if dt > 1.0:
        assert fallback.should_double(p, CENTRED) == (nd < 1.0)
