"""The JSON record: the game, every event in log order, and every chance event counted."""

from __future__ import annotations

import json

from door.services.export.jsonrec import json_text, record
from tests.export.records import info, log, rules_of, simulated
from tests.export.test_mat import OPENING_TO_DROP

BG = rules_of("backgammon")
SP = rules_of("spectrangle")


def test_the_record_says_which_game_who_played_and_how_it_ended() -> None:
    events, state = log(BG, {"match_length": 3}, OPENING_TO_DROP)
    rec = record(BG, info(BG, {"match_length": 3}, state, events), events)
    assert rec["game_id"] == 12 and rec["kind"] == "backgammon"
    assert rec["players"] == ["Alice", "Bob"]
    assert rec["options"]["match_length"] == 3
    assert rec["status"] == "active"  # the match goes on: game 2 is to begin
    assert rec["outcome"] is None


def test_every_event_is_a_move_entry_in_log_order() -> None:
    events, state = log(BG, {"match_length": 3}, OPENING_TO_DROP)
    rec = record(BG, info(BG, {"match_length": 3}, state, events), events)
    moves = rec["moves"]
    assert isinstance(moves, list)
    assert [m["seq"] for m in moves] == list(range(1, len(events) + 1))
    third = moves[2]
    assert third == {
        "seq": 3, "kind": "move", "seat": 1, "at": "2026-12-01T10:03:00+00:00",
        "text": "24/18 13/11", "data": {"move": "24/18 13/11"},
        "after": BG.to_id(log(BG, {"match_length": 3}, OPENING_TO_DROP[:3])[1]),
    }  # fmt: skip
    assert moves[0]["text"] == "4-4" and moves[0]["data"] == {"chance": {"dice": [4, 4]}}


def test_chance_counts_every_roll_of_the_match_ties_included() -> None:
    events, state = log(BG, {"match_length": 3}, [
        *OPENING_TO_DROP, ("chance", None, [3, 3]), ("chance", None, [1, 2]),
    ])  # fmt: skip
    rec = record(BG, info(BG, {"match_length": 3}, state, events), events)
    assert rec["chance"] == [
        {"k": 0, "dice": [4, 4]}, {"k": 1, "dice": [2, 6]}, {"k": 2, "dice": [6, 1]},
        {"k": 3, "dice": [5, 3]}, {"k": 4, "dice": [6, 6]}, {"k": 5, "dice": [3, 3]},
        {"k": 6, "dice": [1, 2]},
    ]  # fmt: skip


def test_a_spectrangle_draw_is_its_pieces_and_seats() -> None:
    entries = simulated("spectrangle", {}, 2, seed=4, max_moves=3)
    events, state = log(SP, {}, entries)
    rec = record(SP, info(SP, {}, state, events), events)
    chance = rec["chance"]
    assert isinstance(chance, list) and chance
    draws = [e for e in entries if e[0] == "chance"]
    assert chance == [{"k": k, **d[2]} for k, d in enumerate(draws)]


def test_extra_keys_join_the_record_but_do_not_replace_its_own() -> None:
    events, state = log(BG, {"match_length": 1}, [("chance", None, [3, 1])])
    extra = {"seed_hex": "00ff", "words": ["", "x"], "game_id": 99}
    rec = record(BG, info(BG, {"match_length": 1}, state, events), events, extra)
    assert rec["seed_hex"] == "00ff" and rec["words"] == ["", "x"]
    assert rec["game_id"] == 12


def test_the_text_is_json_that_reads_back_to_the_record() -> None:
    events, state = log(BG, {"match_length": 1}, [("chance", None, [3, 1])])
    game = info(BG, {"match_length": 1}, state, events, names=("Zoë", "Bob"))
    text = json_text(BG, game, events)
    assert json.loads(text) == record(BG, game, events)
    assert "Zoë" in text and text.endswith("}\n")
