"""Two real ``door serve`` processes on one PostgreSQL database, each with its sender
running, deliver every notice exactly once: an SMTP server (aiosmtpd) and an HTTP server
(aiohttp) on 127.0.0.1 receive each notice the outbox holds once on each channel, none
twice, and both processes take a share of the work.

The events come from this test process through the services, as a third door process
would make them: backgammon games between players played a random legal move at a time
(each move one transaction that writes "your turn" for the opponent), private messages
between the players (each writes "a new message"), and — because the games' moves are
due within the hour — the reminders both servers' sweeps write before each of their
rounds. Every player has a confirmed e-mail address and a push URL.
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from door.games.registry import build_registry
from door.services.accounts import Accounts, User
from door.services.clock import SystemClock
from door.services.games import GameService, SeatSpec
from door.services.mail import Mail
from door.services.notify import LocalHub
from door.services.outbox import Outbox
from door.store.db import Database
from door.store.records import OutboxRecord
from tests.net.served import free_ports
from tests.notices.conftest import Inbox, Pushes
from tests.store import dbutil

pytestmark = [pytest.mark.slow, pytest.mark.postgres]

ROOT = Path(__file__).resolve().parents[2]
PLAYERS = 12
"""Six backgammon games, one per pair."""
MOVES = 150
"""Moves played across the games (each one transaction, a notice for the opponent)."""
MAILS = 40
SETTLE_S = 30.0
"""How long the servers get to empty the outbox once the events stop."""


@dataclass
class Door:
    proc: subprocess.Popen[bytes]
    log: Path

    def text(self) -> str:
        return self.log.read_text(errors="replace")


def start_door(folder: Path, name: str, url: str, smtp_port: int) -> Door:
    """``door serve`` (one process, no workers) on ``url`` with e-mail and push on."""
    (telnet,) = free_ports(1)
    data = folder / name
    data.mkdir()
    config = data / "door.toml"
    config.write_text(
        "[server]\n"
        f'host = "127.0.0.1"\ntelnet_port = {telnet}\nssh_port = 0\nrlogin_port = 0\n'
        "tune_runtime = false\n"
        f'[database]\nurl = "{url}"\nauto_upgrade = false\n'
        "[limits]\nshutdown_grace_s = 1.0\n"
        "[games]\nbots = false\n"
        f'[mail]\nhost = "127.0.0.1"\nport = {smtp_port}\nsecurity = "none"\n'
        'from = "door@door.test"\ntimeout_s = 10\n'
        '[push]\nenabled = true\nallowed_schemes = ["http"]\nallow_private = true\n'
        "timeout_s = 10\n"
        "[notices]\npoll_interval_s = 0.1\nlease_s = 30\nretry_first_s = 0.5\n"
    )
    log = data / "serve.log"
    with log.open("w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "door", "serve", "--data-dir", str(data),
             "--config", str(config), "-v"],
            cwd=data, env=dict(os.environ, PYTHONPATH=str(ROOT)),
            stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip
    return Door(proc, log)


async def wait_serving(doors: list[Door]) -> None:
    end = time.monotonic() + 30
    for door in doors:
        while "door: serving" not in door.text():
            if door.proc.poll() is not None or time.monotonic() > end:
                raise AssertionError(f"door serve did not start:\n{door.text()}")
            await asyncio.sleep(0.05)


def stop_doors(doors: list[Door]) -> None:
    for door in doors:
        if door.proc.poll() is None:
            door.proc.send_signal(signal.SIGTERM)
    for door in doors:
        try:
            door.proc.wait(20)
        except subprocess.TimeoutExpired:
            door.proc.kill()
            door.proc.wait()


@pytest.fixture
async def pg_db(pg_url: str, pg_template: str) -> AsyncIterator[str]:
    url = await dbutil.fresh_pg(pg_url, pg_template)
    yield url
    await dbutil.drop_pg(pg_url, url)


async def play_games(games: GameService, users: list[User], rng: random.Random) -> None:
    """Random legal backgammon moves in one game per pair, ``MOVES`` in all, 10 to 40
    ms apart (a game that ends is followed by the next of the money game)."""
    rules = games.registry["backgammon"]
    ids = []
    for a, b in zip(users[::2], users[1::2], strict=True):
        info = await games.begin(
            a.id, "backgammon", {"match_length": 0},
            [SeatSpec("me"), SeatSpec("user", b.name)], deadline_hours=1,
        )  # fmt: skip
        await games.join(info.id, b.id)
        ids.append(info.id)
    for m in range(MOVES):
        snap = await games.get(ids[m % len(ids)])
        seat = snap.info.to_act
        if snap.info.status != "active" or seat is None:
            continue
        uid = snap.info.seats[seat].user_id
        assert uid is not None
        move = rng.choice(list(rules.legal_moves(snap.state)))
        await games.submit(
            snap.info.id, uid, rules.format_move(snap.state, move), snap.info.version
        )
        await asyncio.sleep(rng.uniform(0.01, 0.04))


async def send_mails(mail: Mail, users: list[User], rng: random.Random) -> None:
    for i in range(MAILS):
        a, b = rng.sample(users, 2)
        await mail.send(a.id, b.name, f"note {i}", "hello")
        await asyncio.sleep(rng.uniform(0, 0.05))


async def test_two_door_serve_processes_deliver_each_notice_exactly_once(
    pg_db: str,
    tmp_path: Path,
    smtp: tuple[Inbox, int],
    push_server: tuple[Pushes, str],
) -> None:
    inbox, smtp_port = smtp
    pushes, push_base = push_server
    db = Database(pg_db)
    clock = SystemClock()
    outbox = Outbox(db, clock, push_schemes=("http",), push_enabled=True, mail_enabled=True)
    games = GameService(db, build_registry(), LocalHub(), clock, random.Random(18))
    games.notices.outbox = outbox
    mail = Mail(db, clock, per_minute=10_000, burst=10_000)
    mail.outbox = outbox
    accounts = Accounts(db, clock)
    users = [await accounts.register(f"player{i}", f"player{i}-pw") for i in range(PLAYERS)]
    for u in users:
        await outbox.set_confirmed_email(u.id, f"{u.name}@door.test")
        await outbox.set_push(u.id, f"{push_base}/{u.name}")
    doors = [start_door(tmp_path, name, pg_db, smtp_port) for name in ("a", "b")]
    try:
        await wait_serving(doors)
        rng = random.Random(18)
        await asyncio.gather(play_games(games, users, rng), send_mails(mail, users, rng))

        end = time.monotonic() + SETTLE_S
        while time.monotonic() < end:
            counts = await db.run_read(lambda repo: repo.outbox_counts())
            if not counts.get("pending"):
                break
            await asyncio.sleep(0.2)
        await asyncio.sleep(1.5)  # time for a second delivery of anything, were there one
        rows: list[OutboxRecord] = []
        for u in users:
            rows += await db.run_read(lambda repo, uid=u.id: repo.outbox_of_user(uid))
    finally:
        stop_doors(doors)
        await db.dispose()
    logs = "\n".join(d.text() for d in doors)
    assert {r.status for r in rows} == {"sent"}, (Counter(r.status for r in rows), logs[-3000:])
    by_kind = Counter(r.kind for r in rows if r.channel == "email")
    # (how many depends on timing: a notice still pending when its next event comes stands
    # for both) at least a turn and a reminder in every game, and a message
    assert by_kind["your_turn"] >= PLAYERS // 2 and by_kind["reminder"] >= PLAYERS // 2
    assert by_kind["message"] >= 1 and sum(by_kind.values()) >= 60, by_kind

    # each row arrived once on its channel, and nothing arrived that is not a row
    expected_mail = Counter((r.address, r.title) for r in rows if r.channel == "email")
    got_mail = Counter((str(m["To"]), str(m["Subject"])) for m in inbox.messages)
    assert got_mail == expected_mail
    expected_push = Counter((r.address, r.title) for r in rows if r.channel == "push")
    got_push = Counter((push_base + path, title) for path, title, _ in pushes.got)
    assert got_push == expected_push
    # the rules' own "at most once": a reminder once per (player, game, deadline, step)
    reminders = Counter(
        (r.user_id, r.game_id, r.ref, r.channel) for r in rows if r.kind == "reminder"
    )
    assert max(reminders.values()) == 1, [k for k, n in reminders.items() if n > 1]
    # both processes sent a share (Python's Message-ID carries the sender's pid)
    pids = Counter(str(m["Message-ID"]).split(".")[1] for m in inbox.messages)
    assert set(pids) == {str(d.proc.pid) for d in doors}, pids
