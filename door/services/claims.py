"""Leases: work that exactly one process may do at a time, even work that lasts seconds
outside any transaction (a bot thinking about its move).

Several ``door serve`` processes may share one PostgreSQL database, and every ``door
local`` caller is a process of its own on the SQLite file; each runs a bot runner. Before
a process plays a bot's turn it takes the game's *lease*: a row in ``claims`` (migration
0005) naming it the holder until an expiry time, written by one atomic ``INSERT … ON
CONFLICT DO UPDATE … WHERE`` the old lease has expired
(:meth:`~door.store.repository.Repository.take_lease`), so of two processes asking at
once exactly one gets it. The holder renews the lease every third of its length while it
works and deletes it when done. A holder that dies (kill -9, a power cut, a lost network)
stops renewing; once the lease expires another process takes it over (its runner looks
for expired leases every half lease, see ``BotRunner``) and says so in the log.

Why a lease row and not a lock: the work happens between transactions, so a row lock
cannot cover it; a session-level advisory lock would (PostgreSQL drops it with the
connection), but SQLite has none, a half-open connection keeps it for as long as TCP
takes to notice (hours by default), and it needs a connection held for the whole think.
A lease costs two or three small writes per turn and bounds a take-over by its length.
Times are the *database's* clock, so processes on machines whose clocks differ still
agree on who holds what.

A holder that stalls for longer than the lease (a stopped process) can lose it while it
thinks; it checks :attr:`Lease.lost` before it submits, and the optimistic version check
(``GameService.submit`` with the version it saw) keeps even that late write from
counting twice.
"""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import socket

from door.store.db import Database, DatabaseFailure

log = logging.getLogger(__name__)

DEFAULT_LEASE_S = 30.0


def process_owner() -> str:
    """A name for this process that no other process shares, now or later (host, pid and
    a random part: a pid is reused after a restart)."""
    return f"{socket.gethostname()[:60]}:{os.getpid()}:{secrets.token_hex(4)}"


class Lease:
    """A lease this process holds on one item; renewed in the background until
    :meth:`release`."""

    def __init__(self, leases: Leases, item: int) -> None:
        self.leases = leases
        self.item = item
        self.lost = False
        """True once a renewal found that another process holds the lease now."""
        self._renewing = asyncio.create_task(self._renew(), name=f"door-lease-{item}")

    async def _renew(self) -> None:
        leases = self.leases
        kind, item, owner, ttl = leases.kind, self.item, leases.owner, leases.ttl_s
        while True:
            await asyncio.sleep(ttl / 3)
            try:
                held = await leases.db.transact(
                    lambda repo: repo.renew_lease(kind, item, owner, ttl)
                )
            except DatabaseFailure as exc:
                # the lease runs on; the work's own write will fail the same way
                log.warning("could not renew the claim on %s %d: %s", leases.kind, self.item, exc)
                continue
            if not held:
                self.lost = True
                log.warning(
                    "lost the claim on %s %d (it expired; another process has it)",
                    leases.kind, self.item,
                )  # fmt: skip
                return

    async def release(self) -> None:
        """Stop renewing and give the lease up (if the database cannot be reached, it
        simply expires)."""
        self._renewing.cancel()
        await asyncio.wait([self._renewing])  # (a cancel of the caller still reaches it)
        if self.lost:
            return
        kind, item, owner = self.leases.kind, self.item, self.leases.owner
        try:
            await self.leases.db.transact(lambda repo: repo.release_lease(kind, item, owner))
        except DatabaseFailure as exc:
            log.warning("could not release the claim on %s %d (it will expire): %s",
                        kind, item, exc)  # fmt: skip
        except Exception:  # released from a finally: must not hide what went wrong there
            log.exception("could not release the claim on %s %d", kind, item)


class Leases:
    """This process's leases on the items of one ``kind`` (e.g. ``bot-turn``: game ids)."""

    def __init__(
        self,
        db: Database,
        kind: str,
        *,
        owner: str | None = None,
        ttl_s: float = DEFAULT_LEASE_S,
    ) -> None:
        if ttl_s <= 0:
            raise ValueError("a lease must last a while")
        self.db = db
        self.kind = kind
        self.owner = owner if owner is not None else process_owner()
        self.ttl_s = ttl_s
        self.taken = 0
        """Leases this process took (take-overs included)."""
        self.refused = 0
        """Leases this process asked for while another process held them."""

    async def take(self, item: int) -> Lease | None:
        """The lease on ``item``, or None while another process holds it (unexpired).
        :class:`~door.store.db.DatabaseFailure` if the database cannot say."""
        kind, owner, ttl = self.kind, self.owner, self.ttl_s
        got = await self.db.transact(lambda repo: repo.take_lease(kind, item, owner, ttl))
        if not got.taken:
            self.refused += 1
            if got.holder is not None:
                log.debug(
                    "%s %d is claimed by %s for %.1f s more", kind, item, *got.holder
                )
            return None
        self.taken += 1
        if got.holder is not None and got.holder[0] != owner:
            log.warning(
                "took over %s %d from %s, whose claim expired %.1f s ago",
                kind, item, got.holder[0], -got.holder[1],
            )  # fmt: skip
        return Lease(self, item)

    async def expired(self) -> list[int]:
        """Items whose lease expired without being released: their holder died."""
        kind = self.kind
        return await self.db.run_read(lambda repo: repo.expired_leases(kind))
