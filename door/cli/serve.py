"""``door serve``: run the server (telnet, SSH and, if configured, rlogin) until SIGTERM."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from dataclasses import replace
from typing import Any

from door.config import Config, ConfigError, load_config


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    parser = sub.add_parser(
        "serve",
        parents=[common],
        help="run the door server",
        description="Serve telnet (2323) and SSH (2222) from ./door-data unless told otherwise.",
    )
    parser.add_argument("--host", default=None, help="address to listen on (default 0.0.0.0)")
    parser.add_argument("--telnet-port", type=int, default=None, help="telnet port (0 = off)")
    parser.add_argument("--ssh-port", type=int, default=None, help="SSH port (0 = off)")
    parser.add_argument("--rlogin-port", type=int, default=None, help="rlogin port (0 = off)")
    parser.add_argument("-v", "--verbose", action="store_true", help="log more")
    parser.set_defaults(func=run)


def config_from_args(args: argparse.Namespace) -> Config:
    """The config file (if any), the data dir, then the port/host flags on top."""
    config = load_config(args.config, args.data_dir)
    server = config.server
    changes: dict[str, Any] = {}
    for flag, key in (
        ("host", "host"),
        ("telnet_port", "telnet_port"),
        ("ssh_port", "ssh_port"),
        ("rlogin_port", "rlogin_port"),
    ):
        value = getattr(args, flag, None)
        if value is not None:
            if key.endswith("port") and not 0 <= value <= 65535:
                raise ConfigError(f"--{flag.replace('_', '-')} must be 0 to 65535")
            changes[key] = value
    return replace(config, server=replace(server, **changes))


def run(args: argparse.Namespace) -> int:
    from door.app import serve
    from door.store.health import DatabaseUnusableError

    try:
        config = config_from_args(args)
    except (ValueError, OSError) as exc:
        print(f"door serve: {exc}", file=sys.stderr)
        return 2
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    try:
        return asyncio.run(serve(config))
    except (OSError, DatabaseUnusableError) as exc:
        print(f"door serve: {exc}", file=sys.stderr)
        return 1
    except Exception as exc:  # a start-up failure: one line, the traceback with -v
        logging.getLogger(__name__).info("door serve failed", exc_info=True)
        print(f"door serve: could not start: {exc}", file=sys.stderr)
        return 1
