"""A game's record as JSON (``--format json``), for both games and for scripts.

The object::

    {"format": "door-record-1", "game_id": 12, "kind": "backgammon", "title": "Backgammon",
     "players": ["alice", "bob"], "seats": [{"seat": 0, "kind": "user", "name": "alice"}, …],
     "options": {…}, "status": "finished", "created_at": "…", "updated_at": "…",
     "outcome": {…} | null, "position": "<the game's ID now>",
     "moves": [{"seq": 1, "kind": "system", "seat": null, "at": "…", "text": "start",
                "data": {"action": "start"}}, …],
     "chance": [{"k": 0, "dice": [3, 1]}, …]}

``moves`` is every event of the log in order; ``data`` is the event's payload as logged
and ``text`` its words (the move, ``3-1`` for dice, the pieces drawn, the system action),
``after`` the game's ID once a move is made. ``chance`` is every chance event of the game
(every game of a match) in log order, ``k`` counting them from 0 (opening rolls that
were ties included), with the chance event's own JSON: ``{"dice": [3, 1]}`` for
backgammon (the opening roll: seat 0's die first), ``{"draw": ["RRY5"], "seats": [1]}``
for Spectrangle. Extra keys (the dice proof) are added at the top level.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from door.games.replay import replay
from door.services.games import AnyRules, GameEvent, GameInfo, outcome_to_json
from door.store.records import JSON, JSONObject

FORMAT_NAME = "door-record-1"


def record(
    rules: AnyRules,
    info: GameInfo,
    events: Sequence[GameEvent],
    extra: Mapping[str, JSON] | None = None,
) -> JSONObject:
    """The record object of ``info`` with its log ``events`` (replayed to check it and to
    give each move's position); ``extra`` keys are added at the top level (they do not
    replace the record's own keys)."""
    state = rules.new_game(len(info.seats), info.options)
    moves: list[JSON] = []
    chance: list[JSON] = []
    for step in replay(rules, state, events):
        e = step.event
        item: JSONObject = {
            "seq": e.seq,
            "kind": e.kind,
            "seat": e.seat,
            "at": e.created_at.isoformat(),
            "text": event_text(e),
            "data": _plain(e.payload),
        }
        if e.kind == "move":
            item["after"] = rules.to_id(step.after)
        elif e.kind == "chance":
            data = e.payload.get("chance")
            entry: JSONObject = {"k": len(chance)}
            if isinstance(data, dict):
                entry.update(_plain(data))
            else:
                entry["chance"] = _plain(data)
            chance.append(entry)
        moves.append(item)
        state = step.after
    out: JSONObject = {
        "format": FORMAT_NAME,
        "game_id": info.id,
        "kind": info.kind,
        "title": rules.title,
        "players": [s.name for s in sorted(info.seats, key=lambda s: s.seat)],
        "seats": [
            {"seat": s.seat, "kind": s.kind, "name": s.name}
            for s in sorted(info.seats, key=lambda s: s.seat)
        ],
        "options": _plain(info.options),
        "status": info.status,
        "created_at": info.created_at.isoformat(),
        "updated_at": info.updated_at.isoformat(),
        "outcome": _plain(outcome_to_json(info.outcome)) if info.outcome else None,
        "position": rules.to_id(state),
        "moves": moves,
        "chance": chance,
    }
    for key, value in (extra or {}).items():
        out.setdefault(key, value)
    return out


def json_text(
    rules: AnyRules,
    info: GameInfo,
    events: Sequence[GameEvent],
    extra: Mapping[str, JSON] | None = None,
) -> str:
    """:func:`record` as indented JSON text (UTF-8, one trailing newline)."""
    return json.dumps(record(rules, info, events, extra), ensure_ascii=False, indent=1) + "\n"


def event_text(e: GameEvent) -> str:
    """An event in words: the move as logged, ``3-1`` for dice, the pieces drawn, or the
    system action."""
    p = e.payload
    if e.kind == "move":
        return str(p.get("move", ""))
    if e.kind == "chance":
        c = p.get("chance")
        if isinstance(c, dict):
            dice, draw = c.get("dice"), c.get("draw")
            if isinstance(dice, list):
                return "-".join(str(d) for d in dice)
            if isinstance(draw, list):
                return " ".join(str(d) for d in draw)
        return json.dumps(c)
    action = str(p.get("action", e.kind))
    reason = p.get("reason")
    return f"{action} ({reason})" if reason else action


def _plain(value: Any) -> Any:
    """``value`` as plain JSON data (a copy: tuples as lists, mappings as dicts)."""
    return json.loads(json.dumps(value))
