"""Accounts: registration, passwords, keys, BBS identities, flags and settings."""

from __future__ import annotations

import base64
import hashlib
from datetime import timedelta

import pytest
from sqlalchemy import text

from door.services.accounts import (
    AccountError,
    Accounts,
    User,
    UserSettings,
    hash_password,
    parse_public_key,
    verify_password,
)
from door.services.clock import FakeClock
from door.store.db import Database


def ssh_key_line(seed: bytes, comment: str = "me@home") -> str:
    """A well-formed ssh-ed25519 public key line (the key bytes need not be a real point)."""
    kt = b"ssh-ed25519"
    key = hashlib.sha256(seed).digest()
    blob = len(kt).to_bytes(4, "big") + kt + len(key).to_bytes(4, "big") + key
    return f"ssh-ed25519 {base64.b64encode(blob).decode()} {comment}"


async def test_register_returns_a_plain_user_with_default_settings(accounts: Accounts) -> None:
    user = await accounts.register("Alice", "secret")
    assert user.name == "Alice"
    assert (user.is_sysop, user.is_banned, user.is_bot) == (False, False, False)
    assert user.settings == UserSettings()
    assert user.last_login_at is None
    assert user.created_at.tzinfo is not None


async def test_names_are_unique_ignoring_case(accounts: Accounts, alice: User) -> None:
    with pytest.raises(AccountError, match="taken"):
        await accounts.register("aLiCe", "whatever")


@pytest.mark.parametrize("bad", ["A", "x" * 21, "bad\x1bname", "tab\there", "new\nline", "  "])
async def test_bad_names_are_refused_with_a_reason(accounts: Accounts, bad: str) -> None:
    with pytest.raises(AccountError):
        await accounts.register(bad, "secret")
    assert await accounts.by_name(bad) is None


async def test_names_of_two_and_twenty_characters_are_accepted(accounts: Accounts) -> None:
    assert (await accounts.register("Jo", "secret")).name == "Jo"
    assert (await accounts.register("Ä" * 20, "secret")).name == "Ä" * 20


@pytest.mark.real_kdf
async def test_password_is_stored_as_a_self_describing_scrypt_hash(
    accounts: Accounts, db: Database, alice: User
) -> None:
    stored = await db.run_sync(
        lambda c: c.execute(text("SELECT password_hash FROM users")).scalar_one()
    )
    algo, n, r, p, salt, digest = stored.split("$")
    assert (algo, n, r, p) == ("scrypt", str(2**14), "8", "1")
    assert len(base64.b64decode(salt)) == 16
    assert len(base64.b64decode(digest)) == 32
    assert "alice-pw" not in stored


def test_two_hashes_of_one_password_differ_and_both_verify() -> None:
    a, b = hash_password("pw"), hash_password("pw")
    assert a != b
    assert verify_password("pw", a) and verify_password("pw", b)
    assert not verify_password("pW", a)


async def test_authenticate_accepts_the_right_password_any_name_case(
    accounts: Accounts, alice: User
) -> None:
    user = await accounts.authenticate("ALICE", "alice-pw")
    assert user is not None and user.id == alice.id


async def test_authenticate_refuses_wrong_password_unknown_name_and_banned(
    accounts: Accounts, alice: User
) -> None:
    assert await accounts.authenticate("Alice", "wrong") is None
    assert await accounts.authenticate("Nobody", "alice-pw") is None
    await accounts.set_banned("Alice", True)
    assert await accounts.authenticate("Alice", "alice-pw") is None
    await accounts.set_banned("Alice", False)
    assert await accounts.authenticate("Alice", "alice-pw") is not None


async def test_change_password_needs_the_old_one(accounts: Accounts, alice: User) -> None:
    with pytest.raises(AccountError, match="old password"):
        await accounts.change_password(alice.id, "wrong", "newpass")
    assert await accounts.authenticate("Alice", "alice-pw") is not None
    await accounts.change_password(alice.id, "alice-pw", "newpass")
    assert await accounts.authenticate("Alice", "alice-pw") is None
    assert await accounts.authenticate("Alice", "newpass") is not None


async def test_set_password_needs_no_old_one(accounts: Accounts, alice: User) -> None:
    await accounts.set_password("alice", "fresh-one")
    assert await accounts.authenticate("Alice", "fresh-one") is not None


async def test_set_sysop_grants_and_takes_away(accounts: Accounts, alice: User) -> None:
    assert (await accounts.set_sysop("Alice", True)).is_sysop
    assert not (await accounts.set_sysop("Alice", False)).is_sysop


async def test_flags_on_unknown_users_are_refused(accounts: Accounts) -> None:
    with pytest.raises(AccountError, match="no user"):
        await accounts.set_sysop("Ghost", True)


async def test_get_of_unknown_id_is_an_account_error(accounts: Accounts) -> None:
    with pytest.raises(AccountError):
        await accounts.get(999)


async def test_ssh_key_add_list_lookup_and_remove(accounts: Accounts, alice: User) -> None:
    line = ssh_key_line(b"alice")
    fingerprint = await accounts.add_key(alice.id, line)
    assert fingerprint == parse_public_key(line).fingerprint
    assert fingerprint.startswith("SHA256:") and not fingerprint.endswith("=")
    keys = await accounts.list_keys(alice.id)
    assert [(k.fingerprint, k.key_type, k.comment) for k in keys] == [
        (fingerprint, "ssh-ed25519", "me@home")
    ]
    by_line = await accounts.by_key(line)
    by_fp = await accounts.by_key(fingerprint)
    assert by_line is not None and by_fp is not None and by_line.id == by_fp.id == alice.id
    await accounts.remove_key(alice.id, fingerprint)
    assert await accounts.list_keys(alice.id) == []
    assert await accounts.by_key(fingerprint) is None


def test_fingerprint_matches_openssh_format() -> None:
    line = ssh_key_line(b"x")
    blob = base64.b64decode(line.split()[1])
    expected = base64.b64encode(hashlib.sha256(blob).digest()).decode().rstrip("=")
    assert parse_public_key(line).fingerprint == "SHA256:" + expected


async def test_a_key_belongs_to_one_account_only(
    accounts: Accounts, alice: User, bob: User
) -> None:
    line = ssh_key_line(b"shared")
    await accounts.add_key(alice.id, line)
    with pytest.raises(AccountError, match="another account"):
        await accounts.add_key(bob.id, line)
    with pytest.raises(AccountError, match="already"):
        await accounts.add_key(alice.id, line)


@pytest.mark.parametrize(
    "line",
    ["", "ssh-ed25519", "ssh-ed25519 !!!notbase64", "ssh-rsa " + ssh_key_line(b"k").split()[1]],
)
async def test_malformed_key_lines_are_refused(accounts: Accounts, alice: User, line: str) -> None:
    with pytest.raises(AccountError):
        await accounts.add_key(alice.id, line)
    assert await accounts.list_keys(alice.id) == []


async def test_removing_a_key_you_do_not_have_is_refused(
    accounts: Accounts, alice: User, bob: User
) -> None:
    fp = await accounts.add_key(alice.id, ssh_key_line(b"a"))
    with pytest.raises(AccountError):
        await accounts.remove_key(bob.id, fp)
    assert len(await accounts.list_keys(alice.id)) == 1


async def test_banned_users_are_not_found_by_key(accounts: Accounts, alice: User) -> None:
    fp = await accounts.add_key(alice.id, ssh_key_line(b"a"))
    await accounts.set_banned("Alice", True)
    assert await accounts.by_key(fp) is None


async def test_bbs_user_is_created_once_and_found_again(accounts: Accounts) -> None:
    first = await accounts.bbs_user("DOVE", "Sysop Sam")
    again = await accounts.bbs_user("DOVE", "sysop sam")
    assert first.id == again.id
    assert first.name == "Sysop Sam"
    assert await accounts.authenticate("Sysop Sam", "") is None


async def test_bbs_user_names_are_made_unique(accounts: Accounts, alice: User) -> None:
    a = await accounts.bbs_user("DOVE", "Alice")
    b = await accounts.bbs_user("FSX", "alice")
    names = {alice.name, a.name, b.name}
    assert len(names) == 3
    assert all(2 <= len(n) <= 20 for n in names)


async def test_bbs_user_strips_control_characters_and_trims_long_aliases(
    accounts: Accounts,
) -> None:
    user = await accounts.bbs_user("DOVE", "\x1b[31mEvil\x07" + "x" * 40)
    assert user.name.isprintable() and len(user.name) <= 20


async def test_update_settings_changes_only_what_is_given(accounts: Accounts, alice: User) -> None:
    user = await accounts.update_settings(alice.id, charset="utf-8")
    assert user.settings == UserSettings(sound=True, charset="utf-8", color=True)
    user = await accounts.update_settings(alice.id, sound=False, color=False)
    assert user.settings == UserSettings(sound=False, charset="utf-8", color=False)
    assert (await accounts.get(alice.id)).settings == user.settings


@pytest.mark.parametrize("changes", [{"charset": "latin1"}, {"sound": "yes"}, {"volume": 3}])
async def test_bad_settings_are_refused(
    accounts: Accounts, alice: User, changes: dict[str, object]
) -> None:
    with pytest.raises(AccountError):
        await accounts.update_settings(alice.id, **changes)
    assert (await accounts.get(alice.id)).settings == UserSettings()


async def test_record_login_returns_the_previous_login(
    accounts: Accounts, alice: User, clock: FakeClock
) -> None:
    first_time = clock.now()
    assert await accounts.record_login(alice.id) is None
    clock.advance(timedelta(days=2))
    assert await accounts.record_login(alice.id) == first_time
    assert (await accounts.get(alice.id)).last_login_at == clock.now()


async def test_ensure_bot_creates_once_and_refuses_a_persons_name(
    accounts: Accounts, alice: User
) -> None:
    bot = await accounts.ensure_bot("bg-expert")
    assert bot.is_bot
    assert (await accounts.ensure_bot("bg-expert")).id == bot.id
    with pytest.raises(AccountError):
        await accounts.ensure_bot("Alice")
    with pytest.raises(AccountError, match="taken"):
        await accounts.register("BG-Expert", "secret")


@pytest.mark.parametrize("alg", ["ssh-ed25519", "ecdsa-sha2-nistp256", "ssh-rsa"])
def test_fingerprints_agree_with_asyncssh_for_real_keys(alg: str) -> None:
    import asyncssh

    key = (
        asyncssh.generate_private_key(alg, key_size=1024)
        if alg == "ssh-rsa"
        else (asyncssh.generate_private_key(alg))
    )
    line = key.export_public_key().decode()
    parsed = parse_public_key(line)
    assert parsed.fingerprint == key.get_fingerprint("sha256")
    assert parsed.key_type == alg
