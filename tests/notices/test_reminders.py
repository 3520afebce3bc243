"""Reminders before a move's deadline (24 h and 2 h, games.deadline) on a fake clock:
each once per deadline, the smallest threshold reached, none while on vacation."""

from __future__ import annotations

from datetime import timedelta

from door.services.games import GameSnapshot
from door.services.vacations import PlayerClocks
from tests.notices.conftest import World
from tests.notices.test_delivery import moves_until_bobs_turn
from tests.services.test_games import two_player_game


async def bobs_turn_reminders_only(w: World) -> GameSnapshot:
    await w.outbox.set_confirmed_email(w.bob.id, "bob@door.test")
    await w.outbox.set_kinds(w.bob.id, frozenset({"reminder"}))
    return await moves_until_bobs_turn(w, await two_player_game(w.games, w.alice, w.bob, 40))


def to_hours_before(w: World, snap: GameSnapshot, hours: float) -> None:
    """Move the fake clock to ``hours`` before the game's deadline."""
    assert snap.info.deadline is not None
    w.clock.advance(snap.info.deadline - timedelta(hours=hours) - w.clock.now())


async def test_the_24_hour_reminder_comes_once_when_24_hours_are_left(w: World) -> None:
    snap = await bobs_turn_reminders_only(w)
    to_hours_before(w, snap, 25)
    assert await w.outbox.sweep_reminders() == 0
    to_hours_before(w, snap, 23)
    assert await w.outbox.sweep_reminders() == 1
    assert await w.deliver() == ["sent"]
    assert await w.outbox.sweep_reminders() == 0  # once per deadline
    [m] = w.inbox.to("bob@door.test")
    assert "within 24 hours" in m["Subject"]


async def test_the_2_hour_reminder_follows_and_a_late_start_gets_only_it(w: World) -> None:
    snap = await bobs_turn_reminders_only(w)
    to_hours_before(w, snap, 23)
    assert await w.outbox.sweep_reminders() == 1
    await w.deliver()
    to_hours_before(w, snap, 1.5)
    assert await w.outbox.sweep_reminders() == 1
    await w.deliver()
    assert await w.outbox.sweep_reminders() == 0
    subjects = [m["Subject"] for m in w.inbox.to("bob@door.test")]
    assert len(subjects) == 2 and "within 2 hours" in subjects[1]


async def test_no_reminder_while_on_vacation(w: World) -> None:
    snap = await bobs_turn_reminders_only(w)
    to_hours_before(w, snap, 23)
    await PlayerClocks(w.games.core, w.clock).start(w.bob.id, 3)
    assert await w.outbox.sweep_reminders() == 0
    assert await w.deliver() == []
