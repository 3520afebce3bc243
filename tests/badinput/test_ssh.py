"""SSH: wrong credentials, garbage instead of the protocol, garbage on the channel, silly
window sizes and half-finished handshakes. The bystander (telnet) is never disturbed."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import asyncssh
import pytest

from door.app import App
from tests.badinput.conftest import (
    PASSWORD,
    Bystander,
    Screen,
    closed_or_prompt,
    not_menu_keys,
    user_names,
    wait_slots,
)


async def ssh_connect(app: App, username: str, **kw: Any) -> asyncssh.SSHClientConnection:
    return await asyncssh.connect(
        "127.0.0.1", app.ports["ssh"], username=username, known_hosts=None,
        client_keys=kw.pop("client_keys", None), **kw,
    )  # fmt: skip


async def ssh_shell(app: App, name: str) -> tuple[asyncssh.SSHClientConnection, Any, Screen]:
    """``name`` (registered here) logged in over SSH at the main menu."""
    assert app.services is not None
    await app.services.accounts.register(name, PASSWORD)
    conn = await ssh_connect(app, name, password=PASSWORD)
    proc = await conn.create_process(term_type="xterm-256color", term_size=(80, 24),
                                     encoding=None)  # fmt: skip
    screen = Screen(proc.stdout)
    await screen.wait_for("Main Menu")
    return conn, proc, screen


async def test_a_wrong_key_is_refused(server: App, bystander: Bystander) -> None:
    assert server.services is not None
    user = await server.services.accounts.register("Alice", PASSWORD)
    theirs = asyncssh.generate_private_key("ssh-ed25519")
    await server.services.accounts.add_key(user.id, theirs.export_public_key().decode())
    wrong = asyncssh.generate_private_key("ssh-ed25519")
    with pytest.raises(asyncssh.PermissionDenied):
        await ssh_connect(server, "Alice", client_keys=[wrong], password=None,
                          preferred_auth="publickey")  # fmt: skip
    await bystander.poke()


async def test_a_wrong_password_is_refused(server: App, bystander: Bystander) -> None:
    assert server.services is not None
    await server.services.accounts.register("Alice", PASSWORD)
    with pytest.raises(asyncssh.PermissionDenied):
        await ssh_connect(server, "Alice", password="not-it")
    await bystander.poke()


async def test_sql_injection_as_the_ssh_user_name_is_just_refused(
    server: App, bystander: Bystander
) -> None:
    for name in ("Watcher' --", "' OR 1=1 --", "%"):
        with pytest.raises(asyncssh.PermissionDenied):
            await ssh_connect(server, name, password="' OR ''='")
    assert await user_names(server) == {"Watcher"}
    await bystander.poke()


async def test_binary_garbage_instead_of_the_ssh_protocol_is_closed(
    server: App, bystander: Bystander
) -> None:
    rng = random.Random(7)
    for junk in (rng.randbytes(100_000), b"SSH-2.0-x\r\n" + rng.randbytes(50_000)):
        reader, writer = await asyncio.open_connection("127.0.0.1", server.ports["ssh"])
        try:
            writer.write(junk)
            await writer.drain()
        except (ConnectionError, OSError):
            pass
        await closed_or_prompt(reader, b"\x00never", timeout=10)
        writer.close()
    await wait_slots(server, 1)
    await bystander.poke()


async def test_a_client_that_disconnects_mid_handshake_releases_its_slot(
    server: App, bystander: Bystander
) -> None:
    for cut in (b"", b"SSH-2.0-OpenSSH_9.2\r\n", b"SSH-2.0-OpenSSH_9.2\r\n\x00\x00\x01"):
        reader, writer = await asyncio.open_connection("127.0.0.1", server.ports["ssh"])
        await reader.readline()  # the server's version line
        writer.write(cut)
        writer.close()
    await wait_slots(server, 1)
    await bystander.poke()


async def test_binary_garbage_on_the_channel_leaves_the_session_working(
    server: App, bystander: Bystander
) -> None:
    conn, proc, screen = await ssh_shell(server, "Mallory")
    rng = random.Random(11)
    # 20 KB of every byte but the menu's keys: thousands of key events for the menu.
    junk = not_menu_keys(rng.randbytes(20_000))
    proc.stdin.write(junk)
    await bystander.poke(timeout=5)
    await asyncio.sleep(0.5)
    proc.stdin.write(b"\x0cs")
    await screen.wait_for("Sound effects are OFF", timeout=20)
    conn.close()
    await screen.stop()
    await bystander.poke()


async def test_ssh_window_sizes_0x0_and_65535x65535_are_clamped(
    server: App, bystander: Bystander
) -> None:
    conn, proc, screen = await ssh_shell(server, "Mallory")
    proc.change_terminal_size(0, 0)
    proc.stdin.write(b"s")
    await screen.wait_for("Sound effects are OFF")
    before = len(screen.raw)
    proc.change_terminal_size(65535, 65535)
    proc.stdin.write(b"s")
    await screen.wait_for("Sound effects are ON")
    assert len(screen.raw) - before < 64_000
    conn.close()
    await screen.stop()
    await bystander.poke()


async def test_ten_megabyte_paste_over_ssh_is_absorbed(server: App, bystander: Bystander) -> None:
    conn, proc, screen = await ssh_shell(server, "Mallory")
    proc.stdin.write(b"z" * 10_000_000)
    await bystander.poke(timeout=5)
    await proc.stdin.drain()
    proc.stdin.write(b"\x0cs")
    await screen.wait_for("Sound effects are OFF", timeout=30)
    conn.close()
    await screen.stop()
    await bystander.poke()


async def test_a_session_without_a_terminal_is_told_and_closed(
    server: App, bystander: Bystander
) -> None:
    assert server.services is not None
    await server.services.accounts.register("Alice", PASSWORD)
    async with await ssh_connect(server, "Alice", password=PASSWORD) as conn:
        proc = await conn.create_process(encoding=None)  # no command, no pty
        told = await asyncio.wait_for(proc.stdout.read(), 10)
    assert b"needs an interactive terminal" in told
    await bystander.poke()


async def test_a_shell_command_is_refused_as_an_unknown_door_command(
    server: App, bystander: Bystander
) -> None:
    assert server.services is not None
    await server.services.accounts.register("Alice", PASSWORD)
    async with await ssh_connect(server, "Alice", password=PASSWORD) as conn:
        result = await asyncio.wait_for(conn.run("rm -rf /", encoding=None), 10)
    assert (result.stdout, result.exit_status) == (b"", 2)
    assert b"unknown command 'rm'" in (result.stderr or b"")
    await bystander.poke()


async def test_new_user_over_ssh_with_escapes_in_the_name_gets_a_clean_name(
    server: App, bystander: Bystander
) -> None:
    async with await ssh_connect(server, "new") as conn:
        proc = await conn.create_process(term_type="xterm", term_size=(80, 24), encoding=None)
        screen = Screen(proc.stdout)
        await screen.wait_for("Choose a name")
        proc.stdin.write(b"\x1b[1mBo\x00ld\x1b[0m\x07\r")
        await screen.wait_for("Choose a password")
        proc.stdin.write(b"secret\rsecret\r")
        await screen.wait_for("Main Menu")
        await screen.stop()
    assert await user_names(server) == {"Watcher", "Bold"}
    await bystander.poke()
