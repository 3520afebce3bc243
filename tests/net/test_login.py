"""Logging in over telnet against the real accounts service."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path
from typing import Any

import telnetlib3

from door.app import App
from door.services import build_services
from door.ui.terminal import Hangup
from tests.net.conftest import echo_runner, expect, make_config


async def connect(app: App) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    reader, writer = await telnetlib3.open_connection(
        "127.0.0.1", app.ports["telnet"], encoding=False, term="xterm", cols=80, rows=24,
        connect_minwait=0.05,
    )
    await expect(reader, "Name: ")
    return reader, writer  # type: ignore[return-value]


async def test_good_password_reaches_the_session(app: App) -> None:
    await app.services.accounts.register("alice", "secret1")
    reader, writer = await connect(app)
    writer.write(b"alice\r")
    await expect(reader, "Password: ")
    writer.write(b"secret1\r")
    assert b"SESSION user=alice" in await expect(reader, "SESSION")
    writer.close()


async def test_password_is_not_echoed(app: App) -> None:
    await app.services.accounts.register("alice", "secret1")
    reader, writer = await connect(app)
    writer.write(b"alice\r")
    await expect(reader, "Password: ")
    writer.write(b"secret1\r")
    got = await expect(reader, "SESSION")
    assert b"secret1" not in got
    writer.close()


async def test_unknown_user_and_wrong_password_get_the_same_message(app: App) -> None:
    await app.services.accounts.register("alice", "secret1")
    reader, writer = await connect(app)
    writer.write(b"alice\r")
    await expect(reader, "Password: ")
    writer.write(b"wrong\r")
    wrong = await expect(reader, "Name: ")
    writer.write(b"nobody\r")
    await expect(reader, "Password: ")
    writer.write(b"secret1\r")
    unknown = await expect(reader, "Name: ")
    assert b"Unknown name or wrong password." in wrong
    assert b"Unknown name or wrong password." in unknown
    writer.close()


async def test_the_telnet_sign_up_says_esc_goes_back_to_the_name_prompt(app: App) -> None:
    reader, writer = await connect(app)
    writer.write(b"new\r")
    assert b"Press Esc to go back." in await expect(reader, "Choose a name: ")
    writer.write(b"\x1b")
    await expect(reader, "Name: ")
    writer.close()


async def test_new_registers_with_the_password_twice(app: App) -> None:
    reader, writer = await connect(app)
    writer.write(b"new\r")
    await expect(reader, "Choose a name: ")
    writer.write(b"Bob\r")
    await expect(reader, "Choose a password: ")
    writer.write(b"hunter22\r")
    await expect(reader, "again: ")
    writer.write(b"hunter22\r")
    assert b"SESSION user=Bob" in await expect(reader, "SESSION")
    writer.close()
    assert await app.services.accounts.authenticate("bob", "hunter22") is not None


async def test_mismatched_passwords_ask_again(app: App) -> None:
    reader, writer = await connect(app)
    writer.write(b"new\r")
    await expect(reader, "Choose a name: ")
    writer.write(b"Bob\rhunter22\rhunter23\r")
    assert b"differ" in await expect(reader, "Choose a name: ")
    assert await app.services.accounts.by_name("Bob") is None
    writer.close()


async def test_taken_name_is_explained_and_nothing_is_lost(app: App) -> None:
    await app.services.accounts.register("alice", "secret1")
    reader, writer = await connect(app)
    writer.write(b"new\r")
    await expect(reader, "Choose a name: ")
    writer.write(b"ALICE\rpw1234\rpw1234\r")
    assert b"Sorry:" in await expect(reader, "Choose a name: ")
    assert await app.services.accounts.authenticate("alice", "secret1") is not None
    writer.close()


async def test_backspace_edits_the_name(app: App) -> None:
    await app.services.accounts.register("alice", "secret1")
    reader, writer = await connect(app)
    writer.write(b"alicx\x7fe\r")
    await expect(reader, "Password: ")
    writer.write(b"secret1\r")
    assert b"SESSION user=alice" in await expect(reader, "SESSION")
    writer.close()


async def test_overlong_input_is_cut_at_the_line_cap(tmp_path: Path) -> None:
    config = make_config(tmp_path, max_line=16)
    app = App(config, runner=echo_runner)
    await app.start(telnet_port=0, ssh_port=None, rlogin_port=None)
    try:
        reader, writer = await connect(app)
        writer.write(b"x" * 5000 + b"\r")
        got = await expect(reader, "Password: ")
        assert b"x" * 17 not in got
        assert b"\x07" in got
        writer.close()
    finally:
        await app.shutdown()


async def test_address_is_blocked_after_repeated_failures(tmp_path: Path) -> None:
    config = make_config(tmp_path, login_failures_block=3)
    app = App(config, runner=echo_runner)
    await app.start(telnet_port=0, ssh_port=None, rlogin_port=None)
    try:
        await app.services.accounts.register("alice", "secret1")
        reader, writer = await connect(app)
        for _ in range(2):
            writer.write(b"alice\rbad\r")
            await expect(reader, "wrong password")
        writer.write(b"alice\rbad\r")
        assert b"Too many failed logins" in await expect(reader, "Too many")
        writer.close()
        again_r, again_w = await telnetlib3.open_connection(
            "127.0.0.1", app.ports["telnet"], encoding=False, connect_minwait=0.05
        )
        assert b"Too many failed logins" in await expect(again_r, "Try again")
        again_w.close()
    finally:
        await app.shutdown()


async def test_remembered_charset_choice_overrides_detection(app: App) -> None:
    user = await app.services.accounts.register("alice", "secret1")
    await app.services.accounts.update_settings(user.id, charset="cp437")
    reader, writer = await connect(app)
    writer.write(b"alice\rsecret1\r")
    assert b"enc=cp437" in await expect(reader, "size=")
    writer.close()


async def test_banned_user_cannot_log_in(app: App) -> None:
    await app.services.accounts.register("alice", "secret1")
    await app.services.accounts.set_banned("alice", True)
    reader, writer = await connect(app)
    writer.write(b"alice\rsecret1\r")
    got = await expect(reader, "Name: ")
    assert b"Unknown name or wrong password." in got
    assert b"SESSION" not in got
    writer.close()


async def test_shutdown_tells_every_session_and_lets_it_finish(tmp_path: Path) -> None:
    config = make_config(tmp_path)
    config = replace(config, limits=replace(config.limits, shutdown_grace_s=5.0))

    async def saves_on_hangup(terminal: Any, services: Any, user: Any, **_: Any) -> None:
        terminal.write("SESSION\r\n")
        await terminal.drain()
        event = await terminal.read_event()
        assert isinstance(event, Hangup)
        await asyncio.sleep(0.3)  # work still in flight when the server stops
        await services.accounts.update_settings(user.id, sound=False)

    app = App(config, runner=saves_on_hangup)
    await app.start(telnet_port=0, ssh_port=None, rlogin_port=None)
    await app.services.accounts.register("alice", "secret1")
    reader, writer = await connect(app)
    writer.write(b"alice\rsecret1\r")
    await expect(reader, "SESSION")
    await app.shutdown()
    got = await expect(reader, "shutting down")
    got += await asyncio.wait_for(reader.read(1000), 2)
    assert got.endswith(b"\x1b[0m\x1b[?25h")  # attributes reset, cursor shown
    assert await asyncio.wait_for(reader.read(1000), 2) == b""
    writer.close()
    services = await build_services(config, start_background=False)
    try:
        user = await services.accounts.by_name("alice")
        assert user is not None and user.settings.sound is False
    finally:
        await services.close()
