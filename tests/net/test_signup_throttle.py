"""Sign-ups over a real telnet server: three accounts an hour from one address (the
others still welcome), failed sign-ups counted, closed sign-ups, and sign-ups waiting
for the sysop's approval told so at sign-up and at every login."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import pytest
import telnetlib3

from door.app import App
from door.config import Config
from tests.net.conftest import echo_runner, expect, make_config


async def expect_any(reader: asyncio.StreamReader, needles: tuple[str, ...],
                     timeout: float = 5.0) -> bytes:
    """Read until one of ``needles`` has arrived; everything read so far."""
    wants = [n.encode() for n in needles]
    buf = b""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not any(w in buf for w in wants):
        left = end - loop.time()
        if left <= 0:
            raise AssertionError(f"none of {needles!r} received; got {buf[-400:]!r}")
        try:
            chunk = await asyncio.wait_for(reader.read(4096), left)
        except TimeoutError:
            continue
        if not chunk:
            raise AssertionError(f"closed before any of {needles!r}; got {buf[-400:]!r}")
        buf += chunk
    return buf


async def connect(app: App, source: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    reader, writer = await telnetlib3.open_connection(
        "127.0.0.1", app.ports["telnet"], encoding=False, term="xterm", cols=80, rows=24,
        connect_minwait=0.05, local_addr=(source, 0),
    )  # fmt: skip
    await expect(reader, "Name: ")
    return reader, writer  # type: ignore[return-value]


async def sign_up(app: App, source: str, name: str, password: str = "hunter22") -> bytes:
    """Type ``new``, a name and the password twice; what the server said afterwards."""
    reader, writer = await connect(app, source)
    try:
        writer.write(b"new\r")
        seen = await expect_any(reader, ("Choose a name: ", "\r\n\r\nName: "))
        if b"Choose a name: " not in seen:
            return seen
        writer.write(name.encode() + b"\r" + password.encode() + b"\r" + password.encode() + b"\r")
        return await expect_any(reader, ("SESSION", "Choose a name: ", "approval", "\r\nName: "))
    finally:
        writer.close()


async def start(config: Config) -> App:
    app = App(config, runner=echo_runner)
    await app.start(telnet_port=0, ssh_port=None, rlogin_port=None)
    return app


def telnet_only(tmp_path: Path, **accounts: object) -> Config:
    config = make_config(tmp_path)
    return replace(
        config,
        server=replace(config.server, ssh_port=0, rlogin_port=0),
        accounts=replace(config.accounts, **accounts),  # type: ignore[arg-type]
    )


@pytest.fixture
async def app(tmp_path: Path) -> AsyncIterator[App]:
    server = await start(telnet_only(tmp_path))
    try:
        yield server
    finally:
        await server.shutdown()


async def test_one_address_makes_three_accounts_then_is_told_to_wait(app: App) -> None:
    for name in ("Ann", "Ben", "Cat"):
        assert b"SESSION user=" + name.encode() in await sign_up(app, "127.0.0.2", name)
    said = await sign_up(app, "127.0.0.2", "Dan")
    assert b"3 new accounts in the last hour" in said
    assert b"Choose a name" not in said
    assert await app.services.accounts.by_name("Dan") is None


async def test_another_address_signs_up_meanwhile(app: App) -> None:
    for name in ("Ann", "Ben", "Cat"):
        await sign_up(app, "127.0.0.2", name)
    assert b"SESSION user=Dan" in await sign_up(app, "127.0.0.3", "Dan")


async def test_failed_sign_ups_from_an_address_count_against_it(app: App) -> None:
    for _ in range(10):  # ten refused names: reserved, or looking like a reserved one
        assert b"reserved" in await sign_up(app, "127.0.0.2", "Sys-0p")
    said = await sign_up(app, "127.0.0.2", "Honest")
    assert b"Too many sign-up attempts" in said
    assert await app.services.accounts.by_name("Honest") is None
    assert b"SESSION user=Honest" in await sign_up(app, "127.0.0.3", "Honest")


async def test_closed_sign_ups_are_said_at_once(tmp_path: Path) -> None:
    app = await start(telnet_only(tmp_path, signup="closed"))
    try:
        said = await sign_up(app, "127.0.0.2", "Ann")
        assert b"Sign-ups are closed here" in said
        assert await app.services.accounts.by_name("Ann") is None
    finally:
        await app.shutdown()


async def test_the_greeting_offers_new_only_while_sign_ups_are_open(tmp_path: Path) -> None:
    for mode, offered in (("open", True), ("closed", False)):
        app = await start(telnet_only(tmp_path / mode, signup=mode))
        try:
            reader, writer = await telnetlib3.open_connection(
                "127.0.0.1", app.ports["telnet"], encoding=False, term="xterm", cols=80,
                rows=24, connect_minwait=0.05, local_addr=("127.0.0.2", 0),
            )  # fmt: skip
            greeting = await expect_any(reader, ("Name: ",))  # type: ignore[arg-type]
            writer.close()
            assert (b"'new' to create an account" in greeting) is offered, greeting
        finally:
            await app.shutdown()


async def test_a_sign_up_under_approval_waits_and_is_told_at_each_login(tmp_path: Path) -> None:
    app = await start(telnet_only(tmp_path, signup="approval"))
    try:
        said = await sign_up(app, "127.0.0.2", "Ann")
        assert b"waits for the sysop's approval" in said
        assert b"SESSION" not in said
        for _ in range(2):
            reader, writer = await connect(app, "127.0.0.2")
            writer.write(b"Ann\r")
            await expect(reader, "Password: ")
            writer.write(b"hunter22\r")
            got = await expect(reader, "approval")
            assert b"waiting for the sysop's approval" in got
            assert b"SESSION" not in got + await asyncio.wait_for(reader.read(), 5)
            writer.close()
        await app.services.accounts.approve("Ann")
        reader, writer = await connect(app, "127.0.0.2")
        writer.write(b"Ann\rhunter22\r")
        assert b"SESSION user=Ann" in await expect(reader, "SESSION")
        writer.close()
    finally:
        await app.shutdown()


async def test_the_dialogue_ends_when_the_last_attempt_is_used(app: App) -> None:
    for _ in range(9):
        await sign_up(app, "127.0.0.2", "Sys-0p")
    reader, writer = await connect(app, "127.0.0.2")
    try:
        writer.write(b"new\r")
        await expect(reader, "Choose a name: ")
        writer.write(b"root\rpw1234\rpw1234\r")  # the tenth refused attempt
        got = await expect_any(reader, ("Choose a name: ", "\r\nName: "))
        assert b"reserved" in got
        assert b"Choose a name: " not in got.split(b"reserved", 1)[1]
    finally:
        writer.close()
