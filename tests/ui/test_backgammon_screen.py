"""Backgammon screen specs: real sessions on fake terminals, read with pyte at 80×24.

Two players sit at a real game (temp SQLite services); each drives the board with the keys a
person would press. The dice come from the service's seeded RNG, so the tests work out the
keys from the position they are shown rather than assuming a roll.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest

from door.games.backgammon.notation import from_viewpoint
from door.games.backgammon.partial import PartialPlay
from door.games.backgammon.position import MOVING, BackgammonState
from door.games.backgammon.rules import BackgammonRules
from door.services import Services
from door.services.accounts import User
from door.services.games import SeatSpec
from door.session import run_session
from door.ui.boards import backgammon as bgb
from door.ui.caches import RenderCaches
from tests.ui.conftest import Running, StartSession
from tests.ui.faketerm import FakeTerminal

NO_CUBE = {"match_length": 1, "cube": False}


async def begin(services: Services, a: User, b: User, options: dict[str, Any] | None = None) -> int:
    """A started game: ``a`` in seat 0 (White), ``b`` in seat 1 (Black)."""
    info = await services.games.begin(
        a.id, "backgammon", options or {}, [SeatSpec("me"), SeatSpec("user", b.name)]
    )
    await services.games.join(info.id, b.id)
    return info.id


async def state_of(services: Services, gid: int) -> BackgammonState:
    snap = await services.games.get(gid)
    state: BackgammonState = snap.state
    return state


def colour(seat: int) -> str:
    return bgb.WHITE_SIDE if seat == 0 else bgb.BLACK_SIDE


def keys_between(
    start: int, top: bool, goal: int, col: str, bar_stop: bool = False
) -> list[str]:
    """The shortest arrow-key path for the cursor from ``start`` to ``goal`` (the bar is a
    stop only with ``bar_stop``: while the mover has a checker on it)."""
    frontier: list[tuple[int, bool, list[str]]] = [(start, top, [])]
    seen = {(start, top)}
    while frontier:
        nxt = []
        for spot, t, path in frontier:
            if spot == goal:
                return path
            for d in ("left", "right", "up", "down"):
                s2, t2 = bgb.move_cursor(spot, d, col, t, bar_stop=bar_stop)
                if (s2, t2) not in seen:
                    seen.add((s2, t2))
                    nxt.append((s2, t2, [*path, d]))
        frontier = nxt
    raise AssertionError(f"no path from {start} to {goal}")


KEYPAD = {"left": "4", "right": "6", "up": "8", "down": "2"}


class Cursor:
    """Follows the screen's cursor the way the screen moves it (pure geometry), and checks
    on the real screen that the highlight is where it should be."""

    def __init__(
        self, term: FakeTerminal, seat: int, spot: int, geo: bgb.Geometry = bgb.SMALL
    ) -> None:
        self.term = term
        self.geo = geo
        self.col = colour(seat)
        self.spot = spot
        self.top = bgb.point_column(spot, self.col)[1] if 1 <= spot <= 24 else True
        self.bar_stop = False  # set while the mover has a checker on the bar

    async def go(self, goal: int, keypad: bool = False) -> None:
        bar = self.bar_stop
        for d in keys_between(self.spot, self.top, goal, self.col, bar):
            if keypad:
                self.term.type(KEYPAD[d])
            else:
                self.term.press(d)
            self.spot, self.top = bgb.move_cursor(self.spot, d, self.col, self.top, bar_stop=bar)
        await self.term.settle()
        assert self.highlighted() == goal

    def highlighted(self) -> int | None:
        """The spot whose label shows the cursor (reversed, or bold and underlined on a
        legal destination) on the pyte screen."""
        for spot in range(26):
            lx, ly, _ = bgb.spot_label_cell(spot, self.col, g=self.geo)
            cell = self.term.char_at(1 + lx + 1, 1 + ly)
            plain = cell.reverse and not cell.underscore
            on_target = cell.bold and cell.underscore and not cell.reverse  # on a legal point
            if plain or on_target:
                return spot
        return None


def first_source(state: BackgammonState) -> int:
    pp = PartialPlay.start(state)
    return max(s[0] for s in pp.next_steps())


async def play_with_cursor(
    r: Running, state: BackgammonState, keypad: bool = False, geo: bgb.Geometry = bgb.SMALL
) -> str:
    """Make a whole legal play with the cursor keys and Enter; return its notation."""
    seat = state.turn
    pp = PartialPlay.start(state)
    cur = Cursor(r.term, seat, first_source(state), geo)
    assert cur.highlighted() == cur.spot
    while not pp.is_complete():
        step = pp.next_steps()[0]
        src, dst = step[0], step[1]
        cur.bar_stop = pp.sides()[0][24] > 0
        await cur.go(src, keypad)
        r.term.type("5") if keypad else r.term.press("enter")
        await r.term.settle()
        if dst == bgb.OFF:
            r.term.type("r")
        else:
            await cur.go(dst, keypad)
            r.term.press("enter")
        await r.term.settle()
        pp = pp.add(step)
    return pp.notation()


async def last_move(services: Services, gid: int) -> str:
    events = await services.games.events(gid)
    return [e for e in events if e.kind == "move"][-1].payload["move"]


async def open_mover(
    services: Services, gid: int, users: dict[int, User], start_session: StartSession, **kw: Any
) -> tuple[Running, BackgammonState, User]:
    state = await state_of(services, gid)
    user = users[state.turn]
    r = await start_session(user, start=f"game:{gid}", **kw)
    return r, state, user


# --- moving --------------------------------------------------------------------------------


async def test_a_player_moves_with_the_cursor_keys_and_confirms_the_play(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    gid = await begin(services, alice, bob)
    r, state, _ = await open_mover(services, gid, {0: alice, 1: bob}, start_session)
    assert state.phase == MOVING
    assert f"You rolled {state.dice[0]}-{state.dice[1]}" in r.term.display_text()  # type: ignore[index]
    played = await play_with_cursor(r, state)
    await r.term.wait_for(f"Play {played}?")
    r.term.press("enter")
    await r.term.settle()
    assert await last_move(services, gid) == played
    assert f"You played {played}" in r.term.display_text()


async def test_the_keypad_digits_move_the_cursor_as_with_num_lock_on(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    gid = await begin(services, alice, bob)
    r, state, _ = await open_mover(services, gid, {0: alice, 1: bob}, start_session)
    played = await play_with_cursor(r, state, keypad=True)
    r.term.type("y")
    await r.term.settle()
    assert await last_move(services, gid) == played


async def test_both_players_move_one_with_the_cursor_the_other_in_notation(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    gid = await begin(services, alice, bob, NO_CUBE)
    users = {0: alice, 1: bob}
    r1, state, _ = await open_mover(services, gid, users, start_session)
    played = await play_with_cursor(r1, state)
    r1.term.type("y")
    await r1.term.settle()
    state2 = await state_of(services, gid)
    assert state2.turn != state.turn and state2.phase == MOVING
    r2 = await start_session(users[state2.turn], start=f"game:{gid}")
    rules = BackgammonRules()
    text = rules.format_move(state2, rules.legal_moves(state2)[-1])
    r2.term.type(":")
    r2.term.type_each(text)
    r2.term.press("enter")
    await r2.term.settle()
    assert await last_move(services, gid) == text
    # The first player was looking all along and is told.
    await r1.term.wait_for("Meanwhile")
    assert played in [
        e.payload["move"] for e in await services.games.events(gid) if e.kind == "move"
    ]
    # told in the first player's own point numbers
    assert from_viewpoint(text, state2.turn, state.turn).split()[0] in r1.term.display_text()


async def test_a_typed_play_that_is_not_legal_is_refused_and_can_be_fixed(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    gid = await begin(services, alice, bob)
    r, _, _ = await open_mover(services, gid, {0: alice, 1: bob}, start_session)
    version = (await services.games.get(gid)).info.version
    r.term.type("m")
    r.term.type_each("24/1")
    r.term.press("enter")
    await r.term.settle()
    assert (await services.games.get(gid)).info.version == version
    assert "Play: 24/1" in r.term.display_text()  # the line stays open with the text
    r.term.press("escape")
    await r.term.settle()
    assert "Play:" not in r.term.display_text()


async def test_undo_takes_back_a_step_of_this_turn(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    gid = await begin(services, alice, bob)
    r, state, _ = await open_mover(services, gid, {0: alice, 1: bob}, start_session)
    board_before = r.term.display()[1:16]
    pp = PartialPlay.start(state)
    step = pp.next_steps()[0]
    cur = Cursor(r.term, state.turn, first_source(state))
    await cur.go(step[0])
    r.term.press("enter")
    await cur.go(step[1])
    r.term.press("enter")
    await r.term.settle()
    assert "So far:" in r.term.display_text()
    assert r.term.display()[1:16] != board_before
    r.term.type("u")
    await r.term.settle()
    assert r.term.display()[1:16] == board_before
    assert "So far:" not in r.term.display_text()
    r.term.type("u")
    await r.term.settle()
    assert "Nothing to take back" in r.term.display_text()


async def test_only_highlighted_points_take_the_picked_up_checker(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    gid = await begin(services, alice, bob)
    r, state, _ = await open_mover(services, gid, {0: alice, 1: bob}, start_session)
    src = first_source(state)
    dests = {d for d, _ in PartialPlay.start(state).destinations(src)}
    cur = Cursor(r.term, state.turn, src)
    r.term.press("enter")
    await r.term.settle()
    col = colour(state.turn)
    for spot in range(1, 25):
        lx, ly, _ = bgb.spot_label_cell(spot, col)
        cell = r.term.char_at(1 + lx + 1, 1 + ly)
        lit = cell.reverse and cell.underscore and cell.fg == "green"
        assert lit == (spot in dests), spot
    bad = next(p for p in range(1, 25) if p not in dests and p != src)
    await cur.go(bad)
    r.term.press("enter")
    await r.term.settle()
    assert "cannot go there" in r.term.display_text()


# --- watching, notices, the replay ---------------------------------------------------------


async def test_view_replays_the_opponents_last_turn_step_by_step(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    gid = await begin(services, alice, bob, NO_CUBE)
    state = await state_of(services, gid)
    mover = {0: alice, 1: bob}[state.turn]
    other = {0: alice, 1: bob}[1 - state.turn]
    rules = BackgammonRules()
    play = rules.legal_moves(state)[0]
    text = rules.format_move(state, play)
    await services.games.submit(gid, mover.id, text, (await services.games.get(gid)).info.version)
    r = await start_session(other, start=f"game:{gid}")
    assert "Since you last looked" in r.term.display_text()
    r.term.type("v")
    await r.term.settle()
    n = len(play.steps)
    assert f"rolled {state.dice[0]}-{state.dice[1]}" in r.term.display_text()  # type: ignore[index]
    for i in range(1, n + 1):
        r.term.press("right")
        await r.term.settle()
        assert f"step {i} of {n}" in r.term.display_text()
    r.term.type("q")
    await r.term.settle()
    assert "step" not in r.term.row(16)


async def test_a_spectator_sees_the_board_without_controls(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    carol = await services.accounts.register("Carol", "carol-pw")
    gid = await begin(services, alice, bob)
    version = (await services.games.get(gid)).info.version
    r = await start_session(carol, start=f"game:{gid}")
    assert "(watching)" in r.term.row(23)
    r.term.press("enter")
    r.term.type("r")
    await r.term.settle()
    assert "You are watching" in r.term.display_text()
    assert (await services.games.get(gid)).info.version == version


async def test_a_stale_board_is_shown_again_instead_of_overwriting(
    services: Services,
    alice: User,
    bob: User,
    start_session: StartSession,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    gid = await begin(services, alice, bob)
    users = {0: alice, 1: bob}
    r1, state, _ = await open_mover(services, gid, users, start_session)
    r2, _, _ = await open_mover(services, gid, users, start_session)
    # As with a second server process whose notice has not arrived: nobody is told.
    monkeypatch.setattr(services.hub, "deliver", lambda notice: None)
    played = await play_with_cursor(r1, state)
    r1.term.type("y")
    await r1.term.settle()
    assert await last_move(services, gid) == played
    # The second session of the same player still shows the old roll.
    r2.term.type(":")
    r2.term.type_each(played)
    r2.term.press("enter")
    await r2.term.settle()
    assert "changed while you were looking" in r2.term.display_text()
    events = [e for e in await services.games.events(gid) if e.kind == "move"]
    assert len(events) == 1


async def test_the_position_and_match_ids_are_shown_on_request(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    gid = await begin(services, alice, bob)
    r, state, _ = await open_mover(services, gid, {0: alice, 1: bob}, start_session)
    pos, match = BackgammonRules().to_id(state).split(":")[:2]
    assert pos not in r.term.display_text()
    r.term.type("i")
    await r.term.settle()
    assert f"Position ID: {pos}" in r.term.display_text()
    assert f"Match ID:    {match}" in r.term.display_text()


async def test_roll_and_double_at_the_start_of_a_turn_then_take(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    gid = await begin(services, alice, bob, {"match_length": 3})
    users = {0: alice, 1: bob}
    state = await state_of(services, gid)
    rules = BackgammonRules()
    await services.games.submit(
        gid, users[state.turn].id, rules.format_move(state, rules.legal_moves(state)[0]),
        (await services.games.get(gid)).info.version,
    )  # fmt: skip
    state = await state_of(services, gid)
    r = await start_session(users[state.turn], start=f"game:{gid}")
    assert "R)oll" in r.term.row(23) and "D)ouble" in r.term.row(23)
    r.term.type("d")
    await r.term.wait_for("Double the stake to 2?")
    r.term.type("y")
    await r.term.settle()
    taker = users[1 - state.turn]
    r2 = await start_session(taker, start=f"game:{gid}")
    assert "take or drop" in r2.term.display_text()
    r2.term.type("t")
    await r2.term.settle()
    assert "You took the double" in r2.term.display_text()
    assert "Cube 2" in r2.term.display_text()
    assert (await state_of(services, gid)).cube == 2


# --- finishing, terminals ------------------------------------------------------------------


async def play_until_the_next_play_can_win(
    services: Services, gid: int, users: dict[int, User]
) -> BackgammonState:
    """Play the first legal move through the service until the mover has a play that
    ends the match (a 1-point match without the cube ends with the game)."""
    rules = BackgammonRules()
    for _ in range(2000):
        state = await state_of(services, gid)
        assert state.phase == MOVING
        plays = rules.legal_moves(state)
        if any(rules.outcome(rules.apply(state, m)) is not None for m in plays):
            return state
        snap = await services.games.get(gid)
        await services.games.submit(
            gid, users[state.turn].id, rules.format_move(state, plays[0]), snap.info.version
        )
    raise AssertionError("the game did not come near its end")


async def test_a_game_is_finished_by_bearing_off_with_remove(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    gid = await begin(services, alice, bob, NO_CUBE)
    users = {0: alice, 1: bob}
    state = await play_until_the_next_play_can_win(services, gid, users)
    rules = BackgammonRules()
    winning = next(m for m in rules.legal_moves(state) if rules.outcome(rules.apply(state, m)))
    r = await start_session(users[state.turn], start=f"game:{gid}")
    # Play the winning play step by step; bearing off uses R)emove.
    pp = PartialPlay.start(state)
    cur = Cursor(r.term, state.turn, first_source(state))
    for step in winning.steps:
        await cur.go(step[0])
        r.term.press("enter")
        await r.term.settle()
        if step[1] == bgb.OFF:
            r.term.type("r")
        else:
            await cur.go(step[1])
            r.term.press("enter")
        await r.term.settle()
        pp = pp.add(step)
    bells = r.term.bells
    r.term.type("y")
    await r.term.settle()
    info = (await services.games.get(gid)).info
    assert info.status == "finished"
    assert "wins" in r.term.display_text()
    assert r.term.bells == bells + 1  # the game's end rings (sound is on)


async def test_a_resize_mid_game_redraws_the_whole_board(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    gid = await begin(services, alice, bob)
    r, _, _ = await open_mover(services, gid, {0: alice, 1: bob}, start_session)
    before = r.term.display()
    r.term.resize(90, 26)  # wider and taller, but not enough for the bigger board
    await r.term.settle()
    assert [line[:48] for line in r.term.display()[:16]] == [line[:48] for line in before[:16]]
    r.term.resize(100, 30)  # the bigger board: points four columns wide
    await r.term.settle()
    assert "═" * 24 in r.term.row(2)
    assert r.term.row(BIG_BOTTOM_LABEL).split()[:3] == before[15].split()[:3]
    r.term.resize(80, 24)
    await r.term.settle()
    assert r.term.display() == before


BIG_BOTTOM_LABEL = 1 + bgb.BIG.bottom_label


async def test_a_big_terminal_gets_the_bigger_board_and_the_cursor_still_plays(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    gid = await begin(services, alice, bob)
    r, state, _ = await open_mover(
        services, gid, {0: alice, 1: bob}, start_session, width=120, height=40
    )
    board = "\n".join(line[: bgb.BIG.width + 1] for line in r.term.display()[2:18])
    assert board.count("○") == 15 and board.count("●") == 15
    played = await play_with_cursor(r, state, geo=bgb.BIG)
    r.term.type("y")
    await r.term.settle()
    assert await last_move(services, gid) == played


async def test_cp437_terminals_get_box_lines_and_lettered_checkers(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    gid = await begin(services, alice, bob)
    r, _, _ = await open_mover(services, gid, {0: alice, 1: bob}, start_session, encoding="cp437")
    text = r.term.display_text()
    assert "╔" in text and "║" in text
    board = "\n".join(r.term.display()[2:14])
    assert board.count("O") >= 15 and board.count("X") >= 15  # both sides' checkers
    assert "?" not in board
    r.term.raw.decode("cp437")


async def test_utf8_terminals_get_round_checkers(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    gid = await begin(services, alice, bob)
    r, _, _ = await open_mover(services, gid, {0: alice, 1: bob}, start_session, encoding="utf-8")
    board = "\n".join(r.term.display()[2:14])
    assert board.count("○") == 15 and board.count("●") == 15


async def test_one_checker_step_costs_at_most_200_bytes(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    gid = await begin(services, alice, bob)
    r, state, _ = await open_mover(services, gid, {0: alice, 1: bob}, start_session)
    step = PartialPlay.start(state).next_steps()[0]
    cur = Cursor(r.term, state.turn, first_source(state))
    await cur.go(step[0])
    r.term.press("enter")
    await cur.go(step[1])
    r.term.take_bytes()
    r.term.press("enter")  # the drop: the checker moves, the dice and pips change
    await r.term.settle()
    assert 0 < r.term.take_bytes() <= 200
    r.term.press("left")
    await r.term.settle()
    assert 0 < r.term.take_bytes() <= 80


# --- aids and replays -----------------------------------------------------------------------


async def test_hint_shows_the_computers_best_plays(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    from door.services.bots import BotRunner

    services.bots = BotRunner(services)
    gid = await begin(services, alice, bob)
    r, state, _ = await open_mover(services, gid, {0: alice, 1: bob}, start_session)
    r.term.type("h")
    await r.term.wait_for("Hints:", timeout=20)
    best = await services.bots.hint("backgammon", state, 3)
    assert f"1. {best[0][0]} {best[0][1]}" in r.term.display_text()


async def test_hint_says_so_when_no_computer_player_runs(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    gid = await begin(services, alice, bob)
    r, _, _ = await open_mover(services, gid, {0: alice, 1: bob}, start_session)
    r.term.type("h")
    await r.term.settle()
    assert "No computer player is running" in r.term.display_text()


async def test_hint_is_refused_when_the_table_plays_without(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    info = await services.games.begin(
        alice.id,
        "backgammon",
        {},
        [SeatSpec("me"), SeatSpec("user", bob.name)],
        hints_allowed=False,
    )
    await services.games.join(info.id, bob.id)
    r, _, _ = await open_mover(services, info.id, {0: alice, 1: bob}, start_session)
    assert "H)int" not in r.term.row(23)
    r.term.type("h")
    await r.term.settle()
    assert "without hints" in r.term.display_text()


async def test_the_opponents_last_play_is_marked_on_the_board(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    gid = await begin(services, alice, bob, NO_CUBE)
    state = await state_of(services, gid)
    users = {0: alice, 1: bob}
    rules = BackgammonRules()
    play = rules.legal_moves(state)[0]
    version = (await services.games.get(gid)).info.version
    await services.games.submit(gid, users[state.turn].id, rules.format_move(state, play), version)
    viewer = 1 - state.turn
    r = await start_session(users[viewer], start=f"game:{gid}")
    col = colour(viewer)
    marked = set()
    for spot in range(1, 25):
        lx, ly, _ = bgb.spot_label_cell(spot, col)
        cell = r.term.char_at(1 + lx + 1, 1 + ly)
        if cell.fg == "brown" and cell.bold:
            marked.add(spot)
    expected = {25 - p for step in play.steps for p in step[:2] if 1 <= p <= 24}
    assert expected <= marked


async def test_a_finished_match_opens_in_the_step_by_step_replay(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    gid = await begin(services, alice, bob, NO_CUBE)
    users = {0: alice, 1: bob}
    rules = BackgammonRules()
    plays = 0
    for _ in range(3):
        state = await state_of(services, gid)
        version = (await services.games.get(gid)).info.version
        move = rules.legal_moves(state)[0]
        # a "rolled" picture, then one per step (two for a hit: in the air, on the bar)
        plays += len(move.steps) + 1 + sum(1 for step in move.steps if step[3])
        await services.games.submit(
            gid, users[state.turn].id, rules.format_move(state, move), version
        )
    await services.games.resign(gid, bob.id)
    r = await start_session(alice, start=f"game:{gid}")
    total = plays + 1  # and the resignation
    assert f"1/{total}" in r.term.row(16) and "rolled" in r.term.row(16)
    r.term.press("end")
    await r.term.settle()
    assert f"{total}/{total}" in r.term.row(16) and "resigned" in r.term.row(16)
    assert "wins the 1-point match" in r.term.display_text()
    r.term.type("q")
    await r.term.wait_for("Main Menu")


async def open_from_play(r: Running) -> None:
    """P)lay from the main menu: the game waiting on you (from the list if it shows one)."""
    r.term.type("p")
    await r.term.settle()
    if "Games:" in r.term.row(0):
        r.term.press("enter")
        await r.term.settle()


async def test_the_whole_journey_begin_join_and_both_players_move(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    # Alice begins a game against Bob through the menus.
    a = await start_session(alice, start="begin")
    a.term.type("b")  # backgammon
    a.term.type("1")
    a.term.type("n")
    a.term.line("Bob")
    a.term.type("s")  # start
    a.term.press("enter")  # no dice word
    await a.term.settle()
    # Bob joins it from the list of open games and lands on the board.
    b = await start_session(bob, start="open")
    b.term.press("enter")
    b.term.press("enter")  # no dice word
    await b.term.wait_for("It has begun!")
    games, _ = await services.games.list_games("active", bob.id)
    gid = games[0].id
    state = await state_of(services, gid)
    users = {0: alice, 1: bob}
    terms = {alice.id: a, bob.id: b}
    first, second = users[state.turn], users[1 - state.turn]
    # The one who won the opening roll opens it from P)lay and moves with the cursor.
    r1 = terms[first.id]
    if first is alice:
        await open_from_play(r1)
    await r1.term.wait_for("It is your turn.")
    played = await play_with_cursor(r1, state)
    r1.term.type("y")
    await r1.term.settle()
    # The other rolls and answers in notation.
    r2 = terms[second.id]
    if second is alice:
        await open_from_play(r2)
    await r2.term.wait_for("R)oll")
    r2.term.type("r")
    await r2.term.wait_for("You rolled")
    state2 = await state_of(services, gid)
    rules = BackgammonRules()
    reply = rules.format_move(state2, rules.legal_moves(state2)[0])
    r2.term.type(":" + reply)
    r2.term.press("enter")
    await r2.term.settle()
    moves = [e.payload["move"] for e in await services.games.events(gid) if e.kind == "move"]
    assert moves == [played, "roll", reply]


async def test_playing_the_computer_its_reply_arrives_while_you_look(
    services: Services, alice: User, start_session: StartSession
) -> None:
    from door.services.bots import BotRunner

    runner = BotRunner(services)
    services.bots = runner
    runner.start()
    try:
        await runner.ready()
        info = await services.games.begin(
            alice.id, "backgammon", NO_CUBE, [SeatSpec("me"), SeatSpec("bot", "bg-beginner")]
        )
        await runner.idle()
        state = await state_of(services, info.id)
        if state.turn != 0:  # the bot won the opening roll and has moved already
            await runner.idle()
            state = await state_of(services, info.id)
        r = await start_session(alice, start=f"game:{info.id}")
        assert state.turn == 0 and state.phase == MOVING
        played = await play_with_cursor(r, state)
        r.term.type("y")
        await r.term.settle()
        await runner.idle()
        await r.term.wait_for("Meanwhile")
        moves = [
            e.payload["move"] for e in await services.games.events(info.id) if e.kind == "move"
        ]
        assert played in moves and moves[-1] != played
        await r.term.wait_for("It is your turn.")
    finally:
        await runner.stop()


async def test_without_colour_the_cursor_and_the_legal_points_still_show(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    gid = await begin(services, alice, bob)
    r, state, _ = await open_mover(services, gid, {0: alice, 1: bob}, start_session, colors=0)
    src = first_source(state)
    cur = Cursor(r.term, state.turn, src)
    assert cur.highlighted() == src
    r.term.press("enter")
    await r.term.settle()
    col = colour(state.turn)
    for dest, _ in PartialPlay.start(state).destinations(src):
        lx, ly, _w = bgb.spot_label_cell(dest, col)
        cell = r.term.char_at(1 + lx + 1, 1 + ly)
        assert cell.reverse and cell.underscore
    for params in re.findall(r"\x1b\[([0-9;]*)m", r.term.raw.decode("utf-8")):
        assert not any(30 <= int(p) <= 47 for p in params.split(";") if p), params


async def test_a_tall_terminal_also_shows_the_game_record(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    gid = await begin(services, alice, bob, NO_CUBE)
    users = {0: alice, 1: bob}
    rules = BackgammonRules()
    texts = []
    for _ in range(2):
        state = await state_of(services, gid)
        text = rules.format_move(state, rules.legal_moves(state)[0])
        texts.append((users[state.turn].name, state.turn, text))
        version = (await services.games.get(gid)).info.version
        await services.games.submit(gid, users[state.turn].id, text, version)
    state = await state_of(services, gid)
    r = await start_session(users[state.turn], start=f"game:{gid}", height=30)
    rows = r.term.display()[22:28]
    for (name, mover, text), row in zip(texts, rows, strict=False):
        assert name in row and from_viewpoint(text, mover, state.turn) in row
    small = await start_session(users[state.turn], start=f"game:{gid}")
    assert texts[0][2] not in "\n".join(small.term.display()[17:22])


async def test_question_mark_opens_the_full_key_list_and_any_key_closes_it(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    gid = await begin(services, alice, bob)
    r, _, _ = await open_mover(services, gid, {0: alice, 1: bob}, start_session)
    board = r.term.display()
    assert "?)help" in r.term.row(23)
    r.term.type("?")
    await r.term.settle()
    assert "R: remove (bear off) the picked-up checker" in r.term.display_text()
    r.term.type("x")  # closes the box; does not offer to resign
    await r.term.settle()
    assert r.term.display() == board


async def test_diagonal_keypad_keys_move_the_cursor_both_ways_at_once(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    gid = await begin(services, alice, bob)
    r, state, _ = await open_mover(services, gid, {0: alice, 1: bob}, start_session)
    cur = Cursor(r.term, state.turn, first_source(state))
    for send, dirs in (("7", ("up", "left")), ("3", ("down", "right")), ("home", ("up", "left"))):
        for d in dirs:
            cur.spot, cur.top = bgb.move_cursor(cur.spot, d, cur.col, cur.top, bar_stop=False)
        if send.isdigit():
            r.term.type(send)
        else:
            r.term.press(send)  # NUM LOCK off: the keypad's 7 is Home
        await r.term.settle()
        assert cur.highlighted() == cur.spot


async def test_a_game_waiting_for_its_second_player_says_so(
    services: Services, alice: User, start_session: StartSession
) -> None:
    info = await services.games.begin(
        alice.id, "backgammon", {}, [SeatSpec("me"), SeatSpec("open")]
    )
    r = await start_session(alice, start=f"game:{info.id}")
    assert "Waiting for a player to join." in r.term.display_text()
    r.term.press("enter")
    await r.term.settle()
    assert (await services.games.get(info.id)).info.status == "open"


async def test_in_money_play_with_beavers_the_taker_may_beaver(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    gid = await begin(services, alice, bob, {"match_length": 0, "beavers": True})
    users = {0: alice, 1: bob}
    rules = BackgammonRules()
    state = await state_of(services, gid)
    for text in (rules.format_move(state, rules.legal_moves(state)[0]), "double"):
        state = await state_of(services, gid)
        seat = rules.to_act(state)
        assert seat is not None
        version = (await services.games.get(gid)).info.version
        await services.games.submit(gid, users[seat].id, text, version)
    state = await state_of(services, gid)
    taker = rules.to_act(state)
    assert taker is not None
    r = await start_session(users[taker], start=f"game:{gid}")
    assert "B)eaver" in r.term.row(23)
    r.term.type("b")
    await r.term.settle()
    assert "Beaver!" in r.term.display_text()
    # The doubler now answers the beaver: taking it makes the cube 4, the beaverer's.
    doubler = rules.to_act(await state_of(services, gid))
    assert doubler == 1 - taker
    r2 = await start_session(users[doubler], start=f"game:{gid}")
    assert "Beavered to 4: take or drop?" in r2.term.display_text()
    r2.term.type("t")
    await r2.term.settle()
    after = await state_of(services, gid)
    assert (after.cube, after.cube_owner) == (4, taker)


async def test_escape_puts_a_lifted_checker_back_before_it_leaves(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    gid = await begin(services, alice, bob)
    r, _, _ = await open_mover(services, gid, {0: alice, 1: bob}, start_session)

    def look() -> list[tuple[str, bool, bool]]:
        """Every cell's glyph and highlight attributes."""
        buf = r.term.screen.buffer
        return [(c.data, c.reverse, c.underscore) for y in range(24) for c in buf[y].values()]

    board = look()
    r.term.press("enter")  # pick up the checker under the cursor
    await r.term.settle()
    assert look() != board
    r.term.press("escape")
    await r.term.settle()
    assert look() == board  # still on the board, nothing lifted
    r.term.press("escape")
    await r.term.wait_for("Main Menu")


async def test_an_accepted_resignation_scores_the_game_and_the_match_goes_on(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    gid = await begin(services, alice, bob, {"match_length": 3, "cube": False})
    users = {0: alice, 1: bob}
    state = await state_of(services, gid)
    resigner = state.turn
    version = (await services.games.get(gid)).info.version
    await services.games.submit(gid, users[resigner].id, "resign single", version)
    winner = 1 - resigner
    r = await start_session(users[winner], start=f"game:{gid}")
    assert "Offered: resign a single." in r.term.display_text()
    assert "A)ccept" in r.term.row(23)
    r.term.type("a")
    await r.term.settle()
    after = await state_of(services, gid)
    assert after.score[winner] == 1
    me_row = r.term.row(15)
    assert users[winner].name in me_row and me_row[50 + 14 : 50 + 16].strip() == "1"
    assert f"Last game: {users[winner].name} won 1 point" in r.term.display_text()


# --- what is pushed over the board -----------------------------------------------------------


async def test_a_pasted_line_opens_the_play_line_with_the_rest_of_the_paste_in_it(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    gid = await begin(services, alice, bob)
    r, _, _ = await open_mover(services, gid, {0: alice, 1: bob}, start_session)
    r.term.type(":this is no play at all")  # longer than a burst of typing: a paste
    await r.term.settle()
    assert "Play: this is no play at all" in r.term.display_text()
    r.term.press("escape")
    await r.term.settle()
    assert "Play:" not in r.term.display_text()
    assert "Enter pick/drop" in r.term.row(23)


async def test_a_resignation_question_goes_away_when_the_game_ends_under_it(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    gid = await begin(services, alice, bob)
    r, _, mover = await open_mover(services, gid, {0: alice, 1: bob}, start_session)
    other = bob if mover is alice else alice
    r.term.type("x")
    await r.term.settle()
    r.term.type("m")  # X on one's turn first offers the game or the match
    await r.term.wait_for("Resign the whole match?")
    assert "Y)es" in r.term.row(23)
    snap = await services.games.get(gid)
    await services.games.resign(gid, other.id, snap.info.version)
    await r.term.settle()
    assert "Resign the whole match?" not in r.term.display_text()
    assert "Y)es" not in r.term.row(23)
    r.term.type("y")  # no longer a yes to anything
    await r.term.settle()
    assert "You resigned" not in r.term.display_text()


async def test_the_replay_viewer_closes_at_its_last_picture_and_the_board_takes_keys_again(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    gid = await begin(services, alice, bob)
    users = {0: alice, 1: bob}
    r1, state, _ = await open_mover(services, gid, users, start_session)
    await play_with_cursor(r1, state)
    r1.term.type("y")
    await r1.term.settle()
    r2, _, _ = await open_mover(services, gid, users, start_session)
    r2.term.type("v")
    await r2.term.settle()
    assert "next" in r2.term.row(23)
    for _ in range(8):
        r2.term.press("enter")
    await r2.term.settle()
    assert "next" not in r2.term.row(23)
    r2.term.type("i")
    await r2.term.settle()
    assert "Position ID:" in r2.term.display_text()


async def test_sessions_handed_the_same_render_caches_share_board_drawings(
    services: Services, alice: User, bob: User
) -> None:
    gid = await begin(services, alice, bob)
    caches = RenderCaches()
    drawn: list[int] = []
    for user in (alice, bob, alice):
        term = FakeTerminal()
        task = asyncio.create_task(
            run_session(term, services, user, start=f"game:{gid}", caches=caches)
        )
        await term.settle()
        drawn.append(len(caches.boards))
        term.hangup()
        await asyncio.wait_for(task, 5)
    assert drawn[0] >= 1
    assert drawn[2] == drawn[1]  # alice's second look finds her board drawn


async def test_the_key_help_line_while_moving_fits_the_bottom_row_whole(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    gid = await begin(services, alice, bob)
    r, state, _ = await open_mover(services, gid, {0: alice, 1: bob}, start_session)
    assert state.phase == MOVING
    line = r.term.row(23).strip()
    assert "H)int" in line and "?)help" in line
    assert line.endswith("Q)uit")
