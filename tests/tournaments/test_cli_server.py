"""``door tournament create`` against a running ``door serve``: an 8-player knock-out of
computer players over 1-point matches plays itself out, and ``door tournament show ID
--json`` then names the winner."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.tournaments.serverlib import create_bot_knockout, door, wait_for, write_config


@pytest.mark.slow
def test_a_knockout_of_computer_players_finishes_on_its_own_and_names_its_winner(
    tmp_path: Path,
) -> None:
    from loadlib import Server, door_check, free_port

    config = write_config(tmp_path)
    server = Server(tmp_path, config, free_port(), free_port())
    server.start()
    try:
        asyncio.run(server.wait_serving())
        tid = create_bot_knockout(tmp_path, config, 8)
        shown = wait_for(tmp_path, config, tid, lambda s: s["status"] == "finished")
        assert shown["status"] == "finished", shown
        assert isinstance(shown["winner"], str)
        assert shown["winner"].startswith("bg-beginner")
        assert shown["winner"] in shown["entrants"]
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


def test_list_and_cancel_from_the_command_line(tmp_path: Path) -> None:
    config = write_config(tmp_path)
    made = door(
        tmp_path, config, "tournament", "create", "--name", "Spring cup", "--game",
        "spectrangle", "--format", "roundrobin", "--size", "9", "--table-size", "3",
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    tid = made.stdout.strip()
    listed = door(tmp_path, config, "tournament", "list")
    assert "Spring cup" in listed.stdout and "open" in listed.stdout
    assert door(tmp_path, config, "tournament", "cancel", tid).returncode == 0
    shown = door(tmp_path, config, "tournament", "show", tid, "--json")
    assert '"status": "cancelled"' in shown.stdout
