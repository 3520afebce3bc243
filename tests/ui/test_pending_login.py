"""The log-in screen keeps out an account that waits for the sysop's approval."""

from __future__ import annotations

import asyncio

from door.services import Services
from door.services.signups import SignupPolicy
from tests.ui.conftest import StartSession


async def test_a_sign_up_waiting_for_approval_does_not_reach_the_main_menu(
    start_session: StartSession, services: Services
) -> None:
    services.accounts.signups = SignupPolicy(mode="approval")
    r = await start_session(None)
    r.term.type("n")
    r.term.line("Carol")
    r.term.line("carol-pw")
    r.term.line("carol-pw")
    await asyncio.wait_for(r.task, 5)
    assert "waiting for the sysop's approval" in r.term.display_text()
    assert "Main Menu" not in r.term.display_text()
    carol = await services.accounts.by_name("Carol")
    assert carol is not None and carol.is_pending and carol.last_login_at is None
