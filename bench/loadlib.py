"""Simulated players for the load benchmark and the crash test (bench/load.py, bench/crash.py).

A :class:`Player` is one person at a terminal: it connects over telnet (a small raw client
that answers the server's option negotiation: TTYPE xterm, NAWS 80×24) or SSH (asyncssh),
logs in, and then presses one key at a time, each chosen from what its screen shows
(:class:`ScreenModel`, a small VT100 model of the 80×24 screen) and from its game's current
snapshot, read read-only from the database (the SQLite file, or PostgreSQL): roll, ``:``
then a legal play typed a character at a time and Enter, or browsing (the main menu, the
rank list, the game lists, the IDs toggle) while the opponent thinks.

Every key press is timed from the send to the first byte that comes back after it (the
start of the screen update it causes). A move counts as *acknowledged* only when the
screen says so ("You rolled …", "You played <the play>.", "You could not move"); every
acknowledged move is later looked for in the database (:func:`count_lost`).

Also here: the database the server uses (:class:`BenchDatabase`: the data dir's SQLite
file, or a scratch database made for the run on a PostgreSQL server), the server
subprocess (:class:`Server`, one process or ``door serve --workers N``), user and game
set-up through the services before the server starts (:func:`prepare`), the bare asyncio
echo server run for comparison (:func:`run_echo`), and /proc readings of CPU and RSS.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

PASSWORD = "load-pw-1"
WIDTH, HEIGHT = 80, 24

# --------------------------------------------------------------------------- numbers


def pct(values: list[float], p: float) -> float | None:
    """The ``p``-th percentile (nearest rank) of ``values``; None when there are none."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))]


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process ``pid`` (all its threads), in seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_kib(pid: int) -> int:
    """Resident set size of process ``pid``, in KiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def child_pids(pid: int) -> list[int]:
    """The live child processes of ``pid`` (the workers of ``door serve --workers``)."""
    children = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            children.append(int(stat.parent.name))
    return sorted(children)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# --------------------------------------------------------------------------- the screen

_CSI = re.compile(
    r"\x1b\[([?0-9;]*)([@-~])|\x1b[()][0-9A-Za-z]|\x1b[78=>c]"
    r"|[\x00-\x1a\x1c-\x1f\x7f]"  # controls, but not ESC: it starts the sequences above
)


class ScreenModel:
    """What an 80×24 VT100 shows, for the sequences door sends (cursor moves, erase,
    colours ignored). Text runs are written as slices, so a full board costs little."""

    def __init__(self, width: int = WIDTH, height: int = HEIGHT) -> None:
        self.width = width
        self.height = height
        self.rows = [[" "] * width for _ in range(height)]
        self.x = 0
        self.y = 0
        self._pending = ""

    def feed(self, text: str) -> None:
        text = self._pending + text
        self._pending = ""
        pos = 0
        for m in _CSI.finditer(text):
            if m.start() > pos:
                self._put(text[pos : m.start()])
            pos = m.end()
            self._control(m)
        rest = text[pos:]
        # An escape sequence cut by the read boundary waits for its end.
        esc = rest.find("\x1b")
        if esc >= 0 and len(rest) - esc < 32:
            self._pending = rest[esc:]
            rest = rest[:esc]
        if rest:
            self._put(rest)

    def _put(self, s: str) -> None:
        while s:
            if self.x >= self.width:
                self.x = 0
                self._down()
            room = self.width - self.x
            chunk, s = s[:room], s[room:]
            row = self.rows[self.y]
            row[self.x : self.x + len(chunk)] = list(chunk)
            self.x += len(chunk)

    def _down(self) -> None:
        if self.y < self.height - 1:
            self.y += 1
        else:
            self.rows.pop(0)
            self.rows.append([" "] * self.width)

    def _control(self, m: re.Match[str]) -> None:
        whole = m.group(0)
        if whole == "\r":
            self.x = 0
        elif whole == "\n":
            self._down()
        elif whole == "\b":
            self.x = max(0, self.x - 1)
        elif m.group(2) is not None:
            params, final = m.group(1), m.group(2)
            if params.startswith("?"):
                return
            nums = [int(p) if p else 0 for p in params.split(";")] if params else []
            n = (nums[0] if nums else 0) or 1
            if final == "H" or final == "f":
                row = (nums[0] if nums else 1) or 1
                col = (nums[1] if len(nums) > 1 else 1) or 1
                self.y = min(row, self.height) - 1
                self.x = min(col, self.width) - 1
            elif final == "C":
                self.x = min(self.x + n, self.width - 1)
            elif final == "D":
                self.x = max(self.x - n, 0)
            elif final == "A":
                self.y = max(self.y - n, 0)
            elif final == "B":
                self.y = min(self.y + n, self.height - 1)
            elif final == "G":
                self.x = min(n, self.width) - 1
            elif final == "K":
                mode = nums[0] if nums else 0
                row = self.rows[self.y]
                if mode == 0:
                    row[self.x :] = [" "] * (self.width - self.x)
                elif mode == 1:
                    row[: self.x + 1] = [" "] * (self.x + 1)
                else:
                    row[:] = [" "] * self.width
            elif final == "J":
                mode = nums[0] if nums else 0
                if mode == 2 or mode == 3:
                    self.rows = [[" "] * self.width for _ in range(self.height)]
                elif mode == 0:
                    self.rows[self.y][self.x :] = [" "] * (self.width - self.x)
                    for r in range(self.y + 1, self.height):
                        self.rows[r] = [" "] * self.width

    def line(self, y: int) -> str:
        return "".join(self.rows[y])

    def text(self) -> str:
        return "\n".join("".join(r) for r in self.rows)


# --------------------------------------------------------------------------- transports

IAC, DONT, DO, WONT, WILL, SB, SE = 255, 254, 253, 252, 251, 250, 240
TTYPE, NAWS, ECHO, SGA, BINARY = 24, 31, 1, 3, 0


class TelnetProtocol(asyncio.Protocol):
    """A raw telnet client: answers negotiation like a small xterm, passes data on."""

    def __init__(self, on_data: Callable[[bytes], None], on_lost: Callable[[], None]) -> None:
        self.on_data = on_data
        self.on_lost = on_lost
        self.transport: asyncio.Transport | None = None
        self._buf = bytearray()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def connection_lost(self, exc: Exception | None) -> None:
        self.on_lost()

    def send(self, data: bytes) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(data.replace(b"\xff", b"\xff\xff"))

    def _reply(self, data: bytes) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(data)

    def data_received(self, data: bytes) -> None:
        if IAC not in data and not self._buf:
            self.on_data(data)
            return
        buf = self._buf + data
        out = bytearray()
        i = 0
        n = len(buf)
        while i < n:
            b = buf[i]
            if b != IAC:
                j = buf.find(IAC, i)
                j = n if j < 0 else j
                out += buf[i:j]
                i = j
                continue
            if i + 1 >= n:
                break
            cmd = buf[i + 1]
            if cmd == IAC:
                out.append(IAC)
                i += 2
            elif cmd in (DO, DONT, WILL, WONT):
                if i + 2 >= n:
                    break
                self._negotiate(cmd, buf[i + 2])
                i += 3
            elif cmd == SB:
                end = buf.find(bytes([IAC, SE]), i)
                if end < 0:
                    break
                self._subneg(bytes(buf[i + 2 : end]))
                i = end + 2
            else:
                i += 2
        self._buf = bytearray(buf[i:])
        if out:
            self.on_data(bytes(out))

    def _negotiate(self, cmd: int, opt: int) -> None:
        if cmd == DO:
            if opt in (TTYPE, NAWS, BINARY, SGA):
                self._reply(bytes([IAC, WILL, opt]))
                if opt == NAWS:
                    self._reply(bytes([IAC, SB, NAWS, 0, WIDTH, 0, HEIGHT, IAC, SE]))
            else:
                self._reply(bytes([IAC, WONT, opt]))
        elif cmd == WILL:
            if opt in (ECHO, SGA, BINARY):
                self._reply(bytes([IAC, DO, opt]))
            else:
                self._reply(bytes([IAC, DONT, opt]))

    def _subneg(self, body: bytes) -> None:
        if body[:2] == bytes([TTYPE, 1]):  # SEND
            self._reply(bytes([IAC, SB, TTYPE, 0]) + b"xterm" + bytes([IAC, SE]))


# --------------------------------------------------------------------------- players


@dataclass
class Acked:
    """A move the player saw acknowledged on screen."""

    game_id: int
    seat: int
    text: str
    at: float


@dataclass
class PlayerStats:
    latencies: list[tuple[float, float]] = field(default_factory=list)  # (sent at, ms)
    no_response: int = 0
    acked: list[Acked] = field(default_factory=list)
    unacked: int = 0
    by_key: dict[str, list[float]] = field(default_factory=dict)
    login_ms: float | None = None
    error: str | None = None


class GameReader:
    """Read-only look at the games table (what a player could see on screen): the SQLite
    file, or (``pg_dsn``) the PostgreSQL database through a small asyncpg pool."""

    SQL = "SELECT status, to_act, snapshot, options, kind FROM games WHERE id = {}"

    def __init__(self, db_path: Path | None = None, pg_dsn: str = "") -> None:
        from door.games.registry import build_registry
        from door.services.games import load_state

        self._conn = (
            sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, timeout=10)
            if db_path is not None else None
        )  # fmt: skip
        self._dsn = pg_dsn
        self._pool: Any = None
        self._registry = build_registry()
        self._load = load_state

    async def open(self) -> GameReader:
        if self._dsn:
            import asyncpg

            self._pool = await asyncpg.create_pool(self._dsn, min_size=1, max_size=4)
        return self

    def rules(self, kind: str) -> Any:
        return self._registry[kind]

    async def game(self, game_id: int) -> tuple[str, int | None, Any] | None:
        """(status, seat to act, state) of the game now."""
        if self._pool is not None:
            row = await self._pool.fetchrow(self.SQL.format("$1"), game_id)
        else:
            assert self._conn is not None
            row = self._conn.execute(self.SQL.format("?"), (game_id,)).fetchone()
        if row is None:
            return None
        status, to_act, snapshot, options, kind = tuple(row)
        rules = self._registry[kind]
        return status, to_act, self._load(rules, snapshot, json.loads(options or "{}"))

    async def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
        if self._pool is not None:
            await self._pool.close()


class Player:
    """One simulated person. ``connect()`` + ``login()``, then ``play(until)``."""

    def __init__(
        self,
        name: str,
        transport: str,
        host: str,
        port: int,
        game: tuple[int, int] | None,
        reader: GameReader,
        rng: random.Random,
        gap: tuple[float, float] = (1.0, 3.0),
    ) -> None:
        self.name = name
        self.transport = transport
        self.host = host
        self.port = port
        self.game = game  # (game id, my seat)
        self.reader = reader
        self.rng = rng
        self.gap = gap
        self.screen = ScreenModel()
        self.stats = PlayerStats()
        self.phase = "ramp"
        self.closed = False
        self._decoder: Any = None
        self._proto: TelnetProtocol | None = None
        self._ssh: Any = None
        self._ssh_proc: Any = None
        self._ssh_task: asyncio.Task[None] | None = None
        self._changed = asyncio.Event()
        self._sent_at: float | None = None
        self._first_byte: asyncio.Future[float] | None = None
        self._typing: str = ""
        self._pending_play = ""
        self._ack: tuple[str, str] | None = None  # (text looked for, move to record)
        self._browse: list[bytes] = []

    # --- wire ----------------------------------------------------------------------
    def _on_data(self, data: bytes) -> None:
        now = time.perf_counter()
        fut = self._first_byte
        if fut is not None and not fut.done():
            fut.set_result(now)
        if self._decoder is None:
            import codecs

            self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self.screen.feed(self._decoder.decode(data))
        if self._ack is not None:
            self._check_ack()
        self._changed.set()

    def _on_lost(self) -> None:
        self.closed = True
        self._changed.set()

    def send(self, data: bytes) -> None:
        if self._proto is not None:
            self._proto.send(data)
        elif self._ssh_proc is not None:
            self._ssh_proc.stdin.write(data)

    async def connect(self) -> None:
        loop = asyncio.get_running_loop()
        if self.transport == "telnet":
            _, proto = await loop.create_connection(
                lambda: TelnetProtocol(self._on_data, self._on_lost), self.host, self.port
            )
            self._proto = proto
        else:
            import asyncssh

            self._ssh = await asyncssh.connect(
                self.host, self.port, username=self.name, password=PASSWORD,
                known_hosts=None, client_keys=None, agent_path=None,
                preferred_auth="password",
            )  # fmt: skip
            self._ssh_proc = await self._ssh.create_process(
                term_type="xterm", term_size=(WIDTH, HEIGHT), encoding=None
            )
            self._ssh_task = asyncio.create_task(self._ssh_pump())

    async def _ssh_pump(self) -> None:
        try:
            while True:
                data = await self._ssh_proc.stdout.read(65536)
                if not data:
                    break
                self._on_data(data)
        except Exception:
            pass
        self._on_lost()

    async def wait_for(self, needle: str, timeout: float) -> None:
        end = time.monotonic() + timeout
        while needle not in self.screen.text():
            if self.closed:
                raise ConnectionError(f"closed while waiting for {needle!r}")
            left = end - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"{self.name}: no {needle!r} on screen")
            self._changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), min(left, 1.0))

    async def login(self, timeout: float = 60.0) -> None:
        """Connect and sign in until the main menu shows; ``stats.login_ms`` is the time."""
        t0 = time.perf_counter()
        try:
            await self.connect()
            if self.transport == "telnet":
                await self.wait_for("Name: ", timeout)
                self.send(self.name.encode() + b"\r")
                await self.wait_for("Password: ", timeout)
                self.send(PASSWORD.encode() + b"\r")
            await self.wait_for("Main Menu", timeout)
            self.stats.login_ms = (time.perf_counter() - t0) * 1000
        except Exception as exc:
            self.stats.error = f"{type(exc).__name__}: {exc}"
            self.close()

    def close(self) -> None:
        self.closed = True
        if self._proto is not None and self._proto.transport is not None:
            self._proto.transport.close()
        if self._ssh is not None:
            self._ssh.close()
        if self._ssh_task is not None:
            self._ssh_task.cancel()

    # --- keys ----------------------------------------------------------------------
    async def press(self, key: bytes, timeout: float = 10.0) -> None:
        """Send one key and time the first byte back."""
        label = self._label(key)
        loop = asyncio.get_running_loop()
        self._first_byte = loop.create_future()
        sent = time.perf_counter()
        self.send(key)
        try:
            got = await asyncio.wait_for(asyncio.shield(self._first_byte), timeout)
            ms = (got - sent) * 1000
            self.stats.latencies.append((time.monotonic(), ms))
            self.stats.by_key.setdefault(label, []).append(ms)
        except TimeoutError:
            self.stats.no_response += 1
        finally:
            self._first_byte = None

    def _label(self, key: bytes) -> str:
        where = self.where()
        if self._typing:
            return "game:typing"
        return f"{where}:{key.decode(errors='replace')!r}"

    def _expect(self, looked_for: str, move: str) -> None:
        self._ack = (looked_for, move)

    def _check_ack(self) -> None:
        assert self._ack is not None and self.game is not None
        looked_for, move = self._ack
        if looked_for in self.screen.text():
            self.stats.acked.append(Acked(self.game[0], self.game[1], move, time.monotonic()))
            self._ack = None

    def where(self) -> str:
        title = self.screen.line(0)
        if "Main Menu" in title:
            return "main"
        if "Games:" in title:
            return "list"
        if "Backgammon #" in title or "Spectrangle #" in title:
            return "game"
        return "other"

    async def next_key(self) -> bytes:
        """The key this person presses now, from the screen and the game's snapshot."""
        if self._typing:
            if "Play: " not in self.screen.text():
                self._typing = ""  # the line editor is not open: start over
            else:
                ch, self._typing = self._typing[0], self._typing[1:]
                if ch == "\r":
                    move = self._pending_play
                    self._expect(f"You played {move}.", move)
                return ch.encode()
        where = self.where()
        now = await self.reader.game(self.game[0]) if self.game is not None else None
        my_turn = (
            now is not None and now[0] == "active" and self.game is not None
            and now[1] == self.game[1]
        )  # fmt: skip
        if where == "game" and my_turn and now is not None:
            key = self._game_key(now[2])
            if key is not None:
                return key
        if my_turn and where != "game":
            return self._toward_game(where)
        if where == "game":
            if self.rng.random() < 0.7:
                return b"i"  # toggle the IDs: always redraws a little
            self._browse = [b"q", b"q", b"r", b"q", b"v", b"o", b"a", b"m"]
            return self._browse.pop(0)
        if self._browse:
            return self._browse.pop(0)
        return self._toward_game(where)

    def _toward_game(self, where: str) -> bytes:
        if where == "main":
            return b"v"
        if where == "list":
            return b"\r" if "Mine" in self.screen.line(0) else b"m"
        return b"q"

    def _game_key(self, state: Any) -> bytes | None:
        from door.games.backgammon.position import DECIDE, MOVING

        text = self.screen.text()
        if "It is your turn." not in text:
            return None  # the screen has not caught up with the move yet
        phase = getattr(state, "phase", None)
        if phase == DECIDE and "Roll, or double first?" in text:
            self._expect("You rolled ", "roll")
            return b"r"
        if phase == MOVING and "You rolled " in text and "Play: " not in text:
            rules = self.reader.rules("backgammon")
            moves = list(rules.legal_moves(state))
            move = self.rng.choice(moves)
            notation = rules.format_move(state, move)
            if not move.steps and move.action == "play":
                self._expect("You could not move", notation)
                return b"\r"
            self._pending_play = notation
            self._typing = notation + "\r"
            return b":"
        return None

    async def play(self, stop: asyncio.Event) -> None:
        """Press keys, a random ``gap`` apart (uniform), until ``stop`` is set."""
        while not self.closed:
            wait = self.rng.uniform(*self.gap)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), wait)
            if stop.is_set() or self.closed:
                break
            if self._ack is not None:
                self.stats.unacked += 1  # the screen never said the move was made
                self._ack = None
            try:
                key = await self.next_key()
            except Exception as exc:  # a bug here must not silently stop the player
                self.stats.error = f"{type(exc).__name__}: {exc}"
                raise
            await self.press(key)


# --------------------------------------------------------------------------- checks


MOVES_SQL = (
    "SELECT game_id, seat, payload FROM game_events WHERE kind = 'move' ORDER BY game_id, seq"
)


def db_moves(db_path: Path) -> dict[tuple[int, int], list[str]]:
    """Every move event in the SQLite file: (game id, seat) → move texts, in order."""
    conn = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, timeout=30)
    try:
        return _moves(conn.execute(MOVES_SQL))
    finally:
        conn.close()


def _moves(rows: Any) -> dict[tuple[int, int], list[str]]:
    out: dict[tuple[int, int], list[str]] = {}
    for game_id, seat, payload in rows:
        out.setdefault((game_id, seat), []).append(str(json.loads(payload).get("move")))
    return out


class BenchDatabase:
    """The database a benchmark's server uses: the data dir's SQLite file, or — given a
    PostgreSQL ``server_url`` — a scratch database made on that server for the run (so
    earlier runs' users and games are never in the way) and dropped by :meth:`drop`."""

    def __init__(self, data_dir: Path, server_url: str = "") -> None:
        self.data_dir = data_dir
        self.server_url = server_url
        self.url = ""  # the SQLAlchemy URL for door's [database] url ("" = SQLite)
        self.name = ""
        if server_url:
            from sqlalchemy.engine import make_url

            parsed = make_url(server_url)
            if parsed.get_backend_name() != "postgresql":
                raise SystemExit("--database-url must be a postgresql+asyncpg:// URL")
            self.name = f"door_bench_{os.getpid()}_{int(time.time())}"
            self.url = parsed.set(database=self.name).render_as_string(hide_password=False)

    @property
    def is_postgresql(self) -> bool:
        return bool(self.url)

    @property
    def dsn(self) -> str:
        """The URL for asyncpg (no SQLAlchemy driver name)."""
        return self.url.replace("postgresql+asyncpg://", "postgresql://", 1)

    async def _admin(self, statement: str) -> None:
        from sqlalchemy import text
        from sqlalchemy.ext.asyncio import create_async_engine

        engine = create_async_engine(self.server_url, isolation_level="AUTOCOMMIT")
        try:
            async with engine.connect() as conn:
                await conn.execute(text(statement))
        finally:
            await engine.dispose()

    async def create(self) -> None:
        if self.is_postgresql:
            await self._admin(f"CREATE DATABASE {self.name}")

    async def drop(self) -> None:
        if self.is_postgresql:
            await self._admin(f"DROP DATABASE IF EXISTS {self.name} WITH (FORCE)")

    async def reader(self) -> GameReader:
        if self.is_postgresql:
            return await GameReader(pg_dsn=self.dsn).open()
        return await GameReader(self.data_dir / "door.sqlite3").open()

    async def moves(self) -> dict[tuple[int, int], list[str]]:
        """Every move event stored: (game id, seat) → move texts, in order."""
        if not self.is_postgresql:
            return db_moves(self.data_dir / "door.sqlite3")
        import asyncpg

        conn = await asyncpg.connect(self.dsn)
        try:
            return _moves(await conn.fetch(MOVES_SQL))
        finally:
            await conn.close()


def count_lost(acked: list[Acked], stored: dict[tuple[int, int], list[str]]) -> int:
    """Acknowledged moves not found, in order, among the stored moves of their seat."""
    by_seat: dict[tuple[int, int], list[str]] = {}
    for a in sorted(acked, key=lambda a: a.at):
        by_seat.setdefault((a.game_id, a.seat), []).append(a.text)
    lost = 0
    for key, seen in by_seat.items():
        have = stored.get(key, [])
        i = 0
        for text in seen:
            while i < len(have) and have[i] != text:
                i += 1
            if i >= len(have):
                lost += 1
            else:
                i += 1
    return lost


# --------------------------------------------------------------------------- set-up


async def prepare(
    data_dir: Path, names: list[str], pairs: int, database_url: str = ""
) -> dict[str, tuple[int, int]]:
    """Create ``names`` (one real scrypt hash shared by all, computed once) and a
    backgammon money game between each of the first ``pairs`` pairs, through the services
    on the database the server will use (the SQLite file in ``data_dir``, or
    ``database_url``). Returns name → (game id, seat)."""
    from dataclasses import replace

    from door.config import load_config
    from door.services import accounts as accounts_module
    from door.services import build_services
    from door.services.games import SeatSpec

    hashed = accounts_module.hash_password(PASSWORD)
    real = accounts_module.hash_password
    accounts_module.hash_password = lambda password, salt=None: hashed  # type: ignore[assignment]
    config = load_config(data_dir=data_dir)
    if database_url:
        config = replace(config, database=replace(config.database, url=database_url))
    services = await build_services(config, start_background=False)
    games: dict[str, tuple[int, int]] = {}
    try:
        users = {}
        for name in names:
            users[name] = await services.accounts.register(name, PASSWORD)
        for i in range(pairs):
            a, b = names[2 * i], names[2 * i + 1]
            info = await services.games.begin(
                users[a].id, "backgammon", {"match_length": 0},
                [SeatSpec("me"), SeatSpec("user", b)],
            )  # fmt: skip
            await services.games.join(info.id, users[b].id)
            games[a] = (info.id, 0)
            games[b] = (info.id, 1)
    finally:
        accounts_module.hash_password = real  # type: ignore[assignment]
        await services.close()
    return games


def write_config(data_dir: Path, connections: int, database_url: str = "") -> Path:
    """door.toml for the benchmark: limits wide enough for every simulated player (each
    worker of ``--workers`` has its own), no bots, and the database."""
    config = data_dir / "door.toml"
    config.write_text(
        (f'[database]\nurl = "{database_url}"\n' if database_url else "")
        + "[limits]\n"
        f"max_connections = {connections + 200}\n"
        f"max_per_address = {connections + 200}\n"
        # every simulated player logs in from 127.0.0.1, many at once
        f"max_preauth = {connections + 200}\n"
        f"max_preauth_per_address = {connections + 200}\n"
        "[games]\nbots = false\n"
    )
    return config


class Server:
    """``door serve`` in a subprocess on 127.0.0.1 with fixed ports: one process, or with
    ``workers`` > 1 a supervisor and its workers sharing the ports (PostgreSQL only). Its
    standard error goes to ``server.log`` in the data dir."""

    def __init__(self, data_dir: Path, config: Path, telnet_port: int, ssh_port: int,
                 extra: list[str] | None = None, workers: int = 1) -> None:
        self.data_dir = data_dir
        self.config = config
        self.telnet_port = telnet_port
        self.ssh_port = ssh_port
        self.extra = extra or []
        self.workers = workers
        self.proc: subprocess.Popen[bytes] | None = None
        self.started_at = 0.0
        self.log = data_dir / "server.log"

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def pids(self) -> list[int]:
        """Every process serving now: the server, or the supervisor and its workers."""
        return [self.pid, *child_pids(self.pid)] if self.workers > 1 else [self.pid]

    def cpu_seconds(self) -> float:
        """CPU time of every process serving now (a worker that died takes its share)."""
        total = 0.0
        for pid in self.pids():
            with contextlib.suppress(OSError):
                total += cpu_seconds(pid)
        return total

    def rss_kib(self) -> int:
        total = 0
        for pid in self.pids():
            with contextlib.suppress(OSError, RuntimeError):
                total += rss_kib(pid)
        return total

    def command(self) -> list[str]:
        workers = ["--workers", str(self.workers)] if self.workers > 1 else []
        return [
            sys.executable, "-m", "door", "serve", "--config", str(self.config),
            "--data-dir", str(self.data_dir), "--host", "127.0.0.1",
            "--telnet-port", str(self.telnet_port), "--ssh-port", str(self.ssh_port),
            *workers,
        ]  # fmt: skip

    def start(self, prefix: list[str] | None = None, stall_file: Path | None = None) -> None:
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        if os.environ.get("DOOR_BENCH_SERVER_PYTHONPATH"):
            # e.g. a sitecustomize that instruments the server (profiling experiments)
            env["PYTHONPATH"] = os.environ["DOOR_BENCH_SERVER_PYTHONPATH"] + os.pathsep + str(ROOT)
        elif stall_file is not None and self.workers == 1:
            # bench/stallwatch/sitecustomize.py times every event-loop callback (one
            # process: workers would all write the one file)
            env["PYTHONPATH"] = str(ROOT / "bench" / "stallwatch") + os.pathsep + str(ROOT)
            env["DOOR_STALL_FILE"] = str(stall_file)
        self.started_at = time.monotonic()
        with open(self.log, "ab") as err:
            self.proc = subprocess.Popen(
                (prefix or []) + self.command() + self.extra,
                stdout=subprocess.PIPE, stderr=err, env=env, cwd=self.data_dir,
            )  # fmt: skip

    def _log_tail(self) -> str:
        with contextlib.suppress(OSError):
            return self.log.read_text(errors="replace")[-2000:]
        return ""

    async def wait_serving(self, timeout: float = 60.0) -> float:
        """Seconds from ``start()`` until the telnet port greets a connection (with
        workers: once the supervisor says every worker is serving)."""
        end = time.monotonic() + timeout
        if self.workers > 1:
            assert self.proc is not None and self.proc.stdout is not None
            line = await asyncio.wait_for(asyncio.to_thread(self.proc.stdout.readline), timeout)
            if b"serving" not in line:
                self.proc.wait(10)
                raise RuntimeError(f"server exited ({self.proc.returncode}): {self._log_tail()}")
        while time.monotonic() < end:
            if self.proc is not None and self.proc.poll() is not None:
                raise RuntimeError(f"server exited ({self.proc.returncode}): {self._log_tail()}")
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", self.telnet_port)
            except OSError:
                await asyncio.sleep(0.02)
                continue
            try:
                data = await asyncio.wait_for(reader.read(1), 5)
            finally:
                writer.close()
            if data:
                return time.monotonic() - self.started_at
        raise TimeoutError("the server did not start")

    def kill(self) -> None:
        """SIGKILL every serving process, as a crash of the machine would end them: the
        supervisor is frozen first (so it restarts no one and its workers do not see it
        go), then the workers and the supervisor are killed."""
        if self.proc is None or self.proc.poll() is not None:
            return
        if self.workers > 1:
            os.kill(self.pid, signal.SIGSTOP)
        workers = self.pids()[1:]
        for pid in workers:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        self.proc.kill()
        self.proc.wait()
        for pid in workers:  # dead (a zombie at most) once its sockets are closed
            for _ in range(500):
                try:
                    state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
                except OSError:
                    break
                if state in ("Z", "X"):
                    break
                time.sleep(0.01)

    def stop(self, timeout: float = 30.0) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()


def door_check(data_dir: Path, config: Path) -> tuple[int, str]:
    """Run ``door check`` on the data dir: (exit status, output)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run(
        [sys.executable, "-m", "door", "check", "--config", str(config),
         "--data-dir", str(data_dir)],
        capture_output=True, text=True, env=env, timeout=300,
    )  # fmt: skip
    return out.returncode, (out.stdout + out.stderr).strip()


# --------------------------------------------------------------------------- echo

ECHO_SERVER = r"""
import asyncio, sys
class Echo(asyncio.Protocol):
    def connection_made(self, t): self.t = t
    def data_received(self, d): self.t.write(d)
async def main():
    s = await asyncio.get_running_loop().create_server(Echo, "127.0.0.1", 0, backlog=1024)
    print(s.sockets[0].getsockname()[1], flush=True)
    await asyncio.Event().wait()
asyncio.run(main())
"""


class _EchoClient(asyncio.Protocol):
    def __init__(self) -> None:
        self.waiter: asyncio.Future[float] | None = None
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_result(time.perf_counter())


async def run_echo(
    connections: int, seconds: float, gap: tuple[float, float], rate: float, seed: int
) -> dict[str, Any]:
    """A bare asyncio echo server in a subprocess, ``connections`` clients each sending a
    byte every ``gap`` seconds (uniform) for ``seconds``; round-trip figures."""
    proc = subprocess.Popen([sys.executable, "-c", ECHO_SERVER], stdout=subprocess.PIPE)
    try:
        assert proc.stdout is not None
        port = int((await asyncio.to_thread(proc.stdout.readline)).strip())
        loop = asyncio.get_running_loop()
        clients: list[_EchoClient] = []
        for _ in range(connections):
            _, c = await loop.create_connection(_EchoClient, "127.0.0.1", port)
            clients.append(c)
            if rate > 0:
                await asyncio.sleep(1.0 / rate)
        samples: list[float] = []
        rng = random.Random(seed)
        end = time.monotonic() + seconds
        cpu0, t0 = cpu_seconds(proc.pid), time.monotonic()

        async def drive(c: _EchoClient, r: random.Random) -> None:
            while True:
                wait = r.uniform(*gap)
                if time.monotonic() + wait >= end:
                    return
                await asyncio.sleep(wait)
                c.waiter = loop.create_future()
                sent = time.perf_counter()
                assert c.transport is not None
                c.transport.write(b"x")
                got = await asyncio.wait_for(c.waiter, 10)
                samples.append((got - sent) * 1000)

        await asyncio.gather(*(drive(c, random.Random(rng.random())) for c in clients))
        cpu_pct = (cpu_seconds(proc.pid) - cpu0) / (time.monotonic() - t0) * 100
        for c in clients:
            if c.transport is not None:
                c.transport.close()
        return {
            "echo_samples": len(samples),
            "echo_p50_ms": round(pct(samples, 50) or 0.0, 3),
            "echo_p99_ms": round(pct(samples, 99) or 0.0, 3),
            "echo_cpu_pct": round(cpu_pct, 1),
        }
    finally:
        proc.kill()
        proc.wait()


async def loop_lag(samples: list[float], stop: asyncio.Event, every: float = 0.1) -> None:
    """How late this (client) event loop wakes up: a measure of the clients' own load."""
    while not stop.is_set():
        t = time.perf_counter()
        await asyncio.sleep(every)
        samples.append((time.perf_counter() - t - every) * 1000)


@dataclass
class Ramp:
    """The players' log-in ramp: each one's task (log in, then play until ``stop``), the
    ramp's start and end (monotonic seconds), the server's CPU seconds spent on it and how
    many logged in."""

    tasks: list[asyncio.Task[None]]
    t0: float
    t1: float
    server_cpu_s: float
    logged_in: int


async def ramp_up(
    players: list[Player], rate: float, stop: asyncio.Event, server: Server
) -> Ramp:
    """Start ``players`` at ``rate`` a second, each playing once logged in until ``stop``;
    returns when every one has logged in or failed."""

    async def live(p: Player) -> None:
        await p.login()
        if p.stats.error is None:
            await p.play(stop)

    tasks: list[asyncio.Task[None]] = []
    t0 = time.monotonic()
    cpu0 = server.cpu_seconds()
    for p in players:
        tasks.append(asyncio.create_task(live(p)))
        await asyncio.sleep(1.0 / rate)
    while any(p.stats.login_ms is None and p.stats.error is None for p in players):
        await asyncio.sleep(0.1)
    logged_in = sum(1 for p in players if p.stats.login_ms is not None)
    return Ramp(tasks, t0, time.monotonic(), server.cpu_seconds() - cpu0, logged_in)
