"""The clock's arithmetic (door/services/timecontrol.py) against the independent model
(tests/clock/model.py), and the properties a fair clock must have."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from hypothesis import given, settings
from hypothesis import strategies as st

from door.services import timecontrol as tc
from tests.clock import model

ZONES = [
    "UTC", "Europe/Berlin", "America/New_York", "Asia/Kolkata", "Pacific/Auckland",
    "Australia/Lord_Howe", "America/Santiago", "Asia/Kathmandu",
]  # fmt: skip
T0 = datetime(2026, 1, 1, tzinfo=UTC)

starts = st.integers(0, 400 * 86400).map(lambda s: T0 + timedelta(seconds=s, microseconds=0))
moves = st.integers(1, 720).map(lambda h: h * 3600)
banks = st.integers(0, 60 * 86400)
zones = st.sampled_from(ZONES).map(ZoneInfo)


@st.composite
def vacations(draw: st.DrawFn, start: datetime) -> list[tc.Interval]:
    out = []
    cursor = start - timedelta(days=draw(st.integers(0, 10)))
    for _ in range(draw(st.integers(0, 3))):
        cursor += timedelta(seconds=draw(st.integers(0, 40 * 86400)))
        end = cursor + timedelta(seconds=draw(st.integers(1, 20 * 86400)))
        out.append((cursor, end))
        cursor = end
    return out


@given(start=starts, move_s=moves, bank_s=banks)
def test_without_weekends_or_vacations_the_timeout_is_start_plus_move_plus_bank(
    start: datetime, move_s: int, bank_s: int
) -> None:
    tz = ZoneInfo("Europe/Berlin")
    assert tc.timeout_at(start, move_s, bank_s, tz) == start + timedelta(seconds=move_s + bank_s)


@given(start=starts, hours=st.integers(1, 720))
def test_no_bank_and_weekends_on_is_the_old_deadline(start: datetime, hours: int) -> None:
    assert tc.timeout_at(start, hours * 3600, 0, ZoneInfo("UTC")) == start + timedelta(
        hours=hours
    )


@settings(max_examples=200, deadline=None)
@given(data=st.data(), start=starts, move_s=moves, bank_s=banks, tz=zones, weekends=st.booleans())
def test_the_timeout_is_the_models(
    data: st.DataObject, start: datetime, move_s: int, bank_s: int, tz: ZoneInfo,
    weekends: bool,
) -> None:  # fmt: skip
    spans = data.draw(vacations(start))
    got = tc.timeout_at(start, move_s, bank_s, tz, weekends, spans)
    assert got == model.timeout(start, move_s + bank_s, tz, weekends, spans)
    assert model.running(start, got, tz, weekends, spans) == timedelta(seconds=move_s + bank_s)


@settings(max_examples=200, deadline=None)
@given(
    data=st.data(), start=starts, move_s=moves, bank_s=banks, tz=zones, weekends=st.booleans(),
    after=st.integers(0, 120 * 86400),
)  # fmt: skip
def test_the_bank_after_a_move_is_the_models(
    data: st.DataObject, start: datetime, move_s: int, bank_s: int, tz: ZoneInfo,
    weekends: bool, after: int,
) -> None:  # fmt: skip
    spans = data.draw(vacations(start))
    moved = start + timedelta(seconds=after, microseconds=data.draw(st.integers(0, 999_999)))
    used = model.running(start, moved, tz, weekends, spans)
    assert tc.running_time(start, moved, tz, weekends, spans) == used
    assert tc.bank_after(start, moved, move_s, bank_s, tz, weekends, spans) == (
        model.bank_left(used, move_s, bank_s)
    )


@settings(max_examples=100, deadline=None)
@given(
    data=st.data(), start=starts, move_s=moves, bank_s=banks, tz=zones, weekends=st.booleans(),
    a=st.integers(0, 90 * 86400), b=st.integers(0, 90 * 86400),
)  # fmt: skip
def test_the_bank_never_grows_with_a_later_move(
    data: st.DataObject, start: datetime, move_s: int, bank_s: int, tz: ZoneInfo,
    weekends: bool, a: int, b: int,
) -> None:  # fmt: skip
    spans = data.draw(vacations(start))
    early, late = sorted((a, b))
    first, second = (
        tc.bank_after(start, start + timedelta(seconds=t), move_s, bank_s, tz, weekends, spans)
        for t in (early, late)
    )
    assert 0 <= second <= first <= bank_s


@settings(max_examples=100, deadline=None)
@given(data=st.data(), start=starts, move_s=moves, bank_s=banks, tz=zones, weekends=st.booleans())
def test_the_bank_is_spent_exactly_at_the_timeout_and_not_a_second_before(
    data: st.DataObject, start: datetime, move_s: int, bank_s: int, tz: ZoneInfo,
    weekends: bool,
) -> None:  # fmt: skip
    spans = data.draw(vacations(start))
    end = tc.timeout_at(start, move_s, bank_s, tz, weekends, spans)
    assert tc.bank_after(start, end, move_s, bank_s, tz, weekends, spans) == 0
    before = end - timedelta(seconds=1)
    assert tc.running_time(start, before, tz, weekends, spans) < timedelta(
        seconds=move_s + bank_s
    )


@given(start=starts, move_s=moves, tz=zones)
def test_weekends_off_never_makes_the_turn_shorter(
    start: datetime, move_s: int, tz: ZoneInfo
) -> None:
    assert tc.timeout_at(start, move_s, 0, tz, True) >= tc.timeout_at(start, move_s, 0, tz)


def test_a_friday_evening_turn_in_berlin_waits_out_the_weekend() -> None:
    friday = datetime(2026, 12, 4, 20, 0, tzinfo=UTC)  # 21:00 in Berlin
    berlin = ZoneInfo("Europe/Berlin")
    # 3 h to Saturday 00:00 Berlin, then the rest from Monday 00:00 Berlin (Sunday 23:00 UTC)
    assert tc.timeout_at(friday, 5 * 3600, 0, berlin, True) == datetime(
        2026, 12, 7, 1, 0, tzinfo=UTC
    )


def test_the_same_instant_is_a_weekday_in_one_zone_and_a_weekend_in_another() -> None:
    # Friday 23:00 UTC is Saturday in Auckland and Friday in New York
    t = datetime(2026, 12, 4, 23, 0, tzinfo=UTC)
    assert tc.running_time(t, t + timedelta(hours=1), ZoneInfo("Pacific/Auckland"), True) == (
        timedelta(0)
    )
    assert tc.running_time(t, t + timedelta(hours=1), ZoneInfo("America/New_York"), True) == (
        timedelta(hours=1)
    )


def test_a_vacation_stops_the_clock() -> None:
    t = datetime(2026, 6, 1, tzinfo=UTC)
    away = [(t + timedelta(hours=2), t + timedelta(days=3, hours=2))]
    assert tc.timeout_at(t, 10 * 3600, 0, ZoneInfo("UTC"), False, away) == t + timedelta(
        days=3, hours=10
    )


def test_options_out_of_range_say_what_is_wrong() -> None:
    assert tc.ClockOptions(1800, 0, False).problem() == (
        "the time per move must be from 1 hour to 30 days"
    )
    assert tc.ClockOptions(3600, 61 * 86400, False).problem() == (
        "the time bank must be from 0 to 60 days"
    )
    assert tc.ClockOptions(5400, 0, False).problem() is not None
    assert tc.ClockOptions(30 * 86400, 60 * 86400, True).problem() is None


def test_spans_read_as_the_board_shows_them() -> None:
    assert tc.span_text(2 * 86400 + 4 * 3600 + 59) == "2d 4h"
    assert tc.span_text(5 * 86400) == "5d"
    assert tc.span_text(3 * 3600 + 600) == "3h 10m"
    assert tc.span_text(59) == "0m"


def test_zone_names_are_matched_without_regard_to_case() -> None:
    assert tc.known_zone("europe/berlin") == "Europe/Berlin"
    assert tc.known_zone("Mars/Olympus") is None
    assert tc.known_zone("../etc/passwd") is None
