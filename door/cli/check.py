"""``door check``: the database's health and every game's log against its snapshot.

First the files: the data folder, the SQLite file and its side files, the SSH host key;
any that other users may read is a warning with the ``chmod`` that fixes it. Then the
database itself (SQLite's ``quick_check``, the schema), then each game replayed through
the rules and compared with its snapshot (and, for a game with provable dice, each logged
chance event compared with the one its seed makes, and its count of chance events with
the log's); last every rating, recomputed from the
finished games (``door/services/ratings.py`` rating_problems) and compared with the one
stored; and every tournament against its games (each round's pairings recomputed with
its format, every round complete before the next, the right winner).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import TYPE_CHECKING, Any

from door.cli.db import load, open_database, sqlite_path
from door.store.files import database_files, wide_modes
from door.store.health import DatabaseUnusableError

if TYPE_CHECKING:
    from door.config import Config
    from door.services.ratings import RatingAudit


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    parser = sub.add_parser(
        "check",
        parents=[common],
        help="replay every game's events and compare them with the stored positions",
    )
    parser.add_argument("-q", "--quiet", action="store_true", help="print only mismatches")
    parser.add_argument(
        "--repair-ratings", action="store_true",
        help="first rewrite every rating and the rating history from the finished games",
    )  # fmt: skip
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    config = load(args, "door check")
    if config is None:
        return 2
    for line in permission_warnings(config):
        print(f"door check: warning: {line}", file=sys.stderr)
    try:
        checked, problems, audit, repaired = asyncio.run(
            check_all(config, repair_ratings=args.repair_ratings)
        )
    except DatabaseUnusableError as exc:  # damaged, not a database, no tables, …
        print(f"door check: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # e.g. no database, no tables: one clear line
        print(f"door check: cannot read the database: {exc}", file=sys.stderr)
        return 2
    if repaired is not None:
        print(f"door check: ratings rewritten from the finished games ({repaired} changed)")
    for problem in problems:
        print(problem)
    for problem in audit.problems:
        print(f"ratings: {problem}")
    summary = []
    if problems:
        summary.append(f"{len(problems)} of {checked} game(s) do not match their log")
    elif not args.quiet:
        summary.append(f"{checked} game(s) checked, every one replays to its snapshot")
    if audit.problems:
        summary.append(
            f"{len(audit.problems)} rating difference(s) against {audit.games} rated game(s)"
        )
    elif not args.quiet:
        summary.append(f"every rating matches its {audit.games} rated game(s)")
    if summary:  # one line, the last: what bench/crash.py reports
        print("door check: " + "; ".join(summary))
    return 1 if problems or audit.problems else 0


def permission_warnings(config: Config) -> list[str]:
    """A line for each of door's files and folders that other users may read."""
    files = [config.host_key_path]
    folders = [config.data_dir]
    path = sqlite_path(config)
    if path is not None:
        files[:0] = database_files(path)
        if path.parent.resolve() != config.data_dir.resolve():
            folders.append(path.parent)
    return [wide.advice() for wide in wide_modes(files, folders)]


async def check_all(
    config: Config, *, repair_ratings: bool = False
) -> tuple[int, list[str], RatingAudit, int | None]:
    """(games checked, a line for each mismatch, what the ratings' check found, how many
    ratings ``repair_ratings`` changed first or None)."""
    from door.games.registry import build_registry
    from door.services.clock import SystemClock
    from door.services.games import GameService
    from door.services.notify import LocalHub
    from door.services.ratings import Ratings

    db = await open_database(config, upgrading=False)
    try:
        repaired = await Ratings(db).repair() if repair_ratings else None
        games = GameService(db, build_registry(), LocalHub(), SystemClock())
        ids = await games.game_ids()
        problems = []
        for game_id in ids:
            problem = await games.replay_check(game_id)
            if problem is not None:
                problems.append(problem)
        from door.services.tournaments.service import Tournaments

        # every tournament against its games: pairings, winners, rounds complete
        problems.extend(await Tournaments(db, games, SystemClock()).audit())
        return len(ids), problems, await Ratings(db).audit(), repaired
    finally:
        await db.dispose()
