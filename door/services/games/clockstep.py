"""The clock's part of a game transaction: charge the mover's bank, set the next turn's
deadlines (the arithmetic is door/services/timecontrol.py's)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from zoneinfo import ZoneInfo

from door.services import timecontrol as tc
from door.store.records import ClockCheck, GameRecord, PlayerClock, SeatRecord


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
