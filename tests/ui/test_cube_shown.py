"""The doubling cube is on the board (item 10 of issue 16): centred on the bar, then on
its owner's side with its value; a pending double shows the offer; the end of a game
names the players, not their colours."""

from __future__ import annotations

from door.games.backgammon.rules import BackgammonRules
from door.services import Services
from door.services.accounts import User
from door.ui.boards import backgammon as bgb
from tests.ui.conftest import Running, StartSession
from tests.ui.test_backgammon_screen import begin, colour, state_of

MATCH = {"match_length": 3}


def cube_on_board(r: Running, seat: int) -> dict[str, str]:
    """What each cube place of ``seat``'s board shows, for the places that show
    something reversed (the cube's face)."""
    out = {}
    for place in ("centre", "mine", "theirs", "offer_mine", "offer_theirs"):
        x, y = bgb.cube_cell(place, colour(seat))
        cells = [r.term.char_at(1 + x + i, 1 + y) for i in range(3)]
        text = "".join(str(c.data) for c in cells).strip()
        if text and text.isdigit() and all(c.reverse for c in cells):
            out[place] = text
    return out


async def to_deciding(services: Services, gid: int, users: dict[int, User]) -> int:
    """Play the opening move so the next player decides (roll or double): their seat."""
    state = await state_of(services, gid)
    rules = BackgammonRules()
    await services.games.submit(
        gid, users[state.turn].id, rules.format_move(state, rules.legal_moves(state)[0]),
        (await services.games.get(gid)).info.version,
    )  # fmt: skip
    return (await state_of(services, gid)).turn


async def test_a_centred_cube_is_drawn_on_the_bar_with_its_value(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    gid = await begin(services, alice, bob, MATCH)
    users = {0: alice, 1: bob}
    seat = (await state_of(services, gid)).turn
    r = await start_session(users[seat], start=f"game:{gid}")
    assert cube_on_board(r, seat) == {"centre": "1"}


async def test_while_a_double_waits_the_offer_is_shown_not_the_old_cube(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    gid = await begin(services, alice, bob, MATCH)
    users = {0: alice, 1: bob}
    doubler = await to_deciding(services, gid, users)
    await services.games.submit(
        gid, users[doubler].id, "double", (await services.games.get(gid)).info.version
    )
    taker = 1 - doubler
    r = await start_session(users[taker], start=f"game:{gid}")
    text = r.term.display_text()
    assert f"{users[doubler].name} offers 2" in text
    assert "centred" not in text
    assert cube_on_board(r, taker) == {"offer_mine": "2"}


async def test_a_taken_cube_sits_on_the_takers_side_of_both_boards(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    gid = await begin(services, alice, bob, MATCH)
    users = {0: alice, 1: bob}
    doubler = await to_deciding(services, gid, users)
    taker = 1 - doubler
    await services.games.submit(
        gid, users[doubler].id, "double", (await services.games.get(gid)).info.version
    )
    await services.games.submit(
        gid, users[taker].id, "take", (await services.games.get(gid)).info.version
    )
    mine = await start_session(users[taker], start=f"game:{gid}")
    theirs = await start_session(users[doubler], start=f"game:{gid}")
    assert cube_on_board(mine, taker) == {"mine": "2"}
    assert cube_on_board(theirs, doubler) == {"theirs": "2"}


async def test_the_end_of_the_game_names_the_winner_not_a_colour(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    gid = await begin(services, alice, bob, {"match_length": 0})  # money: one game
    users = {0: alice, 1: bob}
    doubler = await to_deciding(services, gid, users)
    await services.games.submit(
        gid, users[doubler].id, "double", (await services.games.get(gid)).info.version
    )
    await services.games.submit(
        gid, users[1 - doubler].id, "drop", (await services.games.get(gid)).info.version
    )
    r = await start_session(users[1 - doubler], start=f"game:{gid}")
    await r.term.settle()  # a finished match opens in the replay, beside the result
    text = r.term.display_text()
    assert f"{users[doubler].name} wins" in text
    assert "White wins" not in text and "Black wins" not in text
