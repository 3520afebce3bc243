"""A chat line is never wiped unseen (issue 17, point 7: "a message is delivered once to
each live session"). The status line shows until the person's next key; a key that
reaches the session in the same turn of its loop as a line (a busy server, a laggy link,
bench/chat.py's lost lines) was pressed before the line was ever drawn, so it must not
take the line away. And a line being typed keeps the keys when the opponent's move
arrives: the move is played on the board once the line is said, not over it."""

from __future__ import annotations

from door.services import Services
from door.services.accounts import User
from tests.ui.conftest import StartSession
from tests.ui.test_animated_view import opponent_moved, picture, with_delay
from tests.ui.test_backgammon_screen import NO_CUBE, begin, state_of


async def test_a_line_that_arrives_with_a_key_is_still_shown(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    gid = await begin(services, alice, bob, NO_CUBE)
    rb = await start_session(bob, start=f"game:{gid}")
    await rb.term.settle()
    # Bob's key and Alice's line reach his session before it wakes (no await between):
    # one turn of its loop handles both, and only then draws
    await services.chat.say(gid, alice.id, "arrived with a key")
    rb.term.type("i")  # the IDs toggle: a key that says nothing on the status line
    await rb.term.settle()
    assert "Chat Alice: arrived with a key" in rb.term.display_text()


async def test_the_next_key_after_a_shown_line_still_clears_it(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    gid = await begin(services, alice, bob, NO_CUBE)
    rb = await start_session(bob, start=f"game:{gid}")
    await services.chat.say(gid, alice.id, "read me once")
    await rb.term.wait_for("Chat Alice: read me once")
    rb.term.type("i")
    await rb.term.settle()
    assert "read me once" not in rb.term.display_text()


async def test_a_line_typed_while_the_opponent_moves_is_still_said(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    gid = await begin(services, alice, bob, NO_CUBE)
    users = {0: alice, 1: bob}
    state = await state_of(services, gid)
    mover, watcher = users[state.turn], users[1 - state.turn]
    rw = await start_session(watcher, start=f"game:{gid}")
    rm = await start_session(mover, start=f"game:{gid}")
    rw.term.type("c")
    await rw.term.settle()
    rw.term.type_each("good ")
    await rw.term.settle()
    await opponent_moved(services, gid, users)  # the watcher's board plays the move in
    await rw.term.settle()
    rw.term.type_each("luck")
    rw.term.press("enter")
    await rm.term.wait_for(f"Chat {watcher.name}: good luck")


async def test_the_move_that_arrived_meanwhile_is_played_once_the_line_is_said(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    gid = await begin(services, alice, bob, NO_CUBE)
    users = {0: alice, 1: bob}
    state = await state_of(services, gid)
    watcher = await with_delay(services, users[1 - state.turn], 5.0)  # a picture stays
    rw = await start_session(watcher, start=f"game:{gid}")
    rw.term.type("c")
    await rw.term.settle()
    await opponent_moved(services, gid, users)
    await rw.term.settle()
    assert picture(rw) is None  # nothing is played over the line being typed
    assert "Chat: " in rw.term.display_text()
    rw.term.type_each("well played")
    rw.term.press("enter")
    await rw.term.settle()
    shown = picture(rw)
    assert shown is not None and shown[0] < shown[1]
    assert "Chat: " not in rw.term.display_text()


async def test_a_line_that_arrives_with_a_key_that_answers_on_the_status_line_shows_too(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    gid = await begin(services, alice, bob, NO_CUBE)
    rb = await start_session(bob, start=f"game:{gid}")
    await rb.term.settle()
    await services.chat.say(gid, alice.id, "look here")
    rb.term.type("v")  # V)iew with no turn played yet: it says so on the status line
    await rb.term.settle()
    text = rb.term.display_text()
    assert "There is no turn to show yet." in text
    assert "Chat Alice: look here" in text


async def test_a_line_that_arrives_while_one_types_stays_in_sight_above_the_typing(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    gid = await begin(services, alice, bob, NO_CUBE)
    rb = await start_session(bob, start=f"game:{gid}")
    rb.term.type("c")
    await rb.term.wait_for("Chat: ")
    await services.chat.say(gid, alice.id, "are you typing?")
    await rb.term.settle()
    rb.term.type_each("yes")  # keys that clear the status line
    await rb.term.settle()
    assert "Chat Alice: are you typing?" in rb.term.display_text()
