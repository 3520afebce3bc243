"""Connection limits (with a pool for connections still logging in), growing delays after
failed logins, temporary address blocks, short per-account locks, and a cap on password
hashing running at once.

The limiter and the guard are plain bookkeeping with an injectable monotonic clock, shared
by every listener of one server process.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
from collections import deque
from collections.abc import Callable
from typing import Any

log = logging.getLogger("door.net.auth")

FULL = "The server is full right now. Please try again later."
ADDRESS_FULL = "Too many connections from your address. Please close one and retry."
ADDRESS_LOGGING_IN = (
    "Too many connections from your address are still logging in. Finish one and retry."
)
EVICTED = "The server is busy with people logging in. Please connect again."
LOGIN_TIME_UP = "Login time is up. Please connect again."
ADDRESS_BLOCKED = "Too many failed logins from your address. Try again later."
ACCOUNT_LOCKED = "Too many failed logins for that name. Try again in a minute or two."


class Admission:
    """One connection's hold on a :class:`ConnectionLimiter`.

    It starts in the pre-login pool; :meth:`promote` moves it to the players once the
    person has logged in, :meth:`release` gives it back when the connection ends. The
    limiter may :meth:`drop` a pre-login one (login deadline, eviction, blocked address):
    that releases it and calls the transport's ``drop(message)``, which closes the
    connection with ``message``.
    """

    def __init__(
        self,
        limiter: ConnectionLimiter,
        address: str,
        drop: Callable[[str], None],
        at: float,
    ) -> None:
        self.address = address
        self.at = at
        self._limiter = limiter
        self._drop = drop
        self.logged_in = False
        self.released = False
        self.timer: asyncio.TimerHandle | None = None

    def promote(self) -> None:
        """The person has logged in: from the pre-login pool to the players (no deadline)."""
        self._limiter._promote(self)

    def release(self) -> None:
        """The connection has ended: give the slot back (safe to repeat)."""
        self._limiter._release(self)

    def drop(self, message: str) -> None:
        """End a pre-login connection now: release its slot, close it with ``message``."""
        if self.released or self.logged_in:
            return
        self.release()
        try:
            self._drop(message)
        except Exception:  # a transport already gone must not break the limiter
            log.debug("dropping a connection from %s failed", self.address, exc_info=True)


class ConnectionLimiter:
    """At most ``max_total`` connections, ``max_per_address`` from one address, and of
    those at most ``max_preauth`` (``max_preauth_per_address`` from one address) that have
    not logged in yet.

    The pre-login share is small, so strangers who connect and never log in cannot crowd
    out the players: ``max_total - max_preauth`` slots are only ever used by people who
    logged in. When the pre-login pool (or the whole server) is full, a newcomer takes the
    slot of the oldest pre-login connection from the address holding the most of them —
    but only if that address holds more than the newcomer's own; otherwise the newcomer
    is refused. Refusing every newcomer instead would let a flood that reconnects as fast
    as it is dropped keep real people out for good; evicting from the biggest holder means
    a flood has to come from more addresses than the pool has slots to push out someone
    who has one. Each pre-login connection is dropped ``login_deadline`` seconds after it
    was admitted (0 = never), like OpenSSH's LoginGraceTime.
    """

    def __init__(
        self,
        max_total: int,
        max_per_address: int,
        *,
        max_preauth: int | None = None,
        max_preauth_per_address: int | None = None,
        login_deadline: float = 0.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.max_total = max_total
        self.max_per_address = max_per_address
        self.max_preauth = max_total if max_preauth is None else max_preauth
        self.max_preauth_per_address = (
            max_per_address if max_preauth_per_address is None else max_preauth_per_address
        )
        self.login_deadline = login_deadline
        self._clock = clock
        self._per_address: dict[str, int] = {}
        self._preauth: dict[str, list[Admission]] = {}
        self._preauth_total = 0
        self._total = 0

    @property
    def total(self) -> int:
        return self._total

    @property
    def preauth(self) -> int:
        """Connections admitted that have not logged in yet."""
        return self._preauth_total

    def preauth_from(self, address: str) -> int:
        return len(self._preauth.get(address, ()))

    def admit(
        self, address: str, drop: Callable[[str], None], *, per_address: int | None = None
    ) -> Admission | str:
        """Admit a new connection from ``address`` into the pre-login pool.

        Returns its :class:`Admission`, or the refusal message (nothing taken). ``drop``
        closes the connection with a message (when it is evicted, blocked or out of time).
        ``per_address`` replaces both per-address caps for an address known to carry many
        people (a trusted BBS); the overall limits still hold.
        """
        cap = self.max_per_address if per_address is None else per_address
        if self._per_address.get(address, 0) >= cap:
            return ADDRESS_FULL
        mine = self.preauth_from(address)
        if mine >= (self.max_preauth_per_address if per_address is None else per_address):
            return ADDRESS_LOGGING_IN
        if self._total >= self.max_total or self._preauth_total >= self.max_preauth:
            victim = self._victim(mine)
            if victim is None:
                return FULL
            victim.drop(EVICTED)
        admission = Admission(self, address, drop, self._clock())
        self._per_address[address] = self._per_address.get(address, 0) + 1
        self._total += 1
        self._preauth.setdefault(address, []).append(admission)
        self._preauth_total += 1
        if self.login_deadline > 0:
            with contextlib.suppress(RuntimeError):  # no loop (bookkeeping tests)
                admission.timer = asyncio.get_running_loop().call_later(
                    self.login_deadline, admission.drop, LOGIN_TIME_UP
                )
        return admission

    def drop_preauth(self, address: str, message: str) -> int:
        """Drop every pre-login connection from ``address`` (it has just been blocked)."""
        victims = list(self._preauth.get(address, ()))
        for admission in victims:
            admission.drop(message)
        return len(victims)

    def _victim(self, newcomer_holds: int) -> Admission | None:
        if not self._preauth:
            return None
        address = max(self._preauth, key=lambda a: len(self._preauth[a]))
        held = self._preauth[address]
        if len(held) <= newcomer_holds:
            return None
        return held[0]  # the oldest: closest to its deadline anyway

    def _leave_preauth(self, admission: Admission) -> None:
        if admission.timer is not None:
            admission.timer.cancel()
            admission.timer = None
        held = self._preauth.get(admission.address)
        if held is None or admission not in held:
            return
        held.remove(admission)
        if not held:
            del self._preauth[admission.address]
        self._preauth_total -= 1

    def _promote(self, admission: Admission) -> None:
        if admission.released or admission.logged_in:
            return
        self._leave_preauth(admission)
        admission.logged_in = True

    def _release(self, admission: Admission) -> None:
        if admission.released:
            return
        admission.released = True
        self._leave_preauth(admission)
        count = self._per_address.get(admission.address, 0)
        if count <= 1:
            self._per_address.pop(admission.address, None)
        else:
            self._per_address[admission.address] = count - 1
        self._total = max(0, self._total - 1)


def account_key(name: str) -> str:
    """The key an account's failures are counted under (names are case-insensitive)."""
    return name.strip().casefold()


class LoginAttempt:
    """One password check in flight, from :meth:`LoginGuard.start` until it
    :meth:`succeeded` or :meth:`failed`. A check that is abandoned (cancelled, the
    connection gone) must be settled as failed: the caller does it in a ``finally``."""

    def __init__(self, guard: LoginGuard, address: str, account: str | None) -> None:
        self._guard = guard
        self.address = address
        self.account = account
        self._open = True

    def succeeded(self) -> None:
        if self._open:
            self._open = False
            self._guard._settle(self, failed=False)

    def failed(self) -> float:
        """The password was wrong: the delay (seconds) to wait before answering."""
        if not self._open:
            return 0.0
        self._open = False
        return self._guard._settle(self, failed=True)

    @property
    def settled(self) -> bool:
        return not self._open


class LoginGuard:
    """Failed-login bookkeeping per address and per account.

    Per address: each failure earns a growing delay (``base_delay`` doubling, at most
    ``max_delay``) before the next prompt; ``block_after`` failures within ``window``
    seconds block the address until the oldest of them is ``window`` seconds old — so no
    address gets more than ``block_after`` guesses in any ``window`` seconds. Checks in
    flight count against that budget: one that would exceed it waits (:meth:`start`) until
    those before it settle, so guesses made at once cannot overshoot the block, and
    people logging in at once from one address (a NAT, a BBS gateway) are not refused for
    it. When an address becomes blocked, ``on_block(address)`` is called (the server drops
    its connections that are still logging in).

    Per account (every name tried, existing or not, so the answer reveals nothing):
    ``account_lock_after`` failures within ``account_window`` seconds lock password logins
    to that name for ``account_lock`` seconds after the latest failure. The lock is short
    on purpose and spares addresses the account has logged in from before (remembered
    while the server runs): a hard lock-out would let anyone lock a real user out by
    guessing wrong on purpose (pam_faillock's known weakness). A guesser spread over many
    addresses still gets at most ``account_lock_after`` guesses, then about one per
    ``account_lock`` seconds, and key logins are never locked.
    """

    MAX_FAMILIAR = 8
    SWEEP_AT = 10_000
    WAIT_STEP = 0.02
    """Seconds between looks while a check waits for room in the budget."""

    def __init__(
        self,
        block_after: int = 10,
        window: float = 1800.0,
        base_delay: float = 1.0,
        max_delay: float = 8.0,
        *,
        account_lock_after: int = 5,
        account_window: float = 900.0,
        account_lock: float = 60.0,
        clock: Callable[[], float] = time.monotonic,
        on_block: Callable[[str], Any] | None = None,
    ) -> None:
        self.block_after = block_after
        self.window = window
        self.base_delay = base_delay
        self.max_delay = max_delay
        self.account_lock_after = account_lock_after
        self.account_window = account_window
        self.account_lock = account_lock
        self.on_block = on_block
        self._clock = clock
        self._failures: dict[str, deque[float]] = {}
        self._accounts: dict[str, deque[float]] = {}
        self._pending: dict[str, int] = {}
        self._pending_accounts: dict[str, int] = {}
        self._familiar: dict[str, dict[str, float]] = {}

    @staticmethod
    def _recent_in(table: dict[str, deque[float]], key: str, horizon: float) -> deque[float]:
        times = table.get(key)
        if times is None:
            return deque()
        while times and times[0] <= horizon:
            times.popleft()
        if not times:
            del table[key]
        return times

    def _recent(self, address: str) -> deque[float]:
        return self._recent_in(self._failures, address, self._clock() - self.window)

    def _recent_account(self, account: str) -> deque[float]:
        return self._recent_in(self._accounts, account, self._clock() - self.account_window)

    def failures(self, address: str) -> int:
        """Failures from ``address`` within the window."""
        return len(self._recent(address))

    def account_failures(self, account: str) -> int:
        """Failures for the name ``account`` within the account window."""
        return len(self._recent_account(account_key(account)))

    def blocked_for(self, address: str) -> float:
        """Seconds ``address`` stays blocked (0 if it is not blocked)."""
        times = self._recent(address)
        if self.block_after <= 0 or len(times) < self.block_after:
            return 0.0
        return max(0.0, times[-self.block_after] + self.window - self._clock())

    def _is_familiar(self, key: str, address: str) -> bool:
        return address in self._familiar.get(key, {})

    def account_locked_for(self, account: str, address: str) -> float:
        """Seconds password logins to ``account`` stay locked for ``address`` (0: not)."""
        key = account_key(account)
        if self.account_lock_after <= 0 or self._is_familiar(key, address):
            return 0.0
        times = self._recent_account(key)
        if len(times) < self.account_lock_after:
            return 0.0
        return max(0.0, times[-1] + self.account_lock - self._clock())

    def refusal(self, address: str, account: str | None = None) -> str | None:
        """Why a password attempt from ``address`` (for ``account``) is refused now, if it is."""
        if self.blocked_for(address) > 0:
            return ADDRESS_BLOCKED
        if account is not None and self.account_locked_for(account, address) > 0:
            return ACCOUNT_LOCKED
        return None

    def has_room(self, address: str, account: str | None = None) -> bool:
        """Whether one more check may start now without overshooting a limit if it fails."""
        if self.block_after > 0 and (
            self.failures(address) + self._pending.get(address, 0) >= self.block_after
        ):
            return False
        if account is None or self.account_lock_after <= 0:
            return True
        key = account_key(account)
        if self._is_familiar(key, address):
            return True
        in_flight = self._pending_accounts.get(key, 0)
        failures = len(self._recent_account(key))
        if failures >= self.account_lock_after:
            return in_flight == 0  # a lock just ended: one try at a time (a failure relocks)
        return failures + in_flight < self.account_lock_after

    async def start(self, address: str, account: str | None = None) -> LoginAttempt | str:
        """Begin a password check: the :class:`LoginAttempt`, or the refusal message.

        Waits while checks already in flight use up what is left of a budget; refuses as
        soon as a block or lock is in force.
        """
        while True:
            refusal = self.refusal(address, account)
            if refusal is not None:
                return refusal
            if self.has_room(address, account):
                return self.begin(address, account)
            await asyncio.sleep(self.WAIT_STEP)

    def begin(self, address: str, account: str | None = None) -> LoginAttempt:
        """Begin a check now, without looking at the budget (see :meth:`start`)."""
        key = None if account is None else account_key(account)
        self._pending[address] = self._pending.get(address, 0) + 1
        if key is not None:
            self._pending_accounts[key] = self._pending_accounts.get(key, 0) + 1
        return LoginAttempt(self, address, key)

    def record_failure(self, address: str, account: str | None = None) -> float:
        """Note a failure; returns the delay (seconds) to wait before the next attempt."""
        return self.begin(address, account).failed()

    def record_success(self, address: str, account: str) -> None:
        """Remember that ``address`` logged in to ``account`` (it is spared account locks)."""
        key = account_key(account)
        seen = self._familiar.setdefault(key, {})
        seen.pop(address, None)
        seen[address] = self._clock()
        while len(seen) > self.MAX_FAMILIAR:
            del seen[next(iter(seen))]

    def _settle(self, attempt: LoginAttempt, *, failed: bool) -> float:
        self._pending[attempt.address] -= 1
        if self._pending[attempt.address] <= 0:
            del self._pending[attempt.address]
        if attempt.account is not None:
            self._pending_accounts[attempt.account] -= 1
            if self._pending_accounts[attempt.account] <= 0:
                del self._pending_accounts[attempt.account]
        if not failed:
            if attempt.account is not None:
                self.record_success(attempt.address, attempt.account)
            return 0.0
        # One line per failure, sshd-style, so fail2ban and the sysop can see guessing.
        log.warning("failed login for %r from %s", attempt.account, attempt.address)
        now = self._clock()
        self._failures.setdefault(attempt.address, deque()).append(now)
        count = len(self._recent(attempt.address))
        if attempt.account is not None:
            self._accounts.setdefault(attempt.account, deque()).append(now)
            count = max(count, len(self._recent_account(attempt.account)))
        if len(self._failures) + len(self._accounts) > self.SWEEP_AT:
            self._sweep()
        if self.blocked_for(attempt.address) > 0 and self.on_block is not None:
            self.on_block(attempt.address)
        return float(min(self.max_delay, self.base_delay * 2.0 ** (max(count, 1) - 1)))

    def _sweep(self) -> None:
        for address in list(self._failures):
            self._recent(address)
        for account in list(self._accounts):
            self._recent_account(account)


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
