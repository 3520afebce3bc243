"""``door verify FILE``: check a game record's dice against its revealed seed.

Reads a JSON record (``door export --format json``; ``-`` reads standard input), checks
that the seed matches the commitment and that every chance event is the one the seed
gives (:func:`door.services.fairness.verify_record`), and prints the verdict: "all N rolls
check", or one line per event that does not. Exit status 0 when everything checks, 1 when
something does not (or cannot yet: no seed, no commitment), 2 when the file cannot be read
or is not a game record. Needs no database and no configuration.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from door.services.fairness import verify_record


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    parser = sub.add_parser(
        "verify",
        parents=[common],
        help="check a game record's dice against its revealed seed (door-dice-v1)",
        description="Recompute the commitment and every roll or draw of a JSON game "
        "record from its revealed seed (docs/fair-dice.md).",
    )
    parser.add_argument(
        "file", metavar="FILE", help="a JSON record (door export --format json); - for stdin"
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    name = "standard input" if args.file == "-" else args.file
    try:
        if args.file == "-":
            data = sys.stdin.buffer.read()
        else:
            with open(args.file, "rb") as f:
                data = f.read()
    except OSError as exc:
        print(f"door verify: cannot read {name}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    try:
        record = json.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError:
        print(f"door verify: {name} is not UTF-8 text", file=sys.stderr)
        return 2
    except json.JSONDecodeError as exc:
        print(f"door verify: {name} is not JSON ({exc})", file=sys.stderr)
        return 2
    if not isinstance(record, dict):
        print(f"door verify: {name} is not a game record (a JSON object)", file=sys.stderr)
        return 2
    verdict = verify_record(record)
    if verdict.status == "malformed":
        print(f"door verify: {name}: {verdict.summary}", file=sys.stderr)
        return 2
    for line in verdict.lines():
        print(line)
    return 0 if verdict.ok else 1
