"""How SQLite stores a datetime: UTC text with microseconds and no zone, read back as the
same instant."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from door.store.models import _utc_from_sqlite, _utc_to_sqlite

offsets = st.integers(min_value=-23 * 60, max_value=23 * 60).map(
    lambda minutes: timezone(timedelta(minutes=minutes))
)
instants = st.datetimes(
    min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30), timezones=offsets
)


@given(instants)
def test_a_stored_time_is_its_utc_isoformat_with_microseconds_and_no_zone(when: datetime) -> None:
    expected = when.astimezone(UTC).replace(tzinfo=None).isoformat(" ", "microseconds")
    assert _utc_to_sqlite(when) == expected


@given(instants)
def test_a_stored_time_reads_back_as_the_same_instant_in_utc(when: datetime) -> None:
    text = _utc_to_sqlite(when)
    assert text is not None
    back = _utc_from_sqlite(text)
    assert back == when and back is not None and back.tzinfo is UTC


def test_a_naive_time_is_refused() -> None:
    with pytest.raises(ValueError):
        _utc_to_sqlite(datetime(2026, 12, 1, 12, 0))
