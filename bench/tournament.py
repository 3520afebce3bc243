"""A knock-out of computer players played out against a real ``door serve``.

``door tournament create --fill-with-bots LEVEL`` (1-point matches) against a running
server on a fresh SQLite data dir; the server's tournament sweep starts it, its bots play
every game, and each round is made as soon as the one before ends. Prints, last, one JSON
object: ``games``, ``seconds`` (create to finished), ``rounds``, ``advance_p99_ms`` (per
round: from its last game's end to the next round's games existing; target ≤ 1,000),
``advance_max_ms``, ``winner``, the load average.

    nice python3 bench/tournament.py --size 1024 --level bg-beginner
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from loadlib import ROOT, Server, free_port, pct  # noqa: E402


def door(data: Path, config: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run(
        [sys.executable, "-m", "door", *args, "--config", str(config), "--data-dir", str(data)],
        capture_output=True, text=True, env=env, timeout=600, cwd=data,
    )  # fmt: skip


def advance_gaps(db_path: Path, tid: int) -> list[float]:
    """Per round after the first: ms from the last game of the round before finishing to
    the first game of this round being created."""
    con = sqlite3.connect(db_path)
    try:
        rows = con.execute(
            "SELECT tg.round_no, MIN(g.created_at), MAX(g.finished_at) FROM tournament_games tg"
            " JOIN games g ON g.id = tg.game_id WHERE tg.tournament_id = ? GROUP BY tg.round_no"
            " ORDER BY tg.round_no",
            (tid,),
        ).fetchall()
    finally:
        con.close()
    gaps = []
    for (_, _, ended), (_, created, _) in zip(rows, rows[1:], strict=False):
        a, b = datetime.fromisoformat(ended), datetime.fromisoformat(created)
        gaps.append((b - a).total_seconds() * 1000)
    return gaps


async def run(size: int, level: str, timeout_s: float) -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="door-tour-bench-") as tmp:
        data = Path(tmp)
        config = data / "door.toml"
        config.write_text("[tournaments]\nsweep_interval_s = 0.5\n[bots]\nclaim_s = 10\n")
        server = Server(data, config, free_port(), free_port())
        server.start()
        try:
            await server.wait_serving()
            t0 = time.monotonic()
            made = door(
                data, config, "tournament", "create", "--name", f"Bench {size}",
                "--game", "backgammon", "--format", "knockout", "--size", str(size),
                "--match-length", "1", "--fill-with-bots", level,
            )  # fmt: skip
            if made.returncode != 0:
                raise SystemExit(made.stderr)
            tid = int(made.stdout.strip())
            shown: dict[str, object] = {}
            last_round = 0
            while time.monotonic() - t0 < timeout_s:
                out = door(data, config, "tournament", "show", str(tid), "--json")
                shown = json.loads(out.stdout)
                rounds = int(shown["rounds"])  # type: ignore[call-overload]
                if rounds != last_round:
                    print(f"{time.monotonic() - t0:8.1f} s  round {rounds}", flush=True)
                    last_round = rounds
                if shown["status"] == "finished":
                    break
                await asyncio.sleep(2.0)
            seconds = time.monotonic() - t0
            cpu = server.cpu_seconds()
        finally:
            server.stop()
        gaps = advance_gaps(data / "door.sqlite3", tid)
        games = sum(1 for g in shown.get("games", []) if g["game"] is not None)  # type: ignore[attr-defined]
        return {
            "size": size, "level": level, "status": shown.get("status"),
            "winner": shown.get("winner"), "games": games, "rounds": shown.get("rounds"),
            "seconds": round(seconds, 1), "server_cpu_s": round(cpu, 1),
            "advance_p99_ms": round(pct(gaps, 99) or 0.0, 1),
            "advance_max_ms": round(max(gaps, default=0.0), 1),
            "loadavg": list(os.getloadavg()),
        }  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1024)
    parser.add_argument("--level", default="bg-beginner")
    parser.add_argument("--timeout", type=float, default=3600.0)
    args = parser.parse_args()
    print(json.dumps(asyncio.run(run(args.size, args.level, args.timeout))))


if __name__ == "__main__":
    main()
