"""``door rules backgammon``: placeholder until the rules module lands."""

from __future__ import annotations

from typing import Any


def register(games: Any) -> None:
    parser = games.add_parser("backgammon", help="(not yet available)")
    parser.set_defaults(func=lambda args: 2)
