"""Games played to the end with the rules and the door-dice-v1 stream, written down as the
JSON record ``door export --format json`` gives (the keys door/services/fairness.py
reads). One small function, so that the tests can swap it for the real service and export.
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
    moves: list[dict[str, Any]] = []
    for _ in range(MAX_ACTIONS):
        if rules.outcome(state) is not None:
            break
        if rules.chance_pending(state):
            k = len(chance)
            event = rules.chance_from_bytes(
                state, fairdice.event_stream(seed, game_id, k, words)
            )
            chance.append({"k": k, **rules.chance_to_json(event)})
            state = rules.apply_chance(state, event)
            continue
        seat = rules.to_act(state)
        assert seat is not None
        if forfeit_chance and rng.random() < forfeit_chance:
            moves.append({"seat": seat, "action": "forfeit", "reason": "resign"})
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
        moves.append({"seat": seat, "move": rules.format_move(state, move)})
        state = rules.apply(state, move)
    else:
        raise AssertionError("the game did not end")
    return {
        "game_id": game_id,
        "kind": kind,
        "options": dict(options),
        "seed_hex": seed.hex(),
        "commitment_hex": fairdice.commitment(seed),
        "words": list(words),
        "chance": chance,
        "moves": moves,
    }
