"""Notices outside door under load: players with a push URL, moves written in their own
transactions (each enqueues "your turn" to the opponent through the Outbox, as the game
service does), a Sender delivering to a real aiohttp server on 127.0.0.1 meanwhile.

Prints the figures, then one JSON line: ``notices_per_s`` (deliveries a second while the
sender keeps up), ``outbox_lag_p99_s`` (a notice's write to its POST arriving, 99th
percentile), ``duplicates`` (notices POSTed more than once; target 0). The games are not
played through the rules (that is bench/commit_moves.py's job): each "move" is one
transaction that writes its notice, which is what the outbox sees.

    python3 bench/notices.py --players 5000 --games 20000 --moves 40000
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import tempfile
import time
from collections import Counter
from pathlib import Path

from aiohttp import web

from door.config import MailConfig, NoticesConfig, PushConfig
from door.services.clock import SystemClock
from door.services.outbox import Outbox
from door.services.sender import Sender
from door.store.db import Database
from door.store.repository import Repository


async def run(players: int, games: int, moves: int, url: str) -> dict[str, float | int]:
    got: Counter[str] = Counter()
    arrived: dict[str, float] = {}

    async def take(request: web.Request) -> web.Response:
        key = request.headers.get("Title", "")
        got[key] += 1
        arrived.setdefault(key, time.monotonic())
        return web.Response(text="ok")

    app = web.Application()
    app.router.add_post("/{topic}", take)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]

    db = Database(url)
    await db.upgrade()
    clock = SystemClock()
    outbox = Outbox(db, clock, push_schemes=("http",), push_enabled=True)
    now = clock.now()

    def add_players(repo: Repository) -> list[int]:
        ids = []
        for i in range(players):
            ids.append(repo.insert_user(f"p{i}", f"p{i}", None, False, now, {}))
        return ids

    t0 = time.monotonic()
    ids = await db.transact(add_players)
    for uid in ids:
        await outbox.set_push(uid, f"http://127.0.0.1:{port}/u{uid}")
    print(f"{players} players with push URLs in {time.monotonic() - t0:.1f} s")

    sender = Sender(
        db, clock, MailConfig(), PushConfig(enabled=True, allowed_schemes=("http",),
                                            allow_private=True),
        NoticesConfig(poll_interval_s=0.05),
    )  # fmt: skip
    sender.batch = 200
    sender.start()
    written: dict[str, float] = {}
    t1 = time.monotonic()
    for m in range(moves):
        game = m % games + 1
        uid = ids[(game * 7 + m) % players]
        title = f"g{game} m{m}"

        def move(repo: Repository, uid: int = uid, game: int = game, title: str = title) -> int:
            return outbox.enqueue(repo, uid, game, "your_turn", title, "your turn")

        if await db.transact(move):
            written[title] = time.monotonic()
        sender.wake()
    t_written = time.monotonic() - t1
    while len(arrived) < len(written) and time.monotonic() - t1 < t_written + 120:
        await asyncio.sleep(0.05)
    elapsed = time.monotonic() - t1
    await sender.stop()
    await db.dispose()
    await runner.cleanup()
    lags = sorted(arrived[k] - written[k] for k in written if k in arrived)
    p99 = lags[int(len(lags) * 0.99) - 1] if lags else float("nan")
    return {
        "moves": moves, "written": len(written), "delivered": len(arrived),
        "write_s": round(t_written, 2), "elapsed_s": round(elapsed, 2),
        "notices_per_s": round(len(arrived) / elapsed, 1),
        "outbox_lag_p99_s": round(p99, 3),
        "duplicates": sum(n - 1 for n in got.values() if n > 1),
    }  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=500)
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--moves", type=int, default=2000)
    parser.add_argument("--url", default="", help="a database URL (default: a new SQLite file)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        url = args.url or f"sqlite+aiosqlite:///{Path(tmp) / 'bench.sqlite3'}"
        result = asyncio.run(run(args.players, args.games, args.moves, url))
    load = os.getloadavg()
    for k, v in result.items():
        print(f"{k:>18}: {v}")
    print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    print(json.dumps({**result, "load_avg_1m": round(load[0], 2)}))


if __name__ == "__main__":
    main()
