"""The backgammon cursor reads plainly (item 11 of issue 16): the arrows count points
without stopping on an empty bar, and the cursor and the legal destinations look
different in shape, not only in colour."""

from __future__ import annotations

from door.games.backgammon.partial import PartialPlay
from door.games.backgammon.position import MOVING, BackgammonState
from door.games.backgammon.rules import BackgammonRules
from door.services import Services
from door.services.accounts import User
from door.ui.boards import backgammon as bgb
from tests.ui.conftest import StartSession
from tests.ui.faketerm import FakeTerminal
from tests.ui.test_backgammon_screen import (
    NO_CUBE,
    Cursor,
    begin,
    colour,
    first_source,
    open_mover,
    state_of,
)


def label_highlight(term: FakeTerminal, col: str) -> int | None:
    """The spot whose label is shown reversed (the cursor) on the screen."""
    for spot in range(26):
        lx, ly, _ = bgb.spot_label_cell(spot, col)
        cell = term.char_at(1 + lx + 1, 1 + ly)
        if cell.reverse and not cell.underscore:
            return spot
    return None


def pointer(term: FakeTerminal, spot: int, col: str, top: bool = True) -> str:
    px, py, _ = bgb.pointer_cell(spot, col, top)
    return str(term.char_at(1 + px, 1 + py).data)


def bar_neighbours(col: str) -> tuple[int, int]:
    top, _ = bgb.visual_spots(col)
    i = top.index(bgb.BAR)
    return top[i - 1], top[i + 1]


async def test_right_arrow_from_the_point_left_of_an_empty_bar_goes_to_the_next_point(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    gid = await begin(services, alice, bob)
    r, state, _ = await open_mover(services, gid, {0: alice, 1: bob}, start_session)
    col = colour(state.turn)
    left, right = bar_neighbours(col)
    await Cursor(r.term, state.turn, first_source(state)).go(left)
    r.term.press("right")
    await r.term.settle()
    assert label_highlight(r.term, col) == right
    r.term.press("left")
    await r.term.settle()
    assert label_highlight(r.term, col) == left


async def hit_until_a_checker_is_on_the_bar(
    services: Services, gid: int, users: dict[int, User]
) -> BackgammonState:
    """Play through the service, hitting when possible, until the player to move has a
    checker on the bar and rolled a number that brings it in."""
    rules = BackgammonRules()
    for _ in range(400):
        state = await state_of(services, gid)
        assert state.phase == MOVING
        plays = rules.legal_moves(state)
        if state.board[state.turn][24] and any(m.steps for m in plays):
            return state
        hits = [m for m in plays if any(s[3] for s in m.steps)]
        move = (hits or plays)[0]
        snap = await services.games.get(gid)
        await services.games.submit(
            gid, users[state.turn].id, rules.format_move(state, move), snap.info.version
        )
    raise AssertionError("no checker was ever hit")


async def test_the_bar_is_a_stop_while_the_mover_has_a_checker_on_it(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    gid = await begin(services, alice, bob, NO_CUBE)
    users = {0: alice, 1: bob}
    state = await hit_until_a_checker_is_on_the_bar(services, gid, users)
    r = await start_session(users[state.turn], start=f"game:{gid}")
    col = colour(state.turn)
    assert label_highlight(r.term, col) == bgb.BAR  # the checker to bring in first
    left, _ = bar_neighbours(col)
    r.term.press("left")
    await r.term.settle()
    assert label_highlight(r.term, col) == left
    r.term.press("right")
    await r.term.settle()
    assert label_highlight(r.term, col) == bgb.BAR


async def test_without_colour_the_cursor_is_an_arrow_and_each_destination_a_dot(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    gid = await begin(services, alice, bob)
    r, state, _ = await open_mover(services, gid, {0: alice, 1: bob}, start_session, colors=0)
    col = colour(state.turn)
    src = first_source(state)
    r.term.press("enter")  # pick up the checker under the cursor
    await r.term.settle()
    dests = {d for d, _ in PartialPlay.start(state).destinations(src)}
    assert dests
    arrow = "▼" if bgb.point_column(src, col)[1] else "▲"
    assert pointer(r.term, src, col) == arrow
    for dest in dests:
        assert pointer(r.term, dest, col) == "•"
    # and the cursor moved onto a destination shows the arrow there, not the dot
    dest = sorted(dests)[0]
    await Cursor(r.term, state.turn, src).go(dest)
    assert pointer(r.term, dest, col) in ("▼", "▲")
    assert pointer(r.term, src, col) not in ("▼", "▲")
