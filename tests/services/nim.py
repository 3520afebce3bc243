"""A tiny test-only game implementing GameRules, so the service is tested on its own.

Nim with dice for 2–4 players: a set-up chance event picks who starts; before each turn a
die (1–3) is rolled and the player takes 1..die stones (``take N``); whoever takes the last
stone wins. A timeout is a pass; a forfeit puts that seat last and ends the game.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from door.games import fairdice
from door.games.base import (
    AmbiguousMoveError,
    IllegalMoveError,
    InvalidMoveError,
    Outcome,
    Refusal,
)

__all__ = ["AmbiguousMoveError", "NimRules", "NimState"]


@dataclass(frozen=True)
class NimState:
    seats: int
    heap: int
    started: bool = False
    to_move: int | None = None
    die: int | None = None
    winner: int | None = None
    loser: int | None = None
    reason: str = "normal"


class NimRules:
    kind = "nim"
    title = "Dice Nim"
    min_seats = 2
    max_seats = 4

    def default_options(self) -> dict[str, Any]:
        return {"heap": 12}

    def validate_options(self, seats: int, options: Mapping[str, Any]) -> dict[str, Any]:
        opts = {**self.default_options(), **options}
        unknown = set(opts) - {"heap"}
        if unknown:
            raise Refusal(f"unknown option(s): {', '.join(sorted(unknown))}")
        heap = opts["heap"]
        if not isinstance(heap, int) or isinstance(heap, bool) or not 1 <= heap <= 100:
            raise Refusal("the heap must be 1 to 100 stones")
        return opts

    def new_game(self, seats: int, options: Mapping[str, Any]) -> NimState:
        return NimState(seats, int(self.validate_options(seats, options)["heap"]))

    def to_id(self, state: NimState) -> str:
        return "/".join(
            str(x)
            for x in (
                state.seats,
                state.heap,
                int(state.started),
                state.to_move,
                state.die,
                state.winner,
                state.loser,
                state.reason,
            )
        )

    def from_id(self, text: str, options: Mapping[str, Any] | None = None) -> NimState:
        parts = text.split("/")
        if len(parts) != 8:
            raise ValueError(f"not a Nim id: {text!r}")

        def opt(x: str) -> int | None:
            return None if x == "None" else int(x)

        return NimState(
            int(parts[0]),
            int(parts[1]),
            parts[2] == "1",
            opt(parts[3]),
            opt(parts[4]),
            opt(parts[5]),
            opt(parts[6]),
            parts[7],
        )

    def _over(self, state: NimState) -> bool:
        return state.winner is not None or state.loser is not None

    def to_act(self, state: NimState) -> int | None:
        if self._over(state) or self.chance_pending(state):
            return None
        return state.to_move

    def chance_pending(self, state: NimState) -> bool:
        return not self._over(state) and (not state.started or state.die is None)

    def sample_chance(self, state: NimState, rng: random.Random) -> tuple[str, int]:
        if not state.started:
            return ("start", rng.randrange(state.seats))
        return ("die", rng.randint(1, 3))

    def chance_from_bytes(self, state: NimState, stream: Iterator[int]) -> tuple[str, int]:
        if not state.started:
            return ("start", fairdice.choose(stream, state.seats))
        return ("die", fairdice.choose(stream, 3) + 1)

    def apply_chance(self, state: NimState, event: tuple[str, int]) -> NimState:
        what, value = event
        if what == "start" and not state.started and 0 <= value < state.seats:
            return replace(state, started=True, to_move=value)
        if what == "die" and state.started and state.die is None and 1 <= value <= 3:
            return replace(state, die=value)
        raise ValueError(f"chance event {event!r} does not fit")

    def chance_to_json(self, event: tuple[str, int]) -> Any:
        return [event[0], event[1]]

    def chance_from_json(self, data: Any) -> tuple[str, int]:
        return (str(data[0]), int(data[1]))

    def legal_moves(self, state: NimState) -> Sequence[int]:
        if self.to_act(state) is None or state.die is None:
            return []
        return list(range(1, min(state.die, state.heap) + 1))

    def apply(self, state: NimState, move: int) -> NimState:
        if move not in self.legal_moves(state):
            raise IllegalMoveError(f"you may take 1 to {state.die} stones")
        assert state.to_move is not None
        heap = state.heap - move
        if heap == 0:
            return replace(state, heap=0, winner=state.to_move, die=None)
        return replace(state, heap=heap, to_move=(state.to_move + 1) % state.seats, die=None)

    def parse_move(self, state: NimState, text: str) -> int:
        words = text.lower().split()
        if words and words[0] == "take":
            words = words[1:]
        if len(words) != 1 or not words[0].isdigit():
            raise InvalidMoveError("type take N, e.g. take 2")
        n = int(words[0])
        if n not in self.legal_moves(state):
            raise IllegalMoveError(f"you may take 1 to {min(state.die or 0, state.heap)} stones")
        return n

    def format_move(self, state: NimState, move: int) -> str:
        return f"take {move}"

    def outcome(self, state: NimState) -> Outcome | None:
        if state.winner is not None:
            w = state.winner
            return Outcome(
                (w,),
                tuple(1 if s == w else 0 for s in range(state.seats)),
                tuple(1 if s == w else 2 for s in range(state.seats)),
                state.reason,
            )
        if state.loser is not None:
            lo = state.loser
            winners = tuple(s for s in range(state.seats) if s != lo)
            return Outcome(
                winners,
                tuple(0 if s == lo else 1 for s in range(state.seats)),
                tuple(2 if s == lo else 1 for s in range(state.seats)),
                state.reason,
            )
        return None

    def on_timeout(self, state: NimState) -> NimState:
        assert state.to_move is not None
        return replace(state, to_move=(state.to_move + 1) % state.seats, die=None)

    def forfeit(self, state: NimState, seat: int, reason: str) -> NimState:
        return replace(state, loser=seat, reason=reason, die=None)

    def view(self, state: NimState, seat: int | None) -> dict[str, Any]:
        return {"heap": state.heap, "to_move": state.to_move, "die": state.die}

    def describe(self, state: NimState) -> str:
        if self._over(state):
            return "over"
        return f"heap {state.heap}, seat {state.to_move} to move"
