"""SSH exec requests: `ssh -p 2222 alice@host export 12 mat > game12.mat`.

First the transport alone (door/net/ssh.py with a stand-in handler): what a command is
handed, how its answer goes back, and the limits it keeps. Then the whole server with the
real services, asked by asyncssh's client and by OpenSSH's `ssh`.
"""

from __future__ import annotations

import asyncio
import os
import shutil
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import asyncssh
import pytest

from door.app import App
from door.net.base import ConnectionSettings
from door.net.limits import ConnectionLimiter
from door.net.ssh import (
    COMMAND_FAILED,
    COMMAND_TIMED_OUT,
    COMMAND_TOO_LONG,
    MAX_COMMAND,
    NEW_USER_COMMAND,
    NO_COMMANDS,
    ONE_SESSION,
    ExecHandler,
    ExecRequest,
    ExecResult,
    SSHSettings,
    start_ssh,
)
from door.services.accounts import User
from door.services.games import GameInfo
from tests.net.conftest import echo_runner, expect, make_config
from tests.services.test_remote import finished_backgammon

# --- the transport alone ----------------------------------------------------------------------


@dataclass(frozen=True)
class Account:
    id: int
    name: str
    is_banned: bool = False


class OneAccount:
    """Accounts with one user, alice (password ``pw``, id 7)."""

    alice = Account(7, "alice")

    async def authenticate(self, name: str, password: str) -> Account | None:
        return self.alice if (name, password) == ("alice", "pw") else None

    async def by_key(self, line: str) -> Account | None:
        return None


@dataclass
class Transport:
    """A bare SSH listener: its port, its limiter, the requests its handler was given."""

    port: int
    limiter: ConnectionLimiter
    requests: list[ExecRequest]


Answer = Callable[[ExecRequest], Awaitable[ExecResult]]


@pytest.fixture
async def listen() -> AsyncIterator[Callable[..., Awaitable[Transport]]]:
    """Start an SSH listener whose exec requests ``answer`` (or None: no handler)."""
    acceptors: list[asyncssh.SSHAcceptor] = []

    async def start(answer: Answer | None, *, exec_timeout: float = 5.0) -> Transport:
        limiter = ConnectionLimiter(10, 10)
        requests: list[ExecRequest] = []
        handler: ExecHandler | None = None
        if answer is not None:
            async def handler(request: ExecRequest) -> ExecResult:
                requests.append(request)
                return await answer(request)

        async def no_terminal(terminal: Any, user: Any) -> None:
            raise AssertionError("an exec request became a terminal session")

        acceptor = await start_ssh(
            "127.0.0.1", 0, no_terminal,
            accounts=OneAccount(),
            host_key=asyncssh.generate_private_key("ssh-ed25519"),
            settings=SSHSettings(
                ConnectionSettings(idle_timeout=30, idle_warning=5, max_buffer=65536,
                                   probe_timeout=0.3, backlog=16),
                exec_timeout=exec_timeout,
            ),
            limiter=limiter,
            on_exec=handler,
        )  # fmt: skip
        acceptors.append(acceptor)
        return Transport(acceptor.get_port(), limiter, requests)

    yield start
    for acceptor in acceptors:
        acceptor.close()
        await acceptor.wait_closed()


def connect(port: int, username: str = "alice", **kw: Any) -> Any:
    kw.setdefault("password", "pw")
    kw.setdefault("client_keys", None)
    return asyncssh.connect("127.0.0.1", port, username=username, known_hosts=None, **kw)


async def run(port: int, command: str, username: str = "alice", **kw: Any
              ) -> asyncssh.SSHCompletedProcess:
    async with connect(port, username, **kw) as conn:
        return await asyncio.wait_for(conn.run(command, encoding=None, check=False), 10)


def answer_with(result: ExecResult) -> Answer:
    async def answer(request: ExecRequest) -> ExecResult:
        return result

    return answer


async def settled(limiter: ConnectionLimiter) -> int:
    """The limiter's count once the server has seen the last connection go."""
    for _ in range(100):
        if limiter.total == 0:
            break
        await asyncio.sleep(0.02)
    return limiter.total


async def test_the_handler_gets_the_account_and_the_command_line_as_sent(listen: Any) -> None:
    served = await listen(answer_with(ExecResult(b"ok\n")))
    done = await run(served.port, "export 12 'a b' \"c\"")
    assert done.exit_status == 0
    (request,) = served.requests
    assert (request.user_id, request.user_name) == (7, "alice")
    assert request.command == "export 12 'a b' \"c\""
    assert request.peer.startswith("127.0.0.1:")


async def test_stdout_arrives_byte_for_byte_without_a_pty(listen: Any) -> None:
    raw = b"line 1\nline 2\r\n\x00\xff\xfe\x1b[2J" + bytes(range(256)) * 64
    served = await listen(answer_with(ExecResult(raw)))
    done = await run(served.port, "export 12")
    assert done.stdout == raw
    assert done.stderr == b""
    assert done.exit_status == 0


async def test_the_message_goes_to_stderr_and_the_status_is_the_handlers(listen: Any) -> None:
    served = await listen(answer_with(ExecResult(b"", "door: no such thing", 3)))
    done = await run(served.port, "frob")
    assert (done.stdout, done.stderr, done.exit_status) == (b"", b"door: no such thing\n", 3)


async def test_a_login_without_a_command_is_still_the_interactive_one(listen: Any) -> None:
    served = await listen(answer_with(ExecResult(b"exec\n")))
    async with connect(served.port) as conn:
        proc = await conn.create_process(encoding=None)  # no command, no pty
        got = await asyncio.wait_for(proc.stdout.read(), 5)
        await proc.wait_closed()
    assert b"door needs an interactive terminal" in got
    assert served.requests == []


async def test_the_new_sign_up_name_with_a_command_is_refused_with_status_2(
    listen: Any
) -> None:
    served = await listen(answer_with(ExecResult(b"never\n")))
    done = await run(served.port, "export 12", username="new", password=None)
    assert (done.stdout, done.exit_status) == (b"", 2)
    assert done.stderr == NEW_USER_COMMAND.encode() + b"\n"
    assert served.requests == []


async def test_without_a_handler_every_command_is_refused_with_status_2(listen: Any) -> None:
    served = await listen(None)
    done = await run(served.port, "export 12")
    assert (done.stderr, done.exit_status) == (NO_COMMANDS.encode() + b"\n", 2)


async def test_an_overlong_command_is_refused_before_the_handler_sees_it(listen: Any) -> None:
    served = await listen(answer_with(ExecResult(b"never\n")))
    done = await run(served.port, "export " + "1" * MAX_COMMAND)
    assert (done.stderr, done.exit_status) == (COMMAND_TOO_LONG.encode() + b"\n", 2)
    assert served.requests == []


async def test_a_wrong_password_with_a_command_is_refused(listen: Any) -> None:
    served = await listen(answer_with(ExecResult(b"never\n")))
    with pytest.raises(asyncssh.PermissionDenied):
        await run(served.port, "export 12", password="wrong")
    assert served.requests == []


async def test_a_second_command_on_one_connection_is_refused_aside_from_stdout(
    listen: Any
) -> None:
    served = await listen(answer_with(ExecResult(b"ok\n")))
    async with connect(served.port) as conn:
        first = await conn.run("export 12", encoding=None, check=False)
        second = await conn.run("export 12", encoding=None, check=False)
    assert (first.stdout, first.exit_status) == (b"ok\n", 0)
    assert (second.stdout, second.exit_status) == (b"", 1)
    assert second.stderr == ONE_SESSION.encode() + b"\n"
    assert len(served.requests) == 1


async def test_a_handler_that_never_answers_is_stopped_at_the_deadline(listen: Any) -> None:
    async def never(request: ExecRequest) -> ExecResult:
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    served = await listen(never, exec_timeout=0.3)
    done = await run(served.port, "export 12")
    assert (done.stderr, done.exit_status) == (COMMAND_TIMED_OUT.encode() + b"\n", 1)
    assert await settled(served.limiter) == 0


async def test_a_handler_that_fails_ends_only_its_own_command(listen: Any) -> None:
    calls = 0

    async def flaky(request: ExecRequest) -> ExecResult:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise RuntimeError("a bug")
        return ExecResult(b"fine\n")

    served = await listen(flaky)
    first = await run(served.port, "export 12")
    assert (first.stderr, first.exit_status) == (COMMAND_FAILED.encode() + b"\n", 1)
    second = await run(served.port, "export 12")
    assert (second.stdout, second.exit_status) == (b"fine\n", 0)


async def test_a_command_holds_a_logged_in_slot_while_it_runs_and_gives_it_back(
    listen: Any
) -> None:
    seen: list[tuple[int, int]] = []
    limiter_box: list[ConnectionLimiter] = []

    async def look(request: ExecRequest) -> ExecResult:
        limiter = limiter_box[0]
        seen.append((limiter.total, limiter.preauth))
        return ExecResult(b"ok\n")

    served = await listen(look)
    limiter_box.append(served.limiter)
    await run(served.port, "export 12")
    assert seen == [(1, 0)]  # counted, and out of the pre-login pool (no login deadline)
    assert await settled(served.limiter) == 0


async def test_a_client_that_leaves_mid_command_ends_only_its_own_connection(
    listen: Any
) -> None:
    started, release = asyncio.Event(), asyncio.Event()

    async def slow(request: ExecRequest) -> ExecResult:
        if request.command == "slow":
            started.set()
            await release.wait()
        return ExecResult(b"x" * 100_000)

    served = await listen(slow)
    conn = await connect(served.port)
    task = asyncio.create_task(conn.run("slow", encoding=None, check=False))
    await asyncio.wait_for(started.wait(), 5)
    conn.abort()
    (gone,) = await asyncio.wait_for(asyncio.gather(task, return_exceptions=True), 5)
    assert isinstance(gone, Exception) or gone.exit_status is None
    release.set()
    done = await run(served.port, "fast")
    assert (len(done.stdout), done.exit_status) == (100_000, 0)
    assert await settled(served.limiter) == 0


async def test_a_client_that_stops_reading_is_cut_off_at_the_deadline(listen: Any) -> None:
    served = await listen(answer_with(ExecResult(b"y" * 20_000_000)), exec_timeout=0.5)
    async with connect(served.port) as conn:
        proc = await conn.create_process("export 12", encoding=None)
        # read nothing: asyncssh's flow control stops the server once its window is full
        await asyncio.wait_for(conn.wait_closed(), 10)
        assert proc.exit_status is None  # no status: the answer never finished
    assert await settled(served.limiter) == 0


async def test_garbage_on_stdin_is_ignored_and_the_answer_still_comes(listen: Any) -> None:
    gate = asyncio.Event()

    async def after_gate(request: ExecRequest) -> ExecResult:
        await gate.wait()
        return ExecResult(b"answer\n")

    served = await listen(after_gate)
    async with connect(served.port) as conn:
        proc = await conn.create_process("export 12", encoding=None)
        proc.stdin.write(os.urandom(50_000) + b"\x1b[6n\x03\x04")
        proc.stdin.write_eof()
        gate.set()
        out = await asyncio.wait_for(proc.stdout.read(), 5)
        await proc.wait_closed()
    assert (out, proc.exit_status) == (b"answer\n", 0)


async def test_garbage_instead_of_ssh_closes_that_connection_only(listen: Any) -> None:
    served = await listen(answer_with(ExecResult(b"still here\n")))
    reader, writer = await asyncio.open_connection("127.0.0.1", served.port)
    writer.write(b"SSH-2.0-x\r\n" + os.urandom(4096))
    await writer.drain()
    await asyncio.wait_for(reader.read(), 10)  # everything until the server closes it
    assert reader.at_eof()
    writer.close()
    done = await run(served.port, "export 12")
    assert (done.stdout, done.exit_status) == (b"still here\n", 0)
    assert await settled(served.limiter) == 0


# --- the whole server -------------------------------------------------------------------------


async def started(tmp_path: Path, **changes: Any) -> App:
    config = make_config(tmp_path, **changes.pop("limits", {}))
    public = changes.pop("public_finished", True)
    config = replace(config, games=replace(config.games, public_finished=public))
    server = App(config, runner=echo_runner)
    await server.start(telnet_port=0, ssh_port=0)
    return server


@pytest.fixture
async def door(tmp_path: Path) -> AsyncIterator[App]:
    """The server with finished games private to their players (and sysops)."""
    server = await started(tmp_path, public_finished=False)
    try:
        yield server
    finally:
        await server.shutdown()


@dataclass
class Players:
    alice: User
    bob: User
    carol: User
    game: GameInfo
    """A finished 1-point match alice played against bob."""


@pytest.fixture
async def players(door: App) -> Players:
    services: Any = door.services
    accounts = services.accounts
    alice = await accounts.register("alice", "alice-pw")
    bob = await accounts.register("bob", "bob-pw1")
    carol = await accounts.register("carol", "carol-pw")
    game = await finished_backgammon(services.games, alice, bob)
    return Players(alice, bob, carol, game)


async def door_run(app: App, user: str, password: str, command: str
                   ) -> asyncssh.SSHCompletedProcess:
    return await run(app.ports["ssh"], command, username=user, password=password)


async def hidden_message(app: App, game_id: int) -> bytes:
    """What a stranger is told about ``game_id``: door's words for a game not there."""
    from door.services.export import hidden

    return f"door: {hidden(game_id)}\n".encode()


async def test_asyncssh_a_strangers_private_game_is_refused_like_a_missing_one(
    door: App, players: Players
) -> None:
    gid = players.game.id
    private = await door_run(door, "carol", "carol-pw", f"export {gid} mat")
    missing = await door_run(door, "carol", "carol-pw", f"export {gid + 50} mat")
    assert (private.stdout, private.exit_status) == (b"", 1)
    assert private.stderr == await hidden_message(door, gid)
    assert missing.stderr == await hidden_message(door, gid + 50)
    assert missing.exit_status == 1


async def test_asyncssh_an_unknown_command_is_status_2_with_a_clear_message(
    door: App, players: Players
) -> None:
    done = await door_run(door, "alice", "alice-pw", "frobnicate 12")
    assert (done.stdout, done.exit_status) == (b"", 2)
    assert done.stderr == b"door: unknown command 'frobnicate'; `help` lists the commands\n"


async def test_asyncssh_a_missing_game_is_status_1(door: App, players: Players) -> None:
    done = await door_run(door, "alice", "alice-pw", "export 999 mat")
    assert (done.stdout, done.exit_status) == (b"", 1)
    assert done.stderr == await hidden_message(door, 999)


async def test_asyncssh_a_bad_format_is_status_2(door: App, players: Players) -> None:
    done = await door_run(door, "alice", "alice-pw", f"export {players.game.id} docx")
    assert (done.stdout, done.exit_status) == (b"", 2)
    assert b"there is no record format 'docx'" in done.stderr


async def test_asyncssh_help_lists_the_commands(door: App, players: Players) -> None:
    done = await door_run(door, "bob", "bob-pw1", "help")
    assert done.exit_status == 0 and b"export GAME [FORMAT]" in done.stdout


async def test_asyncssh_a_wrong_password_gets_no_command_run(door: App, players: Players
                                                             ) -> None:
    with pytest.raises(asyncssh.PermissionDenied):
        await door_run(door, "alice", "not-it", f"export {players.game.id} mat")


async def test_wrong_passwords_sent_with_commands_lock_the_account_like_any(
    tmp_path: Path
) -> None:
    app = await started(tmp_path, limits={"account_failures_lock": 2, "max_auth_tries": 1})
    try:
        services: Any = app.services
        await services.accounts.register("alice", "alice-pw")
        for _ in range(2):
            with pytest.raises(asyncssh.PermissionDenied):
                await door_run(app, "alice", "wrong", "help")
        with pytest.raises(asyncssh.PermissionDenied):
            await door_run(app, "alice", "alice-pw", "help")  # locked for now
    finally:
        await app.shutdown()


async def test_a_command_from_an_address_over_its_limit_is_refused(tmp_path: Path) -> None:
    app = await started(tmp_path, limits={"max_per_address": 1})
    try:
        services: Any = app.services
        await services.accounts.register("alice", "alice-pw")
        async with connect(app.ports["ssh"], "alice", password="alice-pw") as held:
            with pytest.raises((asyncssh.PermissionDenied, asyncssh.DisconnectError)):
                await door_run(app, "alice", "alice-pw", "help")
            assert held.is_closed() is False
        done = await door_run(app, "alice", "alice-pw", "help")  # the slot is free again
        assert done.exit_status == 0
    finally:
        await app.shutdown()


async def test_the_interactive_login_still_reaches_the_session(door: App, players: Players
                                                               ) -> None:
    async with connect(door.ports["ssh"], "alice", password="alice-pw") as conn:
        proc = await conn.create_process(term_type="xterm", term_size=(80, 24), encoding=None)
        assert b"SESSION user=alice" in await expect(proc.stdout, "size=")
        proc.stdin.write(b"q")
        await proc.wait_closed()


async def test_a_key_login_runs_the_command_too(door: App, players: Players) -> None:
    services: Any = door.services
    key = asyncssh.generate_private_key("ssh-ed25519")
    await services.accounts.add_key(players.bob.id, key.export_public_key().decode())
    done = await run(door.ports["ssh"], "help", username="bob", password=None,
                     client_keys=[key])  # fmt: skip
    assert done.exit_status == 0 and b"export GAME" in done.stdout


# the record itself (waits for door/services/export's mat writer)


async def test_asyncssh_a_player_exports_their_own_game(door: App, players: Players) -> None:
    services: Any = door.services
    gid = players.game.id
    expected = await services.exporter.export(gid, "mat", players.alice.id)
    done = await door_run(door, "alice", "alice-pw", f"export {gid} mat")
    assert (done.stderr, done.exit_status) == (b"", 0)
    assert done.stdout == expected.text.encode("utf-8")
    assert b"point match" in done.stdout  # a Jellyfish .mat: "1 point match"
    default = await door_run(door, "bob", "bob-pw1", f"export {gid}")
    assert default.stdout == (await services.exporter.export(gid, "mat", players.bob.id)
                              ).text.encode("utf-8")  # fmt: skip


async def test_asyncssh_a_sysop_exports_a_private_game_of_others(
    door: App, players: Players
) -> None:
    services: Any = door.services
    await services.accounts.set_sysop("carol", True)
    done = await door_run(door, "carol", "carol-pw", f"export {players.game.id} sgf")
    assert (done.stderr, done.exit_status) == (b"", 0)
    expected = await services.exporter.export(players.game.id, "sgf", None, sysop=True)
    assert done.stdout == expected.text.encode("utf-8")


# --- OpenSSH's ssh ----------------------------------------------------------------------------


@dataclass
class OpenSSH:
    """OpenSSH's client, logging in with a key the account holds."""

    port: int
    key: Path
    user: str

    async def __call__(self, command: str) -> tuple[int, bytes, bytes]:
        proc = await asyncio.create_subprocess_exec(
            "ssh", "-F", "/dev/null", "-o", "BatchMode=yes",
            "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
            "-o", "LogLevel=ERROR", "-o", "IdentitiesOnly=yes", "-i", str(self.key),
            "-p", str(self.port), f"{self.user}@127.0.0.1", command,
            stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        out, err = await asyncio.wait_for(proc.communicate(), 30)
        assert proc.returncode is not None
        return proc.returncode, out, err


async def openssh_as(door: App, user: User, tmp_path: Path) -> OpenSSH:
    if shutil.which("ssh") is None:
        pytest.skip("needs OpenSSH's client (apt-get install openssh-client)")
    services: Any = door.services
    key = asyncssh.generate_private_key("ssh-ed25519")
    await services.accounts.add_key(user.id, key.export_public_key().decode())
    path = tmp_path / f"{user.name}-key"
    key.write_private_key(path)
    path.chmod(0o600)
    return OpenSSH(door.ports["ssh"], path, user.name)


async def test_openssh_a_strangers_private_game_is_refused(
    door: App, players: Players, tmp_path: Path
) -> None:
    ssh = await openssh_as(door, players.carol, tmp_path)
    status, out, err = await ssh(f"export {players.game.id} mat")
    assert (status, out) == (1, b"")
    assert err == await hidden_message(door, players.game.id)


async def test_openssh_an_unknown_command_is_status_2(
    door: App, players: Players, tmp_path: Path
) -> None:
    ssh = await openssh_as(door, players.alice, tmp_path)
    status, out, err = await ssh("frobnicate")
    assert (status, out) == (2, b"")
    assert err == b"door: unknown command 'frobnicate'; `help` lists the commands\n"


async def test_openssh_a_missing_game_is_status_1(
    door: App, players: Players, tmp_path: Path
) -> None:
    ssh = await openssh_as(door, players.alice, tmp_path)
    status, out, err = await ssh("export 31337 mat")
    assert (status, out, err) == (1, b"", await hidden_message(door, 31337))


async def test_openssh_a_player_exports_their_own_game_into_a_file(
    door: App, players: Players, tmp_path: Path
) -> None:
    ssh = await openssh_as(door, players.alice, tmp_path)
    services: Any = door.services
    expected = await services.exporter.export(players.game.id, "mat", players.alice.id)
    status, out, err = await ssh(f"export {players.game.id} mat")
    assert (status, err) == (0, b"")
    (tmp_path / "game.mat").write_bytes(out)  # `> game12.mat`
    assert (tmp_path / "game.mat").read_text("utf-8") == expected.text
