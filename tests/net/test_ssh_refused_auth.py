"""SSH authentication methods offered to a connection that cannot log in by password: a
blocked address, or a name locked after failed logins, is told why in the banner and is
never asked for a password (neither by the ``password`` method nor keyboard-interactive);
keys stay offered (OpenSSH, handed an empty list, would fall back to its own and ask for
a password anyway).

Real servers on 127.0.0.1; each case connects from its own loopback address.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import asyncssh
import pytest

from door.app import App
from door.net.limits import ACCOUNT_LOCKED, ADDRESS_BLOCKED
from tests.net.conftest import echo_runner, make_config

BLOCK_AFTER = 3
LOCK_AFTER = 2


@pytest.fixture
async def app(tmp_path: Path) -> AsyncIterator[App]:
    config = make_config(
        tmp_path, login_failures_block=BLOCK_AFTER, account_failures_lock=LOCK_AFTER
    )
    app = App(config, runner=echo_runner)
    await app.start(telnet_port=None, ssh_port=0, rlogin_port=None)
    await app.services.accounts.register("alice", "secret1")
    try:
        yield app
    finally:
        await app.shutdown()


class Watcher(asyncssh.SSHClient):
    """A client that notes the banner and every password or challenge it is asked for,
    and answers each with ``password``."""

    def __init__(self, password: str) -> None:
        self.password = password
        self.banners: list[str] = []
        self.asked: list[str] = []

    def auth_banner_received(self, msg: str, lang: str) -> None:
        self.banners.append(msg)

    def password_auth_requested(self) -> str:
        self.asked.append("password")
        return self.password

    def kbdint_auth_requested(self) -> str:
        return ""

    def kbdint_challenge_received(
        self, name: str, instructions: str, lang: str, prompts: Any
    ) -> list[str]:
        self.asked.extend(prompt for prompt, _ in prompts)
        return [self.password for _ in prompts]


async def log_in(app: App, user: str, password: str, source: str) -> tuple[Watcher, bool]:
    """Try ``user`` with ``password`` from ``source``: the client, and whether it got in."""
    client = Watcher(password)
    try:
        conn = await asyncssh.connect(
            "127.0.0.1", app.ports["ssh"], username=user, known_hosts=None,
            client_keys=None, client_factory=lambda: client, local_addr=(source, 0),
            preferred_auth="keyboard-interactive,password",
        )  # fmt: skip
    except (asyncssh.Error, OSError):
        return client, False
    conn.close()
    with contextlib.suppress(asyncssh.Error, OSError):
        await conn.wait_closed()
    return client, True


async def test_a_connection_in_good_standing_is_asked_for_the_password(app: App) -> None:
    client, got_in = await log_in(app, "alice", "secret1", "127.0.6.1")
    assert got_in and client.asked == ["Password:"] and client.banners == []


async def test_a_blocked_address_is_told_why_and_never_asked_for_a_password(
    app: App,
) -> None:
    for i in range(BLOCK_AFTER):
        await log_in(app, f"nobody{i}", "wrong", "127.0.6.2")
    client, got_in = await log_in(app, "alice", "secret1", "127.0.6.2")
    assert not got_in
    assert client.asked == []
    assert [b.strip() for b in client.banners] == [ADDRESS_BLOCKED]


async def test_a_locked_name_is_told_why_and_never_asked_for_a_password(app: App) -> None:
    for i in range(LOCK_AFTER):
        await log_in(app, "alice", "wrong", f"127.0.6.{10 + i}")
    client, got_in = await log_in(app, "alice", "secret1", "127.0.6.20")
    assert not got_in
    assert client.asked == []
    assert [b.strip() for b in client.banners] == [ACCOUNT_LOCKED]


async def test_the_locked_name_still_gets_in_from_where_it_logged_in_before(app: App) -> None:
    await log_in(app, "alice", "secret1", "127.0.6.30")
    for i in range(LOCK_AFTER):
        await log_in(app, "alice", "wrong", f"127.0.6.{40 + i}")
    client, got_in = await log_in(app, "alice", "secret1", "127.0.6.30")
    assert got_in and client.asked == ["Password:"]
