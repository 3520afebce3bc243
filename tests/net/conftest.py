"""Shared helpers for the front-door tests: real servers on 127.0.0.1, real clients."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from door.app import App
from door.config import Config, RloginBbs, RloginConfig, load_config
from door.ui.terminal import Hangup, Key, Terminal, Text


def make_config(tmp_path: Path, **limits: Any) -> Config:
    """A config on a temp-dir SQLite database, listening on 127.0.0.1, fast timings."""
    config = load_config(data_dir=tmp_path)
    base = dict(login_delay_s=0.01, negotiation_wait_s=0.3, probe_timeout_s=0.3)
    base.update(limits)
    return replace(
        config,
        server=replace(config.server, host="127.0.0.1"),
        limits=replace(config.limits, **base),
        games=replace(config.games, bots=False),
    )


async def echo_runner(terminal: Terminal, services: Any, user: Any, *, start: str | None = None
                      ) -> None:
    """A stand-in session that says who logged in and echoes events until ``q``."""
    terminal.write(f"\r\nSESSION user={user.name} start={start} enc={terminal.caps.encoding}"
                   f" size={terminal.caps.width}x{terminal.caps.height}\r\n")
    await terminal.drain()
    while True:
        event = await terminal.read_event()
        if isinstance(event, Hangup):
            return
        terminal.write(f"EVENT {event!r}\r\n")
        await terminal.drain()
        if isinstance(event, Text) and event.text == "q":
            return
        if isinstance(event, Key) and event.name == "ctrl-d":
            return


async def expect(reader: Any, needle: bytes | str, timeout: float = 5.0) -> bytes:
    """Read until ``needle`` has arrived; everything read so far (bytes)."""
    want = needle.encode() if isinstance(needle, str) else needle
    buf = b""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while want not in buf:
        left = end - loop.time()
        if left <= 0:
            raise AssertionError(f"{want!r} not received; got {buf[-400:]!r}")
        try:
            chunk = await asyncio.wait_for(reader.read(4096), left)
        except TimeoutError:
            continue
        if not chunk:
            raise AssertionError(f"connection closed before {want!r}; got {buf[-400:]!r}")
        buf += chunk if isinstance(chunk, bytes) else chunk.encode()
    return buf


def with_bbs(config: Config, *bbs: tuple[str, str, str]) -> Config:
    """``config`` letting these BBSs in over rlogin: (tag, address or network, secret)."""
    entries = tuple(RloginBbs(tag, (address,), secret) for tag, address, secret in bbs)
    return replace(config, rlogin=RloginConfig(bbs=entries))


@pytest.fixture
async def app(tmp_path: Path) -> AsyncIterator[App]:
    """A door server (telnet, SSH, rlogin on free ports) with the echo session."""
    config = make_config(tmp_path)
    config = with_bbs(config, ("XA", "127.0.0.1", "s3cret"))
    server = App(config, runner=echo_runner)
    await server.start(telnet_port=0, ssh_port=0, rlogin_port=0)
    try:
        yield server
    finally:
        await server.shutdown()
