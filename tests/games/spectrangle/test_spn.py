"""SPN and snapshot text (reference §5.1-5.3)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from door.games.spectrangle.rules import SpectrangleRules
from tests.games.spectrangle.util import EMPTY_BOARD, play_random

R = SpectrangleRules()

REFERENCE_SPNS = [
    f"{EMPTY_BOARD} RRR6,GGB5,YBP3,BRP2|YYB5,PPY5,RGY3,WWW1 0,0 0 28",
    "-/-/-/-/-/-/-/-/-/-/-/YBY5/BGG5/-/-/-/-/-/-/-/-/-/-/-/-/-/-/-/-/-/-/-/-/-/-/- "
    "RRR6,BBY4,YBP3,BRP2|PPY5,RGY3,GRP1,WWW1 5,20 0 26",
]


@pytest.mark.parametrize("text", REFERENCE_SPNS)
def test_reference_spns_round_trip_exactly(text: str) -> None:
    assert R.to_id(R.from_id(text)) == text


def test_a_finished_game_has_turn_dash_and_nobody_to_act() -> None:
    text = REFERENCE_SPNS[1].replace(" 5,20 0 26", " 5,20 - 26")
    s = R.from_id(text)
    assert s.is_over and R.to_act(s) is None and R.legal_moves(s) == []
    assert R.to_id(s) == text


def test_hands_are_written_in_piece_table_order() -> None:
    shuffled = REFERENCE_SPNS[0].replace("RRR6,GGB5,YBP3,BRP2", "BRP2,YBP3,RRR6,GGB5")
    assert R.to_id(R.from_id(shuffled)) == REFERENCE_SPNS[0]


@pytest.mark.parametrize(
    ("broken", "message"),
    [
        (REFERENCE_SPNS[0].replace(" 28", ""), "5 fields"),
        (REFERENCE_SPNS[0].replace(" 28", " 27"), "bag holds 28, not 27"),
        (REFERENCE_SPNS[0].replace("-/-/", "-/", 1), "36 entries"),
        (REFERENCE_SPNS[0].replace("BRP2|", "RRR6|"), "appears twice"),
        (REFERENCE_SPNS[0].replace("0,0 0", "0 0"), "2 hands but 1 scores"),
        (REFERENCE_SPNS[0].replace("0,0 0 28", "0,0 2 28"), "TURN"),
        (REFERENCE_SPNS[1].replace("BGG5", "BGG4"), "worth 5"),
        (REFERENCE_SPNS[1].replace("BGG5", "XGG5"), "not the colours of any piece"),
        (REFERENCE_SPNS[0].replace("YBP3", "YPB3"), "did you mean YBP3"),
        (REFERENCE_SPNS[0].replace("BRP2|", "BRP2,RRY5|"), "at most 4"),
        (REFERENCE_SPNS[0].replace("0,0 0", "0,x 0"), "integers"),
    ],
)
def test_malformed_spn_is_refused_with_the_reason(broken: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        R.from_id(broken)


def test_a_mirrored_board_entry_is_refused_when_mirroring_is_off() -> None:
    # RGY3 mirrored on up field 11: entry GYR.
    text = "-/-/-/-/-/-/-/-/-/-/-/GYR3/BGG5/" + "/".join(["-"] * 23)
    text += " RRR6,BBY4,YBP3,BRP2|YYB5,PPY5,GRP1,WWW1 5,20 0 26"
    assert R.to_id(R.from_id(text)) == text
    with pytest.raises(ValueError, match="mirroring is off"):
        R.from_id(text, {"mirror": False})


def test_snapshot_round_trips_every_state_of_a_game_including_setup_and_draws() -> None:
    game = play_random(R, 3, seed=11)
    phases = set()
    for s in game.states:
        phases.add(s.phase)
        assert R.from_snapshot(R.snapshot_id(s)) == s
    assert phases == {"start", "deal", "play", "over"}


def test_spn_round_trips_every_play_state_with_nothing_pending() -> None:
    game = play_random(R, 4, seed=5, options={"teams": True})
    for s in game.states:
        if s.phase == "play" and not s.pending:
            assert R.to_id(R.from_id(R.to_id(s), {"teams": True})) == R.to_id(s)
            assert R.from_id(R.to_id(s), {"teams": True}).board == s.board


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_a_damaged_spn_is_read_correctly_or_refused_with_a_value_error(data: st.DataObject) -> None:
    text = REFERENCE_SPNS[1]
    i = data.draw(st.integers(0, len(text) - 1))
    j = data.draw(st.integers(i, min(len(text), i + 5)))
    patch = data.draw(st.text(alphabet="RGBYPW0123456789 -,|/~=x", max_size=5))
    damaged = text[:i] + patch + text[j:]
    try:
        s = R.from_id(damaged)
    except ValueError as exc:
        assert str(exc)
        return
    assert R.from_id(R.snapshot_id(s)) == s
