"""Nothing acknowledged is lost: a mail whose sender was told "Sent" is in the database
even when the server is killed with SIGKILL right after (a real ``door serve``, a real
telnet client, the screen read with pyte)."""

from __future__ import annotations

import signal
import time
from pathlib import Path

import pytest

from door.services.accounts import Accounts
from door.services.clock import SystemClock
from door.services.mail import Mail
from door.store.db import Database
from tests.e2e.test_pg_restart import PASSWORDS, WAIT_S, Player, prepare, serve
from tests.store import dbutil

pytestmark = pytest.mark.slow


async def test_a_mail_shown_as_sent_survives_kill_9(tmp_path: Path) -> None:
    url = dbutil.sqlite_url(tmp_path / "door.sqlite3")
    await prepare(url)
    proc, port, log = serve(tmp_path, "A", url)
    alice = Player("alice")
    try:
        end = time.monotonic() + WAIT_S
        while "door: serving" not in log.read_text():
            assert proc.poll() is None and time.monotonic() < end, log.read_text()
            time.sleep(0.05)
        await alice.connect(port)
        await alice.wait_for("Name: ")
        alice.send("alice\r")
        await alice.wait_for("Password: ")
        alice.send(PASSWORDS["alice"] + "\r")
        await alice.wait_for("Main Menu")
        alice.send("m")
        await alice.wait_for("No mail.")
        alice.send("w")
        await alice.wait_for("Subject:")
        alice.send("bob\rkept\rsurvives a crash\r\r\r\r\r")
        await alice.wait_for("Sent to bob.")
        proc.send_signal(signal.SIGKILL)  # at once: no shutdown, no flush
        proc.wait(10)
    finally:
        alice.close()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    db = Database(url)
    try:
        bob = await Accounts(db, SystemClock()).by_name("bob")
        assert bob is not None
        inbox = await Mail(db, SystemClock()).inbox(bob.id)
        assert [(m.sender, m.subject, m.body) for m in inbox] == [
            ("alice", "kept", "survives a crash")
        ]
    finally:
        await db.dispose()
