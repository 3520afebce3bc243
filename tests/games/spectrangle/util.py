"""Helpers for the Spectrangle tests: build positions by hand and play games by seed."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from door.games.spectrangle.moves import Move
from door.games.spectrangle.pieces import piece_index
from door.games.spectrangle.rules import SpectrangleRules
from door.games.spectrangle.state import Draw, SpectrangleState

EMPTY_BOARD = "/".join(["-"] * 36)


def spn_with(
    board: dict[int, str] | None = None,
    hands: tuple[str, ...] = ("RRR6", "BBB6"),
    scores: tuple[int, ...] | None = None,
    turn: int | str = 0,
    bag: int | None = None,
) -> str:
    """An SPN from a few placed entries and hands; BAG defaults to what is left."""
    entries = ["-"] * 36
    for i, e in (board or {}).items():
        entries[i] = e
    used = sum(1 for e in entries if e != "-") + sum(
        0 if h == "-" else len(h.split(",")) for h in hands
    )
    score_text = ",".join(str(s) for s in (scores or (0,) * len(hands)))
    bag_count = 36 - used if bag is None else bag
    return f"{'/'.join(entries)} {'|'.join(hands)} {score_text} {turn} {bag_count}"


def p(name: str) -> int:
    return piece_index(name)


@dataclass
class PlayedGame:
    """A game played with random legal moves, with its log and per-seat placement points."""

    final: SpectrangleState
    states: list[SpectrangleState] = field(default_factory=list)
    log: list[tuple[str, object]] = field(default_factory=list)
    placed_points: list[int] = field(default_factory=list)


def play_random(
    rules: SpectrangleRules, players: int, seed: int, options: dict[str, bool] | None = None
) -> PlayedGame:
    """Play a whole game with ``random.Random(seed)``, keeping every state and event."""
    rng = random.Random(seed)
    state = rules.new_game(players, options or {})
    game = PlayedGame(state, [state], [], [0] * players)
    while rules.outcome(state) is None:
        if rules.chance_pending(state):
            event: Draw = rules.sample_chance(state, rng)
            game.log.append(("chance", rules.chance_to_json(event)))
            state = rules.apply_chance(state, event)
        else:
            scored = rules.scored_moves(state)
            move, score = rng.choice(scored)
            seat = rules.to_act(state)
            assert seat is not None
            game.placed_points[seat] += score
            game.log.append(("move", rules.format_move(state, move)))
            state = rules.apply(state, move)
        game.states.append(state)
    game.final = state
    return game


def place(piece_name: str, field_no: int, rotation: int = 0, mirror: bool = False) -> Move:
    return Move.place(p(piece_name), field_no, rotation, mirror)
