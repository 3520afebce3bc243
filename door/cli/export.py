"""``door export GAME``: a game's record, as the sysop sees it, on stdout or in a file.

``--format`` is ``mat`` (Jellyfish, what GNU Backgammon's ``import mat`` reads) or ``sgf``
(gnubg's own) for backgammon, ``txt`` for Spectrangle, ``json`` for either; the default is
``mat`` for backgammon and ``txt`` for Spectrangle. ``-o FILE`` writes the file instead
(``-`` is stdout). A game that is not there, or a format that does not fit it, is one
line on stderr and exit status 2. A running game exports as it stands.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from door.cli.db import load, open_database

if TYPE_CHECKING:
    from door.config import Config
    from door.services.export import ExportedRecord


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    from door.services.export import FORMATS

    parser = sub.add_parser(
        "export",
        parents=[common],
        help="write a game's record: .mat or .sgf (backgammon), text (Spectrangle), JSON",
    )
    parser.add_argument("game", metavar="GAME", help="the game's number")
    parser.add_argument(
        "--format", "-f", dest="fmt", choices=FORMATS, default=None,
        help="mat or sgf (backgammon), txt (Spectrangle), json (either); "
        "default mat for backgammon, txt for Spectrangle",
    )  # fmt: skip
    parser.add_argument(
        "-o", "--output", metavar="FILE", default=None,
        help="write the record to FILE (default: standard output)",
    )  # fmt: skip
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    game_id = parse_game(args.game)
    if game_id is None:
        print(f"door export: {args.game!r} is not a game number", file=sys.stderr)
        return 2
    config = load(args, "door export")
    if config is None:
        return 2
    from door.games.base import Refusal
    from door.store.health import DatabaseUnusableError

    try:
        exported = asyncio.run(export_record(config, game_id, args.fmt))
    except Refusal as exc:
        print(f"door export: {exc}", file=sys.stderr)
        return 2
    except DatabaseUnusableError as exc:
        print(f"door export: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # no database, no tables: one clear line
        print(f"door export: cannot read the database: {exc}", file=sys.stderr)
        return 2
    if args.output in (None, "-"):
        sys.stdout.write(exported.text)
        sys.stdout.flush()
        return 0
    try:
        Path(args.output).write_text(exported.text, encoding="utf-8")
    except OSError as exc:
        print(f"door export: cannot write {args.output}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    print(f"door export: game {game_id} written to {args.output} ({exported.fmt})",
          file=sys.stderr)  # fmt: skip
    return 0


def parse_game(text: str) -> int | None:
    """``12`` or ``#12`` as a game number; None if it is not one."""
    digits = text.strip().removeprefix("#")
    if not digits.isascii() or not digits.isdigit():
        return None
    number = int(digits)
    return number if number > 0 else None


async def export_record(config: Config, game_id: int, fmt: str | None) -> ExportedRecord:
    """Game ``game_id``'s record in ``fmt`` (None: the game's default) as a sysop sees it;
    ``RecordRefused`` says why not."""
    from door.games.registry import build_registry
    from door.services.clock import SystemClock
    from door.services.export import Exporter, RecordRefused, default_format, unknown_format
    from door.services.games import GameService, LobbyError
    from door.services.notify import LocalHub

    db = await open_database(config, upgrading=False)
    try:
        games = GameService(db, build_registry(), LocalHub(), SystemClock())
        exporter = Exporter(games, public_finished=config.games.public_finished)
        if fmt is None:
            try:
                info = (await games.get(game_id)).info
            except LobbyError:
                raise RecordRefused(f"there is no game {game_id}") from None
            fmt = default_format(info.kind)
        from door.services.export import FORMATS

        for known in FORMATS:
            if fmt == known:
                return await exporter.export(game_id, known, None, sysop=True)
        raise unknown_format(fmt)
    finally:
        await db.dispose()
