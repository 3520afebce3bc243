"""A game screen replays the log once and then only what was added to it."""

from __future__ import annotations

import random

from door.games.backgammon.rules import BackgammonRules
from door.services import Services
from door.services.accounts import User
from door.ui.boards.common import replay_log
from door.ui.glyphs import glyphs
from door.ui.screen import Context
from door.ui.screens.backgammon import BackgammonScreen
from door.ui.terminal import Caps
from tests.ui.test_backgammon_screen import NO_CUBE, begin


async def play_some(services: Services, gid: int, users: dict[int, User], n: int) -> None:
    rules = BackgammonRules()
    rng = random.Random(n)
    for _ in range(n):
        snap = await services.games.get(gid)
        if snap.info.status != "active":
            return
        state = snap.state
        text = rules.format_move(state, rng.choice(list(rules.legal_moves(state))))
        await services.games.submit(gid, users[state.turn].id, text, snap.info.version)


async def test_the_history_read_a_piece_at_a_time_is_the_whole_log_replayed(
    services: Services, alice: User, bob: User
) -> None:
    gid = await begin(services, alice, bob, NO_CUBE)
    users = {0: alice, 1: bob}
    caps = Caps(encoding="utf-8", colors=16, width=80, height=24, term="xterm", transport="t")
    ctx = Context(services, alice, caps, glyphs("utf-8"))
    screen = BackgammonScreen(gid)
    await screen.on_enter(ctx)
    rules = services.games.rules_for("backgammon")
    for step in (3, 0, 5, 1):
        await play_some(services, gid, users, step)
        await screen.reload(ctx)
        assert screen.snap is not None
        whole = replay_log(rules, screen.snap.info, await services.games.events(gid))
        assert await screen.history(ctx) == whole
        assert whole  # something was played
