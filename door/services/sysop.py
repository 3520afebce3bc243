"""The sysop's console (issue 17): users (find, ban and unban with a reason, mute and
unmute, reset a password, make sysop), the reports players sent, a broadcast line to
everyone online, the games (find, abandon a stuck one with a reason), the server's
health, and the audit log of everything done here.

Each action checks that its caller is a sysop *now* (read from the database, not from
the session's copy), does the change, then writes one ``audit_log`` row: who, what, to
whom, the detail, when. A ban goes through :meth:`Accounts.set_banned`, which ends the
banned player's sessions at once on every process (door/services/bans.py).
"""

from __future__ import annotations

import secrets
from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timedelta

from door.services.accounts import AccountError, Accounts, User, name_key, user_from_record
from door.services.clock import Clock
from door.services.games import GameService
from door.services.games.model import (
    GameClosedError,
    GameInfo,
    GameSnapshot,
    LobbyError,
    StaleVersionError,
)
from door.services.notify import Hub, Notice
from door.services.presence import Presence
from door.services.safety import clean_message
from door.store.db import Database
from door.store.records import AuditRecord, ReportRecord
from door.store.repository import Repository

REASON_MAX = 200
BROADCAST_MAX = 120
REPORT_MAX = 1000
GAMES_MAX = 50
"""At most this many of a player's games are listed by :meth:`Sysop.find_games`."""
CHANNELS = ("mail", "page", "chat", "kibitz", "note", "broadcast")


class SysopError(Exception):
    """A console action refused, with the reason to show."""


class GameMovedError(SysopError):
    """The game changed after the sysop looked at it (a move came first): nothing was
    done; ``snapshot`` is the game as it is now."""

    def __init__(self, snapshot: GameSnapshot) -> None:
        super().__init__(
            f"Game #{snapshot.info.id} changed meanwhile: look at it again before abandoning it."
        )
        self.snapshot = snapshot


@dataclass(frozen=True)
class Health:
    """The server at a glance."""

    sessions: dict[str, int]
    """Signed-in sessions by transport, on every process."""
    moves_today: int
    database_bytes: int | None
    last_backup: str
    """What is known of the last backup ("not known": door does not record them)."""


class Sysop:
    """The console's actions; every one is written to the audit log."""

    def __init__(
        self, db: Database, clock: Clock, accounts: Accounts, presence: Presence, hub: Hub,
        games: GameService,
    ) -> None:  # fmt: skip
        self.db = db
        self.clock = clock
        self.accounts = accounts
        self.presence = presence
        self.hub = hub
        self.games = games

    async def _check(self, sysop_id: int) -> User:
        user = await self.accounts.get(sysop_id)
        if not user.is_sysop or user.is_banned:
            raise SysopError("Only a sysop may do that.")
        return user

    async def _audit(self, sysop: User, action: str, target: str, detail: str) -> None:
        now = self.clock.now()
        await self.db.transact(
            lambda repo: repo.insert_audit(sysop.id, sysop.name, action, target[:80], detail, now)
        )

    async def _target(self, name: str) -> User:
        user = await self.accounts.by_name(name.strip())
        if user is None:
            raise SysopError(f"There is no user called {clean_message(name, 20).strip()!r}.")
        return user

    # --- users ---------------------------------------------------------------------
    async def find(self, sysop_id: int, prefix: str, limit: int = 15) -> list[User]:
        await self._check(sysop_id)
        key = name_key(prefix.strip()) if prefix.strip() else ""
        rows = await self.db.run_read(lambda repo: repo.users_by_prefix(key, limit))
        return [user_from_record(r) for r in rows]

    async def ban(self, sysop_id: int, name: str, reason: str) -> User:
        """Ban ``name`` (their sessions end at once, everywhere)."""
        sysop = await self._check(sysop_id)
        reason = clean_message(reason, REASON_MAX).strip()
        if not reason:
            raise SysopError("A ban needs a reason.")
        target = await self._target(name)
        if target.id == sysop.id:
            raise SysopError("You cannot ban yourself.")
        user = await self._set(self.accounts.set_banned, target.name, True)
        await self._audit(sysop, "ban", user.name, reason)
        return user

    async def unban(self, sysop_id: int, name: str, reason: str) -> User:
        sysop = await self._check(sysop_id)
        target = await self._target(name)
        user = await self._set(self.accounts.set_banned, target.name, False)
        await self._audit(sysop, "unban", user.name, clean_message(reason, REASON_MAX).strip())
        return user

    async def make_sysop(self, sysop_id: int, name: str, flag: bool = True) -> User:
        sysop = await self._check(sysop_id)
        target = await self._target(name)
        user = await self._set(self.accounts.set_sysop, target.name, flag)
        await self._audit(sysop, "sysop" if flag else "unsysop", user.name, "")
        return user

    @staticmethod
    async def _set(change: object, name: str, flag: bool) -> User:
        try:
            return await change(name, flag)  # type: ignore[operator,no-any-return]
        except AccountError as exc:
            raise SysopError(str(exc)) from None

    async def reset_password(self, sysop_id: int, name: str) -> str:
        """A new random password for ``name`` (shown once to the sysop, to pass on)."""
        sysop = await self._check(sysop_id)
        target = await self._target(name)
        password = secrets.token_urlsafe(9)
        await self.accounts.set_password(target.name, password)
        await self._audit(sysop, "reset-password", target.name, "")
        return password

    async def mute(self, sysop_id: int, name: str, hours: float, reason: str) -> datetime:
        """``name`` may not send mail, pages or chat for ``hours``."""
        sysop = await self._check(sysop_id)
        if not 0 < hours <= 24 * 366:
            raise SysopError("Mute for 1 hour to a year (hours, e.g. 24).")
        target = await self._target(name)
        until = self.clock.now() + timedelta(hours=hours)
        reason = clean_message(reason, REASON_MAX).strip()
        await self.db.transact(lambda repo: repo.set_mute(target.id, until, reason))
        await self._audit(sysop, "mute", target.name, f"{hours:g}h: {reason}")
        return until

    async def unmute(self, sysop_id: int, name: str) -> None:
        sysop = await self._check(sysop_id)
        target = await self._target(name)
        await self.db.transact(lambda repo: repo.set_mute(target.id, None))
        await self._audit(sysop, "unmute", target.name, "")

    async def muted_until(self, user_id: int) -> datetime | None:
        """When ``user_id``'s mute ends (None: not muted)."""
        until = await self.db.run_read(lambda repo: repo.mute_until(user_id))
        return until if until is not None and until > self.clock.now() else None

    # --- games ---------------------------------------------------------------------
    async def find_games(self, sysop_id: int, text: str) -> list[GameInfo]:
        """Game ``text`` ("12" or "#12", whatever its status), or the open and running
        games of the player called ``text`` (newest first); [] when there is none."""
        await self._check(sysop_id)
        text = text.strip()
        number = text.removeprefix("#")
        if number.isdigit() and number.isascii():
            try:
                return [(await self.games.get(int(number))).info]
            except LobbyError:
                return []
        if not text:
            raise SysopError("Type a game number or a player's name.")
        player = await self._target(text)
        found, _ = await self.games.list_games("mine", player.id, limit=GAMES_MAX)
        return found

    async def abandon_game(
        self, sysop_id: int, game_id: int, reason: str, expected_version: int | None = None
    ) -> GameSnapshot:
        """Abandon an open or running game with ``reason`` (its players are told; nobody's
        rating moves). ``expected_version``: the version the sysop saw (GameMovedError if
        a move came first)."""
        sysop = await self._check(sysop_id)
        reason = clean_message(reason, REASON_MAX).strip()
        if not reason:
            raise SysopError("Abandoning a game needs a reason.")
        try:
            snapshot = await self.games.abandon(
                game_id, sysop.id, sysop.name, reason, expected_version
            )
        except StaleVersionError as exc:
            raise GameMovedError(exc.snapshot) from None
        except (LobbyError, GameClosedError) as exc:
            raise SysopError(f"Game #{game_id}: {exc}.") from None
        await self._audit(sysop, "abandon-game", f"game #{game_id}", reason)
        return snapshot

    # --- broadcast, reports, audit, health -----------------------------------------
    async def broadcast(self, sysop_id: int, text: str) -> int:
        """A line to everyone online on every process; how many sessions were online."""
        sysop = await self._check(sysop_id)
        text = clean_message(text, BROADCAST_MAX).strip()
        if not text:
            raise SysopError("Type the line to broadcast.")
        online = await self.presence.who_everywhere()
        users = tuple(dict.fromkeys(w.user_id for w in online))
        if users:
            seq = secrets.randbelow(2**31)
            line = f"Sysop {clean_message(sysop.name, 20).strip()}: {text}"
            self.hub.publish(Notice(-sysop.id, "broadcast", users, line, seq))
        await self._audit(sysop, "broadcast", f"{len(users)} online", text)
        return len(online)

    async def report(
        self, reporter_id: int, channel: str, text: str, *, about_id: int | None = None,
        item: int | None = None,
    ) -> int:  # fmt: skip
        """A player reports a message to the sysop; a copy of its text is kept."""
        if channel not in CHANNELS:
            raise SysopError(f"Unknown kind of message {channel!r}.")
        copy = clean_message(text, REPORT_MAX, multiline=True)
        now = self.clock.now()
        return await self.db.transact(
            lambda repo: repo.insert_report(reporter_id, about_id, channel, item, copy, now)
        )

    async def reports(self, sysop_id: int, limit: int = 50) -> list[ReportRecord]:
        await self._check(sysop_id)
        return await self.db.run_read(lambda repo: repo.open_reports(limit))

    async def resolve(self, sysop_id: int, report_id: int, note: str = "") -> bool:
        sysop = await self._check(sysop_id)
        now = self.clock.now()
        done = await self.db.transact(lambda repo: repo.resolve_report(report_id, now))
        if done:
            why = clean_message(note, 200).strip()
            await self._audit(sysop, "resolve-report", f"#{report_id}", why)
        return done

    async def audit(self, sysop_id: int, limit: int = 50) -> list[AuditRecord]:
        await self._check(sysop_id)
        return await self.db.run_read(lambda repo: repo.recent_audit(limit))

    async def health(self, sysop_id: int) -> Health:
        await self._check(sysop_id)
        online = await self.presence.who_everywhere()
        now = self.clock.now()
        midnight = now.replace(hour=0, minute=0, second=0, microsecond=0)

        def read(repo: Repository) -> tuple[int, int | None]:
            return repo.moves_since(midnight), repo.database_size()

        moves, size = await self.db.run_read(read)
        if size is None and self.db.path is not None:
            try:
                size = self.db.path.stat().st_size
            except OSError:
                size = None
        return Health(dict(Counter(w.transport for w in online)), moves, size, "not known")
