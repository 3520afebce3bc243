"""rlogin for BBS door networks: trust, the secret, [TAG]alias identities, door codes."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path

import pytest

from door.app import App
from door.net.rlogin import RloginError, parse_door_code, parse_identity
from tests.net.conftest import echo_runner, expect, make_config, with_bbs


async def rlogin(port: int, client: str, server: str, term: str, source: str = "127.0.0.1"
                 ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind((source, 0))
    sock.setblocking(False)
    await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", port))
    reader, writer = await asyncio.open_connection(sock=sock)
    writer.write(b"\0" + client.encode() + b"\0" + server.encode() + b"\0" + term.encode() + b"\0")
    return reader, writer


async def secret_app(tmp_path: Path, secret: str = "s3cret") -> App:
    """BBS HOME (secret ``secret``), XA and ZZ, all on 127.0.0.1, each with its own secret."""
    config = with_bbs(
        make_config(tmp_path),
        ("HOME", "127.0.0.1", secret),
        ("XA", "127.0.0.1", "xa-secret"),
        ("ZZ", "127.0.0.1", "zz-secret"),
    )
    app = App(config, runner=echo_runner)
    await app.start(telnet_port=None, ssh_port=None, rlogin_port=0)
    return app


def test_tagged_identity_splits_tag_and_alias() -> None:
    assert parse_identity("[XA]nuskooler") == ("XA", "nuskooler")


def test_bare_alias_gets_the_default_tag() -> None:
    assert parse_identity("nuskooler", "HOME") == ("HOME", "nuskooler")


def test_empty_alias_is_refused() -> None:
    with pytest.raises(RloginError):
        parse_identity("[XA]")


@pytest.mark.parametrize(
    ("field", "expected"),
    [
        ("xtrn=backgammon", ("", "backgammon")),
        ("xtrn=SPECTRANGLE/38400", ("", "spectrangle")),
        ("backgammon/115200", ("backgammon", "backgammon")),
        ("ansi-bbs/38400", ("ansi-bbs", None)),
        ("", ("", None)),
    ],
)
def test_terminal_field_selects_a_door(field: str, expected: tuple[str, str | None]) -> None:
    assert parse_door_code(field) == expected


async def test_trusted_bbs_user_gets_a_door_identity(tmp_path: Path) -> None:
    app = await secret_app(tmp_path)
    try:
        reader, writer = await rlogin(
            app.ports["rlogin"], "xa-secret", "[XA]nuskooler", "ansi/38400"
        )
        first = await asyncio.wait_for(reader.readexactly(1), 3)
        assert first == b"\0"
        assert b"SESSION user=nuskooler start=None" in await expect(reader, "SESSION")
        writer.close()
        again_r, again_w = await rlogin(app.ports["rlogin"], "xa-secret", "[XA]nuskooler", "ansi")
        assert b"user=nuskooler " in await expect(again_r, "start=")
        again_w.close()
        other_r, other_w = await rlogin(app.ports["rlogin"], "zz-secret", "[ZZ]nuskooler", "ansi")
        got = await expect(other_r, "start=")
        assert b"user=nuskooler " not in got  # same alias, other BBS: another person
        other_w.close()
    finally:
        await app.shutdown()


async def test_door_code_goes_straight_to_the_game(tmp_path: Path) -> None:
    app = await secret_app(tmp_path)
    try:
        reader, writer = await rlogin(app.ports["rlogin"], "s3cret", "bob", "xtrn=backgammon")
        assert b"start=backgammon" in await expect(reader, "start=")
        writer.close()
        reader, writer = await rlogin(app.ports["rlogin"], "s3cret", "bob", "spectrangle")
        assert b"start=spectrangle" in await expect(reader, "start=")
        writer.close()
        reader, writer = await rlogin(app.ports["rlogin"], "s3cret", "bob", "xtrn=chess")
        assert b"start=None" in await expect(reader, "start=")
        writer.close()
    finally:
        await app.shutdown()


async def test_wrong_secret_is_refused(tmp_path: Path) -> None:
    app = await secret_app(tmp_path)
    try:
        reader, writer = await rlogin(app.ports["rlogin"], "guess", "[XA]mallory", "ansi")
        got = await asyncio.wait_for(reader.read(), 3)
        assert got.startswith(b"\x01") and b"secret" in got
        assert await app.services.accounts.by_name("mallory") is None
        writer.close()
    finally:
        await app.shutdown()


async def test_untrusted_address_is_refused(tmp_path: Path) -> None:
    app = await secret_app(tmp_path)
    try:
        reader, writer = await rlogin(
            app.ports["rlogin"], "s3cret", "[XA]mallory", "ansi", source="127.0.0.2"
        )
        got = await asyncio.wait_for(reader.read(), 3)
        assert got.startswith(b"\x01") and b"not accepted" in got
        assert await app.services.accounts.by_name("mallory") is None
        writer.close()
    finally:
        await app.shutdown()


async def test_garbage_instead_of_a_handshake_is_refused(tmp_path: Path) -> None:
    app = await secret_app(tmp_path)
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", app.ports["rlogin"])
        writer.write(b"GET / HTTP/1.0\r\n\r\n\0\0\0\0")
        got = await asyncio.wait_for(reader.read(), 3)
        assert got.startswith(b"\x01")
        writer.close()
    finally:
        await app.shutdown()


async def test_data_after_the_handshake_is_eight_bit_clean(tmp_path: Path) -> None:
    app = await secret_app(tmp_path)
    try:
        reader, writer = await rlogin(app.ports["rlogin"], "s3cret", "bob", "ansi")
        await expect(reader, "SESSION")
        # Decoded as CP437 (0xFF no-break space, 0xB0 light shade); echoed back in CP437.
        writer.write(b"\xff")
        assert b"Text(text='\\xa0')" in await expect(reader, "')")
        writer.write(b"\xb0")
        assert b"Text(text='\xb0')" in await expect(reader, "')")
        writer.close()
    finally:
        await app.shutdown()


async def test_probe_answers_set_the_size_and_encoding(tmp_path: Path) -> None:
    app = await secret_app(tmp_path)
    try:
        reader, writer = await rlogin(app.ports["rlogin"], "s3cret", "bob", "xtrn=backgammon")
        seen = b""
        answers = [b"\x1b[50;132R", b"\x1b[50;1R"]
        while b"SESSION" not in seen:
            chunk = await asyncio.wait_for(reader.read(4096), 5)
            assert chunk
            seen += chunk
            for _ in range(chunk.count(b"\x1b[6n")):
                writer.write(answers.pop(0))
        if not seen.rstrip(b"\0").endswith(b"\r\n"):
            seen += await reader.readuntil(b"\r\n")
        assert b"enc=utf-8 size=132x50" in seen
        writer.close()
    finally:
        await app.shutdown()
