"""One SSH host key for every process: ``[server] host_key`` names a shared file, made once
(mode 0600) even when several processes start at the same moment, refused when others may
read it."""

from __future__ import annotations

import asyncio
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import asyncssh
import pytest

from door.config import load_config
from door.net.ssh import HOST_KEY_NAME, HostKeyError, load_host_key
from tests.net.served import free_port, pg_db, write_config

__all__ = ["pg_db"]  # a fixture, used by name

ROOT = Path(__file__).resolve().parents[2]
ENV = dict(os.environ, PYTHONPATH=str(ROOT))

RACER = """
import sys, time
from pathlib import Path
from door.net.ssh import load_host_key
start = float(sys.argv[2])
time.sleep(max(0.0, start - time.time()))
print(load_host_key(Path(sys.argv[1])).get_fingerprint(), flush=True)
"""


def test_the_host_key_is_the_data_dirs_file_unless_the_config_names_another(
    tmp_path: Path,
) -> None:
    assert load_config(data_dir=tmp_path).host_key_path == tmp_path / HOST_KEY_NAME
    relative = tmp_path / "relative.toml"
    relative.write_text('[server]\nhost_key = "keys/door_key"\n')
    assert load_config(relative, tmp_path).host_key_path == tmp_path / "keys" / "door_key"
    absolute = tmp_path / "absolute.toml"
    absolute.write_text(f'[server]\nhost_key = "{tmp_path / "shared" / "key"}"\n')
    assert load_config(absolute, tmp_path / "data").host_key_path == tmp_path / "shared" / "key"


def test_processes_making_the_key_at_the_same_moment_all_end_with_one_key(
    tmp_path: Path,
) -> None:
    path = tmp_path / "shared" / "host_key"
    start = time.time() + 1.5  # every racer has imported asyncssh by then
    command = [sys.executable, "-c", RACER, str(path), str(start)]
    racers = [
        subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=ENV) for _ in range(6)
    ]
    seen = {racer.communicate(timeout=60)[0].strip() for racer in racers}
    assert all(racer.returncode == 0 for racer in racers)
    assert seen == {load_host_key(path).get_fingerprint()}
    assert sorted(p.name for p in path.parent.iterdir()) == ["host_key", "host_key.pub"]
    assert path.stat().st_mode & 0o777 == 0o600


def test_a_key_file_other_users_may_read_is_refused_with_the_fix(tmp_path: Path) -> None:
    path = tmp_path / HOST_KEY_NAME
    load_host_key(path)
    path.chmod(0o644)
    with pytest.raises(HostKeyError, match=f"chmod 600 {path}"):
        load_host_key(path)


def test_a_damaged_key_file_is_a_clear_error_and_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / HOST_KEY_NAME
    path.write_bytes(b"not a key\n")
    path.chmod(0o600)
    with pytest.raises(HostKeyError, match="not a usable private key"):
        load_host_key(path)
    assert path.read_bytes() == b"not a key\n"


def test_door_serve_refuses_a_host_key_others_may_read(tmp_path: Path) -> None:
    key = tmp_path / HOST_KEY_NAME
    load_host_key(key)
    key.chmod(0o640)
    out = subprocess.run(
        [sys.executable, "-m", "door", "serve", "--data-dir", str(tmp_path), "--host",
         "127.0.0.1", "--telnet-port", "0", "--ssh-port", str(free_port())],
        capture_output=True, text=True, timeout=60, env=ENV, cwd=tmp_path,
    )  # fmt: skip
    assert out.returncode == 1
    assert "can be read by other users" in out.stderr


async def test_two_servers_started_at_once_on_one_key_file_serve_the_same_key(
    pg_db: str, tmp_path: Path
) -> None:
    shared = tmp_path / "shared"
    config = write_config(tmp_path, pg_db)
    config.write_text(config.read_text() + f'[server]\nhost_key = "{shared / "key"}"\n')
    procs: list[tuple[subprocess.Popen[bytes], int]] = []
    for n in range(2):
        port = free_port()
        command = [
            sys.executable, "-m", "door", "serve", "--config", str(config),
            "--data-dir", str(tmp_path / f"data{n}"), "--host", "127.0.0.1",
            "--telnet-port", "0", "--ssh-port", str(port),
        ]  # fmt: skip
        proc = subprocess.Popen(command, stdout=subprocess.PIPE, env=ENV, cwd=tmp_path)
        procs.append((proc, port))
    try:
        for proc, _ in procs:
            assert proc.stdout is not None
            ready, _, _ = select.select([proc.stdout], [], [], 60)
            assert ready and b"serving" in proc.stdout.readline()
        keys = [await asyncssh.get_server_host_key("127.0.0.1", port) for _, port in procs]
        assert all(key is not None for key in keys)
        fingerprints = {key.get_fingerprint() for key in keys if key is not None}
        assert fingerprints == {load_host_key(shared / "key").get_fingerprint()}
    finally:
        for proc, _ in procs:
            proc.send_signal(signal.SIGTERM)
        for proc, _ in procs:
            try:
                await asyncio.to_thread(proc.wait, 20)
            except subprocess.TimeoutExpired:
                proc.kill()
