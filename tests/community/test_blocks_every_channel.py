"""A block silences every channel (issue 17, point 5), and the one mute rule and the
rate limits hold on each: through the services and a real session read with pyte.

Alice blocks Bob. Whatever Bob sends her — mail, a page, a chat line in their game, a
named invitation — never reaches her, and Bob is told exactly what he would be told if
it had (for an invitation: what he would be told for a player who does not exist, so
that nothing says "blocked" and no game waits for ever on a seat she never hears of).
"""

from __future__ import annotations

from datetime import timedelta

import pytest

from door.services import Services
from door.services.accounts import User
from door.services.clock import FakeClock
from door.services.games import LobbyError, SeatSpec
from door.services.mail import MailError
from door.services.presence import PageError
from door.services.safety import SLOW_DOWN
from tests.community.test_talk_sessions import say
from tests.ui.conftest import StartSession, started_game

ME = SeatSpec("me")


async def invitation_refusal(services: Services, host: User, name: str) -> str:
    with pytest.raises(LobbyError) as refused:
        await services.games.begin(host.id, "backgammon", {}, [ME, SeatSpec("user", name)])
    return str(refused.value)


async def test_after_a_block_nothing_the_blocked_player_sends_reaches_the_blocker(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    carol = await services.accounts.register("Carol", "carol-pw")
    gid = (await started_game(services, alice, bob)).id
    await services.blocks.block(alice.id, bob.id)
    a = await start_session(alice, start=f"game:{gid}")

    # Bob is told what any sender is told: the same as to Carol, who does not block him
    mail_to_alice = await services.mail.send(bob.id, "Alice", "Hi", "from Bob")
    assert isinstance(mail_to_alice, int)  # no MailError: "Sent to Alice."
    await services.mail.send(bob.id, "Carol", "Hi", "from Bob")
    assert await services.presence.page(bob.id, bob.name, alice.id, "psst Alice") == "psst Alice"
    assert await services.presence.page(bob.id, bob.name, carol.id, "psst Alice") == "psst Alice"
    line = await services.chat.say(gid, bob.id, "Bob chats here")
    assert line.text == "Bob chats here" and line.channel == "chat"
    refused = await invitation_refusal(services, bob, "Alice")
    assert refused == (await invitation_refusal(services, bob, "Nobody")).replace(
        "Nobody", "Alice"
    )

    # a page from someone she does not block comes after all that: when it shows,
    # everything Bob sent has had its chance to arrive
    await services.presence.page(carol.id, carol.name, alice.id, "still here?")
    await a.term.wait_for("Page from Carol: still here?")
    await say(a, "Anyone?")  # her own line shows: the chat on her screen is live
    await a.term.wait_for("Chat Alice: Anyone?")
    shown = a.term.display_text()
    # the status line shows only the newest line: so look at every byte her session was
    # ever sent, too — none of Bob's words was drawn, not even for a moment
    ever_sent = bytes(a.term.raw).decode("utf-8", "replace")
    for sent in ("psst Alice", "Bob chats here", "New mail from Bob", "Page from Bob"):
        assert sent not in shown and sent not in ever_sent, sent
    assert await services.mail.unread(alice.id) == 0
    assert await services.mail.inbox(alice.id) == []
    assert (await services.games.list_games("invited", alice.id))[1] == 0
    # and Carol, who blocks nobody, got Bob's mail: the block is Alice's alone
    assert [m.body for m in await services.mail.inbox(carol.id)] == ["from Bob"]


async def test_a_block_is_one_way_the_blocker_still_reaches_the_blocked(
    services: Services, alice: User, bob: User
) -> None:
    await services.blocks.block(alice.id, bob.id)
    await services.mail.send(alice.id, "Bob", "Hi", "from Alice")
    assert [m.body for m in await services.mail.inbox(bob.id)] == ["from Alice"]
    info = await services.games.begin(alice.id, "backgammon", {}, [ME, SeatSpec("user", "Bob")])
    assert (await services.games.list_games("invited", bob.id))[1] == 1 and info.id


async def test_unblocking_lets_the_invitation_through_again(
    services: Services, alice: User, bob: User
) -> None:
    await services.blocks.block(alice.id, bob.id)
    await invitation_refusal(services, bob, "Alice")
    await services.blocks.unblock(alice.id, bob.id)
    await services.games.begin(bob.id, "backgammon", {}, [ME, SeatSpec("user", "Alice")])
    assert (await services.games.list_games("invited", alice.id))[1] == 1


async def test_a_muted_player_cannot_chat_mail_or_page_and_is_told_until_when(
    services: Services, alice: User, bob: User, start_session: StartSession, clock: FakeClock
) -> None:
    await services.accounts.set_sysop("Alice", True)
    gid = (await started_game(services, alice, bob)).id
    until = await services.sysop.mute(alice.id, "Bob", 2, "flooding")
    a = await start_session(alice, start=f"game:{gid}")
    b = await start_session(bob, start=f"game:{gid}")
    await say(b, "can you hear me")
    told = f"You are muted until {until:%Y-%m-%d %H:%M} UTC"
    await b.term.wait_for(told)
    await say(a, "quiet now")
    await b.term.wait_for("Chat Alice: quiet now")
    assert "can you hear me" not in a.term.display_text()
    # the same rule, written once, refuses his mail and pages with the same words
    with pytest.raises(MailError, match=told):
        await services.mail.send(bob.id, "Alice", "Hi", "x")
    with pytest.raises(PageError, match=told):
        await services.presence.page(bob.id, bob.name, alice.id, "x")
    assert await services.mail.inbox(alice.id) == []
    clock.advance(timedelta(hours=2, minutes=1))  # the mute is over
    assert (await services.chat.say(gid, bob.id, "back again")).text == "back again"


async def test_a_flood_of_mail_is_told_to_slow_down_and_nothing_of_it_is_stored(
    services: Services, alice: User, bob: User, clock: FakeClock
) -> None:
    for n in range(3):  # the burst
        await services.mail.send(bob.id, "Alice", f"mail {n}", "x")
    with pytest.raises(MailError) as refused:
        await services.mail.send(bob.id, "Alice", "mail 3", "x")
    assert str(refused.value) == SLOW_DOWN
    assert len(await services.mail.inbox(alice.id)) == 3
    await services.mail.send(alice.id, "Bob", "Alice is not slowed", "x")  # per sender
    clock.advance(timedelta(seconds=10))  # 6 a minute: one more after 10 s
    await services.mail.send(bob.id, "Alice", "mail 4", "x")
    with pytest.raises(MailError, match="Slow down"):
        await services.mail.send(bob.id, "Alice", "mail 5", "x")
    assert len(await services.mail.inbox(alice.id)) == 4


async def test_a_flood_of_pages_is_told_to_slow_down(
    services: Services, alice: User, bob: User
) -> None:
    for _ in range(5):
        await services.presence.page(bob.id, bob.name, alice.id, "hey")
    with pytest.raises(PageError) as refused:
        await services.presence.page(bob.id, bob.name, alice.id, "hey")
    assert str(refused.value) == SLOW_DOWN


async def test_a_flood_of_mail_is_shown_as_slow_down_on_the_writers_screen(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    for n in range(3):
        await services.mail.send(bob.id, "Alice", f"mail {n}", "x")
    b = await start_session(bob)
    b.term.type("m")
    await b.term.settle()
    b.term.type("w")
    await b.term.settle()
    b.term.type_each("Alice")
    b.term.press("tab")
    b.term.type_each("one more")
    b.term.press("ctrl-s")
    await b.term.wait_for("Slow down")
    assert len(await services.mail.inbox(alice.id)) == 3
