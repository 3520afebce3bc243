"""A backgammon computer account's rating starts at its level's rating (issue 22, point 1),
so beating the expert is worth more than beating the beginner; ``door check`` replays the
ratings from those starts and finds them clean."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest

from door.games.registry import build_registry
from door.services.accounts import Accounts
from door.services.bgengine import bg_level
from door.services.clock import FakeClock
from door.services.games import GameService, SeatSpec
from door.services.notify import LocalHub
from door.services.ratings import START_RATING, Ratings
from door.store.db import Database


async def _beat(games: GameService, clock: FakeClock, player: int, level: str) -> int:
    """A one-point match of ``player`` against the computer at ``level``, won by the
    player when the computer resigns; the game's id."""
    info = await games.begin(
        player, "backgammon", {"match_length": 1}, [SeatSpec("me"), SeatSpec("bot", level)]
    )
    clock.advance(timedelta(minutes=1))
    bot_user = next(s.user_id for s in info.seats if s.user_id != player)
    assert bot_user is not None
    done = await games.resign(info.id, bot_user)
    assert done.info.status == "finished"
    return info.id


async def test_a_computer_accounts_first_rating_is_its_levels(db: Database) -> None:
    clock = FakeClock()
    games = GameService(db, build_registry(), LocalHub(), clock, random.Random(3))
    ann = await Accounts(db, clock).register("Ann", "secret")
    await _beat(games, clock, ann.id, "bg-expert")
    rows = await Ratings(db).rank("backgammon")
    by_name = {r.name.lower(): r for r in rows}
    expert = bg_level("bg-expert").rating
    assert expert != START_RATING
    # the expert started at its level's rating and lost what the FIBS formula takes
    assert by_name["bg-expert"].rating < expert
    assert expert - by_name["bg-expert"].rating == pytest.approx(
        by_name["ann"].rating - START_RATING
    )


async def test_beating_the_expert_is_worth_more_than_beating_the_beginner(
    db: Database,
) -> None:
    clock = FakeClock()
    games = GameService(db, build_registry(), LocalHub(), clock, random.Random(4))
    accounts = Accounts(db, clock)
    ann = await accounts.register("Ann", "secret")
    bob = await accounts.register("Bob", "secret")
    await _beat(games, clock, ann.id, "bg-expert")
    await _beat(games, clock, bob.id, "bg-beginner")
    by_name = {r.name.lower(): r.rating for r in await Ratings(db).rank("backgammon")}
    assert by_name["ann"] - START_RATING > by_name["bob"] - START_RATING > 0


async def test_door_check_replays_the_computer_accounts_starts_cleanly(db: Database) -> None:
    clock = FakeClock()
    games = GameService(db, build_registry(), LocalHub(), clock, random.Random(5))
    ann = await Accounts(db, clock).register("Ann", "secret")
    for level in ("bg-beginner", "bg-club", "bg-expert", "bg-club"):
        await _beat(games, clock, ann.id, level)
    audit = await Ratings(db).audit()
    assert audit.games == 4
    assert audit.problems == []
