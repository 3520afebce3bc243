"""The commands a player may send on the ssh command line: ``ssh alice@host export 12 mat``.

:class:`RemoteCommands` reads one command line (shell-like words, at most
:data:`MAX_LINE` characters) for a logged-in account and answers with a :class:`Reply`:
bytes for stdout, a one-line message for stderr, and an exit status —

- ``0``: done (``export`` wrote the record; ``help`` the list of commands);
- ``1``: the command was understood but could not be done: no such game or not one the
  account may read (the two are told apart for nobody but a sysop, so a stranger learns
  nothing of private games), a format that does not fit the game, the account
  suspended or waiting for approval, the database out of reach;
- ``2``: not a command or arguments door knows (as a shell's usage errors).

Who may read a record is :meth:`Exporter.may_read`'s to decide, never this module's.
"""

from __future__ import annotations

import logging
import shlex
from dataclasses import dataclass

from door.games.base import Refusal
from door.services.accounts import AccountError, Accounts, User
from door.services.export import (
    FORMATS,
    Exporter,
    RecordFormat,
    RecordRefused,
    default_format,
    hidden,
)
from door.services.games import GameService, LobbyError
from door.services.signups import PENDING_MESSAGE

log = logging.getLogger(__name__)

MAX_LINE = 512
"""The longest command line read (characters)."""
MAX_SHOWN = 40
"""The most characters of a person's own word echoed back in an error."""
MAX_GAME_ID = 2**63 - 1

OK = 0
FAILED = 1
USAGE = 2

HELP = """\
Commands (ssh -p PORT you@host COMMAND):
  export GAME [FORMAT]   the record of game number GAME on stdout:
                         backgammon as mat (the default), sgf or json;
                         Spectrangle as txt (the default) or json.
                         (also: export GAME --format FORMAT)
  help                   this list
Exit status: 0 done; 1 not done (no such game you may read, a format that does
not fit the game, the server busy); 2 a command or argument door does not know.
You may export your own games, and others' that this server lets anyone read.
"""


@dataclass(frozen=True)
class Reply:
    """A command's answer: ``stdout`` as it is sent, ``stderr`` a message (or empty)."""

    stdout: bytes = b""
    stderr: str = ""
    status: int = OK


class UsageError(Exception):
    """A command line door does not understand; the message says what to type."""


@dataclass(frozen=True)
class ExportCommand:
    """``export GAME [FORMAT]``: ``fmt`` None means the game's own default."""

    game_id: int
    fmt: RecordFormat | None


@dataclass(frozen=True)
class HelpCommand:
    """``help``."""


Command = ExportCommand | HelpCommand


def shown(word: str) -> str:
    """``word`` safe to echo in an error: control characters dropped, cut short, quoted."""
    clean = "".join(ch for ch in word if ch.isprintable())
    if len(clean) > MAX_SHOWN:
        clean = clean[: MAX_SHOWN - 1] + "…"
    return repr(clean)


def parse_command(line: str) -> Command:
    """The command on ``line``; :class:`UsageError` says what is wrong with it."""
    if len(line) > MAX_LINE:
        raise UsageError(f"the command is too long (at most {MAX_LINE} characters)")
    try:
        words = shlex.split(line)
    except ValueError as exc:  # an unclosed quote, a lone backslash
        raise UsageError(f"cannot read the command: {exc}") from None
    if not words:
        raise UsageError("no command given; `help` lists them")
    name, args = words[0].lower(), words[1:]
    if name in ("help", "--help", "-h", "?"):
        if args:
            raise UsageError("help takes no arguments")
        return HelpCommand()
    if name == "export":
        return _parse_export(args)
    raise UsageError(f"unknown command {shown(words[0])}; `help` lists the commands")


def _parse_export(args: list[str]) -> ExportCommand:
    positional: list[str] = []
    fmt: str | None = None
    rest = iter(args)
    for arg in rest:
        if arg in ("--format", "-f"):
            value = next(rest, None)
            if value is None:
                raise UsageError(f"{arg} needs a format: {', '.join(FORMATS)}")
            fmt = _one_format(fmt, value)
        elif arg.startswith("--format="):
            fmt = _one_format(fmt, arg.partition("=")[2])
        elif arg.startswith("-") and not arg[1:].isdigit():
            raise UsageError(f"export has no option {shown(arg)}; usage: export GAME [FORMAT]")
        else:
            positional.append(arg)
    if not positional:
        raise UsageError("usage: export GAME [FORMAT] (GAME is a game number, like 12)")
    if len(positional) > 2:
        raise UsageError("too many arguments; usage: export GAME [FORMAT]")
    if len(positional) == 2:
        fmt = _one_format(fmt, positional[1])
    return ExportCommand(parse_game_id(positional[0]), _checked_format(fmt))


def _one_format(already: str | None, value: str) -> str:
    if already is not None:
        raise UsageError("give the format once")
    return value


def _checked_format(fmt: str | None) -> RecordFormat | None:
    if fmt is None:
        return None
    low = fmt.lower().lstrip(".")
    if low not in FORMATS:
        raise UsageError(f"there is no record format {shown(fmt)}: use {', '.join(FORMATS)}")
    return low


def parse_game_id(word: str) -> int:
    """``12`` or ``#12`` → 12; :class:`UsageError` for anything else."""
    digits = word.removeprefix("#")
    if not (digits.isascii() and digits.isdigit()) or len(digits) > 19:
        raise UsageError(f"GAME is a game number, like 12, not {shown(word)}")
    game_id = int(digits)
    if not 1 <= game_id <= MAX_GAME_ID:
        raise UsageError(f"there is no game {game_id}: game numbers start at 1")
    return game_id


class RemoteCommands:
    """Runs the ssh command-line commands for logged-in accounts (see the module doc)."""

    def __init__(self, accounts: Accounts, games: GameService, exporter: Exporter) -> None:
        self.accounts = accounts
        self.games = games
        self.exporter = exporter

    async def run(self, user_id: int, line: str) -> Reply:
        """Answer ``line`` sent by the account ``user_id``."""
        try:
            command = parse_command(line)
        except UsageError as exc:
            return Reply(stderr=f"door: {exc}", status=USAGE)
        try:
            user = await self._acting(user_id)
            if isinstance(command, HelpCommand):
                return Reply(stdout=HELP.encode("utf-8"))
            return await self._export(user, command)
        except Refusal as exc:  # RecordRefused, a database out of reach: said, not raised
            return Reply(stderr=f"door: {exc}", status=FAILED)

    async def _acting(self, user_id: int) -> User:
        """The account as it is now (a ban or a lost approval since login counts)."""
        try:
            user = await self.accounts.get(user_id)
        except AccountError:
            raise Refusal("your account is not there any more") from None
        if user.is_banned:
            raise Refusal("your account is suspended; ask the sysop")
        if user.is_pending:
            raise Refusal(PENDING_MESSAGE)
        return user

    async def _export(self, user: User, command: ExportCommand) -> Reply:
        fmt = command.fmt
        if fmt is None:
            fmt = default_format(await self._readable_kind(user, command.game_id))
        record = await self.exporter.export(
            command.game_id, fmt, user.id, sysop=user.is_sysop
        )
        log.info("%s exported game %d as %s over ssh", user.name, record.game_id, record.fmt)
        return Reply(stdout=record.text.encode("utf-8"))

    async def _readable_kind(self, user: User, game_id: int) -> str:
        """The game's kind, if ``user`` may read its record; else the refusal a stranger
        gets for a game that is not there (they must not learn even its kind)."""
        try:
            info = (await self.games.get(game_id, user.id)).info
        except LobbyError:
            info = None
        if info is None or not self.exporter.may_read(info, user.id, sysop=user.is_sysop):
            if info is None and user.is_sysop:
                raise RecordRefused(f"there is no game {game_id}")
            raise hidden(game_id)  # the Exporter's own words for it, to the letter
        return info.kind
