"""GNU Backgammon reads door's records back to door's games: for 20 random complete
matches played through the game service, gnubg's ``import mat`` and its ``.sgf`` loader
list the same games, moves, dice, cube actions and results as door's log.

One gnubg run reads all 40 files (gnubg starts in a fraction of a second, but 40 starts
are still worth saving). Skipped, saying so, only where gnubg is not installed
(``.ci/run`` installs Debian's package).
"""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from door.games.replay import replay
from door.services.accounts import User
from door.services.clock import FakeClock
from door.services.export import Exporter
from door.services.games import AnyRules, GameEvent, GameService
from tests.export.gnubg_run import door_games, gnubg_games, gnubg_path, read_with_gnubg
from tests.export.play import Style, play_backgammon

GNUBG = gnubg_path()

pytestmark = pytest.mark.skipif(
    GNUBG is None, reason="GNU Backgammon (gnubg) is not installed: apt-get install gnubg"
)

# (options, style) of the 20 matches: money games (with the cube, Jacoby, beavers, none),
# 1- to 7-point matches, resignations offered and answered, matches given up and lost on
# time; the plays are the pure-Python evaluator's with noise, so hits, bar entries,
# bear-offs and gammons come up in every one.
PLAIN = Style()
OFFERS = Style(resign=0.03)
GIVE_UP = Style(give_up=0.03)
LATE = Style(late=0.03)
CUBEY = Style(double=0.3, drop=0.5)
MATCHES: list[tuple[dict[str, Any], Style]] = [
    ({"match_length": 0}, PLAIN),
    ({"match_length": 0}, CUBEY),
    ({"match_length": 0, "jacoby": True}, PLAIN),
    ({"match_length": 0, "beavers": True}, Style(double=0.4, beaver=0.5)),
    ({"match_length": 0, "cube": False}, OFFERS),
    ({"match_length": 1}, PLAIN),
    ({"match_length": 1}, OFFERS),
    ({"match_length": 2}, CUBEY),
    ({"match_length": 3}, PLAIN),
    ({"match_length": 3}, OFFERS),
    ({"match_length": 3}, GIVE_UP),
    ({"match_length": 3}, LATE),
    ({"match_length": 5}, PLAIN),
    ({"match_length": 5}, CUBEY),
    ({"match_length": 5}, OFFERS),
    ({"match_length": 5}, GIVE_UP),
    ({"match_length": 5}, LATE),
    ({"match_length": 7}, PLAIN),
    ({"match_length": 7}, Style(double=0.2, resign=0.02)),
    ({"match_length": 4}, CUBEY),
]


async def test_gnubg_reads_every_record_back_to_doors_log(
    games: GameService, clock: FakeClock, alice: User, bob: User, tmp_path: Path
) -> None:
    assert GNUBG is not None
    rng = random.Random(20)
    exporter = Exporter(games, public_finished=True)
    rules = games.rules_for("backgammon")
    played: list[tuple[int, dict[str, Any]]] = []
    files: list[tuple[Path, bool]] = []
    for options, style in MATCHES:
        game_id = await play_backgammon(games, clock, alice, bob, options, rng, style)
        info = (await games.get(game_id)).info
        assert info.status == "finished"
        played.append((game_id, info.options))
        for fmt in ("mat", "sgf"):
            record = await exporter.export(game_id, fmt, alice.id)
            path = tmp_path / record.filename
            path.write_text(record.text, encoding="utf-8")
            files.append((path, bool(info.options.get("jacoby"))))
    read = read_with_gnubg(GNUBG, files, tmp_path)
    seen: dict[str, int] = {}
    for game_id, options in played:
        events = await games.events(game_id)
        for fmt in ("mat", "sgf"):
            path = str(tmp_path / f"game{game_id}.{fmt}")
            theirs = gnubg_games(read[path])
            ours = door_games(rules, options, events, fmt)
            assert len(theirs) == len(ours), f"{path}: gnubg read {len(theirs)} games"
            for number, (t, o) in enumerate(zip(theirs, ours, strict=True), start=1):
                where = f"{path}, game {number}"
                assert t["records"] == o["records"], where + _first_difference(t, o)
                assert (t["score"], t["winner"], t["points"], t["resigned"]) == (
                    o["score"], o["winner"], o["points"], o["resigned"]
                ), where
        for key, n in coverage(rules, options, events).items():
            seen[key] = seen.get(key, 0) + n
        for game in door_games(rules, options, events, "sgf"):  # rolls left unplayed
            seen["set"] = seen.get("set", 0) + sum(r[0] == "set" for r in game["records"])
    # the matches really had what the round trip is meant to cover
    wanted = ("double", "take", "drop", "beaver", "bar", "off", "hit", "gammon", "resign",
              "forfeit", "timeout", "money", "match", "set")
    missing = [k for k in wanted if not seen.get(k)]
    assert not missing, f"the matches had no {missing}: {seen}"


def coverage(rules: AnyRules, options: dict[str, Any], events: list[GameEvent]) -> dict[str, int]:
    """How often each thing the round trip should cover happened in one game's log."""
    out: Counter[str] = Counter()
    out["money" if not options.get("match_length") else "match"] += 1
    for step in replay(rules, rules.new_game(2, options), events):
        move = step.move
        if step.event.kind == "system":
            out[str(step.event.payload.get("action"))] += 1
        if move is not None:
            out[move.action] += 1
            out["bar"] += any(s[0] == 25 for s in move.steps)
            out["off"] += any(s[1] == 0 for s in move.steps)
            out["hit"] += any(s[3] for s in move.steps)
        result = step.after.last_game
        if result is not None and result is not step.before.last_game:
            out["gammon"] += result.value >= 2 and result.reason == "normal"
            out[result.reason] += 1
    return dict(out)


def _first_difference(theirs: dict[str, Any], ours: dict[str, Any]) -> str:
    for i, (t, o) in enumerate(zip(theirs["records"], ours["records"], strict=False)):
        if t != o:
            return f": record {i + 1}: gnubg {t!r}, door {o!r}"
    return f": gnubg has {len(theirs['records'])} records, door {len(ours['records'])}"
