"""Who may sign up, and how fast: the sign-up policy and the per-address limits.

Every sign-up attempt from a network address is a row of the ``signups`` table, made or
refused (a bad, reserved, taken or look-alike name counts too), so the limits hold across
restarts and across the processes sharing a PostgreSQL database, and the sysop can see
where accounts came from. Attempts refused by the limits themselves are not written, so a
flood cannot grow the table; rows older than a day are dropped as new ones come.

The check and the insert share one write transaction, and sign-ups from one address
take turns (SQLite's write transactions begin IMMEDIATE; on PostgreSQL a transaction-scoped
advisory lock per address), so the limits are exact even for sign-ups racing in several
processes.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

from door.store.repository import Repository

SignupMode = Literal["open", "closed", "approval"]
SIGNUP_MODES: tuple[SignupMode, ...] = ("open", "closed", "approval")
KEEP_LOG = timedelta(days=1)

CLOSED_MESSAGE = "Sign-ups are closed here. Ask the sysop for an account."
PENDING_MESSAGE = (
    "Your account is waiting for the sysop's approval. You can log in once it is approved."
)


@dataclass(frozen=True)
class SignupPolicy:
    """``mode``: open, closed, or approval (new accounts wait for ``door user approve``).
    ``per_hour``: accounts one address may make per ``window``; ``attempts_per_hour``:
    attempts (made or refused) one address may make per ``window``. 0 turns a limit off."""

    mode: SignupMode = "open"
    per_hour: int = 3
    attempts_per_hour: int = 10
    window: timedelta = timedelta(hours=1)

    def refusal(self, repo: Repository, address: str | None, now: datetime) -> str | None:
        """Why a sign-up from ``address`` is refused now, or None. ``address`` None is a
        caller without one (a test, a local screen): only the mode applies."""
        if self.mode == "closed":
            return CLOSED_MESSAGE
        if address is None or (self.per_hour <= 0 and self.attempts_per_hour <= 0):
            return None
        counts = repo.signup_counts(address, now - self.window)
        if self.per_hour > 0 and counts.made >= self.per_hour:
            return (
                f"Your address has made {counts.made} new accounts in the last hour; "
                "please try again later."
            )
        if self.attempts_per_hour > 0 and counts.attempts >= self.attempts_per_hour:
            return "Too many sign-up attempts from your address; please try again later."
        return None

    def record(self, repo: Repository, address: str, now: datetime, user_id: int | None) -> None:
        """Log one attempt (``user_id`` None: it was refused), forgetting old ones."""
        repo.forget_signups_before(now - max(KEEP_LOG, self.window))
        repo.insert_signup(address, now, user_id is not None, user_id)
