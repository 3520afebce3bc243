"""Ratings: the FIBS formula for backgammon matches, pairwise Elo for other games.

Ratings change in the same transaction that finishes the game (``record_result``, called
by the game service), with the players' rating rows locked from the read to the commit so
that games finishing at once, in any process, take turns; each change is recorded
(``rating_changes``), and ``door check`` recomputes every rating from the finished games
(``rating_problems``). A person starts at 1500 with experience 0; a backgammon computer
account starts at its level's rating (``bgengine.BG_LEVEL_TABLE``: 1250 for the beginner
up to 2000 for the expert, from each level's measured error rate), so a new player's
first win against the beginner is not worth as much as one against the expert
(:func:`starting_rating`, taken from the seat's level in the account's first rated game:
``door check`` replays it the same way).

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
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from door.games.base import Outcome
from door.services.bgengine import bg_level
from door.services.games.model import outcome_from_json
from door.store.db import Database
from door.store.records import (
    FinishedGame,
    RankedRating,
    RatingChangeRecord,
    RatingRecord,
    clamp_count,
    is_stored_id,
)
from door.store.repository import Repository

START_RATING = 1500.0
ELO_K = 32.0


def starting_rating(kind: str, bot_level: str | None) -> float:
    """Where a rating of ``kind`` starts for the player of a seat: a backgammon computer
    level's rating for a seat it plays, else :data:`START_RATING`."""
    if bot_level is None or kind != "backgammon":
        return START_RATING
    try:
        return bg_level(bot_level).rating
    except ValueError:  # a level this release no longer knows
        return START_RATING


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


@dataclass(frozen=True, slots=True)
class Standing:
    """A player's rating of one kind, with what it counts."""

    rating: float = START_RATING
    experience: int = 0
    wins: int = 0
    losses: int = 0

    @classmethod
    def of(cls, r: RatingRecord) -> Standing:
        return cls(r.rating, r.experience, r.wins, r.losses)


def rated_players(
    kind: str, options: Mapping[str, Any], seat_users: Sequence[int | None], outcome: Outcome
) -> list[int] | None:
    """The players (in seat order) whose ratings a finished game moves; None when it is
    unrated (money play, an empty seat, the same account in two seats, a backgammon
    game without one winner)."""
    users = list(seat_users)
    if any(u is None for u in users) or len(set(users)) != len(users) or len(users) < 2:
        return None
    ids = [int(u) for u in users if u is not None]
    if kind == "backgammon":
        winners = set(outcome.winners)
        if match_length(options) <= 0 or len(ids) != 2 or len(winners) != 1:
            return None
        if next(iter(winners)) not in (0, 1):
            return None
    return ids


def rate_game(
    kind: str, options: Mapping[str, Any], outcome: Outcome, before: Sequence[Standing]
) -> list[Standing]:
    """The players' standings after a rated game (:func:`rated_players`), from theirs
    before it, in seat order."""
    winners = set(outcome.winners)
    if kind == "backgammon":
        length = match_length(options)
        w_seat = next(iter(winners))
        w, lo = before[w_seat], before[1 - w_seat]
        gain, loss = fibs_changes(w.rating, w.experience, lo.rating, lo.experience, length)
        after = [Standing(), Standing()]
        after[w_seat] = Standing(w.rating + gain, w.experience + length, w.wins + 1, w.losses)
        after[1 - w_seat] = Standing(
            lo.rating - loss, lo.experience + length, lo.wins, lo.losses + 1
        )
        return after
    placings = list(outcome.placings)
    if len(placings) != len(before):
        # no placings from the rules: winners first, everyone else shares second place
        placings = [1 if i in winners else 2 for i in range(len(before))]
    deltas = elo_changes([b.rating for b in before], placings)
    out = []
    for i, b in enumerate(before):
        wins, losses = b.wins, b.losses
        if winners:
            wins += 1 if i in winners else 0
            losses += 0 if i in winners else 1
        out.append(Standing(b.rating + deltas[i], b.experience + 1, wins, losses))
    return out


def record_result(
    repo: Repository,
    game_id: int,
    kind: str,
    options: Mapping[str, Any],
    seat_users: Sequence[int | None],
    outcome: Outcome,
    now: datetime,
    seat_levels: Sequence[str | None] = (),
) -> bool:
    """Update the players' ratings for a finished game and record each change; False
    when it is unrated (:func:`rated_players`). The players' rating rows are locked
    from the read to the end of the transaction, so games finishing at the same time
    (in any process) take turns and none is lost; a player's first rating starts at
    :func:`starting_rating` of their seat (``seat_levels``: each seat's computer level,
    None for a person)."""
    ids = rated_players(kind, options, seat_users, outcome)
    if ids is None:
        return False
    starts = _starts(kind, seat_users, seat_levels)
    rows = repo.lock_ratings(kind, ids, {u: starts.get(u, START_RATING) for u in ids})
    before = [Standing.of(rows[u]) for u in ids]
    after = rate_game(kind, options, outcome, before)
    changes = []
    for uid, b, a in zip(ids, before, after, strict=True):
        repo.update_rating(RatingRecord(uid, kind, a.rating, a.experience, a.wins, a.losses))
        changes.append(
            RatingChangeRecord(
                0, game_id, uid, kind, b.rating, a.rating, a.experience, a.wins, a.losses, now
            )
        )
    repo.insert_rating_changes(changes)
    return True


def _starts(
    kind: str, seat_users: Sequence[int | None], seat_levels: Sequence[str | None]
) -> dict[int, float]:
    """Each seated user's :func:`starting_rating` (seats without a level: a person)."""
    levels = (list(seat_levels) + [None] * len(seat_users))[: len(seat_users)]
    return {
        u: starting_rating(kind, lv)
        for u, lv in zip(seat_users, levels, strict=True)
        if u is not None
    }


# --- checking the stored ratings against the finished games (door check) ------------------

RATING_TOLERANCE = 1e-6
"""How far a stored rating may be from its recomputation (float rounding only: both
run the same arithmetic in the same order)."""


@dataclass(frozen=True, slots=True)
class RatingAudit:
    """What :func:`audit_ratings` found: how many rated games it replayed, and a line
    for each difference."""

    games: int
    problems: list[str]


def replay_order(
    games: Sequence[FinishedGame], changes: Sequence[RatingChangeRecord]
) -> list[FinishedGame]:
    """The finished games in the order their ratings changed: those without a recorded
    change (finished before the history was kept) first, as they finished, then the
    others in the order of their first change."""
    first: dict[int, int] = {}
    for c in changes:
        first.setdefault(c.game_id, c.id)
    unrecorded = sorted((g for g in games if g.id not in first), key=_finishing_order)
    recorded = sorted((g for g in games if g.id in first), key=lambda g: first[g.id])
    return unrecorded + recorded


def recompute_ratings(
    games: Sequence[FinishedGame], changes: Sequence[RatingChangeRecord]
) -> tuple[dict[tuple[int, str], Standing], list[FinishedGame]]:
    """Every player's standing per kind, from their start (:func:`starting_rating`)
    through the finished games in
    :func:`replay_order`; and the rated games among them, in that order."""
    standings: dict[tuple[int, str], Standing] = {}
    rated: list[FinishedGame] = []
    for game, ids, _, after in _replayed(games, changes, standings):
        rated.append(game)
        for uid, a in zip(ids, after, strict=True):
            standings[uid, game.kind] = a
    return standings, rated


def rebuilt_history(
    games: Sequence[FinishedGame],
) -> tuple[dict[tuple[int, str], Standing], list[RatingChangeRecord]]:
    """What ``door check --repair-ratings`` writes: every player's standing per kind
    from the finished games replayed in the order they finished (``finished_at``, then
    id: a history with holes cannot say more), and the rating history that accounts for
    it, one change per player of each rated game (``id`` 0: the database numbers them;
    made at the game's finish)."""
    standings: dict[tuple[int, str], Standing] = {}
    history: list[RatingChangeRecord] = []
    for game, ids, before, after in _replayed(games, (), standings):
        made = game.finished_at or datetime.now(UTC)
        for uid, b, a in zip(ids, before, after, strict=True):
            standings[uid, game.kind] = a
            history.append(RatingChangeRecord(
                0, game.id, uid, game.kind, b.rating, a.rating, a.experience, a.wins,
                a.losses, made,
            ))  # fmt: skip
    return standings, history


def _replayed(
    games: Sequence[FinishedGame],
    changes: Sequence[RatingChangeRecord],
    standings: Mapping[tuple[int, str], Standing],
) -> Iterator[tuple[FinishedGame, list[int], list[Standing], list[Standing]]]:
    """Each rated game in :func:`replay_order` with its players and their standings
    before and after it; ``standings`` (which the caller brings up to date as it goes)
    says where each player stood."""
    for game in replay_order(games, changes):
        outcome = outcome_from_json(game.outcome)
        if outcome is None:
            continue
        ids = rated_players(game.kind, game.options, game.users, outcome)
        if ids is None:
            continue
        starts = _starts(game.kind, game.users, game.levels)
        before = [
            standings.get((u, game.kind), Standing(starts.get(u, START_RATING))) for u in ids
        ]
        yield game, ids, before, rate_game(game.kind, game.options, outcome, before)


def rating_problems(
    stored: Sequence[RatingRecord],
    games: Sequence[FinishedGame],
    changes: Sequence[RatingChangeRecord],
    names: Mapping[int, str] | None = None,
) -> RatingAudit:
    """Compare the stored ratings with their recomputation from the finished games, and
    each rated game with its recorded changes.

    A rated game with no recorded change is reported when it finished after a game that
    has one: games finished before the history began have none, and can only come
    before every game that does."""
    standings, rated = recompute_ratings(games, changes)
    names = names or {}
    problems: list[str] = []
    recorded: dict[int, set[int]] = {}
    for c in changes:
        recorded.setdefault(c.game_id, set()).add(c.user_id)
    history_began = False
    for game in sorted(rated, key=_finishing_order):
        players = {u for u in game.users if u is not None}
        seen = recorded.get(game.id)
        if seen is None:
            if history_began:
                problems.append(f"game {game.id} ({game.kind}): no rating change recorded")
            continue
        history_began = True
        if seen != players:
            problems.append(
                f"game {game.id} ({game.kind}): rating changes recorded for "
                f"{_who(sorted(seen), names)}, players are {_who(sorted(players), names)}"
            )

    by_key = {(r.user_id, r.kind): r for r in stored}
    for key in sorted(set(by_key) | set(standings), key=lambda k: (k[1], k[0])):
        uid, kind = key
        # a stored row no game accounts for should still be at the start
        want = standings.get(key, Standing())
        row = by_key.get(key)
        if row is None:
            problems.append(f"{_who([uid], names)}, {kind}: no rating stored, expected "
                            f"{_standing(want)}")  # fmt: skip
        elif not _same(have := Standing.of(row), want):
            problems.append(
                f"{_who([uid], names)}, {kind}: stored {_standing(have)}, "
                f"recomputed {_standing(want)}"
            )
    return RatingAudit(len(rated), problems)


def _finishing_order(game: FinishedGame) -> tuple[bool, datetime, int]:
    at = game.finished_at
    return at is None, at if at is not None else datetime.min.replace(tzinfo=UTC), game.id


def _same(a: Standing, b: Standing) -> bool:
    return (
        math.isclose(a.rating, b.rating, rel_tol=0.0, abs_tol=RATING_TOLERANCE)
        and (a.experience, a.wins, a.losses) == (b.experience, b.wins, b.losses)
    )


def _standing(s: Standing) -> str:
    return f"rating {s.rating:.3f}, experience {s.experience}, {s.wins}-{s.losses}"


def _who(ids: Sequence[int], names: Mapping[int, str]) -> str:
    return ", ".join(f"{names[u]} (user {u})" if u in names else f"user {u}" for u in ids)


class Ratings:
    """The rank listings, and the check of every rating against the finished games."""

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


    async def audit(self) -> RatingAudit:
        """Every stored rating against its recomputation from the finished games
        (:func:`rating_problems`), read in one transaction."""

        def read(
            repo: Repository,
        ) -> tuple[list[RatingRecord], list[FinishedGame], list[RatingChangeRecord],
                   dict[int, str]]:  # fmt: skip
            repo.one_snapshot()  # a game finishing meanwhile is in all four or in none
            return repo.all_ratings(), repo.finished_games(), repo.rating_changes(), (
                repo.rated_names()
            )

        stored, games, changes, names = await self.db.run_read(read)
        return rating_problems(stored, games, changes, names)

    async def repair(self) -> int:
        """Rewrite every rating and the whole rating history from the finished games
        (:func:`rebuilt_history`), in one transaction that holds every rating row: a
        game finishing meanwhile waits, then rates from the repaired standings. For a
        database whose ratings went wrong (the lost updates of door before 0004, a hand
        edit); returns how many ratings changed."""

        def rewrite(repo: Repository) -> int:
            stored = {(r.user_id, r.kind): r for r in repo.lock_all_ratings()}
            standings, history = rebuilt_history(repo.finished_games())
            changed = 0
            for key in sorted(set(stored) | set(standings), key=lambda k: (k[1], k[0])):
                want = standings.get(key, Standing())  # no game: back at the start
                row = stored.get(key)
                if row is not None and _same(Standing.of(row), want):
                    continue
                changed += 1
                uid, kind = key
                repo.save_rating(
                    RatingRecord(uid, kind, want.rating, want.experience, want.wins,
                                 want.losses),
                    exists=row is not None,
                )  # fmt: skip
            repo.delete_rating_changes()
            repo.insert_rating_changes(history)
            return changed

        return await self.db.transact(rewrite)


def _rank_row(place: int, r: RankedRating) -> RankRow:
    return RankRow(place, r.user_id, r.name, r.rating, r.experience, r.wins, r.losses)
