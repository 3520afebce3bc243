"""Chat load: ``--players`` (500) simulated telnet players in games of two (250), each
playing its game and saying a chat line every ``--every`` seconds (10) from the game's
screen, against a real ``door serve`` on 127.0.0.1.

The measured window opens once every player who logged in is on its game screen (at most
``--settle`` seconds after the ramp). A line is timed from the Enter that sends it to the
moment the opponent's screen shows it ("Chat <name>: <tag>"). It counts as said once its
author's "Chat:" prompt was open for it and closed on its Enter (the server took it; a line
the server refused, with its reason left on the prompt, is counted apart as
``refused_lines``). When the window ends no new line is begun, and the players keep
playing until every line said has reached its opponent's screen, or ``--drain`` seconds
(10) pass: a line still unseen then is lost. Key latency is every key's send → first byte
back, as bench/load.py measures it. The last line printed is one JSON object with
``chat_delivery_p99_ms``, ``key_p99_ms`` and ``lost_messages``; each lost line is named on
standard error.

    nice python3 bench/chat.py --players 500 --seconds 60
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import re
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from loadlib import (
    HEIGHT,
    BenchDatabase,
    Player,
    Server,
    free_port,
    pct,
    prepare,
    ramp_up,
    write_config,
)

TAG = re.compile(r"Chat (\w+): (m\d+x\d+)")


class ChatPlayer(Player):
    """A player who stays on its game's screen (no browsing: its opponent's lines must
    find it there) and says a tagged line every ``every`` seconds."""

    sent: dict[str, float]
    """Every tag said (shared by all players) → when its Enter was sent."""
    seen: dict[str, float]
    """Every tag → when the opponent's screen first showed it."""
    to: dict[str, str]
    """Every tag → the opponent it was said to."""
    refused: list[str]
    """The status line of every line the server refused (its prompt stayed open)."""
    quiet = False
    """Set when the window ends: no new line is begun (those said are waited for)."""

    def __init__(self, *args: object, every: float, **kw: object) -> None:
        super().__init__(*args, **kw)  # type: ignore[arg-type]
        self.every = every
        self.next_chat = time.monotonic() + random.uniform(0, every)
        self.count = 0
        self.opponent = ""
        self.chatting = False
        """True from the C that opens the prompt until the line is taken or refused."""

    def _on_data(self, data: bytes) -> None:
        super()._on_data(data)
        now = time.perf_counter()
        for name, tag in TAG.findall(self.screen.text()):
            if name == self.opponent and tag not in self.seen:
                self.seen[tag] = now

    async def next_key(self) -> bytes:
        key = await super().next_key()
        if self.where() != "game":
            return key
        if key not in (b"i",) and key in (b"q", b"r", b"v", b"o", b"a", b"m"):
            self._browse = []
            key = b"i"  # stay on the game screen
        if (key == b"i" and not self._typing and time.monotonic() >= self.next_chat
                and not ChatPlayer.quiet and "Play: " not in self.screen.text()):  # fmt: skip
            self.next_chat = time.monotonic() + self.every
            await self._chat()
            return b"i"
        return key

    async def _chat(self) -> None:
        self.chatting = True
        try:
            await self._say_a_line()
        finally:
            self.chatting = False

    async def _say_a_line(self) -> None:
        self.count += 1
        game, seat = self.game if self.game is not None else (0, 0)
        tag = f"m{game}{seat}x{self.count}"  # unique: the game, the seat, the count
        await self.press(b"c")
        try:  # a line counts only once its prompt is open (not over a playback, say)
            await self.wait_for("Chat: ", 2.0)
        except (TimeoutError, ConnectionError):
            self.send(b"\x1b")
            return
        self.send(tag.encode())
        sent = time.perf_counter()
        self.to[tag] = self.opponent
        self.sent[tag] = sent
        await self.press(b"\r")
        # the prompt closes only when the server took the line (committed, then published)
        end = time.monotonic() + 10.0
        while "Chat: " in self.screen.text() and not self.closed and time.monotonic() < end:
            self._changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), 0.5)
        if "Chat: " in self.screen.text():
            if self.sent.pop(tag, None) is not None:  # (not one from before the window)
                self.refused.append(self.screen.line(HEIGHT - 2).strip() or "(no reason)")
            self.send(b"\x1b")


async def run(args: argparse.Namespace) -> dict[str, object]:
    rng = random.Random(args.seed)
    names = [f"tel{i:04d}" for i in range(args.players)]
    with tempfile.TemporaryDirectory(prefix="door-chat-") as tmp:
        data_dir = Path(tmp)
        database = BenchDatabase(data_dir, "")
        await database.create()
        games = await prepare(data_dir, names, args.players // 2, database.url)
        config = write_config(data_dir, args.players, database.url)
        server = Server(data_dir, config, free_port(), 0)
        server.start()
        await server.wait_serving()
        reader = await database.reader()
        sent: dict[str, float] = {}
        seen: dict[str, float] = {}
        to: dict[str, str] = {}
        refused: list[str] = []
        ChatPlayer.sent, ChatPlayer.seen, ChatPlayer.to = sent, seen, to
        ChatPlayer.refused = refused
        players = [
            ChatPlayer(n, "telnet", "127.0.0.1", server.telnet_port, games.get(n), reader,
                       random.Random(rng.random()), (args.gap_min, args.gap_max),
                       every=args.every)
            for n in names
        ]  # fmt: skip
        by_game: dict[int, list[ChatPlayer]] = {}
        for p in players:
            if p.game is not None:
                by_game.setdefault(p.game[0], []).append(p)
        for pair in by_game.values():
            if len(pair) == 2:
                pair[0].opponent, pair[1].opponent = pair[1].name, pair[0].name
        stop = asyncio.Event()
        ramp = await ramp_up(players, args.rate, stop, server)
        print(f"ramp: {ramp.logged_in}/{len(players)} logged in over "
              f"{ramp.t1 - ramp.t0:.1f}s", flush=True)  # fmt: skip
        # a line to an opponent still on its way to the game screen could not show there
        live = [p for p in players if p.stats.login_ms is not None and not p.closed]
        settle_end = time.monotonic() + args.settle
        while time.monotonic() < settle_end and any(p.where() != "game" for p in live):
            await asyncio.sleep(0.1)
        elsewhere = sum(1 for p in live if p.where() != "game")
        for p in players:
            p.stats.latencies.clear()
        sent.clear()
        seen.clear()
        refused.clear()
        t0 = time.monotonic()
        await asyncio.sleep(args.seconds)
        ChatPlayer.quiet = True  # no new line; a prompt open now still sends its own
        await asyncio.sleep(0)
        drain_end = time.monotonic() + args.drain
        reachable = {p.name for p in live if not p.closed}
        while time.monotonic() < drain_end and (
            any(t not in seen and to.get(t) in reachable for t in sent)
            or any(p.chatting for p in live)
        ):
            await asyncio.sleep(0.1)
        drained = round(args.drain - max(drain_end - time.monotonic(), 0.0), 1)
        said = dict(sent)  # the lines of the measured window, every one given its time
        stop.set()
        await asyncio.gather(*ramp.tasks, return_exceptions=True)
        for p in players:
            p.close()
        server.stop()
        await database.drop()
    # a line to an opponent who never logged in (or was cut off) could not arrive
    down = {p.name for p in players if p.stats.error or (p.closed and p.stats.login_ms is None)}
    said = {t: s for t, s in said.items() if to.get(t) not in down}
    delivery = [(seen[t] - s) * 1000 for t, s in said.items() if t in seen]
    lost = sum(1 for t in said if t not in seen)
    authors = {f"m{p.game[0]}{p.game[1]}": p.name for p in players if p.game is not None}
    for t in sorted(t for t in said if t not in seen):
        author = authors.get(t.split("x")[0], "?")
        print(f"lost: {t} from {author} to {to.get(t)}", file=sys.stderr)
    keys = [ms for p in players for _, ms in p.stats.latencies]
    load = os.getloadavg()
    result = {
        "players": len(players), "games": len(by_game), "seconds": round(time.monotonic() - t0, 1),
        "chat_lines": len(said), "chat_delivery_p50_ms": _r(pct(delivery, 50)),
        "chat_delivery_p99_ms": _r(pct(delivery, 99)), "key_p50_ms": _r(pct(keys, 50)),
        "key_p99_ms": _r(pct(keys, 99)), "keys": len(keys), "lost_messages": lost,
        "refused_lines": len(refused), "not_on_game_screen": elsewhere,
        "drain_s": drained, "errors": sum(1 for p in players if p.stats.error),
        "loadavg_1m": round(load[0], 2),
    }  # fmt: skip
    for reason in refused:
        print(f"refused: {reason}", file=sys.stderr)
    print(f"{len(said)} lines said, {len(delivery)} delivered, {lost} lost; "
          f"delivery p50 {result['chat_delivery_p50_ms']} ms p99 "
          f"{result['chat_delivery_p99_ms']} ms; keys p99 {result['key_p99_ms']} ms; "
          f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")  # fmt: skip
    return result


def _r(v: float | None) -> float | None:
    return None if v is None else round(v, 1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--players", type=int, default=500)
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--every", type=float, default=10.0, help="seconds between a player's lines")
    ap.add_argument("--rate", type=float, default=50.0, help="logins a second in the ramp")
    ap.add_argument("--gap-min", type=float, default=1.0)
    ap.add_argument("--gap-max", type=float, default=3.0)
    ap.add_argument("--seed", type=int, default=17)
    ap.add_argument("--settle", type=float, default=30.0,
                    help="seconds at most for every player to reach its game screen")  # fmt: skip
    ap.add_argument("--drain", type=float, default=10.0,
                    help="seconds at most for the lines in flight at the end")  # fmt: skip
    print(json.dumps(asyncio.run(run(ap.parse_args()))))


if __name__ == "__main__":
    main()
