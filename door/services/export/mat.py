"""Jellyfish ``.mat``: a backgammon match as GNU Backgammon's ``export match mat`` writes it
and its ``import mat`` (``import.c``, ``ImportMat``) reads it back.

The layout::

    ; [Site "door"]
    ; [EventDate "2026.12.01"]

     5 point match

     Game 1
     alice : 0                      bob : 0
      1)                             51: 13/8 24/23
      2) 62: 13/7 7/5*               44: 25/21 21/17 13/9 13/9
      3)  Doubles => 2                Takes
     ...
          Wins 1 point

Seat 0 is the left column (gnubg's player 0), seat 1 the right. Each turn is ``dice:``
and the play with every checker step written out from the mover's side, ``25`` for the
bar and ``0`` for borne off, ``*`` on a hit (gnubg's ``FormatMovePlain``). A money game
is a ``0 point match``. What the format cannot hold, gnubg's reader could not be told
either, and is left out: opening rolls that were ties, rejected resignations. A
resignation, a forfeit or a timeout is the winner's ``Wins N points`` line while the game
is still being played, which gnubg reads as a resignation of that many points' worth;
a match given up by forfeit or on time therefore reads in gnubg as that game resigned.

Two rules the format does not carry are gnubg's own when it reads a file: it assumes the
Crawford rule in every match (a match door played without it reads wrongly where a
double falls in what gnubg takes for the Crawford game), and it applies its own Jacoby
setting to money games. The ``.sgf`` carries both.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from door.games.backgammon.movegen import Step
from door.services.export.bgmatch import Game, Turn, notes, player_name, read_match
from door.services.export.common import comment_lines
from door.services.games import AnyRules, GameEvent, GameInfo
from door.store.records import JSON

LEFT_WIDTH = 27
"""gnubg's ``%3d) %-27s `` left column: the right column starts at character 33."""


def mat_text(
    rules: AnyRules,
    info: GameInfo,
    events: Sequence[GameEvent],
    extra: Mapping[str, JSON] | None = None,
) -> str:
    """The ``.mat`` text of backgammon game ``info`` with its log ``events``."""
    match = read_match(rules, info, events)
    names = (player_name(info, 0), player_name(info, 1))
    out = [
        '; [Site "door"]',
        f'; [Event "door game {info.id}"]',
        f'; [EventDate "{info.created_at:%Y.%m.%d}"]',
        f'; [Player 1 "{names[0]}"]',
        f'; [Player 2 "{names[1]}"]',
    ]
    options = info.options
    if match.length:
        out.append(f'; [Crawford "{"On" if options.get("crawford", True) else "Off"}"]')
    else:
        out.append(f'; [Jacoby "{"On" if options.get("jacoby") else "Off"}"]')
        out.append(f'; [Beaver "{"On" if options.get("beavers") else "Off"}"]')
    for line in [*notes(info, match), *comment_lines(extra)]:
        out.append(f"; {line}")
    out += ["", f" {match.length} point match", ""]
    for game in match.games:
        out += game_lines(game, names)
    return "\n".join(out).rstrip("\n") + "\n"


def game_lines(game: Game, names: tuple[str, str]) -> list[str]:
    """``Game N``, the score line and the numbered turn lines of one game."""
    head = f"{names[0]} : {game.score[0]}"
    lines = [f" Game {game.number}", f" {head:<31}{names[1]} : {game.score[1]}"]
    number = 0
    left: str | None = None  # the open line's left cell (None: the line is not begun)

    def flush(right: str = "") -> None:
        nonlocal left, number
        if left is None and not right:
            return
        number += 1
        cell = left or ""
        gap = " " if len(cell) < LEFT_WIDTH else "  "  # two spaces keep the columns apart
        # a line with no right-hand cell keeps its padding, as gnubg writes it: gnubg
        # reads a short left-only line after a double as that double once more
        lines.append(f"{number:3d}) {cell:<{LEFT_WIDTH}}{gap}{right}")
        left = None

    for turn in game.turns:
        if turn.kind == "win":
            # as gnubg writes it: the right-hand player's win beside a left-hand cell
            # still open (a drop, a resignation), else a line of its own in the
            # winner's column (gnubg misreads a right-hand win on its own line after
            # a left-hand drop)
            text = f"Wins {turn.points} point{'s' if turn.points != 1 else ''}"
            if turn.seat == 1 and left is not None:
                flush(text)
            else:
                flush()
                lines.append(("      " if turn.seat == 0 else " " * 34) + text)
            continue
        cell = turn_text(turn)
        if cell is None:
            continue
        if turn.seat == 0:
            if left is not None:
                flush()
            left = cell
        else:
            flush(cell)
    flush()
    lines += ["", ""]
    return lines


def turn_text(turn: Turn) -> str | None:
    """One cell: ``52: 13/8 13/11``, `` Doubles => 2``, `` Takes``, `` Drops``; None for
    what is not written (a roll left unplayed that gnubg would play by itself)."""
    kind = turn.kind
    if kind == "play":
        assert turn.dice is not None
        return f"{turn.dice[0]}{turn.dice[1]}: {steps_text(turn.steps)}".rstrip()
    if kind == "dice":
        # gnubg reads a bare roll as the roll of a player who then resigned only when it
        # had a choice of plays; with one or none it would make that play itself
        if turn.playable < 2:
            return None
        assert turn.dice is not None
        return f"{turn.dice[0]}{turn.dice[1]}:"
    if kind == "double":
        return f" Doubles => {turn.cube}"
    if kind == "beaver":
        # gnubg reads "Beavers" too, but then takes the beaver itself at the next roll and
        # keeps that in mind across files (a dropped beaver spoils the next import); a
        # double by the doubled player is a beaver to gnubg, taken or dropped in words
        return f" Doubles => {turn.cube}"
    if kind == "take":
        return " Takes"
    if kind == "drop":
        return " Drops"
    return None


def steps_text(steps: Sequence[Step]) -> str:
    """Every checker step, in the order played: ``25/22* 13/8 6/0``."""
    return " ".join(f"{src}/{dst}{'*' if hit else ''}" for src, dst, _die, hit in steps)
