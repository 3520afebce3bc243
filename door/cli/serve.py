"""``door serve``: run the server (telnet, SSH and, if configured, rlogin and the web) until
SIGTERM."""

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
    parser.add_argument(
        "--web-port", type=int, default=None,
        help="web page and WebSocket port (0 = off, the default)",
    )  # fmt: skip
    parser.add_argument(
        "--workers", type=int, default=None, metavar="N",
        help="run N processes sharing the ports (PostgreSQL only; default [server] workers, 1)",
    )  # fmt: skip
    parser.add_argument("-v", "--verbose", action="store_true", help="log more")
    # one worker of --workers N, started by its supervisor (not for people to type)
    parser.add_argument("--as-worker", type=int, default=None, help=argparse.SUPPRESS)
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
        ("web_port", "web_port"),
        ("workers", "workers"),
    ):
        value = getattr(args, flag, None)
        if value is not None:
            if key.endswith("port") and not 0 <= value <= 65535:
                raise ConfigError(f"--{flag.replace('_', '-')} must be 0 to 65535")
            if key == "workers" and not 1 <= value <= 256:
                raise ConfigError("--workers must be 1 to 256")
            changes[key] = value
    return replace(config, server=replace(server, **changes))


def worker_command(args: argparse.Namespace, number: int) -> list[str]:
    """The command line of worker ``number`` of ``door serve --workers N``: this one's
    options again (it reads the same config), as a worker."""
    command = [sys.executable, "-m", "door", "serve", "--as-worker", str(number)]
    for flag in (
        "config", "data_dir", "host", "telnet_port", "ssh_port", "rlogin_port", "web_port",
    ):  # fmt: skip
        value = getattr(args, flag, None)
        if value is not None:
            command += [f"--{flag.replace('_', '-')}", str(value)]
    if args.verbose:
        command.append("-v")
    return command


def run(args: argparse.Namespace) -> int:
    from door.app import WORKERS_NEED_POSTGRESQL, is_postgresql, serve, serve_workers
    from door.net.ssh import HostKeyError
    from door.store.health import DatabaseUnusableError

    try:
        config = config_from_args(args)
    except (ValueError, OSError) as exc:
        print(f"door serve: {exc}", file=sys.stderr)
        return 2
    worker = args.as_worker
    workers = config.server.workers if worker is None else 1
    if workers > 1 and not is_postgresql(config.database_url):
        print(f"door serve: {WORKERS_NEED_POSTGRESQL}", file=sys.stderr)
        return 2
    where = "" if worker is None else f"worker {worker} pid %(process)d "
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format=f"%(asctime)s %(levelname)s {where}%(name)s: %(message)s",
    )
    try:
        if workers > 1:
            commands = [worker_command(args, n) for n in range(1, workers + 1)]
            return asyncio.run(serve_workers(config, commands))
        return asyncio.run(serve(config, worker=worker))
    except (OSError, DatabaseUnusableError, HostKeyError) as exc:
        print(f"door serve: {exc}", file=sys.stderr)
        return 1
    except Exception as exc:  # a start-up failure: one line, the traceback with -v
        logging.getLogger(__name__).info("door serve failed", exc_info=True)
        print(f"door serve: could not start: {exc}", file=sys.stderr)
        return 1
