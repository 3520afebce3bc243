"""SSH: password and key login against the accounts, `new` registers, resize, host key."""

from __future__ import annotations

import asyncio
import stat
from pathlib import Path
from typing import Any

import asyncssh
import pytest

from door.app import App
from door.net.ssh import HOST_KEY_NAME, load_host_key
from tests.net.conftest import expect


async def ssh_connect(app: App, username: str, **kw: Any) -> asyncssh.SSHClientConnection:
    return await asyncssh.connect(
        "127.0.0.1", app.ports["ssh"], username=username, known_hosts=None,
        client_keys=kw.pop("client_keys", None), **kw,
    )


async def open_shell(conn: asyncssh.SSHClientConnection, term: str = "xterm-256color",
                     size: tuple[int, int] = (100, 30), env: dict[str, str] | None = None
                     ) -> Any:
    return await conn.create_process(
        term_type=term, term_size=size, encoding=None, env=env or {}
    )


async def test_password_login_reaches_the_session(app: App) -> None:
    await app.services.accounts.register("alice", "secret1")
    async with await ssh_connect(app, "alice", password="secret1") as conn:
        proc = await open_shell(conn)
        got = await expect(proc.stdout, "size=")
        assert b"SESSION user=alice" in got
        assert b"enc=utf-8 size=100x30" in got
        proc.stdin.write(b"q")
        await proc.wait_closed()


async def test_wrong_password_is_refused(app: App) -> None:
    await app.services.accounts.register("alice", "secret1")
    with pytest.raises(asyncssh.PermissionDenied):
        await ssh_connect(app, "alice", password="nope")


async def test_public_key_login(app: App) -> None:
    user = await app.services.accounts.register("alice", "secret1")
    key = asyncssh.generate_private_key("ssh-ed25519")
    await app.services.accounts.add_key(user.id, key.export_public_key().decode())
    async with await ssh_connect(app, "alice", client_keys=[key]) as conn:
        proc = await open_shell(conn)
        assert b"SESSION user=alice" in await expect(proc.stdout, "SESSION")
        proc.stdin.write(b"q")
        await proc.wait_closed()


async def test_someone_elses_key_is_refused(app: App) -> None:
    await app.services.accounts.register("alice", "secret1")
    bob = await app.services.accounts.register("bob", "secret2")
    key = asyncssh.generate_private_key("ssh-ed25519")
    await app.services.accounts.add_key(bob.id, key.export_public_key().decode())
    with pytest.raises(asyncssh.PermissionDenied):
        await ssh_connect(app, "alice", client_keys=[key])


async def test_user_new_registers_inside_the_session(app: App) -> None:
    async with await ssh_connect(app, "new") as conn:
        proc = await open_shell(conn)
        await expect(proc.stdout, "Choose a name: ")
        proc.stdin.write(b"Carol\r")
        await expect(proc.stdout, "Choose a password: ")
        proc.stdin.write(b"pw12345\r")
        await expect(proc.stdout, "again: ")
        proc.stdin.write(b"pw12345\r")
        assert b"SESSION user=Carol" in await expect(proc.stdout, "SESSION")
        proc.stdin.write(b"q")
        await proc.wait_closed()
    assert await app.services.accounts.authenticate("carol", "pw12345") is not None


async def test_the_ssh_sign_up_says_esc_leaves_and_esc_does(app: App) -> None:
    # over SSH there is no name prompt to go back to: the hint says what Esc really does
    async with await ssh_connect(app, "new") as conn:
        proc = await open_shell(conn)
        shown = await expect(proc.stdout, "Choose a name: ")
        assert b"Press Esc to leave." in shown
        proc.stdin.write(b"\x1b")
        await asyncio.wait_for(proc.wait_closed(), 10)


async def test_window_change_is_a_resize_event(app: App) -> None:
    await app.services.accounts.register("alice", "secret1")
    async with await ssh_connect(app, "alice", password="secret1") as conn:
        proc = await open_shell(conn)
        await expect(proc.stdout, "SESSION")
        proc.change_terminal_size(132, 50)
        assert b"Resize(width=132, height=50)" in await expect(proc.stdout, "Resize")
        proc.stdin.write(b"q")
        await proc.wait_closed()


async def test_keys_arrive_raw_without_line_editing(app: App) -> None:
    await app.services.accounts.register("alice", "secret1")
    async with await ssh_connect(app, "alice", password="secret1") as conn:
        proc = await open_shell(conn)
        await expect(proc.stdout, "SESSION")
        proc.stdin.write(b"\x1b[B")
        assert b"Key(name='down')" in await expect(proc.stdout, "Key(")
        proc.stdin.write(b"q")
        await proc.wait_closed()


async def test_bbs_terminal_type_gets_cp437(app: App) -> None:
    await app.services.accounts.register("alice", "secret1")
    async with await ssh_connect(app, "alice", password="secret1") as conn:
        proc = await open_shell(conn, term="syncterm", size=(80, 25))
        assert b"enc=cp437 size=80x25" in await expect(proc.stdout, "size=")
        proc.stdin.write(b"q")
        await proc.wait_closed()


async def test_lang_utf8_beats_an_unknown_terminal_type(app: App) -> None:
    await app.services.accounts.register("alice", "secret1")
    async with await ssh_connect(app, "alice", password="secret1") as conn:
        proc = await open_shell(conn, term="foo", env={"LANG": "en_US.UTF-8"})
        assert b"enc=utf-8" in await expect(proc.stdout, "size=")
        proc.stdin.write(b"q")
        await proc.wait_closed()


def test_host_key_is_created_once_with_mode_0600(tmp_path: Path) -> None:
    first = load_host_key(tmp_path / HOST_KEY_NAME)
    mode = stat.S_IMODE((tmp_path / HOST_KEY_NAME).stat().st_mode)
    second = load_host_key(tmp_path / HOST_KEY_NAME)
    assert mode == 0o600
    assert first.get_fingerprint() == second.get_fingerprint()
    assert first.get_algorithm() == "ssh-ed25519"


async def test_blocked_address_is_refused_with_a_banner(app: App) -> None:
    await app.services.accounts.register("alice", "secret1")
    for _ in range(app.guard.block_after):
        app.guard.record_failure("127.0.0.1")
    banners: list[str] = []

    class Client(asyncssh.SSHClient):
        def auth_banner_received(self, msg: str, lang: str) -> None:
            banners.append(msg)

    with pytest.raises(asyncssh.PermissionDenied):
        await asyncssh.connect(
            "127.0.0.1", app.ports["ssh"], username="alice", password="secret1",
            known_hosts=None, client_keys=None, client_factory=Client,
        )  # fmt: skip
    assert banners and "Too many failed logins" in banners[0]
