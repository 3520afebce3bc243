"""A change to an account never undoes another made at the same moment: every write to a
user reads the row it rewrites under a lock (on PostgreSQL ``SELECT … FOR NO KEY
UPDATE``; SQLite's write transactions are one at a time), so a ban committed while a
login is being noted stays a ban, and two keys added at once cannot both pass the limit."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Awaitable, Callable, Sequence

import pytest
from sqlalchemy import text

from door.services.accounts import AccountError, Accounts, User
from door.services.clock import FakeClock
from door.store.db import Database
from tests.services.test_accounts import ssh_key_line

BAN = "UPDATE users SET is_banned = true WHERE id = :id"


async def while_another_transaction(
    db: Database,
    statements: Sequence[str],
    params: dict[str, object],
    write: Callable[[], Awaitable[object]],
) -> None:
    """Run ``write`` while another connection has run ``statements`` and not committed;
    commit them once ``write`` has had time to read what it rewrites."""
    if db.is_sqlite:
        assert db.path is not None
        other = sqlite3.connect(db.path, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")
        for s in statements:
            other.execute(s.replace("true", "1"), params)
        task = asyncio.ensure_future(write())
        await asyncio.sleep(0.3)
        other.execute("COMMIT")
        other.close()
        await task
        return
    async with db.engine.connect() as conn:
        trans = await conn.begin()
        for s in statements:
            await conn.execute(text(s), params)
        task = asyncio.ensure_future(write())
        await asyncio.sleep(0.3)
        assert not task.done()  # it waits for the other's row lock
        await trans.commit()
    await task


async def test_a_ban_committed_during_a_login_is_kept(
    db: Database, accounts: Accounts, alice: User
) -> None:
    await while_another_transaction(
        db, [BAN], {"id": alice.id}, lambda: accounts.record_login(alice.id)
    )
    found = await accounts.get(alice.id)
    assert found.is_banned
    assert found.last_login_at is not None


async def test_a_ban_committed_during_a_settings_change_wins_over_it(
    db: Database, accounts: Accounts, alice: User
) -> None:
    async def change() -> None:
        with pytest.raises(AccountError, match="suspended"):
            await accounts.update_settings(alice.id, sound=False)

    await while_another_transaction(db, [BAN], {"id": alice.id}, change)
    assert (await accounts.get(alice.id)).is_banned


async def test_two_keys_added_at_once_cannot_pass_the_limit_together(
    db: Database, clock: FakeClock, alice: User
) -> None:
    accounts = Accounts(db, clock, max_keys=1)
    # the other add: the account's row locked as add_key locks it, then its key
    other_add = [
        "SELECT id FROM users WHERE id = :id"
        + ("" if db.is_sqlite else " FOR NO KEY UPDATE"),
        "INSERT INTO ssh_keys (user_id, fingerprint, key_type, key_data, comment, created_at)"
        " VALUES (:id, 'SHA256:other', 'ssh-ed25519', 'AAAA', '', '2026-01-01 12:00:00')",
    ]

    async def add() -> None:
        with pytest.raises(AccountError, match="the most an account may hold"):
            await accounts.add_key(alice.id, ssh_key_line(b"mine"))

    await while_another_transaction(db, other_add, {"id": alice.id}, add)
    assert [k.fingerprint for k in await accounts.list_keys(alice.id)] == ["SHA256:other"]
