"""Connection limits and failed-login throttling."""

from __future__ import annotations

import asyncio
import os

from door.net.limits import (
    Admission,
    ConnectionLimiter,
    LoginGuard,
    ThrottledAccounts,
    hashing_slots,
)


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def nothing(message: str) -> None:
    return None


def test_per_address_limit_refuses_with_a_message() -> None:
    limiter = ConnectionLimiter(max_total=10, max_per_address=2)
    assert isinstance(limiter.admit("1.2.3.4", nothing), Admission)
    assert isinstance(limiter.admit("1.2.3.4", nothing), Admission)
    assert "your address" in str(limiter.admit("1.2.3.4", nothing))
    assert isinstance(limiter.admit("5.6.7.8", nothing), Admission)


def test_total_limit_refuses_everyone() -> None:
    limiter = ConnectionLimiter(max_total=1, max_per_address=5)
    first = limiter.admit("a", nothing)
    assert isinstance(first, Admission)
    first.promote()
    assert "full" in str(limiter.admit("b", nothing))


def test_release_frees_the_slot() -> None:
    limiter = ConnectionLimiter(max_total=1, max_per_address=1)
    first = limiter.admit("a", nothing)
    assert isinstance(first, Admission)
    first.release()
    assert isinstance(limiter.admit("a", nothing), Admission)
    assert limiter.total == 1


def test_delay_grows_with_each_failure_up_to_the_cap() -> None:
    guard = LoginGuard(base_delay=1.0, max_delay=4.0, clock=FakeClock())
    delays = [guard.record_failure("x") for _ in range(5)]
    assert delays == [1.0, 2.0, 4.0, 4.0, 4.0]


def test_address_is_blocked_after_ten_failures_in_ten_minutes() -> None:
    clock = FakeClock()
    guard = LoginGuard(block_after=10, window=600, clock=clock)
    for _ in range(9):
        guard.record_failure("x")
        clock.now += 10
    assert guard.blocked_for("x") == 0
    guard.record_failure("x")
    assert guard.blocked_for("x") > 0
    assert guard.blocked_for("y") == 0


def test_block_lifts_when_the_failures_age_out() -> None:
    clock = FakeClock()
    guard = LoginGuard(block_after=3, window=600, clock=clock)
    for _ in range(3):
        guard.record_failure("x")
    clock.now += 601
    assert guard.blocked_for("x") == 0
    assert guard.failures("x") == 0


def test_failures_spread_beyond_the_window_do_not_block() -> None:
    clock = FakeClock()
    guard = LoginGuard(block_after=3, window=600, clock=clock)
    for _ in range(6):
        guard.record_failure("x")
        clock.now += 301
    assert guard.blocked_for("x") == 0


async def test_password_checks_wait_for_a_free_slot() -> None:
    running = 0
    most = 0

    class SlowAccounts:
        async def authenticate(self, name: str, password: str) -> str:
            nonlocal running, most
            running += 1
            most = max(most, running)
            await asyncio.sleep(0.02)
            running -= 1
            return name

        async def by_name(self, name: str) -> str:
            return "passed through"

    accounts = ThrottledAccounts(SlowAccounts(), slots=2)
    names = await asyncio.gather(*(accounts.authenticate(f"u{i}", "pw") for i in range(7)))
    assert names == [f"u{i}" for i in range(7)]
    assert most == 2
    assert await accounts.by_name("x") == "passed through"


def test_hashing_slots_default_to_one_per_cpu() -> None:
    assert hashing_slots(3) == 3
    assert hashing_slots(0) == max(1, os.cpu_count() or 1)
