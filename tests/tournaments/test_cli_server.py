"""``door tournament create`` against a running ``door serve``: an 8-player knock-out of
computer players over 1-point matches plays itself out, and ``door tournament show ID
--json`` then names the winner."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

from loadlib import Server, door_check, free_port  # noqa: E402


def door(data: Path, config: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run(
        [sys.executable, "-m", "door", *args, "--config", str(config), "--data-dir", str(data)],
        capture_output=True, text=True, env=env, timeout=120, cwd=data,
    )  # fmt: skip


def write_config(data: Path) -> Path:
    config = data / "door.toml"
    config.write_text("[tournaments]\nsweep_interval_s = 0.5\n[bots]\nclaim_s = 5\n")
    return config


@pytest.mark.slow
def test_a_knockout_of_computer_players_finishes_on_its_own_and_names_its_winner(
    tmp_path: Path,
) -> None:
    config = write_config(tmp_path)
    server = Server(tmp_path, config, free_port(), free_port())
    server.start()
    try:
        asyncio.run(server.wait_serving())
        made = door(
            tmp_path, config, "tournament", "create", "--name", "Bot cup", "--game",
            "backgammon", "--format", "knockout", "--size", "8", "--match-length", "1",
            "--fill-with-bots", "bg-beginner",
        )  # fmt: skip
        assert made.returncode == 0, made.stderr
        tid = made.stdout.strip()
        assert tid.isdigit()
        shown: dict[str, object] = {}
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:
            out = door(tmp_path, config, "tournament", "show", tid, "--json")
            assert out.returncode == 0, out.stderr
            shown = json.loads(out.stdout)
            if shown["status"] == "finished":
                break
            time.sleep(1.0)
        assert shown["status"] == "finished", shown
        assert isinstance(shown["winner"], str)
        assert shown["winner"].startswith("bg-beginner")
        assert shown["winner"] in shown["entrants"]  # type: ignore[operator]
        assert shown["rounds"] == 3
    finally:
        server.stop()
    rc, text = door_check(tmp_path, config)
    assert rc == 0, text


def test_create_refuses_an_unknown_bot_level_with_a_clear_message(tmp_path: Path) -> None:
    config = write_config(tmp_path)
    out = door(
        tmp_path, config, "tournament", "create", "--name", "X", "--game", "backgammon",
        "--format", "knockout", "--size", "4", "--fill-with-bots", "nobody",
    )  # fmt: skip
    assert out.returncode == 1
    assert "there is no computer player called 'nobody'" in out.stderr
