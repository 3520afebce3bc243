"""The clock's part of a game transaction: charge the mover's bank, set the next turn's
deadlines (the arithmetic is door/services/timecontrol.py's), reading the players'
clocks only when they can count (:func:`plan_turn`, :func:`settle_turn`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from zoneinfo import ZoneInfo

from door.services import timecontrol as tc
from door.store.records import ClockCheck, GameRecord, PlayerClock, SeatRecord
from door.store.repository import Repository


@dataclass(frozen=True, slots=True)
class TurnClock:
    """A new turn's clock: its start, move deadline and timeout, and the last mover's
    seat with its bank charged (None: no bank changed)."""

    started_at: datetime | None
    move_deadline: datetime | None
    deadline: datetime | None
    charged: SeatRecord | None


def clock_check(
    game: GameRecord, seats: tuple[SeatRecord, ...], to_act: int | None, now: datetime
) -> ClockCheck:
    """Whose clocks :func:`next_turn` reads for a commit at ``now`` that leaves ``to_act``
    to act: the seat that was to act, if its bank pays for the turn, and the next to act."""
    by_seat = {s.seat: s for s in seats}
    was = _paying(game, by_seat)
    nxt = by_seat.get(to_act) if to_act is not None else None
    ids = tuple(s.user_id for s in (was, nxt) if s is not None and s.user_id)
    return ClockCheck(ids, min(now, game.turn_started_at or now))


def next_turn(
    game: GameRecord,
    seats: tuple[SeatRecord, ...],
    to_act: int | None,
    now: datetime,
    default_zone: str,
    clocks: Mapping[int, PlayerClock],
) -> TurnClock:
    """The clock after a commit at ``now`` that leaves ``to_act`` to act (None: the game
    is over): the seat that was to act (``game.to_act``) pays from its bank whatever
    running time it took beyond the move's time, and the next turn runs from ``now``.
    ``clocks``: the zones and vacations of :func:`clock_check`'s players (one missing
    counts as the server's zone and no vacation)."""
    by_seat = {s.seat: s for s in seats}
    was = _paying(game, by_seat)
    nxt = by_seat.get(to_act) if to_act is not None else None
    move_s = game.deadline_hours * 3600
    charged: SeatRecord | None = None
    if was is not None:
        assert was.user_id is not None and game.turn_started_at is not None
        tz, spans = _clock_of(clocks.get(was.user_id), default_zone)
        bank = tc.bank_after(
            game.turn_started_at, now, move_s, was.bank_s, tz, game.weekends_off, spans
        )
        if bank != was.bank_s:
            charged = replace(was, bank_s=bank)
            by_seat[was.seat] = charged
    if to_act is None or nxt is None:
        return TurnClock(None, None, None, charged)
    bank_s = by_seat[nxt.seat].bank_s
    tz, spans = _clock_of(clocks.get(nxt.user_id or 0), default_zone)
    move_deadline = tc.timeout_at(now, move_s, 0, tz, game.weekends_off, spans)
    deadline = (
        move_deadline
        if bank_s == 0
        else tc.timeout_at(now, move_s, bank_s, tz, game.weekends_off, spans)
    )
    return TurnClock(now, move_deadline, deadline, charged)


def _paying(game: GameRecord, by_seat: Mapping[int, SeatRecord]) -> SeatRecord | None:
    """The seat that was to act, if it has a bank to pay the turn's excess from."""
    was = by_seat.get(game.to_act) if game.to_act is not None else None
    if (
        was is not None
        and game.status == "active"
        and was.bank_s > 0
        and was.user_id is not None
        and game.turn_started_at is not None
    ):
        return was
    return None


@dataclass(frozen=True, slots=True)
class TurnPlan:
    """A commit's clock as worked out before its write: ``turn``, and the check the write
    must make (None: the players' clocks were read, ``turn`` is final)."""

    turn: TurnClock
    check: ClockCheck | None
    to_act: int | None
    now: datetime


def plan_turn(
    repo: Repository,
    game: GameRecord,
    seats: tuple[SeatRecord, ...],
    to_act: int | None,
    now: datetime,
    default_zone: str,
    mover: int | None,
) -> TurnPlan:
    """The clock of a commit at ``now`` leaving ``to_act`` to act. With weekends on, a
    zone changes nothing and most players have no vacation: a move's times (``mover``
    given) are worked out without reading the players' clocks, and the move's versioned
    write answers the plan's ``check``, whether one of them has a vacation that counts
    (then :func:`settle_turn`); this saves a move a statement (bench/commit_moves.py).
    Otherwise their clocks are read first."""
    check = clock_check(game, seats, to_act, now)
    guess = bool(check.user_ids) and mover is not None and not game.weekends_off
    read = bool(check.user_ids) and not guess
    clocks = repo.player_clocks(check.user_ids, check.since) if read else {}
    turn = next_turn(game, seats, to_act, now, default_zone, clocks)
    return TurnPlan(turn, check if guess else None, to_act, now)


def settle_turn(
    repo: Repository,
    plan: TurnPlan,
    game: GameRecord,
    seats: tuple[SeatRecord, ...],
    written: GameRecord,
    default_zone: str,
) -> tuple[TurnClock, GameRecord]:
    """The clock of ``plan`` worked out again with the players' clocks read (its write
    found a vacation that counts), and ``written`` (the game as the commit wrote it)
    with its deadlines moved, in the same transaction, if they change."""
    assert plan.check is not None, "a plan without a check is final"
    clocks = repo.player_clocks(plan.check.user_ids, plan.check.since)
    turn = next_turn(game, seats, plan.to_act, plan.now, default_zone, clocks)
    if (turn.deadline, turn.move_deadline) != (written.deadline, written.move_deadline):
        assert turn.deadline is not None and turn.move_deadline is not None
        repo.set_deadline(written.id, written.version, turn.deadline, turn.move_deadline)
        written = replace(written, deadline=turn.deadline, move_deadline=turn.move_deadline)
    return turn, written


def deadlines_of(
    game: GameRecord, bank_s: int, clock: PlayerClock | None, default_zone: str
) -> tuple[datetime, datetime] | None:
    """(move deadline, timeout) of ``game``'s current turn worked out again (after the
    mover's vacation or zone changed); None for a turn without a recorded start."""
    start = game.turn_started_at
    if start is None:
        return None
    tz, spans = _clock_of(clock, default_zone)
    move_s = game.deadline_hours * 3600
    move_deadline = tc.timeout_at(start, move_s, 0, tz, game.weekends_off, spans)
    deadline = tc.timeout_at(start, move_s, bank_s, tz, game.weekends_off, spans)
    return move_deadline, deadline


def _clock_of(
    clock: PlayerClock | None, default_zone: str
) -> tuple[ZoneInfo, tuple[tc.Interval, ...]]:
    if clock is None:
        return tc.zone(None, default_zone), ()
    return tc.zone(clock.time_zone, default_zone), clock.vacations
