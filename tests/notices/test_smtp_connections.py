"""A round's e-mails share a few SMTP connections (a message after another on each, not a
connection, greeting and EHLO per message), and every one is still delivered once."""

from __future__ import annotations

from collections import Counter
from typing import Any

from door.store.records import NewOutbox
from door.store.repository import Repository
from tests.notices.conftest import Inbox, World


async def test_a_rounds_emails_share_a_few_connections(w: World) -> None:
    peers: list[object] = []  # (address, port) of the client: one per connection
    inbox: Inbox = w.inbox
    taken = inbox.handle_DATA

    async def counting(server: object, session: Any, envelope: object) -> str:
        peers.append(tuple(session.peer))
        return await taken(server, session, envelope)

    inbox.handle_DATA = counting  # type: ignore[method-assign]
    await w.outbox.set_confirmed_email(w.bob.id, "bob@door.test")
    now = w.clock.now()

    def write(repo: Repository) -> None:
        for game in range(1, 31):
            repo.enqueue_notice(
                NewOutbox(w.bob.id, game, "your_turn", "email", "bob@door.test",
                          f"game {game}", "it is your turn", now),
                now,
            )  # fmt: skip

    await w.db.transact(write)
    w.sender.batch = 30
    assert await w.deliver() == ["sent"] * 30
    assert Counter(m["Subject"] for m in inbox.to("bob@door.test")) == {
        f"game {g}": 1 for g in range(1, 31)
    }
    assert len(set(peers)) <= w.sender.smtp_connections
