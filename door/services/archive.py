"""The archive: finished games, newest first, searched by player, game and date.

A search is one line a BBS caller types (:func:`parse_search`): words are players' names
(one or two; a name with spaces goes in double quotes), a game's name (``backgammon``,
``spectrangle``) keeps to that game, and a date keeps to the games finished then: a day
``2026-11-30``, a month ``2026-11``, or a range ``2026-11-01..2026-11-30`` (either end may
be left open, ``2026-11-01..``). Dates are days in UTC. A line that cannot be read is
refused with :class:`ArchiveSearchError`, which says why.

``[games] public_finished`` (default true) decides who sees what: when it is false a
player's archive holds their own games only (a sysop's holds every game). The rule is
part of the database query (the viewer is one more player every listed game must have),
so a private game is never read for someone who may not see it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import TYPE_CHECKING

from door.games.base import Refusal
from door.services.accounts import name_key
from door.services.games.model import GameInfo
from door.store.records import clamp_count, is_stored_id
from door.store.repository import Repository

if TYPE_CHECKING:
    from door.services.games import GameService

MAX_NAMES = 2
"""Players one search may name."""
EARLIEST = datetime(1, 1, 1, tzinfo=UTC)
LATEST = datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC)
"""The span searched when no date is given (every game)."""
SEARCH_HELP = (
    "one or two names, a game (backgammon, spectrangle), a day 2026-11-30, "
    "a month 2026-11 or days 2026-11-01..2026-11-30"
)
"""What a search may hold, in a line fit for a hint."""
DATE_FORMS = "write a day as 2026-11-30, a month as 2026-11, days as 2026-11-01..2026-11-30"

_TOKEN = re.compile(r'"([^"]*)"|(\S+)')
_DAY = re.compile(r"(\d{4})-(\d{2})-(\d{2})")
_MONTH = re.compile(r"(\d{4})-(\d{2})")
_DATE_LIKE = re.compile(r"[\d./-]*\d[\d./-]*")


class ArchiveSearchError(Refusal):
    """A search line that cannot be read (the message says why and how to write it), or
    that names nobody known."""


@dataclass(frozen=True)
class ArchiveSearch:
    """What to look for. ``names``: players every game must have had (as typed);
    ``kind``: one kind of game; ``first``/``last``: the days (UTC, both included) the
    game finished between (None: open); ``text``: the line as typed (empty: every game)."""

    names: tuple[str, ...] = ()
    kind: str | None = None
    first: date | None = None
    last: date | None = None
    text: str = ""

    @property
    def is_everything(self) -> bool:
        return not self.names and self.kind is None and self.first is None and self.last is None

    def span(self) -> tuple[datetime, datetime]:
        """``(since, until)``: a game matches when ``since <= finished_at < until``."""
        since = EARLIEST if self.first is None else datetime.combine(self.first, time(), UTC)
        if self.last is None or self.last == date.max:
            return since, LATEST
        return since, datetime.combine(self.last + timedelta(days=1), time(), UTC)


def _day(text: str, *, end: bool) -> date:
    """A day or a month (its first day, or with ``end`` its last); ValueError if neither."""
    m = _DAY.fullmatch(text)
    if m:
        return date(int(m[1]), int(m[2]), int(m[3]))
    m = _MONTH.fullmatch(text)
    if m:
        first = date(int(m[1]), int(m[2]), 1)
        if not end:
            return first
        if first.month == 12:
            return date(first.year, 12, 31)
        return date(first.year, first.month + 1, 1) - timedelta(days=1)
    raise ValueError(text)


def parse_dates(text: str) -> tuple[date | None, date | None]:
    """A day, a month or a range of either (``A..B``, one end may be open) as the first
    and last day it covers; :class:`ArchiveSearchError` with the reason otherwise."""
    start, dots, stop = text.partition("..")
    if dots and not (start or stop):
        raise ArchiveSearchError(f"'{text}' gives no date: {DATE_FORMS}.")
    try:
        first = _day(start, end=False) if start else None
        last = _day(stop if dots else start, end=True) if (stop or not dots) else None
    except ValueError:
        raise ArchiveSearchError(f"'{text}' is not a date: {DATE_FORMS}.") from None
    if first is not None and last is not None and last < first:
        raise ArchiveSearchError(f"'{text}' ends before it begins: put the earlier day first.")
    return first, last


def parse_search(text: str, kinds: Sequence[tuple[str, str]]) -> ArchiveSearch:
    """Read a search line (see the module docstring); ``kinds`` are (kind, title) of the
    games there are. :class:`ArchiveSearchError` says what is wrong with a line."""
    text = " ".join(text.split())
    if text.count('"') % 2:
        raise ArchiveSearchError('A quote is not closed: put a name with spaces in "quotes".')
    by_word: dict[str, str] = {}
    for kind, title in kinds:
        by_word[kind.casefold()] = kind
        by_word[title.casefold()] = kind
    names: list[str] = []
    kind_found: str | None = None
    dates: tuple[date | None, date | None] | None = None
    for m in _TOKEN.finditer(text):
        quoted, word = m[1], m[2]
        if quoted is not None:
            name = " ".join(quoted.split())
            if not name:
                raise ArchiveSearchError('"" names nobody: put a name between the quotes.')
            names.append(name)
            continue
        if word.casefold() in by_word:
            found = by_word[word.casefold()]
            if kind_found is not None and kind_found != found:
                raise ArchiveSearchError("Search one game at a time: name only one of them.")
            kind_found = found
        elif ".." in word or _DATE_LIKE.fullmatch(word):
            if dates is not None:
                raise ArchiveSearchError(f"Give one date or one range, not two: {DATE_FORMS}.")
            dates = parse_dates(word)
        else:
            names.append(word)
    unique = list(dict.fromkeys(names))
    if len({name_key(n) for n in unique}) > MAX_NAMES:
        raise ArchiveSearchError(
            f"Name at most {MAX_NAMES} players ({len(unique)} given: {', '.join(unique)})."
        )
    first, last = dates if dates is not None else (None, None)
    return ArchiveSearch(tuple(unique), kind_found, first, last, text)


@dataclass(frozen=True)
class ArchivedGame:
    """A finished game as the archive lists it: the game, and when it finished."""

    info: GameInfo
    finished_at: datetime


@dataclass(frozen=True)
class ArchivePage:
    """One page of a search: its games (newest first), how many match in all, where the
    page starts, and ``private``: only the viewer's own games could be listed."""

    games: list[ArchivedGame]
    total: int
    offset: int
    private: bool


class Archive:
    """Finished games for the archive screen (see the module docstring). ``public``:
    ``[games] public_finished``."""

    def __init__(self, games: GameService, *, public: bool = True) -> None:
        self.games = games
        self.public = public

    def parse(self, text: str) -> ArchiveSearch:
        """:func:`parse_search` with this server's games."""
        return parse_search(text, self.games.kinds())

    def _sees_all(self, repo: Repository, viewer_id: int | None) -> bool:
        if self.public:
            return True
        user = repo.user(viewer_id) if viewer_id is not None and is_stored_id(viewer_id) else None
        return user is not None and user.is_sysop

    async def find(
        self, search: ArchiveSearch, viewer_id: int | None, offset: int = 0, limit: int = 20
    ) -> ArchivePage:
        """The page of finished games matching ``search`` that ``viewer_id`` may see,
        from ``offset``; :class:`ArchiveSearchError` for a name nobody has."""
        offset = clamp_count(offset)
        limit = max(1, min(100, int(limit)))
        since, until = search.span()
        core = self.games.core

        def read(repo: Repository) -> ArchivePage:
            users: list[int] = []
            for name in search.names:
                user = repo.user_by_key(name_key(name))
                if user is None:
                    raise ArchiveSearchError(f"Nobody here is called '{name}'.")
                users.append(user.id)
            private = not self._sees_all(repo, viewer_id)
            if private:
                if viewer_id is None or not is_stored_id(viewer_id):
                    return ArchivePage([], 0, offset, True)
                users.append(viewer_id)
            rows, total = repo.archive_page(users, search.kind, since, until, offset, limit)
            infos = core.infos(repo, rows)
            listed = [
                ArchivedGame(info, row.finished_at or row.updated_at)
                for info, row in zip(infos, rows, strict=True)
            ]
            return ArchivePage(listed, total, offset, private)

        return await core.db.run_read(read)

    async def open(self, game_id: int, viewer_id: int | None) -> GameInfo:
        """The finished game ``game_id`` if ``viewer_id`` may open it from the archive; a
        :class:`~door.games.base.Refusal` that says why not otherwise."""
        if not is_stored_id(game_id):
            raise Refusal(f"There is no game #{game_id}.")
        core = self.games.core

        def read(repo: Repository) -> GameInfo:
            game, seats = repo.game_with_seats(game_id)
            if game is None:
                raise Refusal(f"There is no game #{game_id}.")
            if game.status != "finished":
                raise Refusal(f"Game #{game_id} is not finished: the archive keeps finished games.")
            if not self._sees_all(repo, viewer_id) and not any(
                s.user_id == viewer_id for s in seats if viewer_id is not None
            ):
                raise Refusal(f"Game #{game_id} is private: only its players may open it.")
            return core.info(game, seats)

        return await core.db.run_read(read)
