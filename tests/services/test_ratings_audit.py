"""The ratings' check on records alone: whatever rated games were played, in whatever order
they were recorded, ratings written as record_result writes them are clean, and any one
stored figure changed is reported (door/services/ratings.py rating_problems)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from door.games.base import Outcome
from door.services.games.model import outcome_to_json
from door.services.ratings import Standing, rate_game, rated_players, rating_problems
from door.store.records import FinishedGame, RatingChangeRecord, RatingRecord

T0 = datetime(2026, 12, 1, tzinfo=UTC)
USERS = [1, 2, 3, 4, 5]


@st.composite
def a_game(draw: st.DrawFn) -> tuple[str, dict[str, Any], list[int], Outcome]:
    if draw(st.booleans()):
        players = draw(st.permutations(USERS).map(lambda p: list(p[:2])))
        winner = draw(st.sampled_from([0, 1]))
        outcome = Outcome((winner,), (1, 0) if winner == 0 else (0, 1), (), "normal")
        return "backgammon", {"match_length": draw(st.integers(1, 7))}, players, outcome
    n = draw(st.integers(2, 4))
    players = draw(st.permutations(USERS).map(lambda p: list(p[:n])))
    placings = tuple(draw(st.lists(st.integers(1, n), min_size=n, max_size=n)))
    best = min(placings)
    winners = tuple(i for i, p in enumerate(placings) if p == best)
    return "spectrangle", {}, players, Outcome(winners, tuple(0 for _ in placings), placings)


def played(
    games: list[tuple[str, dict[str, Any], list[int], Outcome]], history_from: int
) -> tuple[list[RatingRecord], list[FinishedGame], list[RatingChangeRecord]]:
    """The database after ``games`` were finished in order, as record_result leaves it;
    the first ``history_from`` games finished before the history was kept."""
    standings: dict[tuple[int, str], Standing] = {}
    finished: list[FinishedGame] = []
    changes: list[RatingChangeRecord] = []
    for i, (kind, options, players, outcome) in enumerate(games, 1):
        at = T0 + timedelta(minutes=i)
        finished.append(FinishedGame(i, kind, options, outcome_to_json(outcome), at,
                                     tuple(players)))  # fmt: skip
        ids = rated_players(kind, options, players, outcome)
        assert ids is not None
        before = [standings.get((u, kind), Standing()) for u in ids]
        after = rate_game(kind, options, outcome, before)
        for u, b, a in zip(ids, before, after, strict=True):
            standings[u, kind] = a
            if i > history_from:
                changes.append(RatingChangeRecord(
                    len(changes) + 1, i, u, kind, b.rating, a.rating, a.experience, a.wins,
                    a.losses, at,
                ))  # fmt: skip
    stored = [RatingRecord(u, k, s.rating, s.experience, s.wins, s.losses)
              for (u, k), s in standings.items()]  # fmt: skip
    return stored, finished, changes


GAMES = st.lists(a_game(), min_size=1, max_size=25)


@settings(max_examples=150, deadline=None)
@given(GAMES, st.integers(0, 25), st.randoms(use_true_random=False))
def test_ratings_written_game_by_game_are_clean_whatever_order_the_rows_come_in(
    games: list[tuple[str, dict[str, Any], list[int], Outcome]], history_from: int, rnd: Any
) -> None:
    stored, finished, changes = played(games, min(history_from, len(games)))
    rnd.shuffle(finished)  # the order comes from the history and the finishing times
    audit = rating_problems(stored, finished, changes)
    assert audit.problems == []
    assert audit.games == len(games)


@settings(max_examples=150, deadline=None)
@given(
    GAMES,
    st.data(),
    st.sampled_from(["rating", "experience", "wins", "losses"]),
)
def test_any_one_stored_figure_changed_is_reported_for_that_player(
    games: list[tuple[str, dict[str, Any], list[int], Outcome]], data: st.DataObject, field: str
) -> None:
    stored, finished, changes = played(games, 0)
    victim = data.draw(st.sampled_from(stored))
    value = getattr(victim, field)
    bumped = value + (0.01 if field == "rating" else 1)
    tampered = [replace(r, **{field: bumped}) if r is victim else r for r in stored]
    problems = rating_problems(tampered, finished, changes).problems
    assert len(problems) == 1
    assert problems[0].startswith(f"user {victim.user_id}, {victim.kind}: stored")


@settings(max_examples=100, deadline=None)
@given(GAMES.filter(lambda g: len(g) >= 2), st.data())
def test_a_game_missing_from_the_history_is_reported_unless_it_came_first(
    games: list[tuple[str, dict[str, Any], list[int], Outcome]], data: st.DataObject
) -> None:
    stored, finished, changes = played(games, 0)
    gone = data.draw(st.integers(2, len(games)))
    kept = [c for c in changes if c.game_id != gone]
    problems = rating_problems(stored, finished, kept).problems
    assert f"game {gone} ({games[gone - 1][0]}): no rating change recorded" in problems
    # the first game without its rows is a game from before the history: nothing is wrong
    first = [c for c in changes if c.game_id != 1]
    assert rating_problems(stored, finished, first).problems == []
