"""Mail: private messages from one player to another, online or not (issue 17).

A message is committed before its sender is told "sent" (``Mail.send`` returns after
the transaction), so nothing acknowledged is lost to a kill -9. Its subject and body are
cleaned first (:func:`~door.services.safety.clean_message`): no control character,
escape sequence, DEL or bidi override is stored, so none can reach the reader's
terminal. Messages stay until their recipient deletes them; the unread ones are counted
on the main menu.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from door.config import CommunityConfig
from door.services.accounts import name_key
from door.services.clock import Clock
from door.services.notify import Hub, Notice
from door.services.outbox import Outbox
from door.services.safety import SLOW_DOWN, RateLimit, clean_message, refusal_for_muted
from door.store.db import Database
from door.store.records import MailRecord
from door.store.repository import Repository

SUBJECT_MAX = 60
"""Characters in a subject."""
BODY_LINES = 5
"""Lines in a body."""
LINE_MAX = 70
"""Characters in each line of a body (a line fits an 80-column screen with its margin)."""
INBOX_MAX = 200
"""Messages an inbox shows (the newest)."""

class MailError(Exception):
    """A message that cannot be sent, with the reason to show its sender."""


@dataclass(frozen=True)
class Message:
    """One message as its recipient sees it."""

    id: int
    sender_id: int | None
    sender: str
    subject: str
    body: str
    sent_at: datetime
    unread: bool


def _message(r: MailRecord) -> Message:
    return Message(r.id, r.sender_id, r.sender_name or "(gone)", r.subject, r.body, r.sent_at,
                   r.read_at is None)  # fmt: skip


def clean_body(body: str) -> str:
    """The body as stored: at most :data:`BODY_LINES` lines of :data:`LINE_MAX`
    characters, trailing blank lines dropped."""
    head = body.split("\n")[: BODY_LINES * 4]
    lines = [clean_message(line, LINE_MAX).strip() for line in head]
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines[:BODY_LINES])


class Mail:
    """Sending, listing, reading and deleting private messages."""

    def __init__(
        self,
        db: Database,
        clock: Clock,
        *,
        hub: Hub | None = None,
        per_minute: int = CommunityConfig.mail_per_minute,
        burst: int = CommunityConfig.mail_burst,
    ) -> None:
        self.db = db
        self.clock = clock
        self.hub = hub
        """Where "new mail" notices go (None: nobody is told live)."""
        self.limit = RateLimit(clock, per_minute, burst)
        """Each sender's messages (fewer than chat's: a mail is longer and stays)."""
        self.outbox: Outbox | None = None
        """Where "new message" notices outside door are written (in the sending
        transaction; None: no e-mail nor push configured)."""

    async def send(self, sender_id: int, to: str, subject: str, body: str) -> int:
        """Store a message from ``sender_id`` to the player named ``to``; returns its id
        once it is committed. :class:`MailError` for no such player, no text, a flood
        ("Slow down: …") or a mute. A recipient who blocks the sender gets nothing, and
        the sender is told it was sent (0 for its id)."""
        subject = clean_message(subject, SUBJECT_MAX).strip()
        body = clean_body(clean_message(body, BODY_LINES * (LINE_MAX + 1), multiline=True))
        if not subject and not body:
            raise MailError("Write a subject or a few words first.")
        if not self.limit.allow(sender_id):
            raise MailError(SLOW_DOWN)
        key = name_key(to.strip())
        now = self.clock.now()

        def write(repo: Repository) -> int | None:
            refusal = refusal_for_muted(repo, sender_id, now)
            if refusal:
                raise MailError(refusal)
            user = repo.user_by_key(key) if key else None
            if user is None or user.is_bot or user.is_pending:
                return None
            if repo.is_blocked(user.id, sender_id):
                return 0  # not delivered, and the sender is told it was sent
            mail_id = repo.insert_mail(sender_id, user.id, subject or "(no subject)", body, now)
            outbox = self.outbox
            if outbox is not None:
                # the notice outside door commits with the message, or neither does; one
                # pending "new message" notice (game 0) stands for all until it is sent
                sender = repo.user(sender_id)
                name = clean_message(sender.name if sender else "someone", 20)
                line = f"New message from {name}: {subject or '(no subject)'}"
                outbox.enqueue(
                    repo, user.id, 0, "message", f"door: {line}"[:200],
                    f"{line}\n\nCall in to door and open M)ail to read it.",
                )
            return mail_id

        found = await self.db.transact(lambda repo: (write(repo), repo.user_by_key(key)))
        mail_id, recipient = found
        if mail_id is None or recipient is None:
            raise MailError(f"There is no player called {clean_message(to, 20).strip()!r}.")
        if mail_id and self.hub is not None:
            # committed: tell the recipient's live sessions (any process)
            sender = await self.db.run_read(lambda repo: repo.user(sender_id))
            name = clean_message(sender.name if sender else "someone", 20).strip()
            line = f"New mail from {name}: {subject or '(no subject)'}"[:120]
            self.hub.publish(Notice(-mail_id, "mail", (recipient.id,), line, mail_id))
        return mail_id

    async def inbox(self, user_id: int) -> list[Message]:
        """``user_id``'s messages, newest first."""
        rows = await self.db.run_read(lambda repo: repo.inbox(user_id, INBOX_MAX))
        return [_message(r) for r in rows]

    async def unread(self, user_id: int) -> int:
        """How many of ``user_id``'s messages are unread."""
        return await self.db.run_read(lambda repo: repo.unread_mail(user_id))

    async def read(self, user_id: int, mail_id: int) -> Message | None:
        """One of ``user_id``'s messages, marked read (None: not theirs, or deleted)."""
        now = self.clock.now()

        def mark(repo: Repository) -> MailRecord | None:
            found = repo.mail(user_id, mail_id)
            if found is not None and found.read_at is None:
                repo.mark_mail_read(user_id, mail_id, now)
            return found

        found = await self.db.transact(mark)
        return None if found is None else _message(found)

    async def delete(self, user_id: int, mail_id: int) -> bool:
        """Delete one of ``user_id``'s messages; False if it was not there."""
        return await self.db.transact(lambda repo: repo.delete_mail(user_id, mail_id))
