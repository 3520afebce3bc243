"""The composition root and `door serve`: defaults, flags, real session, SIGTERM."""

from __future__ import annotations

import asyncio
import gc
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import telnetlib3

from door.app import App, connection_settings, login_guard, start_server
from door.cli import build_parser
from door.cli.serve import config_from_args
from door.config import ConfigError, LimitsConfig, load_config
from door.net.ssh import HOST_KEY_NAME
from door.runtime import GC_THRESHOLDS
from tests.net.conftest import expect, make_config, with_bbs
from tests.net.served import free_ports

ROOT = Path(__file__).resolve().parents[2]


def test_serve_with_no_configuration_uses_2323_2222_and_door_data() -> None:
    config = config_from_args(build_parser().parse_args(["serve"]))
    assert (config.server.telnet_port, config.server.ssh_port) == (2323, 2222)
    assert config.server.rlogin_port == 0
    assert config.data_dir == Path("door-data")


def test_serve_flags_override_the_file(tmp_path: Path) -> None:
    args = build_parser().parse_args(
        ["serve", "--config", str(ROOT / "config.example.toml"), "--data-dir", str(tmp_path),
         "--telnet-port", "23", "--ssh-port", "0", "--rlogin-port", "513", "--host", "::1"]
    )  # fmt: skip
    config = config_from_args(args)
    assert (config.server.telnet_port, config.server.ssh_port) == (23, 0)
    assert (config.server.rlogin_port, config.server.host) == (513, "::1")
    assert config.data_dir == tmp_path


@pytest.fixture
def collector_restored() -> Iterator[None]:
    """Give the test process its collector back as it was (tuning is process-wide)."""
    thresholds = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*thresholds)


@pytest.mark.parametrize("tune", [False, True])
async def test_door_serve_tunes_the_collector_only_when_the_config_says(
    tmp_path: Path, tune: bool, collector_restored: None
) -> None:
    config = make_config(tmp_path)
    config = replace(config, server=replace(
        config.server, telnet_port=0, ssh_port=0, rlogin_port=0, tune_runtime=tune
    ))
    before = gc.get_threshold()
    app = await start_server(config)
    try:
        assert gc.get_threshold() == (GC_THRESHOLDS if tune else before)
    finally:
        await app.shutdown()


async def test_an_embedded_app_leaves_the_collector_alone(
    tmp_path: Path, collector_restored: None
) -> None:
    config = make_config(tmp_path)
    assert config.server.tune_runtime
    before = gc.get_threshold()
    app = App(config)
    await app.start(telnet_port=0, ssh_port=0)
    try:
        assert gc.get_threshold() == before
    finally:
        await app.shutdown()


def test_every_transport_takes_its_timeouts_and_buffer_from_limits(tmp_path: Path) -> None:
    toml = tmp_path / "door.toml"
    toml.write_text(
        "[server]\nbacklog = 64\n[limits]\nidle_timeout_s = 300\nidle_warning_s = 30\n"
        "max_buffer = 8192\nprobe_timeout_s = 0.5\n"
    )
    settings = connection_settings(load_config(toml))
    assert (settings.idle_timeout, settings.idle_warning) == (300.0, 30.0)
    assert (settings.max_buffer, settings.probe_timeout, settings.backlog) == (8192, 0.5, 64)


def test_failed_logins_wait_at_most_eight_times_the_configured_delay() -> None:
    guard = login_guard(LimitsConfig(login_delay_s=0.25))
    assert [guard.record_failure("x") for _ in range(5)] == [0.25, 0.5, 1.0, 2.0, 2.0]


def test_a_bad_port_is_a_clear_error() -> None:
    with pytest.raises(ConfigError, match="--telnet-port"):
        config_from_args(build_parser().parse_args(["serve", "--telnet-port", "70000"]))


async def test_telnet_login_reaches_the_real_main_menu(tmp_path: Path) -> None:
    app = App(make_config(tmp_path))
    await app.start(telnet_port=0, ssh_port=None, rlogin_port=None)
    try:
        await app.services.accounts.register("alice", "secret1")
        reader, writer = await telnetlib3.open_connection(
            "127.0.0.1", app.ports["telnet"], encoding=False, term="xterm", cols=80, rows=24,
            connect_minwait=0.05,
        )
        await expect(reader, "Name: ")
        writer.write(b"alice\rsecret1\r")
        await expect(reader, "Main Menu", timeout=10)
        writer.close()
    finally:
        await app.shutdown()


async def test_door_serve_stops_gracefully_on_sigterm(tmp_path: Path) -> None:
    telnet_port, ssh_port = free_ports(2)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "door", "serve", "--data-dir", str(tmp_path), "--host",
        "127.0.0.1", "--telnet-port", str(telnet_port), "--ssh-port", str(ssh_port),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=str(tmp_path),
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        line = await asyncio.wait_for(proc.stdout.readline(), 30)
        assert b"telnet on port %d" % telnet_port in line
        assert (tmp_path / HOST_KEY_NAME).exists()
        reader, writer = await asyncio.open_connection("127.0.0.1", telnet_port)
        await expect(reader, "Name: ", timeout=5)
        proc.send_signal(signal.SIGTERM)
        await expect(reader, "shutting down", timeout=10)
        assert await asyncio.wait_for(proc.wait(), 20) == 0
        writer.close()
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()


async def test_rlogin_door_code_opens_that_game_in_the_real_session(tmp_path: Path) -> None:
    config = make_config(tmp_path)
    config = with_bbs(config, ("XA", "127.0.0.1", "s3cret"))
    app = App(config)
    await app.start(telnet_port=None, ssh_port=None, rlogin_port=0)
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", app.ports["rlogin"])
        writer.write(b"\0s3cret\0[XA]zorro\0xtrn=backgammon\0")
        await expect(reader, "Begin a new game", timeout=10)
        writer.close()
    finally:
        await app.shutdown()


def port_is_free(port: int) -> bool:
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("0.0.0.0", port))
        except OSError:
            return False
    return True


async def test_door_serve_with_no_arguments_serves_2323_and_2222_from_door_data(
    tmp_path: Path,
) -> None:
    if not (port_is_free(2323) and port_is_free(2222)):
        pytest.skip("ports 2323/2222 are taken on this machine by another program")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "door", "serve",
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=str(tmp_path),
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        line = await asyncio.wait_for(proc.stdout.readline(), 30)
        assert b"telnet on port 2323" in line and b"ssh on port 2222" in line
        reader, writer = await asyncio.open_connection("127.0.0.1", 2323)
        await expect(reader, "Name: ", timeout=5)
        writer.close()
        ssh_reader, ssh_writer = await asyncio.open_connection("127.0.0.1", 2222)
        assert (await asyncio.wait_for(ssh_reader.readline(), 5)).startswith(b"SSH-2.0-")
        ssh_writer.close()
        assert (tmp_path / "door-data" / "door.sqlite3").exists()
        assert (tmp_path / "door-data" / HOST_KEY_NAME).exists()
        proc.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(proc.wait(), 20) == 0
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()


async def test_a_login_the_full_disk_cannot_record_still_enters_the_session() -> None:
    from door.app import enter_session
    from door.store.db import DatabaseWriteError

    class FullDisk:
        async def record_login(self, user_id: int) -> None:
            raise DatabaseWriteError("the server could not save that — try again")

    class Services:
        accounts = FullDisk()
        bans = None

    entered: list[Any] = []

    async def runner(terminal: Any, services: Any, user: Any, *, start: str | None) -> None:
        entered.append(user)

    class Term:
        def set_encoding(self, encoding: str) -> None: ...

        async def close(self, message: str = "") -> None:
            raise AssertionError(f"the session was refused: {message}")

    user = SimpleNamespace(
        id=7, name="ann", is_banned=False, is_pending=False,
        settings=SimpleNamespace(charset="auto"), last_login_at=None,
    )  # fmt: skip
    await enter_session(Term(), Services(), user, runner=runner)  # type: ignore[arg-type]
    assert entered == [user]
