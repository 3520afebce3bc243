"""What one key costs the server, in one process, without the network.

Real sessions (``door.session.Session``: screens, services, SQLite) on a database set up
like ``bench/load.py``'s (N users, a backgammon money game between each pair), driven by
the same browsing and playing pattern as load.py's players, but with an in-memory terminal
that only counts bytes. Each key is handled to the end — the opponent's notice and redraw
included — before the next one, and its CPU time is charged to (screen, key). This is the
per-key cost that decides how many players one event loop can serve; load.py measures the
whole server over the network.

    python3 bench/session_keys.py [--users 550] [--sessions 100] [--keys 4000] [--warmup 1000]
                                  [--profile F]

The first ``--warmup`` keys are pressed the same way but not measured: what a process
does once (compiling a statement's shape, loading the hint engine for the first game
screen, filling the render caches) is not a key's cost; ``warmup_cpu_ms_per_key`` shows
it. The last line is one JSON object: ``cpu_ms_per_key`` overall (every thread of the
process) and by kind of key, and ``loop_cpu_ms_per_key`` (the event loop's thread alone).
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from loadlib import prepare

from door.ui.terminal import Caps, Encoding, InputEvent, Key, Text


class CountingTerminal:
    """A ``Terminal`` in memory that encodes what it is sent and only counts it."""

    def __init__(self, encoding: Encoding = "utf-8") -> None:
        self._caps = Caps(encoding=encoding, colors=16, width=80, height=24, term="xterm",
                          transport="fake")  # fmt: skip
        self.queue: asyncio.Queue[InputEvent] = asyncio.Queue()
        self.waiting = False
        self.bytes_out = 0

    @property
    def caps(self) -> Caps:
        return self._caps

    @property
    def peer(self) -> str:
        return "127.0.0.1:1"

    def set_encoding(self, encoding: Encoding) -> None:
        self._caps = Caps(encoding=encoding, colors=16, width=80, height=24, term="xterm",
                          transport="fake")  # fmt: skip

    async def read_event(self, timeout: float | None = None) -> InputEvent | None:
        self.waiting = True
        try:
            return await self.queue.get()
        finally:
            self.waiting = False

    def write(self, text: str) -> None:
        self.bytes_out += len(text.encode(self._caps.encoding, errors="replace"))

    async def drain(self) -> None:
        return None

    def bell(self) -> None:
        self.write("\x07")

    async def close(self, message: str | None = None) -> None:
        return None


def toward_game(where: str, top: Any) -> str:
    """The key that heads for the player's game from ``where`` (as load.py's players)."""
    if where == "MainMenu":
        return "v"
    if where == "GameListScreen":
        return "\r" if "mine" in str(getattr(top, "which", "")) else "m"
    return "q"


def label(screen: Any, key: str, typing: bool) -> str:
    name = type(screen).__name__
    where = {"MainMenu": "main", "GameListScreen": "list", "BackgammonScreen": "game"}.get(
        name, "other"
    )
    return "game:typing" if typing else f"{where}:{key!r}"


async def run(args: argparse.Namespace) -> dict[str, Any]:
    from door.config import load_config
    from door.games.backgammon.position import DECIDE, MOVING
    from door.services import build_services
    from door.session import Session
    from door.ui.screens import first_screens

    rng = random.Random(args.seed)
    names = [f"tel{i:04d}" for i in range(args.users)]
    with tempfile.TemporaryDirectory(prefix="door-keys-") as tmp:
        data_dir = Path(tmp)
        seats = await prepare(data_dir, names, args.users // 2)
        # seeded dice: runs of one seed press the same keys, so before/after compare
        services = await build_services(
            load_config(data_dir=data_dir), rng=random.Random(args.seed), start_background=False
        )
        rules = services.games.registry["backgammon"]
        from door.ui.caches import RenderCaches

        caches = RenderCaches()  # one for every session, as App hands down
        people = []
        tasks = []
        for name in names[: args.sessions]:
            user = await services.accounts.by_name(name)
            assert user is not None
            term = CountingTerminal()
            session = Session(term, services, user, caches)
            screens = await first_screens(session.ctx, None)
            session.stack.extend(screens[:-1])
            for screen in screens[:-1]:
                await session._enter(screen)
            tasks.append(asyncio.ensure_future(session.run(screens[-1])))
            people.append({"name": name, "term": term, "session": session, "typing": "",
                           "browse": [], "game": seats[name]})  # fmt: skip

        async def settle() -> None:
            for _ in range(200):
                await asyncio.sleep(0)
                if all(p["term"].waiting and p["term"].queue.empty() for p in people):
                    # and nothing queued on the hub for anyone
                    await asyncio.sleep(0)
                    if all(p["term"].waiting for p in people):
                        return
            raise RuntimeError("sessions did not settle")

        await settle()

        async def next_key(p: dict[str, Any]) -> str:
            session = p["session"]
            top = session.stack[-1]
            if p["typing"]:
                ch, p["typing"] = p["typing"][0], p["typing"][1:]
                return ch
            game_id, seat = p["game"]
            snap = await services.games.get(game_id)
            my_turn = snap.info.status == "active" and snap.info.to_act == seat
            where = type(top).__name__
            if where == "BackgammonScreen" and my_turn and getattr(top, "game_id", None) == game_id:
                state = snap.state
                if state.phase == DECIDE:
                    return "r"
                if state.phase == MOVING:
                    move = rng.choice(list(rules.legal_moves(state)))
                    if not move.steps and move.action == "play":
                        return "\r"
                    p["typing"] = rules.format_move(state, move) + "\r"
                    return ":"
            if my_turn and where != "BackgammonScreen":
                return toward_game(where, top)
            if where == "BackgammonScreen":
                if rng.random() < 0.7:
                    return "i"
                p["browse"] = ["q", "q", "r", "q", "v", "o", "a", "m"]
                return p["browse"].pop(0)
            if p["browse"]:
                return str(p["browse"].pop(0))
            return toward_game(where, top)

        async def press(p: dict[str, Any], key: str) -> None:
            p["term"].queue.put_nowait(Key("enter") if key == "\r" else Text(key))
            await settle()

        # Warm-up, not measured: what a process does once, not once a key (compiling
        # each statement's shape, loading the hint engine when the first game screen
        # opens, filling the render caches) would otherwise be charged to the first keys.
        warm_cpu = time.process_time()
        for _ in range(args.warmup):
            p = rng.choice(people)
            await press(p, await next_key(p))
        warm_cpu = time.process_time() - warm_cpu

        costs: dict[str, list[float]] = {}
        profile = cProfile.Profile() if args.profile else None
        total_cpu = 0.0
        loop_cpu = 0.0
        bytes_before = sum(p["term"].bytes_out for p in people)
        for _ in range(args.keys):
            p = rng.choice(people)
            typing = bool(p["typing"])
            key = await next_key(p)
            tag = label(p["session"].stack[-1], key, typing)
            c0, t0 = time.process_time(), time.thread_time()
            if profile is not None:
                profile.enable()
            await press(p, key)
            if profile is not None:
                profile.disable()
            spent = time.process_time() - c0
            loop_cpu += time.thread_time() - t0
            total_cpu += spent
            costs.setdefault(tag, []).append(spent * 1000)
        bytes_out = sum(p["term"].bytes_out for p in people) - bytes_before
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await services.close()
        if profile is not None:
            profile.dump_stats(args.profile)
    print(f"{'key':<18} {'count':>6} {'mean ms':>8} {'share':>6}")
    for tag, ms in sorted(costs.items(), key=lambda kv: -sum(kv[1])):
        print(f"{tag:<18} {len(ms):6d} {sum(ms) / len(ms):8.3f} "
              f"{100 * sum(ms) / (total_cpu * 1000):5.1f}%")  # fmt: skip
    return {
        "keys": args.keys,
        "sessions": args.sessions,
        "cpu_ms_per_key": round(total_cpu * 1000 / args.keys, 3),
        "loop_cpu_ms_per_key": round(loop_cpu * 1000 / args.keys, 3),
        "warmup_keys": args.warmup,
        "warmup_cpu_ms_per_key": round(warm_cpu * 1000 / max(1, args.warmup), 3),
        "bytes_per_key": round(bytes_out / args.keys, 1),
        "by_key_ms": {t: round(sum(v) / len(v), 3) for t, v in sorted(costs.items())},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--users", type=int, default=550)
    parser.add_argument("--sessions", type=int, default=100)
    parser.add_argument("--keys", type=int, default=4000)
    parser.add_argument("--warmup", type=int, default=1000, help="keys pressed before measuring")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--profile", default="", help="write cProfile stats here")
    args = parser.parse_args()
    print(json.dumps(asyncio.run(run(args))))


if __name__ == "__main__":
    main()
