"""Players add, list and remove their own SSH public keys under Y)our settings, K)eys:
real sessions on fake terminals, read with pyte at 80×24."""

from __future__ import annotations

import asyncssh
import pytest

from door.services import Services
from door.services.accounts import User
from tests.ui.conftest import Running, StartSession


def new_key(kind: str = "ssh-ed25519", comment: str = "alice@laptop") -> str:
    key = asyncssh.generate_private_key(kind, comment=comment)
    return key.export_public_key().decode().strip()


async def keys_screen(start_session: StartSession, user: User) -> Running:
    r = await start_session(user, start="settings")
    r.term.type("k")
    await r.term.settle()
    return r


async def paste(r: Running, line: str) -> None:
    r.term.type("a")
    await r.term.settle()
    r.term.type(line)
    r.term.press("enter")
    await r.term.settle()


async def test_the_settings_menu_offers_ssh_keys(start_session: StartSession, alice: User) -> None:
    r = await start_session(alice, start="settings")
    assert "K) SSH keys" in r.term.display_text()


async def test_a_player_with_no_keys_is_told_how_to_add_one(
    start_session: StartSession, alice: User
) -> None:
    r = await keys_screen(start_session, alice)
    text = r.term.display_text()
    assert "Your SSH keys (0 of 10)" in text
    assert "None yet" in text
    assert "A)dd" in r.term.row(23) and "R)emove" in r.term.row(23)


async def test_a_pasted_key_is_added_and_listed_with_type_and_fingerprint(
    start_session: StartSession, services: Services, alice: User
) -> None:
    line = new_key()
    r = await keys_screen(start_session, alice)
    await paste(r, line)
    (info,) = await services.accounts.list_keys(alice.id)
    text = r.term.display_text()
    assert f"Added {info.fingerprint}" in text
    assert f"1. ED25519 {info.fingerprint}  alice@laptop" in text
    assert "Your SSH keys (1 of 10)" in text
    owner = await services.accounts.by_key(line)  # what the SSH server looks up
    assert owner is not None and owner.id == alice.id


async def test_an_rsa_key_shows_as_rsa(
    start_session: StartSession, services: Services, alice: User
) -> None:
    r = await keys_screen(start_session, alice)
    await paste(r, new_key("ssh-rsa", "work"))
    assert "1. RSA " in r.term.display_text()


async def test_a_malformed_line_is_refused_with_its_reason(
    start_session: StartSession, services: Services, alice: User
) -> None:
    r = await keys_screen(start_session, alice)
    await paste(r, "ssh-ed25519 this-is-not-base64!! me")
    assert "Not added: the key part of that line is not valid base64" in r.term.display_text()
    assert await services.accounts.list_keys(alice.id) == []
    assert "Paste" in r.term.display_text()  # the line stays open, to fix or Esc


async def test_a_cut_short_key_is_refused(
    start_session: StartSession, services: Services, alice: User
) -> None:
    kind, data, *_ = new_key().split()
    r = await keys_screen(start_session, alice)
    await paste(r, f"{kind} {data[:-8]}")
    assert "Not added" in r.term.display_text()
    assert await services.accounts.list_keys(alice.id) == []


async def test_a_pasted_private_key_is_refused_with_a_warning(
    start_session: StartSession, services: Services, alice: User
) -> None:
    r = await keys_screen(start_session, alice)
    await paste(r, "-----BEGIN OPENSSH PRIVATE KEY----- b3BlbnNzaC1rZXktdjEAAAAABG5vbmUA")
    assert "that is a PRIVATE key" in r.term.display_text()
    assert await services.accounts.list_keys(alice.id) == []


async def test_a_key_of_another_account_is_refused(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    line = new_key()
    await services.accounts.add_key(bob.id, line)
    r = await keys_screen(start_session, alice)
    await paste(r, line)
    assert "Not added: that key belongs to another account" in r.term.display_text()


async def test_the_eleventh_key_is_refused(
    start_session: StartSession, services: Services, alice: User
) -> None:
    for i in range(10):
        await services.accounts.add_key(alice.id, new_key(comment=f"k{i}"))
    r = await keys_screen(start_session, alice)
    await paste(r, new_key())
    assert "you have 10 keys, the most an account may hold" in r.term.display_text()
    assert len(await services.accounts.list_keys(alice.id)) == 10


async def test_remove_asks_which_key_then_yes_or_no(
    start_session: StartSession, services: Services, alice: User
) -> None:
    await services.accounts.add_key(alice.id, new_key(comment="one"))
    await services.accounts.add_key(alice.id, new_key(comment="two"))
    first, second = await services.accounts.list_keys(alice.id)
    r = await keys_screen(start_session, alice)
    r.term.type("r")
    await r.term.settle()
    assert "Which key? Press its number." in r.term.display_text()
    r.term.type("2")
    await r.term.settle()
    assert f"Remove {second.fingerprint}? (Y/N)" in r.term.display_text()
    r.term.type("y")
    await r.term.settle()
    assert [k.fingerprint for k in await services.accounts.list_keys(alice.id)] == [
        first.fingerprint
    ]
    assert f"Removed {second.fingerprint}." in r.term.display_text()
    assert "2. " not in r.term.display_text()


async def test_no_keeps_the_key(
    start_session: StartSession, services: Services, alice: User
) -> None:
    await services.accounts.add_key(alice.id, new_key())
    r = await keys_screen(start_session, alice)
    r.term.type("r")
    await r.term.settle()
    r.term.type("n")
    await r.term.settle()
    assert len(await services.accounts.list_keys(alice.id)) == 1
    assert "The key stays." in r.term.display_text()


async def test_escape_goes_back_from_the_keys_to_the_settings(
    start_session: StartSession, alice: User
) -> None:
    r = await keys_screen(start_session, alice)
    r.term.press("escape")
    await r.term.settle()
    assert "Your SSH keys" not in r.term.display_text()
    assert "K) SSH keys" in r.term.display_text()


async def test_ten_keys_each_get_a_line_at_80_by_24(
    start_session: StartSession, services: Services, alice: User
) -> None:
    for i in range(10):
        await services.accounts.add_key(alice.id, new_key(comment=f"key{i}"))
    r = await keys_screen(start_session, alice)
    text = r.term.display_text()
    for i in range(1, 11):
        assert f"{i}. ED25519 SHA256:" in text


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ("", "Paste the line from your .pub file"),
        ("ssh-dss AAAAB3NzaC1kc3MAAACBAP", "DSA keys are obsolete"),
        ("hello world", "'hello' is not a key type door knows"),
    ],
)
async def test_other_bad_lines_are_refused_saying_why(
    start_session: StartSession, services: Services, alice: User, line: str, said: str
) -> None:
    r = await keys_screen(start_session, alice)
    await paste(r, line)
    text = r.term.display_text()
    assert said in text
    assert "Traceback" not in text and "went wrong" not in text
    assert await services.accounts.list_keys(alice.id) == []
