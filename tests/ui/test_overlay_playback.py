"""A question open over the board (the Y/N to resign) stays in sight and keeps the keys
when the opponent's move arrives: the move is played on the board (the live playback)
once the question is answered, not over it — as for the chat prompt (test_talk_lines_
not_lost.py). Else the answer's key went to the playback, which handed it to the board
under the question, and the question came back once the pictures were done."""

from __future__ import annotations

from door.services import Services
from door.services.accounts import User
from tests.ui.conftest import Running, StartSession
from tests.ui.test_animated_view import opponent_moved, picture, with_delay
from tests.ui.test_backgammon_screen import NO_CUBE, begin, state_of

QUESTION = "Resign the whole match? Your opponent wins it. (Y/N)"


async def asked_to_resign(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> tuple[int, dict[int, User], Running]:
    """The player not to move, with a slow playback, has X's question open."""
    gid = await begin(services, alice, bob, NO_CUBE)
    users = {0: alice, 1: bob}
    state = await state_of(services, gid)
    watcher = await with_delay(services, users[1 - state.turn], 5.0)  # a picture stays
    rw = await start_session(watcher, start=f"game:{gid}")
    rw.term.type("x")
    await rw.term.wait_for(QUESTION)
    return gid, users, rw


async def test_the_resign_question_stays_in_sight_when_the_opponent_moves(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    gid, users, rw = await asked_to_resign(services, alice, bob, start_session)
    await opponent_moved(services, gid, users)
    await rw.term.settle()
    assert picture(rw) is None, "nothing is played over the question"
    assert QUESTION in rw.term.display_text()
    assert "Meanwhile" in rw.term.display_text()


async def test_no_to_the_question_then_plays_the_move_that_arrived(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    gid, users, rw = await asked_to_resign(services, alice, bob, start_session)
    await opponent_moved(services, gid, users)
    await rw.term.settle()
    rw.term.type("n")
    await rw.term.settle()
    shown = picture(rw)
    assert shown is not None and shown[0] < shown[1]
    assert QUESTION not in rw.term.display_text()
    snap = await services.games.get(gid)
    assert snap.info.status == "active", "N kept the game going"


async def test_yes_to_the_question_after_the_move_arrived_resigns(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    gid, users, rw = await asked_to_resign(services, alice, bob, start_session)
    await opponent_moved(services, gid, users)
    await rw.term.settle()
    rw.term.type("y")
    await rw.term.wait_for("You resigned the match.")
    snap = await services.games.get(gid)
    assert snap.info.status == "finished"
