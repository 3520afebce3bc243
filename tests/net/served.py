"""Real ``door serve`` subprocesses on a throwaway PostgreSQL database, for the tests of
several processes (tests/net/test_workers.py, tests/net/test_host_key.py)."""

from __future__ import annotations

import contextlib
import os
import re
import select
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from door.store.db import Database
from tests.store import dbutil

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    return free_ports(1)[0]


def free_ports(n: int) -> list[int]:
    """``n`` different free ports on 127.0.0.1 (all held open while they are chosen: one
    after the other, the kernel may hand out the same port twice)."""
    with contextlib.ExitStack() as stack:
        socks = [stack.enter_context(socket.socket()) for _ in range(n)]
        for s in socks:
            s.bind(("127.0.0.1", 0))
        return [int(s.getsockname()[1]) for s in socks]


@dataclass
class Served:
    """A ``door serve --workers`` subprocess: its ports, log and first stdout line."""

    proc: subprocess.Popen[bytes]
    data_dir: Path
    config: Path
    telnet_port: int
    ssh_port: int
    log: Path
    line: str = ""
    extra: list[str] = field(default_factory=list)

    def log_text(self) -> str:
        return self.log.read_text(errors="replace")

    def worker_pid_of(self, client_port: int) -> int | None:
        """The pid of the worker that logged the telnet connection from ``client_port``."""
        found = re.search(
            rf"worker \d+ pid (\d+) door\.app: telnet connection from 127\.0\.0\.1:{client_port}\b",
            self.log_text(),
        )
        return int(found.group(1)) if found else None

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def write_config(folder: Path, url: str) -> Path:
    config = folder / "door.toml"
    config.write_text(
        f'[database]\nurl = "{url}"\n'
        "[limits]\nlogin_delay_s = 0.01\nnegotiation_wait_s = 0.3\nprobe_timeout_s = 0.3\n"
        "shutdown_grace_s = 2.0\nmax_preauth_per_address = 50\n"
        "[games]\nbots = false\n"
    )
    return config


def serve(folder: Path, config: Path, *extra: str, workers: int = 2) -> Served:
    """Start ``door serve --workers N -v`` and wait for its "serving" line."""
    telnet_port, ssh_port = free_ports(2)
    log = folder / f"serve-{telnet_port}.log"
    command = [
        sys.executable, "-m", "door", "serve", "--config", str(config),
        "--data-dir", str(folder / "data"), "--host", "127.0.0.1",
        "--telnet-port", str(telnet_port), "--ssh-port", str(ssh_port),
        "--workers", str(workers), "-v", *extra,
    ]  # fmt: skip
    with open(log, "wb") as err:
        proc = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=err, cwd=folder,
            env=dict(os.environ, PYTHONPATH=str(ROOT)),
        )  # fmt: skip
    served = Served(proc, folder / "data", config, telnet_port, ssh_port, log)
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], 60)
    served.line = proc.stdout.readline().decode() if ready else ""
    if "serving" not in served.line:
        served.stop()
        raise AssertionError(f"no serving line ({served.line!r}); log:\n{served.log_text()}")
    return served


def worker_pids(served: Served) -> list[int]:
    """The pids of the workers (children of the supervisor) now."""
    out = subprocess.run(["pgrep", "-P", str(served.proc.pid)], capture_output=True, text=True)
    return sorted(int(p) for p in out.stdout.split())


@pytest.fixture(scope="module")
def pg_db(pg_url: str) -> Iterator[str]:
    """A migrated PostgreSQL database for the module (several servers start on it at once:
    the first migration must not be one of their races)."""
    url = ""

    async def make() -> None:
        nonlocal url
        url = await dbutil.fresh_pg(pg_url, None)
        database = Database(url)
        await database.upgrade()
        await database.dispose()

    dbutil.run_blocking(make)
    yield url

    async def drop() -> None:
        await dbutil.drop_pg(pg_url, url)

    dbutil.run_blocking(drop)
