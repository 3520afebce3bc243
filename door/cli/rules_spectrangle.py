"""``door rules spectrangle``: list legal moves for SPN positions, and random self-play.

- ``moves --spn "<SPN>"``: every legal move of the player to move, ``<move><TAB><score>``,
  best first (``pass`` and ``swap <piece>`` with score 0 when nothing can be placed).
- ``moves --batch``: SPN lines on standard input; each answered by its lines and one blank
  line (an unreadable line is answered ``error: <reason>``).
- ``selfplay --players N --seed S``: a complete game of random legal moves; prints the SPN
  after the set-up and after every move (and its draw), then ``final scores: a,b,...``.
"""

from __future__ import annotations

import argparse
import random
import sys
from typing import Any, TextIO

from door.cli.rules_io import (
    add_game,
    answer_batch,
    answer_one,
    final_scores,
    usage_error,
)


def _options(args: argparse.Namespace) -> dict[str, Any]:
    return {"mirror": not args.no_mirror, "teams": bool(args.teams)}


def _move_lines(spn_text: str, options: dict[str, Any]) -> list[str]:
    from door.games.spectrangle.rules import SpectrangleRules

    rules = SpectrangleRules()
    state = rules.from_id(spn_text.strip(), options)
    return [f"{rules.format_move(state, m)}\t{score}" for m, score in rules.scored_moves(state)]


def _cmd_moves(args: argparse.Namespace, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    options = _options(args)

    def answer(spn_text: str) -> list[str]:
        return _move_lines(spn_text, options)

    if args.batch:
        return answer_batch(sys.stdin, answer, out)
    if args.spn is None:
        return usage_error("spectrangle moves", 'give --spn "<SPN>" or --batch')
    return answer_one("spectrangle moves", args.spn, answer, out)


def _cmd_selfplay(args: argparse.Namespace, out: TextIO | None = None) -> int:
    from door.games.spectrangle.rules import SpectrangleRules

    out = out or sys.stdout
    rules = SpectrangleRules()
    try:
        state = rules.new_game(args.players, _options(args))
    except ValueError as exc:
        return usage_error("spectrangle selfplay", str(exc))
    rng = random.Random(args.seed)

    def draw_all() -> None:
        nonlocal state
        while rules.chance_pending(state):
            state = rules.apply_chance(state, rules.sample_chance(state, rng))

    draw_all()
    out.write(rules.to_id(state) + "\n")
    while rules.outcome(state) is None:
        move = rng.choice(list(rules.legal_moves(state)))
        state = rules.apply(state, move)
        draw_all()
        out.write(rules.to_id(state) + "\n")
    return final_scores(rules, state, out)


def register(games: Any) -> None:
    """Add the ``spectrangle`` parser with its ``moves`` and ``selfplay`` commands."""
    actions = add_game(
        games, "spectrangle", "Spectrangle: list legal moves for an SPN, random self-play"
    )

    def table_options(p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "--no-mirror",
            action="store_true",
            help="pieces may not be turned over (UT rules); default: they may",
        )
        p.add_argument("--teams", action="store_true", help="4 players, 2 v 2 (0+2 v 1+3)")

    moves = actions.add_parser("moves", help="every legal move of the player to move")
    src = moves.add_mutually_exclusive_group(required=True)
    src.add_argument("--spn", help="the position, as SPN (quote it)")
    src.add_argument("--batch", action="store_true", help="read SPN lines from standard input")
    table_options(moves)
    moves.set_defaults(func=_cmd_moves)

    selfplay = actions.add_parser("selfplay", help="play a whole game with random moves")
    selfplay.add_argument("--players", type=int, default=2, help="2 to 4 (default 2)")
    selfplay.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    table_options(selfplay)
    selfplay.set_defaults(func=_cmd_selfplay)
