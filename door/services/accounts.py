"""Accounts: registration, passwords, SSH keys, BBS identities, flags and settings.

Passwords are hashed with scrypt (n=2**14, r=8, p=1, 16-byte salt) into a self-describing
string ``scrypt$n$r$p$salt$hash`` (base64), so the parameters can be raised later
without breaking old hashes. Hashing runs in a worker thread: it is deliberately slow.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import hashlib
import hmac
import secrets
import struct
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, Literal

from door.games.base import Refusal
from door.services.clock import Clock
from door.store.db import Database
from door.store.records import JSONObject, UserRecord, is_stored_id
from door.store.repository import ConflictError, Repository

NAME_MIN = 2
NAME_MAX = 20
PASSWORD_MIN = 4
PASSWORD_MAX = 200
SCRYPT_N = 2**14
SCRYPT_R = 8
SCRYPT_P = 1
CHARSETS = ("auto", "cp437", "utf-8")


class AccountError(Refusal):
    """An account action was refused; the message is fit to show the person."""


@dataclass(frozen=True)
class UserSettings:
    """Per-user preferences the screens honour."""

    sound: bool = True
    charset: Literal["auto", "cp437", "utf-8"] = "auto"
    color: bool = True


@dataclass(frozen=True)
class User:
    id: int
    name: str
    is_sysop: bool
    is_banned: bool
    is_bot: bool
    settings: UserSettings
    created_at: datetime
    last_login_at: datetime | None


@dataclass(frozen=True)
class KeyInfo:
    """One SSH public key of a user."""

    fingerprint: str
    key_type: str
    comment: str
    created_at: datetime


# --- pure helpers -------------------------------------------------------------------------


def clean_name(name: str) -> str:
    """The name as stored (NFC, outer spaces trimmed); ``AccountError`` says what is wrong."""
    if not isinstance(name, str):
        raise AccountError("a name must be text")
    name = unicodedata.normalize("NFC", name).strip()
    if len(name) < NAME_MIN or len(name) > NAME_MAX:
        raise AccountError(f"a name must be {NAME_MIN} to {NAME_MAX} characters long")
    if not name.isprintable():
        raise AccountError("a name may not contain control characters, tabs or line breaks")
    return name


def name_key(name: str) -> str:
    """The form names are compared in: case is ignored."""
    return unicodedata.normalize("NFC", name).strip().casefold()


def check_password_text(password: str) -> None:
    if not isinstance(password, str) or len(password) < PASSWORD_MIN:
        raise AccountError(f"a password must be at least {PASSWORD_MIN} characters long")
    if len(password) > PASSWORD_MAX:
        raise AccountError(f"a password may be at most {PASSWORD_MAX} characters long")


def hash_password(password: str, *, salt: bytes | None = None) -> str:
    """The self-describing scrypt hash of ``password``."""
    salt = salt if salt is not None else secrets.token_bytes(16)
    digest = hashlib.scrypt(
        password.encode("utf-8"), salt=salt, n=SCRYPT_N, r=SCRYPT_R, p=SCRYPT_P, dklen=32
    )
    b64 = base64.b64encode
    return f"scrypt${SCRYPT_N}${SCRYPT_R}${SCRYPT_P}${b64(salt).decode()}${b64(digest).decode()}"


def verify_password(password: str, stored: str | None) -> bool:
    """True when ``password`` matches the stored hash (constant-time compare)."""
    if not stored:
        return False
    try:
        algo, n, r, p, salt_b64, digest_b64 = stored.split("$")
        if algo != "scrypt":
            return False
        salt = base64.b64decode(salt_b64)
        expected = base64.b64decode(digest_b64)
        digest = hashlib.scrypt(
            password.encode("utf-8"),
            salt=salt,
            n=int(n),
            r=int(r),
            p=int(p),
            dklen=len(expected),
            maxmem=256 * 1024 * 1024,
        )
    except (ValueError, binascii.Error):
        return False
    return hmac.compare_digest(digest, expected)


@dataclass(frozen=True)
class PublicKey:
    key_type: str
    blob: bytes
    comment: str

    @property
    def fingerprint(self) -> str:
        """OpenSSH's ``SHA256:…`` fingerprint."""
        digest = hashlib.sha256(self.blob).digest()
        return "SHA256:" + base64.b64encode(digest).decode().rstrip("=")

    @property
    def data(self) -> str:
        return base64.b64encode(self.blob).decode()


def parse_public_key(line: str) -> PublicKey:
    """Read one OpenSSH public key line (``ssh-ed25519 AAAA… comment``)."""
    parts = line.strip().split(None, 2)
    if len(parts) < 2:
        raise AccountError("that is not an OpenSSH public key line (type, key, comment)")
    key_type, data = parts[0], parts[1]
    comment = parts[2].strip() if len(parts) > 2 else ""
    try:
        blob = base64.b64decode(data, validate=True)
        (length,) = struct.unpack(">I", blob[:4])
        inner_type = blob[4 : 4 + length].decode("ascii")
    except (binascii.Error, struct.error, UnicodeDecodeError):
        raise AccountError("the key part of that line is not valid base64 key data") from None
    if inner_type != key_type:
        raise AccountError(f"the key says it is {inner_type!r} but the line says {key_type!r}")
    comment = "".join(ch for ch in comment if ch.isprintable())[:200]
    return PublicKey(key_type, blob, comment)


def _settings_from(raw: JSONObject) -> UserSettings:
    base = UserSettings()
    charset = raw.get("charset", base.charset)
    return UserSettings(
        sound=bool(raw.get("sound", base.sound)),
        charset=charset if charset in CHARSETS else "auto",  # type: ignore[arg-type]
        color=bool(raw.get("color", base.color)),
    )


def _settings_to(s: UserSettings) -> JSONObject:
    return {"sound": s.sound, "charset": s.charset, "color": s.color}


def user_from_record(row: UserRecord) -> User:
    return User(
        id=row.id,
        name=row.name,
        is_sysop=row.is_sysop,
        is_banned=row.is_banned,
        is_bot=row.is_bot,
        settings=_settings_from(row.settings),
        created_at=row.created_at,
        last_login_at=row.last_login_at,
    )


def _existing(repo: Repository, user_id: int) -> UserRecord:
    found = repo.user(user_id) if is_stored_id(user_id) else None
    if found is None:
        raise AccountError("no such user")
    return found


def _acting(repo: Repository, user_id: int) -> UserRecord:
    """The user changing their own account; refused if they are banned."""
    found = _existing(repo, user_id)
    if found.is_banned:
        raise AccountError("your account has been suspended; ask the sysop")
    return found


# A hash to check against for unknown names, so "no such user" costs as long as a wrong
# password (built once per Accounts, not at import).
def _dummy_hash() -> str:
    return hash_password(secrets.token_hex(8))


class Accounts:
    """The account use-cases. All methods are coroutines; errors are :class:`AccountError`."""

    def __init__(self, db: Database, clock: Clock) -> None:
        self.db = db
        self.clock = clock
        self._dummy: str | None = None
        self.on_banned: Callable[[int], object] | None = None
        """Called with a user's id once their ban is committed (the process's
        :class:`~door.services.bans.BanWatch` ends their sessions; set by build_services)."""

    # --- registration and passwords ----------------------------------------------------

    async def register(self, name: str, password: str) -> User:
        """Create a player account; ``AccountError`` if the name is bad or taken."""
        name = clean_name(name)
        check_password_text(password)
        hashed = await asyncio.to_thread(hash_password, password)
        now = self.clock.now()

        def action(repo: Repository) -> User:
            if repo.user_by_key(name_key(name)) is not None:
                raise AccountError(f"the name {name!r} is taken; choose another")
            uid = repo.insert_user(name, name_key(name), hashed, False, now, {})
            return user_from_record(_existing(repo, uid))

        try:
            return await self.db.transact(action)
        except ConflictError:
            raise AccountError(f"the name {name!r} is taken; choose another") from None

    async def authenticate(self, name: str, password: str) -> User | None:
        """The user if name and password match and the account is not banned, else None."""
        try:
            key = name_key(name)
        except TypeError:
            return None
        row = await self.db.run_read(lambda repo: repo.user_by_key(key))
        if row is None or row.password_hash is None:
            if self._dummy is None:
                self._dummy = await asyncio.to_thread(_dummy_hash)
            await asyncio.to_thread(verify_password, password, self._dummy)
            return None
        ok = await asyncio.to_thread(verify_password, password, row.password_hash)
        if not ok or row.is_banned:
            return None
        return user_from_record(row)

    async def get(self, user_id: int) -> User:
        """The user with this id; ``AccountError`` if there is none."""
        return user_from_record(await self.db.run_read(lambda repo: _existing(repo, user_id)))

    async def by_name(self, name: str) -> User | None:
        """The user with this name (case ignored), or None."""
        key = name_key(name)
        row = await self.db.run_read(lambda repo: repo.user_by_key(key))
        return None if row is None else user_from_record(row)

    async def change_password(self, user_id: int, old: str, new: str) -> None:
        """Change a password, given the old one."""
        check_password_text(new)
        row = await self.db.run_read(lambda repo: _existing(repo, user_id))
        if not await asyncio.to_thread(verify_password, old, row.password_hash):
            raise AccountError("the old password is not right; nothing was changed")
        hashed = await asyncio.to_thread(hash_password, new)

        def action(repo: Repository) -> None:
            repo.save_user(replace(_acting(repo, user_id), password_hash=hashed))

        await self.db.transact(action)

    async def set_password(self, name: str, new: str) -> None:
        """Set a password without the old one (the sysop's ``door user passwd``)."""
        check_password_text(new)
        hashed = await asyncio.to_thread(hash_password, new)
        await self._update_by_name(name, lambda u: replace(u, password_hash=hashed))

    async def set_sysop(self, name: str, flag: bool) -> User:
        """Grant or take away sysop rights."""
        return await self._update_by_name(name, lambda u: replace(u, is_sysop=bool(flag)))

    async def set_banned(self, name: str, flag: bool) -> User:
        """Ban (or un-ban) an account: a banned user cannot log in, and a ban ends their
        live sessions at once, in every process (announced in the ban's own
        transaction; see :mod:`door.services.bans`)."""
        from door.services.bans import BAN_CHANNEL

        def announce(repo: Repository, row: UserRecord) -> None:
            if row.is_banned:
                repo.announce(BAN_CHANNEL, str(row.id))

        user = await self._update_by_name(
            name, lambda u: replace(u, is_banned=bool(flag)), then=announce
        )
        if user.is_banned and self.on_banned is not None:
            self.on_banned(user.id)
        return user

    async def _update_by_name(
        self,
        name: str,
        change: Callable[[UserRecord], UserRecord],
        then: Callable[[Repository, UserRecord], None] | None = None,
    ) -> User:
        def action(repo: Repository) -> User:
            row = repo.user_by_key(name_key(name))
            if row is None:
                raise AccountError(f"there is no user called {name!r}")
            new = change(row)
            repo.save_user(new)
            if then is not None:
                then(repo, new)
            return user_from_record(new)

        return await self.db.transact(action)

    # --- SSH keys ------------------------------------------------------------------------

    async def add_key(self, user_id: int, openssh_public_key_line: str) -> str:
        """Attach an SSH public key to the user; returns its ``SHA256:`` fingerprint."""
        key = parse_public_key(openssh_public_key_line)
        now = self.clock.now()

        def action(repo: Repository) -> str:
            _acting(repo, user_id)
            owner = repo.key_owner(key.fingerprint)
            if owner is not None:
                if owner == user_id:
                    raise AccountError("you already have that key")
                raise AccountError("that key belongs to another account")
            repo.insert_key(user_id, key.fingerprint, key.key_type, key.data, key.comment, now)
            return key.fingerprint

        try:
            return await self.db.transact(action)
        except ConflictError:
            raise AccountError("that key is already registered") from None

    async def list_keys(self, user_id: int) -> list[KeyInfo]:
        """The user's SSH keys, oldest first."""
        if not is_stored_id(user_id):
            return []
        rows = await self.db.run_read(lambda repo: repo.keys_of(user_id))
        return [KeyInfo(r.fingerprint, r.key_type, r.comment, r.created_at) for r in rows]

    async def remove_key(self, user_id: int, fingerprint: str) -> None:
        """Remove one of the user's keys; ``AccountError`` if the user has no such key."""

        def action(repo: Repository) -> None:
            _acting(repo, user_id)
            if not repo.delete_key(user_id, fingerprint.strip()):
                raise AccountError("you have no key with that fingerprint")

        await self.db.transact(action)

    async def by_key(self, openssh_public_key_line_or_fingerprint: str) -> User | None:
        """The (not banned) user owning this key, looked up by key line or fingerprint."""
        text = openssh_public_key_line_or_fingerprint.strip()
        if text.startswith("SHA256:"):
            fingerprint = text
        else:
            try:
                fingerprint = parse_public_key(text).fingerprint
            except AccountError:
                return None
        def lookup(repo: Repository) -> UserRecord | None:
            owner = repo.key_owner(fingerprint)
            return None if owner is None else repo.user(owner)

        row = await self.db.run_read(lookup)
        if row is None or row.is_banned:
            return None
        return user_from_record(row)

    # --- BBS identities, bots ----------------------------------------------------------

    async def bbs_user(self, tag: str, alias: str) -> User:
        """The user linked to ``alias`` on the BBS ``tag``, created on first sight.

        The new account's name is the alias made safe and unique ("Alias", "Alias2", …);
        it has no password (it logs in only through its BBS).
        """
        tag = "".join(ch for ch in tag if ch.isprintable()).strip()[:60] or "BBS"
        alias = "".join(ch for ch in alias if ch.isprintable()).strip()[:100]
        if not alias:
            raise AccountError("the BBS gave no user name")
        alias_key = name_key(alias)
        now = self.clock.now()

        def action(repo: Repository) -> User:
            uid = repo.bbs_identity_user(tag, alias_key)
            if uid is not None:
                return user_from_record(_existing(repo, uid))
            base = alias[:NAME_MAX].strip()
            if len(base) < NAME_MIN:
                base = (base + "__")[:NAME_MIN]
            name = base
            n = 1
            while repo.user_by_key(name_key(name)) is not None:
                n += 1
                suffix = str(n)
                name = base[: NAME_MAX - len(suffix)].rstrip() + suffix
            uid = repo.insert_user(name, name_key(name), None, False, now, {})
            repo.insert_bbs_identity(tag, alias, alias_key, uid, now)
            return user_from_record(_existing(repo, uid))

        for _ in range(3):
            try:
                return await self.db.transact(action)
            except ConflictError:
                continue  # someone created it at the same moment: look again
        raise AccountError("could not create the BBS user; please try again")

    async def ensure_bot(self, name: str) -> User:
        """The bot account called ``name``, created if missing (``is_bot=True``)."""
        name = clean_name(name)
        now = self.clock.now()

        def action(repo: Repository) -> User:
            row = repo.user_by_key(name_key(name))
            if row is not None:
                if not row.is_bot:
                    raise AccountError(f"{name!r} is a person's name, not a bot's")
                return user_from_record(row)
            uid = repo.insert_user(name, name_key(name), None, True, now, {})
            return user_from_record(_existing(repo, uid))

        for _ in range(3):
            try:
                return await self.db.transact(action)
            except ConflictError:
                continue
        raise AccountError("could not create the bot account; please try again")

    # --- settings and logins -------------------------------------------------------------

    async def update_settings(self, user_id: int, **changes: Any) -> User:
        """Change some of ``sound``, ``charset``, ``color``; returns the updated user."""
        known = {"sound", "charset", "color"}
        unknown = set(changes) - known
        if unknown:
            raise AccountError(f"unknown setting(s): {', '.join(sorted(unknown))}")
        for key in ("sound", "color"):
            if key in changes and not isinstance(changes[key], bool):
                raise AccountError(f"{key} must be on or off")
        if "charset" in changes and changes["charset"] not in CHARSETS:
            raise AccountError("charset must be auto, cp437 or utf-8")

        def action(repo: Repository) -> User:
            row = _acting(repo, user_id)
            settings = replace(_settings_from(row.settings), **changes)
            new = replace(row, settings=_settings_to(settings))
            repo.save_user(new)
            return user_from_record(new)

        return await self.db.transact(action)

    async def record_login(self, user_id: int) -> datetime | None:
        """Note a login now; returns the previous login time (None on the first)."""
        now = self.clock.now()

        def action(repo: Repository) -> datetime | None:
            row = _existing(repo, user_id)
            repo.save_user(replace(row, last_login_at=now))
            return row.last_login_at

        return await self.db.transact(action)
