"""rlogin trust is per BBS: a tag is accepted only from its own BBS's addresses with its
own secret, and rlogin callers never reach drop-file (``door local``) users.

Two BBSs on loopback: DOVE connects from 127.0.0.2, FSX from 127.0.0.3, each with its own
secret. Each case makes a real rlogin connection from the address it names.
"""

from __future__ import annotations

import asyncio
import re
import socket
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.engine import Connection

from door.app import App, connection_settings
from door.config import Config, ConfigError, load_config
from door.net.rlogin import RloginError, RloginSettings, check_request
from tests.net.conftest import echo_runner, expect, make_config, with_bbs

DOVE = ("DOVE", "127.0.0.2", "dove-secret-1")
FSX = ("FSX", "127.0.0.3", "fsx-secret-2")


def rlogin_only(tmp_path: Path, *bbs: tuple[str, str, str]) -> Config:
    """A config with only rlogin on (telnet and SSH off) and these BBSs let in."""
    config = with_bbs(make_config(tmp_path), *bbs)
    return replace(config, server=replace(config.server, telnet_port=0, ssh_port=0))


async def rlogin(
    app: App, source: str, secret: str, identity: str
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind((source, 0))
    sock.setblocking(False)
    await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", app.ports["rlogin"]))
    reader, writer = await asyncio.open_connection(sock=sock)
    writer.write(b"\0" + secret.encode() + b"\0" + identity.encode() + b"\0ansi/38400\0")
    return reader, writer


async def session_user(app: App, source: str, secret: str, identity: str) -> str:
    """Log in over rlogin and return the door user name the session got."""
    reader, writer = await rlogin(app, source, secret, identity)
    try:
        assert await asyncio.wait_for(reader.readexactly(1), 5) == b"\0"
        seen = await expect(reader, " start=")
        found = re.search(rb"SESSION user=(.*?) start=", seen)
        assert found is not None, seen
        return found.group(1).decode()
    finally:
        writer.close()


async def refusal(app: App, source: str, secret: str, identity: str) -> bytes:
    """Connect and return the refusal (``\\1`` and the reason); fails if accepted."""
    reader, writer = await rlogin(app, source, secret, identity)
    try:
        got = await asyncio.wait_for(reader.read(), 5)
    finally:
        writer.close()
    assert got.startswith(b"\x01"), got
    return got


async def user_count(app: App) -> int:
    def count(conn: Connection) -> int:
        return int(conn.execute(text("SELECT count(*) FROM users")).scalar_one())

    return int(await app.services.db.run_sync(count))


@pytest.fixture
async def app(tmp_path: Path) -> AsyncIterator[App]:
    server = App(rlogin_only(tmp_path, DOVE, FSX), runner=echo_runner)
    await server.start(telnet_port=None, ssh_port=None, rlogin_port=0)
    try:
        yield server
    finally:
        await server.shutdown()


async def test_a_bbs_logs_its_callers_in_from_its_own_address(app: App) -> None:
    assert await session_user(app, "127.0.0.2", DOVE[2], "[DOVE]alice") == "alice"


async def test_a_bare_alias_gets_the_tag_of_the_bbs_that_sent_it(app: App) -> None:
    tagged = await session_user(app, "127.0.0.2", DOVE[2], "[DOVE]alice")
    assert await session_user(app, "127.0.0.2", DOVE[2], "alice") == tagged
    # FSX's alice is another person
    assert await session_user(app, "127.0.0.3", FSX[2], "alice") != tagged


async def test_a_tag_is_matched_without_regard_to_case(app: App) -> None:
    tagged = await session_user(app, "127.0.0.2", DOVE[2], "[DOVE]alice")
    assert await session_user(app, "127.0.0.2", DOVE[2], "[dove]alice") == tagged


async def test_another_bbs_cannot_log_in_as_this_bbs_callers(app: App) -> None:
    await session_user(app, "127.0.0.2", DOVE[2], "[DOVE]alice")
    users = await user_count(app)
    got = await refusal(app, "127.0.0.3", FSX[2], "[DOVE]alice")
    assert b"[DOVE] is not accepted from your address" in got
    assert await user_count(app) == users


async def test_a_bbs_secret_is_refused_from_another_bbs_address(app: App) -> None:
    got = await refusal(app, "127.0.0.3", DOVE[2], "[DOVE]alice")
    assert b"not accepted from your address" in got
    assert await user_count(app) == 0


async def test_a_bbs_address_with_another_bbs_secret_is_refused(app: App) -> None:
    got = await refusal(app, "127.0.0.2", FSX[2], "[DOVE]alice")
    assert b"wrong rlogin secret" in got
    got = await refusal(app, "127.0.0.2", FSX[2], "alice")
    assert b"wrong rlogin secret" in got
    assert await user_count(app) == 0


async def test_an_address_of_no_bbs_is_refused(app: App) -> None:
    got = await refusal(app, "127.0.0.4", DOVE[2], "[DOVE]alice")
    assert b"rlogin is not accepted from your address" in got


async def test_an_unknown_tag_is_refused_even_from_a_bbs_address(app: App) -> None:
    got = await refusal(app, "127.0.0.2", DOVE[2], "[XA]alice")
    assert b"[XA] is not accepted from your address" in got
    assert await user_count(app) == 0


async def test_an_rlogin_tag_named_local_never_reaches_a_drop_file_user(tmp_path: Path) -> None:
    config = rlogin_only(tmp_path, ("LOCAL", "127.0.0.3", "local-secret-3"))
    app = App(config, runner=echo_runner)
    await app.start(telnet_port=None, ssh_port=None, rlogin_port=0)
    try:
        # carl played through `door local` (the BBS's drop file), tag LOCAL
        carl = await app.services.accounts.bbs_user("LOCAL", "carl", source="dropfile")
        assert carl.name == "carl"
        got = await session_user(app, "127.0.0.3", "local-secret-3", "[LOCAL]carl")
        assert got != "carl"
        again = await app.services.accounts.bbs_user("LOCAL", "carl", source="dropfile")
        assert again.id == carl.id
    finally:
        await app.shutdown()


# --- the [[rlogin.bbs]] tables of the config file --------------------------------------


def load_text(tmp_path: Path, text: str) -> Config:
    path = tmp_path / "door.toml"
    path.write_text(text)
    return load_config(path)


BBS_TABLES = """
[[rlogin.bbs]]
tag = "DOVE"
addresses = ["10.0.0.5", "192.0.2.0/28"]
secret = "one"

[[rlogin.bbs]]
tag = "FSX"
addresses = ["2001:db8::7"]
secret = "two"
"""


def test_each_bbs_table_is_read_with_its_addresses_and_secret(tmp_path: Path) -> None:
    config = load_text(tmp_path, BBS_TABLES)
    assert [(b.tag, b.addresses, b.secret) for b in config.rlogin.bbs] == [
        ("DOVE", ("10.0.0.5", "192.0.2.0/28"), "one"),
        ("FSX", ("2001:db8::7",), "two"),
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (BBS_TABLES.replace('"FSX"', '"dove"'), "tag 'dove' appears twice"),
        (BBS_TABLES.replace('secret = "two"', 'secret = ""'), "secret must not be empty"),
        (BBS_TABLES.replace('secret = "two"', 'secret = "one"'), "share a secret"),
        (BBS_TABLES.replace('"10.0.0.5"', '"10.0.0.300"'), "'10.0.0.300'"),
        (BBS_TABLES.replace('addresses = ["2001:db8::7"]', "addresses = []"), "addresses"),
        (BBS_TABLES.replace('tag = "FSX"', 'tag = "[FSX]"'), "tag"),
        (BBS_TABLES.replace('tag = "FSX"\n', ""), "tag"),
        (BBS_TABLES.replace('secret = "two"', 'secret = "two"\nport = 1'), "'port'"),
        ("[rlogin]\nbbs = 3\n", "[[rlogin.bbs]]"),
    ],
)
def test_a_bad_bbs_table_is_refused_naming_the_setting(
    tmp_path: Path, text: str, message: str
) -> None:
    with pytest.raises(ConfigError, match=re.escape(message)):
        load_text(tmp_path, text)


@pytest.mark.parametrize("key", ["trusted", "secret", "default_tag"])
def test_the_old_shared_secret_keys_say_how_to_migrate(tmp_path: Path, key: str) -> None:
    value = '["127.0.0.1"]' if key == "trusted" else '"x"'
    with pytest.raises(ConfigError) as caught:
        load_text(tmp_path, f"[rlogin]\n{key} = {value}\n")
    assert f"[rlogin] {key} is no longer used" in str(caught.value)
    assert "[[rlogin.bbs]]" in str(caught.value)


def test_without_bbs_tables_every_rlogin_connection_is_refused() -> None:
    settings = RloginSettings(connection_settings(load_config()), bbs=())
    with pytest.raises(RloginError, match="not accepted from your address"):
        check_request("127.0.0.1", "", "alice", "ansi", "", settings)


async def open_callers(app: App, count: int) -> tuple[list[asyncio.StreamWriter], list[bytes]]:
    """``count`` DOVE callers at once, each left connected; (their writers, what each got
    first: the session line, or the refusal)."""
    writers: list[asyncio.StreamWriter] = []
    got: list[bytes] = []
    for i in range(count):
        reader, writer = await rlogin(app, "127.0.0.2", DOVE[2], f"[DOVE]caller{i}")
        writers.append(writer)
        first = await asyncio.wait_for(reader.readexactly(1), 5)
        if first == b"\0":
            got.append(await expect(reader, " start="))
        else:
            got.append(first + await asyncio.wait_for(reader.read(), 5))
    return writers, got


async def test_a_bbs_brings_more_callers_than_one_address_may_have(tmp_path: Path) -> None:
    config = rlogin_only(tmp_path, DOVE)
    config = replace(config, limits=replace(config.limits, max_per_address=2))
    app = App(config, runner=echo_runner)
    await app.start(telnet_port=None, ssh_port=None, rlogin_port=0)
    try:
        writers, got = await open_callers(app, 6)
        assert all(b"SESSION user=caller" in g for g in got), got
        for w in writers:
            w.close()
    finally:
        await app.shutdown()


async def test_a_bbs_callers_stop_at_its_own_cap(tmp_path: Path) -> None:
    config = rlogin_only(tmp_path, DOVE)
    capped = replace(config.rlogin.bbs[0], max_callers=3)
    config = replace(config, rlogin=replace(config.rlogin, bbs=(capped,)))
    app = App(config, runner=echo_runner)
    await app.start(telnet_port=None, ssh_port=None, rlogin_port=0)
    try:
        writers, got = await open_callers(app, 4)
        assert all(b"SESSION user=caller" in g for g in got[:3]), got
        assert got[3].startswith(b"\x01Too many connections from your address"), got[3]
        for w in writers:
            w.close()
    finally:
        await app.shutdown()
