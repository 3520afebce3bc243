"""The outbox, written in the event's transaction, and the sender, delivering it to a
real SMTP server and a real HTTP server on loopback: exactly the notices called for."""

from __future__ import annotations

from datetime import timedelta

from door.services.games import GameSnapshot
from door.services.games.model import SeatSpec
from door.services.outbox import KINDS
from tests.notices.conftest import World, make_sender
from tests.services.test_games import play_to_the_end, player_to_act, two_player_game


async def bob_by_email(w: World, address: str = "bob@door.test") -> None:
    await w.outbox.set_confirmed_email(w.bob.id, address)


async def moves_until_bobs_turn(w: World, snap: GameSnapshot) -> GameSnapshot:
    """Alice moves until it is Bob's turn (Bob first takes his, if it is his: a turn
    he got by his own join is no news to him)."""
    if player_to_act(snap) == w.bob.id:
        snap = await w.games.submit(snap.info.id, w.bob.id, "take 1", snap.info.version)
    while snap.info.status == "active" and player_to_act(snap) != w.bob.id:
        snap = await w.games.submit(snap.info.id, w.alice.id, "take 1", snap.info.version)
    return snap


async def test_ten_turns_while_away_give_one_your_turn_notice(w: World) -> None:
    await bob_by_email(w)
    snap = await two_player_game(w.games, w.alice, w.bob, heap=60)
    for _ in range(10):  # ten times Bob's turn comes round before anything is sent
        snap = await moves_until_bobs_turn(w, snap)
        snap = await w.games.submit(snap.info.id, w.bob.id, "take 1", snap.info.version)
    snap = await moves_until_bobs_turn(w, snap)
    assert await w.deliver() == ["sent"]
    mails = w.inbox.to("bob@door.test")
    assert len(mails) == 1
    assert "your turn" in mails[0]["Subject"]
    assert await w.deliver() == []


async def test_a_new_turn_after_the_notice_was_sent_gives_another(w: World) -> None:
    await bob_by_email(w)
    snap = await moves_until_bobs_turn(w, await two_player_game(w.games, w.alice, w.bob, 40))
    assert await w.deliver() == ["sent"]
    snap = await w.games.submit(snap.info.id, w.bob.id, "take 1", snap.info.version)
    await moves_until_bobs_turn(w, snap)
    assert await w.deliver() == ["sent"]
    assert len(w.inbox.to("bob@door.test")) == 2


async def test_a_finished_game_is_told_to_the_other_player(w: World) -> None:
    await bob_by_email(w)
    await w.outbox.set_kinds(w.bob.id, frozenset({"finished"}))
    snap = await two_player_game(w.games, w.alice, w.bob, heap=4)
    await play_to_the_end(w.games, snap)
    await w.deliver()
    subjects = [m["Subject"] for m in w.inbox.to("bob@door.test")]
    assert len(subjects) == 1 and "is over" in subjects[0]


async def test_no_turn_notice_for_a_player_on_vacation(w: World) -> None:
    from door.services.vacations import PlayerClocks

    await bob_by_email(w)
    await PlayerClocks(w.games.core, w.clock).start(w.bob.id, 3)
    await moves_until_bobs_turn(w, await two_player_game(w.games, w.alice, w.bob, 40))
    assert await w.deliver() == []
    assert w.inbox.messages == []


async def test_only_the_kinds_asked_for_are_sent(w: World) -> None:
    await bob_by_email(w)
    await w.outbox.set_kinds(w.bob.id, frozenset(KINDS) - {"your_turn"})
    await moves_until_bobs_turn(w, await two_player_game(w.games, w.alice, w.bob, 40))
    assert await w.deliver() == []


async def test_a_named_invitation_is_told_to_the_guest(w: World) -> None:
    await bob_by_email(w)
    await w.games.begin(w.alice.id, "nim", {"heap": 12}, [SeatSpec("me"), SeatSpec("user", "Bob")])
    assert await w.deliver() == ["sent"]
    [m] = w.inbox.to("bob@door.test")
    assert "invites you" in m["Subject"]


async def test_a_new_message_is_told_once_and_rolled_back_mail_tells_nothing(w: World) -> None:
    await bob_by_email(w)
    await w.mail.send(w.alice.id, "Bob", "hello", "first")
    await w.mail.send(w.alice.id, "Bob", "again", "second")
    assert await w.deliver() == ["sent"]
    [m] = w.inbox.to("bob@door.test")
    assert "New message from Alice" in m["Subject"]


async def test_every_notice_says_how_to_stop_them(w: World) -> None:
    await bob_by_email(w)
    await moves_until_bobs_turn(w, await two_player_game(w.games, w.alice, w.bob, 40))
    await w.deliver()
    body = w.inbox.to("bob@door.test")[0].get_payload(decode=True).decode()
    prefs = await w.outbox.prefs(w.bob.id)
    assert "Y)our settings -> Notices" in body
    assert f"http://door.test/unsubscribe/{prefs.unsubscribe_token}" in body


async def test_unsubscribe_stops_pending_and_later_notices(w: World) -> None:
    await bob_by_email(w)
    snap = await moves_until_bobs_turn(w, await two_player_game(w.games, w.alice, w.bob, 40))
    prefs = await w.outbox.prefs(w.bob.id)
    assert await w.outbox.unsubscribe(prefs.unsubscribe_token)
    snap = await w.games.submit(snap.info.id, w.bob.id, "take 1", snap.info.version)
    await moves_until_bobs_turn(w, snap)
    assert await w.deliver() == []
    assert w.inbox.messages == []
    assert not await w.outbox.unsubscribe("no-such-token")


async def test_push_posts_the_text_with_a_title_header(w: World) -> None:
    await w.outbox.set_push(w.bob.id, f"{w.push_base}/bob-topic")
    await moves_until_bobs_turn(w, await two_player_game(w.games, w.alice, w.bob, 40))
    assert await w.deliver() == ["sent"]
    [(path, title, body)] = w.pushes.got
    assert path == "/bob-topic" and "your turn" in title and "Y)our settings" in body


async def test_a_private_push_address_is_refused_unless_allowed(w: World) -> None:
    await w.outbox.set_push(w.bob.id, f"{w.push_base}/bob-topic")
    await moves_until_bobs_turn(w, await two_player_game(w.games, w.alice, w.bob, 40))
    strict = make_sender(w.db, w.clock, w.smtp_port, allow_private=False)
    [outcome] = await strict.run_once()
    await strict.stop()
    assert outcome.status == "failed" and "private or local address" in outcome.why
    assert w.pushes.got == []
    [row] = await w.db.run_read(lambda repo: repo.outbox_of_user(w.bob.id))
    assert row.status == "failed" and "allow_private" in row.last_error


async def test_an_unreachable_server_is_retried_with_back_off_then_given_up(w: World) -> None:
    await bob_by_email(w)
    await moves_until_bobs_turn(w, await two_player_game(w.games, w.alice, w.bob, 40))
    down = make_sender(w.db, w.clock, 1)  # nothing listens on port 1
    assert [o.status for o in await down.run_once()] == ["retry"]
    assert await down.run_once() == []  # not due again yet
    w.clock.advance(timedelta(seconds=61))
    assert [o.status for o in await down.run_once()] == ["retry"]  # now 120 s later
    w.clock.advance(timedelta(seconds=3600))
    [outcome] = await down.run_once()
    assert outcome.status == "failed" and "gave up after 3 tries" in outcome.why
    assert w.inbox.messages == []


async def test_an_email_address_is_confirmed_with_the_code_sent_to_it(w: World) -> None:
    await w.outbox.set_email(w.bob.id, "bob@door.test")
    await moves_until_bobs_turn(w, await two_player_game(w.games, w.alice, w.bob, 40))
    assert await w.deliver() == ["sent"]  # the code only: the address is not confirmed
    [m] = w.inbox.to("bob@door.test")
    body = m.get_payload(decode=True).decode()
    code = body.split("code is ")[1].split()[0]
    assert not await w.outbox.confirm_email(w.bob.id, "000000" if code != "000000" else "1")
    assert await w.outbox.confirm_email(w.bob.id, code)
    assert (await w.outbox.prefs(w.bob.id)).email_confirmed


async def test_the_web_unsubscribe_link_asks_then_stops_every_notice(w: World) -> None:
    import aiohttp

    from door.app import connection_settings
    from door.config import Config
    from door.net.web import WebSettings, start_web

    async def no_session(terminal: object) -> None:
        return None

    await bob_by_email(w)
    token = (await w.outbox.prefs(w.bob.id)).unsubscribe_token
    settings = WebSettings(connection_settings(Config()), negotiation_wait=0.3)
    server = await start_web(
        "127.0.0.1", 0, no_session, settings=settings, unsubscribe=w.outbox.unsubscribe
    )
    try:
        url = f"http://127.0.0.1:{server.port}/unsubscribe/{token}"
        async with aiohttp.ClientSession() as http:
            async with http.get(url) as asked:  # a link scanner's GET changes nothing
                assert asked.status == 200 and "Stop them" in await asked.text()
            assert "your_turn" in (await w.outbox.prefs(w.bob.id)).kinds
            async with http.post(url) as done:
                assert done.status == 200 and "no more notices" in await done.text()
            async with http.post(url.replace(token, "unknown-token")) as unknown:
                assert unknown.status == 404
    finally:
        server.close()
        await server.wait_closed()
    await moves_until_bobs_turn(w, await two_player_game(w.games, w.alice, w.bob, 40))
    assert await w.deliver() == []


async def test_the_digest_holds_notices_until_8_and_sends_them_as_one(w: World) -> None:
    await bob_by_email(w)
    await w.outbox.set_digest(w.bob.id, True)
    await moves_until_bobs_turn(w, await two_player_game(w.games, w.alice, w.bob, 40))
    await w.mail.send(w.alice.id, "Bob", "hello", "a message")
    assert await w.deliver() == []  # FakeClock starts at 12:00 UTC: not before 8:00 tomorrow
    w.clock.advance(timedelta(hours=19, minutes=59))
    assert await w.deliver() == []
    w.clock.advance(timedelta(minutes=2))
    assert await w.deliver() == ["sent", "sent"]
    [m] = w.inbox.to("bob@door.test")
    body = m.get_payload(decode=True).decode()
    assert "daily digest (2 notices)" in m["Subject"]
    assert "it is your turn" in body and "New message from Alice" in body
    assert body.count("To stop these notices") == 1


async def test_a_push_url_by_name_goes_through_the_checking_resolver(w: World) -> None:
    url = w.push_base.replace("127.0.0.1", "localhost")
    await w.outbox.set_push(w.bob.id, f"{url}/by-name")
    await moves_until_bobs_turn(w, await two_player_game(w.games, w.alice, w.bob, 40))
    assert await w.deliver() == ["sent"]  # allowed here: the name resolves to loopback
    assert [p for p, _, _ in w.pushes.got] == ["/by-name"]
