"""What the ``door rules <game>`` commands share: answering lines of a batch, and one
position, with the same output and exit status for every game.

Output is the rules' public face for scripts (``DESIGN.md``): one answer's lines, and in
a batch one blank line after each answer; a refusal of the input is ``error: <reason>``
in a batch (exit status 1, the batch goes on) or a line on standard error (status 2).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, TextIO, TypeVar

from door.games.base import GameRules

S = TypeVar("S")

if TYPE_CHECKING:
    # argparse's sub-parser action is generic only to the type checker
    SubParsers = argparse._SubParsersAction[argparse.ArgumentParser]

Answer = Callable[[str], list[str]]
"""The lines that answer one input (a position); ``ValueError`` if it cannot be read."""


def answer_batch(lines: Iterable[str], answer: Answer, out: TextIO) -> int:
    """Answer each non-blank line, each answer followed by a blank line and flushed (a
    script reading the pipe gets it at once). 0, or 1 if some line was refused.
    """
    status = 0
    for line in lines:
        if not line.strip():
            continue
        try:
            found = answer(line)
        except ValueError as exc:
            found = [f"error: {exc}"]
            status = 1
        out.write("".join(text + "\n" for text in found) + "\n")
        out.flush()
    return status


def answer_one(command: str, text: str, answer: Answer, out: TextIO) -> int:
    """Answer one input on ``out``; a refusal goes to standard error as
    ``door rules <command>: <reason>`` with status 2."""
    try:
        found = answer(text)
    except ValueError as exc:
        return usage_error(command, str(exc))
    for line in found:
        out.write(line + "\n")
    return 0


def usage_error(command: str, message: str) -> int:
    """Say ``door rules <command>: <message>`` on standard error; the status is 2."""
    sys.stderr.write(f"door rules {command}: {message}\n")
    return 2


def final_scores(rules: GameRules[S, Any, Any], state: S, out: TextIO) -> int:
    """End a self-play: ``final scores: a,b,...`` from the finished game's outcome; 0."""
    outcome = rules.outcome(state)
    assert outcome is not None, "self-play stopped before the game ended"
    out.write("final scores: " + ",".join(str(s) for s in outcome.scores) + "\n")
    return 0


def add_game(games: SubParsers, name: str, help_text: str) -> SubParsers:
    """Add ``door rules <name>`` to the ``games`` sub-parsers; its own sub-parsers (the
    actions, one of which is required) are returned."""
    parser = games.add_parser(name, help=help_text)
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    actions.required = True
    return actions
