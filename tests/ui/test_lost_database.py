"""When this process loses its database for a while, every connected session says so on
the status line of whatever screen it shows, without breaking it; when the database is
back it says that for a moment and the screen re-reads what it shows. Nothing is
half-saved: a move tried meanwhile is refused, is not in the log, and can be made again
once the database is back, in the same session.

The database is lost as a full disk is (SQLite ``max_page_count``, see
tests/services/test_write_failures.py): people play on until a move cannot be saved.
"""

from __future__ import annotations

import asyncio

from door.services import Services
from door.services.accounts import User
from door.services.games import GameSnapshot, SeatSpec
from door.services.outage import BACK_MESSAGE, LOST_MESSAGE
from door.store.db import DatabaseWriteError
from tests.services.test_write_failures import fill_up, make_room, to_act_user
from tests.ui.conftest import Running, StartSession, started_game
from tests.ui.test_resync import move_unheard

WRITE_REFUSED = "the server could not save that — try again"


async def play_until_refused(
    services: Services, one: User, other: User
) -> tuple[int, GameSnapshot, str]:
    """``one`` and ``other`` play backgammon on a database that may not grow, until a
    move cannot be saved: (the game, the game before that move, the move)."""
    games = services.games
    rules = games.registry["backgammon"]
    game_id = 0
    await fill_up(db=services.db)
    for _ in range(2000):  # people play on until the last page is full
        if game_id == 0 or (await games.get(game_id)).info.status == "finished":
            info = await games.begin(
                one.id, "backgammon", {"match_length": 0},
                [SeatSpec("me"), SeatSpec("user", other.name)],
            )  # fmt: skip
            game_id = (await games.join(info.id, other.id)).id
        before = await games.get(game_id)
        move = rules.format_move(before.state, rules.legal_moves(before.state)[0])
        try:
            await games.submit(game_id, to_act_user(before), move, before.info.version)
        except DatabaseWriteError:
            return game_id, before, move
    raise AssertionError("the database never filled up")


def status_line(r: Running) -> str:
    """The status line: the row above the key help (one row or more at the bottom, on
    the help's cyan)."""
    rows = r.term.display()
    y = len(rows) - 1
    while y > 0 and r.term.char_at(1, y - 1).bg == "cyan":
        y -= 1
    return rows[y - 1].strip()


async def wait_status(r: Running, text: str, timeout: float = 5.0) -> None:
    end = asyncio.get_running_loop().time() + timeout
    while status_line(r) != text:
        assert asyncio.get_running_loop().time() < end, (
            f"status line {status_line(r)!r}, not {text!r}:\n{r.term.display_text()}"
        )
        await asyncio.sleep(0.02)


async def test_every_open_session_is_told_the_database_is_lost_and_then_that_it_is_back(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    services.outage.back_s = 0.5
    menu = await start_session(alice)
    rank = await start_session(bob, start="rank")
    titles = [menu.term.row(0), rank.term.row(0)]
    game_id, before, move = await play_until_refused(services, alice, bob)

    for r in (menu, rank):
        await wait_status(r, LOST_MESSAGE)
    assert [menu.term.row(0), rank.term.row(0)] == titles  # each on its own screen still
    menu.term.press("down")  # a key clears a message, not the news: it is still so
    await menu.term.settle()
    assert status_line(menu) == LOST_MESSAGE

    await make_room(services.db)
    await services.games.submit(game_id, to_act_user(before), move, before.info.version)
    for r in (menu, rank):
        await wait_status(r, BACK_MESSAGE)
    for r in (menu, rank):
        await wait_status(r, "")  # after a moment the line is free again


async def test_a_move_made_while_the_database_is_lost_is_refused_unsaved_and_can_be_made_after(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    game_id, before, move = await play_until_refused(services, alice, bob)
    mover_id = to_act_user(before)
    mover, waiter = (alice, bob) if mover_id == alice.id else (bob, alice)
    mine = await start_session(mover, start=f"game:{game_id}")
    theirs = await start_session(waiter, start=f"game:{game_id}")

    mine.term.type(":")
    mine.term.type_each(move)
    mine.term.press("enter")
    await wait_status(mine, WRITE_REFUSED)
    await wait_status(theirs, LOST_MESSAGE)  # told, on the game screen, whole beneath it
    assert f"#{game_id}" in theirs.term.row(0) and "It is " in theirs.term.display_text()
    log = await services.games.events(game_id)
    assert len(log) == before.info.last_seq
    assert (await services.games.get(game_id)).info.version == before.info.version

    await make_room(services.db)
    mine.term.press("enter")  # the same play, sent again: no reconnecting
    await mine.term.wait_for(f"You played {move}.")
    after = await services.games.get(game_id)
    assert after.info.version == before.info.version + 1
    moves = [e for e in await services.games.events(game_id) if e.kind == "move"]
    assert moves[-1].payload["move"] == move
    assert len(await services.games.events(game_id)) == after.info.last_seq
    # the other player's screen follows (in their own point numbers), the news gone
    await theirs.term.wait_for(f"Meanwhile {mover.name}: ")
    assert LOST_MESSAGE not in theirs.term.display_text()


async def test_once_the_database_is_back_the_screen_re_reads_what_it_missed(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    info = await started_game(services, alice, bob)
    mover, waiter = (alice, bob) if info.is_waiting_on(alice.id) else (bob, alice)
    theirs = await start_session(waiter, start=f"game:{info.id}")
    await play_until_refused(services, alice, bob)  # in another game of theirs
    await wait_status(theirs, LOST_MESSAGE)

    await make_room(services.db)
    # the first write that works ends the outage; its own notice never arrives
    await move_unheard(services, info.id, mover)
    await theirs.term.wait_for(f"Meanwhile {mover.name}: ")
