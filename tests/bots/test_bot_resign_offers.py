"""A computer player resigns a settled game and answers a person's offer, through the real
game service and bot runner (the same ``submit`` path a person's offer takes)."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator

import pytest

from door.games.backgammon.position import MOVING, RESIGNING, BackgammonState
from door.services import Services
from door.services.bgengine import BgEngine
from door.services.bots import BotBrains, BotRunner
from tests.bots.test_runner import ME, bot, human, humans_turn, needs_bgsage, wait_for

pytestmark = needs_bgsage


async def test_a_person_s_single_offer_in_an_even_game_is_accepted_by_the_bot(
    services: Services, runner: BotRunner
) -> None:
    uid = await human(services)
    info = await services.games.begin(
        uid, "backgammon", {"match_length": 0, "cube": False}, [ME, bot("bg-expert")]
    )
    snap = await wait_for(services, info.id, humans_turn(uid))
    state: BackgammonState = snap.state
    assert state.phase == MOVING
    await services.games.offer_resignation(info.id, uid, "single", snap.info.version)
    done = await wait_for(services, info.id, lambda s: s.info.status != "active")
    outcome = services.games.registry["backgammon"].outcome(done.state)
    assert outcome is not None and outcome.reason == "resign" and outcome.winners == (1,)
    assert int(outcome.extra["points"]) == 1


@pytest.fixture
async def seeded_runner(services: Services) -> AsyncIterator[BotRunner]:
    """A runner whose bots' noise is seeded, so the game below is the same every time."""
    bots = BotRunner(services, brains=BotBrains(random.Random(SEED)))
    services.bots = bots
    bots.start()
    await bots.ready()
    yield bots
    await bots.stop()


# With these dice (the game service's seed) and this seed for the bots, the beginner is
# left in a lost race without gammon chances (many other games end in a gammon, which a
# bot rightly plays out until it is settled).
SEED = 4


@pytest.mark.slow
async def test_a_losing_bot_offers_to_resign_a_dead_race_once_per_position(
    services: Services, seeded_runner: BotRunner
) -> None:
    # The person plays the expert's moves against the beginner, cube off: the beginner
    # ends up in a lost race and must offer to resign it rather than roll it out.
    uid = await human(services)
    helper = BgEngine("bg-expert")
    info = await services.games.begin(
        uid, "backgammon", {"match_length": 0, "cube": False}, [ME, bot("bg-beginner")]
    )
    rejected_at = None
    offers = 0
    snap = await wait_for(services, info.id, humans_turn(uid))
    for _ in range(400):
        if snap.info.status != "active":
            break
        state: BackgammonState = snap.state
        if state.phase == RESIGNING:
            offers += 1
            assert state.board != rejected_at, "the bot offered again after a rejection"
            # Reject the first offer (the bot must play on), accept the next.
            answer = "reject" if offers == 1 else "accept"
            rejected_at = state.board if offers == 1 else None
        else:
            answer = helper.rules.format_move(state, helper.choose(state))
        snap = await services.games.submit(info.id, uid, answer, snap.info.version)
        if not snap.info.is_waiting_on(uid):
            snap = await wait_for(services, info.id, humans_turn(uid))
    assert snap.info.status == "finished"
    if offers == 0:
        pytest.fail("the beginner never offered to resign (did it win this game?)")
    outcome = services.games.registry["backgammon"].outcome(snap.state)
    assert outcome is not None and outcome.reason == "resign" and outcome.winners == (0,)
