"""Helpers for the tests that run real ``door serve`` processes with a tournament."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT / "bench") not in sys.path:
    sys.path.insert(0, str(ROOT / "bench"))


def door(data: Path, config: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run ``door ARGS --config … --data-dir …``."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run(
        [sys.executable, "-m", "door", *args, "--config", str(config), "--data-dir", str(data)],
        capture_output=True, text=True, env=env, timeout=120, cwd=data,
    )  # fmt: skip


def write_config(data: Path, database_url: str = "") -> Path:
    config = data / "door.toml"
    db = f'[database]\nurl = "{database_url}"\n' if database_url else ""
    config.write_text(db + "[tournaments]\nsweep_interval_s = 0.5\n[bots]\nclaim_s = 4\n")
    return config


def create_bot_knockout(data: Path, config: Path, size: int, level: str = "bg-beginner") -> str:
    made = door(
        data, config, "tournament", "create", "--name", "Bot cup", "--game", "backgammon",
        "--format", "knockout", "--size", str(size), "--match-length", "1",
        "--fill-with-bots", level,
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    tid = made.stdout.strip()
    assert tid.isdigit(), made.stdout
    return tid


def show(data: Path, config: Path, tid: str) -> dict[str, Any]:
    out = door(data, config, "tournament", "show", tid, "--json")
    assert out.returncode == 0, out.stderr
    shown: dict[str, Any] = json.loads(out.stdout)
    return shown


def wait_for(
    data: Path, config: Path, tid: str, done: Any, timeout: float = 240.0
) -> dict[str, Any]:
    """Poll ``door tournament show`` until ``done(shown)``; the last one shown."""
    end = time.monotonic() + timeout
    shown = show(data, config, tid)
    while not done(shown) and time.monotonic() < end:
        time.sleep(0.5)
        shown = show(data, config, tid)
    return shown
