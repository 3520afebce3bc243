"""Blocks: a player silences another (issue 17, point 5).

When ``user_id`` blocks ``blocked_id``, what the blocked user writes is not delivered to
the blocker, and the blocked user is not told. Game chat reads :meth:`Blocks.blocked`
when a game's screen opens (door/ui/screens/talk.py); mail and pages ask
:meth:`Blocks.blocks`, or ``repo.is_blocked`` inside their own transaction.
"""

from __future__ import annotations

from door.services.clock import Clock
from door.store.db import Database
from door.store.records import is_stored_id


class Blocks:
    """Who blocks whom, in the database (each call one short transaction)."""

    def __init__(self, db: Database, clock: Clock) -> None:
        self.db = db
        self.clock = clock

    async def block(self, user_id: int, blocked_id: int) -> None:
        """``user_id`` blocks ``blocked_id`` (blocking oneself or a blocked user again
        changes nothing)."""
        if user_id == blocked_id or not (is_stored_id(user_id) and is_stored_id(blocked_id)):
            return
        now = self.clock.now()
        await self.db.transact(lambda repo: repo.block(user_id, blocked_id, now))

    async def unblock(self, user_id: int, blocked_id: int) -> None:
        """``user_id`` no longer blocks ``blocked_id``."""
        if not (is_stored_id(user_id) and is_stored_id(blocked_id)):
            return
        await self.db.transact(lambda repo: repo.unblock(user_id, blocked_id))

    async def blocked(self, user_id: int) -> frozenset[int]:
        """The users ``user_id`` blocks."""
        if not is_stored_id(user_id):
            return frozenset()
        return await self.db.run_read(lambda repo: repo.blocked_by(user_id))

    async def blocks(self, recipient_id: int, sender_id: int) -> bool:
        """True when ``recipient_id`` blocks ``sender_id`` (what the sender writes is then
        not delivered to the recipient). Inside a transaction of its own, a service may
        ask ``repo.is_blocked(recipient_id, sender_id)`` instead."""
        if not (is_stored_id(recipient_id) and is_stored_id(sender_id)):
            return False
        return await self.db.run_read(lambda repo: repo.is_blocked(recipient_id, sender_id))
