"""Drive tournament games to their ends through the services: a scripted resignation
(the player with the lower id resigns, or a seeded choice), or silence (timeouts)."""

from __future__ import annotations

import random
from collections.abc import Iterable
from datetime import timedelta

from door.services.clock import FakeClock
from door.services.games import GameService
from door.services.tournaments.service import Tournaments


async def finish_round(
    tours: Tournaments, games: GameService, clock: FakeClock, tid: int,
    silent: Iterable[int] = (), rng: random.Random | None = None,
) -> int:  # fmt: skip
    """End every running game of ``tid``: a seated non-silent player resigns (the
    silent players' games time out); how many games ended."""
    rng = rng or random.Random(tid)
    quiet = set(silent)
    view = await tours.show(tid)
    live = [t for t in view.tables if t.game_id is not None and t.game_status == "active"]
    ended = 0
    timing_out = False
    for tab in live:
        assert tab.game_id is not None
        talkers = [u for u in tab.seats if u not in quiet]
        if len(talkers) == len(tab.seats):
            # resign one after another (a Spectrangle table plays on with the rest)
            left = list(tab.seats)
            while len(left) > 1:
                loser = rng.choice(left)
                left.remove(loser)
                snap = await games.resign(tab.game_id, loser)
                if snap.info.status != "active":
                    break
            ended += 1
        elif talkers and len(tab.seats) == 2:
            # the silent one's opponent plays on; the silent one times out
            timing_out = True
        else:
            timing_out = True
    if timing_out:
        for _ in range(12):
            clock.advance(timedelta(hours=200))
            await _move_talkers(tours, games, tid, quiet)
            await games.sweep_deadlines()
            await tours.settle()
            view = await tours.show(tid)
            if not any(
                t.game_status == "active"
                for t in view.tables
                if t.round_no == view.record.rounds_made
            ):
                break
    await tours.settle()
    return ended


async def _move_talkers(tours: Tournaments, games: GameService, tid: int, quiet: set[int]) -> None:
    """Whoever is to act and is not silent: resign if the other is silent? No — just let
    the clock run; the silent one times out when it is their turn, and a talker to act
    resigns nothing but waits (their own timeout counts too): so a talker to act makes
    the rules' first legal move."""
    view = await tours.show(tid)
    for tab in view.tables:
        if tab.game_id is None or tab.game_status != "active":
            continue
        snap = await games.get(tab.game_id)
        info = snap.info
        if info.to_act is None:
            continue
        seat = next(s for s in info.seats if s.seat == info.to_act)
        if seat.user_id in quiet or seat.user_id is None:
            continue
        rules = games.rules_for(info.kind)
        for _ in range(20):
            snap = await games.get(tab.game_id)
            info = snap.info
            if info.status != "active" or info.to_act != seat.seat:
                break
            legal = rules.legal_moves(snap.state)
            if not legal:
                break
            await games.submit(
                info.id, seat.user_id, rules.format_move(snap.state, legal[0]), info.version
            )


async def play_out(
    tours: Tournaments, games: GameService, clock: FakeClock, tid: int,
    silent: Iterable[int] = (), max_rounds: int = 40,
) -> None:  # fmt: skip
    rng = random.Random(tid)
    for _ in range(max_rounds):
        view = await tours.show(tid)
        if view.record.status != "running":
            return
        await finish_round(tours, games, clock, tid, silent, rng)
        await tours.sweep()
    raise AssertionError("the tournament did not end")
