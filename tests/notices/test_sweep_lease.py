"""One process sweeps the reminders at a time (a lease in the sweep's transaction): two
outboxes on one database, as two ``door serve`` processes have, never both write the
same reminder, and the second takes the sweep over once the first stops renewing it."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from door.services.outbox import Outbox
from tests.notices.conftest import World
from tests.notices.test_reminders import bobs_turn_reminders_only, to_hours_before


def other_process(w: World, lease_s: float) -> Outbox:
    other = Outbox(w.db, w.clock, push_schemes=("http",), push_enabled=True, mail_enabled=True)
    other.sweep_lease_s = lease_s
    return other


async def test_a_second_process_does_not_sweep_while_the_first_holds_the_sweep(
    w: World,
) -> None:
    snap = await bobs_turn_reminders_only(w)
    other = other_process(w, 60)
    to_hours_before(w, snap, 30)
    assert await w.outbox.sweep_reminders() == 0  # the first process holds the sweep now
    to_hours_before(w, snap, 23)
    assert await other.sweep_reminders() == 0
    assert await w.outbox.sweep_reminders() == 1


async def test_the_sweep_passes_to_another_process_once_its_holder_stops(w: World) -> None:
    snap = await bobs_turn_reminders_only(w)
    w.outbox.sweep_lease_s = 0.3  # leases run by the database's clock: a real wait
    other = other_process(w, 0.3)
    to_hours_before(w, snap, 30)
    assert await w.outbox.sweep_reminders() == 0
    to_hours_before(w, snap, 23)
    await asyncio.sleep(0.5)  # the first process is gone: its hold runs out
    assert await other.sweep_reminders() == 1
    assert await w.deliver() == ["sent"]
    w.clock.advance(timedelta(minutes=1))
    assert await w.outbox.sweep_reminders() == 0  # once per deadline, whoever swept it
    [m] = w.inbox.to("bob@door.test")
    assert "within 24 hours" in m["Subject"]
