"""Replaying a game's log (door.games.replay): what each logged event does, that a whole
game replays to its snapshot, and that a log that does not fit is refused clearly."""

from __future__ import annotations

import doctest
import itertools
import json
import random
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from door.games import replay as replay_module
from door.games.backgammon.rules import BackgammonRules
from door.games.base import GameRules
from door.games.replay import Event, ReplayError, apply_event, final_state, replay
from door.games.spectrangle.rules import SpectrangleRules
from door.services.games import GameEvent

AnyRules = GameRules[Any, Any, Any]
BG = BackgammonRules()
SP = SpectrangleRules()
MONEY = {"match_length": 0}
ENDERS = ("double", "drop", "resign")


def play(
    rules: AnyRules, seats: int, options: dict[str, Any], seed: int, limit: int = 5000
) -> tuple[Any, list[Event]]:
    """A game of random legal moves (at most ``limit`` events) and its log, written the
    way the service writes it (the chance events through JSON text)."""
    rng = random.Random(seed)
    state = rules.new_game(seats, options)
    events: list[Event] = []
    while rules.outcome(state) is None and len(events) < limit:
        if rules.chance_pending(state):
            chance = rules.sample_chance(state, rng)
            data = json.loads(json.dumps(rules.chance_to_json(chance)))
            events.append(Event("chance", None, {"chance": data}))
            state = rules.apply_chance(state, chance)
            continue
        seat = rules.to_act(state)
        legal = list(rules.legal_moves(state))
        # Cube and resignation actions end a random game within a few moves.
        long = [m for m in legal if not rules.format_move(state, m).startswith(ENDERS)]
        move = rng.choice(long or legal)
        events.append(Event("move", seat, {"move": rules.format_move(state, move)}))
        state = rules.apply(state, move)
    return state, events


def test_the_module_examples_hold() -> None:
    assert doctest.testmod(replay_module).failed == 0


def test_a_backgammon_game_replayed_event_by_event_reproduces_its_snapshot() -> None:
    end, events = play(BG, 2, MONEY, seed=3)
    assert BG.outcome(end) is not None
    state = BG.new_game(2, MONEY)
    for event in events:
        state = apply_event(BG, state, event)
    assert BG.to_id(state) == BG.to_id(end)


def test_a_spectrangle_game_replayed_reproduces_its_snapshot() -> None:
    options = SP.default_options()
    end, events = play(SP, 3, options, seed=5)
    assert SP.outcome(end) is not None
    assert SP.to_id(final_state(SP, SP.new_game(3, options), events)) == SP.to_id(end)


def test_each_step_starts_where_the_last_ended_and_moves_carry_the_parsed_move() -> None:
    start = BG.new_game(2, MONEY)
    _, events = play(BG, 2, MONEY, seed=8, limit=40)
    steps = list(replay(BG, start, events))
    assert [s.event for s in steps] == events
    assert steps[0].before == start
    assert all(a.after == b.before for a, b in itertools.pairwise(steps))
    for s in steps:
        if s.event.kind == "move":
            assert s.move is not None
            assert BG.format_move(s.before, s.move) == s.event.payload["move"]
        else:
            assert s.move is None


def test_the_services_logged_events_replay_as_they_are() -> None:
    _, events = play(BG, 2, MONEY, seed=9, limit=30)
    now = datetime.now(UTC)
    logged = [
        GameEvent(seq, e.seat, e.kind, dict(e.payload), now)  # type: ignore[arg-type]
        for seq, e in enumerate(events, start=1)
    ]
    start = BG.new_game(2, MONEY)
    steps = list(replay(BG, start, logged))
    assert [s.event.seq for s in steps] == list(range(1, 31))
    assert steps[-1].after == final_state(BG, start, events)


@pytest.mark.parametrize("action", ["join", "leave", "start"])
def test_a_seat_joining_leaving_or_the_game_starting_changes_nothing(action: str) -> None:
    state = BG.new_game(2, MONEY)
    assert apply_event(BG, state, Event("system", 1, {"action": action})) == state


def test_a_timeout_applies_the_games_own_rule_for_a_late_seat() -> None:
    state = BG.apply_chance(BG.new_game(2, MONEY), (3, 1))
    late = BG.to_act(state)
    after = apply_event(BG, state, Event("system", None, {"action": "timeout"}))
    assert after == BG.on_timeout(state)
    outcome = BG.outcome(after)
    assert outcome is not None and late not in outcome.winners


def test_a_forfeit_is_the_seats_resignation_with_its_reason() -> None:
    state = SP.new_game(2, SP.default_options())
    event = Event("system", 1, {"action": "forfeit", "reason": "resign"})
    assert apply_event(SP, state, event) == SP.forfeit(state, 1, "resign")


def test_a_forfeit_without_a_seat_is_refused() -> None:
    state = BG.new_game(2, MONEY)
    with pytest.raises(ReplayError, match="forfeit event without a seat"):
        apply_event(BG, state, Event("system", None, {"action": "forfeit"}))


def test_an_illegal_move_stops_the_replay_at_that_event_with_the_rules_reason() -> None:
    events = [
        Event("chance", None, {"chance": {"dice": [3, 1]}}),
        Event("move", 0, {"move": "24/10"}),
    ]
    walk = replay(BG, BG.new_game(2, MONEY), events)
    first = next(walk)
    assert first.event.kind == "chance"
    with pytest.raises(ReplayError, match=r"^event 2 of the log: .*24/10") as caught:
        next(walk)
    assert caught.value.__cause__ is not None  # the rules' own error, kept for the log


def test_an_event_of_an_unknown_kind_is_refused() -> None:
    with pytest.raises(ReplayError, match="event 1 of the log: unknown event kind 'note'"):
        list(replay(BG, BG.new_game(2, MONEY), [Event("note", None, {})]))


def test_an_event_missing_its_payload_says_what_is_missing() -> None:
    with pytest.raises(ReplayError, match="a chance event without 'chance'"):
        apply_event(BG, BG.new_game(2, MONEY), Event("chance", None, {"dice": [3, 1]}))


def test_a_chance_event_of_the_wrong_shape_is_refused() -> None:
    with pytest.raises(ReplayError, match=r"chance event .* does not replay"):
        apply_event(BG, BG.new_game(2, MONEY), Event("chance", None, {"chance": 7}))


GAMES: list[tuple[AnyRules, int, dict[str, Any]]] = [
    (BG, 2, MONEY),
    (BG, 2, {"match_length": 3}),
    (SP, 2, SP.default_options()),
    (SP, 4, SP.default_options()),
]


@settings(max_examples=25, deadline=None)
@given(
    game=st.sampled_from(GAMES),
    seed=st.integers(0, 2**32),
    length=st.integers(0, 80),
    cut=st.floats(0.0, 1.0),
)
def test_replaying_a_prefix_then_the_rest_equals_replaying_all(
    game: tuple[AnyRules, int, dict[str, Any]], seed: int, length: int, cut: float
) -> None:
    rules, seats, options = game
    _, events = play(rules, seats, options, seed, limit=length)
    at = round(cut * len(events))
    start = rules.new_game(seats, options)
    whole = list(replay(rules, start, events))
    head = list(replay(rules, start, events[:at]))
    middle = head[-1].after if head else start
    tail = list(replay(rules, middle, events[at:]))
    assert head + tail == whole
    assert final_state(rules, middle, events[at:]) == final_state(rules, start, events)
