"""Bytes on the wire: what door sends for common actions, beside a full redraw.

Runs real sessions (``door.session``) over an in-memory terminal on a temp-dir SQLite
database and counts the encoded bytes written for:

  (a) logging in, from connect to the main menu;
  (b) one checker step in Backgammon (the Enter that drops a lifted checker), and one
      cursor step (an arrow key);
  (c) a complete Backgammon turn with the cursor keys (pick up, drop, confirm);
  (d) a Spectrangle placement (the Enter that sends a typed placement);

each beside a full redraw of the same screen (Ctrl-L), in CP437 and in UTF-8. The last
line is one JSON object; ``checker_step_bytes`` is the worst of the two encodings and
``full_redraw_ratio`` (full redraw ÷ checker step) the worst ratio.

    python3 bench/wire_bytes.py
"""

from __future__ import annotations

import asyncio
import json
import random
import sys
import tempfile
from collections import deque
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from door.config import Config, DatabaseConfig, GamesConfig  # noqa: E402
from door.services import Services, build_services  # noqa: E402
from door.services.clock import FakeClock  # noqa: E402
from door.services.games import SeatSpec  # noqa: E402
from door.session import Session, run_session  # noqa: E402
from door.ui.screens import first_screens  # noqa: E402
from tests.ui.faketerm import FakeTerminal  # noqa: E402

TARGET_STEP = 200
TARGET_RATIO = 10


async def sent_by(term: FakeTerminal, *actions: Any) -> int:
    """Bytes written while the session handles ``actions`` (callables queuing input)."""
    await term.settle()
    term.take_bytes()
    for act in actions:
        act()
    await term.settle()
    return term.take_bytes()


async def full_redraw(term: FakeTerminal) -> int:
    return await sent_by(term, lambda: term.press("ctrl-l"))


async def open_session(
    services: Services, user: Any, encoding: str, start: str | None
) -> tuple[Session, FakeTerminal, asyncio.Task[None]]:
    term = FakeTerminal(encoding=encoding)  # type: ignore[arg-type]
    session = Session(term, services, user)
    screens = await first_screens(session.ctx, start)
    session.stack.extend(screens[:-1])
    task = asyncio.create_task(session.run(screens[-1]))
    await term.settle()
    return session, term, task


async def close(term: FakeTerminal, task: asyncio.Task[None]) -> None:
    term.hangup()
    await asyncio.wait_for(task, 5)


def key_path(screen: Any, target: int) -> list[str]:
    """Arrow keys that take the backgammon cursor from where it is to ``target``
    (breadth-first over the board's own cursor rules)."""
    from door.ui.boards.backgammon import move_cursor

    start = (screen.cursor, screen.cursor_top)
    seen = {start}
    queue: deque[tuple[tuple[int, bool], list[str]]] = deque([(start, [])])
    while queue:
        (spot, top), path = queue.popleft()
        if spot == target:
            return path
        for direction in ("left", "right", "up", "down"):
            nxt = move_cursor(
                spot, direction, screen.colour, top, bar_stop=screen.bar_is_a_stop()
            )
            if nxt not in seen:
                seen.add(nxt)
                queue.append((nxt, [*path, direction]))
    raise RuntimeError(f"no cursor path to {target}")


async def login(services: Services, encoding: str) -> dict[str, int]:
    term = FakeTerminal(encoding=encoding)  # type: ignore[arg-type]
    task = asyncio.create_task(run_session(term, services, None))
    await term.settle()
    term.type("l")
    term.line("Alice")
    term.line("alice-pw")
    await term.wait_for("Main Menu")
    await term.settle()
    login_bytes = term.take_bytes()
    full = await full_redraw(term)
    await close(term, task)
    return {"login": login_bytes, "login_full": full}


async def backgammon(services: Services, users: dict[int, Any], encoding: str) -> dict[str, int]:
    a, b = users[1], users[2]
    seats = [SeatSpec("me"), SeatSpec("user", b.name)]
    info = await services.games.begin(a.id, "backgammon", {}, seats)
    info = await services.games.join(info.id, b.id)
    mover = next(users[s.user_id] for s in info.seats if s.seat == info.to_act)
    session, term, task = await open_session(services, mover, encoding, f"game:{info.id}")
    screen = session.stack[-1]
    out: dict[str, int] = {}
    out["bg_full"] = await full_redraw(term)
    out["cursor_step"] = await sent_by(term, lambda: term.press("left"))
    out["cursor_step"] = max(out["cursor_step"], await sent_by(term, lambda: term.press("right")))

    # (c) a whole turn; its first drop is (b), the checker step.
    turn = 0
    step_bytes: list[int] = []
    while screen.pp is not None and not screen.pp.is_complete():
        steps = sorted(screen.pp.next_steps())
        src, dst = steps[-1][0], steps[-1][1]
        turn += await sent_by(term, *(lambda k=k: term.press(k) for k in key_path(screen, src)))
        turn += await sent_by(term, lambda: term.press("enter"))
        turn += await sent_by(term, *(lambda k=k: term.press(k) for k in key_path(screen, dst)))
        drop = await sent_by(term, lambda: term.press("enter"))
        step_bytes.append(drop)
        turn += drop
    turn += await sent_by(term, lambda: term.press("enter"))  # confirm: the play is sent
    snapshot = await services.games.get(info.id, mover.id)
    if snapshot.info.to_act == snapshot.my_seat:
        raise RuntimeError("the turn was not sent")
    out["checker_step"] = step_bytes[0]
    out["turn"] = turn
    await close(term, task)
    return out


async def spectrangle(services: Services, users: dict[int, Any], encoding: str) -> dict[str, int]:
    a, b = users[1], users[2]
    seats = [SeatSpec("me"), SeatSpec("user", b.name)]
    info = await services.games.begin(a.id, "spectrangle", {}, seats)
    info = await services.games.join(info.id, b.id)
    mover = next(users[s.user_id] for s in info.seats if s.seat == info.to_act)
    snapshot = await services.games.get(info.id, mover.id)
    rules = services.games.rules_for("spectrangle")
    move = rules.format_move(snapshot.state, rules.legal_moves(snapshot.state)[0])
    _, term, task = await open_session(services, mover, encoding, f"game:{info.id}")
    out = {"sp_full": await full_redraw(term)}
    term.type(":")
    term.type(move)
    await term.settle()
    out["sp_place"] = await sent_by(term, lambda: term.press("enter"))
    after = await services.games.get(info.id, mover.id)
    if after.info.version == snapshot.info.version:
        raise RuntimeError(f"the placement {move} was not sent")
    await close(term, task)
    return out


async def main() -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        config = Config(
            data_dir=Path(tmp),
            database=DatabaseConfig(url=f"sqlite+aiosqlite:///{tmp}/bench.sqlite3"),
            games=GamesConfig(bots=False),
        )
        services = await build_services(
            config, clock=FakeClock(), rng=random.Random(3), start_background=False
        )
        try:
            alice = await services.accounts.register("Alice", "alice-pw")
            bob = await services.accounts.register("Bob", "bob-pw1")
            users = {1: alice, 2: bob, alice.id: alice, bob.id: bob}
            figures: dict[str, dict[str, int]] = {}
            missing: list[str] = []
            for encoding in ("cp437", "utf-8"):
                f: dict[str, int] = {}
                f.update(await login(services, encoding))
                try:
                    f.update(await backgammon(services, users, encoding))
                except (ImportError, AttributeError, ValueError, RuntimeError) as exc:
                    missing.append(f"backgammon ({encoding}): {exc}")
                try:
                    f.update(await spectrangle(services, users, encoding))
                except (ImportError, AttributeError, ValueError, RuntimeError) as exc:
                    missing.append(f"spectrangle ({encoding}): {exc}")
                figures[encoding] = f
        finally:
            await services.close()

    for encoding, f in figures.items():
        print(f"[{encoding}]")
        print(f"  (a) login to main menu      {f['login']:6d} bytes"
              f"   full redraw of the menu  {f['login_full']:6d}")  # fmt: skip
        if "checker_step" in f:
            print(f"  (b) one checker step (drop) {f['checker_step']:6d} bytes"
                  f"   full redraw of the board {f['bg_full']:6d}"
                  f"   ratio {f['bg_full'] / f['checker_step']:.1f}")  # fmt: skip
            print(f"      one cursor step (arrow) {f['cursor_step']:6d} bytes")
            print(f"  (c) complete backgammon turn {f['turn']:5d} bytes"
                  f"   full redraw of the board {f['bg_full']:6d}")  # fmt: skip
        if "sp_place" in f:
            print(f"  (d) spectrangle placement   {f['sp_place']:6d} bytes"
                  f"   full redraw of the board {f['sp_full']:6d}")  # fmt: skip
    for m in missing:
        print("missing:", m)

    result: dict[str, Any] = {"missing": missing}
    for encoding, f in figures.items():
        tag = "cp437" if encoding == "cp437" else "utf8"
        for k, v in f.items():
            result[f"{k}_bytes_{tag}"] = v
    steps = [f["checker_step"] for f in figures.values() if "checker_step" in f]
    ratios = [f["bg_full"] / f["checker_step"] for f in figures.values() if "checker_step" in f]
    result["login_bytes"] = max(f["login"] for f in figures.values())
    result["checker_step_bytes"] = max(steps) if steps else None
    result["full_redraw_ratio"] = round(min(ratios), 2) if ratios else None
    turns = [f["turn"] for f in figures.values() if "turn" in f]
    result["turn_bytes"] = max(turns) if turns else None
    places = [f["sp_place"] for f in figures.values() if "sp_place" in f]
    result["spectrangle_place_bytes"] = max(places) if places else None
    result["targets_met"] = bool(
        steps and max(steps) <= TARGET_STEP and min(ratios) >= TARGET_RATIO
    )
    return result


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main())))
