"""A ban takes effect at once: a logged-in player's live session is told and closed,
whichever process makes the ban (``door user ban`` from a shell, a sysop in the server)."""

from __future__ import annotations

import asyncio
import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import telnetlib3

from door.app import SUSPENDED_MESSAGE, App
from door.config import Config
from tests.net.conftest import echo_runner, expect, make_config
from tests.store import dbutil

ROOT = Path(__file__).resolve().parents[2]


async def logged_in(app: App, name: str = "carol", until: str = "") -> tuple[Any, Any]:
    """A telnet client logged in to ``app`` as ``name`` (the session has begun: ``until``
    has arrived, by default the echo session's greeting)."""
    reader, writer = await telnetlib3.open_connection(
        "127.0.0.1", app.ports["telnet"], encoding=False, term="xterm", cols=80, rows=24,
        connect_minwait=0.05,
    )  # fmt: skip
    await expect(reader, "Name: ")
    writer.write(f"{name}\r{name}-pw\r".encode())
    await expect(reader, until or f"SESSION user={name}", timeout=10)
    return reader, writer


async def door_cli(*args: str) -> None:
    """Run ``python3 -m door ARGS`` in a process of its own, as a sysop would."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "door", *args, env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await proc.communicate()
    assert proc.returncode == 0, (out, err)
    assert b"now banned" in out


async def read_to_end(reader: Any, timeout: float) -> tuple[bytes, float]:
    """Everything until the server closes the connection, and how long that took."""
    loop = asyncio.get_running_loop()
    start = loop.time()
    buf = b""
    while True:
        left = start + timeout - loop.time()
        assert left > 0, f"still open after {timeout} s; got {buf[-300:]!r}"
        try:
            chunk = await asyncio.wait_for(reader.read(4096), left)
        except TimeoutError:
            continue
        if not chunk:
            return buf, loop.time() - start
        buf += chunk


async def start_app(config: Config, *, real_session: bool = False) -> App:
    """A server with telnet only (on a free port) and a user carol."""
    config = replace(config, server=replace(config.server, ssh_port=0, rlogin_port=0))
    app = App(config) if real_session else App(config, runner=echo_runner)
    await app.start(telnet_port=0, ssh_port=None, rlogin_port=None)
    await app.services.accounts.register("carol", "carol-pw")
    return app


async def test_door_user_ban_from_another_process_ends_the_session_within_two_seconds(
    tmp_path: Path,
) -> None:
    app = await start_app(make_config(tmp_path), real_session=True)
    try:
        reader, writer = await logged_in(app, until="Main Menu")
        await door_cli("user", "ban", "carol", "--data-dir", str(tmp_path))
        said, took = await read_to_end(reader, timeout=5.0)
        assert SUSPENDED_MESSAGE.encode() in said
        assert took <= 2.0
        after = said.split(SUSPENDED_MESSAGE.encode())[-1]
        assert b"\x1b[2J" not in after and b"Menu" not in after  # the last word stays
        writer.close()
    finally:
        await app.shutdown()


async def test_a_ban_made_inside_the_server_ends_the_session_without_waiting_to_poll(
    tmp_path: Path,
) -> None:
    config = make_config(tmp_path)
    app = await start_app(replace(config, bans=replace(config.bans, check_interval_s=60.0)))
    try:
        reader, writer = await logged_in(app)
        await app.services.accounts.set_banned("carol", True)
        said, took = await read_to_end(reader, timeout=5.0)
        assert SUSPENDED_MESSAGE.encode() in said
        assert took <= 0.5
        writer.close()
    finally:
        await app.shutdown()


async def test_a_ban_ends_every_session_of_that_user_and_no_one_elses(tmp_path: Path) -> None:
    app = await start_app(make_config(tmp_path))
    try:
        await app.services.accounts.register("dave", "dave-pw")
        first, w1 = await logged_in(app)
        second, w2 = await logged_in(app)
        other, w3 = await logged_in(app, "dave")
        await app.services.accounts.set_banned("carol", True)
        for reader in (first, second):
            said, _ = await read_to_end(reader, timeout=3.0)
            assert SUSPENDED_MESSAGE.encode() in said
        w3.write(b"x")
        await expect(other, "EVENT Text(text='x')")
        for w in (w1, w2, w3):
            w.close()
    finally:
        await app.shutdown()


async def test_on_postgresql_a_ban_by_another_process_ends_the_session_within_two_seconds(
    tmp_path: Path, pg_url: str
) -> None:
    url = await dbutil.fresh_pg(pg_url, None)
    config = make_config(tmp_path)
    # polling is off in effect: only the ban's NOTIFY can end the session in time
    config = replace(
        config,
        database=replace(config.database, url=url),
        bans=replace(config.bans, check_interval_s=60.0),
    )
    toml = tmp_path / "door.toml"
    toml.write_text(f'[database]\nurl = "{url}"\n')
    app = await start_app(config)
    try:
        reader, writer = await logged_in(app)
        await door_cli("user", "ban", "carol", "--config", str(toml))
        said, took = await read_to_end(reader, timeout=5.0)
        assert SUSPENDED_MESSAGE.encode() in said
        assert took <= 2.0
        writer.close()
    finally:
        await app.shutdown()
        await dbutil.drop_pg(pg_url, url)
