"""Door mode's time limit from the drop file: shown in the title bar, warned at 5 and 1
minutes, and a proper goodbye when it runs out. A real session on a real StdioTerminal
(pipes, a fake clock), read with pyte; and one real ``door local`` on a pty."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import AsyncIterator
from pathlib import Path

import pyte
import pytest

from door.config import load_config
from door.net.base import ConnectionSettings
from door.net.stdio import StdioTerminal
from door.services import Services, build_services
from door.session import run_session
from door.ui.terminal import Caps
from tests.net.test_local import door32, read_until, spawn_on_pty

SETTINGS = ConnectionSettings(
    idle_timeout=10.0**7, idle_warning=60.0, max_buffer=65536, probe_timeout=0.5, backlog=8
)
CAPS = Caps(encoding="utf-8", colors=16, width=80, height=24, term="ansi", transport="stdio")


class Door:
    """A session on a StdioTerminal over two pipes, its clock in the test's hands."""

    def __init__(self, services: Services, minutes: float) -> None:
        self.now = 1000.0
        self.keys_r, self.keys_w = os.pipe()
        self.out_r, self.out_w = os.pipe()
        os.set_blocking(self.out_r, False)
        self.term = StdioTerminal(
            CAPS, SETTINGS, in_fd=self.keys_r, out_fd=self.out_w, clock=lambda: self.now
        )
        self.minutes = minutes
        self.services = services
        self.raw = b""
        self.screen = pyte.Screen(80, 24)
        self.stream = pyte.ByteStream(self.screen)
        self.task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        await self.term.open()
        self.term.set_time_limit(self.minutes * 60)
        user = await self.services.accounts.bbs_user("TEST", "Zorro", source="dropfile")
        self.task = asyncio.create_task(run_session(self.term, self.services, user))
        await self.wait_for("Main Menu")

    def read(self) -> None:
        while True:
            try:
                chunk = os.read(self.out_r, 65536)
            except BlockingIOError:
                return
            if not chunk:
                return
            self.raw += chunk
            self.stream.feed(chunk)

    async def wait_for(self, text: str, timeout: float = 5.0) -> None:
        for _ in range(int(timeout / 0.02)):
            self.read()
            if text in "\n".join(self.screen.display) or text.encode() in self.raw:
                return
            await asyncio.sleep(0.02)
        raise AssertionError(f"{text!r} not seen; screen:\n" + "\n".join(self.screen.display))

    def key(self, data: bytes = b"\x0c") -> None:
        os.write(self.keys_w, data)

    async def close(self) -> None:
        if self.task is not None and not self.task.done():
            self.term.hangup_soon("hangup")
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.task, 5)
        await self.term.close()
        for fd in (self.keys_r, self.keys_w, self.out_r, self.out_w):
            with contextlib.suppress(OSError):
                os.close(fd)


@pytest.fixture
async def services(tmp_path: Path) -> AsyncIterator[Services]:
    svc = await build_services(load_config(data_dir=tmp_path), start_background=False)
    try:
        yield svc
    finally:
        await svc.close()


@pytest.fixture
async def door(services: Services) -> AsyncIterator[Door]:
    d = Door(services, 30)
    await d.start()
    try:
        yield d
    finally:
        await d.close()


async def test_the_title_bar_shows_the_minutes_the_bbs_allows(door: Door) -> None:
    assert "30 min left" in door.screen.display[0]
    assert "Zorro" in door.screen.display[0]


async def test_the_title_bar_counts_down_as_time_passes(door: Door) -> None:
    door.now += 10 * 60
    door.key()
    await door.wait_for("20 min left")
    assert "20 min left" in door.screen.display[0]


async def test_five_minutes_before_the_end_the_player_is_warned(door: Door) -> None:
    door.now += 25 * 60 + 1
    door.key()
    await door.wait_for("You have 5 minutes left on the BBS today.")
    assert b"one minute" not in door.raw


async def test_one_minute_before_the_end_the_player_is_warned_again(door: Door) -> None:
    door.now += 25 * 60 + 1
    door.key()
    await door.wait_for("You have 5 minutes left")
    door.now += 4 * 60
    door.key()
    await door.wait_for("You have one minute left on the BBS today.")
    await door.wait_for("1 min left")


async def test_when_the_time_runs_out_the_session_says_goodbye_and_ends(door: Door) -> None:
    door.now += 30 * 60
    door.key()
    await door.wait_for("Your time on the BBS is up. Your games are saved. Goodbye, Zorro!")
    assert door.task is not None
    await asyncio.wait_for(door.task, 5)


def test_door_local_with_a_drop_file_shows_the_time_left_in_the_title_bar(
    tmp_path: Path,
) -> None:
    drop = door32(tmp_path / "door32.sys", "Zorro", 42)
    proc, master, slave = spawn_on_pty(["--data-dir", str(tmp_path), "--dropfile", str(drop)])
    try:
        read_until(master, b"42 min left", 30)
        proc.send_signal(signal.SIGHUP)
        assert proc.wait(timeout=15) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(master)
        os.close(slave)
