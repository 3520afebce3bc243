"""Whole matches of random legal actions, played to the end with invariants checked."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from door.games.backgammon.moves import BgMove
from door.games.backgammon.position import CHECKERS, DECIDE, MOVING, OVER, BackgammonState
from door.games.backgammon.rules import BackgammonRules

R = BackgammonRules()


def _choose(rng: random.Random, moves: list[BgMove]) -> BgMove:
    """Random, but games mostly run to the bear-off: doubles are rare and usually taken."""
    actions = {m.action: m for m in moves}
    if "roll" in actions:
        return actions["double"] if "double" in actions and rng.random() < 0.05 else actions["roll"]
    if "take" in actions:
        r = rng.random()
        if r < 0.15:
            return actions["drop"]
        if r < 0.25 and "beaver" in actions:
            return actions["beaver"]
        return actions["take"]
    return rng.choice(moves)


def play_out(seed: int, options: dict[str, object], check: bool = True) -> BackgammonState:
    rng = random.Random(seed)
    state = R.new_game(2, options)
    for _ in range(5000):
        if check:
            for seat in (0, 1):
                assert sum(state.board[seat]) + state.off(seat) == CHECKERS
            assert R.from_id(R.to_id(state)) == state
        if R.outcome(state) is not None:
            return state
        if R.chance_pending(state):
            state = R.apply_chance(state, R.sample_chance(state, rng))
            continue
        moves = list(R.legal_moves(state))
        assert moves, f"nothing to do in phase {state.phase}"
        if state.phase in (DECIDE, MOVING) and rng.random() < 0.01:
            moves = [BgMove("resign", level=rng.randint(1, 3))]
        move = _choose(rng, moves)
        if check and state.phase == MOVING and rng.random() < 0.3:
            # The notation of the chosen play reads back as the same play.
            text = R.format_move(state, move)
            assert R.apply(state, R.parse_move(state, text)) == R.apply(state, move)
        state = R.apply(state, move)
    raise AssertionError("the match did not end")


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([1, 3, 5]))
def test_random_matches_end_with_a_winner_at_the_match_length(seed: int, length: int) -> None:
    state = play_out(seed, {"match_length": length})
    out = R.outcome(state)
    assert out is not None and state.phase == OVER
    (winner,) = out.winners
    assert out.scores[winner] == length and out.scores[1 - winner] < length
    assert R.legal_moves(state) == [] and R.to_act(state) is None


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.booleans(), st.booleans(), st.booleans())
def test_random_money_games_end_with_points_for_the_winner(
    seed: int, jacoby: bool, beavers: bool, auto: bool
) -> None:
    opts = {"match_length": 0, "jacoby": jacoby, "beavers": beavers, "auto_doubles": auto}
    state = play_out(seed, opts)
    out = R.outcome(state)
    assert out is not None
    (winner,) = out.winners
    g = state.last_game
    assert g is not None and out.scores[winner] == g.points == g.value * g.cube
    assert out.scores[1 - winner] == 0
    assert R.legal_moves(state) == []
    if g.reason == "normal":
        assert sum(state.board[winner]) == 0  # the winner bore off every checker


def test_a_finished_game_refuses_every_move() -> None:
    state = play_out(11, {"match_length": 1}, check=False)
    for text in ("roll", "double", "take", "resign"):
        try:
            R.apply(state, R.parse_move(state, text))
        except ValueError as exc:
            assert "over" in str(exc)
        else:
            raise AssertionError(f"{text} was accepted after the match ended")


def test_replaying_the_log_reproduces_the_match() -> None:
    rng = random.Random(99)
    state = R.new_game(2, {"match_length": 3})
    log: list[tuple[str, object]] = []
    while R.outcome(state) is None:
        if R.chance_pending(state):
            event = R.sample_chance(state, rng)
            log.append(("chance", R.chance_to_json(event)))
            state = R.apply_chance(state, event)
        else:
            move = _choose(rng, list(R.legal_moves(state)))
            log.append(("move", R.format_move(state, move)))
            state = R.apply(state, move)
    replay = R.new_game(2, {"match_length": 3})
    for kind, payload in log:
        if kind == "chance":
            replay = R.apply_chance(replay, R.chance_from_json(payload))
        else:
            replay = R.apply(replay, R.parse_move(replay, str(payload)))
    assert replay == state
