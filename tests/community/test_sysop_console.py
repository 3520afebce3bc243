"""The sysop's console through real telnet sessions read with pyte: the sysop bans a
logged-in player with a reason and that player is disconnected at once; the ban is in
the audit log on the console. Also: only sysops see or reach the console, and the
actions of the console's service each leave an audit row."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pyte
import pytest

from door.app import SUSPENDED_MESSAGE
from door.services import Services
from door.services.accounts import User
from door.services.sysop import SysopError
from tests.net.conftest import make_config
from tests.net.test_ban_live import logged_in, read_to_end, start_app
from tests.ui.conftest import StartSession


class Screen:
    """What a telnet client's 80×24 terminal shows, fed in the background."""

    def __init__(self, reader: Any) -> None:
        self.screen = pyte.Screen(80, 24)
        self.stream = pyte.ByteStream(self.screen)
        self.reader = reader
        self.task = asyncio.ensure_future(self._feed())

    async def _feed(self) -> None:
        while chunk := await self.reader.read(4096):
            self.stream.feed(chunk)

    def text(self) -> str:
        return "\n".join(self.screen.display)

    async def wait_for(self, needle: str, timeout: float = 5.0) -> None:
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while needle not in self.text():
            assert loop.time() < end, f"{needle!r} never shown:\n{self.text()}"
            await asyncio.sleep(0.02)


async def test_the_sysop_bans_a_logged_in_player_who_is_disconnected_at_once(
    tmp_path: Path,
) -> None:
    app = await start_app(make_config(tmp_path), real_session=True)
    try:
        await app.services.accounts.register("keeper", "keeper-pw")
        await app.services.accounts.set_sysop("keeper", True)
        carol, carol_w = await logged_in(app, "carol", until="Main Menu")
        root_r, root_w = await logged_in(app, "keeper", until="Main Menu")
        root = Screen(root_r)
        root_w.write(b"\x0c")  # Ctrl-L: the whole screen again, for pyte
        await root.wait_for("Sysop console")
        root_w.write(b"!")
        await root.wait_for("Nothing done yet.")
        root_w.write(b"b")
        await root.wait_for("Ban — User:")
        root_w.write(b"carol\r")
        await root.wait_for("Ban — Reason:")
        root_w.write(b"spamming the lobby\r")
        said, took = await read_to_end(carol, timeout=5.0)
        assert SUSPENDED_MESSAGE.encode() in said
        assert took <= 2.0
        await root.wait_for("carol is banned; their sessions are ended.")
        assert "keeper ban carol: spamming the lobby" in root.text()
        carol_w.close()
        root_w.close()
        root.task.cancel()
    finally:
        await app.shutdown()


async def test_only_a_sysop_sees_the_console_on_the_main_menu(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    await services.accounts.set_sysop("Bob", True)
    a = await start_session(alice)
    assert "Sysop console" not in a.term.display_text()
    a.term.type("!")
    await a.term.settle()
    assert "Sysop console" not in a.term.display_text()
    b = await start_session(bob)
    assert "Sysop console" in b.term.display_text()
    b.term.type("!")
    await b.term.wait_for("Audit log")


async def test_a_player_who_is_not_a_sysop_is_refused_every_console_action(
    services: Services, alice: User
) -> None:
    with pytest.raises(SysopError):
        await services.sysop.ban(alice.id, "Bob", "no reason")
    with pytest.raises(SysopError):
        await services.sysop.broadcast(alice.id, "hello all")
    assert not (await services.accounts.get((await services.accounts.by_name("Bob")).id)).is_banned  # type: ignore[union-attr]


async def test_every_console_action_is_in_the_audit_log(
    services: Services, alice: User, bob: User
) -> None:
    await services.accounts.set_sysop("Alice", True)
    s = services.sysop
    await s.mute(alice.id, "Bob", 2, "flooding")
    await s.unmute(alice.id, "Bob")
    await s.reset_password(alice.id, "Bob")
    await s.ban(alice.id, "Bob", "abuse")
    await s.unban(alice.id, "Bob", "appealed")
    await s.broadcast(alice.id, "maintenance at noon")
    log = await s.audit(alice.id)
    assert [(e.sysop_name, e.action, e.target) for e in reversed(log)] == [
        ("Alice", "mute", "Bob"), ("Alice", "unmute", "Bob"),
        ("Alice", "reset-password", "Bob"), ("Alice", "ban", "Bob"),
        ("Alice", "unban", "Bob"), ("Alice", "broadcast", "0 online"),
    ]  # fmt: skip
    assert log[2].detail == "abuse"


async def test_a_muted_player_cannot_send_mail_or_pages(
    services: Services, alice: User, bob: User
) -> None:
    from door.services.mail import MailError
    from door.services.presence import PageError

    await services.accounts.set_sysop("Alice", True)
    await services.sysop.mute(alice.id, "Bob", 1, "cool off")
    with pytest.raises(MailError, match="muted"):
        await services.mail.send(bob.id, "Alice", "hi", "there")
    with pytest.raises(PageError, match="muted"):
        await services.presence.page(bob.id, "Bob", alice.id, "hi")
    await services.sysop.unmute(alice.id, "Bob")
    await services.mail.send(bob.id, "Alice", "hi", "there")


async def test_a_reported_message_waits_for_the_sysop_with_a_copy_of_its_text(
    services: Services, alice: User, bob: User
) -> None:
    await services.accounts.set_sysop("Alice", True)
    rid = await services.sysop.report(bob.id, "mail", "buy \x1b[5mcheap\x1b[0m chips", about_id=1)
    (waiting,) = await services.sysop.reports(alice.id)
    assert waiting.id == rid and waiting.channel == "mail" and "\x1b" not in waiting.text
    assert await services.sysop.resolve(alice.id, rid, "warned")
    assert await services.sysop.reports(alice.id) == []


async def test_a_broadcast_reaches_every_online_session_on_its_status_line(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    await services.accounts.set_sysop("Alice", True)
    b = await start_session(bob, start="rank")
    before = b.term.display()
    assert await services.sysop.broadcast(alice.id, "back in 5 minutes") == 1
    await b.term.wait_for("Sysop Alice: back in 5 minutes")
    after = b.term.display()
    assert after[:22] == before[:22] and after[23] == before[23]
