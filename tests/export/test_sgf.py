"""The gnubg ``.sgf`` writer: one GM[6] game tree per game, gnubg's point letters."""

from __future__ import annotations

from typing import Any

from door.services.export.sgf import point_letter, sgf_text
from tests.export.records import Entry, info, log, rules_of
from tests.export.test_mat import OPENING_TO_DROP

BG = rules_of("backgammon")


def sgf_of(options: dict[str, Any], entries: list[Entry], **kw: Any) -> str:
    events, state = log(BG, options, entries)
    return sgf_text(BG, info(BG, options, state, events), events, **kw)


def test_points_are_gnubgs_letters_from_each_players_side() -> None:
    assert [point_letter(0, p) for p in (1, 24, 25, 0)] == ["a", "x", "y", "z"]
    assert [point_letter(1, p) for p in (1, 24, 25, 0)] == ["x", "a", "y", "z"]


def test_a_game_is_a_tree_with_the_match_players_rules_and_result() -> None:
    text = sgf_of({"match_length": 3}, OPENING_TO_DROP)
    first = text.split(")\n")[0]
    assert first.splitlines() == [
        "(;FF[4]GM[6]CA[UTF-8]AP[door]MI[length:3][game:0][ws:0][bs:0]PW[Alice]PB[Bob]"
        "DT[2026-12-01]EV[door game 12]PC[door]GC[Game 1: opening roll 44 tied and was rolled "
        "again",
        "The match is still being played: the record so far.]RU[Crawford]RE[B+2]",
        ";B[26agln]",
        ";W[61mghg]",
        ";B[53yenq]",
        ";W[double]",
        ";B[take]",
        ";W[66xrxrmgmg]",
        ";B[double]",
        ";W[drop]",
    ]


def test_the_next_game_has_its_number_score_and_the_crawford_rule() -> None:
    entries = [*OPENING_TO_DROP, ("chance", None, [1, 2]), ("move", 1, "13/11 6/5")]
    second = sgf_of({"match_length": 3}, entries).split(")\n")[1]
    assert second.startswith("(;FF[4]GM[6]CA[UTF-8]AP[door]MI[length:3][game:1][ws:0][bs:2]")
    assert "RU[Crawford:CrawfordGame]" in second
    assert second.endswith(";B[12lnst]")


def test_a_resigned_game_is_marked_and_an_unplayed_roll_is_set_dice() -> None:
    text = sgf_of({"match_length": 5}, [
        ("chance", None, [3, 1]), ("move", 0, "8/5 6/5"), ("move", 1, "roll"),
        ("chance", None, [6, 4]), ("move", 1, "resign single"), ("move", 0, "accept"),
    ])  # fmt: skip
    first = text.split(")\n")[0]
    assert "RE[W+1R]" in first
    assert first.endswith(";W[31hefe]\n;PL[B]DI[64]")


def test_a_money_game_with_jacoby_and_no_cube_says_so() -> None:
    text = sgf_of({"match_length": 0, "jacoby": True}, [("chance", None, [3, 1])])
    assert "MI[length:0]" in text and "RU[Jacoby]" in text
    text = sgf_of({"match_length": 0, "cube": False}, [("chance", None, [3, 1])])
    assert "RU[NoCube]" in text


def test_extra_keys_are_the_first_games_comment() -> None:
    text = sgf_of({"match_length": 1}, [("chance", None, [3, 1])],
                  extra={"commitment_hex": "ab]c"})  # fmt: skip
    assert "\ncommitment_hex: ab\\]c]" in text
