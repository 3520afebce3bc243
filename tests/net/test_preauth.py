"""Connections that have not logged in: a login deadline on every transport, and a small
pool of their own so that strangers cannot crowd out the players.

Real servers on 127.0.0.1; strangers connect from 127.0.0.2, 127.0.0.3, …
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import asyncssh
import pytest

from door.app import App
from door.net.limits import Admission, ConnectionLimiter
from tests.net.conftest import echo_runner, expect, make_config, with_bbs


@pytest.fixture
async def start_app(tmp_path: Path) -> AsyncIterator[Callable[..., Any]]:
    """Start telnet, SSH and rlogin with ``[limits]`` overrides; alice (secret1) exists."""
    apps: list[App] = []

    async def start(**limits: Any) -> App:
        config = make_config(tmp_path, **limits)
        config = with_bbs(config, ("XA", "127.0.0.0/8", "s3cret"))
        app = App(config, runner=echo_runner)
        await app.start(telnet_port=0, ssh_port=0, rlogin_port=0)
        apps.append(app)
        await app.services.accounts.register("alice", "secret1")
        return app

    yield start
    for app in apps:
        await app.shutdown()


async def closed_within(reader: Any, seconds: float) -> tuple[bool, bytes]:
    """Whether the server closed the connection within ``seconds``; what it sent."""
    got = b""
    loop = asyncio.get_running_loop()
    end = loop.time() + seconds
    while True:
        left = end - loop.time()
        if left <= 0:
            return False, got
        try:
            chunk = await asyncio.wait_for(reader.read(4096), left)
        except TimeoutError:
            return False, got
        except (ConnectionError, OSError):
            return True, got
        if not chunk:
            return True, got
        got += chunk


async def stranger(app: App, source: str, transport: str = "telnet") -> tuple[Any, Any]:
    return await asyncio.open_connection(
        "127.0.0.1", app.ports[transport], local_addr=(source, 0)
    )


async def keep_typing(writer: Any, every: float = 0.1) -> None:
    """A byte now and then (never Enter): busy enough that idleness is not the reason."""
    with contextlib.suppress(Exception):
        while not writer.is_closing():
            writer.write(b"x")
            await asyncio.sleep(every)


async def telnet_login(app: App, source: str = "127.0.0.1") -> tuple[Any, Any]:
    reader, writer = await stranger(app, source)
    await expect(reader, "Name: ")
    writer.write(b"alice\rsecret1\r")
    await expect(reader, "SESSION user=alice")
    return reader, writer


# -- the login deadline -------------------------------------------------------------------


async def test_telnet_connection_that_does_not_log_in_is_closed_at_the_deadline(
    start_app: Any,
) -> None:
    app = await start_app(login_deadline_s=0.8)
    reader, writer = await stranger(app, "127.0.0.2")
    typing = asyncio.create_task(keep_typing(writer))
    closed, got = await closed_within(reader, 8)
    typing.cancel()
    assert closed, "still open long after the login deadline"
    assert b"Login time is up" in got
    assert app.limiter.total == 0


async def test_a_logged_in_player_is_not_closed_at_the_deadline(start_app: Any) -> None:
    app = await start_app(login_deadline_s=2.0)
    reader, writer = await telnet_login(app)
    await asyncio.sleep(3.0)
    writer.write(b"k")
    assert b"Text(text='k')" in await expect(reader, "Text(")
    writer.close()


async def test_ssh_connection_that_never_authenticates_is_closed_at_the_deadline(
    start_app: Any,
) -> None:
    app = await start_app(login_deadline_s=0.8)
    reader, writer = await stranger(app, "127.0.0.3", "ssh")
    writer.write(b"SSH-2.0-slowpoke\r\n")  # then nothing: no key exchange, no login
    closed, _ = await closed_within(reader, 8)
    assert closed, "still open long after the login deadline"


async def test_ssh_sign_up_that_never_finishes_is_closed_at_the_deadline(start_app: Any) -> None:
    app = await start_app(login_deadline_s=2.5)
    async with asyncssh.connect(
        "127.0.0.1", app.ports["ssh"], username="new", known_hosts=None, client_keys=None,
        local_addr=("127.0.0.4", 0),
    ) as conn:
        proc = await conn.create_process(term_type="xterm", encoding=None)
        await expect(proc.stdout, "Choose a name: ")
        closed, _ = await closed_within(proc.stdout, 10)
        assert closed, "the sign-up dialogue outlived the login deadline"


async def test_rlogin_connection_that_never_finishes_the_handshake_is_closed_at_the_deadline(
    start_app: Any,
) -> None:
    app = await start_app(login_deadline_s=0.8)
    reader, writer = await stranger(app, "127.0.0.5", "rlogin")
    writer.write(b"\0")  # the handshake starts, and stops there
    closed, _ = await closed_within(reader, 5)
    assert closed, "still open long after the login deadline"


# -- room for the players -----------------------------------------------------------------


async def test_strangers_who_never_log_in_cannot_crowd_out_players(start_app: Any) -> None:
    app = await start_app(
        max_connections=20, max_per_address=20, max_preauth=6, max_preauth_per_address=3,
        login_deadline_s=60.0,
    )
    crowd = []
    for n in range(2, 10):  # 8 addresses x 4 connections: more than the whole server
        for _ in range(4):
            crowd.append(await stranger(app, f"127.0.0.{n}"))
    await asyncio.sleep(0.5)
    assert app.limiter.preauth <= 6
    _, writer = await telnet_login(app)
    async with asyncssh.connect(
        "127.0.0.1", app.ports["ssh"], username="alice", password="secret1",
        known_hosts=None, client_keys=None,
    ) as conn:
        proc = await conn.create_process(term_type="xterm", encoding=None)
        await expect(proc.stdout, "SESSION user=alice")
        proc.stdin.write(b"q")
        await proc.wait_closed()
    writer.close()
    for _, w in crowd:
        w.close()


async def test_one_address_gets_only_a_few_connections_before_logging_in(
    start_app: Any,
) -> None:
    app = await start_app(max_preauth_per_address=2)
    held = [await stranger(app, "127.0.0.6") for _ in range(2)]
    for r, _ in held:
        await expect(r, "Name: ")
    reader, writer = await stranger(app, "127.0.0.6")
    closed, got = await closed_within(reader, 5)
    assert closed and b"still logging in" in got
    # Once one of them logs in, its place in the pre-login pool is free again.
    held[0][1].write(b"alice\rsecret1\r")
    await expect(held[0][0], "SESSION")
    again_r, again_w = await stranger(app, "127.0.0.6")
    await expect(again_r, "Name: ")
    for _, w in [*held, (reader, writer), (again_r, again_w)]:
        w.close()


# -- the bookkeeping ----------------------------------------------------------------------


def dropped_into(log: list[str], name: str) -> Callable[[str], None]:
    return lambda message: log.append(f"{name}: {message}")


def test_a_newcomer_takes_the_place_of_the_biggest_holders_oldest() -> None:
    limiter = ConnectionLimiter(100, 10, max_preauth=3, max_preauth_per_address=3)
    log: list[str] = []
    for name in ("a1", "a2"):
        assert isinstance(limiter.admit("A", dropped_into(log, name)), Admission)
    assert isinstance(limiter.admit("B", dropped_into(log, "b1")), Admission)
    assert isinstance(limiter.admit("C", dropped_into(log, "c1")), Admission)
    assert log == ["a1: The server is busy with people logging in. Please connect again."]
    assert limiter.preauth == 3


def test_a_newcomer_is_refused_when_no_address_holds_more_than_its_own() -> None:
    limiter = ConnectionLimiter(100, 10, max_preauth=2, max_preauth_per_address=3)
    log: list[str] = []
    limiter.admit("A", dropped_into(log, "a1"))
    limiter.admit("B", dropped_into(log, "b1"))
    assert "full" in str(limiter.admit("A", dropped_into(log, "a2")))
    assert log == []


def test_logged_in_players_keep_the_room_the_pool_leaves() -> None:
    limiter = ConnectionLimiter(5, 10, max_preauth=2, max_preauth_per_address=2)
    for i in range(3):
        player = limiter.admit(f"p{i}", dropped_into([], "p"))
        assert isinstance(player, Admission)
        player.promote()
    limiter.admit("s", dropped_into([], "s1"))
    limiter.admit("s", dropped_into([], "s2"))
    assert "logging in" in str(limiter.admit("s", dropped_into([], "s3")))
    assert limiter.total == 5 and limiter.preauth == 2
