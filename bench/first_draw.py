"""Key-to-screen latency of each screen's first draw and of the first backgammon hint.

One process, real services on a fresh SQLite database, one real session on an in-memory
terminal read with pyte (the same emulator the screen tests use). Each key's figure runs
from the moment the key is queued to the moment what it changed is written, drained, and
the session waits for the next key; for the hint, to the moment the hints are on the
screen. The first hint is measured twice: pressed the instant the game opens (the engine
is still loading in the background: "Thinking..." shows, then the hints) and pressed
after a person's pause (``--pause``, default 1.5 s) in a fresh process-like state (a new
bot runner, nothing loaded).

    python3 bench/first_draw.py [--pause 1.5]

The target (issue 16): no key over 300 ms on a quiet machine. The last line is one JSON
object: ``ms`` by screen key, ``worst_ms`` and ``over_300ms``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import pyte
from loadlib import prepare

from door.ui.terminal import Caps, InputEvent, Key, Text


class TimedTerminal:
    """A ``Terminal`` in memory: a pyte screen, and the time of the last write."""

    def __init__(self) -> None:
        self._caps = Caps(encoding="utf-8", colors=16, width=80, height=24, term="xterm",
                          transport="fake")  # fmt: skip
        self.queue: asyncio.Queue[InputEvent] = asyncio.Queue()
        self.waiting = False
        self.screen = pyte.Screen(80, 24)
        self.stream = pyte.Stream(self.screen)
        self.last_write = 0.0
        self.writes: list[float] = []

    @property
    def caps(self) -> Caps:
        return self._caps

    @property
    def peer(self) -> str:
        return "127.0.0.1:1"

    def set_encoding(self, encoding: Any) -> None:
        return None

    async def read_event(self, timeout: float | None = None) -> InputEvent | None:
        self.waiting = True
        try:
            return await self.queue.get()
        finally:
            self.waiting = False

    def write(self, text: str) -> None:
        self.stream.feed(text)
        self.last_write = time.perf_counter()
        self.writes.append(self.last_write)

    async def drain(self) -> None:
        return None

    def bell(self) -> None:
        return None

    async def close(self, message: str | None = None) -> None:
        return None

    def text(self) -> str:
        return "\n".join(self.screen.display)


async def press(term: TimedTerminal, key: str, until: str | None = None) -> float:
    """Queue ``key``; milliseconds until the session is idle again (and ``until`` shows)."""
    start = time.perf_counter()
    term.queue.put_nowait(Key(key) if len(key) > 1 else Text(key))
    await asyncio.sleep(0)
    while True:
        await asyncio.sleep(0.001)
        if term.waiting and term.queue.empty() and (until is None or until in term.text()):
            return (max(term.last_write, start) - start) * 1000


async def hint(term: TimedTerminal) -> tuple[float, float]:
    """Press H: (ms to the first change on the screen, ms until the hints show)."""
    start = time.perf_counter()
    term.writes.clear()
    hints = await press(term, "h", "Hints:")
    first = (term.writes[0] - start) * 1000 if term.writes else hints
    return round(first, 1), round(hints, 1)


async def run(args: argparse.Namespace) -> dict[str, Any]:
    from door.config import load_config
    from door.services import build_services
    from door.services.bots import BotRunner
    from door.session import Session
    from door.ui.screens import first_screens

    names = ["alice", "bob"]
    with tempfile.TemporaryDirectory(prefix="door-first-draw-") as tmp:
        data_dir = Path(tmp)
        seats = await prepare(data_dir, names, 1)
        services = await build_services(load_config(data_dir=data_dir), start_background=False)
        ms: dict[str, float] = {}
        try:
            gid, _ = seats["alice"]
            snap = await services.games.get(gid)
            mover = names[snap.state.turn]
            user = await services.accounts.by_name(mover)
            assert user is not None
            term = TimedTerminal()
            session = Session(term, services, user)
            screens = await first_screens(session.ctx, None)
            session.stack.extend(screens[:-1])
            task = asyncio.ensure_future(session.run(screens[-1]))
            await asyncio.sleep(0.2)
            # every screen the main menu opens, and back
            for key, name in (("v", "view games"), ("p", "play"), ("b", "begin"),
                              ("i", "instructions"), ("r", "rank"), ("y", "settings")):
                ms[f"open {name}"] = round(await press(term, key), 1)
                ms[f"back from {name}"] = round(await press(term, "escape"), 1)
            # the game, then the first hint pressed at once (the engine still loading)
            services.bots = BotRunner(services)
            ms["open the game (P, Enter)"] = round(
                await press(term, "p") + await press(term, "enter"), 1
            )
            first, shown = await hint(term)
            ms["first H at once: first change"] = first
            ms["first H at once: hints shown"] = shown
            first, shown = await hint(term)
            ms["second H: hints shown"] = shown
            await services.bots.stop()
            # a fresh runner (nothing loaded), H after a person's pause
            services.bots = BotRunner(services)
            await press(term, "q")
            await press(term, "p")
            await press(term, "enter")
            await asyncio.sleep(args.pause)
            first, shown = await hint(term)
            ms[f"first H after {args.pause}s: first change"] = first
            ms[f"first H after {args.pause}s: hints shown"] = shown
            term.queue.put_nowait(Key("q"))
            term.queue.put_nowait(Key("escape"))
            task.cancel()
        finally:
            if services.bots is not None:
                await services.bots.stop()
            await services.close()
    for name, value in ms.items():
        print(f"{name:<34} {value:8.1f} ms")
    worst = max(ms.values())
    return {"ms": ms, "worst_ms": worst, "over_300ms": [k for k, v in ms.items() if v > 300]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pause", type=float, default=1.5)
    result = asyncio.run(run(parser.parse_args()))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
