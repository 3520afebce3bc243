"""Connection limits, growing delays after failed logins, temporary address blocks, and a
cap on password hashing running at once.

The limiter and the guard are plain bookkeeping with an injectable monotonic clock, shared
by every listener of one server process.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections import deque
from collections.abc import Callable
from typing import Any


class ConnectionLimiter:
    """At most ``max_total`` connections, and ``max_per_address`` from one address."""

    def __init__(self, max_total: int, max_per_address: int) -> None:
        self.max_total = max_total
        self.max_per_address = max_per_address
        self._per_address: dict[str, int] = {}
        self._total = 0

    @property
    def total(self) -> int:
        return self._total

    def try_acquire(self, address: str) -> str | None:
        """Take a slot for ``address``; the refusal message if there is none (nothing taken)."""
        if self._total >= self.max_total:
            return "The server is full right now. Please try again later."
        if self._per_address.get(address, 0) >= self.max_per_address:
            return "Too many connections from your address. Please close one and retry."
        self._per_address[address] = self._per_address.get(address, 0) + 1
        self._total += 1
        return None

    def release(self, address: str) -> None:
        """Give back a slot taken by :meth:`try_acquire`."""
        count = self._per_address.get(address, 0)
        if count <= 0:
            return
        if count == 1:
            del self._per_address[address]
        else:
            self._per_address[address] = count - 1
        self._total -= 1


class LoginGuard:
    """Failed-login bookkeeping per address.

    Each failure earns a growing delay (``base_delay`` doubling, at most ``max_delay``) before
    the next prompt; ``block_after`` failures within ``window`` seconds block the address
    until the oldest of them is ``window`` seconds old.
    """

    def __init__(
        self,
        block_after: int = 10,
        window: float = 600.0,
        base_delay: float = 1.0,
        max_delay: float = 8.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.block_after = block_after
        self.window = window
        self.base_delay = base_delay
        self.max_delay = max_delay
        self._clock = clock
        self._failures: dict[str, deque[float]] = {}

    def _recent(self, address: str) -> deque[float]:
        now = self._clock()
        times = self._failures.get(address)
        if times is None:
            return deque()
        while times and times[0] <= now - self.window:
            times.popleft()
        if not times:
            del self._failures[address]
        return times

    def failures(self, address: str) -> int:
        """Failures from ``address`` within the window."""
        return len(self._recent(address))

    def blocked_for(self, address: str) -> float:
        """Seconds ``address`` stays blocked (0 if it is not blocked)."""
        times = self._recent(address)
        if len(times) < self.block_after:
            return 0.0
        return max(0.0, times[-self.block_after] + self.window - self._clock())

    def record_failure(self, address: str) -> float:
        """Note a failure; returns the delay (seconds) to wait before the next attempt."""
        times = self._recent(address)
        times.append(self._clock())
        self._failures[address] = times
        return float(min(self.max_delay, self.base_delay * 2.0 ** (len(times) - 1)))


def hashing_slots(configured: int) -> int:
    """How many password hashes may run at once: ``configured``, or (0) one per CPU.

    One per CPU, not more: with asyncio's default pool (CPUs + 4 threads) a burst of
    logins leaves the event loop a small fraction of a core; fewer than the CPUs starves
    logins whenever anything else runs on the machine (measured: one slot on two shared
    cores doubled the median login time).
    """
    if configured > 0:
        return configured
    return max(1, os.cpu_count() or 1)


class ThrottledAccounts:
    """The accounts service with at most ``slots`` password checks or sign-ups at a time.

    scrypt is deliberately slow (~50 ms of CPU) and runs in worker threads; a burst of
    logins would otherwise take every core and starve the event loop that serves everyone
    else's keys. Excess logins wait their turn instead. Other methods pass through.
    """

    def __init__(self, accounts: Any, slots: int) -> None:
        self._accounts = accounts
        self._slots = asyncio.Semaphore(slots)

    async def authenticate(self, name: str, password: str) -> Any:
        async with self._slots:
            return await self._accounts.authenticate(name, password)

    async def register(self, name: str, password: str, **options: Any) -> Any:
        async with self._slots:
            return await self._accounts.register(name, password, **options)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._accounts, name)
