"""``door user``: add players, set passwords, grant sysop, ban, add SSH keys, approve
sign-ups."""

from __future__ import annotations

import argparse
import asyncio
import getpass
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from door.cli.db import load, open_database, place_options
from door.games.base import Refusal

if TYPE_CHECKING:
    from door.services.accounts import Accounts


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    common = place_options()
    parser = sub.add_parser("user", parents=[common], help="manage player accounts")
    actions = parser.add_subparsers(dest="user_action", metavar="ACTION")
    actions.required = True

    add = actions.add_parser("add", parents=[common], help="create a player account")
    add.add_argument("name", metavar="NAME")
    add.add_argument(
        "--password-stdin", action="store_true", help="read the password from standard input"
    )
    add.set_defaults(func=run_add)

    passwd = actions.add_parser("passwd", parents=[common], help="set a player's password")
    passwd.add_argument("name", metavar="NAME")
    passwd.add_argument(
        "--password-stdin", action="store_true", help="read the password from standard input"
    )
    passwd.set_defaults(func=run_passwd)

    sysop = actions.add_parser("sysop", parents=[common], help="make a player a sysop")
    sysop.add_argument("name", metavar="NAME")
    sysop.add_argument("--off", action="store_true", help="take sysop rights away instead")
    sysop.set_defaults(func=run_sysop)

    ban = actions.add_parser("ban", parents=[common], help="ban a player (they cannot log in)")
    ban.add_argument("name", metavar="NAME")
    ban.add_argument("--off", action="store_true", help="lift the ban instead")
    ban.set_defaults(func=run_ban)

    key = actions.add_parser(
        "key-add", parents=[common], help="let a player log in over SSH with a public key"
    )
    key.add_argument("name", metavar="NAME")
    key.add_argument("pubkey_file", metavar="PUBKEY_FILE", help="an OpenSSH .pub file")
    key.set_defaults(func=run_key_add)

    approve = actions.add_parser(
        "approve", parents=[common], help="let a pending sign-up log in (signup = approval)"
    )
    approve.add_argument("name", metavar="NAME")
    approve.set_defaults(func=run_approve)

    email = actions.add_parser(
        "email", parents=[common], help="set a player's notice e-mail address, as confirmed"
    )
    email.add_argument("name", metavar="NAME")
    email.add_argument("address", metavar="ADDRESS")
    email.set_defaults(func=run_email)

    pending = actions.add_parser(
        "pending", parents=[common], help="list the sign-ups awaiting approval"
    )
    pending.set_defaults(func=run_pending)


def read_password(from_stdin: bool) -> str:
    """The new password: the first line of stdin, or typed twice at a prompt."""
    if from_stdin:
        return sys.stdin.readline().rstrip("\r\n")
    first = getpass.getpass("New password: ")
    if getpass.getpass("Again: ") != first:
        raise Refusal("the two passwords differ; nothing was changed")
    return first


def _run(
    args: argparse.Namespace, command: str, body: Callable[[Accounts], Awaitable[str]]
) -> int:
    """Open the accounts service, run ``body``, print its message; errors are one line."""
    config = load(args, command)
    if config is None:
        return 2

    async def go() -> str:
        from door.services import name_rules
        from door.services.accounts import Accounts
        from door.services.clock import SystemClock

        db = await open_database(config)
        try:
            if config.database.auto_upgrade:
                await db.upgrade()
            return await body(Accounts(db, SystemClock(), names=name_rules(config)))
        finally:
            await db.dispose()

    try:
        print(asyncio.run(go()))
    except ValueError as exc:
        print(f"{command}: {exc}", file=sys.stderr)
        return 1
    return 0


def run_add(args: argparse.Namespace) -> int:
    try:
        password = read_password(args.password_stdin)
    except (ValueError, EOFError) as exc:
        print(f"door user add: {exc}", file=sys.stderr)
        return 1

    async def body(accounts: Accounts) -> str:
        user = await accounts.add_user(args.name, password)
        return f"added {user.name} (user {user.id})"

    return _run(args, "door user add", body)


def run_passwd(args: argparse.Namespace) -> int:
    try:
        password = read_password(args.password_stdin)
    except (ValueError, EOFError) as exc:
        print(f"door user passwd: {exc}", file=sys.stderr)
        return 1

    async def body(accounts: Accounts) -> str:
        await accounts.set_password(args.name, password)
        return f"password of {args.name} changed"

    return _run(args, "door user passwd", body)


def run_sysop(args: argparse.Namespace) -> int:
    async def body(accounts: Accounts) -> str:
        user = await accounts.set_sysop(args.name, not args.off)
        return f"{user.name} is {'now' if user.is_sysop else 'no longer'} a sysop"

    return _run(args, "door user sysop", body)


def run_ban(args: argparse.Namespace) -> int:
    async def body(accounts: Accounts) -> str:
        user = await accounts.set_banned(args.name, not args.off)
        return f"{user.name} is {'now banned' if user.is_banned else 'no longer banned'}"

    return _run(args, "door user ban", body)


def run_key_add(args: argparse.Namespace) -> int:
    try:
        text = Path(args.pubkey_file).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        print(f"door user key-add: cannot read {args.pubkey_file}: {exc}", file=sys.stderr)
        return 1
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    if not lines:
        print(f"door user key-add: {args.pubkey_file} holds no key", file=sys.stderr)
        return 1

    async def body(accounts: Accounts) -> str:
        user = await accounts.by_name(args.name)
        if user is None:
            raise Refusal(f"there is no user called {args.name!r}")
        added = [await accounts.add_key(user.id, line) for line in lines]
        return "\n".join(f"added key {fp} for {user.name}" for fp in added)

    return _run(args, "door user key-add", body)


def run_approve(args: argparse.Namespace) -> int:
    async def body(accounts: Accounts) -> str:
        user = await accounts.approve(args.name)
        return f"{user.name} is approved and can log in"

    return _run(args, "door user approve", body)


def run_pending(args: argparse.Namespace) -> int:
    async def body(accounts: Accounts) -> str:
        waiting = await accounts.pending()
        if not waiting:
            return "no sign-ups are waiting for approval"
        lines = [f"{u.name}  (user {u.id}, signed up {u.created_at:%Y-%m-%d %H:%M} UTC)"
                 for u in waiting]
        return "\n".join(lines)

    return _run(args, "door user pending", body)


def run_email(args: argparse.Namespace) -> int:
    async def body(accounts: Accounts) -> str:
        from door.services.outbox import Outbox

        user = await accounts.by_name(args.name)
        if user is None:
            raise Refusal(f"there is no user called {args.name!r}")
        await Outbox(accounts.db, accounts.clock).set_confirmed_email(user.id, args.address)
        return f"{user.name}'s notice address is {args.address.strip()} (confirmed)"

    return _run(args, "door user email", body)
