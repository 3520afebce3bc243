"""``door tournament``: create, list, show, edit and cancel tournaments (issue 19).

``create`` writes the event (and, with ``--fill-with-bots``, its computer entrants); a
running ``door serve`` starts it within ``[tournaments] sweep_interval_s`` and plays it out.
Its games have the clock the Begin screen offers: ``--deadline-hours`` per move, a bank of
``--bank-days`` for each player, the clock stopped at weekends with ``--weekends-off``.
``edit`` changes one that has not started.
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
    create.add_argument(
        "--deadline-hours", "--move-hours", dest="deadline_hours", type=int, default=None,
        help="time per move, hours (default: [games] default_deadline_hours)",
    )  # fmt: skip
    create.add_argument(
        "--bank-days", type=int, default=0, help="each player's time bank, days (0 to 60)"
    )
    create.add_argument(
        "--weekends-off", action="store_true", help="the clock stops on Saturday and Sunday"
    )
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

    edit = actions.add_parser("edit", parents=[common], help="change one before it starts")
    edit.add_argument("id", type=int)
    edit.add_argument("--name", default=None)
    edit.add_argument("--size", type=int, default=None, help="how many players")
    edit.add_argument("--start-at", default=None, help="ISO time it starts if not full")
    edit.add_argument("--min-entrants", type=int, default=None)
    edit.add_argument("--match-length", type=int, default=None, help="backgammon: points")
    edit.add_argument(
        "--deadline-hours", "--move-hours", dest="deadline_hours", type=int, default=None,
        help="time per move, hours",
    )  # fmt: skip
    edit.add_argument("--bank-days", type=int, default=None, help="each player's bank, days")
    weekends = edit.add_mutually_exclusive_group()
    weekends.add_argument(
        "--weekends-off", dest="weekends_off", action="store_const", const=True, default=None,
        help="the clock stops on Saturday and Sunday",
    )  # fmt: skip
    weekends.add_argument(
        "--weekends-on", dest="weekends_off", action="store_const", const=False,
        help="the clock runs at weekends too",
    )  # fmt: skip
    edit.set_defaults(func=run_edit)

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
            games = GameService(
                db, build_registry(), LocalHub(), clock,
                default_deadline_hours=config.games.default_deadline_hours,
            )  # fmt: skip
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


def _start_at(text: str | None) -> datetime | None:
    """``--start-at`` as an aware time (UTC unless it says); None if not given;
    ``ValueError`` if it is no ISO time."""
    if not text:
        return None
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        raise ValueError("--start-at must be an ISO time") from None
    return when.replace(tzinfo=UTC) if when.tzinfo is None else when


def _start_at_or_say(args: argparse.Namespace, command: str) -> tuple[bool, datetime | None]:
    try:
        return True, _start_at(args.start_at)
    except ValueError as exc:
        print(f"{command}: {exc}", file=sys.stderr)
        return False, None


def run_create(args: argparse.Namespace) -> int:
    ok, starts_at = _start_at_or_say(args, "door tournament create")
    if not ok:
        return 1

    async def body(t: Tournaments) -> str:
        from door.services.timecontrol import ClockOptions

        hours = args.deadline_hours
        if hours is None:
            hours = t.games.lobby.default_deadline_hours
        clock = ClockOptions(hours * 3600, args.bank_days * 86400, args.weekends_off)
        tid = await t.create(
            None, args.name, args.game, args.format, args.size,
            match_length=args.match_length, cube=not args.no_cube,
            table_size=args.table_size, rounds=args.rounds, min_entrants=args.min_entrants,
            min_rating=args.min_rating, bots_allowed=not args.no_bots, starts_at=starts_at,
            deadline_hours=args.deadline_hours, fill_with_bots=args.fill_with_bots,
            recurring=args.recurring, reach=args.reach, ladder_days=args.days,
            clock=clock, start_now=False,
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
        from door.services.tournaments.service import clock_of, clock_text

        lines = [
            f"#{r.id} {r.name}: {r.format} of {r.kind}, {r.status}"
            + (f", won by {view.winner_name}" if view.winner_name else "")
            + (f" ({r.note})" if r.note else ""),
            f"{len(data['entrants'])} of {r.size} entered; {r.rounds_made} round(s) made",  # type: ignore[arg-type]
            f"clock: {clock_text(clock_of(r))}",
        ]
        if r.starts_at is not None and r.status in ("open", "template"):
            lines.append(f"starts at {r.starts_at.isoformat()} if not full before")
        for s in view.standings[:40]:
            lines.append(f"{s.rank:>4}. {view.name_of(s.user_id):<24} {s.points:5.1f}")
        return "\n".join(lines)

    return _run(args, "door tournament show", body)


def run_edit(args: argparse.Namespace) -> int:
    command = "door tournament edit"
    ok, starts_at = _start_at_or_say(args, command)
    if not ok:
        return 1

    async def body(t: Tournaments) -> str:
        from door.services.tournaments.service import clock_of, clock_text

        # the parts of the clock not given are kept as stored, read inside the edit's
        # own transaction (not here first, where an edit made meanwhile would be undone)
        hours, days = args.deadline_hours, args.bank_days
        await t.edit(
            args.id, name=args.name, size=args.size, starts_at=starts_at,
            match_length=args.match_length, min_entrants=args.min_entrants,
            move_s=None if hours is None else hours * 3600,
            bank_s=None if days is None else days * 86400, weekends_off=args.weekends_off,
        )  # fmt: skip
        r = (await t.show(args.id)).record
        return f"tournament {r.id} is now: {r.name}, {r.size} players, {clock_text(clock_of(r))}"

    return _run(args, command, body)


def run_cancel(args: argparse.Namespace) -> int:
    async def body(t: Tournaments) -> str:
        await t.cancel(args.id)
        return f"tournament {args.id} cancelled"

    return _run(args, "door tournament cancel", body)
