"""Spectrangle screen specs: real sessions on fake terminals, read with pyte at 80×24.

Three players sit at a real game (temp SQLite services). The draws come from the service's
seeded RNG, so each test works out its keys from the hands and board it is shown.
"""

from __future__ import annotations

import random
import re
from typing import Any

from door.games.spectrangle import aids
from door.games.spectrangle.moves import Move
from door.games.spectrangle.pieces import piece
from door.games.spectrangle.rules import SpectrangleRules
from door.games.spectrangle.state import SpectrangleState
from door.services import Services
from door.services.accounts import User
from door.services.games import SeatSpec
from door.ui.boards import spectrangle as spb
from door.ui.screens.spectrangle import BOARD_X, BOARD_Y
from tests.ui.conftest import Running, StartSession
from tests.ui.faketerm import FakeTerminal

RULES = SpectrangleRules()


async def begin3(services: Services, a: User, b: User, c: User, *, hints: bool = True) -> int:
    """A started three-player game with ``a`` in seat 0, ``b`` in 1 and ``c`` in 2."""
    info = await services.games.begin(
        a.id, "spectrangle", {},
        [SeatSpec("me"), SeatSpec("user", b.name), SeatSpec("user", c.name)],
        hints_allowed=hints,
    )  # fmt: skip
    await services.games.join(info.id, b.id)
    await services.games.join(info.id, c.id)
    return info.id


def opens_with_placements(state: SpectrangleState) -> bool:
    """The first three turns can each be a placement, whether the opener plays the first
    legal move or the best-scoring one and each next player the best-scoring one (the
    tests below play so). Whoever gets which pieces is chance: the mover's own draw after
    each turn is taken at random here, as it does not change what the next players hold."""
    for first in (RULES.legal_moves(state)[0], RULES.scored_moves(state)[0][0]):
        s, move = state, first
        for turn in range(3):
            if move.kind != "place":
                return False
            s = RULES.apply(s, move)
            while RULES.chance_pending(s):
                s = RULES.apply_chance(s, RULES.sample_chance(s, random.Random(turn)))
            if turn < 2:
                move = RULES.scored_moves(s)[0][0]
    return True


async def begin_opening(services: Services, users: dict[int, User], tries: int = 30) -> int:
    """:func:`begin3`, again until the deal lets the first three turns place a piece (the
    tests that need placements on those turns start here)."""
    for _ in range(tries):
        gid = await begin3(services, *users.values())
        if opens_with_placements(await state_of(services, gid)):
            return gid
    raise AssertionError(f"no deal in {tries} games let the first turns place a piece")


async def state_of(services: Services, gid: int) -> SpectrangleState:
    state: SpectrangleState = (await services.games.get(gid)).state
    return state


async def play_via_service(
    services: Services, gid: int, users: dict[int, User], move: Move
) -> None:
    state = await state_of(services, gid)
    assert state.turn is not None
    version = (await services.games.get(gid)).info.version
    await services.games.submit(gid, users[state.turn].id, RULES.format_move(state, move), version)


async def last_move(services: Services, gid: int) -> str:
    events = await services.games.events(gid)
    return [e for e in events if e.kind == "move"][-1].payload["move"]


def value_at(term: FakeTerminal, index: int, scale: int = 3) -> str:
    """The glyph in a field's middle cell (a placed piece's value)."""
    x, y = spb.field_center(index, scale)
    return str(term.char_at(BOARD_X + x, BOARD_Y + y).data)


def field_text(term: FakeTerminal, index: int, scale: int = 3) -> str:
    """The middle line of a field as shown (value, index or score)."""
    cells = sorted(
        (c for c in spb.field_cells(index, scale) if c.y == spb.field_center(index, scale)[1]),
        key=lambda c: c.x,
    )
    return "".join(term.char_at(BOARD_X + c.x, BOARD_Y + c.y).data for c in cells)


def cursor_field(term: FakeTerminal, scale: int = 3) -> int | None:
    """The field whose middle cell shows the cursor (reversed)."""
    for i in range(36):
        x, y = spb.field_center(i, scale)
        cell = term.char_at(BOARD_X + x, BOARD_Y + y)
        if cell.reverse:
            return i
    return None


async def cursor_to(r: Running, goal: int, keypad: bool = False) -> None:
    """Move the screen's cursor to ``goal`` with arrows (or keypad digits)."""
    start = cursor_field(r.term)
    assert start is not None
    frontier: list[tuple[int, list[str]]] = [(start, [])]
    seen = {start}
    path: list[str] | None = None
    while frontier and path is None:
        nxt = []
        for f, p in frontier:
            if f == goal:
                path = p
                break
            for d in ("left", "right", "up", "down"):
                g = spb.neighbour_in_direction(f, d)
                if g not in seen:
                    seen.add(g)
                    nxt.append((g, [*p, d]))
        frontier = nxt
    assert path is not None
    pad = {"left": "4", "right": "6", "up": "8", "down": "2"}
    for d in path:
        if keypad:
            r.term.type(pad[d])
        else:
            r.term.press(d)
    await r.term.settle()
    assert cursor_field(r.term) == goal


async def open_mover(
    services: Services, gid: int, users: dict[int, User], start_session: StartSession, **kw: Any
) -> tuple[Running, SpectrangleState]:
    state = await state_of(services, gid)
    assert state.turn is not None
    r = await start_session(users[state.turn], start=f"game:{gid}", **kw)
    return r, state


async def players(services: Services, alice: User, bob: User) -> dict[int, User]:
    carol = await services.accounts.register("Carol", "carol-pw")
    return {0: alice, 1: bob, 2: carol}


# --- placing ---------------------------------------------------------------------------------


async def test_the_mover_picks_turns_and_places_a_piece_with_the_cursor(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    users = await players(services, alice, bob)
    gid = await begin_opening(services, users)
    await play_via_service(
        services, gid, users, RULES.legal_moves(await state_of(services, gid))[0]
    )
    r, state = await open_mover(services, gid, users, start_session)
    hand = state.hands[state.turn]  # type: ignore[index]
    # Prefer a placement that needs the piece changed and turned, to press those keys.
    moves = [m for m, _ in RULES.scored_moves(state) if m.kind == "place"]
    move = max(moves, key=lambda m: (hand.index(m.piece), m.rotation))  # type: ignore[arg-type]
    for _ in range(hand.index(move.piece)):  # type: ignore[arg-type]
        r.term.press("tab")
    for _ in range(move.rotation):
        r.term.type("r")
    if move.mirror:
        r.term.type("m")
    await r.term.settle()
    assert f"Your piece: {piece(move.piece).name}" in r.term.display_text()  # type: ignore[arg-type]
    assert f"rotation {move.rotation}" in r.term.display_text()
    await cursor_to(r, move.field)  # type: ignore[arg-type]
    score = RULES.move_score(state, move)
    assert f"Field {move.field}" in r.term.row(20) and f"scores {score}" in r.term.row(20)
    r.term.press("enter")
    await r.term.wait_for(f"for {score}? (Y/N)")
    r.term.type("y")
    await r.term.settle()
    assert await last_move(services, gid) == RULES.format_move(state, move)
    assert value_at(r.term, move.field) == str(piece(move.piece).value)  # type: ignore[arg-type]


async def test_legal_fields_light_up_with_the_score_they_would_make(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    users = await players(services, alice, bob)
    gid = await begin_opening(services, users)
    await play_via_service(
        services, gid, users, RULES.legal_moves(await state_of(services, gid))[0]
    )
    r, state = await open_mover(services, gid, users, start_session)
    hand = state.hands[state.turn]  # type: ignore[index]
    chosen, turn = next(
        (i, rot) for rot in range(3) for i, p in enumerate(hand)
        if aids.accepting_fields(state, p, rot, False)
    )  # fmt: skip
    for _ in range(chosen):
        r.term.press("tab")
    for _ in range(turn):
        r.term.type("r")
    await r.term.settle()
    accept = aids.accepting_fields(state, hand[chosen], turn, False)
    assert accept
    for idx, score in accept.items():
        if idx != cursor_field(r.term):
            assert field_text(r.term, idx).strip(" ░▒") == f"+{score}"


async def test_another_player_types_a_move_in_notation(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    users = await players(services, alice, bob)
    gid = await begin3(services, *users.values())
    r, state = await open_mover(services, gid, users, start_session)
    text = RULES.format_move(state, RULES.legal_moves(state)[-1])
    r.term.type(":")
    r.term.type_each(text)
    r.term.press("enter")
    await r.term.settle()
    assert await last_move(services, gid) == text
    assert f"You played {text}" in r.term.display_text()


async def test_a_field_that_does_not_take_the_piece_says_why_and_sends_nothing(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    users = await players(services, alice, bob)
    gid = await begin3(services, *users.values())
    r, _ = await open_mover(services, gid, users, start_session)
    version = (await services.games.get(gid)).info.version
    await cursor_to(r, 2)  # a x3 bonus field: never the first move
    r.term.press("enter")
    await r.term.settle()
    assert "Not there: field 2 is a x3 bonus field" in r.term.display_text()
    assert (await services.games.get(gid)).info.version == version


async def test_a_typed_move_that_is_not_legal_keeps_the_line_to_fix_it(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    users = await players(services, alice, bob)
    gid = await begin3(services, *users.values())
    r, _ = await open_mover(services, gid, users, start_session)
    r.term.type(":")
    r.term.type_each("XYZ9@40")
    r.term.press("enter")
    await r.term.settle()
    assert "Move: XYZ9@40" in r.term.display_text()
    assert not [e for e in await services.games.events(gid) if e.kind == "move"]


# --- aids --------------------------------------------------------------------------------------


async def test_hint_lists_the_best_moves_and_puts_the_cursor_on_the_best(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    users = await players(services, alice, bob)
    gid = await begin_opening(services, users)
    await play_via_service(
        services, gid, users, RULES.legal_moves(await state_of(services, gid))[0]
    )
    r, state = await open_mover(services, gid, users, start_session)
    r.term.type("h")
    await r.term.settle()
    best = aids.hint(state, 3)
    assert "Best moves:" in r.term.display_text()
    first_text = RULES.format_move(state, best[0][0])
    assert f"1. {first_text}  {best[0][1]} points" in r.term.display_text()
    assert cursor_field(r.term) == best[0][0].field
    # Enter now places exactly the hinted move.
    r.term.press("enter")
    r.term.type("y")
    await r.term.settle()
    assert await last_move(services, gid) == first_text


async def test_show_bag_lists_every_piece_still_in_the_bag(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    users = await players(services, alice, bob)
    gid = await begin3(services, *users.values())
    r, state = await open_mover(services, gid, users, start_session)
    r.term.type("b")
    await r.term.settle()
    bag = aids.show_bag(state)
    assert f"In the bag ({len(bag)}):" in r.term.display_text()
    panel = "\n".join(line[38:] for line in r.term.display()[15:21])
    for p in bag:
        assert p.name in panel


async def test_hint_and_bag_are_refused_when_the_table_turned_them_off(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    users = await players(services, alice, bob)
    gid = await begin3(services, *users.values(), hints=False)
    r, _ = await open_mover(services, gid, users, start_session)
    assert "H)int" not in r.term.row(23)
    r.term.type("h")
    await r.term.settle()
    assert "without HINT and SHOW BAG" in r.term.display_text()
    r.term.type("b")
    await r.term.settle()
    assert "In the bag" not in r.term.display_text()


# --- the others, watching ------------------------------------------------------------------------


async def test_view_replays_the_turns_made_since_your_last_one(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    users = await players(services, alice, bob)
    gid = await begin_opening(services, users)
    first = (await state_of(services, gid)).turn
    assert first is not None
    played: list[tuple[str, int]] = []
    for _ in range(3):
        state = await state_of(services, gid)
        move, _ = RULES.scored_moves(state)[0]
        played.append((users[state.turn].name, move.field))  # type: ignore[index,arg-type]
        await play_via_service(services, gid, users, move)
    r = await start_session(users[first], start=f"game:{gid}")
    r.term.type("v")
    await r.term.settle()
    assert f"Move 1 of 2: {played[1][0]} placed" in r.term.display_text()
    assert f"on field {played[1][1]}" in r.term.display_text()
    r.term.press("right")
    await r.term.settle()
    assert f"Move 2 of 2: {played[2][0]} placed" in r.term.display_text()
    r.term.press("right")  # past the end: back to the game
    await r.term.settle()
    assert "Move 2 of 2" not in r.term.display_text()


async def test_a_move_made_while_you_look_is_shown_with_a_notice(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    users = await players(services, alice, bob)
    gid = await begin3(services, *users.values())
    state = await state_of(services, gid)
    watcher = users[(state.turn + 1) % 3]  # type: ignore[operator]
    r = await start_session(watcher, start=f"game:{gid}")
    move = RULES.legal_moves(state)[0]
    await play_via_service(services, gid, users, move)
    await r.term.wait_for("Meanwhile")
    assert RULES.format_move(state, move) in r.term.display_text()
    assert value_at(r.term, move.field) == str(piece(move.piece).value)  # type: ignore[arg-type]
    assert "It is your turn" in r.term.display_text()


async def test_a_spectator_sees_all_hands_and_has_no_controls(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    users = await players(services, alice, bob)
    gid = await begin3(services, *users.values())
    dave = await services.accounts.register("Dave", "dave-pw")
    state = await state_of(services, gid)
    version = (await services.games.get(gid)).info.version
    r = await start_session(dave, start=f"game:{gid}")
    text = r.term.display_text()
    for seat, hand in enumerate(state.hands):
        assert users[seat].name in text
        for p in hand:
            assert piece(p).name in text
    r.term.press("enter")
    r.term.type("p")
    await r.term.settle()
    assert "You are watching" in r.term.display_text()
    assert (await services.games.get(gid)).info.version == version
    assert cursor_field(r.term) is None


# --- stuck, swapping, the end -------------------------------------------------------------------


async def play_until(
    services: Services, gid: int, users: dict[int, User], stop: Any, pick: int = 0
) -> SpectrangleState | None:
    """Play through the service (the ``pick``-th best move each turn) until
    ``stop(state)`` holds; ``None`` if the game ended first."""
    for _ in range(200):
        state = await state_of(services, gid)
        if stop(state):
            return state
        moves = RULES.scored_moves(state)
        if not moves:
            return None
        await play_via_service(services, gid, users, moves[min(pick, len(moves) - 1)][0])
    raise AssertionError("the game went on for ever")


def stuck(state: SpectrangleState) -> bool:
    moves = RULES.scored_moves(state)
    return bool(moves) and all(m.kind != "place" for m, _ in moves) and bool(state.bag)


async def test_pass_and_swap_are_offered_only_when_no_placement_exists_and_the_game_ends(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    users = await players(services, alice, bob)
    gid = await begin3(services, *users.values())
    r0, _ = await open_mover(services, gid, users, start_session)
    r0.term.type("p")
    await r0.term.settle()
    assert "you must" in r0.term.display_text()  # a placement exists: no passing
    await r0.stop()
    # Weak play (the lowest-scoring placement) soon leaves someone unable to place.
    state = await play_until(services, gid, users, stuck, pick=1000)
    for _ in range(30):  # about one weak game in four gets stuck
        if state is not None:
            break
        gid = await begin3(services, *users.values())
        state = await play_until(services, gid, users, stuck, pick=1000)
    assert state is not None
    r, _ = await open_mover(services, gid, users, start_session)
    assert "P)ass" in r.term.row(23) and "S)wap" in r.term.row(23)
    hand = state.hands[state.turn]  # type: ignore[index]
    r.term.press("tab")
    r.term.type("s")
    await r.term.wait_for(f"Give back {piece(hand[1 % len(hand)]).name}")
    r.term.type("y")
    await r.term.settle()
    assert await last_move(services, gid) == f"swap {piece(hand[1 % len(hand)]).name}"
    await r.stop()

    # Play on to the last move, and make it through the screen.
    def last_one(s: SpectrangleState) -> bool:
        moves = RULES.scored_moves(s)
        return bool(moves) and RULES.outcome(RULES.apply(s, moves[0][0])) is not None and not s.bag

    state = await play_until(services, gid, users, last_one)
    assert state is not None
    r2, _ = await open_mover(services, gid, users, start_session)
    move = RULES.scored_moves(state)[0][0]
    r2.term.type(":")
    r2.term.type_each(RULES.format_move(state, move))
    r2.term.press("enter")
    await r2.term.settle()
    assert (await services.games.get(gid)).info.status == "finished"
    assert "Game over:" in r2.term.display_text()


# --- terminals ----------------------------------------------------------------------------------


async def test_a_resize_mid_game_redraws_the_board(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    users = await players(services, alice, bob)
    gid = await begin3(services, *users.values())
    r, _ = await open_mover(services, gid, users, start_session)
    before = r.term.display()
    r.term.resize(100, 26)
    await r.term.settle()
    assert [line[:37] for line in r.term.display()[:20]] == [line[:37] for line in before[:20]]
    r.term.resize(80, 24)
    await r.term.settle()
    assert r.term.display() == before


async def test_cp437_terminals_show_the_board_without_replacement_characters(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    users = await players(services, alice, bob)
    gid = await begin3(services, *users.values())
    await play_via_service(
        services, gid, users, RULES.legal_moves(await state_of(services, gid))[0]
    )
    r, state = await open_mover(services, gid, users, start_session, encoding="cp437")
    board = "\n".join(line[:37] for line in r.term.display()[2:20])
    assert "?" not in board
    assert "x4" in board and "░" in board
    r.term.raw.decode("cp437")
    placed = next(i for i, p in enumerate(state.board) if p is not None)
    assert value_at(r.term, placed) == str(piece(state.board[placed].piece).value)  # type: ignore[union-attr]


async def test_without_colour_the_side_letters_still_tell_the_colours(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    users = await players(services, alice, bob)
    gid = await begin3(services, *users.values())
    await play_via_service(
        services, gid, users, RULES.legal_moves(await state_of(services, gid))[0]
    )
    r, state = await open_mover(services, gid, users, start_session, colors=0)
    placed = next(i for i, p in enumerate(state.board) if p is not None)
    sides = state.board[placed].sides  # type: ignore[union-attr]
    cells = {c.role: c for c in spb.field_cells(placed) if c.primary}
    for role, letter in zip((spb.LEFT, spb.RIGHT, spb.VERTICAL), sides, strict=True):
        c = cells[role]
        assert r.term.char_at(BOARD_X + c.x, BOARD_Y + c.y).data == letter
    for params in re.findall(r"\x1b\[([0-9;]*)m", r.term.raw.decode("utf-8")):
        assert not any(30 <= int(p) <= 47 for p in params.split(";") if p), params


async def test_the_fields_just_placed_by_others_are_marked(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    users = await players(services, alice, bob)
    gid = await begin_opening(services, users)
    state = await state_of(services, gid)
    viewer = users[(state.turn + 2) % 3]  # type: ignore[operator]
    fields_placed = []
    for _ in range(2):
        s = await state_of(services, gid)
        move = RULES.scored_moves(s)[0][0]
        fields_placed.append(move.field)
        await play_via_service(services, gid, users, move)
    r = await start_session(viewer, start=f"game:{gid}")
    assert "Since you last looked" in r.term.display_text()
    for f in fields_placed:
        x, y = spb.field_center(f)
        assert r.term.char_at(BOARD_X + x, BOARD_Y + y).underscore


async def test_a_finished_game_opens_in_the_step_by_step_replay(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    info = await services.games.begin(
        alice.id, "spectrangle", {}, [SeatSpec("me"), SeatSpec("user", bob.name)]
    )
    await services.games.join(info.id, bob.id)
    users = {0: alice, 1: bob}
    for _ in range(3):
        await play_via_service(
            services, info.id, users, RULES.legal_moves(await state_of(services, info.id))[0]
        )
    await services.games.resign(info.id, bob.id)
    r = await start_session(alice, start=f"game:{info.id}")
    assert "Move 1 of 4:" in r.term.display_text() and "placed" in r.term.display_text()
    r.term.press("end")
    await r.term.settle()
    assert "Move 4 of 4:" in r.term.display_text() and "resigned" in r.term.display_text()
    r.term.type("q")
    await r.term.wait_for("Main Menu")


async def test_a_player_who_resigns_leaves_and_the_others_play_on(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    users = await players(services, alice, bob)
    gid = await begin3(services, *users.values())
    state = await state_of(services, gid)
    quitter = (state.turn + 1) % 3  # type: ignore[operator]
    r = await start_session(users[quitter], start=f"game:{gid}")
    r.term.type("x")
    await r.term.wait_for("Resign and leave this game? (Y/N)")
    r.term.type("n")
    await r.term.settle()
    assert quitter not in (await state_of(services, gid)).out
    r.term.type("x")
    r.term.type("y")
    await r.term.settle()
    after = await state_of(services, gid)
    assert after.out == (quitter,)
    assert (await services.games.get(gid)).info.status == "active"
    assert "(left the game)" in r.term.display_text()


async def test_f1_opens_the_full_key_list(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    users = await players(services, alice, bob)
    gid = await begin3(services, *users.values())
    r, _ = await open_mover(services, gid, users, start_session, encoding="cp437")
    r.term.press("f1")
    await r.term.settle()
    assert "M: turn the piece over (mirror)" in r.term.display_text()
    assert "╔" in r.term.display_text()
    r.term.press("enter")  # closes the box; places nothing
    await r.term.settle()
    assert "turn the piece over" not in r.term.display_text()
    assert "(Y/N)" not in r.term.display_text()


async def test_four_players_each_have_a_line_with_score_and_hand(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    users = await players(services, alice, bob)
    dave = await services.accounts.register("Dave", "dave-pw")
    users[3] = dave
    info = await services.games.begin(
        alice.id,
        "spectrangle",
        {"teams": True},
        [SeatSpec("me")] + [SeatSpec("user", u.name) for u in (bob, users[2], dave)],
    )
    for u in (bob, users[2], dave):
        await services.games.join(info.id, u.id)
    r, state = await open_mover(services, info.id, users, start_session)
    assert "teams 1+3 v 2+4" in r.term.row(1)
    for seat in range(4):
        row = r.term.row(4 + seat)
        assert users[seat].name in row
        for p in state.hands[seat]:
            assert piece(p).name in row


async def test_a_big_terminal_gets_the_bigger_board(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    users = await players(services, alice, bob)
    gid = await begin3(services, *users.values())
    first = RULES.legal_moves(await state_of(services, gid))[0]
    await play_via_service(services, gid, users, first)
    r, _ = await open_mover(services, gid, users, start_session, width=120, height=40)
    assert value_at(r.term, first.field, scale=4) == str(piece(first.piece).value)  # type: ignore[arg-type]
    # Bonus fields show at the new size; the panel sits right of the board.
    board = "\n".join(line[:48] for line in r.term.display()[2:26])
    assert board.count("x2") >= 2 and board.count("x3") >= 2 and board.count("x4") >= 2
    assert r.term.find("Player")[0] >= 49  # type: ignore[index]
    start = cursor_field(r.term, scale=4)
    assert start is not None
    r.term.press("right")
    await r.term.settle()
    assert cursor_field(r.term, scale=4) == spb.neighbour_in_direction(start, "right")
    r.term.resize(80, 24)
    await r.term.settle()
    assert value_at(r.term, first.field) == str(piece(first.piece).value)  # type: ignore[arg-type]


async def test_a_game_waiting_for_players_says_so(
    services: Services, alice: User, start_session: StartSession
) -> None:
    info = await services.games.begin(
        alice.id, "spectrangle", {}, [SeatSpec("me"), SeatSpec("open"), SeatSpec("open")]
    )
    r = await start_session(alice, start=f"game:{info.id}")
    assert "Waiting for players to join." in r.term.display_text()
