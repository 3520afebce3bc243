"""Crash: kill -9 the server under load, restart it, and check nothing acknowledged was lost.

Players (telnet and SSH, the same simulated players as bench/load.py, playing backgammon by
turns) play against ``door serve`` for ``--seconds``; then the server is killed with
SIGKILL in the middle of their typing. It is started again on the same data directory and
ports, and the run checks:

* ``restart_s``: from starting the new process to its telnet port greeting a connection
  (target: 2 s);
* ``lost_moves``: every move a player saw acknowledged on screen before the kill is in the
  database (target: 0);
* ``door check``: every game's log replays to its snapshot;
* resuming: every player logs in again, reaches its own game's screen, and play goes on
  (``resumed``, ``moves_after_restart``), with nothing lost after that either.

    python3 bench/crash.py [--telnet 200] [--ssh 20] [--seconds 20]
        [--database-url postgresql+asyncpg://user@host/postgres] [--workers 2]

With ``--database-url`` the run makes its own database on that PostgreSQL server (dropped
after); with ``--workers N`` the server is ``door serve --workers N`` and the kill takes
the supervisor and every worker at once (as a crash of the machine would).

The last line is one JSON object. tests/crash/test_crash.py runs a small version.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from loadlib import (
    BenchDatabase,
    GameReader,
    Player,
    Server,
    count_lost,
    door_check,
    free_port,
    pct,
    prepare,
    write_config,
)


async def start_players(
    names: list[str], server: Server, games: dict[str, tuple[int, int]], reader: GameReader,
    rng: random.Random, gap: tuple[float, float], rate: float,
) -> list[Player]:
    """Log ``names`` in (``rate`` a second); the players that made it."""
    players = [
        Player(
            n, "telnet" if n.startswith("tel") else "ssh", "127.0.0.1",
            server.telnet_port if n.startswith("tel") else server.ssh_port,
            games.get(n), reader, random.Random(rng.random()), gap,
        )
        for n in names
    ]  # fmt: skip
    tasks = []
    for p in players:
        tasks.append(asyncio.create_task(p.login()))
        if rate > 0:
            await asyncio.sleep(1.0 / rate)
    await asyncio.gather(*tasks)
    return players


async def crash_run(
    *,
    telnet: int = 30,
    ssh: int = 4,
    seconds: float = 5.0,
    resume_seconds: float = 4.0,
    gap: tuple[float, float] = (0.15, 0.5),
    rate: float = 40.0,
    seed: int = 9,
    data_dir: Path | None = None,
    database_url: str = "",
    workers: int = 1,
) -> dict[str, Any]:
    """The whole crash scenario; a dict of figures and verdicts (see the module doc).
    ``database_url``: a PostgreSQL server to make the run's database on (else SQLite)."""
    rng = random.Random(seed)
    names = [f"tel{i:04d}" for i in range(telnet)] + [f"ssh{i:04d}" for i in range(ssh)]
    with tempfile.TemporaryDirectory(prefix="door-crash-") as tmp:
        data = data_dir or Path(tmp)
        database = BenchDatabase(data, database_url)
        await database.create()
        try:
            result = await _crash(
                data, database, names, rng, telnet=telnet, ssh=ssh, seconds=seconds,
                resume_seconds=resume_seconds, gap=gap, rate=rate, workers=workers,
            )  # fmt: skip
        finally:
            await database.drop()
    return result


async def _crash(
    data: Path, database: BenchDatabase, names: list[str], rng: random.Random, *,
    telnet: int, ssh: int, seconds: float, resume_seconds: float, gap: tuple[float, float],
    rate: float, workers: int,
) -> dict[str, Any]:
    games = await prepare(data, names, len(names) // 2, database.url)
    config = write_config(data, len(names), database.url)
    server = Server(data, config, free_port(), free_port() if ssh else 0, workers=workers)
    server.start()
    reader: GameReader | None = None
    players: list[Player] = []
    again: list[Player] = []
    try:
        await server.wait_serving()
        reader = await database.reader()
        players = await start_players(names, server, games, reader, rng, gap, rate)
        stop = asyncio.Event()
        plays = [asyncio.create_task(p.play(stop)) for p in players if not p.stats.error]
        await asyncio.sleep(seconds)
        # kill -9 while the players are typing: no shutdown, no goodbye, no flush.
        killed_at = time.monotonic()
        await asyncio.to_thread(server.kill)
        await asyncio.sleep(0.3)  # let the players notice the hang-up
        stop.set()
        await asyncio.gather(*plays, return_exceptions=True)
        for p in players:
            p.close()
        acked_before = [a for p in players for a in p.stats.acked if a.at <= killed_at]
        acked_total = [a for p in players for a in p.stats.acked]

        server.start()
        restart_s = await server.wait_serving()
        stored = await database.moves()
        lost_after_kill = count_lost(acked_total, stored)
        check_rc, check_out = await asyncio.to_thread(door_check, data, config)

        # Everyone comes back and carries on with the same game.
        again = await start_players(names, server, games, reader, rng, gap, rate)
        stop2 = asyncio.Event()
        restart_mark = time.monotonic()
        plays2 = [asyncio.create_task(p.play(stop2)) for p in again if not p.stats.error]
        deadline = time.monotonic() + resume_seconds
        reached: set[str] = set()
        while time.monotonic() < deadline:
            for p in again:
                if p.game is not None and f"#{p.game[0]}" in p.screen.line(0):
                    reached.add(p.name)
            await asyncio.sleep(0.05)
        stop2.set()
        await asyncio.gather(*plays2, return_exceptions=True)
        await asyncio.sleep(0.3)
        for p in again:
            p.close()
        server.stop()
        acked_after = [a for p in again for a in p.stats.acked if a.at >= restart_mark]
        stored = await database.moves()
        lost_at_end = count_lost(acked_total + acked_after, stored)
    finally:
        if reader is not None:
            await reader.close()
        for p in players + again:
            p.close()
        server.kill()
    errors = [p.stats.error for p in players + again if p.stats.error]
    latencies = [ms for p in players for _, ms in p.stats.latencies]
    return {
        "database": "postgresql" if database.is_postgresql else "sqlite",
        "workers": workers,
        "clients": len(names),
        "telnet": telnet,
        "ssh": ssh,
        "seconds_before_kill": seconds,
        "acked_before_kill": len(acked_before),
        "lost_moves": lost_after_kill,
        "restart_s": round(restart_s, 2),
        "restart_within_2s": restart_s <= 2.0,
        "door_check_rc": check_rc,
        "door_check": check_out.splitlines()[-1] if check_out else "",
        "logged_in_again": sum(1 for p in again if p.stats.login_ms is not None),
        "resumed": len(reached),
        "moves_after_restart": len(acked_after),
        "lost_moves_at_end": lost_at_end,
        "errors": len(errors),
        "first_errors": errors[:3],
        "key_p99_ms_before_kill": round(pct(latencies, 99) or 0.0, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--telnet", type=int, default=200)
    parser.add_argument("--ssh", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=20.0, help="play before the kill")
    parser.add_argument("--resume-seconds", type=float, default=10.0)
    parser.add_argument("--rate", type=float, default=20.0, help="logins a second")
    parser.add_argument("--gap-min", type=float, default=1.0, help="seconds between keys")
    parser.add_argument("--gap-max", type=float, default=3.0)
    parser.add_argument("--seed", type=int, default=9)
    parser.add_argument("--database-url", default="", help="a PostgreSQL server's URL "
                        "(postgresql+asyncpg://…): the run makes its own database there and "
                        "drops it after; default: a SQLite file in the temp data dir")
    parser.add_argument("--workers", type=int, default=1, help="door serve --workers N "
                        "(PostgreSQL only)")
    args = parser.parse_args()
    if args.workers > 1 and not args.database_url:
        parser.error("--workers needs --database-url (PostgreSQL)")
    result = asyncio.run(
        crash_run(
            telnet=args.telnet, ssh=args.ssh, seconds=args.seconds,
            resume_seconds=args.resume_seconds, gap=(args.gap_min, args.gap_max),
            rate=args.rate, seed=args.seed, database_url=args.database_url,
            workers=args.workers,
        )
    )  # fmt: skip
    for key, value in result.items():
        print(f"{key:>24}: {value}")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
