"""Spectrangle without colour: every placed piece's three side colours and its value, and
every empty field, stay readable in no-colour and monochrome modes (read with pyte at
80×24)."""

from __future__ import annotations

from typing import Any

import pytest

from door.services import Services
from door.services.accounts import User
from door.ui.boards.spectrangle import APEX, MID, field_cells, is_up
from door.ui.screens.spectrangle import BOARD_X, BOARD_Y, tiles_of
from tests.ui.conftest import StartSession, started_game

MODES = ["monochrome terminal", "colour setting off"]


async def played_game(services: Services, a: User, b: User, moves: int = 4) -> Any:
    """A Spectrangle game with ``moves`` pieces placed (the first legal placement each turn)."""
    info = await started_game(services, a, b, "spectrangle")
    rules = services.games.rules_for("spectrangle")
    for _ in range(moves):
        snap = await services.games.get(info.id, a.id)
        seat = snap.info.to_act
        user = a if snap.info.seats[seat].user_id == a.id else b
        state = snap.state if user.id == a.id else (await services.games.get(info.id, b.id)).state
        place = [m for m in rules.legal_moves(state) if m.kind == "place"]
        await services.games.submit(
            info.id, user.id, rules.format_move(state, place[0]), snap.info.version
        )
    return info




async def mono_screen(
    start_session: StartSession, services: Services, user: User, game_id: int, mode: str
) -> Any:
    if mode == "colour setting off":
        user = await services.accounts.update_settings(user.id, color=False)
        return await start_session(user, start=f"game:{game_id}", colors=16)
    return await start_session(user, start=f"game:{game_id}", colors=0)


@pytest.mark.parametrize("mode", MODES)
async def test_every_side_of_a_placed_piece_shows_its_colour_letter(
    start_session: StartSession, services: Services, alice: User, bob: User, mode: str
) -> None:
    info = await played_game(services, alice, bob, moves=4)
    state = (await services.games.get(info.id, alice.id)).state
    r = await mono_screen(start_session, services, alice, info.id, mode)
    placed = 0
    for index, tile in enumerate(tiles_of(state)):
        if tile is None:
            continue
        placed += 1
        for c in field_cells(index):
            ch = r.term.char_at(BOARD_X + c.x, BOARD_Y + c.y).data
            if c.role == MID:
                assert ch == str(tile.value), (index, r.term.display_text())
            elif c.role != APEX:
                assert isinstance(c.role, int)
                letter = tile.sides[c.role]
                want = letter.upper() if is_up(index) else letter.lower()
                assert ch == want, (index, c, r.term.display_text())
    assert placed == 4


@pytest.mark.parametrize("mode", MODES)
async def test_neighbouring_fields_letters_are_told_apart_by_case(
    start_session: StartSession, services: Services, alice: User, bob: User, mode: str
) -> None:
    info = await played_game(services, alice, bob, moves=4)
    state = (await services.games.get(info.id, alice.id)).state
    r = await mono_screen(start_session, services, alice, info.id, mode)
    for index, tile in enumerate(tiles_of(state)):
        if tile is None:
            continue
        letters = {
            r.term.char_at(BOARD_X + c.x, BOARD_Y + c.y).data
            for c in field_cells(index)
            if isinstance(c.role, int)
        }
        assert all(ch.isupper() for ch in letters) if is_up(index) else all(
            ch.islower() for ch in letters
        )


@pytest.mark.parametrize("mode", MODES)
async def test_an_empty_field_is_dots_around_its_index(
    start_session: StartSession, services: Services, alice: User, bob: User, mode: str
) -> None:
    info = await played_game(services, alice, bob, moves=2)
    snap = await services.games.get(info.id, alice.id)
    state = snap.state
    # the player not on turn: the mover's empty fields that take the piece show its score
    watcher = bob if snap.info.to_act == snap.my_seat else alice
    r = await mono_screen(start_session, services, watcher, info.id, mode)
    for index, tile in enumerate(tiles_of(state)):
        if tile is not None:
            continue
        cells = "".join(
            r.term.char_at(BOARD_X + c.x, BOARD_Y + c.y).data for c in field_cells(index)
        )
        assert str(index) in cells
        assert set(cells) <= set("·x0123456789"), (index, cells)
        assert "·" in cells
        assert "░" not in r.term.display_text()


async def test_colour_terminals_keep_the_coloured_board(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    info = await played_game(services, alice, bob, moves=2)
    r = await start_session(alice, start=f"game:{info.id}", colors=16)
    assert "░" in r.term.display_text()
