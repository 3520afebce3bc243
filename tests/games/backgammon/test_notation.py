"""gnubg notation: writing plays, reading them back, and the errors players see."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from door.games.backgammon.movegen import Step
from door.games.backgammon.moves import BgMove
from door.games.backgammon.notation import format_play, parse_text
from door.games.backgammon.position import start_side
from door.games.backgammon.rules import BackgammonRules, mover_sides
from door.games.base import AmbiguousMoveError, IllegalMoveError, InvalidMoveError
from tests.games.backgammon.helpers import (
    moving_state,
    opp_holding,
    random_cases,
    side,
)


@pytest.mark.parametrize(
    ("steps", "text"),
    [
        ([(24, 18, 6, False), (13, 11, 2, False)], "24/18 13/11"),
        ([(13, 11, 2, False), (24, 18, 6, False)], "24/18 13/11"),
        ([(8, 5, 3, True), (5, 4, 1, False)], "8/5*/4"),
        ([(24, 23, 1, True), (23, 20, 3, True)], "24/23*/20*"),
        ([(24, 21, 3, False), (21, 20, 1, True)], "24/20*"),
        ([(24, 21, 3, False), (21, 20, 1, False)], "24/20"),
        ([(25, 22, 3, False)], "bar/22"),
        ([(25, 22, 3, True), (6, 0, 6, False)], "bar/22* 6/off"),
        ([(6, 0, 6, False)], "6/off"),
        ([(13, 7, 6, False), (13, 7, 6, False)], "13/7(2)"),
        ([(13, 8, 5, False)] * 2 + [(8, 3, 5, False)] * 2, "13/3(2)"),
        ([(8, 5, 3, False), (6, 5, 1, False)], "8/5 6/5"),
        ([(6, 3, 3, False), (6, 5, 1, False)], "6/5 6/3"),
        ([(8, 7, 1, False), (8, 5, 3, False)], "8/7 8/5"),
        ([], ""),
    ],
)
def test_format_play_writes_gnubg_notation(steps: list[Step], text: str) -> None:
    assert format_play(steps) == text


def test_full_path_keeps_the_intermediate_point() -> None:
    assert format_play([(24, 22, 2, False), (22, 17, 5, False)], full_path=True) == "24/22/17"


@pytest.mark.parametrize(
    "text", ["24/18 13/11", "13/11 24/18", "24/18, 13/11", "24-18 13-11", "  24/18   13/11 "]
)
def test_parse_text_reads_the_same_moves_however_written(text: str) -> None:
    moves = sorted((w.src, w.dst) for w in parse_text(text))
    assert moves == [(13, 11), (24, 18)]


def test_parse_text_expands_chains_counts_bar_and_off() -> None:
    assert [(w.src, w.dst, w.starred) for w in parse_text("bar/22*/20 6/off(2)")] == [
        (25, 22, True),
        (22, 20, False),
        (6, 0, False),
        (6, 0, False),
    ]


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("hello", "from/to"),
        ("x/5", "not a point"),
        ("24/", "from/to"),
        ("30/24", "no point 30"),
        ("5/8", "higher points to lower"),
        ("off/5", "from off"),
        ("13/7(9)", "1 to 4"),
        ("24*/18", "where a checker lands"),
    ],
)
def test_unreadable_plays_raise_invalid_move_with_a_reason(text: str, words: str) -> None:
    with pytest.raises(InvalidMoveError, match=words):
        parse_text(text)


def _opening(d1: int, d2: int):  # type: ignore[no-untyped-def]
    return moving_state(start_side(), start_side(), d1, d2)


def test_parse_move_finds_the_play_whatever_the_order_of_moves() -> None:
    rules = BackgammonRules()
    state = _opening(3, 1)
    a = rules.apply(state, rules.parse_move(state, "8/5 6/5"))
    b = rules.apply(state, rules.parse_move(state, "6/5 8/5"))
    c = rules.apply(state, rules.parse_move(state, "m 6/5 8/5"))
    assert a.board == b.board == c.board
    assert a.board[0][4] == 2  # two checkers made the 5-point


def test_parse_move_reads_a_chain_written_step_by_step() -> None:
    rules = BackgammonRules()
    state = _opening(6, 5)
    one = rules.parse_move(state, "24/13")
    two = rules.parse_move(state, "24/18 18/13")
    assert rules.apply(state, one).board == rules.apply(state, two).board


def test_must_use_both_dice_names_the_play_that_does() -> None:
    rules = BackgammonRules()
    state = moving_state(side(p24=1), opp_holding(19), 5, 2)
    with pytest.raises(IllegalMoveError, match=r"you must use both dice: 24/22/17 does"):
        rules.parse_move(state, "24/22")


def test_larger_die_rule_is_named() -> None:
    rules = BackgammonRules()
    state = moving_state(side(p24=1), opp_holding(13), 6, 5)
    with pytest.raises(IllegalMoveError, match="must be the larger one: 24/18 does"):
        rules.parse_move(state, "24/19")


def test_doubles_must_play_as_many_as_possible() -> None:
    rules = BackgammonRules()
    state = moving_state(side(p24=1), opp_holding(8), 4, 4)
    with pytest.raises(IllegalMoveError, match=r"as many 4s as you can \(3\)"):
        rules.parse_move(state, "24/16")


def test_landing_on_a_held_point_is_refused() -> None:
    rules = BackgammonRules()
    state = moving_state(side(p24=1), opp_holding(19), 5, 2)
    with pytest.raises(IllegalMoveError, match="holds that point"):
        rules.parse_move(state, "24/19 19/17")


def test_bar_checker_must_enter_first() -> None:
    rules = BackgammonRules()
    me = list(start_side())
    me[23], me[24] = 1, 1
    state = moving_state(tuple(me), start_side(), 6, 5)
    with pytest.raises(IllegalMoveError, match="bar"):
        rules.parse_move(state, "13/7 8/3")


def test_bearing_off_before_all_are_home_is_refused() -> None:
    rules = BackgammonRules()
    state = moving_state(side(p7=1, p5=1), (0,) * 25, 6, 5)
    with pytest.raises(IllegalMoveError, match="all your checkers are in your home board"):
        rules.parse_move(state, "5/off")


def test_moving_from_an_empty_point_is_refused() -> None:
    rules = BackgammonRules()
    with pytest.raises(IllegalMoveError, match="no checker on 20"):
        rules.parse_move(_opening(3, 1), "20/17 20/19")


def test_a_play_that_does_not_fit_the_dice_is_refused() -> None:
    rules = BackgammonRules()
    with pytest.raises(IllegalMoveError, match="3-1"):
        rules.parse_move(_opening(3, 1), "13/7")


def test_two_readings_are_ambiguous() -> None:
    # Blots on 23 and 21; 24/20 with 3-1 must hit on one of them.
    opp = [0] * 25
    opp[24 - 23] = 1
    opp[24 - 21] = 1
    opp[0] = 2  # somewhere out of the way
    rules = BackgammonRules()
    state = moving_state(side(p24=1, p6=2), tuple(opp), 3, 1)
    with pytest.raises(AmbiguousMoveError, match=r"24/21\*/20.*24/23\*/20|24/23\*/20.*24/21\*/20"):
        rules.parse_move(state, "24/20")


def test_a_hit_left_out_on_the_way_is_understood_when_only_one_play_fits() -> None:
    opp = [0] * 25
    opp[24 - 23] = 1  # blot on 23
    opp[24 - 21] = 2  # 21 held, so 24/20 can only go by 23
    rules = BackgammonRules()
    state = moving_state(side(p24=1, p6=2), tuple(opp), 3, 1)
    move = rules.parse_move(state, "24/20")
    assert rules.format_move(state, move) == "24/23*/20"


def test_no_play_when_nothing_can_move() -> None:
    rules = BackgammonRules()
    state = moving_state(side(bar=1, p6=5), opp_holding(19, 20, 21, 22, 23, 24), 6, 5)
    move = rules.parse_move(state, "(no play)")
    assert rules.legal_moves(state) == [move]
    assert rules.format_move(state, move) == "(no play)"
    after = rules.apply(state, move)
    assert after.turn == 1 and after.board == state.board


def test_no_play_is_refused_when_a_play_exists() -> None:
    rules = BackgammonRules()
    with pytest.raises(IllegalMoveError, match="you must play"):
        rules.parse_move(_opening(3, 1), "(no play)")


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_every_listed_play_parses_back_to_the_same_position(seed: int) -> None:
    rules = BackgammonRules()
    me, opp, d1, d2 = random_cases(seed, 1)[0]
    state = moving_state(me, opp, d1, d2)
    plays = rules.plays(state)
    rng = random.Random(seed)
    for play, m_after, o_after in rng.sample(plays, min(len(plays), 25)):
        text = format_play(play)
        move = rules.parse_move(state, text)
        after = rules.apply(state, move)
        assert after.board[0] == m_after or sum(m_after) == 0
        assert mover_sides(after)[0] == o_after or sum(m_after) == 0


def test_bearing_off_with_a_larger_number_from_below_the_highest_point_is_named() -> None:
    rules = BackgammonRules()
    state = moving_state(side(p5=1, p4=1), (0,) * 25, 6, 1)
    with pytest.raises(IllegalMoveError, match="highest point"):
        rules.parse_move(state, "4/off")


def test_pass_with_nothing_to_play_passes_the_turn() -> None:
    rules = BackgammonRules()
    state = moving_state(side(bar=1, p6=5), opp_holding(19, 20, 21, 22, 23, 24), 6, 5)
    assert rules.parse_move(state, "pass") == rules.legal_moves(state)[0]


def test_an_empty_play_is_refused_when_a_play_exists() -> None:
    rules = BackgammonRules()
    state = _opening(3, 1)
    with pytest.raises(IllegalMoveError, match="you must play"):
        rules.apply(state, BgMove("play"))


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("0123456789/*()-, barofBAROFx\t")), max_size=30))
def test_any_text_is_either_a_legal_move_or_one_of_the_three_errors(text: str) -> None:
    rules = BackgammonRules()
    state = _opening(6, 4)
    try:
        move = rules.parse_move(state, text)
    except (InvalidMoveError, IllegalMoveError, AmbiguousMoveError) as exc:
        assert str(exc)  # a message to show the player
    else:
        assert move in rules.legal_moves(state) or rules.apply(state, move) is not None


def test_notation_is_the_same_as_gnubg_writes_for_every_play() -> None:
    # data/gnubg_notation.txt: gnubg's own FormatMove output for 1,500 random rolls.
    import hashlib
    from pathlib import Path

    from door.games.backgammon.ids import decode_position, encode_position
    from door.games.backgammon.movegen import legal_plays

    path = Path(__file__).parent / "data" / "gnubg_notation.txt"
    rows = [line.split() for line in path.read_text().splitlines() if not line.startswith("#")]
    assert len(rows) >= 1500
    bad = []
    for pos, d1, d2, n, sha in rows:
        me, opp = decode_position(pos)
        lines = sorted(
            f"{encode_position(m, o)} {format_play(p)}"
            for p, m, o in legal_plays(me, opp, int(d1), int(d2))
        )
        digest = hashlib.sha1("\n".join(lines).encode()).hexdigest()
        if (len(lines), digest) != (int(n), sha):
            bad.append((pos, d1, d2))
    assert bad == []
