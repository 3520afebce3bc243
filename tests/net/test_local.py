"""`door local`: door mode on a real pseudo-terminal, as a BBS runs it."""

from __future__ import annotations

import asyncio
import os
import pty
import signal
import subprocess
import sys
import termios
import time
from pathlib import Path

from door.config import load_config
from door.services import build_services

ROOT = Path(__file__).resolve().parents[2]
RESET = b"\x1b[0m\x1b[?25h"


def door32(path: Path, alias: str, minutes: int) -> Path:
    lines = ["0", "0", "38400", "Synchronet 3.21", "7", "Real Name", alias, "50",
             str(minutes), "1", "2"]  # fmt: skip
    path.write_bytes(("\r\n".join(lines) + "\r\n").encode("cp437"))
    return path


def spawn_on_pty(args: list[str]) -> tuple[subprocess.Popen[bytes], int, int]:
    master, slave = pty.openpty()
    termios.tcsetattr(slave, termios.TCSANOW, termios.tcgetattr(slave))
    env = dict(os.environ, PYTHONPATH=str(ROOT), TERM="ansi")
    proc = subprocess.Popen(
        [sys.executable, "-m", "door", "local", *args],
        stdin=slave, stdout=slave, stderr=subprocess.PIPE, env=env, cwd=str(ROOT),
        start_new_session=True,
    )
    return proc, master, slave


def read_until(master: int, needle: bytes, timeout: float) -> bytes:
    buf = b""
    end = time.monotonic() + timeout
    os.set_blocking(master, False)
    while needle not in buf:
        if time.monotonic() > end:
            raise AssertionError(f"{needle!r} not seen; got {buf[-300:]!r}")
        try:
            chunk = os.read(master, 4096)
        except BlockingIOError:
            time.sleep(0.02)
            continue
        except OSError:
            break
        if not chunk:
            break
        buf += chunk
    return buf


def drain(master: int) -> bytes:
    buf = b""
    os.set_blocking(master, False)
    while True:
        try:
            chunk = os.read(master, 4096)
        except (BlockingIOError, OSError):
            return buf
        if not chunk:
            return buf
        buf += chunk


def test_no_time_left_says_so_and_restores_the_terminal(tmp_path: Path) -> None:
    drop = door32(tmp_path / "door32.sys", "Zorro", 0)
    proc, master, slave = spawn_on_pty(["--data-dir", str(tmp_path), "--dropfile", str(drop)])
    before = termios.tcgetattr(slave)
    try:
        out = read_until(master, b"no time left", 30)
        assert proc.wait(timeout=15) == 0
        out += drain(master)
        assert out.endswith(RESET)
        assert termios.tcgetattr(slave) == before
    finally:
        os.close(master)
        os.close(slave)


def test_session_runs_without_a_login_prompt_and_ends_on_hangup(tmp_path: Path) -> None:
    drop = door32(tmp_path / "door32.sys", "Zorro", 30)
    proc, master, slave = spawn_on_pty(["--data-dir", str(tmp_path), "--dropfile", str(drop)])
    before = termios.tcgetattr(slave)
    try:
        out = read_until(master, b"\x1b[", 30)  # the first screen is being drawn
        time.sleep(0.5)
        out += drain(master)
        assert b"Name:" not in out and b"Password" not in out
        assert termios.tcgetattr(slave) != before  # raw mode while playing
        proc.send_signal(signal.SIGHUP)
        assert proc.wait(timeout=15) == 0
        out += drain(master)
        assert out.endswith(RESET)
        assert termios.tcgetattr(slave) == before
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(master)
        os.close(slave)

    async def the_bbs_user_exists() -> None:
        services = await build_services(load_config(data_dir=tmp_path), start_background=False)
        try:
            assert await services.accounts.by_name("Zorro") is not None
        finally:
            await services.close()

    asyncio.run(the_bbs_user_exists())


def test_eof_on_stdin_ends_cleanly(tmp_path: Path) -> None:
    drop = door32(tmp_path / "door32.sys", "Zorro", 30)
    env = dict(os.environ, PYTHONPATH=str(ROOT), TERM="ansi")
    done = subprocess.run(
        [sys.executable, "-m", "door", "local", "--data-dir", str(tmp_path),
         "--dropfile", str(drop)],
        stdin=subprocess.DEVNULL, capture_output=True, env=env, cwd=str(ROOT), timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.endswith(RESET)


def test_output_to_a_file_works(tmp_path: Path) -> None:
    drop = door32(tmp_path / "door32.sys", "Zorro", 0)
    out = tmp_path / "out.txt"
    env = dict(os.environ, PYTHONPATH=str(ROOT), TERM="ansi")
    with open(out, "wb") as fh:
        done = subprocess.run(
            [sys.executable, "-m", "door", "local", "--data-dir", str(tmp_path),
             "--dropfile", str(drop)],
            stdin=subprocess.DEVNULL, stdout=fh, stderr=subprocess.PIPE, env=env,
            cwd=str(ROOT), timeout=60,
        )  # fmt: skip
    assert done.returncode == 0, done.stderr.decode()
    assert b"no time left" in out.read_bytes()


def test_unreadable_drop_file_is_a_clear_error(tmp_path: Path) -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run(
        [sys.executable, "-m", "door", "local", "--data-dir", str(tmp_path),
         "--dropfile", str(tmp_path / "missing" / "door32.sys")],
        capture_output=True, env=env, cwd=str(ROOT), timeout=60,
    )  # fmt: skip
    assert done.returncode == 2
    assert b"does not exist" in done.stderr
    assert b"Traceback" not in done.stderr


def test_without_a_drop_file_it_asks_for_a_login(tmp_path: Path) -> None:
    async def make_user() -> None:
        services = await build_services(load_config(data_dir=tmp_path), start_background=False)
        try:
            await services.accounts.register("alice", "secret1")
        finally:
            await services.close()

    asyncio.run(make_user())
    proc, master, slave = spawn_on_pty(["--data-dir", str(tmp_path)])
    before = termios.tcgetattr(slave)
    try:
        read_until(master, b"Name: ", 30)
        os.write(master, b"alice\r")
        read_until(master, b"Password: ", 10)
        os.write(master, b"secret1\r")
        out = read_until(master, b"Main Menu", 15)
        assert b"secret1" not in out
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=15) == 0
        assert termios.tcgetattr(slave) == before
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(master)
        os.close(slave)
