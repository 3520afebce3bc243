"""A database door cannot use is refused at start-up with a clear message and a non-zero
status, never served and never a traceback (issue 14, item 10): damaged pages
(``quick_check``), a file that is not a database, a folder in its place, an unreadable
file, a schema from a newer door, an unreachable PostgreSQL server."""

from __future__ import annotations

import asyncio
import importlib
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from door.cli import main
from door.config import Config, GamesConfig
from door.services import build_services
from door.store.db import Database
from tests.store import dbutil

ROOT = Path(__file__).resolve().parents[2]
SERVE_TIMEOUT_S = 30.0
PRELOAD = ("ctypes", "resource", "door.app", "door.cli.serve", "door.net.rlogin", "door.net.ssh",
           "door.net.telnet", "door.services", "door.store.db", "door.store.health",
           "door.store.migrate", "door.runtime")  # fmt: skip


def serve(data: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    """``door serve`` with no listeners (it would serve until stopped): a refusal ends it."""
    return subprocess.run(
        [sys.executable, "-m", "door", "serve", "--data-dir", str(data),
         "--telnet-port", "0", "--ssh-port", "0", *extra],
        capture_output=True, text=True, timeout=SERVE_TIMEOUT_S, cwd=data.parent,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
    )  # fmt: skip


def filled_database(data: Path) -> Path:
    """A migrated database with enough rows (users, with their hashes) to span pages."""
    path = data / "door.sqlite3"
    assert main(["db", "upgrade", "--data-dir", str(data)]) == 0
    conn = sqlite3.connect(path)
    with conn:
        conn.executemany(
            "INSERT INTO users (name, name_key, password_hash, is_sysop, is_banned, is_bot,"
            " created_at, settings) VALUES (?, ?, ?, 0, 0, 0, '2026-01-01 00:00:00', '{}')",
            [(f"user{i}", f"user{i}", "scrypt$" + "x" * 120) for i in range(2000)],
        )
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    assert path.stat().st_size > 64 * 1024
    return path


def scribble_middle(path: Path, size: int = 8192, seed: int = 14) -> None:
    data = bytearray(path.read_bytes())
    start = len(data) // 2
    data[start : start + size] = random.Random(seed).randbytes(size)
    path.write_bytes(bytes(data))


def assert_refused(result: subprocess.CompletedProcess[str], *words: str) -> None:
    assert result.returncode != 0, result.stdout
    assert "Traceback" not in result.stderr, result.stderr
    assert "door: serving" not in result.stdout
    for word in words:
        assert word in result.stderr, result.stderr


def test_serve_refuses_a_database_with_damaged_pages_and_says_how_to_restore(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    path = filled_database(data)
    scribble_middle(path)
    result = serve(data)
    assert_refused(result, "is damaged", "door db backup", "restore", str(path))


def test_serve_refuses_a_file_of_random_bytes_without_a_traceback(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "door.sqlite3").write_bytes(random.Random(1).randbytes(64 * 1024))
    assert_refused(serve(data), "not an SQLite database")


def test_serve_refuses_a_folder_where_the_database_should_be(tmp_path: Path) -> None:
    data = tmp_path / "data"
    (data / "door.sqlite3").mkdir(parents=True)
    assert_refused(serve(data), "is a folder, not a database file")


@pytest.fixture
def shared_tmp() -> Iterator[Path]:
    """A folder another user can enter (pytest's tmp_path is its owner's alone)."""
    folder = Path(tempfile.mkdtemp(prefix="door-t14-"))
    os.chmod(folder, 0o755)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def serve_as_nobody(data: Path) -> subprocess.CompletedProcess[str]:
    """``door serve`` in a child forked from this process that has become user nobody
    (root reads any file; this interpreter is not one nobody may run afresh)."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns to pytest
        status = 99
        try:
            os.close(read_end)
            os.dup2(write_end, 2)
            sys.stderr = os.fdopen(2, "w", closefd=False)  # not pytest's capture
            for module in PRELOAD:  # nobody may not read this interpreter's library
                importlib.import_module(module)
            os.setgid(65534)
            os.setuid(65534)
            status = main(["serve", "--data-dir", str(data), "--telnet-port", "0",
                           "--ssh-port", "0"])  # fmt: skip
        except BaseException as exc:
            sys.stderr.write(f"the child failed: {exc!r}")
        finally:
            sys.stderr.flush()
            os._exit(status)
    os.close(write_end)
    with os.fdopen(read_end) as out:
        err = out.read()
    _, wait_status = os.waitpid(pid, 0)
    return subprocess.CompletedProcess([], os.waitstatus_to_exitcode(wait_status), "", err)


def test_serve_refuses_a_database_it_cannot_read(shared_tmp: Path) -> None:
    data = shared_tmp / "data"
    path = filled_database(data)
    os.chmod(data, 0o755)
    if os.geteuid() == 0:
        os.chmod(path, 0o600)  # root's file, closed to nobody
        result = serve_as_nobody(data)
    else:
        os.chmod(path, 0o000)
        result = serve(data)
    assert_refused(result, "cannot read and write the database", str(path))


async def test_a_zero_length_file_is_a_new_empty_database(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "door.sqlite3").write_bytes(b"")
    services = await build_services(
        Config(data_dir=data, games=GamesConfig(bots=False)), start_background=False
    )
    try:
        assert await services.accounts.by_name("nobody") is None  # the tables are there
    finally:
        await services.close()


def test_door_check_names_the_damage_and_the_way_back(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    scribble_middle(filled_database(data))
    capsys.readouterr()
    assert main(["check", "--data-dir", str(data)]) == 2
    err = capsys.readouterr().err
    assert "is damaged" in err and "door db backup" in err


def test_door_user_commands_refuse_a_damaged_database_in_one_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    scribble_middle(filled_database(data))
    capsys.readouterr()
    assert main(["user", "sysop", "user1", "--data-dir", str(data)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("door user sysop: the database") and "is damaged" in err


def test_serve_refuses_a_schema_from_a_newer_door(tmp_path: Path) -> None:
    data = tmp_path / "data"
    path = filled_database(data)
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("UPDATE alembic_version SET version_num = 'f00dfeedbeef'")
    conn.close()
    assert_refused(serve(data), "newer than this door knows")


async def test_an_old_schema_without_auto_upgrade_says_to_run_door_db_upgrade(
    tmp_path: Path,
) -> None:
    from door.store.health import DatabaseUnusableError

    db = Database(dbutil.sqlite_url(tmp_path / "door.sqlite3"))
    try:
        with pytest.raises(DatabaseUnusableError, match="door db upgrade"):
            await db.verify(upgrading=False)
    finally:
        await db.dispose()


def test_serve_says_clearly_when_the_postgresql_server_cannot_be_reached(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    data.mkdir()
    config = tmp_path / "door.toml"
    # port 9 (discard) on loopback: nothing listens there
    config.write_text(
        '[database]\nurl = "postgresql+asyncpg://door:secret@127.0.0.1:9/door"\n'
    )
    result = serve(data, "--config", str(config))
    assert_refused(result, "cannot use the database postgresql+asyncpg://door:***@127.0.0.1:9/door")
    assert "secret" not in result.stderr


async def test_postgresql_a_schema_from_a_newer_door_is_refused(pg_url: str) -> None:
    from sqlalchemy import text

    from door.store.health import DatabaseUnusableError

    name = await asyncio.to_thread(dbutil.make_pg_template, pg_url, "door_t14_newer_schema")
    url = dbutil.pg_database_url(pg_url, name)
    db = Database(url)
    try:
        await db.run_sync(
            lambda c: c.execute(text("UPDATE alembic_version SET version_num = 'f00dfeedbeef'"))
        )
        with pytest.raises(DatabaseUnusableError, match="newer than this door knows"):
            await db.verify()
    finally:
        await db.dispose()
        await dbutil.drop_pg(pg_url, url)
