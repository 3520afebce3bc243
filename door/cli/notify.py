"""``door notify``: send a test notice to a player (``test``), show the outbox
(``status``)."""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from typing import Any

from door.cli.db import load, open_database, place_options
from door.config import Config


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    common = place_options()
    parser = sub.add_parser(
        "notify", parents=[common], help="notices outside door: test a player's, the outbox"
    )
    actions = parser.add_subparsers(dest="notify_action", metavar="ACTION")
    actions.required = True
    test = actions.add_parser(
        "test", parents=[common],
        help="send a test notice through each channel a player has and wait for the outcome",
    )  # fmt: skip
    test.add_argument("name", metavar="NAME")
    test.add_argument("--wait", type=float, default=60.0, help="seconds to wait (default 60)")
    test.set_defaults(func=run_test)
    status = actions.add_parser(
        "status", parents=[common], help="the outbox: pending, sent, failed with reasons"
    )
    status.add_argument("--limit", type=int, default=20, help="how many failures to list")
    status.set_defaults(func=run_status)


async def _test(config: Config, name: str, wait_s: float) -> tuple[int, list[str]]:
    from door.services.accounts import Accounts
    from door.services.clock import SystemClock
    from door.services.outbox import Outbox
    from door.services.sender import Sender

    db = await open_database(config)
    clock = SystemClock()
    try:
        if config.database.auto_upgrade:
            await db.upgrade()
        user = await Accounts(db, clock).by_name(name)
        if user is None:
            return 1, [f"there is no user called {name!r}"]
        outbox = Outbox(db, clock, unsubscribe_base_url=config.notices.unsubscribe_base_url)
        ids = await outbox.enqueue_test(user.id)
        if not ids:
            return 1, [f"{user.name} has no confirmed e-mail address and no push URL"]
        sender = Sender(db, clock, config.mail, config.push, config.notices)
        deadline = time.monotonic() + wait_s
        while True:
            # this process sends (a running server may take some first: either way the
            # rows say what became of them)
            await sender.run_once()
            rows = await db.run_read(lambda repo: repo.notices(ids))
            if all(r.status != "pending" for r in rows) or time.monotonic() > deadline:
                break
            await asyncio.sleep(0.2)
        lines = []
        for r in rows:
            what = {"sent": "accepted", "failed": f"NOT accepted: {r.last_error}"}.get(
                r.status, "no outcome yet (still pending)"
            )
            lines.append(f"{r.channel} {r.address}: {what}")
        ok = all(r.status == "sent" for r in rows)
        return (0 if ok else 1), lines
    finally:
        await db.dispose()


def run_test(args: argparse.Namespace) -> int:
    config = load(args, "door notify test")
    if config is None:
        return 2
    try:
        status, lines = asyncio.run(_test(config, args.name, args.wait))
    except ValueError as exc:
        print(f"door notify test: {exc}", file=sys.stderr)
        return 1
    for line in lines:
        print(line, file=sys.stdout if status == 0 else sys.stderr)
    return status


async def _status(config: Config, limit: int) -> list[str]:
    from door.services.sender import summary

    db = await open_database(config)
    try:
        counts = await db.run_read(lambda repo: repo.outbox_counts())
        failed = await db.run_read(lambda repo: repo.outbox_recent("failed", limit))
        return summary(counts, failed)
    finally:
        await db.dispose()


def run_status(args: argparse.Namespace) -> int:
    config = load(args, "door notify status")
    if config is None:
        return 2
    for line in asyncio.run(_status(config, args.limit)):
        print(line)
    return 0
