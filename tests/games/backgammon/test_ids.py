"""gnubg Position ID and Match ID: the reference examples, round trips, bad input."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from door.games.backgammon.ids import (
    MatchKey,
    decode_match,
    decode_position,
    encode_match,
    encode_position,
)
from door.games.backgammon.position import start_side
from tests.games.backgammon.helpers import random_placement, side

DATA = Path(__file__).parent / "data"


def test_opening_position_id() -> None:
    assert encode_position(start_side(), start_side()) == "4HPwATDgc/ABMA"


def test_opening_position_id_decodes_to_the_starting_position() -> None:
    assert decode_position("4HPwATDgc/ABMA") == (start_side(), start_side())


def test_position_id_writes_the_opponent_first_as_gnubg_does() -> None:
    # Player on roll: one checker on his ace point; opponent: one on his bar.
    # gnubg writes the opponent first: 24 zeros, 1 0 (bar) | 1 0 (ace), 24 zeros.
    pid = encode_position(side(p1=1), side(bar=1))
    key = (1 << 24) | (1 << 26)
    import base64

    assert base64.b64decode(pid + "==") == key.to_bytes(10, "little")
    assert decode_position(pid) == (side(p1=1), side(bar=1))


def test_after_an_opening_3_1_gnubg_shows_the_next_player_this_id() -> None:
    mover = list(start_side())
    mover[7] -= 1
    mover[5] -= 1
    mover[4] += 2  # 8/5 6/5
    assert encode_position(start_side(), tuple(mover)) == "sGfwATDgc/ABMA"


def _gnubg_rows() -> list[tuple[str, tuple[int, ...], tuple[int, ...]]]:
    rows = []
    for line in (DATA / "gnubg_position_ids.txt").read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        pid, me, opp = line.split()
        rows.append(
            (pid, tuple(int(n) for n in me.split(",")), tuple(int(n) for n in opp.split(",")))
        )
    return rows


def test_position_ids_match_the_ones_gnubg_computes() -> None:
    rows = _gnubg_rows()
    assert len(rows) >= 400
    assert [pid for pid, me, opp in rows if encode_position(me, opp) != pid] == []
    assert [pid for pid, me, opp in rows if decode_position(pid) != (me, opp)] == []


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_position_id_round_trips(seed: int) -> None:
    me, opp = random_placement(random.Random(seed))
    pid = encode_position(me, opp)
    assert len(pid) == 14
    assert decode_position(pid) == (me, opp)


def test_reference_match_id_example_decodes_field_by_field() -> None:
    key = decode_match("QYkqASAAIAAA")
    assert key == MatchKey(
        cube=2,
        cube_owner=0,
        dice_owner=1,
        crawford=False,
        game_state=1,
        turn=1,
        doubled=False,
        resign=0,
        dice=(5, 2),
        match_length=9,
        score=(2, 4),
    )


def test_reference_money_game_match_id() -> None:
    key = decode_match("cAkAAAAAAAAA")
    assert (key.match_length, key.cube, key.cube_owner, key.turn, key.dice) == (
        0,
        1,
        None,
        1,
        (0, 0),
    )


@pytest.mark.parametrize("mid", ["QYkqASAAIAAA", "cAkAAAAAAAAA", "MIEFAAAAAAAA", "cAl7AAAAAAAA"])
def test_match_id_round_trips(mid: str) -> None:
    assert encode_match(decode_match(mid)) == mid


@settings(max_examples=200, deadline=None)
@given(
    st.integers(0, 15),
    st.sampled_from([0, 1, None]),
    st.integers(0, 1),
    st.booleans(),
    st.integers(0, 4),
    st.integers(0, 1),
    st.booleans(),
    st.integers(0, 3),
    st.sampled_from([(0, 0), (3, 1), (6, 6), (1, 5)]),
    st.integers(0, 32767),
    st.integers(0, 32767),
    st.integers(0, 32767),
)
def test_any_match_key_round_trips(
    cube_log: int,
    owner: int | None,
    dice_owner: int,
    crawford: bool,
    game_state: int,
    turn: int,
    doubled: bool,
    resign: int,
    dice: tuple[int, int],
    length: int,
    s0: int,
    s1: int,
) -> None:
    key = MatchKey(
        1 << cube_log,
        owner,
        dice_owner,
        crawford,
        game_state,
        turn,
        doubled,
        resign,
        dice,
        length,
        (s0, s1),
    )
    mid = encode_match(key)
    assert len(mid) == 12
    assert decode_match(mid) == key


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("4HPwATDgc/ABM", "14 characters"),
        ("4HPwATDgc/AB!A", "14 characters"),
        ("//////////////", "more than 15"),
        ("AAAAAAAAAAAAAA", None),
    ],
)
def test_bad_position_ids_are_refused_with_a_reason(text: str, words: str | None) -> None:
    if words is None:
        # All zero bits is a legal (empty) board: both players have borne everything off.
        assert decode_position(text) == ((0,) * 25, (0,) * 25)
        return
    with pytest.raises(ValueError, match=words):
        decode_position(text)


def test_position_id_with_both_players_on_one_point_is_refused() -> None:
    me = side(p1=1)
    opp = side(p24=1)  # the opponent's 24 is the mover's 1
    with pytest.raises(ValueError, match="both players"):
        decode_position(encode_position(me, opp))


def test_bad_match_ids_are_refused_with_a_reason() -> None:
    with pytest.raises(ValueError, match="12 characters"):
        decode_match("QYkqASAAIAA")
    import base64

    bad_owner = base64.b64encode((2 << 4 | 1 << 8).to_bytes(9, "little")).decode()
    with pytest.raises(ValueError, match="cube owner"):
        decode_match(bad_owner)
    bad_dice = base64.b64encode((1 << 8 | 7 << 15 | 1 << 18).to_bytes(9, "little")).decode()
    with pytest.raises(ValueError, match="dice"):
        decode_match(bad_dice)


def test_whole_matches_give_the_same_ids_as_gnubg_at_every_step() -> None:
    # data/gnubg_matches.txt: six matches and four money games (Jacoby, beavers) played
    # through gnubg itself, with the gnubgid it showed after every event; replaying the
    # events through our rules must agree.
    from door.games.backgammon.rules import BackgammonRules

    rules = BackgammonRules()
    state = None
    compared = 0
    for line in (DATA / "gnubg_matches.txt").read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        event, _, shown = line.partition("\t")
        word, _, rest = event.partition(" ")
        if word == "match":
            state = rules.new_game(2, {"match_length": int(rest)})
            continue
        if word == "money":
            state = rules.new_game(2, {"match_length": 0, "jacoby": True, "beavers": True})
            continue
        assert state is not None
        if word in ("opening", "dice"):
            a, b = rest.split()
            state = rules.apply_chance(state, (int(a), int(b)))
        elif word == "roll":
            state = rules.apply(state, rules.parse_move(state, "roll"))
        else:
            state = rules.apply(state, rules.parse_move(state, rest))
        if shown != "-":
            assert ":".join(rules.to_id(state).split(":")[:2]) == shown, event
            compared += 1
    assert compared > 1000
