"""Reporting any message to the sysop (issue 17, point 5), through real sessions read
with pyte: ``!`` on a game's screen lists its last chat and kibitz lines and the notes
sent with the other players' moves by number, and reports the one chosen; Ctrl-X reports
the last page, as its status line says. Each lands in the sysop console's R)eports with
its channel, who wrote it and a copy of its text."""

from __future__ import annotations

import re

from door.services import Services
from door.services.accounts import User
from door.session import PAGE_REPLY_HINT
from tests.ui.conftest import Running, StartSession
from tests.ui.test_backgammon_screen import NO_CUBE, begin, state_of


async def sysop_console_reports(services: Services, start_session: StartSession) -> Running:
    """A sysop's session on the console's R)eports list."""
    keeper = await services.accounts.register("Keeper", "keeper-pw")
    await services.accounts.set_sysop("Keeper", True)
    rk = await start_session(keeper)
    rk.term.type("!")
    await rk.term.wait_for("Audit log")
    rk.term.type("r")
    await rk.term.settle()
    return rk


async def pick_and_report(r: Running, shown: str) -> None:
    """``!``, find ``shown`` in the list, type its number and Enter."""
    r.term.type("!")
    await r.term.wait_for("Report to the sysop")
    found = re.search(r"(\d+)  [^║]*" + re.escape(shown), r.term.display_text())
    assert found is not None, r.term.display_text()
    r.term.type_each(found.group(1))
    r.term.press("enter")
    await r.term.wait_for("Reported to the sysop")


async def test_a_chat_line_is_reported_from_the_game_screen_and_shown_on_the_console(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    gid = await begin(services, alice, bob, NO_CUBE)
    await services.chat.say(gid, alice.id, "buy cheap chips at my site")
    rb = await start_session(bob, start=f"game:{gid}")
    await pick_and_report(rb, "Chat Alice: buy cheap chips at my site")
    assert "Report to the sysop" not in rb.term.display_text()  # back on the board
    rk = await sysop_console_reports(services, start_session)
    await rk.term.wait_for("chat from Alice:")
    assert "buy cheap chips at my site" in rk.term.display_text()


async def test_a_spectators_kibitz_line_is_reported_as_kibitz(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    gid = await begin(services, alice, bob, NO_CUBE)
    carol = await services.accounts.register("Carol", "carol-pw")
    dave = await services.accounts.register("Dave", "dave-pw1")
    rd = await start_session(dave, start=f"game:{gid}")
    await services.chat.say(gid, carol.id, "Bob plays like a donkey")
    await rd.term.wait_for("Kibitz Carol: Bob plays like a donkey")
    await pick_and_report(rd, "Kibitz Carol: Bob plays like a donkey")
    await services.accounts.set_sysop("Alice", True)
    (report,) = await services.sysop.reports(alice.id)
    assert (report.channel, report.about_id, report.reporter_id) == ("kibitz", carol.id, dave.id)
    assert "Bob plays like a donkey" in report.text


async def test_a_note_sent_with_a_move_is_reported_with_its_move(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    from door.games.backgammon.rules import BackgammonRules

    gid = await begin(services, alice, bob, NO_CUBE)
    users = {0: alice, 1: bob}
    state = await state_of(services, gid)
    mover, other = users[state.turn], users[1 - state.turn]
    rules = BackgammonRules()
    play = rules.format_move(state, rules.legal_moves(state)[0])
    version = (await services.games.get(gid)).info.version
    await services.games.submit(gid, mover.id, play, version, note="you will lose, loser")
    ro = await start_session(other, start=f"game:{gid}")
    await pick_and_report(ro, "you will lose, loser")
    await services.accounts.set_sysop(other.name, True)
    (report,) = await services.sysop.reports(other.id)
    assert (report.channel, report.about_id) == ("note", mover.id)
    assert f"#{gid}, with " in report.text and "you will lose, loser" in report.text


async def test_the_last_page_is_reported_with_ctrl_x_from_any_screen(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    ra = await start_session(alice)  # the main menu
    await services.presence.page(bob.id, "Bob", alice.id, "send me your password")
    await ra.term.wait_for(f"Page from Bob: send me your password — {PAGE_REPLY_HINT}")
    assert "Ctrl-X reports" in ra.term.display_text()
    ra.term.press("ctrl-x")
    await ra.term.wait_for("Reported the page to the sysop")
    rk = await sysop_console_reports(services, start_session)
    await rk.term.wait_for("page from Bob:")
    assert "send me your password" in rk.term.display_text()


async def test_a_page_is_reported_once_however_often_ctrl_x_is_pressed(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    ra = await start_session(alice)
    await services.presence.page(bob.id, "Bob", alice.id, "hello there")
    await ra.term.wait_for("Page from Bob: hello there")
    ra.term.press("ctrl-x")
    await ra.term.wait_for("Reported the page")
    ra.term.press("ctrl-x")
    await ra.term.settle()
    await services.accounts.set_sysop("Alice", True)
    assert len(await services.sysop.reports(alice.id)) == 1


async def test_a_number_not_in_the_list_is_refused_and_the_list_stays(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    gid = await begin(services, alice, bob, NO_CUBE)
    await services.chat.say(gid, alice.id, "only line")
    rb = await start_session(bob, start=f"game:{gid}")
    rb.term.type("!")
    await rb.term.wait_for("Report to the sysop")
    rb.term.type_each("7")
    rb.term.press("enter")
    await rb.term.wait_for("Type a number from 1 to 1")
    assert "Report to the sysop" in rb.term.display_text()
    rb.term.press("escape")
    await rb.term.settle()
    await services.accounts.set_sysop("Bob", True)
    assert await services.sysop.reports(bob.id) == []


async def test_ones_own_lines_are_not_offered_for_reporting(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    gid = await begin(services, alice, bob, NO_CUBE)
    await services.chat.say(gid, bob.id, "my own words")
    rb = await start_session(bob, start=f"game:{gid}")
    rb.term.type("!")
    await rb.term.wait_for("There is no line or note of anyone else here to report.")
    assert "Report to the sysop" not in rb.term.display_text()
