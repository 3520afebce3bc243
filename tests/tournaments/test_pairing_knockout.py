"""Knock-out pairing: seeded bracket, byes to the top seeds in round 1, one winner."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from door.services.tournaments import GameResult, Table, bracket_order, make_format
from tests.tournaments.events import by_seed, field, play

KO = make_format("knockout")


def test_bracket_order_is_the_standard_one() -> None:
    order = bracket_order(16)
    assert order == [1, 16, 8, 9, 4, 13, 5, 12, 2, 15, 7, 10, 3, 14, 6, 11]
    # Each first-round pair sums to 17, and seeds 1 and 2 are in opposite halves.
    assert {order[i] + order[i + 1] for i in range(0, 16, 2)} == {17}
    assert 1 in order[:8] and 2 in order[8:]


def test_five_players_give_byes_to_the_top_three_seeds() -> None:
    tables = KO.pair(1, field(5), [])
    assert tables == [Table((1,)), Table((4, 5)), Table((2,)), Table((3,))]
    assert KO.total_rounds(5) == 3


def test_five_player_knockout_to_the_end() -> None:
    results, rounds = play(KO, field(5), lambda r, s: tuple(sorted(s, reverse=True)))
    assert [[t.seats for t in ts] for ts in rounds] == [
        [(1,), (4, 5), (2,), (3,)],
        [(1, 5), (2, 3)],
        [(5, 3)],
    ]
    assert KO.winner(field(5), results) == 5
    assert [s.user_id for s in KO.standings(field(5), results)][:2] == [5, 3]


def test_sixty_four_player_knockout_golden() -> None:
    entrants = field(64)
    results, rounds = play(KO, entrants, lambda r, s: by_seed(s))
    assert [len(ts) for ts in rounds] == [32, 16, 8, 4, 2, 1]
    assert rounds[0][0].seats == (1, 64) and rounds[0][1].seats == (32, 33)
    assert rounds[-1][0].seats == (1, 2)
    assert rounds[-2] == [Table((1, 4)), Table((2, 3))]
    assert len([r for r in results if len(r.seats) == 2]) == 63
    assert KO.winner(entrants, results) == 1
    top = KO.standings(entrants, results)[:4]
    assert [(s.user_id, s.points, s.won) for s in top] == [
        (1, 6, 6),
        (2, 5, 5),
        (3, 4, 4),
        (4, 4, 4),
    ]


def test_the_next_round_needs_every_result_of_the_last() -> None:
    first = KO.pair(1, field(4), [])
    with pytest.raises(ValueError, match="no result"):
        KO.pair(2, field(4), [GameResult(1, first[0].seats, first[0].seats)])


def test_a_knockout_is_played_two_at_a_table() -> None:
    with pytest.raises(ValueError):
        make_format("knockout", table_size=3)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(2, 40), data=st.data())
def test_any_knockout_halves_each_round_to_one_winner(n: int, data: st.DataObject) -> None:
    entrants = field(n, ties=data.draw(st.booleans()))
    results, rounds = play(KO, entrants, lambda r, s: data.draw(st.permutations(s)))
    size = 1 << (n - 1).bit_length()
    # The bracket halves each round; byes only in round 1, to the top seeds.
    assert [len(ts) for ts in rounds] == [size >> k for k in range(1, len(rounds) + 1)]
    seeds = [e.user_id for e in sorted(entrants, key=lambda e: (-e.rating, e.user_id))]
    byes = sorted(t.seats[0] for t in rounds[0] if len(t.seats) == 1)
    assert byes == sorted(seeds[: size - n])
    assert all(len(t.seats) == 2 for ts in rounds[1:] for t in ts)
    # Everyone is in round 1 once; each later round holds exactly the last round's winners.
    assert sorted(u for t in rounds[0] for u in t.seats) == sorted(seeds)
    winners = {r.placing[0] for r in results if r.round_no == 1}
    for k, ts in enumerate(rounds[1:], start=2):
        assert {u for t in ts for u in t.seats} == winners
        winners = {r.placing[0] for r in results if r.round_no == k}
    (champion,) = winners
    assert KO.winner(entrants, results) == champion and KO.is_finished(entrants, results)
    # Standings recomputed: points = rounds survived (games won plus a bye).
    lost_in = {r.placing[1]: r.round_no for r in results if len(r.seats) == 2}
    table = KO.standings(entrants, results)
    assert table[0].user_id == champion
    for s in table:
        survived = (lost_in[s.user_id] - 1) if s.user_id in lost_in else len(rounds)
        assert s.points == survived
        assert s.won == sum(1 for r in results if len(r.seats) == 2 and r.placing[0] == s.user_id)
    assert [s.rank for s in table] == list(range(1, n + 1))
    # Deterministic: the same games give the same pairings.
    assert (
        play(
            KO,
            entrants,
            lambda r, s: next(x.placing for x in results if x.round_no == r and x.seats == s),
        )[1]
        == rounds
    )
