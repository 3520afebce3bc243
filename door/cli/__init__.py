"""The ``door`` command: one entry point, a sub-command per job.

Each sub-command lives in its own module here with a ``register(subparsers, common)``
function; this module only wires them together. Every sub-command takes ``--data-dir``
and ``--config`` (the ``common`` parent parser).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

# Module name for each sub-command group, in the order ``door --help`` lists them.
SUBCOMMAND_MODULES = (
    "door.cli.serve",
    "door.cli.local",
    "door.cli.user",
    "door.cli.notify",
    "door.cli.db",
    "door.cli.check",
    "door.cli.export",
    "door.cli.tournament",
    "door.cli.selfplay",
    "door.cli.rules",
    "door.cli.verify",
)


def common_parser() -> argparse.ArgumentParser:
    """Options every sub-command accepts."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--data-dir",
        default=None,
        help="where the SQLite file, SSH host key and logs live (default ./door-data)",
    )
    common.add_argument("--config", default=None, help="a TOML configuration file")
    return common


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="door",
        description="A BBS door server for Backgammon and Spectrangle played by turns.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    common = common_parser()
    for name in SUBCOMMAND_MODULES:
        module = importlib.import_module(name)
        module.register(sub, common)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``door``; returns the process exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    func = args.func
    try:
        status = func(args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # `door rules ... | head` closes the pipe early; that is not an error.
        sys.stderr.close()
        return 0
    return int(status or 0)
