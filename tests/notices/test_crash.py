"""kill -9 a real ``door serve`` while it is sending a notice (the event committed, the
SMTP server not yet answering): after a restart the notice is delivered, once."""

from __future__ import annotations

import asyncio
import contextlib
import io
import os
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller

from door.cli import main
from door.services.clock import SystemClock
from door.services.mail import Mail
from door.services.outbox import Outbox
from door.store.db import Database
from tests.net.served import free_port, serve

pytestmark = pytest.mark.slow


class Stalling:
    """Accepts nothing the first time (it hangs until the client is gone), then every
    message: ``stuck`` is set once the first one hangs."""

    def __init__(self) -> None:
        self.accepted: list[bytes] = []
        self.stuck = threading.Event()

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        if not self.stuck.is_set():
            self.stuck.set()
            await asyncio.sleep(30)
            return "451 try later"
        self.accepted.append(envelope.content)
        return "250 OK"


def wait_for(check: Any, seconds: float) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if check():
            return True
        time.sleep(0.1)
    return bool(check())


def kill_hard(pid: int) -> None:
    """SIGKILL the server and the workers it started."""
    children = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True)
    for p in [pid, *(int(c) for c in children.stdout.split())]:
        with contextlib.suppress(ProcessLookupError):
            os.kill(p, signal.SIGKILL)


async def send_mail(url: str) -> None:
    """The event: Alice writes to Bob (the notice commits with the message)."""
    db = Database(url)
    try:
        clock = SystemClock()
        mail = Mail(db, clock)
        mail.outbox = Outbox(db, clock, mail_enabled=True)
        await mail.send(1, "Bob", "hello", "are you there?")
    finally:
        await db.dispose()


def test_a_notice_in_flight_at_a_kill_is_delivered_once_after_restart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    handler = Stalling()
    port = free_port()
    controller = Controller(handler, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        config = tmp_path / "door.toml"
        config.write_text(
            f'[mail]\nhost = "127.0.0.1"\nport = {port}\nsecurity = "none"\n'
            'from = "door@door.test"\ntimeout_s = 60\n'
            "[notices]\npoll_interval_s = 0.2\nlease_s = 2\nretry_first_s = 0.5\n"
            "[limits]\nshutdown_grace_s = 1.0\n[games]\nbots = false\n"
        )
        place = ["--data-dir", str(tmp_path / "data"), "--config", str(config)]
        monkeypatch.setattr("door.services.accounts.SCRYPT_N", 2**8)
        for name in ("Alice", "Bob"):
            monkeypatch.setattr("sys.stdin", io.StringIO(f"{name}-password\n"))
            assert main(["user", "add", name, "--password-stdin", *place]) == 0
        assert main(["user", "email", "Bob", "bob@door.test", *place]) == 0
        url = f"sqlite+aiosqlite:///{(tmp_path / 'data' / 'door.sqlite3').resolve()}"

        first = serve(tmp_path, config, workers=1)
        try:
            asyncio.run(send_mail(url))
            assert wait_for(handler.stuck.is_set, 20), first.log_text()
        finally:
            kill_hard(first.proc.pid)
            first.proc.wait()
        assert handler.accepted == []

        second = serve(tmp_path, config, workers=1)
        try:
            assert wait_for(lambda: len(handler.accepted) >= 1, 30), second.log_text()
            time.sleep(1.5)  # time for a duplicate, were there to be one
        finally:
            second.stop()
        assert len(handler.accepted) == 1
        assert b"New message from Alice" in handler.accepted[0]
    finally:
        controller.stop()
