"""RateLimit: a burst at once, then so many a minute; a flood is refused."""

from __future__ import annotations

from datetime import timedelta

from door.services.clock import FakeClock
from door.services.safety import SLOW_DOWN, RateLimit


def test_a_burst_is_allowed_then_refused() -> None:
    limit = RateLimit(FakeClock(), per_minute=6, burst=3)
    assert [limit.allow(1) for _ in range(4)] == [True, True, True, False]


def test_the_allowance_comes_back_with_time() -> None:
    clock = FakeClock()
    limit = RateLimit(clock, per_minute=6, burst=2)
    assert limit.allow(1) and limit.allow(1) and not limit.allow(1)
    clock.advance(timedelta(seconds=9))
    assert not limit.allow(1)
    clock.advance(timedelta(seconds=1))  # 10 s: one more at 6 a minute
    assert limit.allow(1)
    assert not limit.allow(1)


def test_each_user_has_their_own_allowance() -> None:
    limit = RateLimit(FakeClock(), per_minute=1, burst=1)
    assert limit.allow(1)
    assert not limit.allow(1)
    assert limit.allow(2)


def test_a_refusal_counts_nothing() -> None:
    clock = FakeClock()
    limit = RateLimit(clock, per_minute=60, burst=1)
    assert limit.allow(1)
    for _ in range(50):
        assert not limit.allow(1)
    clock.advance(timedelta(seconds=1))
    assert limit.allow(1)


def test_slow_down_says_so() -> None:
    assert SLOW_DOWN.startswith("Slow down")
