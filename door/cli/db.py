"""``door db``: ``upgrade`` the schema, ``backup PATH`` the SQLite file while it is in use."""

from __future__ import annotations

import argparse
import asyncio
import sqlite3
import sys
from pathlib import Path
from typing import Any

from door.config import Config, load_config
from door.store.db import Database
from door.store.files import create_private_file, make_private_dir


def place_options() -> argparse.ArgumentParser:
    """``--data-dir`` and ``--config`` for a command group and its actions alike.

    The defaults are suppressed so that ``door db --data-dir X upgrade`` and
    ``door db upgrade --data-dir X`` both work (argparse would otherwise let the action's
    default overwrite the group's value); read them with :func:`load`.
    """
    options = argparse.ArgumentParser(add_help=False)
    options.add_argument(
        "--data-dir",
        default=argparse.SUPPRESS,
        help="where the SQLite file, SSH host key and logs live (default ./door-data)",
    )
    options.add_argument("--config", default=argparse.SUPPRESS, help="a TOML configuration file")
    return options


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    common = place_options()
    parser = sub.add_parser("db", parents=[common], help="upgrade or back up the database")
    actions = parser.add_subparsers(dest="db_action", metavar="ACTION")
    actions.required = True
    up = actions.add_parser(
        "upgrade",
        parents=[common],
        help="bring the database schema up to date (door serve also does this itself)",
    )
    up.set_defaults(func=run_upgrade)
    backup = actions.add_parser(
        "backup",
        parents=[common],
        help="copy the SQLite database to PATH, safely, even while the server runs",
    )
    backup.add_argument("path", metavar="PATH", help="the backup file to write (must not exist)")
    backup.set_defaults(func=run_backup)


def load(args: argparse.Namespace, command: str) -> Config | None:
    """The configuration for a CLI command, or None after printing why it is unusable."""
    try:
        return load_config(getattr(args, "config", None), getattr(args, "data_dir", None))
    except (ValueError, OSError) as exc:
        print(f"{command}: {exc}", file=sys.stderr)
        return None


def database_for(config: Config) -> Database:
    return Database(config.database_url, busy_timeout_ms=config.database.busy_timeout_ms)


async def open_database(config: Config, *, upgrading: bool | None = None) -> Database:
    """The configured database, looked at first (``Database.verify``: SQLite's
    ``quick_check``, the schema); ``DatabaseUnusableError`` says why it cannot be used.
    ``upgrading``: whether the command will upgrade it (default: ``auto_upgrade``)."""
    db = database_for(config)
    try:
        await db.verify(
            upgrading=config.database.auto_upgrade if upgrading is None else upgrading
        )
    except BaseException:
        await db.dispose()
        raise
    return db


def sqlite_path(config: Config) -> Path | None:
    """The SQLite file of this configuration, or None for another database."""
    url = config.database_url
    for prefix in ("sqlite+aiosqlite:///", "sqlite:///"):  # Database reads both alike
        if url.startswith(prefix):
            return Path(url[len(prefix) :].split("?", 1)[0])
    return None


def run_upgrade(args: argparse.Namespace) -> int:
    config = load(args, "door db upgrade")
    if config is None:
        return 2

    async def go() -> None:
        db = await open_database(config, upgrading=True)
        try:
            await db.upgrade()
        finally:
            await db.dispose()

    try:
        asyncio.run(go())
    except Exception as exc:  # a CLI reports any failure in one line
        print(f"door db upgrade: {exc}", file=sys.stderr)
        return 1
    print(f"door db upgrade: the database is up to date ({_where(config)})")
    return 0


def _where(config: Config) -> str:
    path = sqlite_path(config)
    return str(path) if path is not None else "the configured database"


def run_backup(args: argparse.Namespace) -> int:
    config = load(args, "door db backup")
    if config is None:
        return 2
    source = sqlite_path(config)
    if source is None:
        print(
            "door db backup: the database is not SQLite; use your database's own tools "
            "(for PostgreSQL: pg_dump)",
            file=sys.stderr,
        )
        return 2
    target = Path(args.path)
    if not source.is_file():
        print(f"door db backup: there is no database at {source}", file=sys.stderr)
        return 1
    try:
        pages = backup_sqlite(source, target)
    except FileExistsError:
        print(f"door db backup: {target} exists already; choose a new file", file=sys.stderr)
        return 1
    except (sqlite3.Error, OSError) as exc:
        target.unlink(missing_ok=True)
        print(f"door db backup: {exc}", file=sys.stderr)
        return 1
    print(f"door db backup: copied {source} to {target} ({pages} pages)")
    return 0


def backup_sqlite(source: Path, target: Path) -> int:
    """Copy ``source`` to ``target`` with SQLite's online backup API; returns the page count.

    Writers may keep going meanwhile: the copy is one consistent snapshot. ``target``
    must not exist (``FileExistsError``); it is made 0600, as the database is (it holds
    the same password hashes), in a folder made 0700 if it is made here.
    """
    make_private_dir(target.parent)
    if not create_private_file(target):
        raise FileExistsError(target)
    src = sqlite3.connect(f"file:{source}?mode=ro", uri=True, timeout=30)
    try:
        dst = sqlite3.connect(target)
        try:
            src.backup(dst, pages=256, sleep=0.005)
            pages = int(dst.execute("PRAGMA page_count").fetchone()[0])
            # The copy is a standalone file: no WAL side files needed to read it.
            dst.execute("PRAGMA journal_mode=DELETE")
        finally:
            dst.close()
    finally:
        src.close()
    return pages
