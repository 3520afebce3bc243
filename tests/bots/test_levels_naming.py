"""The backgammon levels people pick from: five, weakest first, each described with the
strength measured on this machine, with starting ratings in the same order; retired level
names still play."""

from __future__ import annotations

import random
import time
from dataclasses import replace

import pytest

from door.games.backgammon.rules import BackgammonRules
from door.services import bgengine
from door.services.bgengine import BG_LEVEL_TABLE, BgEngine, bg_level, bg_levels, has_bgsage
from door.services.bots import level_names, resolve_level

needs_bgsage = pytest.mark.skipif(not has_bgsage(), reason="bgsage is not installed here")
NAMES = ["bg-beginner", "bg-casual", "bg-club", "bg-strong", "bg-expert"]


def test_there_are_five_levels_weakest_first() -> None:
    assert [lv.name for lv in BG_LEVEL_TABLE] == NAMES
    assert list(level_names()["backgammon"]) == NAMES


def test_measured_errors_fall_and_starting_ratings_rise_from_level_to_level() -> None:
    errors = [lv.error_bgsage for lv in BG_LEVEL_TABLE]
    assert all(e is not None for e in errors)
    assert errors == sorted(errors, reverse=True)
    ratings = [lv.rating for lv in BG_LEVEL_TABLE]
    assert ratings == sorted(ratings) and len(set(ratings)) == len(ratings)


def test_the_measured_errors_fall_in_the_bands_the_levels_promise() -> None:
    bands = {"bg-beginner": (25, 40), "bg-casual": (12, 18), "bg-club": (7, 10),
             "bg-strong": (3.5, 5), "bg-expert": (0, 2)}  # fmt: skip
    for lv in BG_LEVEL_TABLE:
        low, high = bands[lv.name]
        assert lv.error_bgsage is not None and low <= lv.error_bgsage <= high, lv.name


def test_weaker_levels_are_weakened_by_more_noise_not_by_blunders() -> None:
    noise = [lv.noise for lv in BG_LEVEL_TABLE]
    assert noise == sorted(noise, reverse=True) and noise[-1] == 0.0


def test_descriptions_carry_the_strength_measured_with_bgsage(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(bgengine, "has_bgsage", lambda: True)
    described = dict(bg_levels())
    assert described["bg-beginner"].startswith("Beginner: ")
    assert "~34 errors/1000" in described["bg-beginner"]
    assert "~1.9 errors/1000" in described["bg-expert"]


def test_without_bgsage_each_level_carries_the_strength_measured_there(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(bgengine, "has_bgsage", lambda: False)
    described = dict(bg_levels())
    for lv in BG_LEVEL_TABLE:
        assert lv.error_fallback is not None, lv.name
        assert f"(~{lv.error_fallback:.0f} errors/1000, no bgsage)" in described[lv.name]


def test_a_level_not_measured_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bgengine, "has_bgsage", lambda: False)
    lv = replace(bg_level("bg-beginner"), error_fallback=None)
    assert bgengine.describe(lv, bgsage=False).endswith("(unmeasured, no bgsage)")


def test_without_bgsage_the_noiseless_levels_reach_the_casual_band() -> None:
    # Issue 22: the pure-Python fallback plays at least as well as "casual" (<= 18).
    for name in ("bg-strong", "bg-expert"):
        err = bg_level(name).error_fallback
        assert err is not None and err <= 18, name


def test_the_retired_intermediate_level_plays_as_strong() -> None:
    assert bg_level("bg-intermediate").name == "bg-strong"
    assert resolve_level("backgammon", "bg-intermediate") == "bg-strong"
    assert BgEngine("bg-intermediate", use_bgsage=False).level == "bg-strong"


def test_an_unknown_name_gets_the_default_level_not_an_error() -> None:
    assert resolve_level("backgammon", "bg-grandmaster") == "bg-club"
    with pytest.raises(ValueError, match="unknown backgammon level"):
        bg_level("bg-grandmaster")


@needs_bgsage
@pytest.mark.parametrize("level", NAMES)
def test_a_move_takes_well_under_the_time_bound(level: str) -> None:
    # Smoke only (the bench measures p95 on whole games): the opening reply to a 6-4.
    rules = BackgammonRules()
    engine = BgEngine(level, rng=random.Random(1))
    state = rules.apply_chance(rules.new_game(2, {"match_length": 0}), (6, 4))
    engine.choose(state)  # networks loaded
    started = time.perf_counter()
    engine.choose(state)
    bound = 0.25 if level == "bg-expert" else 0.05
    assert time.perf_counter() - started < 4 * bound  # 4x: a shared, loaded test machine


def test_the_rank_list_marks_computer_levels_with_their_measured_strength(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from types import SimpleNamespace

    from door.ui.screens.rank import RankScreen

    monkeypatch.setattr(bgengine, "has_bgsage", lambda: True)

    def row(name: str) -> str:
        r = SimpleNamespace(place=1, name=name, rating=1650.0, experience=3, wins=2, losses=1)
        return RankScreen.row(r)

    assert "bg-club ~9 " in row("bg-club")
    assert "bg-intermediate ~4" in row("bg-intermediate")  # 3.8  # the old account: as strong
    assert "~" not in row("alice")
    assert len(row("bg-beginner")) == len(row("alice"))  # the columns stay put


def test_every_description_names_the_engine_that_plays(monkeypatch: pytest.MonkeyPatch) -> None:
    for present, word in ((True, ", bgsage)"), (False, ", no bgsage)")):
        monkeypatch.setattr(bgengine, "has_bgsage", lambda present=present: present)
        for name, text in bg_levels():
            assert text.endswith(word), (name, text)
            assert len(text) <= 72, text  # one Begin screen line at 80 columns


def test_without_bgsage_the_expert_does_not_claim_a_deeper_search() -> None:
    text = bgengine.describe(bg_level("bg-expert"), bgsage=False)
    assert "two rolls ahead" not in text and "as Strong" in text
