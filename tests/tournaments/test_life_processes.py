"""Exactly once across processes: two ``door serve`` processes on one PostgreSQL
database play a tournament of computer players; each round is made once (its tables
and games exist once, and no game outside them)."""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path

import pytest

from tests.tournaments.serverlib import create_bot_knockout, wait_for, write_config


@pytest.mark.slow
@pytest.mark.postgres
def test_two_servers_on_postgresql_advance_each_round_once(tmp_path: Path, pg_url: str) -> None:
    from loadlib import BenchDatabase, Server, door_check, free_port

    database = BenchDatabase(tmp_path, pg_url)
    asyncio.run(database.create())
    servers = []
    try:
        for name in ("a", "b"):
            data = tmp_path / name
            data.mkdir()
            config = write_config(data, database.url)
            server = Server(data, config, free_port(), free_port())
            server.start()
            asyncio.run(server.wait_serving())
            servers.append((server, data, config))
        _, data, config = servers[0]
        tid = create_bot_knockout(data, config, 8)
        shown = wait_for(data, config, tid, lambda s: s["status"] == "finished")
        assert shown["status"] == "finished", shown
        assert shown["winner"] in shown["entrants"]
        per_round = Counter(g["round"] for g in shown["games"])
        assert per_round == {1: 4, 2: 2, 3: 1}
        assert len({g["game"] for g in shown["games"]}) == 7
    finally:
        for server, _, _ in servers:
            server.stop()
    rc, text = door_check(servers[0][1], servers[0][2])
    asyncio.run(database.drop())
    assert rc == 0, text
    assert "7 game(s) checked" in text  # no game made twice, none outside the rounds
