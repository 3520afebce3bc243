"""Two ``door serve`` processes on one PostgreSQL database: a chat line said on the game
screen of one process shows at once on the other player's game screen, on the other
process (PgHub carries the ``chat`` notice), and the answer comes back. Real processes,
real telnet clients, screens read with pyte (the helpers of tests/e2e/test_pg_restart.py)."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.test_pg_restart import WAIT_S, Player, prepare, serve
from tests.pgcluster import start_cluster
from tests.store import dbutil

pytestmark = [pytest.mark.slow, pytest.mark.postgres]


@pytest.fixture(scope="module")
def two_doors(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[int, dict[str, int]]]:
    """The game's id, and alice's port (process A) and bob's (process B)."""
    cluster = start_cluster()
    if cluster is None:
        pytest.skip("no PostgreSQL binaries on this machine (apt-get install postgresql)")
    procs: list[tuple[subprocess.Popen[bytes], int, Path]] = []
    try:
        made: list[int] = []

        async def make() -> None:
            made.append((await prepare(cluster.url))[0])

        dbutil.run_blocking(make)
        game_id = made[0]
        tmp = tmp_path_factory.mktemp("two-doors-chat")
        procs = [serve(tmp, name, cluster.url) for name in ("A", "B")]
        end = time.monotonic() + WAIT_S
        for proc, _, log in procs:
            while "door: serving" not in log.read_text():
                if proc.poll() is not None or time.monotonic() > end:
                    raise AssertionError(f"door serve did not start:\n{log.read_text()}")
                time.sleep(0.05)
        yield game_id, {"alice": procs[0][1], "bob": procs[1][1]}
    finally:
        for proc, _, _ in procs:
            proc.terminate()
        for proc, _, _ in procs:
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        cluster.stop()


async def test_a_chat_line_crosses_from_one_process_to_the_other_and_back(
    two_doors: tuple[int, dict[str, int]],
) -> None:
    game_id, ports = two_doors
    alice, bob = Player("alice"), Player("bob")
    try:
        await alice.open_game(ports["alice"], game_id)
        await bob.open_game(ports["bob"], game_id)
        alice.send("c")
        await alice.wait_for("Chat: ")
        alice.send("across the wire\r")
        await bob.wait_for("Chat alice: across the wire")
        bob.send("c")
        await bob.wait_for("Chat: ")
        bob.send("and back\r")
        await alice.wait_for("Chat bob: and back")
    finally:
        alice.close()
        bob.close()
