"""A Spectrangle game's record as text: the players, then one line per move.

::

    ; Spectrangle, door game 12, 2 players (mirroring on)
    ; Started 2026-12-01 10:00 UTC; finished
    ; P1 alice
    ; P2 bob
    ; start -/-/…/- RRR6,GGG6,…|… 0,0 1 33

      1. P2 bob        PPP6@0:0       +6   -/-/…/PPP6/… RRR6,…|… 0,6 0 32
      2. P1 alice      pass           +0   …

    ; bob wins 44-31.

Each line: the move's number, the mover, the move in door's notation, the points it
scored (the final hand penalties are in the last scores, not in a line), and the SPN once
the mover's draw is done: the position the next player sees. A timeout (the late seat
passes) and a forfeit are lines too. Lines starting with ``;`` are comments.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from door.games.replay import replay
from door.services.export.common import comment_lines
from door.services.games import AnyRules, GameEvent, GameInfo
from door.services.safety import clean_message
from door.store.records import JSON


@dataclass
class _Line:
    number: int
    seat: int
    text: str
    points: int
    spn: str = ""


def text_record(
    rules: AnyRules,
    info: GameInfo,
    events: Sequence[GameEvent],
    extra: Mapping[str, JSON] | None = None,
) -> str:
    """The text record of game ``info`` (Spectrangle) with its log ``events``."""
    names = {s.seat: _clean(s.name) if s.name else f"seat {s.seat + 1}" for s in info.seats}
    options = info.options
    traits = [f"mirroring {'on' if options.get('mirror', True) else 'off'}"]
    if options.get("teams"):
        traits.append("teams: P1+P3 against P2+P4")
    head = [
        f"; {rules.title}, door game {info.id}, {len(info.seats)} players ({', '.join(traits)})",
        f"; Started {info.created_at:%Y-%m-%d %H:%M} UTC; {_status_words(info)}",
    ]
    head += [f"; P{seat + 1} {name}" for seat, name in sorted(names.items())]
    head += [f"; {line}" for line in comment_lines(extra)]
    width = max((len(n) for n in names.values()), default=4)
    lines: list[_Line] = []
    start_spn = ""
    state = rules.new_game(len(info.seats), options)
    for step in replay(rules, state, events):
        e = step.event
        state = step.after
        if e.kind == "chance":
            if lines:
                lines[-1].spn = rules.to_id(state)
            elif rules.to_act(state) is not None:
                start_spn = rules.to_id(state)
            continue
        if e.seat is None:
            continue
        if e.kind == "move":
            text = str(e.payload.get("move", ""))
            note = clean_message(str(e.payload.get("note") or ""), 200)
            text = f'{text} "{note}"' if note else text  # the note with the move (issue 17)
        else:
            action = e.payload.get("action")
            if action == "timeout":
                text = "(timeout: passes)"
            elif action == "forfeit":
                text = f"({e.payload.get('reason', 'forfeit')}: leaves the game)"
            else:
                continue
        points = _points(rules, step.before, step.move)
        lines.append(_Line(len(lines) + 1, e.seat, text, points, rules.to_id(state)))
    if start_spn:
        head.append(f"; start {start_spn}")
    out = [*head, ""]
    move_width = max((len(x.text) for x in lines), default=8)
    for x in lines:
        who = f"P{x.seat + 1} {names.get(x.seat, '?'):<{width}}"
        out.append(f"{x.number:3d}. {who}  {x.text:<{move_width}}  {x.points:+4d}   {x.spn}")
    outcome = info.outcome
    if outcome is not None:
        scores = "-".join(str(s) for s in outcome.scores)
        won = " and ".join(f"P{s + 1} {names.get(s, '?')}" for s in outcome.winners)
        out += ["", f"; {won or 'nobody'} {'wins' if len(outcome.winners) == 1 else 'win'} "
                f"({scores}, {outcome.reason})."]  # fmt: skip
    return "\n".join(out) + "\n"


def _points(rules: AnyRules, before: object, move: object | None) -> int:
    """What the move scored (``move_score``; 0 for a pass, a swap, a timeout, a forfeit):
    the final hand penalties are not a move's."""
    score = getattr(rules, "move_score", None)
    if move is None or not callable(score):
        return 0
    return int(score(before, move))


def _status_words(info: GameInfo) -> str:
    return {
        "active": "still being played (the record so far)",
        "finished": "finished",
        "abandoned": "abandoned",
        "open": "waiting for players",
    }.get(info.status, info.status)


def _clean(name: str) -> str:
    return " ".join("".join(ch if ch.isprintable() else " " for ch in name).split())[:24]
