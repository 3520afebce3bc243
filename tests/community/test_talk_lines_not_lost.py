"""A chat line is never wiped unseen (issue 17, point 7: "a message is delivered once to
each live session"). The status line shows until the person's next key; a key that
reaches the session in the same turn of its loop as a line (a busy server, a laggy link,
bench/chat.py's lost lines) was pressed before the line was ever drawn, so it must not
take the line away."""

from __future__ import annotations

from door.services import Services
from door.services.accounts import User
from tests.ui.conftest import StartSession
from tests.ui.test_backgammon_screen import NO_CUBE, begin


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
