"""``door rules backgammon``: legal plays and boards for gnubg Position IDs.

- ``moves --position-id ID --dice D1 D2``: every legal play of the player on roll, one a
  line, ``<play in gnubg notation><TAB><resulting Position ID>``. ``ID`` is from the view
  of the player on roll; the resulting ID from the view of the player who moves next. No
  legal play: nothing is printed.
- ``moves --batch``: lines ``POSITION_ID D1 D2`` on standard input; each is answered by its
  lines as above and one blank line (so a position without a legal play gets a lone blank
  line). An unreadable line is answered ``error: <reason>`` and a blank line; the exit
  status is then 1.
- ``show --position-id ID [--match-id ID]``: an ASCII board.
- ``selfplay --seed S [--match-length N]``: a whole match of random legal actions; one
  line per event (``chance {"dice": [..]}`` or ``<seat> <action>``) with the state ID
  after it, then ``final scores: a,b``. The same seed gives the same match.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, TextIO

from door.cli.rules_io import (
    add_game,
    answer_batch,
    answer_one,
    final_scores,
    usage_error,
)


def _move_lines(position_id: str, d1: int, d2: int) -> list[str]:
    from door.games.backgammon.ids import decode_position, encode_position
    from door.games.backgammon.movegen import legal_plays
    from door.games.backgammon.notation import format_play

    for d in (d1, d2):
        if not 1 <= d <= 6:
            raise ValueError(f"a die shows 1 to 6, not {d}")
    me, opp = decode_position(position_id.split(":")[0])  # "POS:MATCH" pasted whole is fine
    return [
        f"{format_play(play)}\t{encode_position(opp_after, me_after)}"
        for play, me_after, opp_after in legal_plays(me, opp, d1, d2)
    ]


def _parse_batch_line(line: str) -> tuple[str, int, int]:
    parts = line.split()
    if len(parts) != 3:
        raise ValueError(f"expected 'POSITION_ID D1 D2', got {line.strip()[:60]!r}")
    try:
        d1, d2 = int(parts[1]), int(parts[2])
    except ValueError:
        raise ValueError(f"the dice must be numbers 1-6, got {parts[1]!r} {parts[2]!r}") from None
    return parts[0], d1, d2


def _batch_answer(line: str) -> list[str]:
    return _move_lines(*_parse_batch_line(line))


def _cmd_moves(args: argparse.Namespace, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    if args.batch:
        return answer_batch(sys.stdin, _batch_answer, out)
    if args.position_id is None or args.dice is None:
        return usage_error("backgammon moves", "give --position-id ID --dice D1 D2, or --batch")
    d1, d2 = args.dice
    return answer_one(
        "backgammon moves", args.position_id, lambda pid: _move_lines(pid, d1, d2), out
    )


def _cmd_show(args: argparse.Namespace, out: TextIO | None = None) -> int:
    from door.games.backgammon.board_text import render
    from door.games.backgammon.ids import MatchKey, decode_match, decode_position

    out = out or sys.stdout
    pos_id, _, match_id = args.position_id.partition(":")  # gnubg's "POS:MATCH" form
    match_id = args.match_id or match_id.split(":")[0]
    try:
        me, opp = decode_position(pos_id)
        key: MatchKey | None = decode_match(match_id) if match_id else None
    except ValueError as exc:
        return usage_error("backgammon show", str(exc))
    if key is not None:
        out.write(f" Match ID: {match_id}\n")
    out.write(render(me, opp, key, position_id=pos_id))
    return 0


def _cmd_selfplay(args: argparse.Namespace, out: TextIO | None = None) -> int:
    import json
    import random

    from door.games.backgammon.rules import BackgammonRules

    out = out or sys.stdout
    rules = BackgammonRules()
    try:
        state = rules.new_game(2, {"match_length": args.match_length})
    except ValueError as exc:
        return usage_error("backgammon selfplay", str(exc))
    rng = random.Random(args.seed)
    out.write(f"start\t{rules.to_id(state)}\n")
    while rules.outcome(state) is None:
        if rules.chance_pending(state):
            event = rules.sample_chance(state, rng)
            state = rules.apply_chance(state, event)
            text = "chance " + json.dumps(rules.chance_to_json(event))
        else:
            seat = rules.to_act(state)
            moves = list(rules.legal_moves(state))
            words = {m.action: m for m in moves}
            # Mostly roll and take, so games are played out rather than dropped at once.
            if "roll" in words and rng.random() < 0.9:
                move = words["roll"]
            elif "take" in words and rng.random() < 0.8:
                move = words["take"]
            else:
                move = rng.choice(moves)
            text = f"{seat} {rules.format_move(state, move)}"
            state = rules.apply(state, move)
        out.write(f"{text}\t{rules.to_id(state)}\n")
    return final_scores(rules, state, out)


def register(games: Any) -> None:
    """Add ``backgammon`` with its ``moves`` and ``show`` sub-commands."""
    sub = add_game(games, "backgammon", "legal plays and boards for gnubg Position IDs")

    moves = sub.add_parser(
        "moves",
        help="every legal play: <play><TAB><resulting Position ID>",
        description="Every legal play of the player on roll, one a line.",
    )
    moves.add_argument("--position-id", help="gnubg Position ID (player on roll's view)")
    moves.add_argument("--dice", nargs=2, type=int, metavar=("D1", "D2"))
    moves.add_argument(
        "--batch",
        action="store_true",
        help="read 'POSITION_ID D1 D2' lines from standard input",
    )
    moves.set_defaults(func=_cmd_moves)

    show = sub.add_parser("show", help="print an ASCII board")
    show.add_argument("--position-id", required=True, help="gnubg Position ID")
    show.add_argument("--match-id", default=None, help="gnubg Match ID")
    show.set_defaults(func=_cmd_show)

    selfplay = sub.add_parser("selfplay", help="play a whole match with random legal actions")
    selfplay.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    selfplay.add_argument(
        "--match-length", type=int, default=1, help="points, 0 = one money game (default 1)"
    )
    selfplay.set_defaults(func=_cmd_selfplay)
