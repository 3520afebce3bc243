"""Begin's clock items, the board's clock line, and the settings' zone and vacation, as
a player sees them."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import UTC, datetime, timedelta

from door.net import detect
from door.net.web import parse_control
from door.services import Services
from door.services.accounts import User
from door.services.clock import FakeClock
from door.services.games import SeatSpec
from door.services.timecontrol import ClockOptions
from door.session import run_session
from tests.ui.conftest import StartSession
from tests.ui.faketerm import FakeTerminal


async def test_begin_sets_a_bank_and_weekends_off(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    r = await start_session(alice, start="begin")
    r.term.type("b")
    await r.term.settle()
    assert "Time bank (reserve): none" in r.term.display_text()
    assert "Pause the clock at weekends: no" in r.term.display_text()
    r.term.type("r")
    r.term.type("r")
    r.term.type("p")
    await r.term.settle()
    assert "Time bank (reserve): 3 days" in r.term.display_text()
    assert "Pause the clock at weekends: yes" in r.term.display_text()
    r.term.type("1")
    r.term.type("n")
    r.term.line("bob")
    r.term.type("s")
    r.term.press("enter")  # no dice word
    await r.term.settle()
    games, _ = await services.games.list_games("mine", alice.id)
    assert games[0].bank_s == 3 * 86400 and games[0].weekends_off
    assert [s.bank_s for s in games[0].seats] == [3 * 86400, 3 * 86400]


async def test_the_board_shows_the_move_time_left_and_the_bank(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    seats = [SeatSpec("me"), SeatSpec("user", bob.name)]
    clock = ClockOptions(2 * 86400 + 4 * 3600, 5 * 86400, False)
    info = await services.games.begin(alice.id, "backgammon", {}, seats, clock=clock)
    info = await services.games.join(info.id, bob.id)
    r = await start_session(alice, start=f"game:{info.id}")
    assert "2d 4h left · bank 5d" in r.term.display_text()


async def test_settings_choose_a_zone_offered_by_the_terminal(
    services: Services, alice: User
) -> None:
    term = FakeTerminal()
    term._caps = replace(term.caps, time_zone="Europe/Berlin")
    user = await services.accounts.get(alice.id)
    task = asyncio.create_task(run_session(term, services, user, start="settings"))
    try:
        await term.settle()
        assert "your terminal says Europe/Berlin" in term.display_text()
        term.type("z")
        await term.settle()
        term.press("enter")  # the terminal's zone, as offered
        await term.settle()
        assert "Time zone: Europe/Berlin" in term.display_text()
        assert (await services.accounts.get(alice.id)).time_zone == "Europe/Berlin"
    finally:
        term.hangup()
        await asyncio.wait_for(task, 5)


async def test_settings_refuse_an_unknown_zone_and_keep_the_old_one(
    start_session: StartSession, services: Services, alice: User
) -> None:
    r = await start_session(alice, start="settings")
    r.term.type("z")
    r.term.line("Mars/Olympus")
    await r.term.settle()
    assert "not a time zone this server knows" in r.term.display_text()
    assert (await services.accounts.get(alice.id)).time_zone is None


async def test_settings_start_and_end_a_vacation(
    start_session: StartSession, services: Services, clock: FakeClock, alice: User
) -> None:
    r = await start_session(alice, start="settings")
    assert "Vacation: none · 14 of 14 days left this year" in r.term.display_text()
    r.term.type("v")
    r.term.line("3")
    await r.term.settle()
    assert "your clocks stop" in r.term.display_text()
    assert "V ends it · 11 of 14 days left" in r.term.display_text()
    on = await services.db.run_read(lambda repo: repo.users_on_vacation([alice.id], clock.now()))
    assert on == {alice.id}
    clock.advance(timedelta(hours=5))
    r.term.type("v")
    await r.term.settle()
    assert "Vacation: none · 13 of 14 days left this year" in r.term.display_text()


async def test_settings_plan_a_vacation_from_a_date(
    start_session: StartSession, services: Services, clock: FakeClock, alice: User
) -> None:
    r = await start_session(alice, start="settings")
    r.term.type("v")
    r.term.line("2 from 2026-01-10")
    await r.term.settle()
    assert "from 10 Jan to 12 Jan 00:00, V cancels" in r.term.display_text()
    status = await services.clocks.status(alice.id)
    assert status.vacation is not None
    assert status.vacation.starts_at == datetime(2026, 1, 10, tzinfo=UTC)


def test_a_zone_hint_is_taken_only_when_it_names_a_place() -> None:
    assert detect.zone_hint("Europe/Berlin") == "Europe/Berlin"
    assert detect.zone_hint(":America/New_York") == "America/New_York"
    assert detect.zone_hint("CET-1CEST,M3.5.0,M10.5.0/3") is None
    assert detect.zone_hint("/etc/localtime") is None
    assert detect.zone_hint("Europe/../../etc") is None
    assert detect.zone_hint(42) is None


def test_the_web_hello_carries_the_browsers_zone() -> None:
    hello = parse_control(
        '{"type": "hello", "cols": 80, "rows": 24, "term": "xterm", "tz": "Asia/Kolkata"}',
        first=True,
    )
    assert getattr(hello, "time_zone", None) == "Asia/Kolkata"
    bad = parse_control(
        '{"type": "hello", "cols": 80, "rows": 24, "term": "xterm", "tz": "\\u001b[2J"}',
        first=True,
    )
    assert getattr(bad, "time_zone", "x") is None


async def test_opponents_see_a_player_on_vacation_until_when(
    start_session: StartSession, services: Services, clock: FakeClock, alice: User, bob: User
) -> None:
    seats = [SeatSpec("me"), SeatSpec("user", bob.name)]
    info = await services.games.begin(alice.id, "backgammon", {}, seats)
    info = await services.games.join(info.id, bob.id)
    await services.clocks.start(bob.id, 10)  # from 1 Jan 12:00 UTC
    r = await start_session(alice, start=f"game:{info.id}")
    assert "Bob is on vacation until 11 Jan." in r.term.display_text()
