"""Whole games, random and replayed: conservation, scores, IDs, the end (Hypothesis)."""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from door.games.spectrangle.moves import placements
from door.games.spectrangle.pieces import hand_value
from door.games.spectrangle.rules import SpectrangleRules
from door.games.spectrangle.spn import to_spn
from tests.games.spectrangle.util import PlayedGame, play_random

R = SpectrangleRules()

game_setups = st.tuples(
    st.integers(min_value=0, max_value=2**32),
    st.sampled_from([(2, False), (3, False), (4, False), (4, True)]),
    st.booleans(),
)


def _play(seed: int, players: int, teams: bool, mirror: bool) -> PlayedGame:
    return play_random(R, players, seed, {"teams": teams, "mirror": mirror})


@settings(max_examples=40, deadline=None)
@given(game_setups)
def test_all_36_pieces_are_always_on_the_board_in_a_hand_or_in_the_bag(setup: tuple) -> None:
    seed, (players, teams), mirror = setup
    for s in _play(seed, players, teams, mirror).states:
        where = Counter(pl.piece for pl in s.board if pl is not None)
        for h in s.hands:
            where.update(h)
        where.update(s.bag)
        assert sorted(where) == list(range(36)) and max(where.values()) == 1
        assert all(len(h) <= 4 for h in s.hands)


@settings(max_examples=40, deadline=None)
@given(game_setups)
def test_each_final_score_is_its_placement_scores_minus_the_hand_left(setup: tuple) -> None:
    seed, (players, teams), mirror = setup
    game = _play(seed, players, teams, mirror)
    final = game.final
    for seat in range(players):
        assert final.scores[seat] == game.placed_points[seat] - hand_value(final.hands[seat])


@settings(max_examples=25, deadline=None)
@given(game_setups)
def test_a_finished_game_has_no_moves_and_nobody_could_place_or_a_round_was_idle(
    setup: tuple,
) -> None:
    seed, (players, teams), mirror = setup
    final = _play(seed, players, teams, mirror).final
    assert final.is_over and R.legal_moves(final) == [] and R.to_act(final) is None
    if final.end == "normal":
        assert not final.bag
        assert not any(placements(final, s) for s in range(players))
    else:
        assert final.end == "stuck"
    o = R.outcome(final)
    assert o is not None and min(o.placings) == 1 and o.winners


@settings(max_examples=25, deadline=None)
@given(game_setups)
def test_ids_and_snapshots_round_trip_through_a_whole_game(setup: tuple) -> None:
    seed, (players, teams), mirror = setup
    options = {"teams": teams, "mirror": mirror}
    for s in _play(seed, players, teams, mirror).states:
        assert R.from_snapshot(R.snapshot_id(s), options) == s
        if s.phase == "play" and not s.pending:
            assert to_spn(R.from_id(R.to_id(s), options)) == R.to_id(s)


@settings(max_examples=15, deadline=None)
@given(game_setups)
def test_replaying_the_event_log_reproduces_the_game_without_an_rng(setup: tuple) -> None:
    seed, (players, teams), mirror = setup
    options = {"teams": teams, "mirror": mirror}
    game = _play(seed, players, teams, mirror)
    s = R.new_game(players, options)
    for kind, payload in game.log:
        if kind == "chance":
            s = R.apply_chance(s, R.chance_from_json(payload))
        else:
            assert isinstance(payload, str)
            s = R.apply(s, R.parse_move(s, payload))
    assert s == game.final


@settings(max_examples=15, deadline=None)
@given(game_setups)
def test_legal_moves_are_distinct_by_resulting_board_and_scored_as_applied(setup: tuple) -> None:
    seed, (players, teams), mirror = setup
    game = _play(seed, players, teams, mirror)
    for s in game.states[:: max(1, len(game.states) // 6)]:
        if R.to_act(s) is None:
            continue
        seat = R.to_act(s)
        assert seat is not None
        boards = set()
        for m, score in R.scored_moves(s):
            after = R.apply(s, m)
            boards.add((after.board, after.hands[seat], after.swap_out))
            gained = after.scores[seat] - s.scores[seat]
            penalty = hand_value(after.hands[seat]) if after.is_over else 0
            assert gained == score - penalty
        assert len(boards) == len(R.scored_moves(s))


@settings(max_examples=30, deadline=None)
@given(game_setups, st.lists(st.integers(0, 99), min_size=3, max_size=3))
def test_games_with_timeouts_and_forfeits_still_conserve_pieces_and_end(
    setup: tuple, knobs: list[int]
) -> None:
    """The service's own actions (timeouts, a forfeit) keep every invariant."""
    seed, (players, teams), mirror = setup
    timeout_pct, forfeit_at, forfeit_seat = knobs
    options = {"teams": teams, "mirror": mirror}
    rng = random.Random(seed)
    s = R.new_game(players, options)
    steps = 0
    while R.outcome(s) is None:
        steps += 1
        assert steps < 2000
        if steps == forfeit_at:
            seat = forfeit_seat % players
            if seat not in s.out:
                s = R.forfeit(s, seat, "forfeit")
        elif R.chance_pending(s):
            s = R.apply_chance(s, R.sample_chance(s, rng))
        elif rng.randrange(100) < timeout_pct // 3:
            s = R.on_timeout(s)
        else:
            s = R.apply(s, rng.choice(list(R.legal_moves(s))))
        where = Counter(pl.piece for pl in s.board if pl is not None)
        for h in s.hands:
            where.update(h)
        where.update(s.bag)
        assert sorted(where) == list(range(36)) and max(where.values()) == 1
        assert all(not s.hands[o] for o in s.out)
        assert R.to_act(s) not in s.out
        assert R.from_snapshot(R.snapshot_id(s), options) == s
    o = R.outcome(s)
    assert o is not None and o.winners and all(w not in s.out for w in o.winners)
