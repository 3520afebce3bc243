"""Complete games played through the game service by seeded random players, for the
record tests: plays chosen by the pure-Python evaluator (with noise and some plain
random plays, so that hits, bar entries and gammons come up), doubles, takes, drops,
beavers where allowed, resignation offers accepted or rejected, and now and then a
match given up or lost on time."""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from door.games.backgammon import pubeval
from door.services.accounts import User
from door.services.clock import FakeClock
from door.services.games import GameService, SeatSpec

WEIGHTS = pubeval.shipped_weights()  # the fallback's networks, read once for these games


@dataclass(frozen=True)
class Style:
    """How often the random players do the unusual things (per decision)."""

    double: float = 0.12
    drop: float = 0.35
    beaver: float = 0.3
    resign: float = 0.01
    accept: float = 0.6
    give_up: float = 0.0
    late: float = 0.0


async def begin_backgammon(
    games: GameService, a: User, b: User, options: dict[str, Any]
) -> int:
    seats = [SeatSpec("me"), SeatSpec("user", b.name)]
    info = await games.begin(a.id, "backgammon", options, seats)
    await games.join(info.id, b.id)
    return info.id


async def play_backgammon(
    games: GameService,
    clock: FakeClock,
    a: User,
    b: User,
    options: dict[str, Any],
    rng: random.Random,
    style: Style = Style(),
    *,
    max_actions: int = 5000,
) -> int:
    """Begin a backgammon game of ``a`` against ``b`` and play it to its end."""
    game_id = await begin_backgammon(games, a, b, options)
    for _ in range(max_actions):
        snap = await games.get(game_id)
        info = snap.info
        if info.status != "active":
            return game_id
        await act_once(games, clock, snap, rng, style)
    raise AssertionError(f"game {game_id} did not end")


async def act_once(
    games: GameService, clock: FakeClock, snap: Any, rng: random.Random, style: Style
) -> None:
    info, state = snap.info, snap.state
    seat = next(s for s in info.seats if s.seat == info.to_act)
    user = seat.user_id
    rules = games.rules_for("backgammon")
    r = rng.random()
    if r < style.late:
        clock.advance(timedelta(hours=info.deadline_hours + 1))
        assert await games.sweep_deadlines() >= 1
        return
    if r < style.late + style.give_up:
        await games.resign(info.id, user)
        return
    phase = state.phase
    if phase in ("decide", "moving") and rng.random() < style.resign:
        level = rng.choice(("single", "gammon", "backgammon"))
        await games.offer_resignation(info.id, user, level, info.version)
        return
    legal = list(rules.legal_moves(state))
    names = [m.action for m in legal]
    if phase == "decide":
        move = legal[names.index("double")] if "double" in names and rng.random() < style.double \
            else legal[names.index("roll")]
    elif phase == "doubled":
        if "beaver" in names and rng.random() < style.beaver:
            move = legal[names.index("beaver")]
        else:
            move = legal[names.index("drop" if rng.random() < style.drop else "take")]
    elif phase == "resigning":
        move = legal[names.index("accept" if rng.random() < style.accept else "reject")]
    elif phase == "moving":
        plays = rules.plays(state)
        if not plays or rng.random() < 0.25:
            move = rng.choice(legal)
        else:
            boards = [pubeval.engine_board(me, opp) for _, me, opp in plays]
            best = pubeval.choose_play(boards, WEIGHTS, noise=0.2, rng=rng)
            move = legal[best]
    else:
        raise AssertionError(f"nobody should act in the {phase} phase")
    await games.submit(info.id, user, rules.format_move(state, move), info.version)
