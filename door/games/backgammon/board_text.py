"""A plain ASCII board (what ``door rules backgammon show`` prints).

The player on roll is ``X`` at the bottom, moving from 24 down to 1 (his home board on the
right); the opponent is ``O``. A point with more than five checkers shows its count in
the fifth row, as gnubg does.
"""

from __future__ import annotations

from door.games.backgammon.ids import MatchKey
from door.games.backgammon.position import BAR, Side, borne_off, pips

_TOP = " +13-14-15-16-17-18------19-20-21-22-23-24-+"
_BOTTOM = " +12-11-10--9--8--7-------6--5--4--3--2--1-+"


def _cell(me: Side, opp: Side, point: int, row: int) -> str:
    """Row ``row`` (0 = next to the edge) of the mover's ``point``."""
    mine = me[point - 1]
    theirs = opp[24 - point]
    n, ch = (mine, "X") if mine else (theirs, "O")
    if n > row:
        if row == 4 and n > 5:
            return f"{n:>2} " if n > 9 else f" {n} "
        return f" {ch} "
    return "   "


def _bar_cell(count: int, ch: str, row: int) -> str:
    if count > row:
        if row == 4 and count > 5:
            return f"{count:>2} " if count > 9 else f" {count} "
        return f" {ch} "
    return "   "


def render(me: Side, opp: Side, key: MatchKey | None = None, position_id: str = "") -> str:
    """The board with the player on roll (``me``) as X at the bottom, plus a few facts."""
    lines: list[str] = []
    if position_id:
        lines.append(f" Position ID: {position_id}")
    top_rows = []
    for row in range(5):
        left = "".join(_cell(me, opp, p, row) for p in range(13, 19))
        right = "".join(_cell(me, opp, p, row) for p in range(19, 25))
        top_rows.append(f" |{left}|{_bar_cell(opp[BAR], 'O', row)}|{right}|")
    bottom_rows = []
    for row in range(5):
        left = "".join(_cell(me, opp, p, row) for p in range(12, 6, -1))
        right = "".join(_cell(me, opp, p, row) for p in range(6, 0, -1))
        bottom_rows.append(f" |{left}|{_bar_cell(me[BAR], 'X', row)}|{right}|")
    bottom_rows.reverse()
    info_top = [
        f"O: pips {pips(opp)}, off {borne_off(opp)}",
        "",
    ]
    info_bottom = ["", f"X: pips {pips(me)}, off {borne_off(me)}"]
    mid = "v|                  |BAR|                  |"
    mid_info = ""
    if key is not None:
        cube = f"cube {key.cube}" + (
            "" if key.cube_owner is None else f" owned by player {key.cube_owner}"
        )
        length = "money game" if key.match_length == 0 else f"{key.match_length}-point match"
        score = f"score {key.score[0]}-{key.score[1]}"
        mid_info = f"{length}, {score}, {cube}" + (" (Crawford)" if key.crawford else "")
        if key.dice[0]:
            info_bottom[0] = f"X (player {key.dice_owner}) rolled {key.dice[0]}{key.dice[1]}"
        else:
            info_bottom[0] = f"X (player {key.dice_owner}) on roll"
        if key.doubled:
            info_bottom[0] += f", doubled to {key.cube * 2}"
        if key.resign:
            level = ("single", "gammon", "backgammon")[key.resign - 1]
            info_bottom[0] += f", resignation offered ({level})"
    lines.append(_TOP)
    for i, r in enumerate(top_rows):
        lines.append(r + ("  " + info_top[i] if i < len(info_top) and info_top[i] else ""))
    lines.append(mid + ("  " + mid_info if mid_info else ""))
    for i, r in enumerate(bottom_rows):
        j = i - 3
        extra = info_bottom[j] if 0 <= j < len(info_bottom) and info_bottom[j] else ""
        lines.append(r + ("  " + extra if extra else ""))
    lines.append(_BOTTOM)
    return "\n".join(line.rstrip() for line in lines) + "\n"
