"""The one cache of the game service, :class:`GameCache`: each game as this process last
read or wrote it, with its rules state, keyed by (game, version, snapshot text).

What a game holds at one version never changes (every write of a ``games`` row moves its
version, and its seats change only together with it), so an entry can never be stale.
Only the seats' last-seen marks move without a new version; a move on a cached game
reads the mover's back with its write (the only one its answer shows). A move at the
version its entry has skips reading the game at all: the versioned write (``WHERE
version = … AND snapshot = …``) proves the entry was the game, or writes nothing, in
which case the move reads the game and runs again. Reading a position ID back costs more
than the database round trip, so every other read of a game takes its rules state from
the entry too when version and snapshot match.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from door.services.games.model import AnyRules, load_state
from door.store.records import GameRecord, SeatRecord

GAME_CACHE_SIZE = 4096


@dataclass(frozen=True)
class Loaded:
    """A game record, its seats and its rules state, as one transaction sees them."""

    game: GameRecord
    seats: tuple[SeatRecord, ...]
    rules: AnyRules
    state: Any
    confirmed: bool = True
    """False for a game taken from the cache whose version the database has not yet
    confirmed (its seats' last-seen marks may be behind)."""

    def seat(self, number: int) -> SeatRecord:
        return next(s for s in self.seats if s.seat == number)


class GameCache:
    """Games as this process last read or wrote them, by (game, version, snapshot text),
    the least recently used forgotten first (see the module docstring).

    Built once per process by :func:`door.services.build_services`. Used inside
    transactions, which on SQLite run on the event loop's thread or on the database
    thread (hence the lock).
    """

    def __init__(self, size: int = GAME_CACHE_SIZE) -> None:
        self._size = size
        self._games: OrderedDict[int, Loaded] = OrderedDict()
        self._lock = threading.Lock()

    def at(self, game_id: int, version: int) -> Loaded | None:
        """The game at ``version``, if this process holds it (not yet confirmed by the
        database: the versioned write does that)."""
        with self._lock:
            hit = self._games.get(game_id)
        if hit is None or hit.game.version != version:
            return None
        return hit

    def state(self, rules: AnyRules, game: GameRecord) -> Any:
        """The rules state of ``game`` as read from the database."""
        with self._lock:
            hit = self._games.get(game.id)
        same = hit is not None and hit.game.version == game.version
        if same and hit is not None and hit.game.snapshot == game.snapshot:
            return hit.state
        return load_state(rules, game.snapshot, game.options)

    def keep(self, loaded: Loaded) -> None:
        """Remember ``loaded`` (made with ``confirmed=False``) as the game at its version."""
        with self._lock:
            self._games[loaded.game.id] = loaded
            self._games.move_to_end(loaded.game.id)
            while len(self._games) > self._size:
                self._games.popitem(last=False)

    def forget(self, game_id: int) -> None:
        with self._lock:
            self._games.pop(game_id, None)
