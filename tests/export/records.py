"""Hand-made logs for the writers' specifications: a game's events as a test writes
them, checked by the rules as they are made (a log the rules refuse is a test bug)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from door.games.registry import build_registry
from door.services.games import AnyRules, GameEvent, GameInfo, SeatInfo, Status

START = datetime(2026, 12, 1, 10, 0, tzinfo=UTC)

Entry = tuple[str, int | None, Any]
"""``("chance", None, [3, 1])``, ``("move", 0, "8/5 6/5")``, ``("system", 1, {...})``."""


def rules_of(kind: str) -> AnyRules:
    return build_registry()[kind]


def log(rules: AnyRules, options: dict[str, Any], entries: Sequence[Entry],
        seats: int = 2) -> tuple[list[GameEvent], Any]:  # fmt: skip
    """The events of ``entries`` (numbered from 1, a minute apart) and the state after them."""
    state = rules.new_game(seats, rules.validate_options(seats, options))
    events = []
    for seq, (kind, seat, data) in enumerate(entries, start=1):
        if kind == "chance":
            chance = rules.chance_from_json(data if isinstance(data, dict) else {"dice": data})
            payload: dict[str, Any] = {"chance": rules.chance_to_json(chance)}
            state = rules.apply_chance(state, chance)
        elif kind == "move":
            move = rules.parse_move(state, str(data))
            payload = {"move": rules.format_move(state, move)}
            state = rules.apply(state, move)
        else:
            payload = dict(data)
            if payload.get("action") == "timeout":
                state = rules.on_timeout(state)
            elif payload.get("action") == "forfeit":
                assert seat is not None
                state = rules.forfeit(state, seat, str(payload.get("reason", "forfeit")))
        events.append(GameEvent(seq, seat, kind, payload, START + timedelta(minutes=seq)))
    return events, state


def info(rules: AnyRules, options: dict[str, Any], state: Any, events: Sequence[GameEvent],
         names: Sequence[str] = ("Alice", "Bob"), *, game_id: int = 12,
         status: Status | None = None) -> GameInfo:  # fmt: skip
    """A ``GameInfo`` for a game of ``names`` (users 1, 2, …) at ``state``."""
    outcome = rules.outcome(state)
    seats = tuple(SeatInfo(i, "user", i + 1, n, 0) for i, n in enumerate(names))
    return GameInfo(
        id=game_id, kind=rules.kind, title=rules.title,
        options=rules.validate_options(len(names), options),
        status=status or ("finished" if outcome is not None else "active"), seats=seats,
        to_act=rules.to_act(state), version=len(events), deadline=None, deadline_hours=168,
        hints_allowed=True, created_by=1, created_at=START, updated_at=START, summary="",
        outcome=outcome, last_seq=len(events),
    )  # fmt: skip


def simulated(kind: str, options: dict[str, Any], seats: int, seed: int,
              max_moves: int | None = None) -> list[Entry]:  # fmt: skip
    """The entries of a game of ``kind`` played by taking each seat's first legal move,
    chance drawn with ``random.Random(seed)`` (``max_moves``: stop after that many)."""
    import random

    rules = rules_of(kind)
    rng = random.Random(seed)
    state = rules.new_game(seats, rules.validate_options(seats, options))
    out: list[Entry] = []
    moves = 0
    while rules.outcome(state) is None:
        if rules.chance_pending(state):
            chance = rules.sample_chance(state, rng)
            out.append(("chance", None, rules.chance_to_json(chance)))
            state = rules.apply_chance(state, chance)
            continue
        if max_moves is not None and moves >= max_moves:
            break  # (with the draws the last move owes made)
        seat = rules.to_act(state)
        move = rules.legal_moves(state)[0]
        out.append(("move", seat, rules.format_move(state, move)))
        state = rules.apply(state, move)
        moves += 1
    return out
