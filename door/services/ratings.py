"""Ratings: the FIBS formula for backgammon matches, pairwise Elo for other games.

Ratings change in the same transaction that finishes the game (``record_result``, called
by the game service). Everyone starts at 1500 with experience 0.

* Backgammon (``reference/backgammon.md`` §4): for an n-point match,
  ``P_upset = 1 / (10^(D·√n/2000) + 1)``; the winner gains ``4·K·√n·P`` and the loser
  loses ``4·K·√n·P`` with each player's own ``K = max(1, 5 − experience/100)`` (the
  server's help text, without MacFIBS's ``+ n``); both gain n experience. Money play
  (match length 0) is unrated.
* Spectrangle (and any other kind): each pair of players is an Elo game between them
  (1 for the better placing, ½ for equal places) with K = 32/(players − 1), so a
  four-player game moves a rating about as much as one two-player game; experience
  counts games.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from door.games.base import Outcome
from door.store.db import Database
from door.store.records import RankedRating, RatingRecord, clamp_count, is_stored_id
from door.store.repository import Repository

START_RATING = 1500.0
ELO_K = 32.0


@dataclass(frozen=True)
class RankRow:
    place: int
    user_id: int
    name: str
    rating: float
    experience: int
    wins: int
    losses: int


# --- the formulas (pure) -------------------------------------------------------------------


def fibs_k(experience: int) -> float:
    """A player's FIBS K factor: 5 for a newcomer, falling to 1 at 400 experience."""
    return max(1.0, 5.0 - experience / 100.0)


def fibs_upset_probability(r1: float, r2: float, length: int) -> float:
    """The chance that the lower-rated player wins an n-point match."""
    d = abs(r1 - r2)
    return 1.0 / (10 ** (d * math.sqrt(length) / 2000.0) + 1.0)


def fibs_changes(
    winner_rating: float,
    winner_experience: int,
    loser_rating: float,
    loser_experience: int,
    length: int,
) -> tuple[float, float]:
    """(winner's gain, loser's loss) — both positive — for an n-point match."""
    p_upset = fibs_upset_probability(winner_rating, loser_rating, length)
    underdog_won = winner_rating < loser_rating
    p = 1.0 - p_upset if underdog_won else p_upset
    root = math.sqrt(length)
    gain = 4.0 * fibs_k(winner_experience) * root * p
    loss = 4.0 * fibs_k(loser_experience) * root * p
    return gain, loss


def elo_expected(r: float, other: float) -> float:
    return 1.0 / (1.0 + 10 ** ((other - r) / 400.0))


def elo_changes(ratings: Sequence[float], placings: Sequence[int]) -> list[float]:
    """Each player's rating change from one game, pairwise (1 = first place)."""
    n = len(ratings)
    if n < 2:
        return [0.0] * n
    k = ELO_K / (n - 1)
    changes = [0.0] * n
    for i in range(n):
        for j in range(n):
            if i == j:
                continue
            if placings[i] < placings[j]:
                score = 1.0
            elif placings[i] == placings[j]:
                score = 0.5
            else:
                score = 0.0
            changes[i] += k * (score - elo_expected(ratings[i], ratings[j]))
    return changes


def match_length(options: Mapping[str, Any]) -> int:
    """The match length in backgammon options (0 = money play)."""
    for key in ("match_length", "length", "points", "match"):
        if key in options:
            value = options[key]
            if isinstance(value, bool) or value is None:
                return 0
            try:
                return max(0, int(value))
            except (TypeError, ValueError):
                return 0
    return 0


# --- recording a finished game --------------------------------------------------------------


def is_rated(kind: str, options: Mapping[str, Any]) -> bool:
    """Whether a finished game of ``kind`` with ``options`` moves its players' ratings
    (:func:`record_result`'s rule: backgammon money play is unrated, as on FIBS)."""
    return not (kind == "backgammon" and match_length(options) <= 0)


def rated_note(kind: str, options: Mapping[str, Any]) -> str:
    """What a player is told when beginning such a game: rated or not, and why."""
    if is_rated(kind, options):
        return "Rated: the result counts on R)ank."
    return "Money game: not rated (only matches count on R)ank)."


def rank_note(kind: str) -> str:
    """What the rank listing of ``kind`` counts (shown under it)."""
    if kind == "backgammon":
        return "Ratings count matches; money games are not rated."
    return "Every finished game with two or more players counts."


def record_result(
    repo: Repository,
    kind: str,
    options: Mapping[str, Any],
    seat_users: Sequence[int | None],
    outcome: Outcome,
) -> bool:
    """Update the players' ratings for a finished game; False when it is unrated
    (money play, an empty seat, the same account in two seats)."""
    users = list(seat_users)
    if any(u is None for u in users) or len(set(users)) != len(users) or len(users) < 2:
        return False
    ids = [int(u) for u in users if u is not None]
    rows = repo.ratings(kind, ids)

    def current(uid: int) -> tuple[float, int, int, int, bool]:
        r = rows.get(uid)
        if r is None:
            return START_RATING, 0, 0, 0, False
        return r.rating, r.experience, r.wins, r.losses, True

    def save(uid: int, rating: float, exp: int, wins: int, losses: int, exists: bool) -> None:
        repo.save_rating(RatingRecord(uid, kind, rating, exp, wins, losses), exists=exists)

    winners = set(outcome.winners)
    if kind == "backgammon":
        length = match_length(options)
        if length <= 0 or len(ids) != 2 or len(winners) != 1:
            return False
        w_seat = next(iter(winners))
        if w_seat not in (0, 1):
            return False
        w, loser = ids[w_seat], ids[1 - w_seat]
        wr, wx, ww, wl, we = current(w)
        lr, lx, lw, ll, le = current(loser)
        gain, loss = fibs_changes(wr, wx, lr, lx, length)
        save(w, wr + gain, wx + length, ww + 1, wl, we)
        save(loser, lr - loss, lx + length, lw, ll + 1, le)
        return True
    placings = list(outcome.placings)
    if len(placings) != len(ids):
        # no placings from the rules: winners first, everyone else shares second place
        placings = [1 if i in winners else 2 for i in range(len(ids))]
    now = [current(u) for u in ids]
    deltas = elo_changes([c[0] for c in now], placings)
    for i, uid in enumerate(ids):
        rating, exp, wins, losses, exists = now[i]
        if winners:
            wins += 1 if i in winners else 0
            losses += 0 if i in winners else 1
        save(uid, rating + deltas[i], exp + 1, wins, losses, exists)
    return True


class Ratings:
    """The rank listings."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def rank(
        self, kind: str, offset: int = 0, limit: int = 20, *, min_experience: int = 0
    ) -> list[RankRow]:
        """Players of ``kind`` by rating, best first (``limit`` at most 100)."""
        offset = clamp_count(offset)
        limit = max(1, min(100, int(limit)))
        min_experience = clamp_count(min_experience)
        rows = await self.db.run_read(
            lambda repo: repo.rank_page(kind, offset, limit, min_experience)
        )
        return [_rank_row(offset + i + 1, r) for i, r in enumerate(rows)]

    async def place_of(
        self, user_id: int, kind: str, *, min_experience: int = 0
    ) -> RankRow | None:
        """The user's row in the ``kind`` listing, or None if they have no rating yet."""
        if not is_stored_id(user_id):
            return None
        min_experience = clamp_count(min_experience)
        found = await self.db.run_read(lambda repo: repo.rank_of(kind, user_id, min_experience))
        if found is None:
            return None
        r, place = found
        return _rank_row(place, r)


def _rank_row(place: int, r: RankedRating) -> RankRow:
    return RankRow(place, r.user_id, r.name, r.rating, r.experience, r.wins, r.losses)
