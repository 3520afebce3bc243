"""``door local``: placeholder until its issue lands (registered so ``door --help`` is whole)."""

from __future__ import annotations

import argparse
from typing import Any


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    parser = sub.add_parser("local", parents=[common], help="(not yet available)")
    parser.set_defaults(func=lambda args: _missing())


def _missing() -> int:
    print("door local: not yet available in this build")
    return 2
