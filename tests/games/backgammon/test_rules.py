"""BackgammonRules: phases, chance, the cube, resignations, match scoring, IDs, views."""

from __future__ import annotations

import json
import random
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from door.games.backgammon.moves import BgMove
from door.games.backgammon.position import (
    DECIDE,
    DICE,
    DOUBLED,
    MOVING,
    OPENING,
    OVER,
    RESIGNING,
    BackgammonState,
    Options,
)
from door.games.backgammon.rules import BackgammonRules
from door.games.base import GameRules, IllegalMoveError, InvalidMoveError, Refusal
from tests.games.backgammon.helpers import side

R = BackgammonRules()


def act(state: BackgammonState, *texts: str) -> BackgammonState:
    for t in texts:
        state = R.apply(state, R.parse_move(state, t))
    return state


def opened(
    options: dict[str, object] | None = None, dice: tuple[int, int] = (3, 1)
) -> BackgammonState:
    """A new match after the opening roll (seat 0 wins it with ``dice``)."""
    return R.apply_chance(R.new_game(2, options or {}), dice)


def near_end(
    options: dict[str, object],
    winner_side: tuple[int, ...],
    loser_side: tuple[int, ...],
    seat: int = 0,
    **fields: object,
) -> BackgammonState:
    """A state where ``seat`` is on roll in the decide phase with the given sides."""
    board = (winner_side, loser_side) if seat == 0 else (loser_side, winner_side)
    state = BackgammonState(board=board, turn=seat, phase=DECIDE, options=R.options_of(options))
    return replace(state, **fields)  # type: ignore[arg-type]


# --- contract and options ----------------------------------------------------------------


def test_rules_satisfy_the_game_rules_protocol() -> None:
    assert isinstance(R, GameRules)
    assert (R.kind, R.min_seats, R.max_seats) == ("backgammon", 2, 2)


def test_default_options_are_a_five_point_match_with_cube_and_crawford() -> None:
    assert R.validate_options(2, {}) == R.default_options()
    assert R.default_options()["match_length"] == 5


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"match_length": 26}, "0 .money game. to 25"),
        ({"match_length": -1}, "0 .money game. to 25"),
        ({"match_length": "5"}, "whole number"),
        ({"jacoby": True}, "money play only"),
        ({"beavers": True, "match_length": 7}, "money play only"),
        ({"cube": "yes"}, "true or false"),
        ({"colour": "red"}, "unknown backgammon option"),
    ],
)
def test_bad_options_are_refused_with_a_reason(options: dict[str, object], words: str) -> None:
    with pytest.raises(Refusal, match=words):
        R.validate_options(2, options)


def test_three_seats_are_refused() -> None:
    with pytest.raises(Refusal, match="exactly 2"):
        R.validate_options(3, {})


# --- opening roll and chance ---------------------------------------------------------------


def test_new_game_waits_for_the_opening_roll() -> None:
    state = R.new_game(2, {})
    assert state.phase == OPENING and R.chance_pending(state) and R.to_act(state) is None
    assert R.legal_moves(state) == []


def test_opening_tie_is_rolled_again() -> None:
    state = R.new_game(2, {})
    again = R.apply_chance(state, (4, 4))
    assert again.phase == OPENING and R.chance_pending(again) and again.cube == 1


def test_higher_opening_die_moves_first_with_both_numbers() -> None:
    state = R.apply_chance(R.new_game(2, {}), (2, 5))
    assert state.phase == MOVING and state.turn == 1 and state.dice == (5, 2)
    assert R.to_act(state) == 1


def test_automatic_double_on_an_opening_tie_once_per_game() -> None:
    state = R.new_game(2, {"match_length": 0, "auto_doubles": True})
    state = R.apply_chance(state, (3, 3))
    assert state.cube == 2 and state.cube_owner is None and state.phase == OPENING
    state = R.apply_chance(state, (5, 5))
    assert state.cube == 2


def test_no_automatic_double_without_the_option() -> None:
    state = R.apply_chance(R.new_game(2, {"match_length": 0}), (3, 3))
    assert state.cube == 1


def test_dice_out_of_turn_are_refused() -> None:
    with pytest.raises(ValueError, match="no dice are due"):
        R.apply_chance(opened(), (1, 2))


@pytest.mark.parametrize("event", [(0, 3), (7, 1), (1,), "31", (True, 2)])
def test_things_that_are_not_dice_are_refused(event: object) -> None:
    with pytest.raises(ValueError):
        R.apply_chance(R.new_game(2, {}), event)  # type: ignore[arg-type]


def test_chance_events_round_trip_through_json() -> None:
    data = R.chance_to_json((6, 2))
    assert json.loads(json.dumps(data)) == {"dice": [6, 2]}
    assert R.chance_from_json(data) == (6, 2)
    with pytest.raises(ValueError):
        R.chance_from_json({"dice": [1]})


def test_sample_chance_uses_only_the_rng_handed_in() -> None:
    state = R.new_game(2, {})
    a = R.sample_chance(state, random.Random(5))
    b = R.sample_chance(state, random.Random(5))
    assert a == b and all(1 <= d <= 6 for d in a)


# --- turns and the cube ------------------------------------------------------------------


def test_after_a_play_the_opponent_decides_to_roll_or_double() -> None:
    state = act(opened(), "8/5 6/5")
    assert state.phase == DECIDE and state.turn == 1 and R.to_act(state) == 1
    assert [R.format_move(state, m) for m in R.legal_moves(state)] == ["roll", "double"]


def test_roll_makes_the_dice_pending() -> None:
    state = act(opened(), "8/5 6/5", "roll")
    assert state.phase == DICE and R.chance_pending(state) and R.to_act(state) is None
    state = R.apply_chance(state, (6, 4))
    assert state.phase == MOVING and state.dice == (6, 4) and state.turn == 1


def test_double_and_take_gives_the_taker_the_cube_and_the_doubler_rolls() -> None:
    state = act(opened(), "8/5 6/5", "double")
    assert state.phase == DOUBLED and R.to_act(state) == 0
    assert [R.format_move(state, m) for m in R.legal_moves(state)] == ["take", "drop"]
    state = act(state, "take")
    assert (state.cube, state.cube_owner, state.phase, state.turn) == (2, 0, DICE, 1)


def test_only_the_cube_owner_may_redouble_and_others_roll_automatically() -> None:
    state = act(opened(), "8/5 6/5", "double", "take")
    state = R.apply_chance(state, (6, 5))
    state = act(state, "24/13")
    # Seat 0 owns the cube: it may redouble.
    assert state.turn == 0 and state.phase == DECIDE
    state = act(state, "roll")
    state = R.apply_chance(state, (2, 1))
    state = act(state, "13/11 6/5")
    # Seat 1 does not own the cube: its dice are due at once.
    assert state.turn == 1 and state.phase == DICE


def test_doubling_when_the_opponent_owns_the_cube_names_the_rule() -> None:
    state = replace(act(opened(), "8/5 6/5"), cube=2, cube_owner=0)
    with pytest.raises(IllegalMoveError, match="belongs to your opponent"):
        R.apply(state, R.parse_move(state, "double"))


def test_no_doubling_after_rolling() -> None:
    with pytest.raises(IllegalMoveError, match="before rolling"):
        R.apply(opened(), R.parse_move(opened(), "double"))


def test_drop_ends_the_game_for_the_current_stake() -> None:
    state = act(opened(), "8/5 6/5", "double", "pass")
    assert state.phase == OPENING  # the next game of the match
    assert state.score == (0, 1) and state.last_game is not None
    assert (state.last_game.winner, state.last_game.points, state.last_game.reason) == (
        1,
        1,
        "drop",
    )


def test_beaver_redoubles_at_once_and_the_beaverer_keeps_the_cube() -> None:
    state = act(opened({"match_length": 0, "beavers": True}), "8/5 6/5", "double")
    assert "beaver" in [R.format_move(state, m) for m in R.legal_moves(state)]
    state = act(state, "beaver")
    # As in gnubg: the cube is doubled and owned by the beaverer; the doubler must answer.
    assert (state.cube, state.cube_owner, state.phase, R.to_act(state)) == (2, 0, DOUBLED, 1)
    assert [R.format_move(state, m) for m in R.legal_moves(state)] == ["take", "drop"]
    taken = act(state, "take")
    assert (taken.cube, taken.cube_owner, taken.phase, taken.turn) == (4, 0, DICE, 1)


def test_dropping_a_beaver_loses_the_beavered_cube() -> None:
    state = act(opened({"match_length": 0, "beavers": True}), "8/5 6/5", "double", "beaver")
    state = act(state, "drop")
    assert state.last_game is not None
    assert (state.last_game.winner, state.last_game.points) == (0, 2)


def test_a_beavered_state_round_trips_through_its_id() -> None:
    state = act(opened({"match_length": 0, "beavers": True}), "8/5 6/5", "double", "beaver")
    assert R.from_id(R.to_id(state)) == state


def test_no_beaver_without_the_option() -> None:
    state = act(opened({"match_length": 0}), "8/5 6/5", "double")
    assert "beaver" not in [R.format_move(state, m) for m in R.legal_moves(state)]
    with pytest.raises(IllegalMoveError, match="beaver"):
        R.apply(state, BgMove("beaver"))


def test_no_cube_option_means_no_doubling() -> None:
    state = act(opened({"cube": False}), "8/5 6/5")
    assert state.phase == DICE


# --- game end and scoring ----------------------------------------------------------------


def finish(state: BackgammonState, dice: tuple[int, int], play: str) -> BackgammonState:
    state = act(state, "roll") if state.phase == DECIDE else state
    state = R.apply_chance(state, dice)
    return act(state, play)


def test_single_game_win_scores_the_cube() -> None:
    # The loser has borne off 14 checkers: a single game.
    state = near_end({"match_length": 5}, side(p1=1), side(p6=1), cube=2, cube_owner=1)
    state = finish(state, (2, 1), "1/off")
    assert state.score == (2, 0) and state.last_game is not None
    assert (state.last_game.value, state.last_game.points) == (1, 2)


def test_gammon_counts_double() -> None:
    loser = side(p12=15)
    state = near_end({"match_length": 7}, side(p1=1), loser)
    state = finish(state, (2, 1), "1/off")
    assert state.score == (2, 0) and state.last_game and state.last_game.value == 2


def test_backgammon_counts_triple_with_a_checker_in_the_winners_home() -> None:
    loser = side(p12=14, p20=1)  # the loser's 20 is the winner's 5-point
    state = near_end({"match_length": 7}, side(p1=1), loser)
    state = finish(state, (2, 1), "1/off")
    assert state.last_game and state.last_game.value == 3 and state.score == (3, 0)


def test_backgammon_with_a_checker_on_the_bar() -> None:
    state = near_end({"match_length": 7}, side(p1=1), side(p12=14, bar=1))
    state = finish(state, (2, 1), "1/off")
    assert state.last_game and state.last_game.value == 3


def test_jacoby_rule_makes_a_gammon_single_when_the_cube_was_not_turned() -> None:
    state = near_end({"match_length": 0, "jacoby": True}, side(p1=1), side(p12=15))
    state = finish(state, (2, 1), "1/off")
    assert state.phase == OVER and state.last_game and state.last_game.value == 1


def test_jacoby_rule_lets_gammons_count_once_the_cube_was_turned() -> None:
    state = near_end(
        {"match_length": 0, "jacoby": True}, side(p1=1), side(p12=15), cube=2, cube_owner=0
    )
    state = finish(state, (2, 1), "1/off")
    assert state.last_game and (state.last_game.value, state.last_game.points) == (2, 4)


def test_points_beyond_the_match_length_do_not_count() -> None:
    state = near_end(
        {"match_length": 3},
        side(p1=1),
        side(p12=15),
        score=(2, 0),
        cube=2,
        cube_owner=0,
        post_crawford=True,
    )
    state = finish(state, (2, 1), "1/off")
    out = R.outcome(state)
    assert out is not None and out.scores == (3, 0) and out.winners == (0,)
    assert out.extra["points"] == 4


def test_match_continues_until_a_player_reaches_the_length() -> None:
    state = near_end({"match_length": 5}, side(p1=1), side(p6=1), score=(1, 1))
    state = finish(state, (2, 1), "1/off")
    assert state.phase == OPENING and R.outcome(state) is None and state.score == (2, 1)
    assert state.board[0] == state.board[1] and sum(state.board[0]) == 15


def test_reaching_match_point_makes_the_next_game_crawford_without_doubling() -> None:
    state = near_end({"match_length": 5}, side(p1=1), side(p6=1), score=(3, 1))
    state = finish(state, (2, 1), "1/off")
    assert state.score == (4, 1) and state.crawford_game
    state = R.apply_chance(state, (3, 1))
    state = act(state, "8/5 6/5")
    assert state.phase == DICE  # nobody may double in the Crawford game


def test_the_game_after_crawford_is_post_crawford_and_doubling_returns() -> None:
    state = near_end(
        {"match_length": 5}, side(p6=1), side(p1=1), seat=1, score=(4, 1), crawford_game=True
    )
    state = replace(state, phase=DICE)
    state = R.apply_chance(state, (6, 1))
    state = act(state, "6/off")
    assert state.score == (4, 2) and not state.crawford_game and state.post_crawford
    state = R.apply_chance(state, (3, 1))
    state = act(state, "8/5 6/5")
    assert state.phase == DECIDE


def test_no_crawford_rule_when_switched_off() -> None:
    state = near_end({"match_length": 5, "crawford": False}, side(p1=1), side(p6=1), score=(3, 1))
    state = finish(state, (2, 1), "1/off")
    assert not state.crawford_game


def test_money_game_ends_after_one_game() -> None:
    state = near_end({"match_length": 0}, side(p1=1), side(p6=1), cube=4, cube_owner=1)
    state = finish(state, (2, 1), "1/off")
    out = R.outcome(state)
    assert out is not None and out.scores == (4, 0) and out.reason == "normal"
    assert R.legal_moves(state) == [] and R.to_act(state) is None


# --- resignations ------------------------------------------------------------------------


def test_resign_offer_accepted_scores_its_level_times_the_cube() -> None:
    state = act(opened({"match_length": 7}), "8/5 6/5", "resign gammon")
    assert state.phase == RESIGNING and R.to_act(state) == 0
    assert [R.format_move(state, m) for m in R.legal_moves(state)] == ["accept", "reject"]
    state = act(state, "accept")
    assert state.score == (2, 0) and state.last_game and state.last_game.reason == "resign"


def test_rejected_resignation_returns_to_the_same_turn() -> None:
    before = act(opened(), "8/5 6/5")
    state = act(before, "resign b", "reject")
    assert state == before


def test_resign_while_moving_keeps_the_dice_after_a_rejection() -> None:
    state = opened()
    back = act(state, "resign", "reject")
    assert back.phase == MOVING and back.dice == state.dice


@pytest.mark.parametrize(
    ("word", "level"), [("", 1), (" n", 1), (" single", 1), (" g", 2), (" backgammon", 3)]
)
def test_resign_words(word: str, level: int) -> None:
    assert R.parse_move(opened(), "resign" + word) == BgMove("resign", level=level)


def test_resign_of_an_unknown_kind_is_unreadable() -> None:
    with pytest.raises(InvalidMoveError, match="resign single"):
        R.parse_move(opened(), "resign everything")


# --- timeouts and forfeits ---------------------------------------------------------------


def test_timeout_loses_the_match() -> None:
    state = R.on_timeout(opened({"match_length": 7}))
    out = R.outcome(state)
    assert out is not None and out.winners == (1,) and out.scores == (0, 7)
    assert out.reason == "timeout"


def test_forfeit_in_money_play_counts_the_gammon_the_board_shows() -> None:
    state = near_end({"match_length": 0}, side(p1=1), side(p12=15))
    state = R.forfeit(state, 1, "forfeit")
    out = R.outcome(state)
    assert out is not None and out.winners == (0,) and out.scores == (2, 0)


# --- IDs, views, descriptions ------------------------------------------------------------


def test_to_id_is_gnubg_position_and_match_id() -> None:
    text = R.to_id(R.new_game(2, {"match_length": 0}))
    assert text.split(":")[0] == "4HPwATDgc/ABMA" and len(text.split(":")[1]) == 12


def test_reference_match_id_reads_as_a_moving_state() -> None:
    state = R.from_id("4HPwATDgc/ABMA:QYkqASAAIAAA")
    assert state.phase == MOVING and state.turn == 1 and state.dice == (5, 2)
    assert (state.cube, state.cube_owner, state.score, state.match_length) == (2, 0, (2, 4), 9)


def _states_along_a_game(seed: int) -> list[BackgammonState]:
    rng = random.Random(seed)
    state = R.new_game(2, {"match_length": 3})
    seen = [state]
    for _ in range(400):
        if R.outcome(state) is not None:
            break
        if R.chance_pending(state):
            state = R.apply_chance(state, R.sample_chance(state, rng))
        else:
            moves = list(R.legal_moves(state))
            if state.phase in (DECIDE, MOVING) and rng.random() < 0.03:
                moves.append(BgMove("resign", level=rng.randint(1, 3)))
            state = R.apply(state, rng.choice(moves))
        seen.append(state)
    return seen


@pytest.mark.parametrize("seed", range(6))
def test_every_state_of_a_match_round_trips_through_its_id(seed: int) -> None:
    for state in _states_along_a_game(seed):
        assert R.from_id(R.to_id(state)) == state


def test_money_options_survive_the_id() -> None:
    state = opened({"match_length": 0, "jacoby": True, "beavers": True, "auto_doubles": True})
    back = R.from_id(R.to_id(state))
    assert back.options == Options(0, True, False, True, True, True)


@pytest.mark.parametrize(
    "text", ["", "nonsense", "4HPwATDgc/ABMA:QYkqASAAIAAA:zzz", "4HPwATDgc/ABMA:short"]
)
def test_bad_ids_are_refused_with_a_value_error(text: str) -> None:
    with pytest.raises(ValueError):
        R.from_id(text)


def test_view_is_json_and_shows_everything() -> None:
    state = opened()
    for seat in (0, 1, None):
        v = R.view(state, seat)
        assert json.loads(json.dumps(v)) == v
        assert v["dice"] == [3, 1] and v["pips"] == [167, 167] and v["phase"] == MOVING
    assert R.view(state, 1)["my_side"] == list(state.board[1])


@pytest.mark.parametrize(
    ("state", "text"),
    [
        (R.new_game(2, {}), "5-pt match, 0-0, opening roll"),
        (act(opened(), "8/5 6/5"), "5-pt match, 0-0, Black to roll"),
        (opened(), "5-pt match, 0-0, White to play 3-1"),
        (
            act(opened(), "8/5 6/5", "double"),
            "5-pt match, 0-0, White to take or drop a double to 2",
        ),
    ],
)
def test_describe(state: BackgammonState, text: str) -> None:
    assert R.describe(state) == text


def test_checker_play_when_not_moving_says_why() -> None:
    state = act(opened(), "8/5 6/5")
    with pytest.raises(IllegalMoveError, match="roll"):
        R.parse_move(state, "13/10 6/5")


def test_a_money_session_carries_the_running_score_into_the_next_game() -> None:
    state = near_end({"match_length": 0}, side(p1=1), side(p6=1), cube=2, cube_owner=1)
    state = finish(state, (2, 1), "1/off")
    nxt = R.continue_session(state)
    assert nxt.phase == OPENING and nxt.score == (2, 0) and nxt.cube == 1
    assert R.outcome(nxt) is None
    with pytest.raises(ValueError, match="finished money game"):
        R.continue_session(nxt)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=40))
def test_from_id_refuses_garbage_with_a_value_error_only(text: str) -> None:
    try:
        state = R.from_id(text)
    except ValueError as exc:
        assert str(exc)
    else:
        assert R.from_id(R.to_id(state)) == state


def test_dead_cube_cannot_be_redoubled_in_a_match_and_the_roll_is_automatic() -> None:
    # 3-point match at 0-0, seat 0 owns a 4-cube: winning already wins the match.
    before = near_end({"match_length": 3}, side(p6=5), side(p6=5), seat=1, cube=4, cube_owner=0)
    before = replace(before, phase=MOVING, dice=(2, 1))
    state = act(before, "6/4 6/5")  # seat 1 plays; seat 0's turn begins
    assert state.turn == 0 and state.phase == DICE
    live = replace(state, phase=DECIDE)
    with pytest.raises(IllegalMoveError, match="cube is dead"):
        R.apply(live, BgMove("double"))


def test_a_one_point_match_has_no_doubling() -> None:
    state = act(opened({"match_length": 1}), "8/5 6/5")
    assert state.phase == DICE


def test_dice_are_kept_higher_first_as_gnubg_keeps_them() -> None:
    state = act(opened({"cube": False}), "8/5 6/5")
    assert R.apply_chance(state, (2, 5)).dice == (5, 2)


def test_jacoby_travels_in_gnubgs_match_id_bit() -> None:
    from door.games.backgammon.ids import decode_match

    on = R.new_game(2, {"match_length": 0, "jacoby": True})
    off = R.new_game(2, {"match_length": 0})
    assert decode_match(R.to_id(on).split(":")[1]).jacoby is True
    assert decode_match(R.to_id(off).split(":")[1]).jacoby is False
    # An ID written without the bit (older gnubg) reads as Jacoby on, as gnubg reads it.
    assert R.from_id("4HPwATDgc/ABMA:cAkAAAAAAAAA").options.jacoby is True


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_a_rules_object_remembering_answers_gives_what_one_remembering_nothing_gives(
    seed: int,
) -> None:
    # the same random money game played on both: every state's ID and every typed play
    # (and every refusal of a text that is no move) agree, seen once or again
    rng = random.Random(seed)
    memo, plain = BackgammonRules(), BackgammonRules(memo_size=0)
    state = memo.new_game(2, {"match_length": 0, "cube": False})
    for _ in range(120):
        if memo.outcome(state) is not None:
            break
        assert memo.to_id(state) == plain.to_id(state) == memo.to_id(state)
        if memo.chance_pending(state):
            state = memo.apply_chance(state, memo.sample_chance(state, rng))
            continue
        moves = list(memo.legal_moves(state))
        move = rng.choice(moves)
        text = memo.format_move(state, move)
        for rules in (memo, plain, memo):
            assert rules.parse_move(state, text) == move
        for rules in (memo, plain, memo):
            with pytest.raises(Refusal):
                rules.parse_move(state, "26/1 nonsense")
        state = memo.apply(state, move)
