"""Blocks: who blocks whom, kept in the database (SQLite and PostgreSQL)."""

from __future__ import annotations

from door.services.accounts import Accounts
from door.services.blocks import Blocks
from door.services.clock import FakeClock
from door.store.db import Database
from tests.services.conftest import db, pg_template, sqlite_template  # noqa: F401


async def two_users(db: Database) -> tuple[Blocks, int, int, int]:
    accounts = Accounts(db, FakeClock())
    a = await accounts.register("Ann", "ann-pw-1")
    b = await accounts.register("Ben", "ben-pw-1")
    c = await accounts.register("Cat", "cat-pw-1")
    return Blocks(db, FakeClock()), a.id, b.id, c.id


async def test_a_block_is_one_way(db: Database) -> None:
    blocks, ann, ben, _ = await two_users(db)
    await blocks.block(ann, ben)
    assert await blocks.blocks(ann, ben)
    assert not await blocks.blocks(ben, ann)
    assert await blocks.blocked(ann) == frozenset({ben})
    assert await blocks.blocked(ben) == frozenset()


async def test_blocking_twice_is_one_block_and_unblock_ends_it(db: Database) -> None:
    blocks, ann, ben, cat = await two_users(db)
    await blocks.block(ann, ben)
    await blocks.block(ann, ben)
    await blocks.block(ann, cat)
    await blocks.unblock(ann, ben)
    assert await blocks.blocked(ann) == frozenset({cat})
    assert not await blocks.blocks(ann, ben)


async def test_nobody_blocks_themselves_and_bad_ids_are_no_one(db: Database) -> None:
    blocks, ann, _, _ = await two_users(db)
    await blocks.block(ann, ann)
    await blocks.block(ann, -3)
    assert await blocks.blocked(ann) == frozenset()
    assert not await blocks.blocks(10**30, ann)
