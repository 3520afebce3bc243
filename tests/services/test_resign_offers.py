"""Offering to resign one Backgammon game (single, gammon, backgammon): the opponent
answers, the game waits on them, and the match goes on; the whole-match resign stays apart."""

from __future__ import annotations

import random

import pytest

from door.games.backgammon.position import MOVING, RESIGNING, BackgammonState
from door.games.base import Refusal
from door.games.registry import build_registry
from door.services.accounts import User
from door.services.clock import FakeClock
from door.services.games import GameService, GameSnapshot, SeatSpec
from door.services.notify import LocalHub
from door.store.db import Database


@pytest.fixture
def real(db: Database, hub: LocalHub, clock: FakeClock) -> GameService:
    return GameService(db, build_registry(), hub, clock, random.Random(99))


async def match(real: GameService, a: User, b: User, length: int = 5) -> GameSnapshot:
    info = await real.begin(
        a.id, "backgammon", {"match_length": length, "cube": False},
        [SeatSpec("me"), SeatSpec("user", b.name)],
    )  # fmt: skip
    await real.join(info.id, b.id)
    return await real.get(info.id)


def who(snap: GameSnapshot, users: tuple[User, User]) -> tuple[User, User]:
    """(the player to act, the other one)."""
    seat = snap.info.to_act
    assert seat is not None
    return users[seat], users[1 - seat]


async def test_an_offer_to_resign_a_gammon_waits_on_the_opponent(
    real: GameService, alice: User, bob: User
) -> None:
    snap = await match(real, alice, bob)
    mover, other = who(snap, (alice, bob))
    after = await real.offer_resignation(snap.info.id, mover.id, "gammon", snap.info.version)
    state: BackgammonState = after.state
    assert state.phase == RESIGNING and state.resign_level == 2
    assert after.info.status == "active"
    assert after.info.is_waiting_on(other.id)


async def test_an_accepted_gammon_offer_scores_two_points_and_the_match_goes_on(
    real: GameService, alice: User, bob: User
) -> None:
    snap = await match(real, alice, bob)
    mover, other = who(snap, (alice, bob))
    offered = await real.offer_resignation(snap.info.id, mover.id, "gammon", snap.info.version)
    done = await real.submit(snap.info.id, other.id, "accept", offered.info.version)
    state: BackgammonState = done.state
    winner = 1 - (snap.info.to_act or 0)
    assert state.score[winner] == 2 and state.score[1 - winner] == 0
    assert done.info.status == "active"  # a 5-point match: the next game starts


async def test_a_rejected_offer_gives_the_turn_back_with_the_same_dice(
    real: GameService, alice: User, bob: User
) -> None:
    snap = await match(real, alice, bob)
    before: BackgammonState = snap.state
    assert before.phase == MOVING
    mover, other = who(snap, (alice, bob))
    offered = await real.offer_resignation(snap.info.id, mover.id, "single", snap.info.version)
    back = await real.submit(snap.info.id, other.id, "reject", offered.info.version)
    state: BackgammonState = back.state
    assert state.phase == MOVING and state.dice == before.dice
    assert back.info.is_waiting_on(mover.id)


async def test_an_offer_of_anything_but_single_gammon_or_backgammon_is_refused(
    real: GameService, alice: User, bob: User
) -> None:
    snap = await match(real, alice, bob)
    mover, _ = who(snap, (alice, bob))
    with pytest.raises(Refusal, match="single, gammon or backgammon"):
        await real.offer_resignation(snap.info.id, mover.id, "match", snap.info.version)
    assert (await real.get(snap.info.id)).info.version == snap.info.version


async def test_an_offer_out_of_turn_is_refused_and_nothing_is_written(
    real: GameService, alice: User, bob: User
) -> None:
    snap = await match(real, alice, bob)
    _, other = who(snap, (alice, bob))
    with pytest.raises(Refusal, match="not your turn"):
        await real.offer_resignation(snap.info.id, other.id, "single", snap.info.version)
    assert (await real.get(snap.info.id)).info.version == snap.info.version


async def test_a_spectrangle_game_takes_no_resignation_offer(
    real: GameService, alice: User, bob: User
) -> None:
    info = await real.begin(
        alice.id, "spectrangle", {}, [SeatSpec("me"), SeatSpec("user", bob.name)]
    )
    await real.join(info.id, bob.id)
    snap = await real.get(info.id)
    mover = alice if snap.info.to_act == 0 else bob
    with pytest.raises(Refusal, match="no resignation offers"):
        await real.offer_resignation(info.id, mover.id, "single", snap.info.version)


async def test_the_whole_match_resign_still_ends_the_match_during_an_offer(
    real: GameService, alice: User, bob: User
) -> None:
    snap = await match(real, alice, bob)
    mover, _other = who(snap, (alice, bob))
    offered = await real.offer_resignation(snap.info.id, mover.id, "single", snap.info.version)
    done = await real.resign(snap.info.id, mover.id, offered.info.version)
    assert done.info.status == "finished"
