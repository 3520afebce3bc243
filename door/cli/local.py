"""``door local``: one session on this terminal (stdin/stdout), as a BBS runs a door.

With ``--dropfile`` the BBS's user (DOOR32.SYS, DOOR.SYS or DORINFOx.DEF) plays under the
configured BBS tag, with no login prompt; without it you log in as over telnet.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import sys
from typing import Any

from door.config import Config, load_config


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    parser = sub.add_parser(
        "local",
        parents=[common],
        help="play on this terminal (BBS door mode with --dropfile)",
        description="Run one session on stdin/stdout. A BBS passes its drop file.",
    )
    parser.add_argument(
        "--dropfile", default=None, help="DOOR32.SYS, DOOR.SYS or DORINFOx.DEF from the BBS"
    )
    parser.add_argument(
        "--encoding",
        choices=("cp437", "utf-8"),
        default=None,
        help="force the character set (default: CP437 for BBS doors, else from LANG/TERM)",
    )
    parser.add_argument(
        "--game",
        "--start",
        dest="start",
        metavar="KIND",
        default=None,
        help="open straight into a game's list (backgammon, spectrangle): a direct menu item",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from door.net.dropfile import DropFileError, read_dropfile
    from door.store.health import DatabaseUnusableError

    try:
        config = load_config(args.config, args.data_dir)
    except (ValueError, OSError) as exc:
        print(f"door local: {exc}", file=sys.stderr)
        return 2
    drop = None
    if args.dropfile:
        try:
            drop = read_dropfile(args.dropfile)
        except DropFileError as exc:
            print(f"door local: {exc}", file=sys.stderr)
            return 2
    logging.basicConfig(level=logging.ERROR, stream=sys.stderr)
    try:
        return asyncio.run(run_local(config, drop, encoding=args.encoding, start=args.start))
    except DatabaseUnusableError as exc:
        print(f"door local: {exc}", file=sys.stderr)
        return 1


async def run_local(
    config: Config, drop: Any, *, encoding: str | None = None, start: str | None = None
) -> int:
    """Run one stdio session; 0 when it ended normally (hang-up and EOF included)."""
    from door.app import connection_settings, enter_session, known_kinds, login_guard
    from door.net.login import LoginAborted, login_dialogue
    from door.net.stdio import StdioTerminal, stdio_caps
    from door.services import build_services
    from door.store.files import make_private_dir

    make_private_dir(config.data_dir)  # 0700 when made here: it holds the secrets
    services = await build_services(config)
    limits = config.limits
    caps = stdio_caps(
        encoding=encoding,
        ansi=drop.ansi if drop is not None else True,
        rows=drop.rows if drop is not None else None,
        use_lang=drop is None,
    )
    terminal = StdioTerminal(caps, connection_settings(config))
    try:
        await terminal.open()
        kind = start if start in known_kinds(services) else None
        user: Any = None
        if drop is not None:
            if drop.minutes_left is not None:
                if drop.minutes_left <= 0:
                    await terminal.close("You have no time left on the BBS today. Goodbye!")
                    return 0
                terminal.set_time_limit(drop.minutes_left * 60.0)
            user = await services.accounts.bbs_user(
                config.door.bbs_tag, drop.alias, source="dropfile"
            )
        else:
            try:
                user = await login_dialogue(
                    terminal,
                    services.accounts,
                    login_guard(limits),
                    address="local",
                    server_name=config.server.name,
                    max_len=limits.max_line,
                    max_tries=limits.max_auth_tries,
                )
            except LoginAborted:
                user = None
            if user is None:
                return 0
        await enter_session(terminal, services, user, start=kind)
        return 0
    finally:
        await terminal.close()
        terminal.restore()
        with contextlib.suppress(Exception):
            await services.close()
