"""``door check``: replay every game's log through the rules and compare with its snapshot."""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

from door.cli.db import database_for, load


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    parser = sub.add_parser(
        "check",
        parents=[common],
        help="replay every game's events and compare them with the stored positions",
    )
    parser.add_argument("-q", "--quiet", action="store_true", help="print only mismatches")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    config = load(args, "door check")
    if config is None:
        return 2
    try:
        checked, problems = asyncio.run(check_all(config))
    except Exception as exc:  # e.g. no database, no tables: one clear line
        print(f"door check: cannot read the database: {exc}", file=sys.stderr)
        return 2
    for problem in problems:
        print(problem)
    if problems:
        print(f"door check: {len(problems)} of {checked} game(s) do not match their log")
        return 1
    if not args.quiet:
        print(f"door check: {checked} game(s) checked, every one replays to its snapshot")
    return 0


async def check_all(config: Any) -> tuple[int, list[str]]:
    """(games checked, a line for each mismatch)."""
    from door.games.registry import build_registry
    from door.services.clock import SystemClock
    from door.services.games import GameService
    from door.services.notify import LocalHub

    db = database_for(config)
    try:
        games = GameService(db, build_registry(), LocalHub(), SystemClock())
        ids = await games.game_ids()
        problems = []
        for game_id in ids:
            problem = await games.replay_check(game_id)
            if problem is not None:
                problems.append(problem)
        return len(ids), problems
    finally:
        await db.dispose()
