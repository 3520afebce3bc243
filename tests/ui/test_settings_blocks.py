"""Y)our settings → B)locked players, through a real session read with pyte: the list,
adding a player by name (and what a wrong name is told), removing one by number; and
what is listed is what the services block."""

from __future__ import annotations

from door.services import Services
from door.services.accounts import User
from tests.ui.conftest import Running, StartSession


async def open_blocks(r: Running) -> None:
    r.term.type("b")
    await r.term.wait_for("Players you block")


async def test_blocking_a_player_by_name_lists_them_and_the_block_holds(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    a = await start_session(alice, start="settings")
    await a.term.wait_for("Blocked players")
    await open_blocks(a)
    assert "Nobody. A)dd a player by name." in a.term.display_text()
    a.term.type("a")
    await a.term.wait_for("Block:")
    a.term.line("bob")
    await a.term.wait_for("Blocked Bob: nothing of theirs reaches you now.")
    assert "1. Bob" in a.term.display_text()
    assert await services.blocks.blocked(alice.id) == {bob.id}
    await services.mail.send(bob.id, "Alice", "Hi", "x")
    assert await services.mail.inbox(alice.id) == []


async def test_a_name_that_is_nobody_is_told_and_nothing_is_blocked(
    start_session: StartSession, services: Services, alice: User
) -> None:
    a = await start_session(alice, start="settings")
    await open_blocks(a)
    a.term.type("a")
    await a.term.wait_for("Block:")
    a.term.line("Nobody\x1b[2J")
    await a.term.wait_for("There is no player called 'Nobody")
    a.term.press("escape")
    await a.term.wait_for("Nobody added.")
    a.term.type("a")
    a.term.line("Alice")
    await a.term.wait_for("You cannot block yourself.")
    assert await services.blocks.blocked(alice.id) == frozenset()


async def test_removing_a_player_by_number_unblocks_them(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    carol = await services.accounts.register("Carol", "carol-pw")
    await services.blocks.block(alice.id, bob.id)
    await services.blocks.block(alice.id, carol.id)
    a = await start_session(alice, start="settings")
    await open_blocks(a)
    assert "1. Bob" in a.term.display_text() and "2. Carol" in a.term.display_text()
    a.term.type("r")
    await a.term.wait_for("Which player? Press their number.")
    a.term.type("1")
    await a.term.wait_for("Bob is no longer blocked.")
    assert "1. Carol" in a.term.display_text() and "Bob" not in a.term.row(4)
    assert await services.blocks.blocked(alice.id) == {carol.id}
    a.term.type("q")
    await a.term.wait_for("Blocked players: who never reaches you")  # back in the settings
