"""The review of recorded games gives the figures it gave when they were recorded.

``data/review_golden.json`` holds five backgammon logs (two money games and a 3-point
match between noisy bots, a beaver taken and a beaver dropped) and, for each, the review
``review_log`` made of it with the pure-Python engine and with bgsage (1-ply) before its
decision scoring became a table of scorers (the pure-Python figures again after the
fallback's evaluator became the network of tools/fit_fallback_net.py, the bgsage ones
untouched). Any change to what a review counts or how it scores a decision shows here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from door.games.replay import Event
from door.services.bgengine import BgEngine, GameReview, has_bgsage, review_log

GOLDEN = json.loads((Path(__file__).parent / "data" / "review_golden.json").read_text())
CASES = sorted(GOLDEN["reviews"])


def figures(review: GameReview) -> list[dict[str, Any]]:
    """A review in the golden file's shape."""
    return [
        {
            "seat": p.seat,
            "decisions": p.decisions,
            "total_loss": p.total_loss,
            "error_rate": p.error_rate,
            "rating": p.rating,
            "mistakes": [
                [m.seat, m.move_number, list(m.dice) if m.dice else None, m.played, m.best, m.loss]
                for m in p.mistakes
            ],
        }
        for p in review.players
    ]


def leaves(data: Any) -> list[Any]:
    """Every number and word of nested lists and dicts, in order (keys included)."""
    if isinstance(data, dict):
        return [x for k in sorted(data) for x in (k, *leaves(data[k]))]
    if isinstance(data, list):
        return [x for item in data for x in ["[", *leaves(item), "]"]]
    return [data]


@pytest.fixture(scope="module")
def engines() -> dict[str, BgEngine]:
    found = {"pubeval": BgEngine("bg-intermediate", use_bgsage=False)}
    if has_bgsage():
        found["bgsage"] = BgEngine("bg-intermediate")
    return found


@pytest.mark.parametrize("case", CASES)
def test_a_recorded_game_reviews_to_the_recorded_figures(
    case: str, engines: dict[str, BgEngine]
) -> None:
    game, engine_name = case.split("/")
    if engine_name not in engines:
        pytest.skip("bgsage is not installed here")
    recorded = GOLDEN["games"][game]
    events = [Event(kind, seat, payload) for kind, seat, payload in recorded["events"]]
    review = review_log(engines[engine_name], recorded["options"], events)
    assert review.engine == engine_name
    got, want = leaves(figures(review)), leaves(GOLDEN["reviews"][case])
    assert len(got) == len(want)
    # The pure-Python engine is exact. bgsage's network computes in float32 along
    # whichever SIMD path the CPU offers: the same wheel gave figures up to 6.6e-6 apart
    # (relative) on two Xeons; every decision and every non-number stayed the same.
    rel, abs_ = (1e-9, 1e-12) if engine_name == "pubeval" else (5e-5, 1e-7)
    for g, w in zip(got, want, strict=True):
        if isinstance(w, float):
            assert g == pytest.approx(w, rel=rel, abs=abs_)
        else:
            assert g == w
