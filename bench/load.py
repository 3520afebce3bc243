"""Load: N telnet and M SSH players playing backgammon by turns against one ``door serve``.

Set-up (said again in the output): the users, and a backgammon money game between each
pair of them, are created through the services on the server's database BEFORE the
server starts (one real scrypt hash shared by every user, so set-up takes seconds): the
SQLite file in a temp data dir, or with ``--database-url`` a scratch database made for
the run on that PostgreSQL server (and dropped after).
Then ``door serve`` runs in a subprocess (127.0.0.1, ephemeral ports, temp data dir; with
``--workers N`` as N processes sharing the ports, PostgreSQL only) and
the players connect, ramped at ``--rate`` a second, log in (telnet: the Name/Password
dialogue; SSH: password auth), and press a key every 1–3 s (uniform; 2 s on average): on
their turn they roll and type a legal play (picked with the rules from the game's
snapshot, read read-only from the database) a character at a time after ``:``, then Enter;
otherwise they browse (IDs toggle, main menu, rank list, game lists) and come back.

Measured over the steady window after the ramp (``--seconds``): keystroke-to-screen
latency (key sent → first byte of the screen update), moves acknowledged on screen per
second, server CPU (/proc/<pid>/stat; with workers, every worker's summed) and RSS. Then
a burst of ``--burst`` logins at once while the players go on (their latency during it is
reported apart). Afterwards every move a player saw acknowledged is looked for in the
database (``lost_moves``: whichever worker served it, every move is in the one database),
and a bare asyncio echo server takes the same number of connections at the same key rate
(``ratio_vs_echo`` = door p99 / echo p99).

    python3 bench/load.py [--telnet 500] [--ssh 50] [--seconds 60] [--rate 5] [--burst 100]
        [--database-url postgresql+asyncpg://user@host/postgres] [--workers 2]

The last line is one JSON object: ``p99_ms``, ``p50_ms``, ``ratio_vs_echo``,
``lost_moves``, ``moves_per_s``, ``server_cpu_pct``, ``server_rss_mib``, ``clients`` and
more. Figures depend on the machine's other load (``load_avg_at_start``) and on the
clients sharing it: ``client_cpu_pct`` and ``client_lag_p99_ms`` say how busy they were.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from loadlib import (
    BenchDatabase,
    Player,
    Server,
    count_lost,
    cpu_seconds,
    free_port,
    loop_lag,
    pct,
    prepare,
    ramp_up,
    run_echo,
    write_config,
)


def rounded(value: float | None, digits: int = 1) -> float | None:
    return None if value is None else round(value, digits)


def window(samples: list[tuple[float, float]], start: float, end: float) -> list[float]:
    return [ms for at, ms in samples if start <= at < end]


def stall_figures(
    long: list[list[Any]], s_t0: float, s_t1: float, r_t0: float, end: float
) -> dict[str, Any]:
    """The longest event-loop callbacks: in the steady window, and over ramp + steady +
    burst; how many in the steady window ran over 50 ms."""
    steady = [took for at, took, _ in long if s_t0 <= at < s_t1]
    served = [took for at, took, _ in long if r_t0 <= at < end]
    return {
        "loop_stall_max_ms": round(max(steady, default=0.0) * 1000, 1),
        "loop_stalls_over_50ms": sum(1 for t in steady if t > 0.05),
        "loop_stall_max_all_ms": round(max(served, default=0.0) * 1000, 1),
    }


def unmeasured_if(unwatched: bool, figures: dict[str, Any]) -> dict[str, Any]:
    """``figures`` with every value ``None`` when the loop was not watched (not 0: a
    stall that was never looked for is not a stall of 0 ms)."""
    return {k: None for k in figures} if unwatched else figures


def gc_figures(pauses: list[list[Any]], s_t0: float, s_t1: float) -> dict[str, Any]:
    """The garbage collector's pauses over 5 ms in the steady window: how many, the
    longest, and the generation of the longest (a pause stops the loop too)."""
    steady = [(took, gen) for at, took, gen in pauses if s_t0 <= at < s_t1]
    longest = max(steady, default=(0.0, None))
    return {
        "gc_pauses_over_5ms": len(steady),
        "gc_pause_max_ms": round(longest[0] * 1000, 1),
        "gc_pause_max_generation": longest[1],
    }


async def run(args: argparse.Namespace) -> dict[str, Any]:
    rng = random.Random(args.seed)
    names = [f"tel{i:04d}" for i in range(args.telnet)] + [f"ssh{i:04d}" for i in range(args.ssh)]
    burst_names = [f"bur{i:04d}" for i in range(args.burst)]
    gap = (args.gap_min, args.gap_max)
    with tempfile.TemporaryDirectory(prefix="door-load-") as tmp:
        data_dir = Path(tmp)
        database = BenchDatabase(data_dir, args.database_url)
        await database.create()
        try:
            return await measure(args, rng, names, burst_names, gap, data_dir, database)
        finally:
            await database.drop()


async def measure(
    args: argparse.Namespace, rng: random.Random, names: list[str], burst_names: list[str],
    gap: tuple[float, float], data_dir: Path, database: BenchDatabase,
) -> dict[str, Any]:
    """The run itself, on the prepared data dir and database."""
    players_n = args.telnet + args.ssh
    t0 = time.monotonic()
    games = await prepare(data_dir, names + burst_names, players_n // 2, database.url)
    where = "PostgreSQL database" if database.is_postgresql else "SQLite file"
    print(
        f"set-up: {len(names) + len(burst_names)} users and {players_n // 2} backgammon "
        f"money games between pairs created through the services on the {where} "
        f"before the server started ({time.monotonic() - t0:.1f}s)",
        flush=True,
    )
    config = write_config(data_dir, players_n + args.burst, database.url)
    server = Server(data_dir, config, free_port(), free_port() if args.ssh else 0,
                    workers=args.workers)  # fmt: skip
    stall_file = data_dir / "loop-stalls.json"
    server.start(stall_file=stall_file)
    start_s = await server.wait_serving()
    print(f"server pids {server.pids()} serving after {start_s:.2f}s", flush=True)
    reader = await database.reader()
    players = [
        Player(
            name, "telnet" if name.startswith("tel") else "ssh", "127.0.0.1",
            server.telnet_port if name.startswith("tel") else server.ssh_port,
            games.get(name), reader, random.Random(rng.random()), gap,
        )
        for name in names
    ]
    rng.shuffle(players)  # telnet and SSH logins interleaved in the ramp
    stop = asyncio.Event()
    lag: list[float] = []
    lag_task = asyncio.create_task(loop_lag(lag, stop))
    me = os.getpid()
    load_before = os.getloadavg()[0]
    ramp = await ramp_up(players, args.rate, stop, server)
    tasks, ramp_t0, ramp_t1 = ramp.tasks, ramp.t0, ramp.t1
    ramp_cpu, logged_in = ramp.server_cpu_s, ramp.logged_in
    print(f"ramp: {logged_in}/{players_n} logged in over {ramp_t1 - ramp_t0:.1f}s", flush=True)

    # Steady state.
    s_t0, s_cpu0, c_cpu0 = time.monotonic(), server.cpu_seconds(), cpu_seconds(me)
    lag_start = len(lag)
    spy = None
    if args.profile and args.workers == 1:
        # py-spy samples the server's stacks during the steady window (not a dependency:
        # pip install py-spy); --format speedscope or flamegraph by the file's suffix.
        fmt = "speedscope" if args.profile.endswith(".json") else (
            "raw" if args.profile.endswith(".txt") else "flamegraph")
        spy = await asyncio.create_subprocess_exec(
            "py-spy", "record", "--pid", str(server.pid), "--duration",
            str(int(args.seconds)), "--rate", "200", "--format", fmt, "--output",
            args.profile, "--nonblocking", stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
        )  # fmt: skip
    await asyncio.sleep(args.seconds)
    s_t1, s_cpu1, c_cpu1 = time.monotonic(), server.cpu_seconds(), cpu_seconds(me)
    rss = server.rss_kib()
    steady_lag = lag[lag_start:]
    print(f"steady: {args.seconds}s measured", flush=True)
    if spy is not None:
        await spy.wait()

    # Burst: many logins at once while everyone plays on.
    b_t0 = time.monotonic()
    burst = [
        Player(n, "telnet", "127.0.0.1", server.telnet_port, None, reader,
               random.Random(rng.random()), gap)
        for n in burst_names
    ]
    if burst:
        await asyncio.gather(*(b.login() for b in burst))
    b_t1 = time.monotonic()
    burst_cpu = server.cpu_seconds() - s_cpu1
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    await asyncio.sleep(0.5)
    for p in players + burst:
        p.close()
    lag_task.cancel()
    server.stop()
    await reader.close()
    stored = await database.moves()
    log_tail = server.log.read_text(errors="replace").splitlines()[-15:]
    # no file: the loop was not watched (--workers N: several loops, none watched)
    watched = stall_file.exists()
    stalls = json.loads(stall_file.read_text()) if watched else {"long": []}

    acked = [a for p in players for a in p.stats.acked]
    lost = count_lost(acked, stored)
    samples = [s for p in players for s in p.stats.latencies]
    steady = window(samples, s_t0, s_t1)
    during_ramp = window(samples, ramp_t0, ramp_t1)
    during_burst = window(samples, b_t0, b_t1)
    steady_acked = [a for a in acked if s_t0 <= a.at < s_t1]
    plays = [a for a in steady_acked if a.text != "roll"]
    logins = [p.stats.login_ms for p in players if p.stats.login_ms is not None]
    burst_logins = [b.stats.login_ms for b in burst if b.stats.login_ms is not None]
    errors = [p.stats.error for p in players + burst if p.stats.error]
    if errors:
        print("first errors:", errors[:3], flush=True)
        print("the server's log ends:", *log_tail, sep="\n  ", flush=True)
    print(f"echo: {players_n} connections, {args.echo_seconds}s", flush=True)
    echo = await run_echo(players_n, args.echo_seconds, gap, args.rate * 5, args.seed)
    p99 = pct(steady, 99)
    result: dict[str, Any] = {
        "clients": players_n,
        "database": "postgresql" if database.is_postgresql else "sqlite",
        "workers": args.workers,
        "telnet": args.telnet,
        "ssh": args.ssh,
        "logged_in": logged_in,
        "errors": len(errors),
        "seconds": args.seconds,
        "keys": len(steady),
        "keys_per_s": round(len(steady) / (s_t1 - s_t0), 1),
        "p50_ms": rounded(pct(steady, 50), 2),
        "p90_ms": rounded(pct(steady, 90), 2),
        "p99_ms": rounded(p99, 2),
        "max_ms": rounded(max(steady) if steady else None, 1),
        "no_response": sum(p.stats.no_response for p in players),
        "moves_per_s": round(len(steady_acked) / (s_t1 - s_t0), 2),
        "plays_per_s": round(len(plays) / (s_t1 - s_t0), 2),
        "acked_moves": len(acked),
        "unacked_moves": sum(p.stats.unacked for p in players),
        "stored_moves": sum(len(v) for v in stored.values()),
        "lost_moves": lost,
        "server_cpu_pct": round((s_cpu1 - s_cpu0) / (s_t1 - s_t0) * 100, 1),
        "server_rss_mib": round(rss / 1024, 1),
        "server_start_s": round(start_s, 2),
        "ramp_rate_per_s": args.rate,
        "ramp_s": round(ramp_t1 - ramp_t0, 1),
        "ramp_login_p50_ms": rounded(pct(logins, 50)),
        "ramp_login_p99_ms": rounded(pct(logins, 99)),
        "ramp_key_p99_ms": rounded(pct(during_ramp, 99), 2),
        "server_cpu_ms_per_login": round(ramp_cpu * 1000 / max(1, logged_in), 1),
        "burst": args.burst,
        "burst_logged_in": len(burst_logins),
        "burst_s": round(b_t1 - b_t0, 1),
        "burst_login_p50_ms": rounded(pct(burst_logins, 50)),
        "burst_login_p99_ms": rounded(pct(burst_logins, 99)),
        "burst_key_p99_ms": rounded(pct(during_burst, 99), 2),
        "burst_server_cpu_s": round(burst_cpu, 1),
        "client_cpu_pct": round((c_cpu1 - c_cpu0) / (s_t1 - s_t0) * 100, 1),
        "client_lag_p99_ms": rounded(pct(steady_lag, 99), 2),
        **echo,
        "ratio_vs_echo": round(p99 / echo["echo_p99_ms"], 1)
        if p99 is not None and echo["echo_p99_ms"]
        else None,
        # the longest any one event-loop callback ran in the server
        # (bench/stallwatch/sitecustomize.py): how long nobody else could be served;
        # in the steady window, and from the first login to the end of the burst
        **unmeasured_if(not watched, stall_figures(stalls["long"], s_t0, s_t1, ramp_t0, b_t1)),
        **unmeasured_if(not watched, gc_figures(stalls.get("gc", []), s_t0, s_t1)),
        "load_avg_at_start": round(load_before, 2),
        "cpus": os.cpu_count(),
    }
    by_key: dict[str, list[float]] = {}
    for p in players:
        for label, values in p.stats.by_key.items():
            by_key.setdefault(label, []).extend(values)
    print("latency by screen and key (all phases): count p50 p99 ms")
    for label, values in sorted(by_key.items(), key=lambda kv: -len(kv[1])):
        print(f"  {label:<16} {len(values):>6} {pct(values, 50):>8.1f} {pct(values, 99):>8.1f}")
    for at, walked, kinds in stalls.get("census", []):  # DOOR_GC_CENSUS=1 only
        print(f"middle-generation pass at {at - s_t0:+.0f}s walks {walked} objects: "
              + ", ".join(f"{k} {n}" for k, n in kinds))
    worst = sorted((x for x in stalls["long"] if ramp_t0 <= x[0] < b_t1), key=lambda x: -x[1])
    if worst:
        print("longest event-loop callbacks after the first login (ms, what):")
        for _, took, what in worst[:5]:
            print(f"  {took * 1000:8.1f}  {what}")
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--telnet", type=int, default=500, help="telnet players")
    parser.add_argument("--ssh", type=int, default=50, help="SSH players")
    parser.add_argument("--seconds", type=float, default=60.0, help="steady window")
    parser.add_argument("--rate", type=float, default=5.0, help="logins a second in the ramp")
    parser.add_argument("--burst", type=int, default=100, help="logins at once after")
    parser.add_argument("--echo-seconds", type=float, default=20.0)
    parser.add_argument("--gap-min", type=float, default=1.0, help="seconds between keys")
    parser.add_argument("--gap-max", type=float, default=3.0)
    parser.add_argument("--seed", type=int, default=8)
    parser.add_argument("--database-url", default="", help="a PostgreSQL server's URL "
                        "(postgresql+asyncpg://…): the run makes its own database there and "
                        "drops it after; default: a SQLite file in the temp data dir")
    parser.add_argument("--workers", type=int, default=1, help="door serve --workers N "
                        "(PostgreSQL only)")
    parser.add_argument("--profile", default="", help="py-spy output file for the steady window "
                        "(.svg flame graph, .txt collapsed stacks, .json speedscope)")
    args = parser.parse_args()
    if args.workers > 1 and not args.database_url:
        parser.error("--workers needs --database-url (PostgreSQL)")
    result = asyncio.run(run(args))
    for key, value in result.items():
        print(f"{key:>24}: {value}")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
