"""``door serve --workers N``: N processes on one PostgreSQL database share the ports.

A real ``door serve --workers 2`` (subprocess, ``-v``) runs on a throwaway PostgreSQL
database for the module. Which worker took a connection is read from the log: each worker
logs ``telnet connection from 127.0.0.1:<port>`` under ``worker <n> pid <pid>``, and the
client knows its own port.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import asyncssh
import pyte
import pytest
import telnetlib3

from door.app import WORKERS_NEED_POSTGRESQL
from door.cli import main
from door.config import load_config
from door.games.backgammon.rules import BackgammonRules
from door.net.ssh import load_host_key
from tests.net.served import ROOT, Served, pg_db, serve, worker_pids, write_config

__all__ = ["pg_db"]  # a fixture, used by name


@pytest.fixture(scope="module")
def server(pg_db: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    folder = tmp_path_factory.mktemp("workers")
    served = serve(folder, write_config(folder, pg_db))
    try:
        yield served
    finally:
        served.stop()


class Screen:
    """What a telnet client shows (pyte), fed in the background."""

    def __init__(self, reader: Any, writer: Any) -> None:
        self.writer = writer
        self.screen = pyte.Screen(80, 24)
        self.stream = pyte.Stream(self.screen)
        self.decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self.changed = asyncio.Event()
        self.task = asyncio.create_task(self._pump(reader))

    async def _pump(self, reader: Any) -> None:
        while chunk := await reader.read(4096):
            self.stream.feed(self.decoder.decode(chunk))
            self.changed.set()
        self.changed.set()

    def text(self) -> str:
        return "\n".join(self.screen.display)

    async def wait_for(self, needle: str, timeout: float = 10.0) -> None:
        end = time.monotonic() + timeout
        while needle not in self.text():
            left = end - time.monotonic()
            if left <= 0:
                raise AssertionError(f"{needle!r} never appeared; screen:\n{self.text()}")
            self.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), min(left, 0.2))

    def send(self, data: bytes) -> None:
        self.writer.write(data)

    async def close(self) -> None:
        self.writer.close()
        self.task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self.task


async def connect(served: Served) -> tuple[Screen, int]:
    """A telnet client at the Name: prompt, and the pid of the worker serving it."""
    reader, writer = await telnetlib3.open_connection(
        "127.0.0.1", served.telnet_port, encoding=False, term="xterm", cols=80, rows=24,
        connect_minwait=0.05,
    )  # fmt: skip
    screen = Screen(reader, writer)
    await screen.wait_for("Name:")
    port = writer.get_extra_info("sockname")[1]
    pid = served.worker_pid_of(port)
    assert pid is not None, f"no worker logged the connection from port {port}"
    return screen, pid


async def one_on_each_worker(served: Served, tries: int = 16) -> dict[int, Screen]:
    """Connections until every worker has one (the kernel hashes them over the workers):
    worker pid → a client at the Name: prompt. The other connections are closed."""
    got = await asyncio.gather(*(connect(served) for _ in range(tries)))
    kept: dict[int, Screen] = {}
    for screen, pid in got:
        if pid in kept:
            await screen.close()
        else:
            kept[pid] = screen
    return kept


async def test_both_workers_accept_connections_on_the_one_telnet_port(server: Served) -> None:
    kept = await one_on_each_worker(server)
    try:
        assert len(kept) == 2
        assert set(kept) == set(worker_pids(server))
    finally:
        for screen in kept.values():
            await screen.close()


async def test_every_worker_serves_the_one_host_key_file(server: Served) -> None:
    keys = await asyncio.gather(
        *(asyncssh.get_server_host_key("127.0.0.1", server.ssh_port) for _ in range(12))
    )
    fingerprints = {key.get_fingerprint() for key in keys if key is not None}
    assert len(keys) == 12 and None not in keys
    made = load_host_key(server.data_dir / "ssh_host_ed25519_key")
    assert fingerprints == {made.get_fingerprint()}


async def test_a_move_on_one_worker_shows_on_the_screen_of_a_player_on_the_other(
    server: Served,
) -> None:
    from door.services import build_services
    from door.services.games import SeatSpec

    config = load_config(server.config, data_dir=server.data_dir)
    services = await build_services(config, start_background=False)
    try:
        alice = await services.accounts.register("alice", "secret1")
        bob = await services.accounts.register("bob", "secret2")
        info = await services.games.begin(
            alice.id, "backgammon", {"match_length": 3}, [SeatSpec("me"), SeatSpec("user", "bob")]
        )
        await services.games.join(info.id, bob.id)
        state = (await services.games.get(info.id)).state
    finally:
        await services.close()
    (first_pid, first), (second_pid, second) = (await one_on_each_worker(server)).items()
    try:
        assert first_pid != second_pid
        names = {first: "alice", second: "bob"} if state.turn == 0 else {first: "bob",
                                                                          second: "alice"}
        for screen, name in names.items():
            screen.send(f"{name}\r{'secret1' if name == 'alice' else 'secret2'}\r".encode())
            await screen.wait_for("Main Menu")
        # the second player opens the game and watches; the first, on the other worker, moves
        second.send(b"v")
        await second.wait_for("Games:")
        second.send(b"a\r")
        await second.wait_for("V)iew last turn")
        first.send(b"v")
        await first.wait_for("Games:")
        first.send(b"w\r")
        await first.wait_for("It is your turn.")
        rules = BackgammonRules()
        play = rules.format_move(state, rules.legal_moves(state)[0])
        first.send(b":" + play.encode() + b"\r")
        await first.wait_for(f"You played {play}")
        await second.wait_for(f"Meanwhile {names[first]}", timeout=5.0)
    finally:
        await first.close()
        await second.close()


async def test_a_killed_worker_is_started_again_and_serves_the_port(server: Served) -> None:
    before = worker_pids(server)
    assert len(before) == 2
    os.kill(before[0], signal.SIGKILL)
    end = time.monotonic() + 20
    while time.monotonic() < end:
        now = worker_pids(server)
        if len(now) == 2 and before[0] not in now and "is serving again" in server.log_text():
            break
        await asyncio.sleep(0.1)
    assert "was killed by SIGKILL" in server.log_text()
    now = worker_pids(server)
    assert len(now) == 2 and before[0] not in now and before[1] in now
    kept = await one_on_each_worker(server)
    try:
        assert set(kept) == set(now)
    finally:
        for screen in kept.values():
            await screen.close()


async def test_sigterm_to_the_supervisor_ends_every_worker_gracefully(
    pg_db: str, tmp_path: Path
) -> None:
    served = serve(tmp_path, write_config(tmp_path, pg_db))
    try:
        pids = worker_pids(served)
        kept = await one_on_each_worker(served)
        assert set(kept) == set(pids)
        served.proc.send_signal(signal.SIGTERM)
        for screen in kept.values():
            await screen.wait_for("shutting down", timeout=10)
        assert await asyncio.to_thread(served.proc.wait, 20) == 0
        assert served.proc.stdout is not None
        assert b"door: stopped" in served.proc.stdout.read()
        for pid in pids:
            with pytest.raises(ProcessLookupError):
                os.kill(pid, 0)
        for screen in kept.values():
            await screen.close()
    finally:
        served.stop()


def test_workers_on_sqlite_are_refused_with_the_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(["serve", "--data-dir", str(tmp_path), "--workers", "2"])
    assert status == 2
    assert WORKERS_NEED_POSTGRESQL in capsys.readouterr().err
    assert not (tmp_path / "door.sqlite3").exists()


def test_workers_refuse_a_port_another_program_listens_on(pg_db: str, tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        taken.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        out = subprocess.run(
            [sys.executable, "-m", "door", "serve", "--config", str(write_config(tmp_path, pg_db)),
             "--data-dir", str(tmp_path / "data"), "--host", "127.0.0.1",
             "--telnet-port", str(port), "--ssh-port", "0", "--workers", "2"],
            capture_output=True, text=True, timeout=60, env=dict(os.environ, PYTHONPATH=str(ROOT)),
        )  # fmt: skip
    assert out.returncode == 1
    assert f"the telnet port {port} is in use" in out.stderr


def test_the_workers_setting_must_be_1_to_256(tmp_path: Path) -> None:
    from door.config import ConfigError

    bad = tmp_path / "door.toml"
    bad.write_text("[server]\nworkers = 0\n")
    with pytest.raises(ConfigError, match="workers must be 1 to 256"):
        load_config(bad)
