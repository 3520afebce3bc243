"""``door tournament``: create, list, show and cancel tournaments (issue 19).

``create`` writes the event (and, with ``--fill-with-bots``, its computer entrants); a
running ``door serve`` starts it within ``[tournaments] sweep_interval_s`` and plays it out.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from door.cli.db import load, open_database, place_options

if TYPE_CHECKING:
    from door.services.tournaments.service import Tournaments


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    common = place_options()
    parser = sub.add_parser("tournament", parents=[common], help="create and run tournaments")
    actions = parser.add_subparsers(dest="tournament_action", metavar="ACTION")
    actions.required = True

    create = actions.add_parser("create", parents=[common], help="open a new tournament")
    create.add_argument("--name", required=True)
    create.add_argument("--game", required=True, choices=("backgammon", "spectrangle"))
    create.add_argument(
        "--format", required=True, choices=("knockout", "roundrobin", "swiss", "ladder")
    )
    create.add_argument("--size", required=True, type=int, help="how many players")
    create.add_argument("--match-length", type=int, default=1, help="backgammon: points")
    create.add_argument("--no-cube", action="store_true", help="backgammon: no doubling cube")
    create.add_argument("--table-size", type=int, default=2, help="Spectrangle: players per table")
    create.add_argument("--rounds", type=int, default=None, help="Swiss: how many rounds")
    create.add_argument("--min-entrants", type=int, default=2)
    create.add_argument("--min-rating", type=float, default=None)
    create.add_argument("--no-bots", action="store_true", help="computer players may not enter")
    create.add_argument("--start-at", default=None, help="ISO time it starts if not full")
    create.add_argument("--deadline-hours", type=int, default=None, help="time per move")
    create.add_argument(
        "--fill-with-bots", default=None, metavar="LEVEL",
        help="fill the open places with computer players of this level",
    )  # fmt: skip
    create.add_argument("--recurring", action="store_true", help="open the next edition itself")
    create.add_argument("--reach", type=int, default=3, help="ladder: places one may challenge up")
    create.add_argument("--days", type=int, default=60, help="ladder: how long it runs")
    create.set_defaults(func=run_create)

    lst = actions.add_parser("list", parents=[common], help="list the tournaments")
    lst.set_defaults(func=run_list)

    show = actions.add_parser("show", parents=[common], help="show one tournament")
    show.add_argument("id", type=int)
    show.add_argument("--json", action="store_true", help="as one JSON object")
    show.set_defaults(func=run_show)

    cancel = actions.add_parser("cancel", parents=[common], help="cancel a tournament")
    cancel.add_argument("id", type=int)
    cancel.set_defaults(func=run_cancel)


def _run(
    args: argparse.Namespace, command: str, body: Callable[[Tournaments], Awaitable[str]]
) -> int:
    """Open the database and the tournament service, run ``body``, print its text."""
    config = load(args, command)
    if config is None:
        return 2

    async def go() -> str:
        from door.games.registry import build_registry
        from door.services.clock import SystemClock
        from door.services.games import GameService
        from door.services.notify import LocalHub
        from door.services.tournaments.service import Tournaments

        db = await open_database(config)
        try:
            if config.database.auto_upgrade:
                await db.upgrade()
            clock = SystemClock()
            games = GameService(db, build_registry(), LocalHub(), clock)
            return await body(Tournaments(db, games, clock))
        finally:
            await db.dispose()

    from door.services.games import LobbyError
    from door.services.tournaments.service import TournamentError

    try:
        print(asyncio.run(go()))
    except (TournamentError, LobbyError, ValueError) as exc:
        print(f"{command}: {exc}", file=sys.stderr)
        return 1
    return 0


def run_create(args: argparse.Namespace) -> int:
    starts_at = None
    if args.start_at:
        try:
            starts_at = datetime.fromisoformat(args.start_at)
        except ValueError:
            print("door tournament create: --start-at must be an ISO time", file=sys.stderr)
            return 1
        if starts_at.tzinfo is None:
            starts_at = starts_at.replace(tzinfo=UTC)

    async def body(t: Tournaments) -> str:
        tid = await t.create(
            None, args.name, args.game, args.format, args.size,
            match_length=args.match_length, cube=not args.no_cube,
            table_size=args.table_size, rounds=args.rounds, min_entrants=args.min_entrants,
            min_rating=args.min_rating, bots_allowed=not args.no_bots, starts_at=starts_at,
            deadline_hours=args.deadline_hours, fill_with_bots=args.fill_with_bots,
            recurring=args.recurring, reach=args.reach, ladder_days=args.days,
            start_now=False,
        )  # fmt: skip
        return str(tid)

    return _run(args, "door tournament create", body)


def run_list(args: argparse.Namespace) -> int:
    async def body(t: Tournaments) -> str:
        rows = await t.listing(("open", "running", "finished", "cancelled", "template"))
        lines = [f"{'id':>5}  {'status':<9} {'format':<10} {'game':<11} {'size':>4}  name"]
        for r in rows:
            lines.append(
                f"{r.id:>5}  {r.status:<9} {r.format:<10} {r.kind:<11} {r.size:>4}  {r.name}"
            )
        return "\n".join(lines)

    return _run(args, "door tournament list", body)


def run_show(args: argparse.Namespace) -> int:
    async def body(t: Tournaments) -> str:
        view = await t.show(args.id)
        data = view.as_json()
        if args.json:
            return json.dumps(data)
        r = view.record
        lines = [
            f"#{r.id} {r.name}: {r.format} of {r.kind}, {r.status}"
            + (f", won by {view.winner_name}" if view.winner_name else "")
            + (f" ({r.note})" if r.note else ""),
            f"{len(data['entrants'])} of {r.size} entered; {r.rounds_made} round(s) made",  # type: ignore[arg-type]
        ]
        for s in view.standings[:40]:
            lines.append(f"{s.rank:>4}. {view.name_of(s.user_id):<24} {s.points:5.1f}")
        return "\n".join(lines)

    return _run(args, "door tournament show", body)


def run_cancel(args: argparse.Namespace) -> int:
    async def body(t: Tournaments) -> str:
        await t.cancel(args.id)
        return f"tournament {args.id} cancelled"

    return _run(args, "door tournament cancel", body)
