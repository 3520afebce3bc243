"""Game records out of door: Jellyfish ``.mat``, gnubg ``.sgf``, Spectrangle text, JSON.

:class:`Exporter` is the one way in (``door export``, the SSH ``export`` command, the web):
it decides who may read a game's record (:meth:`Exporter.may_read`, the one place that
rule lives), reads the game and its log in one go, and hands the log to the writer of
the format asked for. Every writer walks the log with :func:`door.games.replay.replay`,
the one replayer, so a record says exactly what the log says.

A running game exports as it stands ("up to now"). Every refusal is a
:class:`RecordRefused` whose message may be shown to the person who asked.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, get_args

from door.games import fairdice
from door.games.base import Refusal
from door.games.replay import ReplayError
from door.services.dice import NOT_PROVABLE
from door.services.games import GameEvent, GameInfo, GameService, LobbyError
from door.store.records import JSON

log = logging.getLogger(__name__)

RecordFormat = Literal["mat", "sgf", "txt", "json"]
FORMATS: tuple[RecordFormat, ...] = get_args(RecordFormat)

BACKGAMMON_FORMATS: tuple[RecordFormat, ...] = ("mat", "sgf", "json")
SPECTRANGLE_FORMATS: tuple[RecordFormat, ...] = ("txt", "json")

ExtraKeys = Callable[[GameInfo], Awaitable[Mapping[str, JSON]]]
"""Extra top-level keys for a game's record, given the game; the JSON record carries them
as keys, the text formats as comment lines. It is asked for running games too (records
"up to now"): what must stay secret until the end is its to leave out while the game is
not over. The default is :func:`dice_keys`."""


async def dice_keys(game: GameInfo) -> Mapping[str, JSON]:
    """The game's dice proof as record keys (docs/fair-dice.md): ``commitment_hex`` and
    ``words`` from the start, ``seed_hex`` once the game is over (null before); a game
    made before provable dice says so instead."""
    proof = game.dice
    if proof is None or not proof.provable:
        return {"dice": NOT_PROVABLE}
    return {
        "dice_scheme": fairdice.SCHEME,
        "commitment_hex": proof.commitment_hex,
        "words": list(proof.words),
        "seed_hex": proof.seed_hex,
    }


@dataclass(frozen=True)
class ExportedRecord:
    """A game's record in one format; ``filename`` is e.g. ``game12.mat``."""

    game_id: int
    fmt: RecordFormat
    filename: str
    text: str


class RecordRefused(Refusal):
    """A record that cannot be given: no such game (or not one this viewer may read), a
    format that does not fit the game. The message is fit for the person who asked."""


def default_format(kind: str) -> RecordFormat:
    """The format a game's record comes in unless another is asked for: ``mat`` for
    backgammon, ``txt`` for Spectrangle (and other games)."""
    return "mat" if kind == "backgammon" else "txt"


def formats_for(kind: str) -> tuple[RecordFormat, ...]:
    """The formats a game of ``kind`` exports to."""
    return BACKGAMMON_FORMATS if kind == "backgammon" else SPECTRANGLE_FORMATS


def unknown_format(fmt: str) -> RecordRefused:
    return RecordRefused(f"there is no record format {fmt!r}: use {', '.join(FORMATS)}")


def hidden(game_id: int) -> RecordRefused:
    """What a viewer who may not read a game is told: the same whether the game is not
    there or is private, so that a stranger cannot tell the two apart."""
    return RecordRefused(f"there is no game {game_id} whose record you may read")


class Exporter:
    """Records of the games of ``games``; ``public_finished`` is ``[games]
    public_finished`` (finished games' records open to anyone, else to their players and
    the sysops only). ``extra_keys`` adds top-level keys to every record (see
    :data:`ExtraKeys`; by default the dice proof, :func:`dice_keys`)."""

    def __init__(
        self,
        games: GameService,
        *,
        public_finished: bool,
        extra_keys: ExtraKeys | None = None,
    ) -> None:
        self.games = games
        self.public_finished = public_finished
        self.extra_keys = extra_keys if extra_keys is not None else dice_keys

    def may_read(self, game: GameInfo, viewer: int | None, *, sysop: bool = False) -> bool:
        """May ``viewer`` (a user id, None: someone not signed in) read ``game``'s record?

        Sysops and the game's players always (a named, invited player too). Anyone
        else: a running game, as any spectator may watch it; a finished or abandoned
        game when finished games are public; an open game while it has a seat anyone
        may take (a game waiting for named players only is theirs)."""
        if sysop:
            return True
        if viewer is not None and any(s.user_id == viewer for s in game.seats):
            return True
        if game.status == "active":
            return True
        if game.status in ("finished", "abandoned"):
            return self.public_finished
        return any(s.kind == "open" for s in game.seats)

    async def export(
        self, game_id: int, fmt: RecordFormat, viewer: int | None, *, sysop: bool = False
    ) -> ExportedRecord:
        """Game ``game_id``'s record in ``fmt`` as ``viewer`` may have it;
        :class:`RecordRefused` says why not."""
        if fmt not in FORMATS:
            raise unknown_format(str(fmt))
        try:
            info = (await self.games.get(game_id, viewer)).info
        except LobbyError as exc:
            if sysop:  # (also a game of a kind this server does not know)
                raise RecordRefused(str(exc)) from None
            raise hidden(game_id) from None
        if not self.may_read(info, viewer, sysop=sysop):
            raise hidden(game_id)
        if fmt not in formats_for(info.kind):
            title = self.games.rules_for(info.kind).title
            raise RecordRefused(f"{fmt} is a {_format_game(fmt)} format; game {game_id} is {title}")
        # the log as far as the game was read: "up to now" even while moves come in
        events = [e for e in await self.games.events(game_id) if e.seq <= info.last_seq]
        extra = dict(await self.extra_keys(info))
        mark = await self.games.core.tournament_mark(game_id)
        if mark is not None:  # a tournament game says so in its record
            extra["tournament"] = mark
        try:
            # replaying a long match is some milliseconds of the rules' work: not on the
            # event loop, which other sessions share (the rules are pure, so any thread)
            text = await asyncio.to_thread(self.render, info, events, fmt, extra)
        except ReplayError as exc:
            # a damaged log: said, not crashed on (door check finds and names it)
            log.warning("game %d's record could not be written: %s", game_id, exc)
            raise RecordRefused(
                f"game {game_id}'s log does not replay, so its record cannot be written; "
                "the sysop can look with door check"
            ) from None
        return ExportedRecord(game_id, fmt, f"game{game_id}.{fmt}", text)

    def render(
        self,
        info: GameInfo,
        events: Sequence[GameEvent],
        fmt: RecordFormat,
        extra: Mapping[str, JSON] | None = None,
    ) -> str:
        """The record text of ``info`` with its log ``events`` (no access check)."""
        rules = self.games.rules_for(info.kind)
        if fmt == "json":
            from door.services.export.jsonrec import json_text

            return json_text(rules, info, events, extra)
        if fmt == "mat":
            from door.services.export.mat import mat_text

            return mat_text(rules, info, events, extra)
        if fmt == "sgf":
            from door.services.export.sgf import sgf_text

            return sgf_text(rules, info, events, extra)
        from door.services.export.text import text_record

        return text_record(rules, info, events, extra)


def _format_game(fmt: RecordFormat) -> str:
    return "backgammon" if fmt in ("mat", "sgf") else "Spectrangle"


__all__ = [
    "FORMATS",
    "ExportedRecord",
    "Exporter",
    "ExtraKeys",
    "RecordFormat",
    "RecordRefused",
    "default_format",
    "formats_for",
    "unknown_format",
]
