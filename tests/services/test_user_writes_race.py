"""A change to an account never undoes another made at the same moment: every write to a
user reads the row it rewrites under a lock (on PostgreSQL ``SELECT … FOR UPDATE``;
SQLite's write transactions are one at a time), so a ban committed while a login is
being noted stays a ban."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Awaitable, Callable

from sqlalchemy import text

from door.services.accounts import Accounts, User
from door.store.db import Database

BAN = "UPDATE users SET is_banned = true WHERE id = :id"


async def while_another_transaction_bans(
    db: Database, user: User, write: Callable[[], Awaitable[object]]
) -> None:
    """Run ``write`` while another connection has banned ``user`` and not yet committed;
    commit the ban once ``write`` has had time to read the row."""
    if db.is_sqlite:
        assert db.path is not None
        other = sqlite3.connect(db.path, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")
        other.execute(BAN.replace(":id", "?").replace("true", "1"), (user.id,))
        task = asyncio.ensure_future(write())
        await asyncio.sleep(0.3)
        other.execute("COMMIT")
        other.close()
        await task
        return
    async with db.engine.connect() as conn:
        trans = await conn.begin()
        await conn.execute(text(BAN), {"id": user.id})
        task = asyncio.ensure_future(write())
        await asyncio.sleep(0.3)
        assert not task.done()  # it waits for the ban's row lock
        await trans.commit()
    await task


async def test_a_ban_committed_during_a_login_is_kept(
    db: Database, accounts: Accounts, alice: User
) -> None:
    await while_another_transaction_bans(db, alice, lambda: accounts.record_login(alice.id))
    found = await accounts.get(alice.id)
    assert found.is_banned
    assert found.last_login_at is not None


async def test_a_ban_committed_during_a_settings_change_wins_over_it(
    db: Database, accounts: Accounts, alice: User
) -> None:
    async def change() -> None:
        try:
            await accounts.update_settings(alice.id, sound=False)
        except Exception as exc:  # refused: by then the account was banned
            assert "suspended" in str(exc)

    await while_another_transaction_bans(db, alice, change)
    assert (await accounts.get(alice.id)).is_banned
