"""Notices outside door under a day's load (issue 18): how fast the sender delivers, how
long a notice waits in the outbox, and that none is sent twice.

Set-up: ``--players`` players (default 5,000), each with a push URL (and, with
``--email``, a confirmed e-mail address too: every notice then goes both ways), and
``--games`` games (default 20,000) between pairs of them. A push server (aiohttp) and an
SMTP server (aiosmtpd), in a process of their own so that their work does not slow the
sender's event loop, take the notices on 127.0.0.1 and note when each arrived.

Phase 1, **one simulated day of moves**: each game gets ``--moves-per-game`` moves
(default 2: one by each player, 40,000 in all), at times of day drawn from a day curve
(twice as many moves an hour at the evening peak, 20:00, as in the small hours, 08:00:
rate ∝ 1 + ⅓·cos(2π(h − 20)/24)), the players taking turns in each game. The day is
played compressed into ``--day-s`` real seconds (default 300: 288 times real time, a mean
of 133 moves a second and 178 at the peak). A move is written when its time comes, not
before, by up to ``--writers`` (default 16) at once, as a server's sessions write theirs
(a game's next move waits for its last one to commit); ``pace_late_p99_s`` says how far
behind its time a move's write began. Each move is one transaction that writes "your
turn" for the opponent through ``Outbox.enqueue``, as the game service does in the
move's own transaction, under the same rules: the player's preferences read, at most one
pending notice per (player, game, kind) (a second is folded into the first, not
written). The games are not played through the rules (bench/commit_moves.py measures
that); a move here is what the outbox sees of one. A
:class:`~door.services.sender.Sender` runs meanwhile as ``door serve`` runs it: looking
at the outbox every ``--poll-s`` seconds (default 2, ``[notices] poll_interval_s``'s
default; nothing wakes it sooner), each look taking rounds of ``--batch`` notices while
rounds come back full.

Phase 2, **a backlog**: with the sender stopped, ``--burst`` notices (default 10,000)
are written (a notice per channel each), then the sender is started and timed until the
last one arrives: its throughput when it is behind, the headline ``notices_per_s``.

The figures, then, last, one JSON line: ``notices_per_s`` (phase 2's deliveries a
second; target ≥ 200), ``outbox_lag_p99_s`` (phase 1: a notice's commit to its POST
arriving, 99th percentile; target ≤ 5), ``duplicates`` (POSTs of a notice beyond its
first, both phases; target 0), ``undelivered`` (written, never arrived), the day's own
delivery rate, and the load average (the machine's other work counts: quote it).

    python3 bench/notices.py [--players N] [--games N] [--moves-per-game N] [--day-s S]
                             [--writers N] [--poll-s S] [--burst N] [--batch N]
                             [--email] [--smtp-connections N] [--seed N] [--url URL]
                             [--profile FILE]

``--url`` runs on that database (e.g. a throwaway PostgreSQL's
``postgresql+asyncpg://…/db``; it must be empty: the bench migrates it and adds its
players); by default a new SQLite file in a temporary folder. ``--batch`` sets the
sender's round size (how many notices one claim takes), ``--smtp-connections`` how many
SMTP connections a round's e-mails share; ``--profile FILE`` writes a cProfile of the
bench's own process (writers and sender; not the receiving servers).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import multiprocessing
import os
import random
import secrets
import sys
import tempfile
import time
from collections import Counter
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from door.config import MailConfig, NoticesConfig, PushConfig
from door.services.clock import SystemClock
from door.services.outbox import Outbox
from door.services.sender import Sender
from door.store.db import Database
from door.store.records import NoticePrefsRecord
from door.store.repository import Repository

DAY_S = 86_400.0
PEAK_HOUR = 20.0
SWING = 1 / 3
"""The day curve: rate ∝ 1 + SWING·cos(2π(h − PEAK_HOUR)/24): peak/trough = 2."""


# --- the push server, in a process of its own -------------------------------------------


def receiver(port_out: Any, stop: Any, result: Any) -> None:
    """Take POSTs (and, on a second port, SMTP mail) on 127.0.0.1 until ``stop`` is set;
    then send back, through ``result``, every (channel, title, arrival time) taken."""
    import socket
    from email.parser import BytesHeaderParser

    from aiohttp import web
    from aiosmtpd.controller import Controller

    got: list[tuple[str, str, float]] = []

    class Mailbox:
        async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
            subject = BytesHeaderParser().parsebytes(envelope.content)["Subject"]
            got.append(("email", str(subject), time.time()))
            return "250 OK"

    async def main() -> None:
        async def take(request: web.Request) -> web.Response:
            await request.read()
            got.append(("push", request.headers.get("Title", ""), time.time()))
            return web.Response(text="ok")

        app = web.Application()
        app.router.add_post("/{topic}", take)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0, backlog=1024)
        await site.start()
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            smtp_port = probe.getsockname()[1]
        controller = Controller(Mailbox(), hostname="127.0.0.1", port=smtp_port)
        controller.start()
        port_out.send((site._server.sockets[0].getsockname()[1], smtp_port))  # type: ignore[union-attr]
        while not stop.is_set():
            await asyncio.sleep(0.1)
        await runner.cleanup()
        controller.stop()
        result.send(got)

    asyncio.run(main())


# --- the day ------------------------------------------------------------------------------


def day_schedule(games: int, per_game: int, rng: random.Random) -> list[tuple[float, int, int]]:
    """(second of the day, game, move number in the game), in time order: each game's
    moves at times drawn from the day curve (by rejection)."""
    out: list[tuple[float, int, int]] = []
    for game in range(1, games + 1):
        times: list[float] = []
        while len(times) < per_game:
            t = rng.uniform(0, DAY_S)
            rate = 1 + SWING * math.cos(2 * math.pi * (t / 3600 - PEAK_HOUR) / 24)
            if rng.uniform(0, 1 + SWING) < rate:
                times.append(t)
        out += [(t, game, n) for n, t in enumerate(sorted(times))]
    out.sort()
    return out


def pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(len(ordered) * p) - 1))]


async def run(args: argparse.Namespace, url: str) -> dict[str, Any]:
    ctx = multiprocessing.get_context("spawn")
    port_in, port_out = ctx.Pipe(duplex=False)
    result_in, result_out = ctx.Pipe(duplex=False)
    stop = ctx.Event()
    proc = ctx.Process(target=receiver, args=(port_out, stop, result_out), daemon=True)
    proc.start()
    port, smtp_port = port_in.recv()

    rng = random.Random(args.seed)
    db = Database(url)
    await db.upgrade()
    clock = SystemClock()
    outbox = Outbox(db, clock, push_schemes=("http",), push_enabled=True, mail_enabled=args.email)
    now = clock.now()

    def add_players(repo: Repository) -> list[int]:
        ids = []
        for i in range(args.players):
            uid = repo.insert_user(f"p{i}", f"p{i}", None, False, now, {})
            ids.append(uid)
            address = f"p{i}@bench.test" if args.email else None
            repo.save_notice_prefs(
                NoticePrefsRecord(
                    uid, address, args.email, None, None, f"http://127.0.0.1:{port}/u{uid}",
                    "your_turn", False, secrets.token_urlsafe(24), now,
                )
            )  # fmt: skip
        return ids

    t0 = time.monotonic()
    ids = await db.transact(add_players)
    print(f"{args.players} players with push URLs in {time.monotonic() - t0:.1f} s", flush=True)
    # game g between two players (every pair different); seat 0 moves first, then turns
    p = args.players
    seats = {
        g: (ids[(g - 1) % p], ids[((g - 1) % p + 1 + ((g - 1) // p) % (p - 1)) % p])
        for g in range(1, args.games + 1)
    }
    schedule = day_schedule(args.games, args.moves_per_game, rng)

    sender = make_sender(db, clock, args.batch, smtp_port, args.poll_s, args.smtp_connections)
    sender.start()

    channels = ("push", "email") if args.email else ("push",)
    written: dict[tuple[str, str], float] = {}
    late: list[float] = []
    folded = 0

    slots = asyncio.Semaphore(args.writers)
    before: dict[int, asyncio.Task[None]] = {}
    """Each game's move in flight: the next move of that game waits for it to commit."""

    async def play(
        due: float, title: str, uid: int, game: int, previous: asyncio.Task[None] | None
    ) -> None:
        nonlocal folded
        if previous is not None:
            await previous
        async with slots:
            late.append(max(0.0, time.monotonic() - due))

            def move(repo: Repository) -> int:
                return outbox.enqueue(repo, uid, game, "your_turn", title, "It is your turn.")

            # every channel or none: the players' channels all fold alike
            if await db.transact(move) == len(channels):
                at_commit = time.time()
                written.update({(ch, title): at_commit for ch in channels})
            else:
                folded += 1

    def settled(game: int, task: asyncio.Task[None]) -> None:
        if before.get(game) is task:
            del before[game]

    scale = args.day_s / DAY_S
    t1 = time.monotonic()
    print(f"day: {len(schedule)} moves over {args.day_s:.0f} s", flush=True)
    for at, game, n in schedule:
        due = t1 + at * scale
        wait = due - time.monotonic()
        if wait > 0:
            await asyncio.sleep(wait)
        waiting = seats[game][1 - n % 2]  # seat 0 moves first: seat 1 is told
        task = asyncio.create_task(play(due, f"g{game} m{n}", waiting, game, before.get(game)))
        before[game] = task
        task.add_done_callback(partial(settled, game))
    await asyncio.gather(*before.values())
    day_elapsed = time.monotonic() - t1
    # the day's last notices: let them arrive
    await wait_idle(db, 60)
    day_total = time.monotonic() - t1
    day_written = len(written)

    # the backlog
    await sender.stop()
    burst: dict[tuple[str, str], float] = {}

    def backlog(repo: Repository, *, start: int, end: int) -> list[str]:
        titles = []
        for k in range(start, end):
            uid = ids[k % args.players]
            title = f"burst {k}"
            game = args.games + 1 + k
            n = outbox.enqueue(repo, uid, game, "your_turn", title, "It is your turn.")
            if n == len(channels):
                titles.append(title)
        return titles

    for start in range(0, args.burst, 500):
        chunk = partial(backlog, start=start, end=min(start + 500, args.burst))
        for title in await db.transact(chunk):
            burst.update({(ch, title): time.time() for ch in channels})
    sender = make_sender(db, clock, args.batch, smtp_port, args.poll_s, args.smtp_connections)
    t2 = time.time()
    sender.start()
    await wait_idle(db, 300)
    burst_s = time.time() - t2  # to the last one marked sent (arrivals are checked below)
    await sender.stop()
    counts = await db.run_read(lambda repo: repo.outbox_counts())
    await db.dispose()

    stop.set()
    got: list[tuple[str, str, float]] = result_in.recv()
    proc.join(10)
    arrived: dict[tuple[str, str], float] = {}
    times: Counter[tuple[str, str]] = Counter()
    for channel, title, at in got:
        times[channel, title] += 1
        arrived.setdefault((channel, title), at)
    lags = [arrived[k] - w for k, w in written.items() if k in arrived]
    last_burst = max((arrived[k] for k in burst if k in arrived), default=t2)
    burst_delivered = sum(k in arrived for k in burst)
    burst_arrival_s = max(last_burst - t2, 1e-9)
    return {
        "players": args.players, "games": args.games, "moves": len(schedule),
        "day_s": args.day_s, "day_written": day_written, "day_folded": folded,
        "day_write_s": round(day_elapsed, 1), "day_total_s": round(day_total, 1),
        "pace_late_p99_s": round(pct(late, 0.99), 3),
        "day_notices_per_s": round(sum(k in arrived for k in written) / day_elapsed, 1),
        "outbox_lag_p50_s": round(pct(lags, 0.50), 3),
        "outbox_lag_p99_s": round(pct(lags, 0.99), 3),
        "outbox_lag_max_s": round(max(lags, default=float("nan")), 3),
        "burst": len(burst), "burst_s": round(burst_arrival_s, 2),
        "burst_marked_s": round(burst_s, 2),
        "notices_per_s": round(burst_delivered / burst_arrival_s, 1),
        "undelivered": sum(k not in arrived for k in [*written, *burst]),
        "duplicates": sum(n - 1 for n in times.values() if n > 1),
        "outbox": counts, "batch": sender.batch, "poll_s": args.poll_s,
        "smtp_connections": sender.smtp_connections,
        "channels": "+".join(channels),
        "database": "postgresql" if url.startswith("postgresql") else "sqlite",
    }  # fmt: skip


def make_sender(
    db: Database,
    clock: SystemClock,
    batch: int,
    smtp_port: int,
    poll_s: float,
    smtp_connections: int = 0,
) -> Sender:
    sender = Sender(
        db, clock,
        MailConfig(host="127.0.0.1", port=smtp_port, security="none", from_="door@bench.test"),
        PushConfig(enabled=True, allowed_schemes=("http",), allow_private=True),
        NoticesConfig(poll_interval_s=poll_s, lease_s=120),
    )  # fmt: skip
    if batch:
        sender.batch = batch
    if smtp_connections:
        sender.smtp_connections = smtp_connections
    return sender


async def wait_idle(db: Database, limit_s: float) -> None:
    """Until nothing is pending (or ``limit_s`` passed)."""
    end = time.monotonic() + limit_s
    while time.monotonic() < end:
        counts = await db.run_read(lambda repo: repo.outbox_counts())
        if not counts.get("pending"):
            return
        await asyncio.sleep(0.05)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=5000)
    parser.add_argument("--games", type=int, default=20000)
    parser.add_argument("--moves-per-game", type=int, default=2)
    parser.add_argument("--day-s", type=float, default=300.0, help="the day, in real seconds")
    parser.add_argument(
        "--writers", type=int, default=16, help="moves being written at once (sessions)"
    )
    parser.add_argument("--poll-s", type=float, default=2.0, help="the sender's poll interval")
    parser.add_argument("--burst", type=int, default=10000, help="notices in phase 2")
    parser.add_argument("--batch", type=int, default=0, help="the sender's round (0: its own)")
    parser.add_argument(
        "--smtp-connections", type=int, default=0, help="a round's SMTP connections (0: its own)"
    )
    parser.add_argument("--seed", type=int, default=18)
    parser.add_argument("--profile", default="", help="write the bench process's cProfile here")
    parser.add_argument(
        "--email", action="store_true", help="players get every notice by e-mail too (SMTP)"
    )
    parser.add_argument("--url", default="", help="a database URL (default: a new SQLite file)")
    args = parser.parse_args()
    if args.players < 2:
        parser.error("--players must be at least 2")
    with tempfile.TemporaryDirectory() as tmp:
        url = args.url or f"sqlite+aiosqlite:///{Path(tmp) / 'bench.sqlite3'}"
        if args.profile:
            import cProfile

            with cProfile.Profile() as profile:
                result = asyncio.run(run(args, url))
            profile.dump_stats(args.profile)
        else:
            result = asyncio.run(run(args, url))
    load = os.getloadavg()
    for k, v in result.items():
        print(f"{k:>20}: {v}")
    print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    print(json.dumps({**result, "load_avg_1m": round(load[0], 2)}))


if __name__ == "__main__":
    main()
