"""Regenerate the fixtures in data/ from the independent engines (not run by pytest).

    python3 -m tests.games.backgammon.make_fixtures [bgsage] [gnubg]

``bgsage`` (a project dependency on x86-64) writes opening_counts.txt and
bgsage_crosscheck.txt. ``gnubg`` needs gnubg's own code, which door does not depend on:
install it aside, e.g. ``pip install --target /tmp/gnubg gnubg gnubg-nn`` and run with
``PYTHONPATH=/tmp/gnubg``; it writes gnubg_position_ids.txt, gnubg_crosscheck.txt,
gnubg_notation.txt and gnubg_matches.txt (matches and money games played through gnubg,
with the gnubgid it shows after every event).
"""

from __future__ import annotations

import hashlib
import random
import sys
from pathlib import Path
from typing import Any

from door.games.backgammon.ids import decode_match, encode_position
from door.games.backgammon.moves import resign
from door.games.backgammon.position import DECIDE, DICE, MOVING, OPENING, OVER, start_side
from door.games.backgammon.rules import BackgammonRules
from tests.games.backgammon.crosscheck import digest, normalise_bgsage
from tests.games.backgammon.helpers import from_bgsage, random_cases, to_bgsage

DATA = Path(__file__).parent / "data"


def make_bgsage() -> None:
    import bgsage

    with open(DATA / "opening_counts.txt", "w") as f:
        f.write(
            "# distinct plays from the opening position for each roll\n"
            "# (by bgsage.possible_moves)\n"
        )
        for a in range(1, 7):
            for b in range(1, a + 1):
                n = len(bgsage.possible_moves(list(bgsage.STARTING_BOARD), a, b))
                f.write(f"{a}-{b} {n}\n")
    with open(DATA / "bgsage_crosscheck.txt", "w") as f:
        f.write(
            "# generated from bgsage.possible_moves (see crosscheck.py):\n"
            "# POSID D1 D2 N SHA1 FINISHED\n"
        )
        for me, opp, d1, d2 in random_cases(2026, 2500):
            raw = bgsage.possible_moves(to_bgsage(me, opp), d1, d2)
            theirs = normalise_bgsage(me, opp, {from_bgsage(b) for b in raw})
            n, sha, fin = digest(theirs)
            f.write(f"{encode_position(me, opp)} {d1} {d2} {n} {sha} {','.join(fin) or '-'}\n")


def _gnubg_results(nn: Any, me: tuple[int, ...], opp: tuple[int, ...], a: int, b: int) -> Any:
    # gnubg's board is [opponent, player on roll]; it moves board[1].
    for key, steps in nn.moves([list(opp), list(me)], a, b, 1):
        o, m = nn.board_from_position_key(key)
        yield (tuple(m), tuple(o)), steps


def make_gnubg() -> None:
    import gnubg
    import gnubg_nn as nn

    with open(DATA / "gnubg_position_ids.txt", "w") as f:
        f.write("# Position IDs computed by gnubg's own code (gnubg_nn.position_id on the board\n")
        f.write(
            "# [opponent, player on roll]); then the player on roll's 25 counts;\n"
            "# then the opponent's\n"
        )
        for me, opp, _a, _b in random_cases(31337, 400):
            pid = nn.position_id([list(opp), list(me)])
            f.write(f"{pid} {','.join(map(str, me))} {','.join(map(str, opp))}\n")
    with open(DATA / "gnubg_crosscheck.txt", "w") as f:
        f.write(
            "# legal plays by gnubg's own move generator (gnubg_nn.moves),\n"
            "# 2,000 random positions:\n"
        )
        f.write(
            "# POSID D1 D2 N SHA1 -- N distinct results;\n"
            "# SHA1 of their sorted encode_position(me, opp)\n"
        )
        for me, opp, a, b in random_cases(5150, 2000):
            results = {r for r, _steps in _gnubg_results(nn, me, opp, a, b)} - {(me, opp)}
            ids = sorted(encode_position(m, o) for m, o in results)
            sha = hashlib.sha1(" ".join(ids).encode()).hexdigest()
            f.write(f"{encode_position(me, opp)} {a} {b} {len(ids)} {sha}\n")
    with open(DATA / "gnubg_notation.txt", "w") as f:
        f.write(
            "# gnubg's own notation (gnubg.movetupletostring) for every legal play\n"
            "# of 1,500 random\n"
        )
        f.write(
            "# (position, roll): POSID D1 D2 N SHA1 --\n"
            "# SHA1 of the sorted lines '<result POSID> <play>'\n"
        )
        for me, opp, a, b in random_cases(8128, 1500):
            lines = sorted(
                f"{encode_position(*r)} {gnubg.movetupletostring(steps, (opp, me))}"
                for r, steps in _gnubg_results(nn, me, opp, a, b)
                if r != (me, opp)
            )
            sha = hashlib.sha1("\n".join(lines).encode()).hexdigest()
            f.write(f"{encode_position(me, opp)} {a} {b} {len(lines)} {sha}\n")
    _make_gnubg_matches(gnubg)


def _make_gnubg_matches(gnubg: Any) -> None:
    rules = BackgammonRules()
    for c in (
        "set player 0 human",
        "set player 1 human",
        "set automatic roll off",
        "set automatic move off",
        "set automatic bearoff off",
        "set automatic game off",
        "set automatic crawford on",
        "set confirm new off",
    ):
        gnubg.command(c)
    out: list[str] = []

    def rec(event: str, state: Any) -> None:
        shown = gnubg.gnubg_id() if state.phase not in (OPENING, OVER) else "-"
        ours = ":".join(rules.to_id(state).split(":")[:2])
        if shown not in ("-", ours):
            raise SystemExit(f"door and gnubg disagree after {event}: {ours} vs {shown}")
        out.append(f"{event}\t{shown}")

    def opening(state: Any) -> Any:
        k = decode_match(gnubg.gnubg_id().split(":")[1])
        hi, lo = max(k.dice), min(k.dice)
        d = (hi, lo) if k.dice_owner == 0 else (lo, hi)
        state = rules.apply_chance(state, d)
        rec(f"opening {d[0]} {d[1]}", state)
        return state

    words = {
        "double": "double",
        "take": "take",
        "drop": "pass",
        "accept": "accept",
        "reject": "reject",
        "beaver": "beaver",
    }
    for seed, length in enumerate([1, 3, 5, 7, 3, 5, 0, 0, 0, 0]):
        rng = random.Random(seed)
        if length:
            for c in ("set jacoby off", "set beavers 0", f"new match {length}"):
                gnubg.command(c)
            out.append(f"match {length}")
            opts: dict[str, Any] = {"match_length": length}
        else:
            for c in ("set jacoby on", "set beavers 1", "new session"):
                gnubg.command(c)
            out.append("money jacoby beavers")
            opts = {"match_length": 0, "jacoby": True, "beavers": True}
        state = opening(rules.new_game(2, opts))
        while rules.outcome(state) is None:
            if state.phase == OPENING:
                gnubg.command("new game")
                state = opening(state)
                continue
            if state.phase == DICE:
                d = (rng.randint(1, 6), rng.randint(1, 6))
                gnubg.command(f"set dice {d[0]} {d[1]}")
                state = rules.apply_chance(state, d)
                rec(f"dice {d[0]} {d[1]}", state)
                continue
            moves = list(rules.legal_moves(state))
            acts = {m.action: m for m in moves}
            if state.phase in (DECIDE, MOVING) and rng.random() < 0.02:
                level = rng.randint(1, 3)
                gnubg.command("resign " + ["normal", "gammon", "backgammon"][level - 1])
                move = resign(level)
            else:
                if "roll" in acts:
                    move = (
                        acts["double"] if "double" in acts and rng.random() < 0.1 else acts["roll"]
                    )
                elif "take" in acts:
                    r = rng.random()
                    move = (
                        acts["beaver"]
                        if "beaver" in acts and r < 0.3
                        else (acts["drop"] if r > 0.85 else acts["take"])
                    )
                else:
                    move = rng.choice(moves)
                text = rules.format_move(state, move)
                if move.action == "play":
                    gnubg.command("move " + text if move.steps else "move")
                elif move.action != "roll":
                    gnubg.command(words[move.action])
            text = rules.format_move(state, move)
            state = rules.apply(state, move)
            if move.action == "roll":
                out.append("roll\t-")
                d = (rng.randint(1, 6), rng.randint(1, 6))
                gnubg.command(f"set dice {d[0]} {d[1]}")
                state = rules.apply_chance(state, d)
                rec(f"dice {d[0]} {d[1]}", state)
            else:
                rec(f"move {text}", state)
    with open(DATA / "gnubg_matches.txt", "w") as f:
        f.write(
            "# Matches played through gnubg itself (the gnubg PyPI package):\n"
            "# each event, then the\n"
        )
        f.write(
            "# gnubgid (POSITIONID:MATCHID) gnubg showed after it\n"
            "# ('-' between games and at the end,\n"
        )
        f.write("# where gnubg shows the finished game and door the next opening roll).\n")
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    which = sys.argv[1:] or ["bgsage"]
    assert start_side()  # the package imports cleanly before any engine is loaded
    if "bgsage" in which:
        make_bgsage()
    if "gnubg" in which:
        make_gnubg()
