"""How many backgammon moves per second the game service commits on SQLite.

Plays random backgammon money games through ``GameService.submit`` (each move one
transaction: load, rules, append events, versioned snapshot update, commit) on a fresh
SQLite file in WAL mode with synchronous=NORMAL, then inserts the same event rows and
updates a snapshot row with the plain ``sqlite3`` module, one transaction per move, for
comparison. Choosing the random move (``legal_moves``) is not timed; everything inside
``submit`` is. Rounds alternate the two and the best of each is kept. The last line is
one JSON object::

    {"moves_per_s": …, "sqlite_commits_per_s": …, "ratio_vs_sqlite": …, …}

``ratio_vs_sqlite`` is sqlite3 commits per second divided by service moves per second
(targets: moves_per_s ≥ 500, ratio ≤ 5); the ``_cpu`` figures count CPU time instead of
wall-clock time, which a busy machine distorts less.

    python3 bench/commit_moves.py [--moves N] [--rounds R] [--seed S]
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
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from door.games.registry import build_registry
from door.services.accounts import Accounts
from door.services.clock import SystemClock
from door.services.games import GameService, GameSnapshot, SeatSpec
from door.services.notify import LocalHub
from door.store.db import Database


async def play_random_moves(
    games: GameService, players: tuple[int, int], moves: int, rng: random.Random
) -> tuple[int, float, float, list[list[tuple[int, int, Any, str, str]]]]:
    """Submit ``moves`` random legal moves (starting new games as needed).

    Returns (moves, wall seconds in submit, CPU seconds in submit, the event rows each
    move wrote — for the raw run).
    """
    rules = games.registry["backgammon"]
    done = 0
    wall = cpu = 0.0
    rows: list[list[tuple[int, int, Any, str, str]]] = []
    snap: GameSnapshot | None = None
    while done < moves:
        if snap is None or snap.info.status != "active":
            info = await games.begin(
                players[0],
                "backgammon",
                {"match_length": 0},
                [SeatSpec("me"), SeatSpec("user", "Bench B")],
            )
            await games.join(info.id, players[1])
            snap = await games.get(info.id)
        state = snap.state
        seat = snap.info.to_act
        assert seat is not None
        uid = snap.info.seats[seat].user_id
        assert uid is not None
        move = rng.choice(list(rules.legal_moves(state)))
        text = rules.format_move(state, move)
        before = snap.info.last_seq
        t0, c0 = time.perf_counter(), time.process_time()
        snap = await games.submit(snap.info.id, uid, text, snap.info.version)
        wall += time.perf_counter() - t0
        cpu += time.process_time() - c0
        done += 1
        payload = json.dumps({"move": text})
        rows.append(
            [
                (snap.info.id, seq, seat, "move", payload)
                for seq in range(before + 1, snap.info.last_seq + 1)
            ]
        )
    return done, wall, cpu, rows


def raw_sqlite(
    rows: list[list[tuple[int, int, Any, str, str]]], conn: sqlite3.Connection
) -> tuple[float, float]:
    """(wall, CPU) seconds to insert the same event rows and update a snapshot row, one
    transaction per move, with the plain sqlite3 module."""
    t0, c0 = time.perf_counter(), time.process_time()
    for chunk in rows:
        conn.execute("BEGIN IMMEDIATE")
        conn.executemany("INSERT INTO events VALUES (?, ?, ?, ?, ?, datetime('now'))", chunk)
        conn.execute(
            "UPDATE games SET snapshot = ?, version = version + 1 WHERE id = ?",
            ("4HPwATDgc/ABMA:cAkAAAAAAAAA", chunk[0][0]),
        )
        conn.execute("COMMIT")
    return time.perf_counter() - t0, time.process_time() - c0


def raw_database(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute(
        "CREATE TABLE events (game_id INTEGER, seq INTEGER, seat INTEGER, kind TEXT, "
        "payload TEXT, created_at TEXT, PRIMARY KEY (game_id, seq))"
    )
    conn.execute("CREATE TABLE games (id INTEGER PRIMARY KEY, snapshot TEXT, version INTEGER)")
    conn.execute("BEGIN")
    conn.executemany("INSERT INTO games VALUES (?, '', 0)", [(i,) for i in range(1, 100_000)])
    conn.execute("COMMIT")
    return conn


async def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--moves", type=int, default=2000, help="moves per round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    best: dict[str, float] = {}
    total_moves = total_rows = 0
    with tempfile.TemporaryDirectory(prefix="door-bench-") as tmp:
        folder = Path(tmp)
        db = Database(f"sqlite+aiosqlite:///{folder / 'door.sqlite3'}")
        await db.upgrade()
        clock = SystemClock()
        accounts = Accounts(db, clock)
        a = await accounts.register("Bench A", "bench-pw")
        b = await accounts.register("Bench B", "bench-pw")
        games = GameService(db, build_registry(), LocalHub(), clock, random.Random(args.seed))
        raw = raw_database(folder / "raw.sqlite3")
        rng = random.Random(args.seed)
        # warm up (imports, caches, the pool) before timing
        _, _, _, warm = await play_random_moves(games, (a.id, b.id), 100, rng)
        raw_sqlite(warm, raw)
        # Rounds alternate service and raw runs so that a change in machine load hits
        # both; the best round of each is reported (as timeit does).
        for r in range(args.rounds):
            moves, wall, cpu, rows = await play_random_moves(games, (a.id, b.id), args.moves, rng)
            raw_wall, raw_cpu = raw_sqlite(rows, raw)
            n_rows = sum(len(c) for c in rows)
            total_moves += moves
            total_rows += n_rows
            print(
                f"round {r + 1}: service {moves / wall:7.0f} moves/s (CPU {moves / cpu:7.0f}); "
                f"sqlite3 {moves / raw_wall:7.0f} commits/s (CPU {moves / raw_cpu:7.0f}) "
                f"for {n_rows} rows"
            )
            for key, value in (
                ("service", moves / wall),
                ("service_cpu", moves / cpu),
                ("raw", moves / raw_wall),
                ("raw_cpu", moves / raw_cpu),
            ):
                best[key] = max(best.get(key, 0.0), value)
        raw.close()
        await db.dispose()
    ratio = best["raw"] / best["service"]
    ratio_cpu = best["raw_cpu"] / best["service_cpu"]
    print(f"service (best round): {best['service']:.0f} moves/s")
    print(f"sqlite3 (best round): {best['raw']:.0f} commits/s of the same rows")
    print(f"ratio sqlite3/service: {ratio:.2f} wall-clock, {ratio_cpu:.2f} CPU time")
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(
        json.dumps(
            {
                "moves": total_moves,
                "event_rows": total_rows,
                "moves_per_s": round(best["service"], 1),
                "sqlite_commits_per_s": round(best["raw"], 1),
                "ratio_vs_sqlite": round(ratio, 2),
                "moves_per_cpu_s": round(best["service_cpu"], 1),
                "ratio_vs_sqlite_cpu": round(ratio_cpu, 2),
                "load_average_1m": round(os.getloadavg()[0], 2),
            }
        )
    )


if __name__ == "__main__":
    asyncio.run(main())
