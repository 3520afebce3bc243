"""How many backgammon moves per second the game service commits, on SQLite and (with
``--database-url``) on PostgreSQL.

Plays random backgammon money games through ``GameService.submit`` (each move one
transaction: load the game, run the rules, draw the dice, append the events, versioned
snapshot update, commit) on a fresh SQLite file in WAL mode with synchronous=NORMAL.
Choosing the random move (``legal_moves``) and the bench's own bookkeeping are not timed;
everything inside ``submit`` is. The games are begun (and joined) before a round starts,
so a round times moves only.

``--concurrency N`` (default 1) plays N games at once, each by its own coroutine, as a
server with many players has moves of different games in flight together: on PostgreSQL
one move's round trips overlap with the others' (each transaction is one pooled
connection, the pool's default 5 + 10 overflow); SQLite runs each transaction whole on the
event loop, so it gains little. The same N applies to both backends.

Beside it, in the same run, the plain ``sqlite3`` module writes exactly the rows each move
wrote, one transaction per move (BEGIN IMMEDIATE, the same ``games`` UPDATE, INSERT of the
same ``game_events`` rows, COMMIT), twice:

* into door's own schema (a migrated copy, same indexes and foreign keys) — the headline
  ``ratio_vs_sqlite``: what the service costs over the bare writes it has to make;
* into a bare two-table schema without secondary indexes — ``ratio_vs_bare_sqlite``.

``--database-url postgresql+asyncpg://…`` (a throwaway server: the bench creates a
database ``door_bench_…`` there and drops it at the end) also plays the same service
benchmark on PostgreSQL, with the hub a PostgreSQL server uses (``PgHub``: each move's
notices are one NOTIFY in its transaction); then ``moves_per_s`` is PostgreSQL's,
``moves_per_s_sqlite_door`` SQLite's, and ``ratio_vs_sqlite_door`` the first over the
second. The server's own settings count: with ``synchronous_commit = on`` (PostgreSQL's
default) every COMMIT waits for its WAL to reach the disk, which SQLite's
synchronous=NORMAL in WAL mode does not.

Rounds alternate service and raw runs so that a change in machine load hits both; the
best round of each is kept (as timeit does). ``_cpu`` figures count CPU time instead of
wall-clock time, which a busy machine distorts less. Targets: moves_per_s ≥ 500,
ratio_vs_sqlite ≤ 5; on PostgreSQL moves_per_s ≥ 1,000 and ratio_vs_sqlite_door ≥ 0.4.
The last line is one JSON object.

    python3 bench/commit_moves.py [--moves N] [--rounds R] [--seed S] [--concurrency N]
                                  [--database-url URL]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sqlite3
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from loadlib import BenchDatabase

from door.games.registry import build_registry
from door.services.accounts import Accounts
from door.services.clock import SystemClock
from door.services.games import GameService, GameSnapshot, SeatSpec, dump_state
from door.services.notify import LocalHub, PgHub
from door.store.db import Database


@dataclass
class Written:
    """What one move wrote: the games row's new values and the events appended."""

    game_id: int
    version_before: int
    update: tuple[Any, ...]  # snapshot, last_seq, summary, to_act, version
    first_seq: int
    last_seq: int


async def begin_game(games: GameService, players: tuple[int, int]) -> GameSnapshot:
    """A new money game between the two players, started (both seated)."""
    info = await games.begin(
        players[0],
        "backgammon",
        {"match_length": 0},
        [SeatSpec("me"), SeatSpec("user", "Bench B")],
    )
    await games.join(info.id, players[1])
    return await games.get(info.id)


async def play_random_moves(
    games: GameService,
    players: tuple[int, int],
    moves: int,
    rng: random.Random,
    concurrency: int = 1,
) -> tuple[int, float, float, list[Written]]:
    """Submit ``moves`` random legal moves, ``concurrency`` games at a time (the games
    begun beforehand; a game that ends is followed by the next).

    Returns (moves, wall seconds, CPU seconds, what each move wrote): the round's, less
    the time spent choosing moves and recording what they wrote (synchronous code, which
    holds up every coroutine alike).
    """
    rules = games.registry["backgammon"]
    # random money games end after a dozen moves or so: enough for the round, untimed
    ready = [await begin_game(games, players) for _ in range(moves // 4 + concurrency)]
    written: list[Written] = []
    started = 0
    untimed_wall = untimed_cpu = 0.0

    async def player() -> None:
        nonlocal started, untimed_wall, untimed_cpu
        snap: GameSnapshot | None = None
        while started < moves:
            if snap is None or snap.info.status != "active":
                snap = ready.pop() if ready else await begin_game(games, players)
            t0, c0 = time.perf_counter(), time.process_time()
            started += 1
            state = snap.state
            seat = snap.info.to_act
            assert seat is not None
            uid = snap.info.seats[seat].user_id
            assert uid is not None
            move = rng.choice(list(rules.legal_moves(state)))
            text = rules.format_move(state, move)
            before = snap.info
            untimed_wall += time.perf_counter() - t0
            untimed_cpu += time.process_time() - c0
            snap = await games.submit(before.id, uid, text, before.version)
            t0, c0 = time.perf_counter(), time.process_time()
            after = snap.info
            update = (
                dump_state(rules, snap.state),
                after.last_seq,
                after.summary,
                after.to_act,
                after.version,
            )
            written.append(
                Written(after.id, before.version, update, before.last_seq + 1, after.last_seq)
            )
            untimed_wall += time.perf_counter() - t0
            untimed_cpu += time.process_time() - c0

    t0, c0 = time.perf_counter(), time.process_time()
    await asyncio.gather(*(player() for _ in range(concurrency)))
    wall = time.perf_counter() - t0 - untimed_wall
    cpu = time.process_time() - c0 - untimed_cpu
    return len(written), wall, cpu, written


def event_rows(service_db: Path, written: list[Written]) -> list[list[tuple[Any, ...]]]:
    """The game_events rows each move wrote, exactly as stored."""
    conn = sqlite3.connect(service_db)
    out = []
    for w in written:
        out.append(
            conn.execute(
                "SELECT game_id, seq, seat, kind, payload, created_at FROM game_events "
                "WHERE game_id = ? AND seq BETWEEN ? AND ? ORDER BY seq",
                (w.game_id, w.first_seq, w.last_seq),
            ).fetchall()
        )
    conn.close()
    return out


def open_raw(path: Path, pragmas: bool = True) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("PRAGMA foreign_keys=ON")
    return conn


def copy_games(raw: sqlite3.Connection, service_db: Path, written: list[Written]) -> None:
    """Give the raw copy of door's schema the users and (pre-move) games rows it needs."""
    raw.execute("ATTACH DATABASE ? AS svc", (str(service_db),))
    raw.execute("BEGIN")
    raw.execute("INSERT OR IGNORE INTO users SELECT * FROM svc.users")
    for gid in sorted({w.game_id for w in written}):
        first = min(w.version_before for w in written if w.game_id == gid)
        raw.execute("INSERT OR IGNORE INTO games SELECT * FROM svc.games WHERE id = ?", (gid,))
        raw.execute("UPDATE games SET version = ? WHERE id = ?", (first, gid))
    raw.execute("COMMIT")
    raw.execute("DETACH DATABASE svc")


def raw_door_schema(
    raw: sqlite3.Connection, written: list[Written], rows: list[list[tuple[Any, ...]]]
) -> tuple[float, float]:
    """(wall, CPU) seconds for plain sqlite3 to make each move's writes in door's schema."""
    now = "2026-12-01 00:00:00.000000"
    t0, c0 = time.perf_counter(), time.process_time()
    for w, chunk in zip(written, rows, strict=True):
        snapshot, last_seq, summary, to_act, version = w.update
        raw.execute("BEGIN IMMEDIATE")
        raw.execute(
            "UPDATE games SET snapshot = ?, last_seq = ?, updated_at = ?, summary = ?, "
            "to_act = ?, deadline = ?, version = ? WHERE id = ? AND version = ?",
            (snapshot, last_seq, now, summary, to_act, now, version, w.game_id, w.version_before),
        )
        raw.executemany(
            "INSERT INTO game_events (game_id, seq, seat, kind, payload, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            chunk,
        )
        raw.execute("COMMIT")
    return time.perf_counter() - t0, time.process_time() - c0


def bare_database(path: Path) -> sqlite3.Connection:
    conn = open_raw(path)
    conn.execute(
        "CREATE TABLE events (game_id INTEGER, seq INTEGER, seat INTEGER, kind TEXT, "
        "payload TEXT, created_at TEXT, PRIMARY KEY (game_id, seq))"
    )
    conn.execute("CREATE TABLE games (id INTEGER PRIMARY KEY, snapshot TEXT, version INTEGER)")
    conn.execute("BEGIN")
    conn.executemany("INSERT INTO games VALUES (?, '', 0)", [(i,) for i in range(1, 100_000)])
    conn.execute("COMMIT")
    return conn


def raw_bare(
    raw: sqlite3.Connection, written: list[Written], rows: list[list[tuple[Any, ...]]]
) -> tuple[float, float]:
    """(wall, CPU) seconds for the same rows in a bare two-table schema."""
    t0, c0 = time.perf_counter(), time.process_time()
    for w, chunk in zip(written, rows, strict=True):
        raw.execute("BEGIN IMMEDIATE")
        raw.executemany("INSERT INTO events VALUES (?, ?, ?, ?, ?, ?)", chunk)
        raw.execute(
            "UPDATE games SET snapshot = ?, version = version + 1 WHERE id = ?",
            (w.update[0], w.game_id),
        )
        raw.execute("COMMIT")
    return time.perf_counter() - t0, time.process_time() - c0


class PgBench:
    """The service benchmark on a database of its own on a PostgreSQL server (made and
    dropped by loadlib's :class:`BenchDatabase`, as load.py's are)."""

    def __init__(self, server_url: str) -> None:
        self.scratch = BenchDatabase(Path(tempfile.gettempdir()), server_url)
        self.db: Database | None = None
        self.hub: PgHub | None = None

    async def start(self, seed: int) -> tuple[GameService, tuple[int, int]]:
        await self.scratch.create()
        self.db = db = Database(self.scratch.url)
        await db.upgrade()
        clock = SystemClock()
        accounts = Accounts(db, clock)
        a = await accounts.register("Bench A", "bench-pw")
        b = await accounts.register("Bench B", "bench-pw")
        self.hub = PgHub(db)
        await self.hub.start()
        return GameService(db, build_registry(), self.hub, clock, random.Random(seed)), (
            a.id,
            b.id,
        )

    async def close(self) -> None:
        if self.hub is not None:
            await self.hub.stop()
        if self.db is not None:
            await self.db.dispose()
        await self.scratch.drop()


async def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--moves", type=int, default=2000, help="moves per round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--concurrency", type=int, default=1, help="games played at once (both backends)"
    )
    parser.add_argument(
        "--database-url",
        help="also run on this PostgreSQL server (postgresql+asyncpg://…; a throwaway one)",
    )
    args = parser.parse_args()
    concurrency = max(1, args.concurrency)
    best: dict[str, float] = {}
    total_moves = total_rows = pg_moves = 0
    pg = PgBench(args.database_url) if args.database_url else None
    with tempfile.TemporaryDirectory(prefix="door-bench-") as tmp:
        folder = Path(tmp)
        service_path = folder / "door.sqlite3"
        raw_path = folder / "raw-door-schema.sqlite3"
        db = Database(f"sqlite+aiosqlite:///{service_path}")
        await db.upgrade()
        empty = Database(f"sqlite+aiosqlite:///{raw_path}")
        await empty.upgrade()
        await empty.dispose()
        clock = SystemClock()
        accounts = Accounts(db, clock)
        a = await accounts.register("Bench A", "bench-pw")
        b = await accounts.register("Bench B", "bench-pw")
        games = GameService(db, build_registry(), LocalHub(), clock, random.Random(args.seed))
        raw = open_raw(raw_path)
        bare = bare_database(folder / "raw-bare.sqlite3")
        rng = random.Random(args.seed)
        pg_rng = random.Random(args.seed)
        try:
            # warm up (imports, caches) before timing
            await play_random_moves(games, (a.id, b.id), 100, rng, concurrency)
            if pg is not None:
                pg_games, pg_players = await pg.start(args.seed)
                await play_random_moves(pg_games, pg_players, 100, pg_rng, concurrency)
            for r in range(args.rounds):
                moves, wall, cpu, written = await play_random_moves(
                    games, (a.id, b.id), args.moves, rng, concurrency
                )
                rows = event_rows(service_path, written)
                copy_games(raw, service_path, written)
                raw_wall, raw_cpu = raw_door_schema(raw, written, rows)
                bare_wall, bare_cpu = raw_bare(bare, written, rows)
                n_rows = sum(len(c) for c in rows)
                total_moves += moves
                total_rows += n_rows
                line = (
                    f"round {r + 1}: service {moves / wall:6.0f} moves/s "
                    f"(CPU {moves / cpu:6.0f}); "
                    f"sqlite3 door schema {moves / raw_wall:6.0f}/s "
                    f"(CPU {moves / raw_cpu:6.0f}); "
                    f"bare {moves / bare_wall:6.0f}/s (CPU {moves / bare_cpu:6.0f}); "
                    f"{n_rows} rows"
                )
                figures = [
                    ("service", moves / wall),
                    ("service_cpu", moves / cpu),
                    ("raw", moves / raw_wall),
                    ("raw_cpu", moves / raw_cpu),
                    ("bare", moves / bare_wall),
                    ("bare_cpu", moves / bare_cpu),
                ]
                if pg is not None:
                    n, pg_wall, pg_cpu, _ = await play_random_moves(
                        pg_games, pg_players, args.moves, pg_rng, concurrency
                    )
                    pg_moves += n
                    line += f"; PostgreSQL {n / pg_wall:6.0f} moves/s (CPU {n / pg_cpu:6.0f})"
                    figures += [("pg", n / pg_wall), ("pg_cpu", n / pg_cpu)]
                print(line, flush=True)
                for key, value in figures:
                    best[key] = max(best.get(key, 0.0), value)
        finally:
            raw.close()
            bare.close()
            await db.dispose()
            if pg is not None:
                await pg.close()
    ratio = best["raw"] / best["service"]
    print(f"concurrency: {concurrency} game(s) at once")
    print(f"service (best round): {best['service']:.0f} moves/s")
    print(f"sqlite3, same writes in door's schema (best round): {best['raw']:.0f} commits/s")
    print(f"sqlite3, same rows in a bare schema (best round): {best['bare']:.0f} commits/s")
    print(
        f"ratio sqlite3/service: {ratio:.2f} (door schema), "
        f"{best['bare'] / best['service']:.2f} (bare); CPU time: "
        f"{best['raw_cpu'] / best['service_cpu']:.2f}, {best['bare_cpu'] / best['service_cpu']:.2f}"
    )
    summary: dict[str, object] = {
        "moves": total_moves,
        "event_rows": total_rows,
        "moves_per_s": round(best["service"], 1),
        "sqlite_commits_per_s": round(best["raw"], 1),
        "ratio_vs_sqlite": round(ratio, 2),
        "bare_sqlite_commits_per_s": round(best["bare"], 1),
        "ratio_vs_bare_sqlite": round(best["bare"] / best["service"], 2),
        "moves_per_cpu_s": round(best["service_cpu"], 1),
        "ratio_vs_sqlite_cpu": round(best["raw_cpu"] / best["service_cpu"], 2),
        "concurrency": concurrency,
    }
    if pg is not None:
        pg_ratio = best["pg"] / best["service"]
        print(
            f"PostgreSQL (best round): {best['pg']:.0f} moves/s, "
            f"{pg_ratio:.2f} of SQLite door's"
        )
        summary.update(
            moves_per_s=round(best["pg"], 1),
            moves_per_s_sqlite_door=round(best["service"], 1),
            ratio_vs_sqlite_door=round(pg_ratio, 2),
            moves_per_cpu_s=round(best["pg_cpu"], 1),
            moves_per_cpu_s_sqlite_door=round(best["service_cpu"], 1),
            pg_moves=pg_moves,
        )
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    summary["load_average_1m"] = round(os.getloadavg()[0], 2)
    print(json.dumps(summary))


if __name__ == "__main__":
    asyncio.run(main())
