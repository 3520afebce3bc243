"""Games played to the end with the rules and the door-dice-v1 stream, written down in the
shape of ``door export --format json`` (``door-record-1``: every logged event under
``moves`` with its payload as ``data``, chance events included, and the chance events
again under ``chance`` with their k). One small function, so that the tests can swap it
for the real service and export; and the two ways to tamper with such a record.
"""

from __future__ import annotations

import random
from typing import Any

from door.games import fairdice
from door.games.registry import build_registry

MAX_ACTIONS = 5000


def _pick(rng: random.Random, kind: str, formatted: list[str]) -> str:
    """A random legal action; backgammon games mostly run on (doubles rare, mostly taken)."""
    if kind == "backgammon":
        if "accept" in formatted:
            return rng.choice(["accept", "reject"])
        if "take" not in formatted and rng.random() < 0.003:
            return "resign"  # not in legal_moves; refused where it does not apply
        if "roll" in formatted:
            return "double" if "double" in formatted and rng.random() < 0.05 else "roll"
        if "take" in formatted:
            r = rng.random()
            if r < 0.15:
                return "drop"
            if r < 0.25 and "beaver" in formatted:
                return "beaver"
            return "take"
    return rng.choice(formatted)


def play_record(
    kind: str,
    seed: bytes,
    game_id: int,
    words: list[str],
    options: dict[str, Any],
    rng: random.Random,
    *,
    forfeit_chance: float = 0.0,
) -> dict[str, Any]:
    """Play a ``kind`` game with one seat per word to its end (random legal actions from
    ``rng``, every chance event from the seed) and return its record."""
    rules = build_registry()[kind]
    seats = len(words)
    state = rules.new_game(seats, options)
    chance: list[dict[str, Any]] = []
    log: list[dict[str, Any]] = []

    def logged(kind: str, seat: int | None, text: str, data: dict[str, Any]) -> None:
        log.append({"seq": len(log) + 1, "kind": kind, "seat": seat, "text": text, "data": data})

    logged("system", None, "start", {"action": "start"})
    for _ in range(MAX_ACTIONS):
        if rules.outcome(state) is not None:
            break
        if rules.chance_pending(state):
            k = len(chance)
            event = rules.chance_from_bytes(
                state, fairdice.event_stream(seed, game_id, k, words)
            )
            data = rules.chance_to_json(event)
            chance.append({"k": k, **data})
            logged("chance", None, str(data), {"chance": data})
            state = rules.apply_chance(state, event)
            continue
        seat = rules.to_act(state)
        assert seat is not None
        if forfeit_chance and rng.random() < forfeit_chance:
            logged("system", seat, "forfeit", {"action": "forfeit", "reason": "resign"})
            state = rules.forfeit(state, seat, "resign")
            continue
        legal = list(rules.legal_moves(state))
        by_text = {rules.format_move(state, m): m for m in legal}
        text = _pick(rng, kind, list(by_text))
        if text in by_text:
            move = by_text[text]
        else:
            try:
                move = rules.parse_move(state, text)
                rules.apply(state, move)
            except ValueError:
                move = rng.choice(legal)
        text = rules.format_move(state, move)
        logged("move", seat, text, {"move": text})
        state = rules.apply(state, move)
    else:
        raise AssertionError("the game did not end")
    return {
        "format": "door-record-1",
        "game_id": game_id,
        "kind": kind,
        "seats": [{"seat": s, "kind": "user", "name": f"player{s}"} for s in range(seats)],
        "options": rules.validate_options(seats, options),
        "seed_hex": seed.hex(),
        "commitment_hex": fairdice.commitment(seed),
        "words": list(words),
        "chance": chance,
        "moves": log,
    }


def _chance_items(record: dict[str, Any]) -> list[dict[str, Any]]:
    return [item for item in record["moves"] if item["kind"] == "chance"]


def set_chance(record: dict[str, Any], i: int, key: str, value: Any) -> None:
    """Change chance event ``i`` in the chance list and in the log alike."""
    record["chance"][i][key] = value
    _chance_items(record)[i]["data"]["chance"][key] = value


def remove_chance(record: dict[str, Any], i: int) -> None:
    """Remove chance event ``i`` from the chance list and from the log alike."""
    del record["chance"][i]
    record["moves"].remove(_chance_items(record)[i])


def bare(record: dict[str, Any]) -> dict[str, Any]:
    """The record with its log as plain moves and system events (no chance, no payloads)."""
    out = dict(record)
    out["moves"] = [
        {"seat": item["seat"], **item["data"]}
        for item in record["moves"]
        if item["kind"] != "chance"
    ]
    return out
