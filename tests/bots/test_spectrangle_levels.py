"""Spectrangle levels: three, weakest first, each beating the one below it."""

from __future__ import annotations

import random

from door.games.spectrangle import bot
from door.games.spectrangle.rules import SpectrangleRules
from door.services.bots import SPECTRANGLE_LEVELS

RULES = SpectrangleRules()


def _game(levels: list[str], rng: random.Random) -> tuple[int, ...]:
    state = RULES.new_game(len(levels), {})
    while True:
        while RULES.chance_pending(state):
            state = RULES.apply_chance(state, RULES.sample_chance(state, rng))
        out = RULES.outcome(state)
        if out is not None:
            return out.winners
        seat = RULES.to_act(state)
        assert seat is not None
        move = bot.choose_move(state, levels[seat], rng)
        assert move in RULES.legal_moves(state)
        state = RULES.apply(state, move)


def test_there_are_three_levels_and_the_service_lists_each_of_them() -> None:
    assert bot.LEVELS == ("novice", "greedy", "strong")
    assert [name for name, _ in SPECTRANGLE_LEVELS] == [f"spectrangle-{lv}" for lv in bot.LEVELS]


def test_novice_places_a_piece_whenever_one_fits_and_is_a_function_of_the_position() -> None:
    rng = random.Random(5)
    state = RULES.new_game(2, {})
    while RULES.chance_pending(state):
        state = RULES.apply_chance(state, RULES.sample_chance(state, rng))
    move = bot.choose_move(state, "novice")
    assert move.kind == "place"
    assert bot.choose_move(state, "novice") == move


def test_greedy_beats_novice_most_of_the_time() -> None:
    rng = random.Random(11)
    won = 0
    for g in range(20):
        seats = ["greedy", "novice"] if g % 2 == 0 else ["novice", "greedy"]
        won += seats.index("greedy") in _game(seats, rng)
    assert won >= 14
