"""SpectrangleRules as the rest of door sees it: the contract, view and describe."""

from __future__ import annotations

import json

from door.games.base import GameRules
from door.games.spectrangle.rules import SpectrangleRules
from tests.games.spectrangle.util import play_random

R = SpectrangleRules()


def test_spectrangle_rules_satisfy_the_game_rules_contract() -> None:
    assert isinstance(R, GameRules)
    assert (R.kind, R.min_seats, R.max_seats) == ("spectrangle", 2, 4)


def test_view_is_plain_json_with_public_hands_and_only_the_bag_count() -> None:
    s = play_random(R, 2, seed=4).states[20]
    for seat in (0, 1, None):
        v = R.view(s, seat)
        json.dumps(v)
        assert v["bag_count"] == len(s.bag) and "bag" not in v
        assert len(v["hands"]) == 2 and v["spn"] == R.to_id(s)


def test_describe_says_score_whose_turn_and_bag_or_who_won() -> None:
    game = play_random(R, 2, seed=4)
    mid = next(s for s in game.states if R.to_act(s) is not None)
    assert f"P{R.to_act(mid) + 1} to move" in R.describe(mid)  # type: ignore[operator]
    assert "won by" in R.describe(game.final)
    assert "who starts" in R.describe(game.states[0])
