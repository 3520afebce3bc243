"""A backgammon match's log read as the games and turns a record writes.

The ``.mat`` and ``.sgf`` writers share this reading: :func:`read_match` replays the log
(:func:`door.games.replay.replay`, the one replayer) and gives each game of the match
with its starting score and the turns in order: the dice and play of each turn, the cube
actions, and how the game was won. What neither format can hold is kept aside for
whoever wants it: opening rolls that were ties (rolled again), and resignations that
were offered and rejected.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from door.games.backgammon.movegen import Step
from door.games.backgammon.moves import BgMove
from door.games.backgammon.position import DICE, MOVING, OPENING, OVER, BackgammonState
from door.games.replay import ReplayError, replay
from door.services.games import AnyRules, GameEvent, GameInfo

TurnKind = Literal["play", "dice", "double", "beaver", "take", "drop", "win"]


@dataclass(frozen=True)
class Turn:
    """One thing a record writes for a seat.

    ``play``: ``dice`` as rolled (the opening roll: seat 0's die first) and the play's
    ``steps`` (none: the roll could not be played). ``dice``: a roll left unplayed (the
    game ended by a resignation or forfeit after it). ``double``/``beaver``: ``cube`` is
    the value offered. ``take``, ``drop`` (the doubler's answer to a beaver too).
    ``win``: ``points`` scored, ``reason`` as the rules give it (``normal``, ``drop``,
    ``resign``, ``timeout``, ``forfeit``). ``seq`` is the log event behind it.
    """

    seat: int
    kind: TurnKind
    seq: int
    dice: tuple[int, int] | None = None
    steps: tuple[Step, ...] = ()
    cube: int = 0
    points: int = 0
    value: int = 0
    reason: str = ""
    playable: int = 0
    """For ``dice``: how many distinct plays the roll had."""


@dataclass
class Game:
    """One game of the match: its ``number`` (from 1), the ``score`` it began at, whether
    it was the ``crawford`` game, its cube at the start (automatic doubles), its turns,
    and the opening ``ties`` rolled before its opening roll."""

    number: int
    score: tuple[int, int]
    crawford: bool
    turns: list[Turn] = field(default_factory=list)
    ties: list[tuple[int, int]] = field(default_factory=list)
    start_cube: int = 1
    over: bool = False

    @property
    def winner(self) -> int | None:
        for t in self.turns:
            if t.kind == "win":
                return t.seat
        return None


@dataclass(frozen=True)
class Match:
    """The games of a match (or of a money game) as far as the log goes."""

    length: int
    games: list[Game]
    state: BackgammonState
    """The state at the end of the log."""


def read_match(rules: AnyRules, info: GameInfo, events: Sequence[GameEvent]) -> Match:
    """The games and turns of backgammon game ``info`` from its log ``events``;
    :class:`~door.games.replay.ReplayError` if the log does not replay."""
    start: BackgammonState = rules.new_game(len(info.seats) or 2, info.options)
    games = [Game(1, (0, 0), False)]
    pending: tuple[int, int] | None = None  # dice rolled and not yet played
    rolled: BackgammonState | None = None  # the state they were rolled into
    state = start
    for step in replay(rules, start, events):
        before, after, event = step.before, step.after, step.event
        state = after
        game = games[-1]
        if event.kind == "chance":
            dice = _dice(event.payload)
            if before.phase == OPENING and dice[0] == dice[1]:
                game.ties.append(dice)
                game.start_cube = after.cube
            elif before.phase in (OPENING, DICE):
                pending, rolled = dice, after
        elif event.kind == "move" and event.seat is not None:
            move = step.move
            assert isinstance(move, BgMove)
            seat = event.seat
            action = move.action
            if action == "play":
                game.turns.append(
                    Turn(seat, "play", event.seq, dice=pending or before.dice, steps=move.steps)
                )
                pending = None
            elif action == "double":
                game.turns.append(Turn(seat, "double", event.seq, cube=before.cube * 2))
            elif action == "beaver":
                game.turns.append(Turn(seat, "beaver", event.seq, cube=before.cube * 4))
            elif action == "take":
                game.turns.append(Turn(seat, "take", event.seq))
            elif action == "drop":
                game.turns.append(Turn(seat, "drop", event.seq))
            # a resignation offered (and accepted or rejected) is not written: an
            # accepted one shows as the win it gave
        ended = (before.phase != OVER and after.phase == OVER) or (
            before.phase != OPENING and after.phase == OPENING
        )
        if not ended:
            continue
        result = after.last_game
        if result is None:  # (every end of a game records it)
            raise ReplayError(f"event {event.seq}: a game ended without a result")
        if pending is not None and rolled is not None and rolled.phase == MOVING:
            # the roll was not played: the game was given up (or lost) after it
            playable = sum(1 for m in rules.legal_moves(rolled) if m.steps)
            game.turns.append(
                Turn(rolled.turn, "dice", event.seq, dice=pending, playable=playable)
            )
        game.turns.append(
            Turn(
                result.winner, "win", event.seq, points=result.points, value=result.value,
                reason=result.reason,
            )
        )  # fmt: skip
        game.over = True
        pending = None
        if after.phase == OPENING:
            games.append(Game(len(games) + 1, after.score, after.crawford_game))
    return Match(state.match_length, games, state)


def _dice(payload: object) -> tuple[int, int]:
    assert isinstance(payload, dict)
    d = payload["chance"]["dice"]
    return int(d[0]), int(d[1])


def player_name(info: GameInfo, seat: int) -> str:
    """The name of whoever sits in ``seat``, fit for a record's one-line fields (printable,
    no colons or brackets that the formats use as separators), or ``Player N``."""
    for s in info.seats:
        if s.seat == seat and s.name:
            cleaned = "".join(ch if ch.isprintable() and ch not in ":[]\\;" else " "
                              for ch in s.name)
            cleaned = " ".join(cleaned.split())[:31]
            if cleaned:
                return cleaned
    return f"Player {seat + 1}"


def notes(info: GameInfo, match: Match) -> list[str]:
    """What a record's comments say beside its moves: the opening rolls that were ties
    (rolled again; neither format has a place for them) and how the match ended."""
    out = []
    for game in match.games:
        if game.ties:
            rolls = ", ".join(f"{a}{b}" for a, b in game.ties)
            out.append(f"Game {game.number}: opening roll{'s' if len(game.ties) > 1 else ''} "
                       f"{rolls} tied and {'were' if len(game.ties) > 1 else 'was'} rolled again")
    if info.status == "active":
        out.append("The match is still being played: the record so far.")
    elif info.outcome is not None and info.outcome.detail:
        out.append("".join(ch if ch.isprintable() else " " for ch in info.outcome.detail))
    return out

