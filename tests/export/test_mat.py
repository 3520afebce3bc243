"""The Jellyfish ``.mat`` writer: the layout GNU Backgammon's ``export match mat`` writes
and its ``import mat`` reads (the round trip with gnubg itself is test_gnubg_roundtrip)."""

from __future__ import annotations

from typing import Any

from door.services.export.mat import mat_text, steps_text
from tests.export.records import Entry, info, log, rules_of

BG = rules_of("backgammon")

# Bob (seat 1) wins the opening roll after a tie, is hit and enters from the bar; Alice
# doubles, Bob takes, redoubles, and Alice drops.
OPENING_TO_DROP: list[Entry] = [
    ("chance", None, [4, 4]), ("chance", None, [2, 6]), ("move", 1, "24/18 13/11"),
    ("move", 0, "roll"), ("chance", None, [6, 1]), ("move", 0, "13/7* 8/7"),
    ("move", 1, "roll"), ("chance", None, [5, 3]), ("move", 1, "bar/20 11/8"),
    ("move", 0, "double"), ("move", 1, "take"), ("chance", None, [6, 6]),
    ("move", 0, "24/18(2) 13/7(2)"), ("move", 1, "double"), ("move", 0, "drop"),
]  # fmt: skip


def mat_of(options: dict[str, Any], entries: list[Entry], **kw: Any) -> str:
    events, state = log(BG, options, entries)
    return mat_text(BG, info(BG, options, state, events, **kw), events)


def test_the_header_names_the_match_length_and_the_players() -> None:
    text = mat_of({"match_length": 3}, OPENING_TO_DROP)
    assert text.splitlines()[:6] == [
        '; [Site "door"]',
        '; [Event "door game 12"]',
        '; [EventDate "2026.12.01"]',
        '; [Player 1 "Alice"]',
        '; [Player 2 "Bob"]',
        '; [Crawford "On"]',
    ]
    assert "\n 3 point match\n\n Game 1\n" in text


def test_a_money_game_is_a_zero_point_match() -> None:
    text = mat_of({"match_length": 0}, [("chance", None, [3, 1]), ("move", 0, "8/5 6/5")])
    assert "\n 0 point match\n" in text
    assert '; [Jacoby "Off"]' in text


def test_each_turn_is_dice_and_every_checker_step_with_the_columns_by_seat() -> None:
    lines = mat_of({"match_length": 3}, OPENING_TO_DROP).splitlines()
    start = lines.index(" Game 1")
    assert lines[start + 1:lines.index(" Game 2") - 2] == [
        " Alice : 0                      Bob : 0",
        "  1)                             26: 24/18 13/11",
        "  2) 61: 13/7* 8/7               53: 25/20 11/8",
        "  3)  Doubles => 2                Takes",
        "  4) 66: 24/18 24/18 13/7 13/7    Doubles => 4",
        "  5)  Drops                      Wins 2 points",
    ]


def test_an_opening_roll_that_was_a_tie_is_not_written() -> None:
    lines = mat_of({"match_length": 1}, [
        ("chance", None, [5, 5]), ("chance", None, [3, 1]), ("move", 0, "8/5 6/5"),
    ]).splitlines()  # fmt: skip
    assert lines[-1].startswith("  1) 31: 8/5 6/5")


def test_bar_and_off_are_25_and_0_and_hits_are_starred() -> None:
    steps = ((25, 22, 3, True), (6, 0, 6, False), (5, 4, 1, False))
    assert steps_text(steps) == "25/22* 6/0 5/4"


def test_a_resignation_is_the_winners_wins_line_while_the_game_is_played() -> None:
    lines = mat_of({"match_length": 5}, [
        ("chance", None, [3, 1]), ("move", 0, "8/5 6/5"),
        ("move", 1, "resign gammon"), ("move", 0, "accept"),
    ]).splitlines()  # fmt: skip
    game = lines[lines.index(" Game 1"):]
    assert game[2].startswith("  1) 31: 8/5 6/5")
    assert game[3] == "      Wins 2 points"


def test_a_right_hand_win_stands_beside_the_left_hand_play_before_it() -> None:
    # (a match given up: door scores the game as the board shows it, here a backgammon)
    lines = mat_of({"match_length": 5}, [
        ("chance", None, [3, 1]), ("move", 0, "8/5 6/5"),
        ("system", 0, {"action": "forfeit", "reason": "resign"}),
    ]).splitlines()  # fmt: skip
    assert lines[-1] == "  1) 31: 8/5 6/5                 Wins 3 points"


def test_each_game_of_a_match_has_its_number_and_starting_score() -> None:
    entries = [*OPENING_TO_DROP, ("chance", None, [1, 2]), ("move", 1, "13/11 6/5")]
    text = mat_of({"match_length": 3}, entries)
    assert "\n Game 2\n Alice : 0                      Bob : 2\n" in text
    assert "  1)                             12: 13/11 6/5" in text


def test_a_line_with_only_a_left_hand_cell_keeps_its_padding() -> None:
    # gnubg reads a short left-only line after a double as the double once more
    entries = [*OPENING_TO_DROP[:11], ("chance", None, [6, 6]), ("move", 0, "24/18(2) 13/7(2)")]
    lines = mat_of({"match_length": 3}, entries).splitlines()
    assert lines[-1] == "  4) 66: 24/18 24/18 13/7 13/7   "


def test_player_names_lose_the_characters_the_format_uses() -> None:
    text = mat_of({"match_length": 1}, [("chance", None, [3, 1])], names=("a:b [x]", "\x1bc"))
    assert " a b x : 0" in text and "c : 0" in text and "\x1b" not in text


def test_the_header_tells_the_opening_ties_and_how_the_match_ended() -> None:
    text = mat_of({"match_length": 1}, [
        ("chance", None, [5, 5]), ("chance", None, [2, 2]), ("chance", None, [3, 1]),
        ("move", 0, "8/5 6/5"), ("chance", None, [6, 4]), ("move", 1, "resign gammon"),
        ("move", 0, "accept"),
    ])  # fmt: skip
    header = text[: text.index(" 1 point match")]
    assert "; Game 1: opening rolls 55, 22 tied and were rolled again\n" in header
    assert "; White wins the 1-point match 1-0 by resignation (a gammon), 2 points.\n" in header
