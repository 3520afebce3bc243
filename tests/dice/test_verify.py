"""``verify_record`` accepts every game played to the end with the door-dice-v1 stream, and
refuses a record with one die (or piece) changed, the seed changed or one event removed,
naming the event."""

from __future__ import annotations

import copy
import random
import re
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from door.games import fairdice
from door.games.registry import build_registry
from door.games.spectrangle.pieces import PIECE_COUNT, piece
from door.services.fairness import verify_record
from tests.dice.records import bare, play_record, remove_chance, set_chance

RULES = build_registry()
SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])

seeds = st.binary(min_size=32, max_size=32)
game_ids = st.integers(1, 10**9)


def _words(n: int) -> st.SearchStrategy[list[str]]:
    return st.lists(st.text(max_size=12).map(fairdice.clean_word), min_size=n, max_size=n)


@st.composite
def backgammon_options(draw: st.DrawFn) -> dict[str, Any]:
    if draw(st.booleans()):
        wanted = {
            "match_length": draw(st.sampled_from([1, 3, 5, 7])),
            "cube": draw(st.booleans()),
            "crawford": draw(st.booleans()),
        }
    else:
        wanted = {
            "match_length": 0,
            "jacoby": draw(st.booleans()),
            "beavers": draw(st.booleans()),
            "auto_doubles": draw(st.booleans()),
        }
    return RULES["backgammon"].fit_options(2, wanted)  # type: ignore[no-any-return]


@st.composite
def backgammon_records(draw: st.DrawFn) -> dict[str, Any]:
    return play_record(
        "backgammon", draw(seeds), draw(game_ids), draw(_words(2)), draw(backgammon_options()),
        random.Random(draw(st.integers(0, 2**32 - 1))),
    )  # fmt: skip


@st.composite
def spectrangle_records(draw: st.DrawFn) -> dict[str, Any]:
    players = draw(st.integers(2, 4))
    options = {"teams": draw(st.booleans()) if players == 4 else False}
    return play_record(
        "spectrangle", draw(seeds), draw(game_ids), draw(_words(players)), options,
        random.Random(draw(st.integers(0, 2**32 - 1))),
        forfeit_chance=draw(st.sampled_from([0.0, 0.02])),
    )  # fmt: skip


records = st.one_of(backgammon_records(), spectrangle_records())


def _noun(record: dict[str, Any]) -> str:
    return "roll" if record["kind"] == "backgammon" else "draw"


def _all_check(record: dict[str, Any]) -> str:
    """The verdict's summary when every chance event of ``record`` checks."""
    n, noun = len(record["chance"]), _noun(record)
    return f"the one {noun} checks" if n == 1 else f"all {n} {noun}s check"


@SETTINGS
@given(records)
def test_every_game_played_to_the_end_checks(record: dict[str, Any]) -> None:
    verdict = verify_record(record)
    n = len(record["chance"])
    assert verdict.ok, verdict.lines()
    assert verdict.checked == n
    assert verdict.summary == _all_check(record)


@SETTINGS
@given(backgammon_records())
def test_backgammon_dice_check_without_the_moves_too(record: dict[str, Any]) -> None:
    del record["moves"]
    verdict = verify_record(record)
    assert verdict.ok and verdict.summary == _all_check(record)


@SETTINGS
@given(backgammon_records(), st.data())
def test_one_changed_die_is_named(record: dict[str, Any], data: st.DataObject) -> None:
    i = data.draw(st.integers(0, len(record["chance"]) - 1), label="event")
    j = data.draw(st.integers(0, 1), label="die")
    old = record["chance"][i]["dice"]
    dice = list(old)
    dice[j] = data.draw(st.integers(1, 6).filter(lambda d: d != old[j]), label="new die")
    set_chance(record, i, "dice", dice)
    verdict = verify_record(record)
    assert not verdict.ok
    shown_old, shown_new = f"{dice[0]}-{dice[1]}", f"{old[0]}-{old[1]}"
    assert verdict.problems[0] == (
        f"roll k={i}: the record says {shown_old}, the seed gives {shown_new}"
    )


@SETTINGS
@given(backgammon_records(), st.data())
def test_one_changed_die_is_named_without_the_moves(
    record: dict[str, Any], data: st.DataObject
) -> None:
    del record["moves"]
    i = data.draw(st.integers(0, len(record["chance"]) - 1), label="event")
    record["chance"][i]["dice"][0] = record["chance"][i]["dice"][0] % 6 + 1
    verdict = verify_record(record)
    assert not verdict.ok
    assert verdict.problems == (verdict.problems[0],)
    assert verdict.problems[0].startswith(f"roll k={i}: the record says")
    assert verdict.summary == f"1 of {len(record['chance'])} rolls do not check"


@SETTINGS
@given(spectrangle_records(), st.data())
def test_one_changed_piece_of_a_draw_is_named(record: dict[str, Any], data: st.DataObject) -> None:
    i = data.draw(st.integers(0, len(record["chance"]) - 1), label="event")
    drawn = list(record["chance"][i]["draw"])
    j = data.draw(st.integers(0, len(drawn) - 1), label="piece")
    others = [piece(p).name for p in range(PIECE_COUNT) if piece(p).name != drawn[j]]
    drawn[j] = data.draw(st.sampled_from(others), label="new piece")
    set_chance(record, i, "draw", drawn)
    verdict = verify_record(record)
    assert not verdict.ok
    assert verdict.problems[0].startswith(f"draw k={i}: the record says")


@SETTINGS
@given(records, st.data())
def test_one_removed_event_is_named(record: dict[str, Any], data: st.DataObject) -> None:
    i = data.draw(st.integers(0, len(record["chance"]) - 1), label="event")
    remove_chance(record, i)
    verdict = verify_record(record)
    assert not verdict.ok
    assert verdict.problems[0].startswith(f"event k={i} is missing"), verdict.lines()


@SETTINGS
@given(records, st.data())
def test_one_removed_event_renumbered_is_still_found(
    record: dict[str, Any], data: st.DataObject
) -> None:
    """Closing the gap in k does not hide the removal: an event from it on does not check,
    or the moves no longer replay (the first event that differs from the seed's is named;
    it may be later than the removed one when the seed's next roll happens to be equal)."""
    i = data.draw(st.integers(0, len(record["chance"]) - 1), label="event")
    remove_chance(record, i)
    for k, entry in enumerate(record["chance"]):
        entry["k"] = k
    verdict = verify_record(record)
    assert not verdict.ok
    named = re.search(r"k=(\d+)", verdict.problems[0])
    assert named and int(named.group(1)) >= i, verdict.lines()  # the events before it check


@SETTINGS
@given(records, seeds)
def test_a_changed_seed_does_not_match_the_commitment(record: dict[str, Any], other: bytes) -> None:
    assume(other.hex() != record["seed_hex"])
    record["seed_hex"] = other.hex()
    verdict = verify_record(record)
    assert verdict.status == "mismatch"
    assert verdict.summary == "the seed does not match the commitment"


@SETTINGS
@given(backgammon_records(), seeds)
def test_another_seed_with_its_own_commitment_fails_at_the_first_roll_it_changes(
    record: dict[str, Any], other: bytes
) -> None:
    assume(other.hex() != record["seed_hex"])
    game_id, words = record["game_id"], record["words"]
    changed = [
        e["k"] for e in record["chance"]
        if list(fairdice.dice(other, game_id, e["k"], words)) != e["dice"]
    ]  # fmt: skip
    record["seed_hex"], record["commitment_hex"] = other.hex(), fairdice.commitment(other)
    verdict = verify_record(record)
    assert changed, "another seed gave every roll of the match"
    assert not verdict.ok
    assert verdict.problems[0].startswith(f"roll k={changed[0]}: the record says")


@SETTINGS
@given(records)
def test_an_event_the_game_never_needed_is_named(record: dict[str, Any]) -> None:
    extra = copy.deepcopy(record["chance"][-1])
    extra["k"] = len(record["chance"])
    record["chance"].append(extra)
    verdict = verify_record(record)
    assert not verdict.ok
    assert verdict.problems[-1] == (
        f"event k={extra['k']} is not in the game: its moves never needed it"
    )


@SETTINGS
@given(records, st.text(min_size=1, max_size=8).map(fairdice.clean_word).filter(bool))
def test_a_changed_dice_word_is_found(record: dict[str, Any], word: str) -> None:
    assume(record["words"][0] != word)
    record["words"][0] = word
    assert not verify_record(record).ok


def test_a_record_without_a_seed_shows_the_commitment() -> None:
    record = play_record("backgammon", b"\x07" * 32, 3, ["", ""], {}, random.Random(1))
    record["seed_hex"] = None
    verdict = verify_record(record)
    assert verdict.status == "unrevealed" and not verdict.ok
    assert verdict.summary == (
        "this record has no seed yet (the game is not over): the commitment is "
        + fairdice.commitment(b"\x07" * 32)
    )


def test_a_record_without_a_commitment_is_not_provable() -> None:
    record = play_record("backgammon", b"\x07" * 32, 3, ["", ""], {}, random.Random(1))
    record.pop("commitment_hex")
    record.pop("seed_hex")
    verdict = verify_record(record)
    assert verdict.status == "unprovable" and not verdict.ok
    assert verdict.summary == "dice not provable for this game"


def test_a_spectrangle_record_without_moves_cannot_be_checked() -> None:
    record = play_record("spectrangle", b"\x07" * 32, 3, ["", ""], {}, random.Random(1))
    del record["moves"]
    verdict = verify_record(record)
    assert verdict.status == "malformed"
    assert "needs its moves" in verdict.summary


@SETTINGS
@given(records)
def test_a_log_of_bare_moves_and_system_events_replays_too(record: dict[str, Any]) -> None:
    """Moves as ``{"seat", "move"}``, system events as ``{"seat", "action"}``, no chance
    events in the log: the chance list is taken where the rules need it."""
    verdict = verify_record(bare(record))
    assert verdict.ok, verdict.lines()
    assert verdict.checked == len(record["chance"])


def test_a_log_in_the_services_event_shape_replays_too() -> None:
    record = play_record("backgammon", b"\x09" * 32, 4, ["x", "y"], {}, random.Random(2))
    record["events"] = [
        {"kind": item["kind"], "seat": item["seat"], "payload": item["data"]}
        for item in record.pop("moves")
    ]
    assert verify_record(record).ok


def test_a_log_whose_chance_differs_from_the_chance_list_is_named() -> None:
    record = play_record("backgammon", b"\x09" * 32, 4, ["x", "y"], {}, random.Random(2))
    first = next(item for item in record["moves"] if item["kind"] == "chance")
    dice = first["data"]["chance"]["dice"]
    first["data"]["chance"]["dice"] = [6, 6] if dice != [6, 6] else [5, 5]
    verdict = verify_record(record)
    assert not verdict.ok
    assert verdict.problems == (verdict.problems[0],)
    assert verdict.problems[0].startswith("the log's chance event 1 ")


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4)
    ),
    max_leaves=10,
)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(["game_id", "words", "chance", "moves", "kind", "options", "seats"]),
       json_values, st.integers(0, 3))  # fmt: skip
def test_any_damage_to_a_record_gives_a_verdict_not_a_crash(
    key: str, value: object, where: int
) -> None:
    record = play_record("backgammon", b"\x05" * 32, 8, ["", ""], {"match_length": 1},
                         random.Random(3))  # fmt: skip
    if where == 0 or not isinstance(record.get(key), list) or not record[key]:
        record[key] = value
    else:
        record[key][min(where, len(record[key]) - 1)] = value
    verdict = verify_record(record)
    assert verdict.summary


@settings(max_examples=200, deadline=None)
@given(st.booleans(), st.sampled_from(["k", "dice", "draw", "seats", "move", "seat", "action"]),
       json_values, st.integers(0, 50))  # fmt: skip
def test_any_damage_to_an_event_gives_a_verdict_not_a_crash(
    spectrangle: bool, key: str, value: object, where: int
) -> None:
    kind = "spectrangle" if spectrangle else "backgammon"
    record = play_record(kind, b"\x05" * 32, 8, ["", ""], {}, random.Random(3))
    if key in ("move", "action"):
        moves = [item for item in record["moves"] if item["kind"] != "chance"]
        moves[where % len(moves)]["data"][key] = value
    elif key == "seat":
        record["moves"][where % len(record["moves"])]["seat"] = value
    else:
        record["chance"][where % len(record["chance"])][key] = value
    verdict = verify_record(record)
    assert verdict.summary


@pytest.mark.parametrize("kind", ["backgammon", "spectrangle"])
@pytest.mark.parametrize("seat", [2, 99, -1])
def test_a_forfeit_by_a_seat_the_game_has_not_is_a_reason_not_a_crash(kind: str, seat: int) -> None:
    record = play_record(kind, b"\x05" * 32, 8, ["", ""], {}, random.Random(3))
    record["moves"].insert(
        5, {"seq": 0, "kind": "system", "seat": seat, "data": {"action": "forfeit"}}
    )
    verdict = verify_record(record)
    assert not verdict.ok
    assert any("do not replay at log item 6" in p for p in verdict.problems), verdict.lines()
