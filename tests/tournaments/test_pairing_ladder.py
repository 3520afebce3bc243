"""The standing ladder: challenges up to `reach` above; the winner takes the higher place."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from door.services.tournaments import Ladder

LADDER = Ladder(reach=2)


def test_a_winning_challenger_takes_the_targets_place_and_those_between_move_down() -> None:
    assert LADDER.after_result((1, 2, 3, 4), challenger=4, target=2, winner=4) == (1, 4, 2, 3)


def test_a_winning_target_keeps_the_ladder_as_it_was() -> None:
    assert LADDER.after_result((1, 2, 3, 4), challenger=4, target=2, winner=2) == (1, 2, 3, 4)


def test_challenges_reach_only_k_places_up() -> None:
    pos = (1, 2, 3, 4)
    assert LADDER.may_challenge(pos, 4, 2) and LADDER.may_challenge(pos, 4, 3)
    assert not LADDER.may_challenge(pos, 4, 1)  # three places up
    assert not LADDER.may_challenge(pos, 2, 3)  # below
    assert not LADDER.may_challenge(pos, 2, 2)
    assert not LADDER.may_challenge(pos, 9, 1)  # not on the ladder


def test_new_players_enter_at_the_bottom_and_leavers_close_the_gap() -> None:
    assert LADDER.join((1, 2), 7) == (1, 2, 7)
    assert LADDER.join((1, 2, 7), 7) == (1, 2, 7)
    assert LADDER.leave((1, 2, 7), 2) == (1, 7)


@settings(max_examples=60, deadline=None)
@given(n=st.integers(2, 30), data=st.data())
def test_any_result_keeps_everyone_on_the_ladder_once(n: int, data: st.DataObject) -> None:
    pos = tuple(range(1, n + 1))
    for _ in range(20):
        c = data.draw(st.sampled_from(pos[1:]))
        i = pos.index(c)
        t = pos[data.draw(st.integers(max(0, i - LADDER.reach), i - 1))]
        assert LADDER.may_challenge(pos, c, t)
        w = data.draw(st.sampled_from([c, t]))
        after = LADDER.after_result(pos, c, t, w)
        assert sorted(after) == sorted(pos)
        assert after.index(w) == min(pos.index(c), pos.index(t))
        # Only the places from the target's to the challenger's change.
        lo, hi = pos.index(t), pos.index(c)
        assert after[:lo] == pos[:lo] and after[hi + 1 :] == pos[hi + 1 :]
        pos = after
