"""End of game, penalties, placings, the safety end, timeouts and forfeits."""

from __future__ import annotations

import random

import pytest

from door.games.spectrangle.moves import placements
from door.games.spectrangle.pieces import hand_value
from door.games.spectrangle.rules import SpectrangleRules
from door.games.spectrangle.state import SpectrangleState
from tests.games.spectrangle.util import play_random, spn_with

R = SpectrangleRules()
# Nobody can place: 12 wants Blue or Green next to it, the hands hold Red and Yellow.
STUCK = spn_with(board={12: "BGG5"}, hands=("RRR6", "YYY6"), scores=(10, 4))


def test_a_finished_spn_gives_winner_scores_and_placings() -> None:
    s = R.from_id(spn_with(board={12: "BGG5"}, hands=("-", "-"), scores=(41, 37), turn="-"))
    o = R.outcome(s)
    assert o is not None
    assert (o.winners, o.scores, o.placings, o.reason) == ((0,), (41, 37), (1, 2), "normal")


def test_equal_scores_stay_tied_and_share_a_place() -> None:
    s = R.from_id(
        spn_with(board={12: "BGG5"}, hands=("-", "-", "-"), scores=(10, 20, 10), turn="-")
    )
    o = R.outcome(s)
    assert o is not None and o.winners == (1,) and o.placings == (2, 1, 2)
    s2 = R.from_id(spn_with(board={12: "BGG5"}, hands=("-", "-"), scores=(7, 7), turn="-"))
    o2 = R.outcome(s2)
    assert o2 is not None and o2.winners == (0, 1) and o2.placings == (1, 1)


def test_team_variant_partners_share_one_score_and_win_together() -> None:
    text = spn_with(board={12: "BGG5"}, hands=("-",) * 4, scores=(10, 20, 30, 5), turn="-")
    o = R.outcome(R.from_id(text, {"teams": True}))
    assert o is not None
    assert o.winners == (0, 2) and o.scores == (40, 25, 40, 25) and o.placings == (1, 2, 1, 2)


def test_a_full_round_in_which_nobody_can_place_ends_the_game_with_penalties() -> None:
    s = R.from_id(STUCK)
    s = R.apply(s, R.parse_move(s, "pass"))
    assert not s.is_over and s.idle == 1
    s = R.apply(s, R.parse_move(s, "pass"))
    assert s.is_over and s.end == "stuck"
    assert s.scores == (10 - 6, 4 - 6)
    o = R.outcome(s)
    assert o is not None and o.winners == (0,) and o.reason == "normal"


def test_a_swap_counts_as_a_turn_without_placing() -> None:
    s = R.from_id(STUCK)
    s = R.apply(s, R.parse_move(s, "swap RRR6"))
    assert s.idle == 1 and R.chance_pending(s)


def test_a_placement_restarts_the_safety_count() -> None:
    s = R.from_id(spn_with(board={12: "BGG5"}, hands=("RRR6", "GGG6,YYY6")))
    s = R.apply(s, R.parse_move(s, "pass"))
    assert s.idle == 1
    s = R.apply(s, R.parse_move(s, "GGG6@13:0"))
    assert s.idle == 0 and not s.is_over


def test_when_the_bag_is_empty_and_nobody_can_place_the_game_ends_and_hands_count_off() -> None:
    checked = 0
    for seed in range(40):
        game = play_random(R, 2, seed)
        before = next(
            (st for st in game.states if st.phase == "play" and not st.pending and not st.bag),
            None,
        )
        final = game.final
        if before is None or final.end != "normal":
            continue
        assert not any(placements(final, s) for s in range(2))
        assert not final.bag
        checked += 1
    assert checked > 10


def test_final_scores_are_running_scores_minus_the_hand_left() -> None:
    game = play_random(R, 3, seed=2)
    last_play = [s for s in game.states if not s.is_over][-1]
    final = game.final
    for seat in range(3):
        assert final.scores[seat] == game.placed_points[seat] - hand_value(final.hands[seat])
    assert last_play.scores != final.scores or all(not h for h in final.hands)


def test_timeout_makes_the_late_seat_pass_even_when_it_could_place() -> None:
    s = R.from_id(spn_with(board={12: "BGG5"}, hands=("GGG6", "RRR6")))
    after = R.on_timeout(s)
    assert after.turn == 1 and after.hands == s.hands and after.idle == 0
    assert not after.is_over


def test_timeout_of_a_seat_that_cannot_place_counts_towards_the_safety_end() -> None:
    s = R.on_timeout(R.on_timeout(R.from_id(STUCK)))
    assert s.is_over and s.end == "stuck"


def test_timeout_while_a_draw_is_pending_is_refused() -> None:
    with pytest.raises(ValueError, match="no seat"):
        R.on_timeout(R.new_game(2, {}))


def _mid_game(players: int, options: dict[str, bool] | None = None) -> SpectrangleState:
    game = play_random(R, players, seed=3, options=options)
    return next(s for s in game.states if R.to_act(s) is not None and s.board_empty is False)


def test_forfeit_with_two_players_gives_the_other_the_win_whatever_the_score() -> None:
    s = _mid_game(2)
    loser = 0 if s.scores[0] >= s.scores[1] else 1
    over = R.forfeit(s, loser, "resign")
    o = R.outcome(over)
    assert o is not None and o.winners == (1 - loser,) and o.reason == "resign"
    assert o.placings[loser] == 2


def test_forfeit_with_three_players_drops_the_seat_and_the_game_goes_on() -> None:
    s = _mid_game(3)
    seat = R.to_act(s)
    assert seat is not None
    hand = s.hands[seat]
    after = R.forfeit(s, seat, "forfeit")
    assert not after.is_over and after.out == (seat,)
    assert after.hands[seat] == () and set(hand) <= set(after.bag)
    assert R.to_act(after) == s.next_seat(seat)
    # Its turns are skipped from now on.
    for _ in range(6):
        if R.outcome(after) is not None:
            break
        while R.chance_pending(after):
            after = R.apply_chance(after, R.sample_chance(after, random.Random(0)))
        if R.outcome(after) is not None:
            break
        assert R.to_act(after) != seat
        after = R.apply(after, R.legal_moves(after)[0])


def test_a_dropped_seat_places_below_every_seat_still_playing() -> None:
    s = _mid_game(3)
    after = R.forfeit(s, 1, "forfeit")
    over = R.forfeit(after, 2, "resign")
    o = R.outcome(over)
    assert o is not None and o.winners == (0,) and o.placings[0] == 1
    assert min(o.placings[1], o.placings[2]) == 2


def test_forfeit_in_the_team_variant_loses_for_the_whole_team() -> None:
    s = _mid_game(4, {"teams": True})
    over = R.forfeit(s, 3, "resign")
    o = R.outcome(over)
    assert o is not None and o.winners == (0, 2) and o.placings == (1, 2, 1, 2)


def test_forfeit_during_the_starting_draw_keeps_the_set_up_going() -> None:
    s = R.new_game(3, {})
    after = R.forfeit(s, 0, "forfeit")
    assert after.pending == (1, 2) and after.out == (0,)


def test_forfeit_of_a_finished_game_or_a_dropped_seat_is_refused() -> None:
    s = _mid_game(3)
    after = R.forfeit(s, 1, "forfeit")
    with pytest.raises(ValueError, match="not playing"):
        R.forfeit(after, 1, "forfeit")
    over = R.forfeit(after, 2, "forfeit")
    with pytest.raises(ValueError, match="already over"):
        R.forfeit(over, 0, "forfeit")


def test_a_resignation_before_the_first_turn_ends_the_game_without_penalties() -> None:
    s = R.new_game(2, {})
    s = R.apply_chance(s, R.sample_chance(s, random.Random(2)))
    over = R.forfeit(s, 1, "resign")
    o = R.outcome(over)
    assert o is not None and o.winners == (0,) and o.scores == (0, 0)
