"""Two ``door serve`` processes on one PostgreSQL database: W)ho on one lists the player
signed in on the other, and a page sent from W)ho crosses to that process and shows on
its player's status line; the answer (Ctrl-R) comes back. Real processes, real telnet
clients, screens read with pyte (the helpers of tests/e2e/test_pg_restart.py)."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.test_pg_restart import PASSWORDS, WAIT_S, Player, prepare, serve
from tests.pgcluster import start_cluster
from tests.store import dbutil

pytestmark = [pytest.mark.slow, pytest.mark.postgres]


@pytest.fixture(scope="module")
def two_doors(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, int]]:
    """alice's port (process A) and bob's (process B)."""
    cluster = start_cluster()
    if cluster is None:
        pytest.skip("no PostgreSQL binaries on this machine (apt-get install postgresql)")
    procs: list[tuple[subprocess.Popen[bytes], int, Path]] = []
    try:
        dbutil.run_blocking(lambda: prepare(cluster.url))
        tmp = tmp_path_factory.mktemp("two-doors-pages")
        procs = [serve(tmp, name, cluster.url) for name in ("A", "B")]
        end = time.monotonic() + WAIT_S
        for proc, _, log in procs:
            while "door: serving" not in log.read_text():
                if proc.poll() is not None or time.monotonic() > end:
                    raise AssertionError(f"door serve did not start:\n{log.read_text()}")
                time.sleep(0.05)
        yield {"alice": procs[0][1], "bob": procs[1][1]}
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


async def sign_in(player: Player, port: int) -> None:
    await player.connect(port)
    await player.wait_for("Name: ")
    player.send(player.name + "\r")
    await player.wait_for("Password: ")
    player.send(PASSWORDS[player.name] + "\r")
    await player.wait_for("Main Menu")


async def test_a_page_crosses_from_one_process_to_the_other_and_back(
    two_doors: dict[str, int],
) -> None:
    alice, bob = Player("alice"), Player("bob")
    try:
        await sign_in(bob, two_doors["bob"])  # on process B
        await sign_in(alice, two_doors["alice"])  # on process A
        alice.send("w")
        await alice.wait_for("2 online")  # bob is on the other process
        assert "in the main menu" in alice.text()
        rows = alice.text().split("\n")
        bob_row = next(r for r in rows if " bob " in r)
        assert "telnet" in bob_row
        # the list is by name: alice, then bob
        alice.send("\x1b[B")
        alice.send("p")
        await alice.wait_for("Page bob")
        menu = bob.text().split("\n")
        alice.send("across the wire\r")
        await alice.wait_for("Paged bob.")
        await bob.wait_for("Page from alice: across the wire — Ctrl-R replies")
        after = bob.text().split("\n")
        changed = [i for i, (x, y) in enumerate(zip(menu, after, strict=True)) if x != y]
        assert len(changed) == 1, "only the status line changed"
        bob.send("\x12")  # Ctrl-R
        await bob.wait_for("Page alice")
        bob.send("and back\r")
        await alice.wait_for("Page from bob: and back")
    finally:
        alice.close()
        bob.close()
