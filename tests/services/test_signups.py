"""Sign-ups: per-address limits on accounts and on attempts (failed ones count), kept in
the database; closed sign-ups; sign-ups that wait for the sysop's approval."""

from __future__ import annotations

import asyncio
import io
import re
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.engine import Connection

from door.cli import main
from door.config import ConfigError, load_config
from door.services import name_rules, signup_policy
from door.services.accounts import AccountError, Accounts
from door.services.clock import FakeClock
from door.services.signups import CLOSED_MESSAGE, SignupPolicy
from door.store.db import Database

HERE = "198.51.100.7"
THERE = "198.51.100.8"


def accounts_with(db: Database, clock: FakeClock, **policy: object) -> Accounts:
    return Accounts(db, clock, signups=SignupPolicy(**policy))  # type: ignore[arg-type]


async def signup_rows(db: Database) -> int:
    def count(conn: Connection) -> int:
        return int(conn.execute(text("SELECT count(*) FROM signups")).scalar_one())

    return await db.run_sync(count)


# --- per-address limits ----------------------------------------------------------------


async def test_an_address_may_make_three_accounts_an_hour(accounts: Accounts) -> None:
    for name in ("ann", "ben", "cat"):
        await accounts.register(name, "pw-pw-pw", address=HERE)
    with pytest.raises(AccountError, match="3 new accounts in the last hour"):
        await accounts.register("dan", "pw-pw-pw", address=HERE)
    assert await accounts.by_name("dan") is None


async def test_another_address_is_not_held_back(accounts: Accounts) -> None:
    for name in ("ann", "ben", "cat"):
        await accounts.register(name, "pw-pw-pw", address=HERE)
    assert (await accounts.register("dan", "pw-pw-pw", address=THERE)).name == "dan"


async def test_the_limit_lifts_an_hour_later(accounts: Accounts, clock: FakeClock) -> None:
    for name in ("ann", "ben", "cat"):
        await accounts.register(name, "pw-pw-pw", address=HERE)
    clock.advance(timedelta(minutes=59))
    with pytest.raises(AccountError, match="new accounts"):
        await accounts.register("dan", "pw-pw-pw", address=HERE)
    clock.advance(timedelta(minutes=2))
    assert (await accounts.register("dan", "pw-pw-pw", address=HERE)).name == "dan"


async def test_failed_sign_ups_count_too(accounts: Accounts) -> None:
    bad = ["sysop", "x", "\u0430dmin", "a\u034fb", "root"] * 2  # ten refused attempts
    for name in bad:
        with pytest.raises(AccountError):
            await accounts.register(name, "pw-pw-pw", address=HERE)
    with pytest.raises(AccountError, match="Too many sign-up attempts"):
        await accounts.register("honest", "pw-pw-pw", address=HERE)
    assert await accounts.by_name("honest") is None
    assert (await accounts.register("honest", "pw-pw-pw", address=THERE)).name == "honest"


async def test_a_taken_name_counts_as_a_failed_attempt(accounts: Accounts) -> None:
    await accounts.register("ann", "pw-pw-pw", address=THERE)
    for _ in range(10):
        with pytest.raises(AccountError, match="taken"):
            await accounts.register("ann", "pw-pw-pw", address=HERE)
    with pytest.raises(AccountError, match="Too many"):
        await accounts.register("ben", "pw-pw-pw", address=HERE)


async def test_the_limits_hold_across_a_restart(db: Database, clock: FakeClock) -> None:
    first = Accounts(db, clock)
    for name in ("ann", "ben", "cat"):
        await first.register(name, "pw-pw-pw", address=HERE)
    restarted = Accounts(db, clock)  # a new process: nothing kept in memory
    with pytest.raises(AccountError, match="new accounts"):
        await restarted.register("dan", "pw-pw-pw", address=HERE)


async def test_the_limits_are_configurable_and_zero_turns_them_off(
    db: Database, clock: FakeClock
) -> None:
    one = accounts_with(db, clock, per_hour=1)
    await one.register("ann", "pw-pw-pw", address=HERE)
    with pytest.raises(AccountError, match="new accounts"):
        await one.register("ben", "pw-pw-pw", address=HERE)
    unlimited = accounts_with(db, clock, per_hour=0, attempts_per_hour=0)
    for i in range(5):
        await unlimited.register(f"user{i}", "pw-pw-pw", address=HERE)


async def test_racing_sign_ups_from_one_address_make_exactly_three(
    accounts: Accounts,
) -> None:
    names = [f"racer{i}" for i in range(6)]
    results = await asyncio.gather(
        *(accounts.register(n, "pw-pw-pw", address=HERE) for n in names),
        return_exceptions=True,
    )
    assert sum(1 for r in results if not isinstance(r, BaseException)) == 3
    assert all(isinstance(r, AccountError) for r in results if isinstance(r, BaseException))


async def test_the_refusal_can_be_asked_before_the_dialogue(accounts: Accounts) -> None:
    assert await accounts.signup_refusal(HERE) is None
    for name in ("ann", "ben", "cat"):
        await accounts.register(name, "pw-pw-pw", address=HERE)
    refusal = await accounts.signup_refusal(HERE)
    assert refusal is not None and "new accounts" in refusal


async def test_refusals_by_the_limit_are_not_logged(accounts: Accounts) -> None:
    for name in ("ann", "ben", "cat"):
        await accounts.register(name, "pw-pw-pw", address=HERE)
    for _ in range(20):
        with pytest.raises(AccountError):
            await accounts.register("dan", "pw-pw-pw", address=HERE)
    assert await signup_rows(accounts.db) == 3


async def test_the_log_forgets_attempts_older_than_a_day(
    accounts: Accounts, clock: FakeClock
) -> None:
    await accounts.register("ann", "pw-pw-pw", address=HERE)
    clock.advance(timedelta(days=2))
    await accounts.register("ben", "pw-pw-pw", address=THERE)
    assert await signup_rows(accounts.db) == 1


# --- closed and approval ---------------------------------------------------------------


async def test_closed_sign_ups_are_refused_and_nothing_is_made(
    db: Database, clock: FakeClock
) -> None:
    closed = accounts_with(db, clock, mode="closed")
    with pytest.raises(AccountError, match="closed"):
        await closed.register("ann", "pw-pw-pw", address=HERE)
    assert await closed.signup_refusal(HERE) == CLOSED_MESSAGE
    assert await closed.by_name("ann") is None


async def test_the_sysop_may_add_users_when_sign_ups_are_closed(
    db: Database, clock: FakeClock
) -> None:
    closed = accounts_with(db, clock, mode="closed")
    user = await closed.add_user("ann", "pw-pw-pw")
    assert not user.is_pending


async def test_under_approval_a_new_account_waits(db: Database, clock: FakeClock) -> None:
    gated = accounts_with(db, clock, mode="approval")
    user = await gated.register("ann", "pw-pw-pw", address=HERE)
    assert user.is_pending
    logged_in = await gated.authenticate("ann", "pw-pw-pw")
    assert logged_in is not None and logged_in.is_pending  # the session will refuse it
    assert [u.name for u in await gated.pending()] == ["ann"]


async def test_approving_lets_the_account_in(db: Database, clock: FakeClock) -> None:
    gated = accounts_with(db, clock, mode="approval")
    await gated.register("ann", "pw-pw-pw", address=HERE)
    approved = await gated.approve("ANN")
    assert not approved.is_pending
    user = await gated.authenticate("ann", "pw-pw-pw")
    assert user is not None and not user.is_pending
    assert await gated.pending() == []
    with pytest.raises(AccountError, match="not waiting"):
        await gated.approve("ann")


# --- the sysop's commands --------------------------------------------------------------


def door(*argv: str, monkeypatch: pytest.MonkeyPatch, stdin: str = "") -> int:
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    return main(list(argv))


def test_door_user_pending_and_approve(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "door.toml"
    config.write_text('[accounts]\nsignup = "approval"\n')
    data = ["--config", str(config), "--data-dir", str(tmp_path)]
    assert door("db", "upgrade", *data, monkeypatch=monkeypatch) == 0

    async def sign_up() -> None:
        from door.config import load_config
        from door.services import build_services

        services = await build_services(
            load_config(config, data_dir=tmp_path), start_background=False
        )
        try:
            assert (await services.accounts.register("ann", "pw-pw-pw", address=HERE)).is_pending
        finally:
            await services.close()

    asyncio.run(sign_up())
    capsys.readouterr()
    assert door("user", "pending", *data, monkeypatch=monkeypatch) == 0
    assert "ann" in capsys.readouterr().out
    assert door("user", "approve", "ann", *data, monkeypatch=monkeypatch) == 0
    assert "approved" in capsys.readouterr().out
    assert door("user", "pending", *data, monkeypatch=monkeypatch) == 0
    assert "no sign-ups are waiting" in capsys.readouterr().out
    assert door("user", "approve", "ann", *data, monkeypatch=monkeypatch) == 1
    assert "not waiting" in capsys.readouterr().err


def test_door_user_add_takes_a_reserved_name_when_sign_ups_are_closed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "door.toml"
    config.write_text('[accounts]\nsignup = "closed"\n')
    data = ["--config", str(config), "--data-dir", str(tmp_path)]
    args = ("user", "add", "sysop", "--password-stdin", *data)
    assert door(*args, monkeypatch=monkeypatch, stdin="pw-pw-pw\n") == 0
    assert "added sysop" in capsys.readouterr().out


# --- the [accounts] settings -----------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[accounts]\nsignup = "maybe"\n', "[accounts] signup must be one of: open, closed"),
        ("[accounts]\nsignups_per_address_per_hour = -1\n", "signups_per_address_per_hour"),
        ("[accounts]\nreserved_names = [1, 2]\n", "reserved_names must be a list of strings"),
    ],
)
def test_bad_accounts_settings_are_refused_naming_them(
    tmp_path: Path, text: str, message: str
) -> None:
    path = tmp_path / "door.toml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=re.escape(message)):
        load_config(path)


def test_the_accounts_settings_reach_the_service(tmp_path: Path) -> None:
    path = tmp_path / "door.toml"
    path.write_text(
        '[accounts]\nsignup = "approval"\nsignups_per_address_per_hour = 5\n'
        'signup_attempts_per_address_per_hour = 7\nreserved_names = ["Zorro"]\n'
    )
    config = load_config(path)
    assert signup_policy(config) == SignupPolicy(mode="approval", per_hour=5, attempts_per_hour=7)
    assert name_rules(config).is_reserved("ZORRO")
    assert not name_rules(config).is_reserved("sysop")
