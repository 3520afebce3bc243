"""Round-robin pairing: everyone meets everyone; points, then head-to-head, then rating."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from door.services.tournaments import GameResult, make_format
from tests.tournaments.events import by_seed, field, game_points, pairs_of, play


def test_ten_player_round_robin_is_nine_rounds_of_45_games() -> None:
    rr = make_format("roundrobin")
    results, rounds = play(rr, field(10), lambda r, s: by_seed(s))
    assert len(rounds) == 9 and all(len(ts) == 5 for ts in rounds)
    assert len(results) == 45
    assert sorted(pairs_of(rounds)) == sorted(
        (a, b) for a in range(1, 11) for b in range(a + 1, 11)
    )
    table = rr.standings(field(10), results)
    assert [(s.user_id, s.points) for s in table] == [(u, 10 - u) for u in range(1, 11)]
    assert rr.winner(field(10), results) == 1


def test_nine_player_spectrangle_round_robin_meets_every_pair_exactly_once() -> None:
    rr = make_format("roundrobin", table_size=3)
    results, rounds = play(rr, field(9), lambda r, s: by_seed(s))
    assert len(rounds) == 4 and all(
        len(ts) == 3 and all(len(t.seats) == 3 for t in ts) for ts in rounds
    )
    assert len(results) == 12
    assert Counter(pairs_of(rounds)) == Counter(
        {(a, b): 1 for a in range(1, 10) for b in range(a + 1, 10)}
    )
    assert rr.winner(field(9), results) == 1


def test_head_to_head_breaks_a_tie_on_points() -> None:
    rr = make_format("roundrobin")
    entrants = field(3)  # 1 is rated highest, 3 lowest
    # A three-way cycle: each has one win and beat one of the others.
    results = [
        GameResult(1, (1, 2), (1, 2)),
        GameResult(2, (2, 3), (2, 3)),
        GameResult(3, (1, 3), (3, 1)),
    ]
    table = rr.standings(entrants, results)
    assert all(s.points == 1 for s in table)
    assert [s.user_id for s in table] == [1, 2, 3]  # head-to-head all 1, so by rating
    # Four players: 2 and 3 tied on points, 3 beat 2, so 3 is ahead despite the rating.
    results4 = [
        GameResult(1, (1, 2), (1, 2)),
        GameResult(1, (3, 4), (3, 4)),
        GameResult(2, (1, 3), (1, 3)),
        GameResult(2, (2, 4), (2, 4)),
        GameResult(3, (2, 3), (3, 2)),
        GameResult(3, (1, 4), (4, 1)),
    ]
    table4 = rr.standings(field(4), results4)
    assert [(s.user_id, s.points) for s in table4][:3] == [(1, 2), (3, 2), (2, 1)]


def test_an_absent_players_opponent_gets_a_bye() -> None:
    rr = make_format("roundrobin")
    tables = rr.pair(1, field(4), [], absent=frozenset({4}))
    assert [t.seats for t in tables] == [(1,), (2, 3)]


@settings(max_examples=30, deadline=None)
@given(n=st.integers(2, 13), size=st.sampled_from([2, 3, 4]), data=st.data())
def test_any_round_robin_meets_everyone_and_standings_recompute(
    n: int, size: int, data: st.DataObject
) -> None:
    rr = make_format("roundrobin", table_size=size)
    entrants = field(n, ties=data.draw(st.booleans()))
    results, rounds = play(rr, entrants, lambda r, s: data.draw(st.permutations(s)))
    met = Counter(pairs_of(rounds))
    assert set(met) == {(a, b) for a in range(1, n + 1) for b in range(a + 1, n + 1)}
    for ts in rounds:
        seated = [u for t in ts for u in t.seats]
        assert sorted(seated) == list(range(1, n + 1))  # everyone once a round
        assert all(len(t.seats) <= max(size, 4 if size > 2 else 2) for t in ts)
        if size > 2 and n not in (1, 2, 5):
            assert all(len(t.seats) in (3, 4) for t in ts)
    if size == 2:
        assert len(rounds) == (n - 1 if n % 2 == 0 else n)
        assert all(v == 1 for v in met.values())
        assert all(
            sum(1 for r in results if u in r.seats and len(r.seats) == 2) == n - 1
            for u in range(1, n + 1)
        )
    # Standings recomputed: points by placing; ties by head-to-head among the tied, then rating.
    points = {e.user_id: Fraction(0) for e in entrants}
    for r in results:
        if len(r.seats) > 1:
            for u in r.placing:
                points[u] += game_points(r.placing, u)

    def h2h(u: int) -> int:
        tied = {v for v in points if points[v] == points[u] and v != u}
        return sum(
            1
            for r in results
            for v in tied
            if u in r.placing and v in r.placing and r.placing.index(u) < r.placing.index(v)
        )

    rating = {e.user_id: e.rating for e in entrants}
    expect = sorted(points, key=lambda u: (-points[u], -h2h(u), -rating[u], u))
    table = rr.standings(entrants, results)
    assert [s.user_id for s in table] == expect
    assert [s.points for s in table] == [float(points[u]) for u in expect]
    assert rr.is_finished(entrants, results) and rr.winner(entrants, results) == expect[0]
    # Deterministic: the same inputs give the same draw.
    assert (
        play(
            rr,
            entrants,
            lambda r, s: next(x.placing for x in results if x.round_no == r and x.seats == s),
        )[1]
        == rounds
    )
