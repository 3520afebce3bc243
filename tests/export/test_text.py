"""The Spectrangle text record: the players, then a line per move with its score and SPN."""

from __future__ import annotations

from door.games.replay import replay
from door.services.export.text import text_record
from tests.export.records import info, log, rules_of, simulated

SP = rules_of("spectrangle")


def test_the_record_begins_with_the_game_and_its_players() -> None:
    events, state = log(SP, {}, simulated("spectrangle", {}, 3, seed=1, max_moves=2), seats=3)
    text = text_record(SP, info(SP, {}, state, events, ("Ann", "Ben", "Cy")), events)
    assert text.splitlines()[:5] == [
        "; Spectrangle, door game 12, 3 players (mirroring on)",
        "; Started 2026-12-01 10:00 UTC; still being played (the record so far)",
        "; P1 Ann",
        "; P2 Ben",
        "; P3 Cy",
    ]


def test_each_move_has_a_line_with_its_score_and_the_spn_after_it() -> None:
    entries = simulated("spectrangle", {}, 2, seed=7)
    events, state = log(SP, {}, entries)
    text = text_record(SP, info(SP, {}, state, events), events)
    lines = [x for x in text.splitlines() if x and not x.startswith(";")]
    expected = []
    number = 0
    steps = list(replay(SP, SP.new_game(2, SP.validate_options(2, {})), events))
    for i, step in enumerate(steps):
        if step.event.kind != "move":
            continue
        number += 1
        seen = step.after  # the position once the mover's draw (if any) is done
        if i + 1 < len(steps) and steps[i + 1].event.kind == "chance":
            seen = steps[i + 1].after
        expected.append((number, step.event.payload["move"],
                         SP.move_score(step.before, step.move), SP.to_id(seen)))  # fmt: skip
    assert len(lines) == len(expected) > 10
    for line, (number, move, score, spn) in zip(lines, expected, strict=True):
        assert line.startswith(f"{number:3d}. P")
        fields = line.split()
        assert move.split()[0] in fields and f"{score:+d}" in fields
        assert line.endswith("   " + spn)


def test_a_finished_game_ends_with_who_won() -> None:
    entries = simulated("spectrangle", {}, 2, seed=7)
    events, state = log(SP, {}, entries)
    game = info(SP, {}, state, events)
    assert game.outcome is not None
    last = text_record(SP, game, events).splitlines()[-1]
    scores = "-".join(str(s) for s in game.outcome.scores)
    assert last.startswith("; P") and f"({scores}, " in last


def test_a_timeout_is_a_line_of_its_own() -> None:
    entries = simulated("spectrangle", {}, 2, seed=3, max_moves=1)
    seat = 1 - int(entries[-1][1] or 0)
    events, state = log(SP, {}, [*entries, ("system", seat, {"action": "timeout"})])
    text = text_record(SP, info(SP, {}, state, events), events)
    assert f"  2. P{seat + 1} " in text and "(timeout: passes)" in text
