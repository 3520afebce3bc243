"""``door rules <game> ...``: the rules modules' public face for people and scripts."""

from __future__ import annotations

import argparse
from typing import Any


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    parser = sub.add_parser(
        "rules",
        parents=[common],
        help="list legal moves, apply moves, self-play (the rules modules' CLI)",
    )
    games = parser.add_subparsers(dest="game", metavar="GAME")
    games.required = True
    from door.cli import rules_backgammon, rules_spectrangle

    rules_backgammon.register(games)
    rules_spectrangle.register(games)
