"""The database and its folder are door's user's alone (issue 14, item 5): the data folder
0700, the SQLite file, its -wal and -shm files and its backups 0600, whatever the umask;
``door check`` warns of wider ones and ``door serve`` narrows the database files."""

from __future__ import annotations

import logging
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from door.app import App
from door.cli import main
from door.config import Config, GamesConfig, ServerConfig
from door.services import build_services
from door.store.db import Database
from tests.store import dbutil

UMASKS = [0o000, 0o022]


def mode(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.fixture(params=UMASKS, ids=lambda u: f"umask{u:03o}")
def umask(request: pytest.FixtureRequest) -> Iterator[int]:
    old = os.umask(request.param)
    try:
        yield request.param
    finally:
        os.umask(old)


def quiet_config(data_dir: Path) -> Config:
    return Config(
        data_dir=data_dir,
        server=ServerConfig(host="127.0.0.1", telnet_port=0, ssh_port=0),
        games=GamesConfig(bots=False),
    )


async def test_a_new_database_its_wal_and_shm_files_and_its_folder_are_private(
    tmp_path: Path, umask: int
) -> None:
    folder = tmp_path / "data"
    path = folder / "door.sqlite3"
    db = Database(dbutil.sqlite_url(path))
    try:
        await db.upgrade()
        # while door has it open, the WAL and the shared-memory file exist
        wal, shm = Path(f"{path}-wal"), Path(f"{path}-shm")
        assert wal.exists() and shm.exists()
        assert (mode(folder), mode(path), mode(wal), mode(shm)) == (0o700, 0o600, 0o600, 0o600)
    finally:
        await db.dispose()


async def test_door_serve_makes_its_data_folder_private(tmp_path: Path, umask: int) -> None:
    data = tmp_path / "door-data"
    app = App(quiet_config(data))
    await app.start(telnet_port=0)
    try:
        assert mode(data) == 0o700
        assert mode(data / "door.sqlite3") == 0o600
    finally:
        await app.shutdown()


def test_a_backup_is_private(tmp_path: Path, umask: int) -> None:
    data = tmp_path / "data"
    assert main(["db", "upgrade", "--data-dir", str(data)]) == 0
    target = tmp_path / "backups" / "door-backup.sqlite3"
    assert main(["db", "backup", str(target), "--data-dir", str(data)]) == 0
    assert mode(target) == 0o600
    assert mode(target.parent) == 0o700


def test_door_check_warns_of_a_database_and_folder_others_can_read_and_says_the_chmod(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    assert main(["db", "upgrade", "--data-dir", str(data)]) == 0
    os.chmod(data, 0o755)
    os.chmod(data / "door.sqlite3", 0o644)
    capsys.readouterr()
    assert main(["check", "--data-dir", str(data)]) == 0
    err = capsys.readouterr().err
    assert f"chmod 600 {data / 'door.sqlite3'}" in err
    assert f"chmod 700 {data}" in err
    assert "0644" in err and "0755" in err


def test_door_check_warns_of_the_configured_host_key_others_can_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    shared = tmp_path / "shared"
    shared.mkdir()
    key = shared / "door_host_key"
    key.write_text("not looked into: only its mode matters here\n")
    os.chmod(key, 0o644)
    config = tmp_path / "door.toml"
    config.write_text(f'[server]\nhost_key = "{key}"\n')
    assert main(["db", "upgrade", "--data-dir", str(data)]) == 0
    capsys.readouterr()
    assert main(["check", "--config", str(config), "--data-dir", str(data)]) == 0
    assert f"chmod 600 {key}" in capsys.readouterr().err


def test_door_check_says_nothing_of_private_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    assert main(["db", "upgrade", "--data-dir", str(data)]) == 0
    capsys.readouterr()
    assert main(["check", "--data-dir", str(data)]) == 0
    assert "warning" not in capsys.readouterr().err


async def test_door_serve_narrows_database_files_others_can_read_and_warns_of_the_folder(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    data = tmp_path / "data"
    data.mkdir(mode=0o755)
    os.chmod(data, 0o755)
    path = data / "door.sqlite3"
    db = Database(dbutil.sqlite_url(path))
    await db.upgrade()
    await db.dispose()
    os.chmod(path, 0o644)
    with caplog.at_level(logging.WARNING):
        services = await build_services(quiet_config(data), start_background=False)
        await services.close()
    assert mode(path) == 0o600
    assert mode(data) == 0o755  # a folder door did not make is the sysop's to change
    text = caplog.text
    assert f"{path} could be read by other users (mode 0644); door made it 0600" in text
    assert f"chmod 700 {data}" in text
