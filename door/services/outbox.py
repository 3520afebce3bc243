"""Notices outside door (issue 18): what a player asked for, and the outbox they go to.

:meth:`Outbox.enqueue` runs inside the transaction of the event that causes a notice (a
move, a finished game, an invitation, a new message), so a notice is written if and only
if its event commits; :mod:`door.services.sender` delivers the outbox afterwards. At most
one notice per (player, game, kind, channel) is pending at once (the store's partial
unique index): ten moves against an away player leave one "your turn".
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import replace
from datetime import UTC, datetime, timedelta, tzinfo
from urllib.parse import urlsplit

from door.services import timecontrol as tc
from door.services.claims import process_owner
from door.services.clock import Clock
from door.store.db import Database
from door.store.records import NewOutbox, NoticePrefsRecord
from door.store.repository import Repository

KINDS: tuple[str, ...] = ("your_turn", "reminder", "message", "invitation", "finished")
"""The kinds of notice a player may ask for."""
KIND_NAMES = {
    "your_turn": "your turn",
    "reminder": "a reminder before a deadline",
    "message": "a new message",
    "invitation": "an invitation",
    "finished": "a game finished",
}
DEFAULT_KINDS = KINDS
"""What a player who sets an address gets until they choose."""
PAUSED_ON_VACATION = frozenset({"your_turn", "reminder"})
"""Kinds not sent to a player on vacation (their clocks stand still)."""
CODE_TTL = timedelta(hours=24)
DIGEST_HOUR = 8
"""The digest goes out at this hour of the player's own day."""
FOOTER_MARK = "\n\nTo stop these notices:"
"""Where a notice's body ends and its footer begins (a digest keeps one footer)."""
ONCE_KINDS = frozenset({"confirm", "test"})
"""Kinds never held for the digest."""
REMINDER_HOURS = (24, 2)
"""How long before a move's deadline a reminder is sent (the issue's defaults)."""
SWEEP_LEASE = "reminder-sweep"
SWEEP_LEASE_S = 60.0
"""How long one process's hold on the reminders' sweep lasts after its last sweep (then
another process's sender sweeps: the first one died)."""
EMAIL_MAX = 254
URL_MAX = 500


def next_digest(now: datetime, zone: tzinfo) -> datetime:
    """The next :data:`DIGEST_HOUR` o'clock in ``zone`` after ``now`` (as UTC)."""
    local = now.astimezone(zone)
    at = local.replace(hour=DIGEST_HOUR, minute=0, second=0, microsecond=0)
    if at <= local:
        at = (at + timedelta(days=1)).replace(hour=DIGEST_HOUR)
    return at.astimezone(UTC)


class NoticeError(ValueError):
    """A setting that cannot be taken, with what to do (shown to the player)."""


def kinds_of(prefs: NoticePrefsRecord) -> frozenset[str]:
    return frozenset(k for k in prefs.kinds.split(",") if k)


def _hash(code: str) -> str:
    return hashlib.sha256(code.strip().encode()).hexdigest()


def check_email(address: str) -> str:
    """``address`` trimmed, or :class:`NoticeError` if it is no plain e-mail address."""
    address = address.strip()
    local, at, domain = address.rpartition("@")
    if (
        not at or not local or "." not in domain or len(address) > EMAIL_MAX
        or any(c.isspace() or ord(c) < 32 or c in "<>,;\"\\" for c in address)
    ):  # fmt: skip
        raise NoticeError("That is not an e-mail address (name@example.org).")
    return address


def check_push_url(url: str, schemes: tuple[str, ...]) -> str:
    """``url`` trimmed, or :class:`NoticeError` if it is not one door may POST to (its
    addresses are checked again when it is used: see :mod:`door.services.sender`)."""
    url = url.strip()
    try:
        parts = urlsplit(url)
    except ValueError:
        raise NoticeError("That is not a web address.") from None
    if parts.scheme not in schemes:
        raise NoticeError(f"The address must start with {' or '.join(s + '://' for s in schemes)}")
    if not parts.hostname or len(url) > URL_MAX or any(c.isspace() for c in url):
        raise NoticeError("That is not a web address.")
    return url


class Outbox:
    """Notice preferences and the outbox writes (see the module's docstring)."""

    def __init__(
        self,
        db: Database,
        clock: Clock,
        *,
        unsubscribe_base_url: str = "",
        push_schemes: tuple[str, ...] = ("https",),
        push_enabled: bool = False,
        mail_enabled: bool = False,
    ) -> None:
        self.db = db
        self.clock = clock
        self.unsubscribe_base_url = unsubscribe_base_url.rstrip("/")
        self.push_schemes = push_schemes
        self.push_enabled = push_enabled
        self.mail_enabled = mail_enabled
        self.default_zone = "UTC"
        """The zone of a player without one (build_services sets the sysop's)."""
        self.owner = process_owner()
        """Who holds the reminders' sweep (see :meth:`sweep_reminders`)."""
        self.sweep_lease_s = SWEEP_LEASE_S

    # --- in the event's transaction ------------------------------------------------------

    def enqueue(
        self,
        repo: Repository,
        user_id: int,
        game_id: int,
        kind: str,
        subject: str,
        body: str,
        ref: str = "",
    ) -> int:
        """Write a ``kind`` notice for ``user_id`` on each channel they have, if they
        asked for that kind (and, for a turn or a reminder, are not on vacation); how
        many rows were written (a channel with one pending already writes none)."""
        prefs = repo.notice_prefs([user_id]).get(user_id)
        if prefs is None or kind not in kinds_of(prefs):
            return 0
        now = self.clock.now()
        if kind in PAUSED_ON_VACATION and repo.users_on_vacation([user_id], now):
            return 0
        text = f"{body.rstrip()}\n\n{self.footer(prefs)}"
        due = now
        if prefs.digest:
            user = repo.user(user_id)
            due = next_digest(now, tc.zone(user.time_zone if user else None, self.default_zone))
        written = 0
        for channel, address in self.channels(prefs):
            notice = NewOutbox(
                user_id, game_id, kind, channel, address, subject[:200], text, due, ref,
                prefs.digest,
            )  # fmt: skip
            if repo.enqueue_notice(notice, now) is not None:
                written += 1
        return written

    def channels(self, prefs: NoticePrefsRecord) -> list[tuple[str, str]]:
        """(channel, address) of each way ``prefs`` can be reached."""
        out: list[tuple[str, str]] = []
        if prefs.email and prefs.email_confirmed:
            out.append(("email", prefs.email))
        if prefs.push_url:
            out.append(("push", prefs.push_url))
        return out

    def footer(self, prefs: NoticePrefsRecord) -> str:
        """How to stop these notices (every notice ends with it)."""
        lines = ["To stop these notices: in door, Y)our settings -> Notices."]
        if self.unsubscribe_base_url:
            link = f"{self.unsubscribe_base_url}/unsubscribe/{prefs.unsubscribe_token}"
            lines.append(f"Or stop them all in one step: {link}")
        return "\n".join(lines)

    async def sweep_reminders(self, hours: tuple[int, ...] = REMINDER_HOURS) -> int:
        """Write the reminders now due: for each active game whose deadline is within
        the largest of ``hours``, one reminder to the player to act for the smallest
        threshold already reached (a turn with 90 minutes left gets the 2 h one, not
        both), once per deadline (``ref`` names the threshold and the deadline).

        One process sweeps at a time: the sweep's transaction first takes a lease (held
        on by its owner from sweep to sweep), so two processes never both read "not yet
        written" and then both write a reminder, one after the other was already sent
        (the pending-row rule cannot stop that). On PostgreSQL the second process's take
        waits for the first one's commit, then finds the lease held and does nothing."""
        if not hours:
            return 0
        now = self.clock.now()
        steps = sorted(hours)

        def write(repo: Repository) -> int:
            if not repo.take_lease(SWEEP_LEASE, 0, self.owner, self.sweep_lease_s).taken:
                return 0
            due = repo.reminders_due(now, now + timedelta(hours=steps[-1]))
            if not due:
                return 0
            written = repo.reminder_refs("reminder", [d.game_id for d in due])
            n = 0
            for d in due:
                left = d.deadline - now
                step = next(h for h in steps if left <= timedelta(hours=h))
                ref = f"{step}h {d.deadline.isoformat()}"
                if (d.game_id, d.user_id, ref) in written:
                    continue
                text = f"Game #{d.game_id}: your move is due within {step} hours"
                body = f"{text}.\n\nCall in to door and open the game from G)ames to move."
                subject = f"door: {text}"
                n += self.enqueue(repo, d.user_id, d.game_id, "reminder", subject, body, ref)
            return n

        return await self.db.transact(write)

    # --- preferences -----------------------------------------------------------------------

    def _blank(self, user_id: int) -> NoticePrefsRecord:
        return NoticePrefsRecord(
            user_id, None, False, None, None, None, ",".join(DEFAULT_KINDS), False,
            secrets.token_urlsafe(24), self.clock.now(),
        )  # fmt: skip

    def _of(self, repo: Repository, user_id: int) -> NoticePrefsRecord:
        return repo.notice_prefs([user_id]).get(user_id) or self._blank(user_id)

    async def prefs(self, user_id: int) -> NoticePrefsRecord:
        """``user_id``'s preferences (defaults, not yet stored, if they have none)."""
        return await self.db.run_read(lambda repo: self._of(repo, user_id))

    async def _change(self, user_id: int, **values: object) -> NoticePrefsRecord:
        def write(repo: Repository) -> NoticePrefsRecord:
            prefs = replace(self._of(repo, user_id), updated_at=self.clock.now(), **values)  # type: ignore[arg-type]
            repo.save_notice_prefs(prefs)
            return prefs

        return await self.db.transact(write)

    async def set_email(self, user_id: int, address: str) -> None:
        """Set ``user_id``'s address, unconfirmed, and send it a confirmation code (in
        the same transaction). An empty address removes it."""
        if not address.strip():
            await self._change(user_id, email=None, email_confirmed=False, code_hash=None)
            return
        address = check_email(address)
        code = f"{secrets.randbelow(1_000_000):06d}"
        now = self.clock.now()

        def write(repo: Repository) -> None:
            prefs = replace(
                self._of(repo, user_id), email=address, email_confirmed=False,
                code_hash=_hash(code), code_expires_at=now + CODE_TTL, updated_at=now,
            )  # fmt: skip
            repo.save_notice_prefs(prefs)
            body = (
                f"Your door confirmation code is {code}\n\n"
                "Enter it in door under Y)our settings -> Notices to receive notices here.\n"
                "If you did not ask for this, ignore this message: nothing more is sent."
            )
            # each code its own row (a fresh "game" ref): a newer code is never folded
            # into an older one still pending
            ref = -secrets.randbelow(2**31 - 1) - 1
            repo.enqueue_notice(
                NewOutbox(user_id, ref, "confirm", "email", address, "door: your code", body, now),
                now,
            )

        await self.db.transact(write)

    async def confirm_email(self, user_id: int, code: str) -> bool:
        """Confirm the address with the code mailed to it; False for a wrong or expired
        code (nothing changes)."""
        now = self.clock.now()

        def write(repo: Repository) -> bool:
            prefs = repo.notice_prefs([user_id]).get(user_id)
            if (
                prefs is None or prefs.code_hash is None or prefs.code_expires_at is None
                or prefs.code_expires_at < now
                or not secrets.compare_digest(prefs.code_hash, _hash(code))
            ):  # fmt: skip
                return False
            repo.save_notice_prefs(
                replace(prefs, email_confirmed=True, code_hash=None, code_expires_at=None,
                        updated_at=now)
            )  # fmt: skip
            return True

        return await self.db.transact(write)

    async def set_confirmed_email(self, user_id: int, address: str) -> None:
        """Set ``user_id``'s address as confirmed (the sysop's ``door user email``)."""
        address = check_email(address)
        await self._change(
            user_id, email=address, email_confirmed=True, code_hash=None, code_expires_at=None
        )

    async def set_push(self, user_id: int, url: str) -> None:
        """Set (or, empty, remove) ``user_id``'s push URL."""
        value = check_push_url(url, self.push_schemes) if url.strip() else None
        await self._change(user_id, push_url=value)

    async def set_kinds(self, user_id: int, kinds: frozenset[str]) -> None:
        await self._change(user_id, kinds=",".join(k for k in KINDS if k in kinds))

    async def set_digest(self, user_id: int, digest: bool) -> None:
        await self._change(user_id, digest=digest)

    async def unsubscribe(self, token: str) -> bool:
        """The one-step unsubscribe: no more notices of any kind for the token's player
        (their pending ones are given up); False for an unknown token."""
        now = self.clock.now()

        def write(repo: Repository) -> bool:
            prefs = repo.notice_prefs_by_token(token) if token else None
            if prefs is None:
                return False
            repo.save_notice_prefs(replace(prefs, kinds="", updated_at=now))
            repo.drop_pending_notices(prefs.user_id, "unsubscribed")
            return True

        return await self.db.transact(write)

    async def enqueue_test(self, user_id: int) -> list[int]:
        """A test notice on each channel ``user_id`` has (``door notify test``); the ids
        of the rows written."""
        now = self.clock.now()

        def write(repo: Repository) -> list[int]:
            prefs = repo.notice_prefs([user_id]).get(user_id)
            if prefs is None:
                return []
            body = f"This is a test notice from door.\n\n{self.footer(prefs)}"
            ids: list[int] = []
            for channel, address in self.channels(prefs):
                # a unique ref each time: a test is never folded into an older one
                game = -secrets.randbelow(2**31 - 1) - 1
                notice = NewOutbox(user_id, game, "test", channel, address, "door: test", body, now)
                found = repo.enqueue_notice(notice, now)
                if found is not None:
                    ids.append(found)
            return ids

        return await self.db.transact(write)
