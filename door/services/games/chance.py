"""A commit's pending chance (dice, tile draws), drawn and logged so that the log replays
without any RNG: a game with a dice seed draws its k-th chance event from
``fairdice.event_stream(seed, game id, k, the seats' dice words)``, which anyone can check
once the seed is shown at the end; an older game, which has no seed, from the service's
RNG."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from door.games import fairdice
from door.services.games.model import AnyRules
from door.store.records import GameRecord, NewEvent, SeatRecord

MAX_CHANCE_CHAIN = 1000  # a rules bug must not hang a transaction


def draw_pending(
    rules: AnyRules,
    state: Any,
    game: GameRecord,
    seats: Sequence[SeatRecord],
    rng: random.Random,
) -> tuple[Any, list[NewEvent]]:
    """``state`` with every chance event it waits for drawn and applied (none once the
    game is over), and those events, in order."""
    seed = game.dice_seed
    # the seats' dice words in seat order: fixed once the game started (it starts only
    # when every seat is taken, and no chance is drawn before)
    words = [s.dice_word for s in sorted(seats, key=lambda s: s.seat)]
    drawn: list[NewEvent] = []
    for _ in range(MAX_CHANCE_CHAIN):
        if rules.outcome(state) is not None or not rules.chance_pending(state):
            return state, drawn
        if seed is None:  # a game made before provable dice
            chance = rules.sample_chance(state, rng)
        else:
            k = game.chance_count + len(drawn)
            stream = fairdice.event_stream(seed, game.id, k, words)
            chance = rules.chance_from_bytes(state, stream)
        state = rules.apply_chance(state, chance)
        drawn.append(NewEvent(None, "chance", {"chance": rules.chance_to_json(chance)}))
    raise RuntimeError(f"game {game.id}: chance events without end")
