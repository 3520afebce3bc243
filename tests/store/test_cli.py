"""``door db``, ``door user`` and ``door check`` as a sysop runs them."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import io
import sqlite3
import threading
from pathlib import Path

import pytest

from door.cli import main
from door.services.accounts import Accounts
from door.services.clock import SystemClock
from door.store.db import Database
from tests.store.test_db import head_revision


def door(
    *argv: str, stdin: str | None = None, monkeypatch: pytest.MonkeyPatch | None = None
) -> int:
    if stdin is not None:
        assert monkeypatch is not None
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    return main(list(argv))


def accounts_at(data: Path) -> tuple[Database, Accounts]:
    db = Database(f"sqlite+aiosqlite:///{data / 'door.sqlite3'}")
    return db, Accounts(db, SystemClock())


def authenticate(data: Path, name: str, password: str) -> bool:
    async def go() -> bool:
        db, accounts = accounts_at(data)
        try:
            return await accounts.authenticate(name, password) is not None
        finally:
            await db.dispose()

    return asyncio.run(go())


def test_db_upgrade_creates_the_database_in_the_data_dir(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert door("db", "upgrade", "--data-dir", str(tmp_path)) == 0
    assert (tmp_path / "door.sqlite3").is_file()
    assert "up to date" in capsys.readouterr().out
    tables = {
        r[0]
        for r in sqlite3.connect(tmp_path / "door.sqlite3").execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'"
        )
    }
    assert {"users", "games", "game_events", "alembic_version"} <= tables


def test_data_dir_may_come_before_or_after_the_action(tmp_path: Path) -> None:
    assert door("db", "--data-dir", str(tmp_path / "a"), "upgrade") == 0
    assert door("db", "upgrade", "--data-dir", str(tmp_path / "b")) == 0
    assert (tmp_path / "a" / "door.sqlite3").is_file()
    assert (tmp_path / "b" / "door.sqlite3").is_file()


def test_user_add_then_login_works_and_a_second_add_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    d = str(tmp_path)
    assert (
        door(
            "user",
            "add",
            "Sam",
            "--password-stdin",
            "--data-dir",
            d,
            stdin="s3cret!\n",
            monkeypatch=monkeypatch,
        )
        == 0
    )
    assert authenticate(tmp_path, "sam", "s3cret!")
    assert (
        door(
            "user",
            "add",
            "SAM",
            "--password-stdin",
            "--data-dir",
            d,
            stdin="other\n",
            monkeypatch=monkeypatch,
        )
        == 1
    )
    assert "taken" in capsys.readouterr().err


def test_user_passwd_sysop_and_ban_with_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    d = str(tmp_path)
    door(
        "user",
        "add",
        "Sam",
        "--password-stdin",
        "--data-dir",
        d,
        stdin="first1\n",
        monkeypatch=monkeypatch,
    )
    assert (
        door(
            "user",
            "passwd",
            "Sam",
            "--password-stdin",
            "--data-dir",
            d,
            stdin="second2\n",
            monkeypatch=monkeypatch,
        )
        == 0
    )
    assert authenticate(tmp_path, "Sam", "second2")
    assert door("user", "sysop", "Sam", "--data-dir", d) == 0
    assert "now a sysop" in capsys.readouterr().out
    assert door("user", "sysop", "Sam", "--off", "--data-dir", d) == 0
    assert "no longer" in capsys.readouterr().out
    assert door("user", "ban", "Sam", "--data-dir", d) == 0
    assert not authenticate(tmp_path, "Sam", "second2")
    assert door("user", "ban", "Sam", "--off", "--data-dir", d) == 0
    assert authenticate(tmp_path, "Sam", "second2")


def test_user_commands_on_an_unknown_name_fail_clearly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert door("user", "ban", "Nobody", "--data-dir", str(tmp_path)) == 1
    assert "no user called" in capsys.readouterr().err


def test_user_key_add_reads_a_pub_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    d = str(tmp_path)
    door(
        "user",
        "add",
        "Sam",
        "--password-stdin",
        "--data-dir",
        d,
        stdin="first1\n",
        monkeypatch=monkeypatch,
    )
    kt = b"ssh-ed25519"
    key = hashlib.sha256(b"sam").digest()
    blob = len(kt).to_bytes(4, "big") + kt + len(key).to_bytes(4, "big") + key
    pub = tmp_path / "id.pub"
    pub.write_text(f"# my key\nssh-ed25519 {base64.b64encode(blob).decode()} sam@home\n")
    assert door("user", "key-add", "Sam", str(pub), "--data-dir", d) == 0
    assert "added key SHA256:" in capsys.readouterr().out
    bad = tmp_path / "bad.pub"
    bad.write_text("not a key\n")
    assert door("user", "key-add", "Sam", str(bad), "--data-dir", d) == 1
    assert door("user", "key-add", "Sam", str(tmp_path / "missing.pub"), "--data-dir", d) == 1


def test_db_backup_copies_a_consistent_database_while_writes_go_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    d = str(tmp_path)
    door("db", "upgrade", "--data-dir", d)
    def writer() -> None:
        conn = sqlite3.connect(tmp_path / "door.sqlite3", timeout=10)
        for i in range(200):
            conn.execute(
                "INSERT INTO users (name, name_key, is_sysop, is_banned, is_bot, settings, "
                "created_at) VALUES (?, ?, 0, 0, 0, '{}', '2026-01-01 00:00:00.000000')",
                (f"u{i}", f"u{i}"),
            )
            conn.commit()
        conn.close()

    thread = threading.Thread(target=writer)
    thread.start()
    target = tmp_path / "backups" / "copy.sqlite3"
    assert door("db", "backup", str(target), "--data-dir", d) == 0
    thread.join()
    copy = sqlite3.connect(target)
    assert copy.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    count = copy.execute("SELECT count(*) FROM users").fetchone()[0]
    assert 0 <= count <= 200
    assert copy.execute("SELECT version_num FROM alembic_version").fetchone()[0] == head_revision()


def test_db_backup_takes_a_database_configured_with_a_plain_sqlite_url(
    tmp_path: Path,
) -> None:
    # sqlite:///path is what the README and SQLAlchemy write; door's default is the
    # sqlite+aiosqlite:/// form, and both name the same file
    config = tmp_path / "door.toml"
    config.write_text(f'[database]\nurl = "sqlite:///{tmp_path / "games.sqlite3"}"\n')
    assert door("db", "upgrade", "--config", str(config), "--data-dir", str(tmp_path)) == 0
    target = tmp_path / "copy.sqlite3"
    assert door("db", "backup", str(target), "--config", str(config), "--data-dir",
                str(tmp_path)) == 0  # fmt: skip
    assert sqlite3.connect(target).execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_db_backup_refuses_to_overwrite_and_needs_a_database(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert door("db", "backup", str(tmp_path / "x"), "--data-dir", str(tmp_path / "none")) == 1
    assert "no database" in capsys.readouterr().err
    door("db", "upgrade", "--data-dir", str(tmp_path))
    existing = tmp_path / "exists.sqlite3"
    existing.write_text("keep me")
    assert door("db", "backup", str(existing), "--data-dir", str(tmp_path)) == 1
    assert existing.read_text() == "keep me"


def test_db_backup_of_postgresql_points_to_pg_dump(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "door.toml"
    config.write_text('[database]\nurl = "postgresql+asyncpg://door@/door?host=/nowhere"\n')
    assert door("db", "backup", str(tmp_path / "b"), "--config", str(config)) == 2
    assert "pg_dump" in capsys.readouterr().err


def test_a_bad_config_file_is_reported_not_raised(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "door.toml"
    config.write_text("[nonsense]\n")
    assert door("db", "upgrade", "--config", str(config)) == 2
    assert "nonsense" in capsys.readouterr().err
