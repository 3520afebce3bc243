"""The outbox's sender (issue 18): delivers notices by e-mail (SMTP) and push (HTTP).

Each round claims the due notices nobody holds (a lease in the row, owner and expiry by
the database's clock; on PostgreSQL chosen ``FOR UPDATE SKIP LOCKED``, so several
processes never take the same one), sends each outside any transaction, and marks it
sent, to be retried (the wait doubling from ``[notices] retry_first_s``) or failed with
the reason once ``give_up_after_s`` has passed since it was written. A process killed
while sending leaves its lease to run out; the notice is then sent by whoever claims it
next (at least once: an SMTP server that accepted it just before the kill gets it
again; door never drops one). A round's e-mails share a few SMTP connections
(:class:`SmtpRound`), closed when the round ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import os
import socket
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from functools import partial
from typing import Any
from urllib.parse import urlsplit

import aiohttp
import aiosmtplib
from aiohttp.abc import AbstractResolver, ResolveResult

from door.config import MailConfig, NoticesConfig, PushConfig
from door.services.clock import Clock
from door.services.outbox import FOOTER_MARK
from door.store.db import Database
from door.store.records import OutboxRecord
from door.store.repository import Repository

log = logging.getLogger(__name__)

Address = ipaddress.IPv4Address | ipaddress.IPv6Address


class DeliveryError(Exception):
    """A notice not delivered; ``permanent``: trying again cannot help."""

    def __init__(self, why: str, *, permanent: bool = False) -> None:
        super().__init__(why)
        self.permanent = permanent


def is_private(address: Address) -> bool:
    """Loopback, private, link-local, unspecified, multicast or reserved: not the
    public internet."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return (
        address.is_loopback or address.is_private or address.is_link_local
        or address.is_unspecified or address.is_multicast or address.is_reserved
    )  # fmt: skip


async def public_addresses(host: str, port: int, allow_private: bool) -> list[str]:
    """The addresses ``host`` resolves to; :class:`DeliveryError` (permanent) if any is
    private and ``allow_private`` is off (one private answer is enough to refuse: a name
    may give a different one each time)."""
    loop = asyncio.get_running_loop()
    try:
        infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as exc:
        raise DeliveryError(f"cannot resolve {host}: {exc}") from None
    found = [str(info[4][0]) for info in infos]
    if not allow_private:
        for a in found:
            if is_private(ipaddress.ip_address(a.split("%")[0])):
                raise DeliveryError(
                    f"{host} resolves to {a}, a private or local address; refused "
                    "([push] allow_private is off)",
                    permanent=True,
                )
    return found


class _CheckedResolver(AbstractResolver):
    """aiohttp's resolver that refuses private addresses at connect time too, so a name
    that changes its answer after the check still cannot reach them."""

    def __init__(self, allow_private: bool) -> None:
        self.allow_private = allow_private

    async def resolve(
        self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
    ) -> list[ResolveResult]:
        try:
            addresses = await public_addresses(host, port, self.allow_private)
        except DeliveryError as exc:
            raise OSError(str(exc)) from None
        out: list[ResolveResult] = []
        for a in addresses:
            fam = socket.AF_INET6 if ":" in a else socket.AF_INET
            out.append(
                {"hostname": host, "host": a, "port": port, "family": fam, "proto": 0,
                 "flags": socket.AI_NUMERICHOST}
            )  # fmt: skip
        return out

    async def close(self) -> None:
        return None


@dataclass(frozen=True, slots=True)
class Outcome:
    """What became of one notice in a round."""

    notice: OutboxRecord
    status: str
    """sent, retry, failed, or lost (another process holds it now); "delivered" only
    inside a round, before it is marked."""
    why: str = ""


class SmtpRound:
    """One round's SMTP connections: up to ``size`` open at once, each carrying one
    message after another (MAIL, RCPT, DATA: not a new connection, greeting, EHLO and
    login for each), all closed with QUIT when the round ends, so none is left idle for
    the server to time out between rounds."""

    def __init__(self, mail: MailConfig, size: int) -> None:
        self.mail = mail
        self._slots = asyncio.Semaphore(max(1, size))
        self._idle: list[aiosmtplib.SMTP] = []

    def _client(self) -> aiosmtplib.SMTP:
        m = self.mail
        kwargs: dict[str, Any] = {}
        if m.user:
            kwargs.update(username=m.user, password=m.password)
        return aiosmtplib.SMTP(
            hostname=m.host, port=m.port, use_tls=m.security == "tls",
            start_tls=m.security == "starttls", timeout=m.timeout_s, **kwargs,
        )  # fmt: skip

    async def send(self, msg: EmailMessage) -> None:
        """Send ``msg`` over a connection of the round (a new one if none is free); the
        library's errors as ``aiosmtplib.send`` raises them. A connection that fails is
        closed, not reused; one the server closed since its last message is replaced
        once (the message was not taken: the server hung up before it)."""
        async with self._slots:
            idle = self._idle.pop() if self._idle else None
            if idle is not None and idle.is_connected:
                try:
                    await idle.send_message(msg)
                except aiosmtplib.SMTPServerDisconnected:
                    idle.close()  # hung up while idle: the message goes on a new one
                except BaseException:
                    idle.close()
                    raise
                else:
                    self._idle.append(idle)
                    return
            client = self._client()
            await client.connect()
            try:
                await client.send_message(msg)
            except BaseException:
                client.close()
                raise
            self._idle.append(client)

    async def close(self) -> None:
        """QUIT every connection the round opened."""
        idle, self._idle = self._idle, []

        async def quit(client: aiosmtplib.SMTP) -> None:
            try:
                await asyncio.wait_for(client.quit(), 5)
            except Exception:  # gone already, or slow to say goodbye: it is closed anyway
                client.close()

        await asyncio.gather(*(quit(c) for c in idle))


class Sender:
    """Claims and sends the outbox (see the module's docstring)."""

    def __init__(
        self,
        db: Database,
        clock: Clock,
        mail: MailConfig,
        push: PushConfig,
        notices: NoticesConfig,
        *,
        owner: str | None = None,
        before_round: Callable[[], Awaitable[object]] | None = None,
    ) -> None:
        self.db = db
        self.clock = clock
        self.mail = mail
        self.push = push
        self.notices = notices
        self.owner = owner or f"{socket.gethostname()}:{os.getpid()}:{id(self):x}"
        self.before_round = before_round
        """Run before each round of the loop (the reminders' sweep)."""
        self._task: asyncio.Task[None] | None = None
        self._http: aiohttp.ClientSession | None = None
        self._wake = asyncio.Event()
        self.batch = 50
        self.smtp_connections = 8
        """How many SMTP connections one round opens at most (its e-mails share them)."""

    def wake(self) -> None:
        """Look at the outbox now rather than at the next poll."""
        self._wake.set()

    def start(self) -> None:
        self._task = asyncio.create_task(self._loop(), name="door-notice-sender")

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        http, self._http = self._http, None
        if http is not None:
            await http.close()

    def http(self) -> aiohttp.ClientSession:
        """The push client, kept between notices (its connections are reused); its
        resolver refuses private addresses unless allowed."""
        if self._http is None or self._http.closed:
            p = self.push
            self._http = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(resolver=_CheckedResolver(p.allow_private)),
                timeout=aiohttp.ClientTimeout(total=p.timeout_s),
            )
        return self._http

    async def _loop(self) -> None:
        while True:
            try:
                if self.before_round is not None:
                    await self.before_round()
                while len(await self.run_once()) >= self.batch:
                    pass
            except asyncio.CancelledError:
                raise
            except Exception:  # keep sending: a database hiccup must not stop notices
                log.exception("notice sender round failed")
            self._wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self.notices.poll_interval_s)

    async def run_once(self) -> list[Outcome]:
        """One round: claim the due notices, send them (at once, each on its own), and
        record each outcome."""
        now = self.clock.now()
        claimed = await self.db.transact(
            lambda repo: repo.claim_notices(now, self.owner, self.notices.lease_s, self.batch)
        )
        if not claimed:
            return []
        # a player's digest notices due together go as one message per channel
        groups: dict[tuple[int, str, str] | int, list[OutboxRecord]] = {}
        for n in claimed:
            groups.setdefault((n.user_id, n.channel, n.address) if n.digest else n.id, []).append(n)
        smtp = SmtpRound(self.mail, self.smtp_connections)
        try:
            done = await asyncio.gather(*(self._group(g, smtp) for g in groups.values()))
            outcomes = [o for group in done for o in group]
            delivered = [o.notice.id for o in outcomes if o.status == "delivered"]
            if not delivered:
                return outcomes
            at = self.clock.now()
            # one transaction marks the whole round's deliveries (a kill before it: the
            # leases run out and they are sent again: at least once, never lost)
            kept = await self.db.transact(partial(_mark_sent, delivered, self.owner, at))
        finally:
            await smtp.close()
        return [
            replace(o, status="sent" if o.notice.id in kept else "lost")
            if o.status == "delivered" else o
            for o in outcomes
        ]  # fmt: skip

    async def _group(self, notices: list[OutboxRecord], smtp: SmtpRound) -> list[Outcome]:
        first = notices[0]
        title, body = (first.title, first.body) if len(notices) == 1 else digest_of(notices)
        try:
            await self.deliver(replace(first, title=title, body=body), smtp)
        except DeliveryError as exc:
            return [await self._failed(n, str(exc), exc.permanent) for n in notices]
        except Exception as exc:  # a library's own error: record it, retry
            why = f"{type(exc).__name__}: {exc}"
            return [await self._failed(n, why, False) for n in notices]
        return [Outcome(n, "delivered") for n in notices]

    async def _failed(self, notice: OutboxRecord, why: str, permanent: bool) -> Outcome:
        now = self.clock.now()
        age = (now - notice.created_at).total_seconds()
        n = self.notices
        wait = min(n.retry_first_s * 2 ** min(notice.attempts, 30), n.retry_max_s)
        # a test notice is never retried: `door notify test` reports what happened now
        if permanent or notice.kind == "test" or age + wait > n.give_up_after_s:
            reason = why if permanent else f"gave up after {notice.attempts + 1} tries: {why}"
            await self.db.transact(lambda repo: repo.notice_failed(notice.id, self.owner, reason))
            log.warning("notice %d to %s given up: %s", notice.id, notice.channel, reason)
            return Outcome(notice, "failed", reason)
        due = now + timedelta(seconds=wait)
        await self.db.transact(lambda repo: repo.notice_retry(notice.id, self.owner, due, why))
        return Outcome(notice, "retry", why)

    async def deliver(self, notice: OutboxRecord, smtp: SmtpRound | None = None) -> None:
        """Send one notice over its channel (an e-mail over one of ``smtp``'s connections,
        else a connection of its own); :class:`DeliveryError` if it was not accepted."""
        if notice.channel == "email":
            await self.send_email(notice.address, notice.title, notice.body, smtp)
        elif notice.channel == "push":
            await self.send_push(notice.address, notice.title, notice.body)
        else:
            raise DeliveryError(f"no such channel {notice.channel!r}", permanent=True)

    async def send_email(
        self, to: str, subject: str, body: str, smtp: SmtpRound | None = None
    ) -> None:
        m = self.mail
        if not m.host:
            raise DeliveryError("e-mail is not configured ([mail] host)")
        msg = EmailMessage()
        sender = m.from_ or f"door@{socket.gethostname()}"
        msg["From"] = sender
        msg["To"] = to
        msg["Subject"] = subject
        msg["Date"] = formatdate(localtime=False)
        msg["Message-ID"] = make_msgid(domain=sender.rpartition("@")[2] or None)
        msg["Auto-Submitted"] = "auto-generated"
        msg.set_content(body)
        own = smtp is None
        connections = SmtpRound(m, 1) if smtp is None else smtp
        try:
            await connections.send(msg)
        except aiosmtplib.SMTPRecipientsRefused as exc:
            raise DeliveryError(f"the mail server refused {to}: {exc}", permanent=True) from None
        except (aiosmtplib.SMTPException, OSError) as exc:
            raise DeliveryError(f"SMTP {m.host}:{m.port}: {exc}") from None
        finally:
            if own:
                await connections.close()

    async def send_push(self, url: str, title: str, body: str) -> None:
        p = self.push
        if not p.enabled:
            raise DeliveryError("push is not configured ([push] enabled)")
        parts = urlsplit(url)
        if parts.scheme not in p.allowed_schemes or not parts.hostname:
            raise DeliveryError(f"push URL scheme {parts.scheme!r} is not allowed", permanent=True)
        port = parts.port or (443 if parts.scheme == "https" else 80)
        await public_addresses(parts.hostname, port, p.allow_private)
        # the Title header is ASCII-only on the wire: anything else becomes "?"
        headers = {
            "Title": title.encode("ascii", "replace").decode()[:200],
            "Content-Type": "text/plain; charset=utf-8",
        }
        try:
            async with self.http().post(
                url, data=body.encode(), headers=headers, allow_redirects=False
            ) as response:
                status = response.status
        except (aiohttp.ClientError, TimeoutError, OSError) as exc:
            raise DeliveryError(f"push {parts.hostname}: {exc or type(exc).__name__}") from None
        if status >= 400:
            permanent = status in (400, 401, 403, 404, 410)
            raise DeliveryError(f"push {parts.hostname} answered {status}", permanent=permanent)
        if status >= 300:
            raise DeliveryError(
                f"push {parts.hostname} redirected ({status}); not followed", permanent=True
            )


def _mark_sent(ids: list[int], owner: str, at: datetime, repo: Repository) -> set[int]:
    """Mark ``owner``'s delivered notices sent; the ids whose lease was still theirs."""
    return repo.notices_sent(ids, owner, at)


def digest_of(notices: Sequence[OutboxRecord]) -> tuple[str, str]:
    """One message (title, body) for several notices: each one's text, one footer."""
    parts, footer = [], ""
    for n in notices:
        text, mark, rest = n.body.partition(FOOTER_MARK)
        parts.append(f"* {text.strip()}")
        footer = footer or (mark + rest)
    title = f"door: your daily digest ({len(notices)} notices)"
    return title, "\n\n".join(parts) + footer


def summary(counts: dict[str, int], failed: Sequence[OutboxRecord]) -> list[str]:
    """Lines for ``door notify status``: the counts, then the recent failures."""
    lines = [
        f"pending {counts.get('pending', 0)}  sent {counts.get('sent', 0)}  "
        f"failed {counts.get('failed', 0)}"
    ]
    for r in failed:
        lines.append(f"  #{r.id} {r.kind} {r.channel} user {r.user_id}: {r.last_error}")
    return lines
