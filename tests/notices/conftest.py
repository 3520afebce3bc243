"""Notices outside door: a real SMTP server (aiosmtpd) and a real HTTP server (aiohttp)
on 127.0.0.1 receive what the sender delivers; the games are Nim on a fake clock."""

from __future__ import annotations

import asyncio
import email
import random
import socket
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from email.message import Message
from typing import Any

import pytest
from aiohttp import web
from aiosmtpd.controller import Controller

from door.config import MailConfig, NoticesConfig, PushConfig
from door.services.accounts import Accounts, User
from door.services.clock import FakeClock
from door.services.games import GameService
from door.services.mail import Mail
from door.services.notify import LocalHub
from door.services.outbox import Outbox
from door.services.sender import Sender
from door.store.db import Database
from tests.services.conftest import (  # noqa: F401  (fixtures shared with the service tests)
    NIM_BOTS,
    cheap_password_hashing,
    db,
    pg_template,
    sqlite_template,
)
from tests.services.nim import NimRules


@dataclass
class Inbox:
    """What the SMTP server accepted."""

    messages: list[Message] = field(default_factory=list)

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.messages.append(email.message_from_bytes(envelope.content))
        return "250 OK"

    def to(self, address: str) -> list[Message]:
        return [m for m in self.messages if m["To"] == address]


@dataclass
class Pushes:
    """What the HTTP server was POSTed: (path, Title header, body)."""

    got: list[tuple[str, str, str]] = field(default_factory=list)
    status: int = 200


@dataclass
class World:
    db: Database
    clock: FakeClock
    accounts: Accounts
    games: GameService
    mail: Mail
    outbox: Outbox
    sender: Sender
    inbox: Inbox
    pushes: Pushes
    push_base: str
    smtp_port: int
    alice: User
    bob: User

    async def deliver(self) -> list[str]:
        """One sender round; the outcomes' statuses."""
        return [o.status for o in await self.sender.run_once()]


@pytest.fixture
async def smtp() -> AsyncIterator[tuple[Inbox, int]]:
    inbox = Inbox()
    with socket.socket() as probe:  # a free port (aiosmtpd's ready check needs a real one)
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    yield inbox, controller.port
    controller.stop()


@pytest.fixture
async def push_server() -> AsyncIterator[tuple[Pushes, str]]:
    pushes = Pushes()

    async def take(request: web.Request) -> web.Response:
        pushes.got.append((request.path, request.headers.get("Title", ""), await request.text()))
        return web.Response(status=pushes.status, text="ok")

    app = web.Application()
    app.router.add_post("/{topic}", take)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    yield pushes, f"http://127.0.0.1:{port}"
    await runner.cleanup()


def make_sender(
    database: Database, clock: FakeClock, smtp_port: int, *, allow_private: bool = True
) -> Sender:
    return Sender(
        database, clock,
        MailConfig(host="127.0.0.1", port=smtp_port, security="none", from_="door@door.test"),
        PushConfig(enabled=True, allowed_schemes=("http",), allow_private=allow_private,
                   timeout_s=5),
        NoticesConfig(retry_first_s=60, retry_max_s=600, give_up_after_s=3600),
    )  # fmt: skip


@pytest.fixture(name="w")
async def world(
    db: Database,  # noqa: F811
    smtp: tuple[Inbox, int],
    push_server: tuple[Pushes, str],
) -> AsyncIterator[World]:
    clock = FakeClock()
    accounts = Accounts(db, clock)
    hub = LocalHub()
    games = GameService(
        db, {"nim": NimRules()}, hub, clock, random.Random(7), bot_levels=NIM_BOTS
    )
    outbox = Outbox(
        db, clock, unsubscribe_base_url="http://door.test/", push_schemes=("http",),
        push_enabled=True, mail_enabled=True,
    )  # fmt: skip
    games.notices.outbox = outbox
    mail = Mail(db, clock, hub=hub)
    mail.outbox = outbox
    inbox, port = smtp
    pushes, base = push_server
    alice = await accounts.register("Alice", "alice-pw")
    bob = await accounts.register("Bob", "bob-pw1")
    await asyncio.sleep(0)
    w = World(
        db, clock, accounts, games, mail, outbox, make_sender(db, clock, port), inbox,
        pushes, base, port, alice, bob,
    )  # fmt: skip
    yield w
    await w.sender.stop()
