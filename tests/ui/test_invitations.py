"""Named invitations through a real session: the live notice wherever the invitee is,
V)iew opening on them, M)ine listing them, Enter accepting and D declining."""

from __future__ import annotations

from door.services import Services
from door.services.accounts import User
from door.services.games import SeatSpec
from tests.ui.conftest import StartSession


async def invite(services: Services, host: User, guest: User, length: int = 5) -> int:
    seats = [SeatSpec("me"), SeatSpec("user", guest.name)]
    info = await services.games.begin(host.id, "backgammon", {"match_length": length}, seats)
    return info.id


async def test_an_invitee_on_the_main_menu_is_told_at_once(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    r = await start_session(bob)
    game_id = await invite(services, alice, bob)
    await r.term.wait_for(
        f"Alice invites you to Backgammon (5-point match), game #{game_id} — press V to answer"
    )
    assert "1 invitation" in r.term.display_text()
    assert r.term.bells == 1


async def test_an_invitee_on_another_screen_is_told_too(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    r = await start_session(bob, start="rank")
    await invite(services, alice, bob, length=0)
    await r.term.wait_for("Alice invites you to Backgammon (money game)")


async def test_view_opens_on_the_invitations(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    game_id = await invite(services, alice, bob)
    r = await start_session(bob)
    r.term.type("v")
    await r.term.settle()
    assert "Games: Invitations" in r.term.row(0)
    assert f"#{game_id}" in r.term.display_text()
    assert "you, invited" in r.term.display_text()
    assert "D)ecline" in r.term.row(23)


async def test_mine_lists_a_game_you_are_invited_to(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    game_id = await invite(services, alice, bob)
    r = await start_session(bob, start="mine")
    text = r.term.display_text()
    assert "You are in no games yet" not in text
    assert f"#{game_id}" in text and "you, invited" in text


async def test_enter_accepts_an_invitation_and_the_game_begins(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    game_id = await invite(services, alice, bob)
    r = await start_session(bob)
    r.term.type("v")
    await r.term.settle()
    r.term.press("enter")
    r.term.press("enter")  # no dice word
    await r.term.settle()
    assert f"#{game_id}" in r.term.row(0)
    assert (await services.games.get(game_id)).info.status == "active"
    assert (await services.games.list_games("invited", bob.id))[1] == 0


async def test_d_declines_an_invitation_and_cancels_the_game(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    game_id = await invite(services, alice, bob)
    r = await start_session(bob)
    r.term.type("v")
    await r.term.settle()
    r.term.type("d")
    await r.term.settle()
    assert f"You declined game #{game_id}; it is cancelled." in r.term.display_text()
    assert "No invitations." in r.term.display_text()
    assert (await services.games.get(game_id)).info.status == "abandoned"


async def test_the_host_is_told_of_a_decline(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    game_id = await invite(services, alice, bob)
    r = await start_session(alice)
    await services.games.decline(game_id, bob.id)
    await r.term.wait_for(f"Bob declined Backgammon (5-point match) #{game_id}")
