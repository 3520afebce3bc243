"""Any moment of a game exports: every prefix of a log (a game still being played) gives
every format of its game, holding exactly that prefix."""

from __future__ import annotations

import json
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from door.games.replay import replay
from door.services.export.jsonrec import json_text
from door.services.export.mat import mat_text
from door.services.export.sgf import sgf_text
from door.services.export.text import text_record
from tests.export.records import info, log, rules_of, simulated

BG = rules_of("backgammon")
SP = rules_of("spectrangle")
MAT_CELL = re.compile(r"(?:^|\)|  )\s*(\d\d):((?: [0-9]+/[0-9]+\*?)*)")


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), length=st.sampled_from([0, 1, 3, 5]),
       moves=st.integers(0, 300))  # fmt: skip
def test_every_moment_of_a_backgammon_match_exports(seed: int, length: int, moves: int) -> None:
    options = {"match_length": length}
    events, state = log(BG, options, simulated("backgammon", options, 2, seed, moves))
    game = info(BG, options, state, events)
    record = json.loads(json_text(BG, game, events))
    assert [m["seq"] for m in record["moves"]] == [e.seq for e in events]
    assert [c["dice"] for c in record["chance"]] == [
        e.payload["chance"]["dice"] for e in events if e.kind == "chance"
    ]
    assert record["position"] == BG.to_id(state)
    plays, games = [], 1
    dice: list[int] = []
    for step in replay(BG, BG.new_game(2, BG.validate_options(2, options)), events):
        if step.event.kind == "chance":
            dice = step.event.payload["chance"]["dice"]
        elif step.move is not None and step.move.action == "play":
            steps = "".join(f" {s}/{d}{'*' * h}" for s, d, _, h in step.move.steps)
            plays.append((f"{dice[0]}{dice[1]}", steps))
        games += step.before.phase != "opening" and step.after.phase == "opening"
    cells = [m.groups() for line in mat_text(BG, game, events).splitlines()
             for m in MAT_CELL.finditer(line)]  # fmt: skip
    assert cells == plays
    assert sgf_text(BG, game, events).count("(;FF[4]GM[6]") == games


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), players=st.integers(2, 4), moves=st.integers(0, 60))
def test_every_moment_of_a_spectrangle_game_exports(seed: int, players: int, moves: int) -> None:
    entries = simulated("spectrangle", {}, players, seed, moves)
    events, state = log(SP, {}, entries, seats=players)
    game = info(SP, {}, state, events, [f"P{i}" for i in range(players)])
    text = text_record(SP, game, events)
    played = [e.payload["move"] for e in events if e.kind == "move"]
    lines = [x for x in text.splitlines() if re.match(r"^ *\d+\. P", x)]
    assert [x.split()[3] for x in lines] == [m.split()[0] for m in played]
    if played:
        assert lines[-1].endswith(SP.to_id(state))
    assert len(json.loads(json_text(SP, game, events))["moves"]) == len(events)
