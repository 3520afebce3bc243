"""kill -9 in the middle of a tournament round: a 16-player knock-out of computer players
on ``door serve``; the server is killed while round 2 is being played and restarted; the
tournament still ends with every round made once and ``door check`` clean."""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path

import pytest

from tests.tournaments.serverlib import create_bot_knockout, wait_for, write_config


@pytest.mark.slow
def test_a_tournament_killed_mid_round_carries_on_and_checks_clean(tmp_path: Path) -> None:
    from loadlib import Server, door_check, free_port

    config = write_config(tmp_path)
    server = Server(tmp_path, config, free_port(), free_port())
    server.start()
    try:
        asyncio.run(server.wait_serving())
        tid = create_bot_knockout(tmp_path, config, 16)

        def mid_round_two(s: dict[str, object]) -> bool:
            games = s["games"]
            assert isinstance(games, list)
            return any(g["round"] == 2 and g["status"] == "finished" for g in games)

        shown = wait_for(tmp_path, config, tid, mid_round_two)
        assert mid_round_two(shown), shown
        server.kill()  # SIGKILL: no shutdown, in the middle of round 2
        server.start()
        asyncio.run(server.wait_serving())
        shown = wait_for(tmp_path, config, tid, lambda s: s["status"] == "finished")
        assert shown["status"] == "finished", shown
        assert Counter(g["round"] for g in shown["games"]) == {1: 8, 2: 4, 3: 2, 4: 1}
    finally:
        server.stop()
    rc, text = door_check(tmp_path, config)
    assert rc == 0, text
    assert "15 game(s) checked" in text
