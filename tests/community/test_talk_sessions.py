"""Talk in a game (issue 17, point 2), through real sessions read with pyte: the players'
chat reaches players and spectators at once; kibitz reaches the spectators only, until a
player opens it; a blocked author is not shown; lines are cleaned, kept, rate-limited."""

from __future__ import annotations

from door.services import Services
from door.services.accounts import User
from door.services.chat import ChatError
from tests.ui.conftest import Running, StartSession
from tests.ui.test_backgammon_screen import NO_CUBE, begin


async def say(r: Running, text: str) -> None:
    r.term.type("c")
    await r.term.settle()
    r.term.type_each(text)
    r.term.press("enter")
    await r.term.settle()


async def three_on_a_game(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> tuple[int, Running, Running, Running, User]:
    carol = await services.accounts.register("Carol", "carol-pw")
    gid = await begin(services, alice, bob, NO_CUBE)
    ra = await start_session(alice, start=f"game:{gid}")
    rb = await start_session(bob, start=f"game:{gid}")
    rc = await start_session(carol, start=f"game:{gid}")
    return gid, ra, rb, rc, carol


async def test_players_chat_is_seen_by_the_other_player_and_the_spectator(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    _, ra, rb, rc, _ = await three_on_a_game(services, alice, bob, start_session)
    await say(ra, "Hello both")
    await rb.term.wait_for("Chat Alice: Hello both")
    await rc.term.wait_for("Chat Alice: Hello both")


async def test_kibitz_is_seen_by_spectators_only_until_a_player_opens_it(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    gid, ra, rb, rc, _ = await three_on_a_game(services, alice, bob, start_session)
    dave = await services.accounts.register("Dave", "dave-pw1")
    rd = await start_session(dave, start=f"game:{gid}")
    await say(rc, "Bob should run")
    await rd.term.wait_for("Kibitz Carol: Bob should run")
    await rb.term.settle()
    assert "Bob should run" not in ra.term.display_text()
    assert "Bob should run" not in rb.term.display_text()
    ra.term.type("k")  # Alice opens kibitz to the players
    await rb.term.wait_for("Kibitz is open to the players.")
    await say(rc, "Now you hear me")
    await ra.term.wait_for("Kibitz Carol: Now you hear me")
    await rb.term.wait_for("Kibitz Carol: Now you hear me")


async def test_a_blocked_authors_lines_are_not_shown_to_the_blocker(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    gid, ra, rb, rc, carol = await three_on_a_game(services, alice, bob, start_session)
    await services.blocks.block(carol.id, alice.id)
    await rc.stop()
    rc = await start_session(carol, start=f"game:{gid}")  # a screen reads the blocks as it opens
    await say(ra, "Carol cannot hear this")
    await rb.term.wait_for("Chat Alice: Carol cannot hear this")
    await rc.term.settle()
    assert "Carol cannot hear this" not in rc.term.display_text()


async def test_lines_are_kept_for_those_who_come_later_and_cleaned(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    gid = await begin(services, alice, bob, NO_CUBE)
    await services.chat.say(gid, alice.id, "see you\x1b]52;c;ZXZpbA==\x07 \x9b2J\u202etomorrow")
    rb = await start_session(bob, start=f"game:{gid}")
    assert "Chat Alice: see you tomorrow" in rb.term.display_text()


async def test_a_flood_is_told_to_slow_down(
    services: Services, alice: User, bob: User
) -> None:
    gid = await begin(services, alice, bob, NO_CUBE)
    said = 0
    try:
        for _ in range(20):
            await services.chat.say(gid, alice.id, "spam")
            said += 1
    except ChatError as exc:
        assert str(exc).startswith("Slow down")
    assert said < 20
