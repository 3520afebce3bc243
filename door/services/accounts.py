"""Accounts: registration, passwords, SSH keys, BBS identities, flags and settings.

Names go through :mod:`door.services.names` (NFKC, no invisible characters, reserved
names, look-alikes by TR39 skeleton, held unique by the database); sign-ups through
:mod:`door.services.signups` (open, closed or approval; per-address limits).

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
from door.services.names import NameRules, normalise
from door.services.signups import SignupPolicy
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


class SignupRefused(AccountError):
    """Sign-ups are closed, or the address reached a sign-up limit (not itself logged as
    an attempt, so a flood of refused attempts writes nothing)."""


@dataclass(frozen=True)
class UserSettings:
    """Per-user preferences the screens honour."""

    sound: bool = True
    charset: Literal["auto", "cp437", "utf-8"] = "auto"
    color: bool = True
    step_delay: float = 0.6
    """Seconds between the pictures when a backgammon turn is played back (V)iew, or a
    move arriving while you look); 0 steps only by hand."""
    mouse: bool = True
    """Clicks choose and move, where the terminal reports them (off: keys only)."""


STEP_DELAYS = (0.3, 0.6, 1.0, 1.5, 0.0)
"""The playback speeds the settings screen offers, in its order (0 = by hand)."""
MAX_STEP_DELAY = 5.0


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
    # signed up while sign-ups need approval: cannot log in until `door user approve`
    is_pending: bool = False
    # the player's IANA time zone (None: the server's; door/services/vacations.py)
    time_zone: str | None = None


@dataclass(frozen=True)
class KeyInfo:
    """One SSH public key of a user."""

    fingerprint: str
    key_type: str
    comment: str
    created_at: datetime


# --- pure helpers -------------------------------------------------------------------------


def clean_name(name: str, rules: NameRules | None = None) -> str:
    """The name as stored (NFKC, outer spaces trimmed); ``AccountError`` says what is wrong:
    the length, control characters, or invisible characters (see
    :meth:`~door.services.names.NameRules.invisible_problem`)."""
    if not isinstance(name, str):
        raise AccountError("a name must be text")
    name = normalise(name)
    if len(name) < NAME_MIN or len(name) > NAME_MAX:
        raise AccountError(f"a name must be {NAME_MIN} to {NAME_MAX} characters long")
    if any(ch in "\t\r\n" or unicodedata.category(ch) == "Cc" for ch in name):
        raise AccountError("a name may not contain control characters, tabs or line breaks")
    problem = (rules or NameRules.load()).invisible_problem(name)
    if problem is not None:
        raise AccountError(problem)
    if not name.isprintable():
        raise AccountError("a name may not contain control characters, tabs or line breaks")
    return name


def _visible(text: str, rules: NameRules) -> str:
    """``text`` in NFKC with every control, format and default-ignorable character left
    out (what a BBS sends is made safe, not refused), runs of spaces made one."""
    text = normalise(text)
    kept = "".join(
        ch
        for ch in text
        if ch.isprintable() and not rules.is_default_ignorable(ch)
        and unicodedata.category(ch) not in ("Cf", "Co", "Cn")
    )
    return " ".join(kept.split())


def _name_from_alias(alias: str, rules: NameRules) -> str:
    """A door name made from a BBS alias (already :func:`_visible`): trimmed to length,
    combining marks dropped if they would be refused, padded to the minimum."""
    base = alias[:NAME_MAX].strip()
    if rules.invisible_problem(base) is not None:
        base = " ".join(
            "".join(ch for ch in base if unicodedata.category(ch) not in ("Mn", "Me")).split()
        )
    if len(base) < NAME_MIN:
        base = (base + "__")[:NAME_MIN]
    return base


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


KEY_TYPES = (
    "ssh-ed25519", "ssh-rsa", "ecdsa-sha2-nistp256", "ecdsa-sha2-nistp384",
    "ecdsa-sha2-nistp521", "sk-ssh-ed25519@openssh.com", "sk-ecdsa-sha2-nistp256@openssh.com",
    "ssh-ed448",
)  # fmt: skip
"""The public key types a player may add (what the SSH server accepts; DSA is obsolete)."""

MAX_KEYS = 10
"""The most SSH keys one account holds (``[accounts] max_ssh_keys``)."""

RSA_2048_BLOB = 4 + 7 + 4 + 1 + 4 + 256
"""The least an ``ssh-rsa`` key's data holds at 2048 bits (type, exponent, modulus)."""


def parse_public_key(line: str) -> PublicKey:
    """Read one OpenSSH public key line (``ssh-ed25519 AAAA… comment``); an
    ``AccountError`` says plainly what is wrong with anything else."""
    text = line.strip()
    if "PRIVATE KEY" in text:
        raise AccountError(
            "that is a PRIVATE key: never paste it anywhere. Paste the line from the .pub file"
        )
    if text.startswith("---- BEGIN SSH2 PUBLIC KEY"):
        raise AccountError(
            "that is the SSH2 (PuTTY) format: paste the one-line OpenSSH form "
            "(PuTTYgen: 'Public key for pasting into OpenSSH authorized_keys')"
        )
    parts = text.split(None, 2)
    if len(parts) >= 3 and parts[0] not in KEY_TYPES and parts[1] in KEY_TYPES:
        parts = parts[1].split(None) + parts[2].split(None, 1)  # authorized_keys options
    if len(parts) < 2:
        raise AccountError("that is not an OpenSSH public key line (type, key, comment)")
    key_type, data = parts[0], parts[1]
    if key_type not in KEY_TYPES:
        if key_type == "ssh-dss":
            raise AccountError("DSA keys are obsolete and not accepted; make an ed25519 key")
        raise AccountError(
            f"{key_type[:40]!r} is not a key type door knows (ssh-ed25519, ssh-rsa, ecdsa-…)"
        )
    comment = parts[2].strip() if len(parts) > 2 else ""
    try:
        blob = base64.b64decode(data, validate=True)
        (length,) = struct.unpack(">I", blob[:4])
        inner_type = blob[4 : 4 + length].decode("ascii")
    except (binascii.Error, struct.error, UnicodeDecodeError):
        raise AccountError("the key part of that line is not valid base64 key data") from None
    if inner_type != key_type:
        raise AccountError(f"the key says it is {inner_type!r} but the line says {key_type!r}")
    if key_type == "ssh-ed25519" and len(blob) != 51:
        raise AccountError("that ssh-ed25519 key is cut short or too long: paste the whole line")
    comment = "".join(ch for ch in comment if ch.isprintable())[:200]
    return PublicKey(key_type, blob, comment)


def _settings_from(raw: JSONObject) -> UserSettings:
    base = UserSettings()
    charset = raw.get("charset", base.charset)
    return UserSettings(
        sound=bool(raw.get("sound", base.sound)),
        charset=charset if charset in CHARSETS else "auto",  # type: ignore[arg-type]
        color=bool(raw.get("color", base.color)),
        step_delay=_step_delay(raw.get("step_delay", base.step_delay), base.step_delay),
        mouse=bool(raw.get("mouse", base.mouse)),
    )


def _step_delay(value: object, default: float) -> float:
    """A stored playback delay, or ``default`` when it is not a sensible number."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return default
    return float(value) if 0 <= value <= MAX_STEP_DELAY else default


def _settings_to(s: UserSettings) -> JSONObject:
    return {
        "sound": s.sound, "charset": s.charset, "color": s.color, "step_delay": s.step_delay,
        "mouse": s.mouse,
    }  # fmt: skip


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
        is_pending=row.is_pending,
        time_zone=row.time_zone,
    )


def _existing(repo: Repository, user_id: int, *, lock: bool = False) -> UserRecord:
    """The user; ``lock``: to be rewritten in this transaction (``Repository.lock_user``)."""
    found = None
    if is_stored_id(user_id):
        found = repo.lock_user(user_id) if lock else repo.user(user_id)
    if found is None:
        raise AccountError("no such user")
    return found


def _acting(repo: Repository, user_id: int, *, lock: bool = False) -> UserRecord:
    """The user changing their own account; refused if they are banned."""
    found = _existing(repo, user_id, lock=lock)
    if found.is_banned:
        raise AccountError("your account has been suspended; ask the sysop")
    return found


# A hash to check against for unknown names, so "no such user" costs as long as a wrong
# password (built once per Accounts, not at import).
def _dummy_hash() -> str:
    return hash_password(secrets.token_hex(8))


def _taken(name: str) -> AccountError:
    return AccountError(f"the name {name!r} is taken; choose another")


def _name_free(repo: Repository, name: str, look: tuple[str, str]) -> None:
    """``AccountError`` unless both the name and its look are free."""
    if repo.user_by_key(name_key(name)) is not None:
        raise _taken(name)
    other = repo.user_by_looks(look)
    if other is not None:
        raise AccountError(f"the name {name!r} looks too much like {other.name!r}; choose another")


class Accounts:
    """The account use-cases. All methods are coroutines; errors are :class:`AccountError`.

    ``names`` holds the Unicode data and reserved names the name checks use (loaded here
    if not given); ``signups`` says whether people may sign up and how fast.
    """

    def __init__(
        self,
        db: Database,
        clock: Clock,
        *,
        names: NameRules | None = None,
        signups: SignupPolicy | None = None,
        max_keys: int = MAX_KEYS,
    ) -> None:
        self.db = db
        self.clock = clock
        self.max_keys = max_keys
        self._dummy: str | None = None
        self.on_banned: Callable[[int], object] | None = None
        """Called with a user's id once their ban is committed (the process's
        :class:`~door.services.bans.BanWatch` ends their sessions; set by build_services)."""
        self.names = names or NameRules.load()
        self.signups = signups or SignupPolicy()

    # --- registration and passwords ----------------------------------------------------

    def clean_name(self, name: str) -> str:
        """:func:`clean_name` with this service's Unicode data."""
        return clean_name(name, self.names)

    async def signup_refusal(self, address: str | None = None) -> str | None:
        """Why a sign-up from ``address`` would be refused now (closed, or too many from
        there), or None: lets a dialogue say so before asking for a name."""
        now = self.clock.now()
        return await self.db.run_read(lambda repo: self.signups.refusal(repo, address, now))

    async def register(self, name: str, password: str, *, address: str | None = None) -> User:
        """A person signs up; ``AccountError`` if sign-ups are closed, ``address`` made
        too many attempts this hour, or the name is bad, reserved, taken or looks like a
        taken one. Every attempt from an address, made or refused, is logged and counted.
        Under ``signup = "approval"`` the new account is pending (``User.is_pending``)."""
        policy = self.signups
        refusal = await self.signup_refusal(address)
        if refusal is not None:
            raise SignupRefused(refusal)
        try:
            user = await self._create(
                name, password, address=address, pending=policy.mode == "approval",
                reserved=True,
            )  # fmt: skip
        except SignupRefused:
            raise
        except AccountError:
            if address is not None:
                now = self.clock.now()
                await self.db.transact(lambda repo: policy.record(repo, address, now, None))
            raise
        return user

    async def add_user(self, name: str, password: str) -> User:
        """The sysop makes an account (``door user add``): no sign-up policy or limit
        applies and reserved names may be used, but a taken look is still refused."""
        return await self._create(name, password, address=None, pending=False, reserved=False)

    async def _create(
        self, name: str, password: str, *, address: str | None, pending: bool, reserved: bool
    ) -> User:
        name = self.clean_name(name)
        if reserved and self.names.is_reserved(name):
            raise AccountError(f"the name {name!r} is reserved; choose another")
        look = self.names.looks(name)
        check_password_text(password)
        hashed = await asyncio.to_thread(hash_password, password)
        now = self.clock.now()
        policy = self.signups

        def action(repo: Repository) -> User:
            if address is not None:
                repo.lock_signups(address)
                refusal = policy.refusal(repo, address, now)  # again, in the same transaction
                if refusal is not None:
                    raise SignupRefused(refusal)
            _name_free(repo, name, look)
            uid = repo.insert_user(
                name, name_key(name), hashed, False, now, {}, looks=look, is_pending=pending
            )
            if address is not None:
                policy.record(repo, address, now, uid)
            return user_from_record(_existing(repo, uid))

        try:
            return await self.db.transact(action)
        except ConflictError:
            raise _taken(name) from None

    async def approve(self, name: str) -> User:
        """Let a pending account log in (``door user approve``)."""

        def action(repo: Repository) -> User:
            row = repo.lock_user_by_key(name_key(name))
            if row is None:
                raise AccountError(f"there is no user called {name!r}")
            if not row.is_pending:
                raise AccountError(f"{row.name} is not waiting for approval")
            new = replace(row, is_pending=False)
            repo.save_user(new)
            return user_from_record(new)

        return await self.db.transact(action)

    async def pending(self) -> list[User]:
        """Accounts waiting for approval, oldest first."""
        rows = await self.db.run_read(lambda repo: repo.pending_users())
        return [user_from_record(r) for r in rows]

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
            repo.save_user(replace(_acting(repo, user_id, lock=True), password_hash=hashed))

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
            row = repo.lock_user_by_key(name_key(name))
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
        """Attach an SSH public key to the user; returns its ``SHA256:`` fingerprint.
        Refused (``AccountError``, saying why): a malformed line, a key of another
        account, one the user has, more than ``max_keys`` keys."""
        if not isinstance(openssh_public_key_line, str) or len(openssh_public_key_line) > 16384:
            raise AccountError("that is far too long to be a public key line")
        key = parse_public_key(openssh_public_key_line)
        if key.key_type == "ssh-rsa" and len(key.blob) < RSA_2048_BLOB:
            raise AccountError("that RSA key is too short (cut off, or under 2048 bits)")
        now = self.clock.now()
        most = self.max_keys

        def action(repo: Repository) -> str:
            # locked: two keys added at once cannot both pass the count
            _acting(repo, user_id, lock=True)
            owner = repo.key_owner(key.fingerprint)
            if owner is not None:
                if owner == user_id:
                    raise AccountError("you already have that key")
                raise AccountError("that key belongs to another account")
            if len(repo.keys_of(user_id)) >= most:
                raise AccountError(
                    f"you have {most} keys, the most an account may hold: remove one first"
                )
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

    async def bbs_user(self, tag: str, alias: str, *, source: str = "rlogin") -> User:
        """The user linked to ``alias`` on the BBS ``tag``, created on first sight.

        ``source`` is the identity space: ``rlogin`` (a BBS over the network) or
        ``dropfile`` (``door local``); the same tag and alias in the other space is
        another person. The new account's name is the alias made safe (NFKC, no invisible
        characters) and unique, also by look and away from reserved names ("Alias",
        "Alias2", …); it has no password (it logs in only through its BBS).
        """
        if source not in ("rlogin", "dropfile"):
            raise ValueError(f"unknown BBS identity source {source!r}")
        # the identity's key is the alias as the BBS sent it (controls left out, as before
        # these name rules, so existing links still hold); only the door name is cleaned
        tag = "".join(ch for ch in tag if ch.isprintable()).strip()[:60] or "BBS"
        alias = "".join(ch for ch in alias if ch.isprintable()).strip()[:100]
        if not alias:
            raise AccountError("the BBS gave no user name")
        alias_key = name_key(alias)
        shown = _visible(alias, self.names)
        now = self.clock.now()
        names = self.names

        def usable(repo: Repository, name: str) -> bool:
            return (
                repo.user_by_key(name_key(name)) is None
                and repo.user_by_looks(names.looks(name)) is None
                and not names.is_reserved(name)
            )

        def action(repo: Repository) -> User:
            uid = repo.bbs_identity_user(tag, alias_key, source)
            if uid is not None:
                return user_from_record(_existing(repo, uid))
            base = _name_from_alias(shown, names)
            name = base
            n = 1
            while not usable(repo, name):
                if n > 10_000:
                    raise AccountError("could not find a free name for the BBS user")
                n += 1
                suffix = str(n)
                name = base[: NAME_MAX - len(suffix)].rstrip() + suffix
            uid = repo.insert_user(
                name, name_key(name), None, False, now, {}, looks=names.looks(name)
            )
            repo.insert_bbs_identity(tag, alias, alias_key, uid, now, source)
            return user_from_record(_existing(repo, uid))

        for _ in range(3):
            try:
                return await self.db.transact(action)
            except ConflictError:
                continue  # someone created it at the same moment: look again
        raise AccountError("could not create the BBS user; please try again")

    async def ensure_bot(self, name: str) -> User:
        """The bot account called ``name``, created if missing (``is_bot=True``); a name
        that is (or looks like) a person's is refused."""
        name = self.clean_name(name)
        look = self.names.looks(name)
        now = self.clock.now()

        def action(repo: Repository) -> User:
            row = repo.user_by_key(name_key(name)) or repo.user_by_looks(look)
            if row is not None:
                if not row.is_bot or name_key(row.name) != name_key(name):
                    raise AccountError(f"{name!r} is a person's name, not a bot's")
                return user_from_record(row)
            uid = repo.insert_user(name, name_key(name), None, True, now, {}, looks=look)
            return user_from_record(_existing(repo, uid))

        for _ in range(3):
            try:
                return await self.db.transact(action)
            except ConflictError:
                continue
        raise AccountError("could not create the bot account; please try again")

    # --- settings and logins -------------------------------------------------------------

    async def update_settings(self, user_id: int, **changes: Any) -> User:
        """Change some of ``sound``, ``charset``, ``color``, ``step_delay``, ``mouse``;
        returns the updated user."""
        known = {"sound", "charset", "color", "step_delay", "mouse"}
        unknown = set(changes) - known
        if unknown:
            raise AccountError(f"unknown setting(s): {', '.join(sorted(unknown))}")
        for key in ("sound", "color", "mouse"):
            if key in changes and not isinstance(changes[key], bool):
                raise AccountError(f"{key} must be on or off")
        if "charset" in changes and changes["charset"] not in CHARSETS:
            raise AccountError("charset must be auto, cp437 or utf-8")
        if "step_delay" in changes:
            delay = changes["step_delay"]
            if isinstance(delay, bool) or not isinstance(delay, int | float):
                raise AccountError("the playback delay must be a number of seconds")
            if not 0 <= delay <= MAX_STEP_DELAY:
                raise AccountError(f"the playback delay must be 0 to {MAX_STEP_DELAY:g} seconds")
            changes["step_delay"] = float(delay)

        def action(repo: Repository) -> User:
            row = _acting(repo, user_id, lock=True)
            settings = replace(_settings_from(row.settings), **changes)
            new = replace(row, settings=_settings_to(settings))
            repo.save_user(new)
            return user_from_record(new)

        return await self.db.transact(action)

    async def record_login(self, user_id: int) -> datetime | None:
        """Note a login now; returns the previous login time (None on the first)."""
        now = self.clock.now()

        def action(repo: Repository) -> datetime | None:
            row = _existing(repo, user_id, lock=True)
            repo.save_user(replace(row, last_login_at=now))
            return row.last_login_at

        return await self.db.transact(action)
