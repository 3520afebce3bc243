"""rlogin from door networks: untrusted addresses, wrong secrets, broken handshakes and
hostile identities are refused with a reason (RFC 1282's ``\\1`` + message) or closed;
nobody is created by a refused handshake, and the telnet bystander is never disturbed."""

from __future__ import annotations

import asyncio
import random
import socket

import pytest

from door.app import App
from tests.badinput.conftest import (
    RLOGIN_SECRET,
    Bystander,
    Screen,
    closed_or_prompt,
    not_menu_keys,
    user_names,
    wait_slots,
)


async def connect(app: App, source: str = "127.0.0.1"
                  ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind((source, 0))
    sock.setblocking(False)
    await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", app.ports["rlogin"]))
    return await asyncio.open_connection(sock=sock)


def handshake(client: str, server: str, term: str = "ansi/38400") -> bytes:
    return b"\0" + client.encode() + b"\0" + server.encode() + b"\0" + term.encode() + b"\0"


async def refused(reader: asyncio.StreamReader) -> bytes:
    """The refusal: ``\\1`` then the reason, then the server closes."""
    got = await asyncio.wait_for(reader.read(), 10)
    assert got.startswith(b"\x01"), got
    return got


async def test_rlogin_from_an_untrusted_address_is_refused(
    server: App, bystander: Bystander
) -> None:
    reader, writer = await connect(server, source="127.0.0.2")
    writer.write(handshake(RLOGIN_SECRET, "[XA]mallory"))
    assert b"not accepted from your address" in await refused(reader)
    writer.close()
    assert await user_names(server) == {"Watcher"}
    await bystander.poke()


async def test_rlogin_with_a_wrong_secret_is_refused(server: App, bystander: Bystander) -> None:
    for guess in ("", "s3cre", RLOGIN_SECRET + "x", "' OR '1'='1"):
        reader, writer = await connect(server)
        writer.write(handshake(guess, "[XA]mallory"))
        assert b"wrong rlogin secret" in await refused(reader)
        writer.close()
    assert await user_names(server) == {"Watcher"}
    await bystander.poke()


async def test_an_over_long_handshake_field_is_refused(server: App, bystander: Bystander) -> None:
    reader, writer = await connect(server)
    writer.write(b"\0" + RLOGIN_SECRET.encode() + b"\0" + b"A" * 100_000 + b"\0ansi\0")
    assert b"too long" in await refused(reader)
    writer.close()
    assert await user_names(server) == {"Watcher"}
    await bystander.poke()


async def test_a_handshake_cut_short_is_closed_quietly(server: App, bystander: Bystander) -> None:
    for cut in (b"", b"\0", b"\0" + RLOGIN_SECRET.encode(), handshake(RLOGIN_SECRET, "x")[:-3]):
        _, writer = await connect(server)
        writer.write(cut)
        writer.close()
    await wait_slots(server, 1)
    assert await user_names(server) == {"Watcher"}
    await bystander.poke()


async def test_a_client_that_never_sends_a_handshake_is_timed_out(
    server: App, bystander: Bystander, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("door.net.rlogin.HANDSHAKE_TIMEOUT", 0.5)
    reader, writer = await connect(server)
    assert b"timed out" in await refused(reader)
    writer.close()
    await wait_slots(server, 1)
    await bystander.poke()


@pytest.mark.parametrize(
    "identity",
    ["[XA]\x1b[2J\x1b]0;x\x07", "[XA]", "[]nobody", "[X\x07A]bob", "[XA]\r\n", "   "],
)
async def test_an_unusable_identity_is_refused_with_the_reason(
    server: App, bystander: Bystander, identity: str
) -> None:
    reader, writer = await connect(server)
    writer.write(handshake(RLOGIN_SECRET, identity))
    got = await refused(reader)
    assert b"no usable user name" in got or b"Sorry" in got
    writer.close()
    assert await user_names(server) == {"Watcher"}
    await bystander.poke()


async def test_an_over_long_alias_gets_a_valid_name(server: App, bystander: Bystander) -> None:
    reader, writer = await connect(server)
    writer.write(handshake(RLOGIN_SECRET, "[XA]" + "Methuselah" * 20))
    assert await asyncio.wait_for(reader.readexactly(1), 5) == b"\0"
    screen = Screen(reader)
    await screen.wait_for("Main Menu")
    writer.close()
    await screen.stop()
    names = await user_names(server) - {"Watcher"}
    assert len(names) == 1 and all(2 <= len(n) <= 20 and n.isprintable() for n in names)
    await bystander.poke()


async def test_binary_garbage_after_the_handshake_leaves_the_session_working(
    server: App, bystander: Bystander
) -> None:
    reader, writer = await connect(server)
    writer.write(handshake(RLOGIN_SECRET, "[XA]Mallory"))
    assert await asyncio.wait_for(reader.readexactly(1), 5) == b"\0"
    screen = Screen(reader)
    await screen.wait_for("Main Menu")
    rng = random.Random(5)
    writer.write(not_menu_keys(rng.randbytes(20_000)))
    await bystander.poke(timeout=5)
    await asyncio.sleep(0.5)
    writer.write(b"\x0cs")
    await screen.wait_for("Sound effects are OFF", timeout=20)
    writer.close()
    await screen.stop()
    await bystander.poke()


async def test_a_flood_of_handshake_garbage_is_refused(server: App, bystander: Bystander) -> None:
    reader, writer = await connect(server)
    try:
        writer.write(random.Random(3).randbytes(1_000_000))
        await writer.drain()
    except (ConnectionError, OSError):
        pass
    await closed_or_prompt(reader, b"\x00never", timeout=10)
    writer.close()
    await wait_slots(server, 1)
    await bystander.poke()
