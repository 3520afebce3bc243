"""What start-up's ``PRAGMA quick_check`` costs on a database of realistic size.

Builds (once, in ``--dir``) a database of ``--games`` finished backgammon games with their
whole event logs and ``--users`` players: a few dozen games are played to the end through
the game service (random legal moves), then their rows are copied in SQL until there are
enough. Then times :func:`door.store.health.check_sqlite_file` (what ``door serve`` runs
at start), and ``PRAGMA integrity_check`` for comparison, warm (the file in the page
cache, as on a restart) — a cold read adds the disk's time to read the file once.

    PYTHONPATH=. python3 bench/quick_check.py --games 10000

Prints one JSON object last.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sqlite3
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


async def play_games(path: Path, played: int, users: int, seed: int) -> None:
    from door.config import DatabaseConfig, load_config
    from door.services import accounts as accounts_module
    from door.services import build_services
    from door.services.games import SeatSpec

    accounts_module.SCRYPT_N = 2**8  # the hash's cost is not what is measured
    config = load_config(data_dir=path.parent)
    config = type(config)(
        data_dir=path.parent, database=DatabaseConfig(url=f"sqlite:///{path}")
    )
    services = await build_services(config, rng=random.Random(seed), start_background=False)
    rng = random.Random(seed)
    try:
        people = [await services.accounts.register(f"player{i}", "bench-pw-1")
                  for i in range(users)]  # fmt: skip
        games = services.games
        rules = games.registry["backgammon"]
        for _ in range(played):
            a, b = rng.sample(people, 2)
            info = await games.begin(
                a.id, "backgammon", {"match_length": 0}, [SeatSpec("me"), SeatSpec("user", b.name)]
            )
            await games.join(info.id, b.id)
            snap = await games.get(info.id)
            while snap.info.status == "active":
                seat = next(s for s in snap.info.seats if s.seat == snap.info.to_act)
                assert seat.user_id is not None
                # a random player who never offers the cube (random doubles and drops
                # would end most games in a few turns, far shorter than real ones)
                moves = [m for m in rules.legal_moves(snap.state)
                         if rules.format_move(snap.state, m) not in ("double", "drop")]  # fmt: skip
                move = rng.choice(moves or list(rules.legal_moves(snap.state)))
                snap = await games.submit(
                    info.id, seat.user_id, rules.format_move(snap.state, move), snap.info.version
                )
    finally:
        await services.close()


def copy_games(path: Path, total: int) -> None:
    """Copy the played games' rows (game, seats, events) until there are ``total``."""
    conn = sqlite3.connect(path)
    cols = [r[1] for r in conn.execute("PRAGMA table_info(games)") if r[1] != "id"]
    seat_cols = [r[1] for r in conn.execute("PRAGMA table_info(seats)") if r[1] != "game_id"]
    event_cols = [r[1] for r in conn.execute("PRAGMA table_info(game_events)")
                  if r[1] != "game_id"]  # fmt: skip
    originals = [r[0] for r in conn.execute("SELECT id FROM games ORDER BY id")]
    count = len(originals)
    with conn:
        while count < total:
            source = originals[count % len(originals)]
            new = conn.execute(
                f"INSERT INTO games ({', '.join(cols)}) SELECT {', '.join(cols)} "
                "FROM games WHERE id = ?", (source,),
            ).lastrowid  # fmt: skip
            conn.execute(
                f"INSERT INTO seats (game_id, {', '.join(seat_cols)}) "
                f"SELECT ?, {', '.join(seat_cols)} FROM seats WHERE game_id = ?", (new, source),
            )  # fmt: skip
            conn.execute(
                f"INSERT INTO game_events (game_id, {', '.join(event_cols)}) "
                f"SELECT ?, {', '.join(event_cols)} FROM game_events WHERE game_id = ?",
                (new, source),
            )
            count += 1
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()


def timed(work: object, repeat: int) -> float:
    """The best of ``repeat`` runs, in milliseconds."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        work()  # type: ignore[operator]
        best = min(best, time.perf_counter() - start)
    return best * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10000)
    parser.add_argument("--played", type=int, default=40, help="games played for real")
    parser.add_argument("--users", type=int, default=2000)
    parser.add_argument("--dir", default="/tmp/door-bench-quick-check")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    from door.store.health import check_sqlite_file

    folder = Path(args.dir)
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    path = folder / f"door-{args.games}.sqlite3"
    if not path.exists():
        asyncio.run(play_games(path, args.played, args.users, seed=14))
        copy_games(path, args.games)
    conn = sqlite3.connect(path)
    games = conn.execute("SELECT count(*) FROM games").fetchone()[0]
    events = conn.execute("SELECT count(*) FROM game_events").fetchone()[0]
    conn.close()

    def integrity() -> None:
        c = sqlite3.connect(path)
        assert c.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        c.close()

    result = {
        "games": games,
        "events": events,
        "file_mb": round(path.stat().st_size / 1e6, 1),
        "quick_check_ms": round(timed(lambda: check_sqlite_file(path), args.repeat), 1),
        "integrity_check_ms": round(timed(integrity, args.repeat), 1),
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
