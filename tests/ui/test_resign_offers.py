"""Resigning one Backgammon game as a single, gammon or backgammon (an offer the opponent
accepts or rejects), the whole-match resign beside it, and no X)resign once a game is
over (both games): real sessions on fake terminals, read with pyte at 80×24."""

from __future__ import annotations

import pytest

from door.games.backgammon.position import MOVING, RESIGNING
from door.services import Services
from door.services.accounts import User
from tests.ui.conftest import StartSession
from tests.ui.test_backgammon_screen import begin, open_mover, state_of

FIVE_NO_CUBE = {"match_length": 5, "cube": False}


async def test_x_on_your_turn_offers_single_gammon_backgammon_or_the_match(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    gid = await begin(services, alice, bob, FIVE_NO_CUBE)
    r, _, _ = await open_mover(services, gid, {0: alice, 1: bob}, start_session)
    r.term.type("x")
    await r.term.settle()
    keys = r.term.row(23)
    for label in ("S)ingle", "G)ammon", "B)ackgammon", "M)atch", "N)o"):
        assert label in keys
    assert "Offer to lose this game (S)ingle, G)ammon, B)ackgammon) or the M)atch?" in (
        r.term.display_text()
    )


async def test_choosing_gammon_sends_the_offer_and_says_who_answers_it(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    gid = await begin(services, alice, bob, FIVE_NO_CUBE)
    r, _, mover = await open_mover(services, gid, {0: alice, 1: bob}, start_session)
    other = bob if mover is alice else alice
    r.term.type("x")
    await r.term.settle()
    r.term.type("g")
    await r.term.settle()
    state = await state_of(services, gid)
    assert state.phase == RESIGNING and state.resign_level == 2
    text = r.term.display_text()
    assert f"You offered to resign a gammon; {other.name} accepts or rejects it." in text
    assert "waiting for the answer" in text


async def test_the_opponent_accepts_a_gammon_offer_and_wins_two_points(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    gid = await begin(services, alice, bob, FIVE_NO_CUBE)
    r, state, mover = await open_mover(services, gid, {0: alice, 1: bob}, start_session)
    winner = 1 - state.turn
    other = bob if mover is alice else alice
    r.term.type("x")
    await r.term.settle()
    r.term.type("g")
    await r.term.settle()
    await r.stop()
    r2 = await start_session(other, start=f"game:{gid}")
    text = r2.term.display_text()
    assert "Offered: resign a gammon." in text
    assert f"by {mover.name} (this game)" in text
    assert "A)ccept" in r2.term.row(23) and "R)eject" in r2.term.row(23)
    r2.term.type("a")
    await r2.term.settle()
    after = await state_of(services, gid)
    assert after.score[winner] == 2
    assert f"Last game: {other.name} won 2 points" in r2.term.display_text()


async def test_a_rejected_offer_gives_the_offerer_their_turn_back(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    gid = await begin(services, alice, bob, FIVE_NO_CUBE)
    users = {0: alice, 1: bob}
    r, state, _mover = await open_mover(services, gid, users, start_session)
    other = users[1 - state.turn]
    r.term.type("x")
    await r.term.settle()
    r.term.type("s")
    await r.term.settle()
    r2 = await start_session(other, start=f"game:{gid}")
    r2.term.type("r")
    await r2.term.settle()
    after = await state_of(services, gid)
    assert after.phase == MOVING and after.turn == state.turn
    await r.term.settle()
    assert "Enter pick/drop" in r.term.row(23)  # the offerer's board is live again


async def test_m_in_the_choice_asks_about_the_whole_match_and_y_ends_it(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    gid = await begin(services, alice, bob, FIVE_NO_CUBE)
    r, _, _ = await open_mover(services, gid, {0: alice, 1: bob}, start_session)
    r.term.type("x")
    await r.term.settle()
    r.term.type("m")
    await r.term.wait_for("Resign the whole match?")
    r.term.type("y")
    await r.term.settle()
    assert (await services.games.get(gid)).info.status == "finished"
    assert "You resigned the match." in r.term.display_text()


async def test_n_in_the_choice_changes_nothing(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    gid = await begin(services, alice, bob, FIVE_NO_CUBE)
    r, _state, _ = await open_mover(services, gid, {0: alice, 1: bob}, start_session)
    version = (await services.games.get(gid)).info.version
    r.term.type("x")
    await r.term.settle()
    assert "S)ingle" in r.term.row(23)
    r.term.type("n")
    await r.term.settle()
    assert (await services.games.get(gid)).info.version == version
    assert "Enter pick/drop" in r.term.row(23)


async def test_no_x_resign_once_the_backgammon_match_is_over(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    gid = await begin(services, alice, bob, FIVE_NO_CUBE)
    users = {0: alice, 1: bob}
    state = await state_of(services, gid)
    waiter = users[1 - state.turn]
    r = await start_session(waiter, start=f"game:{gid}")
    assert "X)resign" in r.term.row(23)
    snap = await services.games.get(gid)
    await services.games.resign(gid, users[state.turn].id, snap.info.version)
    await r.term.settle()
    assert "X)resign" not in r.term.row(23)
    r.term.type("x")
    await r.term.settle()
    assert "Resign" not in r.term.display_text()


async def test_no_x_resign_once_the_spectrangle_game_is_over(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    from door.services.games import SeatSpec

    info = await services.games.begin(
        alice.id, "spectrangle", {}, [SeatSpec("me"), SeatSpec("user", bob.name)]
    )
    await services.games.join(info.id, bob.id)
    snap = await services.games.get(info.id)
    users = {0: alice, 1: bob}
    assert snap.info.to_act is not None
    waiter = users[1 - snap.info.to_act]
    r = await start_session(waiter, start=f"game:{info.id}")
    assert "X)resign" in r.term.row(23)
    await services.games.resign(info.id, users[snap.info.to_act].id, snap.info.version)
    await r.term.settle()
    assert (await services.games.get(info.id)).info.status == "finished"
    assert "X)resign" not in r.term.row(23)
    r.term.type("x")
    await r.term.settle()
    assert "Resign and leave" not in r.term.display_text()


async def test_an_offer_made_while_the_opponent_watches_shows_up_live(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    gid = await begin(services, alice, bob, FIVE_NO_CUBE)
    users = {0: alice, 1: bob}
    state = await state_of(services, gid)
    mover, other = users[state.turn], users[1 - state.turn]
    r2 = await start_session(other, start=f"game:{gid}")
    assert "A)ccept" not in r2.term.row(23)
    r = await start_session(mover, start=f"game:{gid}")
    r.term.type("x")
    await r.term.settle()
    r.term.type("b")
    await r.term.settle()
    await r2.term.wait_for("Offered: resign a backgammon.")
    assert "A)ccept" in r2.term.row(23) and "R)eject" in r2.term.row(23)


@pytest.mark.parametrize("size", [(40, 15), (60, 20), (132, 50)])
async def test_the_choice_and_its_keys_are_in_sight_on_any_terminal(
    services: Services, alice: User, bob: User, start_session: StartSession,
    size: tuple[int, int],
) -> None:  # fmt: skip
    gid = await begin(services, alice, bob, FIVE_NO_CUBE)
    r, _, _ = await open_mover(
        services, gid, {0: alice, 1: bob}, start_session, width=size[0], height=size[1]
    )
    r.term.type("x")
    await r.term.settle()
    shown = r.term.display()
    assert any("M)atch?" in line for line in shown[1:-2]), "\n".join(shown)
    keys = " ".join(shown[-2:])
    assert "S)ingle" in keys and "N)o" in keys, "\n".join(shown)
