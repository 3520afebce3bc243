"""Two ``door serve`` processes on one PostgreSQL database keep their screens live through
a restart of PostgreSQL and through their listening connections being killed.

Real processes (``python3 -m door serve``, each with its own data dir and telnet port, on
a PostgreSQL cluster of this module's own, tests/pgcluster.py), real telnet connections
(bench/loadlib.py's client), screens read with pyte: one player on process A, the other
on process B, both on their game's screen. After the database comes back, the player to
act moves and the other process's screen must show the move within a second of the key
that sent it. While PostgreSQL is away both sessions say so on their status line, and
then that it is back.

Why real subprocesses rather than two ``App`` instances in one test process: the point is
that two processes share nothing but the database; two ``door serve`` start in about a
second together, so the real thing costs little.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import os
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pyte
import pytest
from sqlalchemy import text

from door.games.registry import build_registry
from door.services.accounts import Accounts
from door.services.clock import SystemClock
from door.services.games import GameService, SeatSpec
from door.services.notify import LocalHub
from door.services.outage import BACK_MESSAGE, LOST_MESSAGE
from door.store.db import Database
from door.store.pgnotify import APPLICATION_NAME
from tests.pgcluster import Cluster, start_cluster
from tests.services.test_pg_reconnect import restart
from tests.store import dbutil

REPO = Path(__file__).resolve().parents[2]
BENCH = REPO / "bench"
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

from loadlib import TelnetProtocol, free_port  # noqa: E402

pytestmark = pytest.mark.slow

PASSWORDS = {"alice": "alice-pass-7913", "bob": "bob-pass-2468"}
WITHIN_S = 1.0
"""How soon after the mover's key the other process's screen must show the move."""
WAIT_S = 20.0


# --- PostgreSQL and the two servers ------------------------------------------------------


@dataclass
class World:
    cluster: Cluster
    url: str
    game_id: int
    ports: dict[str, int]  # player name -> telnet port of the process they use
    user_ids: dict[str, int]


def pg_ctl(cluster: Cluster, *args: str) -> None:
    assert cluster.bindir is not None and cluster.tmp is not None
    subprocess.run(
        [*cluster.prefix, f"{cluster.bindir}/pg_ctl", "-D", f"{cluster.tmp}/data",
         "-l", f"{cluster.tmp}/log", "-w", *args],
        check=True, capture_output=True,
    )  # fmt: skip


def stop_postgres(cluster: Cluster) -> None:
    pg_ctl(cluster, "-m", "fast", "stop")


def start_postgres(cluster: Cluster) -> None:
    # the options tests/pgcluster.py started it with (a Unix socket in its folder only)
    opts = f"-k {cluster.tmp} -c listen_addresses='' -c max_connections=300 -c fsync=off"
    pg_ctl(cluster, "-o", opts, "start")


async def prepare(url: str) -> tuple[int, dict[str, int]]:
    """The schema, alice and bob, and a backgammon game between them: its id, and
    theirs."""
    db = Database(url)
    try:
        await db.upgrade()
        accounts = Accounts(db, SystemClock())
        users = [await accounts.register(name, pw) for name, pw in PASSWORDS.items()]
        games = GameService(db, build_registry(), LocalHub(), SystemClock())
        info = await games.begin(
            users[0].id, "backgammon", {"match_length": 0},
            [SeatSpec("me"), SeatSpec("user", "bob")],
        )  # fmt: skip
        await games.join(info.id, users[1].id)
        return info.id, {u.name: u.id for u in users}
    finally:
        await db.dispose()


def serve(tmp: Path, name: str, url: str) -> tuple[subprocess.Popen[bytes], int, Path]:
    port = free_port()
    data = tmp / name
    data.mkdir()
    config = data / "door.toml"
    config.write_text(
        "[server]\n"
        f'host = "127.0.0.1"\ntelnet_port = {port}\nssh_port = 0\nrlogin_port = 0\n'
        "tune_runtime = false\n"
        f'[database]\nurl = "{url}"\nauto_upgrade = false\n'
        "[limits]\nlogin_delay_s = 0.01\nnegotiation_wait_s = 0.3\nprobe_timeout_s = 0.3\n"
        "[games]\nbots = false\n"
    )
    log = data / "serve.log"
    with log.open("w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "door", "serve", "--data-dir", str(data),
             "--config", str(config)],
            cwd=data, env=dict(os.environ, PYTHONPATH=str(REPO)),
            stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip
    return proc, port, log


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    cluster = start_cluster()
    if cluster is None:
        pytest.skip("no PostgreSQL binaries on this machine (apt-get install postgresql)")
    if cluster.bindir is None:
        cluster.stop()
        pytest.skip("DOOR_TEST_PG_URL names a server these tests cannot restart")
    procs: list[tuple[subprocess.Popen[bytes], int, Path]] = []
    try:
        game: list[tuple[int, dict[str, int]]] = []

        async def setup() -> None:
            game.append(await prepare(cluster.url))

        dbutil.run_blocking(setup)
        tmp = tmp_path_factory.mktemp("two-doors")
        procs = [serve(tmp, name, cluster.url) for name in ("A", "B")]
        end = time.monotonic() + WAIT_S
        for proc, _, log in procs:
            while "door: serving" not in log.read_text():
                if proc.poll() is not None or time.monotonic() > end:
                    raise AssertionError(f"door serve did not start:\n{log.read_text()}")
                time.sleep(0.05)
        game_id, user_ids = game[0]
        ports = {"alice": procs[0][1], "bob": procs[1][1]}  # alice on A, bob on B
        yield World(cluster, cluster.url, game_id, ports, user_ids)
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


# --- a player at a telnet terminal -------------------------------------------------------


class Player:
    """One person on a telnet connection: what their 80×24 screen shows (pyte)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.screen = pyte.Screen(80, 24)
        self.stream = pyte.Stream(self.screen)
        self.decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self.changed = asyncio.Event()
        self.proto: TelnetProtocol | None = None

    async def connect(self, port: int) -> None:
        loop = asyncio.get_running_loop()
        _, self.proto = await loop.create_connection(
            lambda: TelnetProtocol(self._data, self.changed.set), "127.0.0.1", port
        )

    def _data(self, data: bytes) -> None:
        self.stream.feed(self.decoder.decode(data))
        self.changed.set()

    def send(self, keys: str) -> None:
        assert self.proto is not None
        self.proto.send(keys.encode())

    def text(self) -> str:
        return "\n".join(self.screen.display)

    def status(self) -> str:
        """The status line: the row above the key help (the cyan rows at the bottom)."""
        y = self.screen.lines - 1
        while y > 0 and self.screen.buffer[y - 1][1].bg == "cyan":
            y -= 1
        return str(self.screen.display[y - 1]).strip()

    async def until(self, ok: Callable[[], bool], what: str, timeout: float = WAIT_S) -> float:
        """Wait until ``ok()``; the moment it became true (``time.monotonic``)."""
        end = time.monotonic() + timeout
        while not ok():
            left = end - time.monotonic()
            if left <= 0:
                raise AssertionError(f"{self.name}: {what} never shown; the screen:\n{self.text()}")
            self.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), min(left, 0.5))
        return time.monotonic()

    async def wait_for(self, needle: str, timeout: float = WAIT_S) -> float:
        return await self.until(lambda: needle in self.text(), repr(needle), timeout)

    async def wait_status(self, line: str, timeout: float = WAIT_S) -> float:
        return await self.until(lambda: self.status() == line, f"status {line!r}", timeout)

    async def open_game(self, port: int, game_id: int) -> None:
        """Connect, sign in, and open the game from M)ine."""
        await self.connect(port)
        await self.wait_for("Name: ")
        self.send(self.name + "\r")
        await self.wait_for("Password: ")
        self.send(PASSWORDS[self.name] + "\r")
        await self.wait_for("Main Menu")
        self.send("v")
        await self.wait_for("Games:")
        self.send("m")
        await self.until(lambda: "Mine" in str(self.screen.display[0]), "the M)ine list")
        self.send("\r")
        await self.wait_for(f"Backgammon #{game_id}")

    def close(self) -> None:
        if self.proto is not None and self.proto.transport is not None:
            self.proto.transport.close()


@dataclass
class Table:
    """Both players on the game screen, each on their own process."""

    world: World
    db: Database
    games: GameService
    players: dict[str, Player]

    async def roles(self) -> tuple[Player, Player]:
        """(the player to act, the other)."""
        snap = await self.games.get(self.world.game_id)
        seat = next(s for s in snap.info.seats if s.seat == snap.info.to_act)
        mover = "alice" if seat.user_id == self.world.user_ids["alice"] else "bob"
        other = "bob" if mover == "alice" else "alice"
        return self.players[mover], self.players[other]

    async def a_move(self) -> str:
        """What the player to act types: roll when they may, else a legal play."""
        snap = await self.games.get(self.world.game_id)
        rules = self.games.rules_for("backgammon")
        texts = [rules.format_move(snap.state, m) for m in rules.legal_moves(snap.state)]
        return "roll" if "roll" in texts else texts[0]

    async def move_is_seen_across(self) -> float:
        """The player to act moves; seconds until the other process's screen shows it."""
        mover, watcher = await self.roles()
        await mover.wait_for("It is your turn.")
        move = await self.a_move()
        mover.send(":" + move)
        await mover.wait_for(f"Play: {move}")
        assert not watcher.status().startswith("Meanwhile")
        sent = time.monotonic()
        mover.send("\r")
        seen = await watcher.until(
            lambda: watcher.status().startswith(f"Meanwhile {mover.name}: "),
            f"{mover.name}'s move",
        )
        return seen - sent


@pytest.fixture
async def table(world: World) -> AsyncIterator[Table]:
    db = Database(world.url)
    games = GameService(db, build_registry(), LocalHub(), SystemClock())
    players = {name: Player(name) for name in PASSWORDS}
    try:
        await asyncio.gather(
            *(p.open_game(world.ports[name], world.game_id) for name, p in players.items())
        )
        yield Table(world, db, games, players)
    finally:
        for p in players.values():
            p.close()
        await db.dispose()


async def listening_pids(db: Database) -> set[int]:
    async with db.engine.connect() as conn:
        rows = await conn.execute(
            text("SELECT pid FROM pg_stat_activity WHERE application_name = :name"),
            {"name": APPLICATION_NAME},
        )
        return {int(r[0]) for r in rows}


async def listening_again(db: Database, count: int, old: set[int]) -> None:
    """Every process listens again: ``count`` listening connections, none of ``old``."""
    end = time.monotonic() + WAIT_S
    while True:
        try:
            pids = await listening_pids(db)
        except Exception:  # the server is still starting
            pids = set()
        if len(pids) == count and not pids & old:
            return
        assert time.monotonic() < end, f"listening: {pids}, before: {old}"
        await asyncio.sleep(0.05)


# --- the tests ---------------------------------------------------------------------------


async def test_while_postgresql_is_down_both_processes_sessions_say_so_and_then_that_it_is_back(
    table: Table,
) -> None:
    await asyncio.to_thread(stop_postgres, table.world.cluster)
    try:
        for p in table.players.values():
            await p.wait_status(LOST_MESSAGE)
            assert "Backgammon #" in str(p.screen.display[0])  # the game screen, whole
    finally:
        await asyncio.to_thread(start_postgres, table.world.cluster)
    for p in table.players.values():
        await p.wait_status(BACK_MESSAGE)
    assert await table.move_is_seen_across() < WITHIN_S


async def test_after_postgresql_restarts_the_other_process_shows_the_next_move_within_a_second(
    table: Table,
) -> None:
    before = await listening_pids(table.db)
    await asyncio.to_thread(restart, table.world.cluster)
    await listening_again(table.db, len(before), before)
    assert await table.move_is_seen_across() < WITHIN_S


async def test_after_its_listeners_are_killed_the_other_process_shows_the_next_move_within_a_second(
    table: Table,
) -> None:
    before = await listening_pids(table.db)
    async with table.db.engine.connect() as conn:
        killed = await conn.execute(
            text(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE application_name = :name"
            ),
            {"name": APPLICATION_NAME},
        )
        assert len(killed.all()) == len(before) >= 2  # at least one per process
    await listening_again(table.db, len(before), before)
    assert await table.move_is_seen_across() < WITHIN_S
