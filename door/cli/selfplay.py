"""``door selfplay``: one complete game between computer players, into the database.

A sysop's smoke test and a demo: the game is begun, played and finished through the game
service, as any game is (the bots' moves are ``GameService.submit`` calls, as the bot
runner makes them), so it is in the lists, the ratings' history and ``door export``
afterwards. The new game's number is the last line printed.

``--level`` names the computer player of both seats, or two (``bg-beginner,bg-expert``);
``--match-length`` (backgammon, 0 = a money game) and ``--players`` (Spectrangle, 2-4)
shape the game; ``--seed`` makes the dice and the bots' choices repeatable.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
from typing import TYPE_CHECKING, Any

from door.cli.db import load

if TYPE_CHECKING:
    from door.config import Config

MAX_ACTIONS = 20_000
"""A game that has not ended after this many moves is stopped (a bug, not a long game)."""


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    parser = sub.add_parser(
        "selfplay",
        parents=[common],
        help="play one complete game between computer players into the database (a smoke test)",
    )
    parser.add_argument("--game", required=True, choices=("backgammon", "spectrangle"))
    parser.add_argument(
        "--match-length", type=int, default=None, metavar="N",
        help="backgammon: points to play to (0: a money game; default the game's default)",
    )  # fmt: skip
    parser.add_argument(
        "--players", type=int, default=2, metavar="N", help="Spectrangle: 2 to 4 seats"
    )
    parser.add_argument(
        "--level", default=None, metavar="LEVEL[,LEVEL]",
        help="the computer player(s): one level for every seat or one per seat, "
        "comma-separated (default: the game's usual level)",
    )  # fmt: skip
    parser.add_argument(
        "--seed", type=int, default=None, metavar="N",
        help="repeatable dice and bot choices (default: unpredictable)",
    )  # fmt: skip
    parser.add_argument("-q", "--quiet", action="store_true", help="print only the game's number")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    config = load(args, "door selfplay")
    if config is None:
        return 2
    from door.games.base import Refusal
    from door.store.health import DatabaseUnusableError

    try:
        options, levels = plan(args)
        game_id = asyncio.run(
            selfplay(config, args.game, options, levels, seed=args.seed, quiet=args.quiet)
        )
    except Refusal as exc:
        print(f"door selfplay: {exc}", file=sys.stderr)
        return 2
    except DatabaseUnusableError as exc:
        print(f"door selfplay: {exc}", file=sys.stderr)
        return 2
    print(game_id)
    return 0


def plan(args: argparse.Namespace) -> tuple[dict[str, Any], list[str]]:
    """(options, a level per seat) from the command line; ``Refusal`` if unusable."""
    from door.games.base import Refusal
    from door.services.bots import levels as bot_levels
    from door.services.bots import resolve_level

    kind = args.game
    options: dict[str, Any] = {}
    if kind == "backgammon":
        seats = 2
        if args.match_length is not None:
            options["match_length"] = args.match_length
    else:
        seats = args.players
        if not 2 <= seats <= 4:
            raise Refusal("Spectrangle is for 2 to 4 players")
        if args.match_length is not None:
            raise Refusal("--match-length is for backgammon")
    known = [name for name, _ in bot_levels(kind)]
    asked = [w.strip() for w in (args.level or "").split(",") if w.strip()]
    if not asked:
        asked = [resolve_level(kind, None)]  # the level a new game offers first
    for level in asked:
        if level not in known:
            raise Refusal(f"there is no computer player {level!r}; choose {', '.join(known)}")
    if len(asked) == 1:
        asked = asked * seats
    if len(asked) != seats:
        raise Refusal(f"name one level, or one for each of the {seats} seats")
    return options, asked


async def selfplay(
    config: Config,
    kind: str,
    options: dict[str, Any],
    levels: list[str],
    *,
    seed: int | None = None,
    quiet: bool = False,
) -> int:
    """Begin a game of ``kind`` with a bot of ``levels[i]`` in seat ``i``, play it to the
    end through the game service, and return its id."""
    from door.services import build_services
    from door.services.bots import BotBrains
    from door.services.games import SeatSpec, StaleVersionError
    from door.store.files import make_private_dir

    make_private_dir(config.data_dir)
    rng = random.Random(seed) if seed is not None else None
    services = await build_services(config, rng=rng, start_background=False)
    try:
        games = services.games
        brains = BotBrains(random.Random(seed + 1) if seed is not None else None)
        creator = await services.accounts.ensure_bot(levels[0])
        info = await games.begin(
            creator.id, kind, options, [SeatSpec("bot", level) for level in levels]
        )
        if not quiet:
            print(f"door selfplay: game {info.id}: {games.rules_for(kind).title}, "
                  + " v ".join(levels), file=sys.stderr)  # fmt: skip
        for _ in range(MAX_ACTIONS):
            snap = await games.get(info.id)
            now = snap.info
            if now.status != "active" or now.to_act is None:
                break
            seat = next(s for s in now.seats if s.seat == now.to_act)
            assert seat.user_id is not None
            move = await asyncio.to_thread(brains.choose, kind, seat.name or "", snap.state)
            try:
                await games.submit(info.id, seat.user_id, move, now.version)
            except StaleVersionError:
                continue  # a bot runner of a server on this database moved first
        final = (await games.get(info.id)).info
        if final.status != "finished":
            from door.games.base import Refusal

            raise Refusal(f"game {info.id} did not finish ({final.summary})")
        if not quiet:
            detail = final.outcome.detail if final.outcome is not None else final.summary
            print(f"door selfplay: {detail}", file=sys.stderr)
        return info.id
    finally:
        await services.close()
