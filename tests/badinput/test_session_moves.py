"""Moves typed into the real session over telnet: the refusal and its reason are shown on
the player's screen, nothing is written, and another player's session carries on."""

from __future__ import annotations

from door.app import App
from door.services.games import SeatSpec
from tests.badinput.conftest import PASSWORD, Bystander, Screen, telnet_login


async def test_an_illegal_typed_move_shows_the_reason_over_telnet(
    server: App, bystander: Bystander
) -> None:
    services = server.services
    assert services is not None
    alice = await services.accounts.register("Alice", PASSWORD)
    bob = await services.accounts.register("Bob", PASSWORD)
    seats = [SeatSpec("me"), SeatSpec("open")]
    info = await services.games.begin(alice.id, "backgammon", {}, seats)
    await services.games.join(info.id, bob.id)
    before = await services.games.get(info.id)
    mover = alice if before.info.to_act == 0 else bob
    reader, writer = await telnet_login(server, mover.name, PASSWORD)
    screen = Screen(reader)
    await screen.wait_for("Main Menu")
    writer.write(b"p")  # the one game waiting for this player
    await screen.wait_for("It is your turn")
    writer.write(b":")
    await screen.wait_for("Play:")
    writer.write(b"24/1\r")
    await screen.wait_for("cannot land on 1")
    after = await services.games.get(info.id)
    assert after.info.version == before.info.version
    assert await services.games.replay_check(info.id) is None
    writer.close()
    await screen.stop()
    await bystander.poke()
