"""GNU Backgammon as the test's reader: run it once over many records, and say what it
should list for a door log.

:func:`read_with_gnubg` writes a small Python script that gnubg runs (``gnubg -t -q -r -p
script.py``): it imports each ``.mat`` (``import mat``) or loads each ``.sgf`` (``load
match``) and writes ``gnubg.match()`` for each to a JSON file. :func:`gnubg_games` turns
that into comparable records; :func:`door_games` gives the same records from door's log,
replayed through the rules, as gnubg should read them.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from door.games.replay import replay
from door.services.games import AnyRules, GameEvent

PLAYERS = ("X", "O")
"""gnubg's player 0 (the left column, White in .sgf) is X: door's seat 0."""
RESIGNED = ("resign", "timeout", "forfeit")

Record = tuple[Any, ...]


def gnubg_path() -> str | None:
    """The gnubg program (Debian puts it in /usr/games, often not on PATH), or None."""
    found = shutil.which("gnubg")
    if found:
        return found
    debian = Path("/usr/games/gnubg")
    return str(debian) if debian.exists() else None


SCRIPT = """
import json
import gnubg

with open({manifest!r}) as f:
    manifest = json.load(f)
out = []
for item in manifest:
    gnubg.command("set jacoby " + ("on" if item["jacoby"] else "off"))
    path = item["path"]
    if path.endswith(".mat"):
        gnubg.command("import mat " + path)
    else:
        gnubg.command("load match " + path)
    out.append({{"path": path, "match": gnubg.match()}})
with open({result!r}, "w") as f:
    json.dump(out, f, default=str)
"""


def read_with_gnubg(
    program: str, files: Sequence[tuple[Path, bool]], work: Path, *, timeout: float = 600
) -> dict[str, Any]:
    """``gnubg.match()`` of each file (path, Jacoby rule for a money ``.mat``), by path;
    one gnubg run for all of them."""
    manifest = work / "manifest.json"
    result = work / "result.json"
    manifest.write_text(json.dumps([{"path": str(p), "jacoby": j} for p, j in files]))
    script = work / "read_records.py"
    script.write_text(SCRIPT.format(manifest=str(manifest), result=str(result)))
    home = work / "home"
    home.mkdir(exist_ok=True)
    env = {**os.environ, "HOME": str(home), "LANG": "C.UTF-8"}
    done = subprocess.run(
        [program, "-t", "-q", "-r", "-p", str(script)],
        capture_output=True, text=True, timeout=timeout, env=env, cwd=work, check=False,
    )  # fmt: skip
    if not result.exists():
        raise AssertionError(f"gnubg wrote nothing (status {done.returncode}):\n"
                             f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}")  # fmt: skip
    return {item["path"]: item["match"] for item in json.loads(result.read_text())}


def gnubg_games(match: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Each game gnubg lists: its starting score, winner, points, whether it was
    resigned, and its records ``(action, player, dice, sorted steps)`` (a resignation:
    ``("resign", player, level)``)."""
    out = []
    for game in match.get("games") or []:
        info = game["info"]
        records: list[Record] = []
        for r in game["game"]:
            action = r.get("action")
            player = r.get("player")
            if action == "move":
                steps = sorted(tuple(s) for s in r.get("move") or [])
                records.append(("move", player, list(r["dice"]), steps))
            elif action == "set" and "dice" in r:
                records.append(("set", player, list(r["dice"])))
            elif action in ("double", "take", "drop"):
                records.append((action, player))
            elif action == "resign":
                records.append(("resign", player, r.get("points")))
        out.append({
            "score": [info.get("score-X"), info.get("score-O")],
            "winner": info.get("winner"),
            "points": info.get("points-won"),
            "resigned": bool(info.get("resigned")),
            "records": records,
        })  # fmt: skip
    return out


def door_games(
    rules: AnyRules, options: Mapping[str, Any], events: Sequence[GameEvent], fmt: str
) -> list[dict[str, Any]]:
    """What gnubg should list for door's log in format ``fmt`` (``mat`` or ``sgf``): the
    same records as :func:`gnubg_games`. Neither format holds an opening roll that was a
    tie or a rejected resignation, so those are not expected; a roll left unplayed when
    the game was given up is ``set`` (in ``.mat`` only where gnubg cannot play it by
    itself: with two or more plays to choose from)."""
    state = rules.new_game(2, options)
    games: list[dict[str, Any]] = []

    def start(score: Sequence[int]) -> dict[str, Any]:
        game: dict[str, Any] = {"score": list(score), "winner": None, "points": None,
                                "resigned": False, "records": []}  # fmt: skip
        games.append(game)
        return game

    game = start((0, 0))
    pending: list[int] | None = None
    rolled: Any = None
    for step in replay(rules, state, events):
        before, after, event = step.before, step.after, step.event
        if event.kind == "chance":
            dice = list(event.payload["chance"]["dice"])
            if not (before.phase == "opening" and dice[0] == dice[1]):
                pending, rolled = dice, after
        elif event.kind == "move" and event.seat is not None:
            move = step.move
            player = PLAYERS[event.seat]
            if move.action == "play":
                steps = sorted((s[0], s[1]) for s in move.steps)
                game["records"].append(("move", player, pending, steps))
                pending = None
            elif move.action in ("double", "beaver"):
                game["records"].append(("double", player))
            elif move.action in ("take", "drop"):
                game["records"].append((move.action, player))
        ended = (before.phase != "over" and after.phase == "over") or (
            before.phase != "opening" and after.phase == "opening"
        )
        if not ended:
            continue
        result = after.last_game
        if pending is not None and rolled.phase == "moving":
            playable = sum(1 for m in rules.legal_moves(rolled) if m.steps)
            if fmt == "sgf" or playable >= 2:
                game["records"].append(("set", PLAYERS[rolled.turn], pending))
        if result.reason in RESIGNED:
            game["records"].append(("resign", PLAYERS[1 - result.winner], result.value))
        game.update(winner=PLAYERS[result.winner], points=result.points,
                    resigned=result.reason in RESIGNED)  # fmt: skip
        pending = None
        if after.phase == "opening":
            game = start(after.score)
    if not game["records"] and game["winner"] is None and len(games) > 1:
        games.pop()
    return games
