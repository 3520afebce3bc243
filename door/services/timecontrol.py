"""The correspondence clock's arithmetic: pure, stdlib and ``zoneinfo`` only.

A turn's clock runs from the turn's start except while it is *stopped*: on Saturday and
Sunday in the mover's time zone when the game has weekends off, and during the mover's
vacations. The mover has ``move_s`` seconds of running time for the move, then their bank;
the timeout applies at the instant the running time reaches ``move_s + bank_s``
(:func:`timeout_at`). A move made earlier keeps ``bank_s`` less whatever running time it
took beyond ``move_s``, rounded up to the second (:func:`bank_after`), so nobody gains a
fraction of a second from rounding.

With no bank, weekends on and no vacations, the timeout is ``start + move_s``: the clock
door had before banks existed.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

MOVE_MIN_S = 3600
MOVE_MAX_S = 30 * 86400
BANK_MAX_S = 60 * 86400
_US = timedelta(microseconds=1)

Interval = tuple[datetime, datetime]
"""A span of time [start, end), aware UTC datetimes."""


@dataclass(frozen=True, slots=True)
class ClockOptions:
    """A game's clock: time per move (whole hours, 1 h to 30 days), each player's time
    bank to begin with (0 to 60 days) and whether the clock stops at weekends."""

    move_s: int = 7 * 86400
    bank_s: int = 0
    weekends_off: bool = False

    def problem(self) -> str | None:
        """What is wrong with these options (None: nothing)."""
        if type(self.move_s) is not int or not MOVE_MIN_S <= self.move_s <= MOVE_MAX_S:
            return "the time per move must be from 1 hour to 30 days"
        if self.move_s % 3600:
            return "the time per move must be a whole number of hours"
        if type(self.bank_s) is not int or not 0 <= self.bank_s <= BANK_MAX_S:
            return "the time bank must be from 0 to 60 days"
        return None


def zone(name: str | None, default: str = "UTC") -> ZoneInfo:
    """The zone called ``name`` (IANA); ``default``'s when it is None or unknown."""
    for candidate in (name, default, "UTC"):
        if candidate:
            try:
                return ZoneInfo(candidate)
            except (ZoneInfoNotFoundError, ValueError):
                continue
    return ZoneInfo("UTC")


def known_zone(name: str) -> str | None:
    """``name`` as a known IANA zone name (case-insensitively matched), or None."""
    text = name.strip()
    if not text or len(text) > 64 or not all(c.isalnum() or c in "/_-+" for c in text):
        return None
    if text == "UTC":
        return text
    try:
        ZoneInfo(text)
        return text
    except (ZoneInfoNotFoundError, ValueError):
        pass
    folded = text.casefold()
    for found in available_timezones():
        if found.casefold() == folded:
            return found
    return None


def _weekends(start: datetime, tz: ZoneInfo) -> Iterator[Interval]:
    """The weekends (local Saturday 00:00 to Monday 00:00 in ``tz``) that end after
    ``start``, in order, as UTC intervals."""
    local = start.astimezone(tz).date()
    saturday = local - timedelta(days=(local.weekday() - 5) % 7)  # this or the last one
    while True:
        yield _local_midnight(saturday, tz), _local_midnight(saturday + timedelta(2), tz)
        saturday += timedelta(7)


def _local_midnight(day: date, tz: ZoneInfo) -> datetime:
    return datetime(day.year, day.month, day.day, tzinfo=tz).astimezone(UTC)


def _stops(
    start: datetime, tz: ZoneInfo, weekends_off: bool, vacations: Sequence[Interval]
) -> Iterator[Interval]:
    """Every span in which the clock is stopped, from ``start`` on, in order of start
    (they may overlap)."""
    later = sorted((a, b) for a, b in vacations if b > start and b > a)
    weekends = _weekends(start, tz) if weekends_off else iter(())
    weekend = next(weekends, None)
    i = 0
    while weekend is not None or i < len(later):
        if weekend is not None and (i >= len(later) or weekend[0] <= later[i][0]):
            yield weekend
            weekend = next(weekends, None)
        else:
            yield later[i]
            i += 1


def _running(
    start: datetime, tz: ZoneInfo, weekends_off: bool, vacations: Sequence[Interval]
) -> Iterator[Interval]:
    """The spans in which the clock runs, from ``start`` on, in order (the last one may
    be open: its end is ``datetime.max``)."""
    cursor = start
    for a, b in _stops(start, tz, weekends_off, vacations):
        if b <= cursor:
            continue
        if a > cursor:
            yield cursor, a
        cursor = b
    yield cursor, datetime.max.replace(tzinfo=UTC)


def running_time(
    start: datetime,
    end: datetime,
    tz: ZoneInfo,
    weekends_off: bool = False,
    vacations: Sequence[Interval] = (),
) -> timedelta:
    """How long the clock ran between ``start`` and ``end`` (0 if ``end`` is earlier)."""
    total = timedelta(0)
    for a, b in _running(start, tz, weekends_off, vacations):
        if a >= end:
            break
        total += min(b, end) - a
    return total


def timeout_at(
    start: datetime,
    move_s: int,
    bank_s: int,
    tz: ZoneInfo,
    weekends_off: bool = False,
    vacations: Sequence[Interval] = (),
) -> datetime:
    """The instant the turn that began at ``start`` runs out: when the running time
    reaches ``move_s + bank_s`` seconds."""
    need = timedelta(seconds=move_s + bank_s)
    if not weekends_off and not vacations:
        return start + need  # the clock never stops: what _running would give, 4 µs sooner
    for a, b in _running(start, tz, weekends_off, vacations):
        if b - a >= need:
            return a + need
        need -= b - a
    raise AssertionError("the last running span has no end")  # pragma: no cover


def bank_after(
    start: datetime,
    moved_at: datetime,
    move_s: int,
    bank_s: int,
    tz: ZoneInfo,
    weekends_off: bool = False,
    vacations: Sequence[Interval] = (),
) -> int:
    """The bank (seconds) left to a mover whose turn began at ``start`` and who moved at
    ``moved_at``: ``bank_s`` less the running time beyond ``move_s``, rounded up to the
    second, never below 0."""
    used_us = running_time(start, moved_at, tz, weekends_off, vacations) // _US
    excess_us = used_us - move_s * 1_000_000
    if excess_us <= 0:
        return bank_s
    return max(0, bank_s - -(-excess_us // 1_000_000))


def left_now(
    start: datetime,
    now: datetime,
    move_s: int,
    bank_s: int,
    tz: ZoneInfo,
    weekends_off: bool = False,
    vacations: Sequence[Interval] = (),
) -> tuple[int, int]:
    """(the move's time left, the bank left), in whole seconds, at ``now`` of a turn
    that began at ``start`` (what the board shows)."""
    used_us = running_time(start, now, tz, weekends_off, vacations) // _US
    move_left = max(0, (move_s * 1_000_000 - used_us) // 1_000_000)
    return move_left, bank_after(start, now, move_s, bank_s, tz, weekends_off, vacations)


def span_text(seconds: int) -> str:
    """A span as the board shows it: ``2d 4h``, ``5h 10m``, ``12m``, ``0m``."""
    seconds = max(0, int(seconds))
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes = rest // 60
    if days:
        return f"{days}d {hours}h" if hours else f"{days}d"
    if hours:
        return f"{hours}h {minutes}m" if minutes else f"{hours}h"
    return f"{minutes}m"


def server_zone_name() -> str:
    """The IANA name of this machine's time zone (``TZ``, else /etc/localtime's link),
    or "UTC" when neither names one."""
    import os

    for candidate in (os.environ.get("TZ", "").lstrip(":"), _localtime_link()):
        if candidate and known_zone(candidate):
            return known_zone(candidate) or "UTC"
    return "UTC"


def _localtime_link() -> str:
    import os

    try:
        target = os.readlink("/etc/localtime")
    except OSError:
        return ""
    marker = "zoneinfo/"
    return target.split(marker, 1)[1] if marker in target else ""
