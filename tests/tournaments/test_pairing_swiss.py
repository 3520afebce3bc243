"""Swiss pairing: by score then rating, no repeat opponents, at most one bye each."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from door.services.tournaments import GameResult, Table, make_format
from tests.tournaments.events import by_seed, field, game_points, pairs_of, play


def test_thirty_player_five_round_swiss_golden() -> None:
    sw = make_format("swiss", rounds=5)
    entrants = field(30)
    results, rounds = play(sw, entrants, lambda r, s: by_seed(s))
    assert len(rounds) == 5 and all(len(ts) == 15 for ts in rounds)
    assert max(Counter(pairs_of(rounds)).values()) == 1
    # Round 1 pairs by rating down the list; round 2 pairs the winners among themselves.
    assert rounds[0][:3] == [Table((1, 2)), Table((3, 4)), Table((5, 6))]
    assert rounds[1][0] == Table((1, 3))
    table = sw.standings(entrants, results)
    assert (table[0].user_id, table[0].points, table[0].won) == (1, 5.0, 5)
    assert sw.winner(entrants, results) == 1


def test_the_bye_goes_to_the_lowest_ranked_player_without_one() -> None:
    sw = make_format("swiss", rounds=3)
    entrants = field(5)
    first = sw.pair(1, entrants, [])
    assert first[-1] == Table((5,))
    results = [GameResult(1, t.seats, by_seed(t.seats)) for t in first]
    second = sw.pair(2, entrants, results)
    # 5 has the bye's point; the lowest-ranked on 0 points without a bye is 4.
    assert second[-1] == Table((4,))


def test_a_swiss_needs_its_number_of_rounds() -> None:
    with pytest.raises(ValueError):
        make_format("swiss")


def test_more_rounds_than_opponents_repeat_as_little_as_possible() -> None:
    sw = make_format("swiss", rounds=5)
    _results, rounds = play(sw, field(4), lambda r, s: by_seed(s))
    met = Counter(pairs_of(rounds))
    assert (
        len(met) == 6 and sum(met.values()) == 10
    )  # 3 rounds cover all 6, then 2 rounds of repeats


@settings(max_examples=30, deadline=None)
@given(
    n=st.integers(2, 24), rounds=st.integers(1, 7), size=st.sampled_from([2, 3, 4]), data=st.data()
)
def test_any_swiss_pairs_fairly_and_standings_recompute(
    n: int, rounds: int, size: int, data: st.DataObject
) -> None:
    sw = make_format("swiss", rounds=rounds, table_size=size)
    entrants = field(n, ties=data.draw(st.booleans()))
    results, tables = play(sw, entrants, lambda r, s: data.draw(st.permutations(s)))
    assert len(tables) == rounds
    for ts in tables:
        assert sorted(u for t in ts for u in t.seats) == list(range(1, n + 1))
    byes = Counter(t.seats[0] for ts in tables for t in ts if len(t.seats) == 1)
    if size == 2:
        # Everyone plays every round but a bye; byes at most one each while that is possible.
        assert sum(byes.values()) == (rounds if n % 2 else 0)
        if rounds <= n:
            assert all(v == 1 for v in byes.values())
        # With rounds <= n // 2 the players not yet met always contain a perfect matching
        # (Dirac: each still has at least half the field left), so no pair may repeat.
        if rounds <= n // 2:
            assert max(Counter(pairs_of(tables)).values()) == 1
    # Standings recomputed: points by placing (bye = 1), Buchholz over real opponents.
    points = {e.user_id: Fraction(0) for e in entrants}
    for r in results:
        for u in r.placing:
            points[u] += game_points(r.placing, u)
    buch = {
        u: sum((points[v] for r in results if u in r.seats for v in r.seats if v != u), Fraction(0))
        for u in points
    }
    rating = {e.user_id: e.rating for e in entrants}
    expect = sorted(points, key=lambda u: (-points[u], -buch[u], -rating[u], u))
    table = sw.standings(entrants, results)
    assert [s.user_id for s in table] == expect
    assert [(s.points, s.tiebreaks[0]) for s in table] == [
        (float(points[u]), float(buch[u])) for u in expect
    ]
    for s in table:
        assert s.played == rounds - byes[s.user_id]
    assert sw.winner(entrants, results) == expect[0]
    again = play(
        sw,
        entrants,
        lambda r, s: next(x.placing for x in results if x.round_no == r and x.seats == s),
    )[1]
    assert again == tables


def test_absent_players_are_left_out_of_new_rounds() -> None:
    sw = make_format("swiss", rounds=4)
    _results, rounds = play(sw, field(8), lambda r, s: by_seed(s), absent_from={3: 2})
    assert all(3 not in t.seats for ts in rounds[1:] for t in ts)
    assert sum(1 for ts in rounds[1:] for t in ts if len(t.seats) == 1) == 3


def test_a_repeat_pairing_comes_before_a_second_bye() -> None:
    # 7 players over 6 rounds: each sits out at most once, whatever the results (the
    # pairing once gave a player a second bye rather than pair two who had met).
    import random

    sw = make_format("swiss", rounds=6)
    for seed in range(150):
        rng = random.Random(seed)
        _results, rounds = play(sw, field(7), lambda r, s: tuple(rng.sample(s, len(s))))
        byes = Counter(t.seats[0] for ts in rounds for t in ts if len(t.seats) == 1)
        assert max(byes.values()) == 1, (seed, byes)
