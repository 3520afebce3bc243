"""Concurrent telnet sessions: login latency, memory and CPU per session.

Starts ``door serve`` in a subprocess on a temp-dir SQLite database with N pre-created
users, then opens N telnet sessions with telnetlib3's client (ramped at ``--rate`` per
second), each logging in and then idling on the main menu until all are in. Reports the
time from connect to the first post-login screen (the main menu), the server's RSS growth
per idle session, and the server's CPU time per login. Latency is only meaningful on an
otherwise idle machine (the load average at the start is reported beside it); CPU per
login is not: it says which login rate the machine sustains. A second phase (``--burst``,
default 100) connects that many more at once, to show the listen backlog copes (the logins
then queue behind scrypt).

    python3 bench/connections.py [-n 500] [--rate 5] [--burst 100]

The last line is one JSON object: ``p99_ms`` (ramped), ``rss_kib_per_session``,
``server_cpu_ms_per_login`` and more.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import telnetlib3  # noqa: E402

from door.config import load_config  # noqa: E402
from door.services import accounts as accounts_module  # noqa: E402
from door.services import build_services  # noqa: E402

PASSWORD = "bench-pw"
MENU = b"Main Menu"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of ``pid`` (all its threads), in seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


async def create_users(data_dir: Path, count: int) -> None:
    """Register ``count`` users through the accounts service, hashing the (shared)
    password once instead of ``count`` times: a real scrypt hash, computed up front."""
    hashed = accounts_module.hash_password(PASSWORD)
    real = accounts_module.hash_password
    accounts_module.hash_password = lambda password, salt=None: hashed  # type: ignore[assignment]
    services = await build_services(load_config(data_dir=data_dir), start_background=False)
    try:
        for i in range(count):
            await services.accounts.register(f"user{i:04d}", PASSWORD)
    finally:
        accounts_module.hash_password = real  # type: ignore[assignment]
        await services.close()


async def read_until(reader: Any, needle: bytes, timeout: float) -> None:
    buf = b""
    end = time.monotonic() + timeout
    while needle not in buf:
        left = end - time.monotonic()
        if left <= 0:
            raise TimeoutError(f"waiting for {needle!r}")
        chunk = await asyncio.wait_for(reader.read(65536), left)
        if not chunk:
            raise ConnectionError("closed")
        buf = buf[-200:] + chunk


class Client:
    def __init__(self, port: int, name: str) -> None:
        self.port = port
        self.name = name
        self.writer: Any = None
        self.reader: Any = None
        self.ms: float | None = None
        self.error: str | None = None

    async def login(self) -> None:
        started = time.monotonic()
        try:
            self.reader, self.writer = await telnetlib3.open_connection(
                "127.0.0.1", self.port, encoding=False, term="xterm", cols=80, rows=24,
                connect_minwait=0.0, connect_maxwait=1.0,
            )  # fmt: skip
            await read_until(self.reader, b"Name: ", 60)
            self.writer.write(self.name.encode() + b"\r")
            await read_until(self.reader, b"Password: ", 60)
            self.writer.write(PASSWORD.encode() + b"\r")
            await read_until(self.reader, MENU, 60)
            self.ms = (time.monotonic() - started) * 1000
        except Exception as exc:
            self.error = f"{type(exc).__name__}: {exc}"

    async def idle(self) -> None:
        # Keep reading so the server's writes never back up (a real idle client reads too).
        try:
            while self.reader is not None and await self.reader.read(65536):
                pass
        except Exception:
            return

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


async def run(args: argparse.Namespace) -> dict[str, Any]:
    total = args.sessions + args.burst + 1
    with tempfile.TemporaryDirectory(prefix="door-bench-") as tmp:
        data_dir = Path(tmp)
        t0 = time.monotonic()
        await create_users(data_dir, total)
        print(f"created {total} users in {time.monotonic() - t0:.1f}s", flush=True)
        config = data_dir / "door.toml"
        config.write_text(
            "[limits]\n"
            f"max_connections = {total + 100}\n"
            f"max_per_address = {total + 100}\n"
        # every simulated player logs in from 127.0.0.1, many at once
        f"max_preauth = {total + 100}\n"
        f"max_preauth_per_address = {total + 100}\n"
            "[games]\nbots = false\n"
        )
        port = free_port()
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        proc = subprocess.Popen(
            [sys.executable, "-m", "door", "serve", "--config", str(config), "--data-dir",
             str(data_dir), "--host", "127.0.0.1", "--telnet-port", str(port),
             "--ssh-port", "0"],
            stdout=subprocess.PIPE, env=env, cwd=tmp,
        )  # fmt: skip
        clients: list[Client] = []
        idlers: list[asyncio.Task[None]] = []
        try:
            assert proc.stdout is not None
            line = await asyncio.to_thread(proc.stdout.readline)
            if b"serving" not in line:
                raise RuntimeError(f"server did not start: {line!r}")
            # One warm-up session loads the screens, so the baseline includes the code.
            warm = Client(port, f"user{total - 1:04d}")
            await warm.login()
            if warm.error:
                raise RuntimeError(f"warm-up login failed: {warm.error}")
            warm.close()
            await asyncio.sleep(0.5)
            baseline = rss_kib(proc.pid)
            cpu_before = cpu_seconds(proc.pid)
            client_before = cpu_seconds(os.getpid())
            load_before = os.getloadavg()[0]

            gap = 1.0 / args.rate
            tasks = []
            for i in range(args.sessions):
                client = Client(port, f"user{i:04d}")
                clients.append(client)
                tasks.append(asyncio.create_task(client.login()))
                await asyncio.sleep(gap)
            await asyncio.gather(*tasks)
            cpu_ramp = cpu_seconds(proc.pid) - cpu_before
            client_ramp = cpu_seconds(os.getpid()) - client_before
            for client in clients:
                idlers.append(asyncio.create_task(client.idle()))
            await asyncio.sleep(1.0)
            loaded = rss_kib(proc.pid)
            ramp = [c.ms for c in clients if c.ms is not None]
            ramp_errors = [c.error for c in clients if c.error]

            burst_clients = [
                Client(port, f"user{args.sessions + i:04d}") for i in range(args.burst)
            ]
            await asyncio.gather(*(c.login() for c in burst_clients))
            clients += burst_clients
            burst = [c.ms for c in burst_clients if c.ms is not None]
            burst_errors = [c.error for c in burst_clients if c.error]
        finally:
            for client in clients:
                client.close()
            for task in idlers:
                task.cancel()
            proc.terminate()
            try:
                await asyncio.to_thread(proc.wait, 30)
            except subprocess.TimeoutExpired:
                proc.kill()
    result: dict[str, Any] = {
        "sessions": args.sessions,
        "rate_per_s": args.rate,
        "logged_in": len(ramp),
        "errors": len(ramp_errors),
        "p50_ms": round(statistics.median(ramp), 1) if ramp else None,
        "p99_ms": round(pct(ramp, 99), 1) if ramp else None,
        "max_ms": round(max(ramp), 1) if ramp else None,
        "rss_kib_per_session": round((loaded - baseline) / max(1, len(ramp)), 1),
        "server_rss_mib": round(loaded / 1024, 1),
        "server_cpu_ms_per_login": round(cpu_ramp * 1000 / max(1, len(ramp)), 1),
        "client_cpu_ms_per_login": round(client_ramp * 1000 / max(1, len(ramp)), 1),
        "load_avg_at_start": round(load_before, 2),
        "cpus": os.cpu_count(),
        "burst": args.burst,
        "burst_logged_in": len(burst),
        "burst_errors": len(burst_errors),
        "burst_p99_ms": round(pct(burst, 99), 1) if burst else None,
    }
    if ramp_errors or burst_errors:
        print("first errors:", (ramp_errors + burst_errors)[:3], flush=True)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", "--sessions", type=int, default=500)
    parser.add_argument("--rate", type=float, default=5.0, help="new sessions per second")
    parser.add_argument("--burst", type=int, default=100, help="sessions opened at once after")
    args = parser.parse_args()
    result = asyncio.run(run(args))
    for key, value in result.items():
        print(f"{key:>22}: {value}")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
