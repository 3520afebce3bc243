"""A session whose notices pile up faster than it reads them (a stalled reader: a busy
server, a slow link) loses no chat line: its full queue collapses to one ``resync`` and
the game's screen reads the lines it missed from the store."""

from __future__ import annotations

from door.services import Services
from door.services.accounts import User
from door.services.notify import LocalHub, Notice
from tests.ui.conftest import StartSession
from tests.ui.test_backgammon_screen import NO_CUBE, begin


async def test_a_chat_line_pushed_out_of_a_full_queue_is_still_shown(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    gid = await begin(services, alice, bob, NO_CUBE)
    rb = await start_session(bob, start=f"game:{gid}")
    await rb.term.settle()
    hub = services.hub
    assert isinstance(hub, LocalHub)
    held: list[Notice] = []
    deliver = hub.deliver
    hub.deliver = held.append  # type: ignore[method-assign]
    try:
        await services.chat.say(gid, alice.id, "lost in the crowd?")
    finally:
        hub.deliver = deliver  # type: ignore[method-assign]
    # the line's notice, then a queue's worth of stale ones, before Bob's session wakes
    for n in held:
        hub.deliver(n)
    for _ in range(150):
        hub.deliver(Notice(gid, "move", (alice.id, bob.id), "", 0))
    await rb.term.settle()
    assert "Chat Alice: lost in the crowd?" in rb.term.display_text()
