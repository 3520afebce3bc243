"""Fixtures for the bad-input suite: a real door server (telnet, SSH, rlogin on 127.0.0.1
ephemeral ports) on the real services and session, and a well-behaved bystander.

Every network case keeps a :class:`Bystander` logged in over telnet at the main menu while
the hostile client does its worst, then proves the bystander still gets an answer to a
keystroke (``await bystander.poke()``: ``S`` toggles the sound setting, a database write
whose result is drawn on the status line). The ``clean_log`` fixture fails a test whose
server logged an error (an exception that escaped a session).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pyte
import pytest
import telnetlib3
from sqlalchemy import text

from door.app import App
from door.config import Config, DatabaseConfig, GamesConfig, RloginBbs, RloginConfig
from door.services import Services, build_services
from door.services.clock import FakeClock
from door.ui.screens.main import NEWS_KEY, MainMenu
from tests.net.conftest import expect, make_config
from tests.store import dbutil

RLOGIN_SECRET = "s3cret"
BYSTANDER = "Watcher"
PASSWORD = "pass-word"


def not_menu_keys(junk: bytes) -> bytes:
    """``junk`` without the main menu's letters (either case, and N: all the news), Enter
    and ESC: garbage that stays garbage to the main menu whatever items it gains (each
    control byte is still a key event the menu must handle)."""
    letters = "".join(item.key for item in MainMenu().menu.items) + NEWS_KEY
    keys = (letters.lower() + letters.upper() + "\r\n\x1b").encode()
    return bytes(b for b in junk if b not in keys)


@pytest.fixture(scope="session")
def bad_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One migrated SQLite file, copied for each test."""
    return dbutil.make_sqlite_template(tmp_path_factory.mktemp("badinput-template"))


@pytest.fixture(autouse=True)
def cheap_password_hashing(monkeypatch: pytest.MonkeyPatch) -> None:
    # Production scrypt costs ~50 ms a hash; hashes are self-describing, so a small n
    # changes nothing about what is tested here.
    monkeypatch.setattr("door.services.accounts.SCRYPT_N", 2**8)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
async def services(
    bad_template: Path, tmp_path: Path, clock: FakeClock
) -> AsyncIterator[Services]:
    """The real services on a fresh SQLite copy, a fake clock, no background tasks."""
    url = dbutil.fresh_sqlite(bad_template, tmp_path)
    config = Config(
        data_dir=tmp_path,
        database=DatabaseConfig(url=url, auto_upgrade=False),
        games=GamesConfig(bots=False),
    )
    svc = await build_services(config, clock=clock, rng=random.Random(8), start_background=False)
    try:
        yield svc
    finally:
        await svc.close()


def server_config(tmp_path: Path) -> Config:
    config = make_config(tmp_path)
    return replace(
        config,
        rlogin=RloginConfig(bbs=(RloginBbs("XA", ("127.0.0.1",), RLOGIN_SECRET),)),
        limits=replace(config.limits, shutdown_grace_s=1.0),
    )


@pytest.fixture
async def server(services: Services, tmp_path: Path) -> AsyncIterator[App]:
    """A door server with the real login dialogue and session, every transport on."""
    app = App(server_config(tmp_path), services=services)
    await app.start(telnet_port=0, ssh_port=0, rlogin_port=0)
    try:
        yield app
    finally:
        await app.shutdown()


@pytest.fixture(autouse=True)
def clean_log(caplog: pytest.LogCaptureFixture) -> Iterator[None]:
    """Fail the test if the server logged an error or worse (an escaped exception)."""
    caplog.set_level(logging.INFO)
    yield
    bad = [
        f"{r.name}: {r.getMessage()}"
        for r in caplog.get_records("call")
        if r.levelno >= logging.ERROR
    ]
    if bad:
        pytest.fail("the server logged errors:\n" + "\n".join(bad))


class Screen:
    """A VT100 (pyte) fed by everything a telnet client receives."""

    def __init__(self, reader: Any, width: int = 80, height: int = 24) -> None:
        self.screen = pyte.Screen(width, height)
        self.stream = pyte.ByteStream(self.screen)
        self.raw = bytearray()
        self._reader = reader
        self._changed = asyncio.Event()
        self.closed = False
        self._task = asyncio.ensure_future(self._pump())

    async def _pump(self) -> None:
        while True:
            try:
                chunk = await self._reader.read(65536)
            except (ConnectionError, OSError):
                chunk = b""
            if not chunk:
                self.closed = True
                self._changed.set()
                return
            data = chunk if isinstance(chunk, bytes) else chunk.encode()
            self.raw += data
            self.stream.feed(data)
            self._changed.set()

    def text(self) -> str:
        return "\n".join(self.screen.display)

    async def wait_for(self, needle: str, timeout: float = 10.0) -> None:
        """Wait until ``needle`` shows on the screen."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while needle not in self.text():
            left = end - loop.time()
            if left <= 0 or self.closed:
                raise AssertionError(f"{needle!r} never showed; screen:\n{self.text()}")
            self._changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), min(left, 0.1))

    async def stop(self) -> None:
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self._task


class Bystander:
    """A well-behaved telnet player sitting at the main menu."""

    def __init__(self, reader: Any, writer: Any) -> None:
        self.writer = writer
        self.screen = Screen(reader)
        self.sound = True
        self.pokes = 0

    async def poke(self, timeout: float = 10.0) -> None:
        """Press ``S`` and wait for the status line to show the sound setting flip."""
        self.sound = not self.sound
        self.pokes += 1
        self.writer.write(b"s")
        await self.screen.wait_for(
            f"Sound effects are {'ON' if self.sound else 'OFF'}", timeout
        )
        # Leave the status line as it was for the next poke (it stays until a key).
        self.writer.write(b"\x0c")  # Ctrl-L redraws
        await asyncio.sleep(0.05)

    async def close(self) -> None:
        self.writer.close()
        await self.screen.stop()


async def telnet_login(app: App, name: str, password: str, **kw: Any) -> tuple[Any, Any]:
    """A telnetlib3 client logged in as ``name`` (the account must exist)."""
    opts: dict[str, Any] = dict(
        encoding=False, term="xterm-256color", cols=80, rows=24, connect_minwait=0.05,
        connect_maxwait=1.0,
    )  # fmt: skip
    opts.update(kw)
    reader, writer = await telnetlib3.open_connection("127.0.0.1", app.ports["telnet"], **opts)
    await expect(reader, "Name: ")
    writer.write(name.encode() + b"\r")
    await expect(reader, "Password: ")
    writer.write(password.encode() + b"\r")
    return reader, writer


@pytest.fixture
async def bystander(server: App) -> AsyncIterator[Bystander]:
    """A second player logged in over telnet at the main menu for the whole test."""
    assert server.services is not None
    await server.services.accounts.register(BYSTANDER, PASSWORD)
    reader, writer = await telnet_login(server, BYSTANDER, PASSWORD)
    by = Bystander(reader, writer)
    await by.screen.wait_for("Main Menu")
    try:
        yield by
    finally:
        await by.close()


async def raw_telnet(app: App) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A plain TCP client on the telnet port (it answers no negotiation)."""
    return await asyncio.open_connection("127.0.0.1", app.ports["telnet"])


async def closed_or_prompt(reader: asyncio.StreamReader, needle: bytes, timeout: float) -> bytes:
    """Read until ``needle`` arrives or the server closes; what was read."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    buf = b""
    while needle not in buf:
        left = end - loop.time()
        if left <= 0:
            raise AssertionError(f"neither {needle!r} nor a close; got {buf[-300:]!r}")
        try:
            chunk = await asyncio.wait_for(reader.read(65536), left)
        except TimeoutError:
            continue
        except (ConnectionError, OSError):
            return buf
        if not chunk:
            return buf
        buf += chunk
    return buf


async def send(writer: asyncio.StreamWriter, data: bytes) -> bool:
    """Write ``data``; False if the server closed the connection meanwhile."""
    try:
        writer.write(data)
        await writer.drain()
    except (ConnectionError, OSError):
        return False
    return True


async def wait_slots(app: App, total: int, timeout: float = 5.0) -> None:
    """Wait until the connection limiter holds ``total`` slots (closed ones released)."""
    end = time.monotonic() + timeout
    while app.limiter.total != total:
        if time.monotonic() > end:
            raise AssertionError(f"{app.limiter.total} connection slots held, not {total}")
        await asyncio.sleep(0.05)


async def user_names(app: App) -> set[str]:
    """Every account name in the server's database (straight from the table)."""
    assert app.services is not None
    rows = await app.services.db.run_sync(lambda c: c.execute(text("SELECT name FROM users")).all())
    return {r[0] for r in rows}
