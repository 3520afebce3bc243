"""Set-up as chance events: the starting draw, ties, the deal (rules.py docstring)."""

from __future__ import annotations

import random

import pytest

from door.games.base import Refusal
from door.games.spectrangle.rules import SpectrangleRules
from door.games.spectrangle.state import Draw
from tests.games.spectrangle.util import p

R = SpectrangleRules()


def test_a_new_game_has_every_piece_in_the_bag_and_a_draw_pending_for_each_seat() -> None:
    s = R.new_game(3, {})
    assert len(s.bag) == 36 and s.board_empty
    assert R.chance_pending(s) and s.pending == (0, 1, 2) and R.to_act(s) is None


def test_the_highest_starting_draw_starts_and_hands_are_filled_to_four() -> None:
    s = R.new_game(2, {})
    s = R.apply_chance(s, Draw((p("RRY5"), p("RRR6")), (0, 1)))
    assert s.phase == "deal" and s.turn == 1
    assert s.pending == (0, 0, 0, 1, 1, 1)
    s = R.apply_chance(s, R.sample_chance(s, random.Random(0)))
    assert s.phase == "play" and R.to_act(s) == 1
    assert [len(h) for h in s.hands] == [4, 4] and len(s.bag) == 28
    assert p("RRY5") in s.hands[0] and p("RRR6") in s.hands[1]


def test_tied_seats_put_their_pieces_back_and_draw_again_others_keep_theirs() -> None:
    s = R.new_game(3, {})
    s = R.apply_chance(s, Draw((p("RRR6"), p("RRY5"), p("BBB6")), (0, 1, 2)))
    assert s.phase == "start" and s.pending == (0, 2)
    assert s.hands == ((), (p("RRY5"),), ())
    assert p("RRR6") in s.bag and p("BBB6") in s.bag
    s = R.apply_chance(s, Draw((p("WWW1"), p("GGR5")), (0, 2)))
    assert s.phase == "deal" and s.turn == 2
    assert s.hands == ((p("WWW1"),), (p("RRY5"),), (p("GGR5"),))


def test_a_draw_for_the_wrong_seats_or_of_pieces_not_in_the_bag_is_refused() -> None:
    s = R.new_game(2, {})
    with pytest.raises(ValueError, match="due to draw"):
        R.apply_chance(s, Draw((p("RRR6"),), (0,)))
    s2 = R.apply_chance(s, Draw((p("RRY5"), p("RRR6")), (0, 1)))
    with pytest.raises(ValueError, match="not in the bag"):
        R.apply_chance(
            s2,
            Draw(
                (p("RRY5"), p("BBB6"), p("GGG6"), p("YYY6"), p("PPP6"), p("WWW1")),
                (0, 0, 0, 1, 1, 1),
            ),
        )


def test_chance_events_round_trip_through_json_naming_pieces_and_seats() -> None:
    event = Draw((p("RRY5"), p("WWW1")), (0, 1))
    data = R.chance_to_json(event)
    assert data == {"draw": ["RRY5", "WWW1"], "seats": [0, 1]}
    assert R.chance_from_json(data) == event


@pytest.mark.parametrize("bad", [{"draw": ["RRY5"]}, {"draw": ["XXX1"], "seats": [0]}, [1, 2]])
def test_malformed_chance_json_is_refused(bad: object) -> None:
    with pytest.raises(ValueError):
        R.chance_from_json(bad)


def test_sampling_depends_only_on_the_rng_handed_in() -> None:
    s = R.new_game(4, {})
    a = R.sample_chance(s, random.Random(42))
    b = R.sample_chance(s, random.Random(42))
    assert a == b and len(set(a.pieces)) == 4 and a.seats == (0, 1, 2, 3)


@pytest.mark.parametrize(
    ("seats", "options", "message"),
    [
        (1, {}, "2 to 4"),
        (5, {}, "2 to 4"),
        (3, {"teams": True}, "team variant needs exactly 4"),
        (2, {"mirror": "yes"}, "true/false"),
        (2, {"colour": True}, "unknown option"),
    ],
)
def test_bad_options_are_refused_with_a_reason(
    seats: int, options: dict[str, object], message: str
) -> None:
    with pytest.raises(Refusal, match=message):
        R.validate_options(seats, options)


def test_default_options_allow_mirroring_without_teams() -> None:
    assert R.validate_options(4, {}) == {"mirror": True, "teams": False}
    assert R.validate_options(4, {"teams": True})["teams"] is True
