"""Migration 0003 on a database that already has users and BBS identities: look keys are
backfilled (look-alikes that already exist do not break the upgrade), drop-file
identities are told apart, and the downgrade goes back."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.engine import Connection

from door.services.names import NameRules
from door.store.db import Database
from door.store.migrate import downgrade_connection, upgrade_connection
from tests.store import dbutil

NOW = datetime(2026, 12, 1, tzinfo=UTC).replace(tzinfo=None)


@pytest.fixture(params=["sqlite", "postgres"])
async def old_db(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Database]:
    """A database at revision 0002 with three users (two of them look alike) and two
    BBS identities, one of them a `door local` one (tag LOCAL)."""
    if request.param == "sqlite":
        database = Database(dbutil.sqlite_url(tmp_path / "old.sqlite3"))
        server = url = None
    else:
        server = request.getfixturevalue("pg_url")
        url = await dbutil.fresh_pg(server, None)
        database = Database(url)
    await database.run_sync(lambda c: upgrade_connection(c, "0002"))

    def fill(conn: Connection) -> None:
        for uid, name in ((1, "alice"), (2, "\u0430lice"), (3, "Bob")):
            conn.execute(
                text(
                    "INSERT INTO users (id, name, name_key, is_sysop, is_banned, is_bot, "
                    "settings, created_at) VALUES (:id, :name, :key, false, false, false, "
                    "'{}', :now)"
                ),
                {"id": uid, "name": name, "key": name.casefold(), "now": NOW},
            )
        for iid, tag in ((1, "LOCAL"), (2, "DOVE")):
            conn.execute(
                text(
                    "INSERT INTO bbs_identities (id, tag, alias, alias_key, user_id, created_at) "
                    "VALUES (:id, :tag, 'Bob', 'bob', 3, :now)"
                ),
                {"id": iid, "tag": tag, "now": NOW},
            )
        conn.commit()

    await database.run_sync(fill)
    yield database
    await database.dispose()
    if server is not None and url is not None:
        await dbutil.drop_pg(server, url)


def rows(sql: str) -> object:
    def read(conn: Connection) -> list[tuple[object, ...]]:
        return [tuple(r) for r in conn.execute(text(sql))]

    return read


async def test_look_keys_are_backfilled_and_the_older_look_alike_keeps_them(
    old_db: Database,
) -> None:
    await old_db.upgrade()
    rules = NameRules.load()
    got = await old_db.run_sync(rows("SELECT id, skeleton, skeleton_cased FROM users ORDER BY id"))
    alice, bob = rules.looks("alice"), rules.looks("Bob")
    assert got == [(1, *alice), (2, None, None), (3, *bob)]


async def test_a_look_alike_that_existed_before_keeps_its_name_and_login(
    old_db: Database,
) -> None:
    await old_db.upgrade()
    got = await old_db.run_sync(rows("SELECT name, is_pending FROM users WHERE id = 2"))
    assert got == [("\u0430lice", False)]


async def test_old_local_identities_become_drop_file_ones(old_db: Database) -> None:
    await old_db.upgrade()
    got = await old_db.run_sync(rows("SELECT tag, source FROM bbs_identities ORDER BY id"))
    assert got == [("LOCAL", "dropfile"), ("DOVE", "rlogin")]


async def test_the_downgrade_goes_back_to_0002_keeping_the_users(old_db: Database) -> None:
    await old_db.upgrade()
    await old_db.run_sync(lambda c: downgrade_connection(c, "0002"))
    assert await old_db.run_sync(rows("SELECT count(*) FROM users")) == [(3,)]
    assert await old_db.run_sync(rows("SELECT count(*) FROM bbs_identities")) == [(2,)]
    await old_db.upgrade()
