"""The quick ways a play is read and applied give what the full move list gives.

``parse_move`` first looks for a play of every die reaching the written position
(``movegen.find_full_play``) before listing every play; ``apply`` proves a play of every
die by its steps alone; ``apply_unchecked`` (the fast path) does not check at all. These
specs pin that no shortcut changes a single step, position or message, and that a move
is a plain value: where it came from never changes what it does.
"""

from __future__ import annotations

import dataclasses
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from door.games.backgammon import BackgammonRules, BgMove, movegen
from door.games.backgammon.movegen import find_full_play, legal_plays
from door.games.backgammon.moves import DOUBLE
from door.games.backgammon.position import MOVING, BackgammonState, Side
from door.games.base import IllegalMoveError
from tests.games.backgammon.helpers import random_cases, side

R = BackgammonRules()


def moving(me: Side, opp: Side, d1: int, d2: int, turn: int = 0) -> BackgammonState:
    """Seat ``turn`` (holding ``me``) to play ``d1``-``d2``."""
    board = (me, opp) if turn == 0 else (opp, me)
    return BackgammonState(board=board, turn=turn, phase=MOVING, dice=(d1, d2))


def full(d1: int, d2: int) -> int:
    return 4 if d1 == d2 else 2


def test_find_full_play_returns_exactly_the_steps_legal_plays_lists() -> None:
    checked = 0
    for me, opp, d1, d2 in random_cases(4, 300):
        for steps, after_me, after_opp in legal_plays(me, opp, d1, d2):
            found = find_full_play(me, opp, d1, d2, (after_me, after_opp))
            if len(steps) == full(d1, d2):
                assert found == steps
                checked += 1
            else:
                assert found is None
    assert checked > 1000  # the cases do reach many full plays


def test_find_full_play_finds_nothing_for_a_position_no_play_reaches() -> None:
    me = side(p24=2, p13=5, p8=3, p6=5)
    opp = side(p24=2, p13=5, p8=3, p6=5)
    # 24/19 with 3-1 would need a 5: no play of both dice ends there.
    target = (side(p24=1, p19=1, p13=5, p8=3, p6=5), opp)
    assert find_full_play(me, opp, 3, 1, target) is None


@given(st.integers(0, 2**32 - 1))
@settings(max_examples=60, deadline=None)
def test_a_parsed_play_applies_to_the_same_state_as_its_bare_steps(seed: int) -> None:
    rng = random.Random(seed)
    me, opp, d1, d2 = random_cases(seed, 2)[rng.randrange(2)]
    state = moving(me, opp, d1, d2, turn=rng.randrange(2))
    for move in R.legal_moves(state):
        text = R.format_move(state, move)
        parsed = R.parse_move(state, text)
        bare = BgMove("play", parsed.steps)
        assert parsed == move
        assert R.format_move(state, parsed) == text
        assert R.apply(state, parsed) == R.apply(state, bare) == R.apply(state, move)


def test_moves_read_or_listed_by_the_rules_still_equal_plain_moves() -> None:
    state = moving(*random_cases(9, 1)[0][:2], 3, 1)
    for move in R.legal_moves(state):
        assert move == BgMove("play", move.steps)
        assert hash(move) == hash(BgMove("play", move.steps))
        assert repr(move) == repr(BgMove("play", move.steps))


def test_a_play_read_on_one_position_is_checked_on_another() -> None:
    opening = moving(*([side(p24=2, p13=5, p8=3, p6=5)] * 2), 6, 5)
    run = R.parse_move(opening, "24/13")
    blocked = moving(side(p24=2, p13=5, p8=3, p6=5), side(p7=2, p13=5, p8=1, p6=5), 6, 5)
    # 24/18 lands on a point the opponent holds in the second position
    try:
        R.apply(blocked, run)
    except IllegalMoveError as exc:
        assert "not a legal move" in str(exc)
    else:
        raise AssertionError("a play proved on one position was trusted on another")


def test_a_play_read_with_one_roll_is_checked_with_another() -> None:
    start = side(p24=2, p13=5, p8=3, p6=5)
    run = R.parse_move(moving(start, start, 6, 5), "24/13")
    try:
        R.apply(moving(start, start, 6, 4), run)
    except IllegalMoveError as exc:
        assert "needs a 5" in str(exc)
    else:
        raise AssertionError("a play proved with 6-5 was trusted with 6-4")


def test_a_read_play_with_its_steps_replaced_is_checked_as_written() -> None:
    start = side(p24=2, p13=5, p8=3, p6=5)
    state = moving(start, start, 6, 5)
    run = R.parse_move(state, "24/13")
    changed = dataclasses.replace(run, steps=((24, 18, 6, False), (18, 12, 6, False)))
    try:
        R.apply(state, changed)
    except IllegalMoveError as exc:
        assert "needs a 6" in str(exc)
    else:
        raise AssertionError("a changed play kept the proof of the original")


@given(st.integers(0, 2**32 - 1))
@settings(max_examples=60, deadline=None)
def test_the_unchecked_fast_path_gives_what_apply_gives_for_every_legal_move(seed: int) -> None:
    rng = random.Random(seed)
    me, opp, d1, d2 = random_cases(seed, 2)[rng.randrange(2)]
    state = moving(me, opp, d1, d2, turn=rng.randrange(2))
    for move in R.legal_moves(state):
        assert R.apply_unchecked(state, move) == R.apply(state, move)


def test_a_play_of_every_die_is_applied_without_listing_every_play(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    start = side(p24=2, p13=5, p8=3, p6=5)
    state = moving(start, start, 6, 5)
    move = R.parse_move(state, "24/13")

    def no_listing(*args: object) -> None:
        raise AssertionError("apply listed every play")

    monkeypatch.setattr(movegen, "legal_plays", no_listing)
    after = R.apply(state, move)
    assert after.board[0] == side(p13=6, p24=1, p8=3, p6=5)


def test_an_action_on_the_fast_path_is_still_checked() -> None:
    start = side(p24=2, p13=5, p8=3, p6=5)
    state = moving(start, start, 6, 5)
    with pytest.raises(IllegalMoveError, match="before rolling"):
        R.apply_unchecked(state, DOUBLE)
