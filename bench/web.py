"""Load over the web front door: N browser-like sessions on ``/ws`` playing backgammon by
turns against one ``door serve --web-port``, as bench/load.py's telnet players do.

Set-up (as load.py's, said again in the output): the users, and a backgammon money game
between each pair of them, are created through the services on the server's SQLite file
(or, with ``--database-url``, a scratch PostgreSQL database made for the run and dropped
after) BEFORE the server starts. Then ``door serve`` runs in a subprocess on 127.0.0.1
with a telnet port (only to see it is up) and a web port, and the sessions connect to
``ws://127.0.0.1:PORT/ws`` (the page's own framing: no subprotocol, a JSON hello with
80×24 and ``xterm-256color``, keys as binary messages), ramped at ``--rate`` a second,
sign in at the Name/Password dialogue, and press a key every 1–3 s (uniform): on their turn
they roll and type a legal play a character at a time after ``:``, then Enter; otherwise
they browse and come back (bench/loadlib.py's :class:`Player`, whose screen model, key
choice, timing and acknowledgement checks are used unchanged; only the wire differs).

Measured over the steady window after the ramp (``--seconds``): keystroke-to-screen
latency (key sent → first binary message back), moves acknowledged per second, server CPU
and RSS (/proc, as load.py reads them). ``rss_kib_per_session`` is the server's RSS once
every session is signed in and has played through the steady window, less its RSS when it
first served (before any session), divided by the sessions signed in. Afterwards every
move a session saw acknowledged is looked for in the database (``lost_moves``).

    python3 bench/web.py [--sessions 500] [--seconds 60] [--rate 5] [--transport telnet]
        [--database-url postgresql+asyncpg://user@host/postgres]

``--transport telnet`` runs the very same with load.py's telnet players, for a baseline:
what the web's framing costs beside the session itself.

The last line is one JSON object: ``p99_ms``, ``p50_ms``, ``rss_kib_per_session``,
``lost_moves``, ``moves_per_s``, ``server_cpu_pct``, ``server_rss_mib``, ``sessions`` and
more. The clients share the machine with the server: ``client_cpu_pct`` and
``client_lag_p99_ms`` say how busy they were, ``load_avg_at_start`` how busy it was.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import aiohttp
from loadlib import (
    HEIGHT,
    PASSWORD,
    WIDTH,
    BenchDatabase,
    GameReader,
    Player,
    Server,
    count_lost,
    cpu_seconds,
    free_port,
    loop_lag,
    pct,
    prepare,
    ramp_up,
    write_config,
)

TERM_TYPE = "xterm-256color"


class WebPlayer(Player):
    """A :class:`Player` whose terminal is the web page's: a WebSocket on ``/ws``."""

    def __init__(
        self, name: str, url: str, origin: str, http: aiohttp.ClientSession,
        game: tuple[int, int] | None, reader: GameReader, rng: random.Random,
        gap: tuple[float, float],
    ) -> None:  # fmt: skip
        super().__init__(name, "web", "127.0.0.1", 0, game, reader, rng, gap)
        self.url = url
        self.origin = origin
        self.http = http
        self.bye: str | None = None
        self._ws: aiohttp.ClientWebSocketResponse | None = None
        self._outbox: asyncio.Queue[bytes] = asyncio.Queue()
        self._tasks: list[asyncio.Task[None]] = []
        self._closing: asyncio.Future[bool] | None = None

    async def connect(self) -> None:
        self._ws = await self.http.ws_connect(
            self.url, origin=self.origin, autoping=True, max_msg_size=0
        )
        hello = {"type": "hello", "cols": WIDTH, "rows": HEIGHT, "term": TERM_TYPE}
        await self._ws.send_str(json.dumps(hello))
        self._tasks = [asyncio.create_task(self._pump()), asyncio.create_task(self._writer())]

    async def _pump(self) -> None:
        assert self._ws is not None
        try:
            async for msg in self._ws:
                if msg.type == aiohttp.WSMsgType.BINARY:
                    self._on_data(msg.data)
                elif msg.type == aiohttp.WSMsgType.TEXT:
                    with contextlib.suppress(ValueError, AttributeError):
                        said = json.loads(msg.data)
                        if said.get("type") == "bye":
                            self.bye = str(said.get("reason"))
        except (aiohttp.ClientError, ConnectionError):
            pass
        self._on_lost()

    async def _writer(self) -> None:
        # One writer per session keeps the keys in order; send() stays synchronous as
        # Player.press expects (the time from send() includes this hop, as a browser's
        # would include its own).
        assert self._ws is not None
        while True:
            data = await self._outbox.get()
            try:
                await self._ws.send_bytes(data)
            except (aiohttp.ClientError, ConnectionError, RuntimeError):
                self._on_lost()
                return

    def send(self, data: bytes) -> None:
        if not self.closed:
            self._outbox.put_nowait(data)

    async def login(self, timeout: float = 60.0) -> None:
        """Connect and sign in at the Name/Password dialogue until the main menu shows."""
        t0 = time.perf_counter()
        try:
            await self.connect()
            await self.wait_for("Name: ", timeout)
            self.send(self.name.encode() + b"\r")
            await self.wait_for("Password: ", timeout)
            self.send(PASSWORD.encode() + b"\r")
            await self.wait_for("Main Menu", timeout)
            self.stats.login_ms = (time.perf_counter() - t0) * 1000
        except Exception as exc:
            said = f" (the server said: {self.bye})" if self.bye else ""
            self.stats.error = f"{type(exc).__name__}: {exc}{said}"
            self.close()

    def close(self) -> None:
        self.closed = True
        for task in self._tasks:
            task.cancel()
        if self._ws is not None and not self._ws.closed:
            self._closing = asyncio.ensure_future(self._ws.close())


def rounded(value: float | None, digits: int = 1) -> float | None:
    return None if value is None else round(value, digits)


def window(samples: list[tuple[float, float]], start: float, end: float) -> list[float]:
    return [ms for at, ms in samples if start <= at < end]


async def run(args: argparse.Namespace) -> dict[str, Any]:
    rng = random.Random(args.seed)
    names = [f"web{i:04d}" for i in range(args.sessions)]
    gap = (args.gap_min, args.gap_max)
    with tempfile.TemporaryDirectory(prefix="door-web-") as tmp:
        data_dir = Path(tmp)
        database = BenchDatabase(data_dir, args.database_url)
        await database.create()
        try:
            return await measure(args, rng, names, gap, data_dir, database)
        finally:
            await database.drop()


async def measure(
    args: argparse.Namespace, rng: random.Random, names: list[str],
    gap: tuple[float, float], data_dir: Path, database: BenchDatabase,
) -> dict[str, Any]:  # fmt: skip
    """The run itself, on the prepared data dir and database."""
    n = len(names)
    t0 = time.monotonic()
    games = await prepare(data_dir, names, n // 2, database.url)
    where = "PostgreSQL database" if database.is_postgresql else "SQLite file"
    print(
        f"set-up: {n} users and {n // 2} backgammon money games between pairs created "
        f"through the services on the {where} before the server started "
        f"({time.monotonic() - t0:.1f}s)",
        flush=True,
    )
    config = write_config(data_dir, n, database.url)
    web_port = free_port()
    server = Server(data_dir, config, free_port(), 0, extra=["--web-port", str(web_port)])
    server.start()
    start_s = await server.wait_serving()
    await asyncio.sleep(1.0)  # let start-up's garbage settle before the baseline
    rss_idle = server.rss_kib()
    print(f"server pid {server.pid} serving after {start_s:.2f}s, RSS {rss_idle} KiB idle",
          flush=True)  # fmt: skip
    url = f"ws://127.0.0.1:{web_port}/ws"
    origin = f"http://127.0.0.1:{web_port}"
    reader = await database.reader()
    # One HTTP client for every session, as one machine's browsers would not share one;
    # the connection limit is lifted so no session waits for another's socket.
    http = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0))
    players: list[Player] = [
        WebPlayer(name, url, origin, http, games.get(name), reader,
                  random.Random(rng.random()), gap)
        if args.transport == "web" else
        Player(name, "telnet", "127.0.0.1", server.telnet_port, games.get(name), reader,
               random.Random(rng.random()), gap)
        for name in names
    ]  # fmt: skip
    rng.shuffle(players)
    stop = asyncio.Event()
    lag: list[float] = []
    lag_task = asyncio.create_task(loop_lag(lag, stop))
    me = os.getpid()
    load_before = os.getloadavg()[0]
    try:
        ramp = await ramp_up(players, args.rate, stop, server)
        tasks, ramp_t0, ramp_t1 = ramp.tasks, ramp.t0, ramp.t1
        ramp_cpu, logged_in = ramp.server_cpu_s, ramp.logged_in
        print(f"ramp: {logged_in}/{n} signed in over {ramp_t1 - ramp_t0:.1f}s", flush=True)
        rss_ramp = server.rss_kib()

        s_t0, s_cpu0, c_cpu0 = time.monotonic(), server.cpu_seconds(), cpu_seconds(me)
        lag_start = len(lag)
        await asyncio.sleep(args.seconds)
        s_t1, s_cpu1, c_cpu1 = time.monotonic(), server.cpu_seconds(), cpu_seconds(me)
        rss = server.rss_kib()
        steady_lag = lag[lag_start:]
        print(f"steady: {args.seconds}s measured", flush=True)
        stop.set()
        await asyncio.gather(*tasks, return_exceptions=True)
        await asyncio.sleep(0.5)
        for p in players:
            p.close()
        await asyncio.sleep(0.2)
    finally:
        lag_task.cancel()
        await http.close()
        server.stop()
        await reader.close()
    stored = await database.moves()
    log_tail = server.log.read_text(errors="replace").splitlines()[-15:]

    acked = [a for p in players for a in p.stats.acked]
    lost = count_lost(acked, stored)
    samples = [s for p in players for s in p.stats.latencies]
    steady = window(samples, s_t0, s_t1)
    during_ramp = window(samples, ramp_t0, ramp_t1)
    steady_acked = [a for a in acked if s_t0 <= a.at < s_t1]
    plays = [a for a in steady_acked if a.text != "roll"]
    logins = [p.stats.login_ms for p in players if p.stats.login_ms is not None]
    errors = [p.stats.error for p in players if p.stats.error]
    if errors:
        print("first errors:", errors[:3], flush=True)
        print("the server's log ends:", *log_tail, sep="\n  ", flush=True)
    result: dict[str, Any] = {
        "sessions": n,
        "transport": (
            "web (/ws, the page's framing)" if args.transport == "web" else "telnet"
        ),
        "database": "postgresql" if database.is_postgresql else "sqlite",
        "logged_in": logged_in,
        "errors": len(errors),
        "seconds": args.seconds,
        "keys": len(steady),
        "keys_per_s": round(len(steady) / (s_t1 - s_t0), 1),
        "p50_ms": rounded(pct(steady, 50), 2),
        "p90_ms": rounded(pct(steady, 90), 2),
        "p99_ms": rounded(pct(steady, 99), 2),
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
        "server_rss_idle_mib": round(rss_idle / 1024, 1),
        "server_rss_after_ramp_mib": round(rss_ramp / 1024, 1),
        "rss_kib_per_session": round((rss - rss_idle) / logged_in, 1) if logged_in else None,
        "server_start_s": round(start_s, 2),
        "ramp_rate_per_s": args.rate,
        "ramp_s": round(ramp_t1 - ramp_t0, 1),
        "ramp_login_p50_ms": rounded(pct(logins, 50)),
        "ramp_login_p99_ms": rounded(pct(logins, 99)),
        "ramp_key_p99_ms": rounded(pct(during_ramp, 99), 2),
        "server_cpu_ms_per_login": round(ramp_cpu * 1000 / max(1, logged_in), 1),
        "client_cpu_pct": round((c_cpu1 - c_cpu0) / (s_t1 - s_t0) * 100, 1),
        "client_lag_p99_ms": rounded(pct(steady_lag, 99), 2),
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
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sessions", type=int, default=500, help="web sessions (even)")
    parser.add_argument("--seconds", type=float, default=60.0, help="steady window")
    parser.add_argument("--rate", type=float, default=5.0, help="sign-ins a second in the ramp")
    parser.add_argument("--gap-min", type=float, default=1.0, help="seconds between keys")
    parser.add_argument("--gap-max", type=float, default=3.0)
    parser.add_argument("--transport", choices=("web", "telnet"), default="web",
                        help="telnet: the same run with load.py's telnet players instead, "
                        "to compare (the server still listens on the web port)")
    parser.add_argument("--seed", type=int, default=8)
    parser.add_argument("--database-url", default="", help="a PostgreSQL server's URL "
                        "(postgresql+asyncpg://…): the run makes its own database there and "
                        "drops it after; default: a SQLite file in the temp data dir")
    args = parser.parse_args()
    result = asyncio.run(run(args))
    for key, value in result.items():
        print(f"{key:>26}: {value}")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
