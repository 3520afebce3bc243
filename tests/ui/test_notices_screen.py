"""Y)our settings -> N)otices: a player sets an e-mail address, gets the code at a real
SMTP server on 127.0.0.1, types it in, and chooses the kinds (pyte, 80x24)."""

from __future__ import annotations

import random
import socket
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from aiosmtpd.controller import Controller

from door.config import Config, DatabaseConfig, GamesConfig, MailConfig
from door.services import Services, build_services
from door.services.accounts import User
from door.services.clock import FakeClock
from tests.notices.conftest import Inbox
from tests.store import dbutil
from tests.ui.conftest import Running, StartSession


@pytest.fixture
def smtp() -> Iterator[tuple[Inbox, int]]:
    inbox = Inbox()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    yield inbox, port
    controller.stop()


@pytest.fixture
async def services(
    ui_sqlite_template: Path, tmp_path: Path, clock: FakeClock, smtp: tuple[Inbox, int]
) -> AsyncIterator[Services]:
    """The real services with [mail] pointing at the test's SMTP server."""
    config = Config(
        data_dir=tmp_path,
        database=DatabaseConfig(url=dbutil.fresh_sqlite(ui_sqlite_template, tmp_path),
                                auto_upgrade=False),
        games=GamesConfig(bots=False),
        mail=MailConfig(host="127.0.0.1", port=smtp[1], security="none", from_="d@door.test"),
    )  # fmt: skip
    svc = await build_services(config, clock=clock, rng=random.Random(7), start_background=False)
    try:
        yield svc
    finally:
        await svc.close()


async def notices_screen(start_session: StartSession, user: User) -> Running:
    r = await start_session(user, start="settings")
    r.term.type("n")
    await r.term.settle()
    return r


async def answer(r: Running, key: str, text: str) -> None:
    r.term.type(key)
    await r.term.settle()
    r.term.type(text)
    r.term.press("enter")
    await r.term.settle()


async def test_the_settings_menu_offers_notices(start_session: StartSession, alice: User) -> None:
    r = await start_session(alice, start="settings")
    assert "N) Notices" in r.term.display_text()


async def test_an_address_is_confirmed_with_the_code_mailed_to_it(
    start_session: StartSession, services: Services, alice: User, smtp: tuple[Inbox, int]
) -> None:
    r = await notices_screen(start_session, alice)
    assert "E) E-mail: none" in r.term.display_text()
    await answer(r, "e", "alice@door.test")
    assert "A code is on its way to alice@door.test" in r.term.display_text()
    assert "(not confirmed yet" in r.term.display_text()
    assert services.sender is not None
    await services.sender.run_once()
    [mail] = smtp[0].to("alice@door.test")
    code = mail.get_payload(decode=True).decode().split("code is ")[1].split()[0]
    await answer(r, "c", "999999" if code != "999999" else "111111")
    assert "That code is wrong" in r.term.display_text()
    r.term.type(code)  # the line stays open for another try
    r.term.press("enter")
    await r.term.settle()
    text = r.term.display_text()
    assert "Your address is confirmed" in text and "alice@door.test (confirmed)" in text


async def test_a_kind_is_toggled_with_its_number(
    start_session: StartSession, services: Services, alice: User
) -> None:
    r = await notices_screen(start_session, alice)
    assert "1) [x] your turn" in r.term.display_text()
    r.term.type("1")
    await r.term.settle()
    assert "1) [ ] your turn" in r.term.display_text()
    assert services.outbox is not None
    assert "your_turn" not in (await services.outbox.prefs(alice.id)).kinds


async def test_a_push_url_is_refused_when_the_server_offers_no_push(
    start_session: StartSession, alice: User
) -> None:
    r = await notices_screen(start_session, alice)
    r.term.type("p")
    await r.term.settle()
    assert "does not send those" in r.term.display_text()
