"""An independent model of the correspondence clock, written apart from
door/services/timecontrol.py to check it: it walks the mover's local calendar day by day
(the module merges stop intervals instead), counting each day's running time as the part
of the day inside the turn, less the vacations in it, or nothing for a weekend day when
weekends are off."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

Span = tuple[datetime, datetime]
ZERO = timedelta(0)


def _day_span(day: date, tz: ZoneInfo) -> Span:
    nxt = day + timedelta(days=1)
    a = datetime(day.year, day.month, day.day, tzinfo=tz).astimezone(UTC)
    b = datetime(nxt.year, nxt.month, nxt.day, tzinfo=tz).astimezone(UTC)
    return a, b


def _overlap(a: Span, b: Span) -> timedelta:
    lo, hi = max(a[0], b[0]), min(a[1], b[1])
    return hi - lo if hi > lo else ZERO


def _merged(spans: Sequence[Span]) -> list[Span]:
    out: list[Span] = []
    for a, b in sorted(spans):
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        elif b > a:
            out.append((a, b))
    return out


def day_running(
    day: date, window: Span, tz: ZoneInfo, weekends_off: bool, vacations: Sequence[Span]
) -> timedelta:
    """Running time in local ``day`` within ``window``."""
    if weekends_off and day.weekday() >= 5:
        return ZERO
    span = _day_span(day, tz)
    inside = (max(span[0], window[0]), min(span[1], window[1]))
    if inside[1] <= inside[0]:
        return ZERO
    return (inside[1] - inside[0]) - sum(
        (_overlap(inside, v) for v in _merged(vacations)), ZERO
    )


def running(
    start: datetime, end: datetime, tz: ZoneInfo, weekends_off: bool, vacations: Sequence[Span]
) -> timedelta:
    if end <= start:
        return ZERO
    total = ZERO
    day = start.astimezone(tz).date()
    last = end.astimezone(tz).date()
    while day <= last:
        total += day_running(day, (start, end), tz, weekends_off, vacations)
        day += timedelta(days=1)
    return total


def timeout(
    start: datetime, need_s: int, tz: ZoneInfo, weekends_off: bool, vacations: Sequence[Span]
) -> datetime:
    """The instant the running time since ``start`` reaches ``need_s`` seconds: the day
    it falls in by walking days, then the instant inside that day by walking its running
    pieces."""
    need = timedelta(seconds=need_s)
    day = start.astimezone(tz).date()
    far = datetime.max.replace(tzinfo=UTC)
    while True:
        got = day_running(day, (start, far), tz, weekends_off, vacations)
        if got >= need and got > ZERO:
            break
        need -= got
        day += timedelta(days=1)
    a, b = _day_span(day, tz)
    cursor = max(a, start)
    pieces: list[Span] = []
    for va, vb in _merged(vacations):
        if vb <= cursor or va >= b:
            continue
        if va > cursor:
            pieces.append((cursor, va))
        cursor = max(cursor, vb)
    if cursor < b:
        pieces.append((cursor, b))
    for pa, pb in pieces:
        if pb - pa >= need:
            return pa + need
        need -= pb - pa
    raise AssertionError("the day's running time did not add up")


def bank_left(used: timedelta, move_s: int, bank_s: int) -> int:
    """The bank left after a move that took ``used`` running time."""
    excess_us = used // timedelta(microseconds=1) - move_s * 1_000_000
    if excess_us <= 0:
        return bank_s
    whole = excess_us // 1_000_000 + (1 if excess_us % 1_000_000 else 0)
    return max(0, bank_s - whole)
