"""Password guessing: every try counted against the address and the name, on every
transport, checked inside open connections, capped per connection; the SSH version line.

Real servers on 127.0.0.1; per-address cases connect from 127.0.0.2, 127.0.0.3, …
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import asyncssh
import pytest

from door.app import App
from door.net.limits import ADDRESS_BLOCKED, LoginAttempt, LoginGuard
from tests.net.conftest import echo_runner, expect, make_config
from tests.net.test_limits import FakeClock


@pytest.fixture
async def start_app(tmp_path: Path) -> AsyncIterator[Callable[..., Any]]:
    """Start a server with ``[limits]`` overrides; alice (password secret1) exists."""
    apps: list[App] = []

    async def start(**limits: Any) -> App:
        config = make_config(tmp_path, **limits)
        app = App(config, runner=echo_runner)
        await app.start(telnet_port=0, ssh_port=0, rlogin_port=None)
        apps.append(app)
        await app.services.accounts.register("alice", "secret1")
        return app

    yield start
    for app in apps:
        await app.shutdown()


def count_password_checks(app: App) -> list[str]:
    """Every password the accounts service checks, as it checks it."""
    checked: list[str] = []
    accounts = app.services.accounts
    real = accounts.authenticate

    async def counting(name: str, password: str) -> Any:
        checked.append(password)
        return await real(name, password)

    accounts.authenticate = counting
    return checked


class Guesser(asyncssh.SSHClient):
    """An SSH client that offers the passwords it is given, one per request."""

    def __init__(self, passwords: list[str], before: asyncio.Event | None = None) -> None:
        self.passwords = list(passwords)
        self.offered = 0
        self.before = before

    def password_auth_requested(self) -> Any:
        if not self.passwords:
            return None
        self.offered += 1
        password = self.passwords.pop(0)
        if self.before is None:
            return password
        before = self.before

        async def later() -> str:
            await before.wait()
            return password

        return later()


async def ssh_guess(app: App, passwords: list[str], source: str = "127.0.0.1",
                    user: str = "alice", before: asyncio.Event | None = None,
                    ) -> tuple[Guesser, BaseException | None]:
    """Connect from ``source`` and try ``passwords`` in one connection."""
    client = Guesser(passwords, before)
    try:
        conn = await asyncssh.connect(
            "127.0.0.1", app.ports["ssh"], username=user, known_hosts=None,
            client_keys=None, client_factory=lambda: client, local_addr=(source, 0),
            preferred_auth="password",
        )
    except (asyncssh.Error, OSError) as exc:
        return client, exc
    conn.close()
    return client, None


async def telnet_login(app: App, name: str, password: str, source: str) -> tuple[Any, Any, bytes]:
    """A raw telnet client from ``source`` that types a name and a password."""
    reader, writer = await asyncio.open_connection(
        "127.0.0.1", app.ports["telnet"], local_addr=(source, 0)
    )
    await expect(reader, "Name: ")
    writer.write(name.encode() + b"\r" + password.encode() + b"\r")
    got = await expect(reader, "\r\n\r\n")  # the answer after the password line
    return reader, writer, got


async def read_until_closed(reader: Any, timeout: float = 10.0) -> bytes:
    got = b""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while loop.time() < end:
        chunk = await asyncio.wait_for(reader.read(4096), end - loop.time())
        if not chunk:
            return got
        got += chunk
    raise AssertionError(f"still open; got {got[-300:]!r}")


# -- SSH inside one connection ------------------------------------------------------------


async def test_ssh_connection_is_closed_after_three_wrong_passwords(start_app: Any) -> None:
    app = await start_app()
    checked = count_password_checks(app)
    client, error = await ssh_guess(app, [f"wrong{i}" for i in range(8)], "127.0.0.2")
    assert isinstance(error, asyncssh.PermissionDenied)
    assert len(checked) == 3
    assert client.offered == 3


async def test_max_auth_tries_is_configurable(start_app: Any) -> None:
    app = await start_app(max_auth_tries=5)
    checked = count_password_checks(app)
    _, error = await ssh_guess(app, [f"wrong{i}" for i in range(8)], "127.0.0.2")
    assert isinstance(error, asyncssh.PermissionDenied)
    assert len(checked) == 5


async def test_ssh_right_password_is_refused_once_the_address_is_blocked_mid_connection(
    start_app: Any,
) -> None:
    app = await start_app(login_failures_block=3)
    go = asyncio.Event()
    waiting = asyncio.create_task(ssh_guess(app, ["secret1"], "127.0.0.3", before=go))
    await asyncio.sleep(0.5)  # that connection is open, about to offer the password
    for i in range(3):
        await ssh_guess(app, [f"wrong{i}"], "127.0.0.3")
    assert app.guard.blocked_for("127.0.0.3") > 0
    go.set()
    _, error = await asyncio.wait_for(waiting, 10)
    # Closed when its address was blocked (or refused when it tried): never logged in.
    assert isinstance(error, asyncssh.DisconnectError), "logged in although blocked"
    assert "Too many failed logins" in str(error)


async def test_concurrent_guesses_cannot_overshoot_the_block(start_app: Any) -> None:
    app = await start_app(login_failures_block=3, login_delay_s=0.3)
    checked = count_password_checks(app)
    results = await asyncio.gather(
        *(ssh_guess(app, [f"wrong{i}", f"again{i}"], "127.0.0.4") for i in range(10))
    )
    assert all(error is not None for _, error in results)
    assert len(checked) <= 3


async def test_one_ssh_connection_gets_at_most_one_session(start_app: Any) -> None:
    app = await start_app()
    async with asyncssh.connect(
        "127.0.0.1", app.ports["ssh"], username="alice", password="secret1",
        known_hosts=None, client_keys=None,
    ) as conn:
        first = await conn.create_process(term_type="xterm", encoding=None)
        await expect(first.stdout, "SESSION user=alice")
        second = await conn.create_process(term_type="xterm", encoding=None)
        got = await asyncio.wait_for(second.stdout.read(), 5)
        assert b"One session per connection" in got
        assert b"SESSION" not in got
        first.stdin.write(b"q")
        await first.wait_closed()


async def test_a_refused_ssh_connection_that_sits_idle_is_closed_soon(
    start_app: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("door.net.ssh.REFUSED_GRACE", 0.5)
    app = await start_app(login_failures_block=1)
    await ssh_guess(app, ["wrong"], "127.0.0.8")
    reader, writer = await asyncio.open_connection(
        "127.0.0.1", app.ports["ssh"], local_addr=("127.0.0.8", 0)
    )
    writer.write(b"SSH-2.0-idle\r\n")  # then nothing: it holds no slot, so it must not stay
    got = await asyncio.wait_for(reader.read(), 8)
    assert got.startswith(b"SSH-2.0-door")
    writer.close()


# -- every transport counts together ------------------------------------------------------


async def test_telnet_closes_the_connection_after_three_wrong_passwords(start_app: Any) -> None:
    app = await start_app()
    reader, writer = await asyncio.open_connection(
        "127.0.0.1", app.ports["telnet"], local_addr=("127.0.0.5", 0)
    )
    for i in range(2):
        await expect(reader, "Name: ")
        writer.write(f"alice\rwrong{i}\r".encode())
        await expect(reader, "wrong password")
    await expect(reader, "Name: ")
    writer.write(b"alice\rwrong2\r")
    rest = await read_until_closed(reader)
    assert b"wrong password" in rest and b"Goodbye" in rest
    assert b"Name: " not in rest
    writer.close()


async def test_telnet_and_ssh_failures_count_together_against_the_address(
    start_app: Any,
) -> None:
    app = await start_app(login_failures_block=4)
    for i in range(2):
        _, writer, got = await telnet_login(app, "alice", f"wrong{i}", "127.0.0.6")
        assert b"wrong password" in got
        writer.close()
    await ssh_guess(app, ["wrong2", "wrong3"], "127.0.0.6")
    assert app.guard.blocked_for("127.0.0.6") > 0
    _, error = await ssh_guess(app, ["secret1"], "127.0.0.6")
    assert isinstance(error, asyncssh.PermissionDenied)
    reader, writer = await asyncio.open_connection(
        "127.0.0.1", app.ports["telnet"], local_addr=("127.0.0.6", 0)
    )
    assert b"Too many failed logins" in await expect(reader, "Too many")
    writer.close()


async def test_blocking_an_address_closes_its_other_connections_at_the_prompt(
    start_app: Any,
) -> None:
    app = await start_app(login_failures_block=3)
    idle_reader, idle_writer = await asyncio.open_connection(
        "127.0.0.1", app.ports["telnet"], local_addr=("127.0.0.7", 0)
    )
    await expect(idle_reader, "Name: ")
    await ssh_guess(app, ["wrong0", "wrong1", "wrong2"], "127.0.0.7")
    rest = await read_until_closed(idle_reader, timeout=5)
    assert b"Too many failed logins" in rest
    idle_writer.close()


async def test_guesses_from_many_addresses_lock_the_name_briefly(start_app: Any) -> None:
    app = await start_app(account_failures_lock=3, account_lock_s=4.0)
    for i in range(3):
        await ssh_guess(app, [f"wrong{i}"], f"127.0.1.{i + 1}")
    _, error = await ssh_guess(app, ["secret1"], "127.0.1.9")
    assert isinstance(error, asyncssh.PermissionDenied), "the name was not locked"
    _, writer, got = await telnet_login(app, "ALICE", "secret1", "127.0.1.10")
    assert b"Too many failed logins for that name" in got
    writer.close()
    await asyncio.sleep(4.5)  # the lock is short: the real user gets in after it
    _, error = await ssh_guess(app, ["secret1"], "127.0.1.9")
    assert error is None


async def test_an_address_that_logged_in_before_is_spared_the_name_lock(start_app: Any) -> None:
    app = await start_app(account_failures_lock=3, account_lock_s=600.0)
    _, error = await ssh_guess(app, ["secret1"], "127.0.2.1")
    assert error is None
    for i in range(4):
        await ssh_guess(app, [f"wrong{i}"], f"127.0.2.{i + 2}")
    _, error = await ssh_guess(app, ["secret1"], "127.0.2.9")
    assert isinstance(error, asyncssh.PermissionDenied)
    _, error = await ssh_guess(app, ["secret1"], "127.0.2.1")
    assert error is None


async def test_the_key_login_is_not_locked_by_guesses_at_the_password(start_app: Any) -> None:
    app = await start_app(account_failures_lock=2, account_lock_s=600.0)
    user = await app.services.accounts.by_name("alice")
    key = asyncssh.generate_private_key("ssh-ed25519")
    await app.services.accounts.add_key(user.id, key.export_public_key().decode())
    for i in range(3):
        await ssh_guess(app, [f"wrong{i}"], f"127.0.3.{i + 1}")
    async with asyncssh.connect(
        "127.0.0.1", app.ports["ssh"], username="alice", known_hosts=None,
        client_keys=[key], local_addr=("127.0.3.9", 0),
    ) as conn:
        assert conn.get_extra_info("username") == "alice"


# -- nothing typed: a stray Enter at the password prompt is no guess -----------------------


class Answerer(asyncssh.SSHClient):
    """A keyboard-interactive client that answers each challenge with the next of
    ``answers`` and notes every prompt it was shown."""

    def __init__(self, answers: list[str]) -> None:
        self.answers = list(answers)
        self.prompts: list[str] = []

    def kbdint_auth_requested(self) -> str:
        return ""

    def kbdint_challenge_received(
        self, name: str, instructions: str, lang: str, prompts: Any
    ) -> list[str] | None:
        self.prompts.extend(prompt for prompt, _ in prompts)
        if not self.answers:
            return None
        return [self.answers.pop(0) for _ in prompts]


async def kbdint_answers(
    app: App, answers: list[str], source: str
) -> tuple[Answerer, BaseException | None]:
    """Connect from ``source`` as alice and answer the challenges with ``answers``."""
    client = Answerer(answers)
    try:
        conn = await asyncssh.connect(
            "127.0.0.1", app.ports["ssh"], username="alice", known_hosts=None,
            client_keys=None, client_factory=lambda: client, local_addr=(source, 0),
            preferred_auth="keyboard-interactive",
        )  # fmt: skip
    except (asyncssh.Error, OSError) as exc:
        return client, exc
    conn.close()
    return client, None


async def test_an_empty_ssh_answer_is_asked_again_saying_nothing_was_typed(
    start_app: Any,
) -> None:
    app = await start_app()
    checked = count_password_checks(app)
    client, error = await kbdint_answers(app, ["", "secret1"], "127.0.4.1")
    assert error is None
    assert client.prompts == ["Password:", "Password (nothing was typed):"]
    assert checked == ["secret1"]


async def test_an_empty_ssh_answer_costs_no_try(start_app: Any) -> None:
    app = await start_app()  # three wrong passwords close a connection
    _, error = await kbdint_answers(app, ["", "wrong0", "wrong1", "secret1"], "127.0.4.2")
    assert error is None


async def test_an_empty_ssh_answer_is_no_step_towards_the_name_lock(start_app: Any) -> None:
    app = await start_app(account_failures_lock=2, account_lock_s=600.0)
    for i in range(3):
        await kbdint_answers(app, [""], f"127.0.4.{i + 3}")
    _, error = await kbdint_answers(app, ["secret1"], "127.0.4.9")
    assert error is None


async def test_a_client_answering_nothing_for_ever_is_still_closed(start_app: Any) -> None:
    app = await start_app()
    client, error = await kbdint_answers(app, [""] * 20, "127.0.4.10")
    assert isinstance(error, asyncssh.PermissionDenied)
    assert len(client.prompts) == 3 + 3  # three asked again for free, then three tries


async def test_an_empty_password_by_the_password_method_costs_no_try(start_app: Any) -> None:
    app = await start_app()
    checked = count_password_checks(app)
    _, error = await ssh_guess(app, ["", "wrong0", "wrong1", "secret1"], "127.0.4.11")
    assert error is None
    assert checked == ["wrong0", "wrong1", "secret1"]


async def test_an_empty_telnet_password_is_asked_again_and_costs_no_try(start_app: Any) -> None:
    app = await start_app()
    checked = count_password_checks(app)
    reader, writer = await asyncio.open_connection(
        "127.0.0.1", app.ports["telnet"], local_addr=("127.0.4.12", 0)
    )
    await expect(reader, "Name: ")
    writer.write(b"alice\r\r")
    await expect(reader, "Nothing was typed. Password: ")
    for i in range(2):
        writer.write(f"wrong{i}\r".encode())
        await expect(reader, "wrong password")
        await expect(reader, "Name: ")
        writer.write(b"alice\r")
        await expect(reader, "Password: ")
    writer.write(b"secret1\r")
    await expect(reader, "SESSION user=alice")
    assert checked == ["wrong0", "wrong1", "secret1"]
    writer.close()


# -- the SSH version line -----------------------------------------------------------------


async def test_ssh_version_line_names_neither_the_library_nor_its_version(
    start_app: Any,
) -> None:
    app = await start_app()
    reader, writer = await asyncio.open_connection("127.0.0.1", app.ports["ssh"])
    line = await asyncio.wait_for(reader.readline(), 5)
    writer.close()
    assert line == b"SSH-2.0-door\r\n"
    assert b"asyncssh" not in line.lower()
    assert asyncssh.__version__.encode() not in line


async def test_ssh_version_is_configurable(tmp_path: Path) -> None:
    config = make_config(tmp_path)
    config = replace(config, server=replace(config.server, ssh_version="BBS_1"))
    app = App(config, runner=echo_runner)
    await app.start(telnet_port=None, ssh_port=0, rlogin_port=None)
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", app.ports["ssh"])
        assert await asyncio.wait_for(reader.readline(), 5) == b"SSH-2.0-BBS_1\r\n"
        writer.close()
    finally:
        await app.shutdown()


# -- the bookkeeping ----------------------------------------------------------------------


async def test_a_check_beyond_the_budget_waits_for_those_in_flight() -> None:
    guard = LoginGuard(block_after=2)
    first = await guard.start("x", "alice")
    second = await guard.start("x", "bob")
    assert isinstance(first, LoginAttempt) and isinstance(second, LoginAttempt)
    third = asyncio.create_task(guard.start("x", "carol"))
    await asyncio.sleep(0.2)
    assert not third.done()  # two in flight could both fail: that would use the budget
    first.succeeded()
    got = await asyncio.wait_for(third, 2)
    assert isinstance(got, LoginAttempt)
    second.failed()
    got.failed()
    assert await guard.start("x", "dave") == ADDRESS_BLOCKED


async def test_many_people_logging_in_at_once_from_one_address_are_not_refused() -> None:
    guard = LoginGuard(block_after=3)

    async def log_in(i: int) -> bool:
        attempt = await guard.start("gateway", f"user{i}")
        if isinstance(attempt, str):
            return False
        await asyncio.sleep(0.05)  # the password check
        attempt.succeeded()
        return True

    assert all(await asyncio.gather(*(log_in(i) for i in range(20))))


def test_name_lock_is_short_and_spares_familiar_addresses() -> None:
    clock = FakeClock()
    guard = LoginGuard(account_lock_after=3, account_lock=60, clock=clock)
    guard.record_success("home", "Alice")
    for i in range(3):
        guard.record_failure(f"bot{i}", "alice")
    assert guard.account_locked_for("ALICE", "elsewhere") > 0
    assert guard.account_locked_for("alice", "home") == 0
    clock.now += 61
    assert guard.account_locked_for("alice", "elsewhere") == 0


def test_blocking_calls_on_block_once_the_limit_is_reached() -> None:
    blocked: list[str] = []
    guard = LoginGuard(block_after=2, clock=FakeClock(), on_block=blocked.append)
    guard.record_failure("x")
    assert blocked == []
    guard.record_failure("x")
    assert blocked == ["x"]
