"""Back-off: how long to wait before trying again something the database refused for a
reason that may pass (a lock held, the disk full, the server's connection lost).

Plain values, made by whoever retries (the database, the bot runner, the deadline
sweeper) and passed in: no module-level state.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Backoff:
    """Waits that double from ``first_s`` up to ``max_s``; ``tries`` attempts in all
    (0: the caller tries for as long as it likes)."""

    first_s: float = 0.1
    max_s: float = 2.0
    tries: int = 0

    def delay(self, failures: int) -> float:
        """The wait after the ``failures``-th failure in a row (1 for the first)."""
        return float(min(self.max_s, self.first_s * 2 ** max(0, min(failures - 1, 60))))

    def gives_up(self, failures: int) -> bool:
        """True once ``failures`` attempts have failed and no more are allowed."""
        return self.tries > 0 and failures >= self.tries


@dataclass(frozen=True)
class RetryPolicy:
    """How :meth:`door.store.db.Database.transact` (and ``run_read``) retry a whole
    transaction. A transaction is all or nothing, so running it again is safe.

    ``busy``: the database was locked this instant (SQLite ``BUSY``, a PostgreSQL
    serialization failure or deadlock): short waits, a few tries. ``failed``: it could
    not write (the disk full, an I/O error, the connection to the server lost): a person
    is waiting for the answer, so a handful of tries within about a second, then
    "the server could not save that — try again"; whoever acts on their own (bots, the
    deadline sweeper) keeps trying with a back-off of its own.
    """

    busy: Backoff = field(default_factory=lambda: Backoff(first_s=0.02, max_s=0.5, tries=6))
    failed: Backoff = field(default_factory=lambda: Backoff(first_s=0.1, max_s=0.4, tries=4))
