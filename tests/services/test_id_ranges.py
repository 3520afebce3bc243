"""Numbers from outside (game and user ids, sequence numbers, page offsets) that no row
can have get the service's ordinary answer ("there is no game …", an empty page), never
a driver's overflow error; and a bot seat takes only a configured computer player."""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from door.games.registry import build_registry
from door.services.accounts import AccountError, Accounts, User
from door.services.clock import FakeClock
from door.services.games import GameService, LobbyError, SeatSpec
from door.services.notify import LocalHub
from door.services.ratings import Ratings
from door.store.db import Database
from door.store.records import ID_MAX
from tests.services.test_games import ME, OPEN, two_player_game

# Past 64-bit SQLite's INTEGER, past PostgreSQL's 32-bit one, and below both.
OUT_OF_RANGE = [2**63, 2**64 + 5, 2**31, -(2**63) - 1, 0, -1]


@pytest.mark.parametrize("game_id", OUT_OF_RANGE)
async def test_a_game_id_no_row_can_have_is_no_such_game_for_every_action(
    games: GameService, alice: User, game_id: int
) -> None:
    actions: dict[str, Callable[[], Awaitable[Any]]] = {
        "get": lambda: games.get(game_id, alice.id),
        "join": lambda: games.join(game_id, alice.id),
        "leave": lambda: games.leave(game_id, alice.id),
        "submit": lambda: games.submit(game_id, alice.id, "take 1", 1),
        "resign": lambda: games.resign(game_id, alice.id),
    }
    for action in actions.values():
        with pytest.raises(LobbyError, match="there is no game"):
            await action()
    assert await games.events(game_id) == []
    await games.mark_seen(game_id, alice.id, 5)  # nothing to mark: no error either
    assert await games.replay_check(game_id) == f"game {game_id}: no such game"


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.one_of(st.integers(max_value=0), st.integers(min_value=ID_MAX + 1)))
async def test_any_game_id_outside_the_stored_range_is_no_such_game(
    games: GameService, game_id: int
) -> None:
    with pytest.raises(LobbyError, match="there is no game"):
        await games.get(game_id)


@pytest.mark.parametrize("user_id", OUT_OF_RANGE)
async def test_a_user_id_no_row_can_have_is_no_such_user(
    games: GameService, accounts: Accounts, ratings: Ratings, alice: User, bob: User,
    user_id: int,
) -> None:  # fmt: skip
    snap = await two_player_game(games, alice, bob)
    game_id = snap.info.id
    refused: dict[str, Callable[[], Awaitable[Any]]] = {
        "begin": lambda: games.begin(user_id, "nim", {}, [ME, OPEN]),
        "join": lambda: games.join(game_id, user_id),
        "submit": lambda: games.submit(game_id, user_id, "take 1", snap.info.version),
        "resign": lambda: games.resign(game_id, user_id),
        "leave": lambda: games.leave(game_id, user_id),
        "mark_seen": lambda: games.mark_seen(game_id, user_id, 1),
    }
    for action in refused.values():
        with pytest.raises(LobbyError, match="no such user"):
            await action()
    assert await games.list_games("mine", user_id) == ([], 0)
    visit = await games.since_last_visit(user_id)
    assert (visit.moves_against_you, visit.finished, visit.waiting) == (0, [], [])
    with pytest.raises(AccountError, match="no such user"):
        await accounts.get(user_id)
    assert await accounts.list_keys(user_id) == []
    assert await ratings.place_of(user_id, "nim") is None
    assert (await games.get(game_id, user_id)).my_seat is None


async def test_sequence_numbers_and_offsets_beyond_any_stored_one_are_held_in_range(
    games: GameService, ratings: Ratings, alice: User, bob: User
) -> None:
    snap = await two_player_game(games, alice, bob)
    game_id, last = snap.info.id, snap.info.last_seq
    assert await games.events(game_id, 2**63) == []
    assert len(await games.events(game_id, -(2**63) - 1)) == last
    await games.mark_seen(game_id, alice.id, 2**64)
    assert (await games.get(game_id, alice.id)).last_seen_seq == last
    await games.mark_seen(game_id, alice.id, -(2**64))  # never goes back
    assert (await games.get(game_id, alice.id)).last_seen_seq == last
    page, total = await games.list_games("active", None, offset=2**63)
    assert (page, total) == ([], 1)
    assert await ratings.rank("nim", offset=2**63) == []
    assert await ratings.rank("nim", min_experience=2**63) == []


# --- computer players ------------------------------------------------------------------


async def test_a_bot_seat_with_a_name_no_computer_player_has_is_refused_and_makes_no_account(
    games: GameService, accounts: Accounts, alice: User
) -> None:
    for name in ("mallory", "Alice", "root", "nim-bot2", "x" * 500):
        with pytest.raises(LobbyError, match="no computer player called"):
            await games.begin(alice.id, "nim", {}, [ME, SeatSpec("bot", name)])
    assert await accounts.by_name("mallory") is None
    assert await accounts.by_name("nim-bot2") is None
    assert await games.list_games("mine", alice.id) == ([], 0)


async def test_a_computer_player_is_found_whatever_the_case_of_its_name(
    games: GameService, alice: User
) -> None:
    info = await games.begin(alice.id, "nim", {}, [ME, SeatSpec("bot", " NIM-Bot ")])
    assert info.seats[1].kind == "bot" and info.seats[1].name == "nim-bot"


@pytest.fixture
def door_games(db: Database, clock: FakeClock) -> GameService:
    """The game service as door builds it: the real games and door's own computer players."""
    return GameService(db, build_registry(), LocalHub(), clock, random.Random(3))


async def test_door_seats_only_its_own_levels_and_only_in_their_own_game(
    door_games: GameService, accounts: Accounts, alice: User
) -> None:
    with pytest.raises(LobbyError, match="no computer player called"):
        await door_games.begin(alice.id, "backgammon", {}, [ME, SeatSpec("bot", "gnubg")])
    with pytest.raises(LobbyError, match="no computer player called"):
        await door_games.begin(
            alice.id, "backgammon", {}, [ME, SeatSpec("bot", "spectrangle-greedy")]
        )
    assert await accounts.by_name("gnubg") is None
    info = await door_games.begin(alice.id, "backgammon", {}, [ME, SeatSpec("bot", "bg-expert")])
    assert info.seats[1].name == "bg-expert"
