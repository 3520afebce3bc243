"""Moves that should not be made: each is refused with a message fit to show a player, and
nothing is lost — the game's version, log and snapshot are as they were, and the log still
replays to the snapshot (``replay_check``)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import text

from door.games.base import IllegalMoveError, InvalidMoveError
from door.services import Services
from door.services.accounts import User
from door.services.clock import FakeClock
from door.services.games import (
    GameClosedError,
    GameSnapshot,
    LobbyError,
    NotYourTurnError,
    SeatSpec,
    StaleVersionError,
)


@dataclass
class Table:
    """A running Backgammon match: who is to move, who waits, who only watches."""

    services: Services
    snap: GameSnapshot
    mover: User
    waiter: User
    watcher: User

    @property
    def game_id(self) -> int:
        return self.snap.info.id

    @property
    def version(self) -> int:
        return self.snap.info.version

    def legal(self) -> list[str]:
        rules = self.services.games.rules_for(self.snap.info.kind)
        return [rules.format_move(self.snap.state, m) for m in rules.legal_moves(self.snap.state)]

    async def unchanged(self) -> None:
        """Nothing was written: same version, same log, and the log replays."""
        games = self.services.games
        now = await games.get(self.game_id)
        assert now.info.version == self.version
        assert now.info.last_seq == self.snap.info.last_seq
        assert len(await games.events(self.game_id)) == self.snap.info.last_seq
        assert await games.replay_check(self.game_id) is None


async def start_table(services: Services, kind: str = "backgammon",
                      options: dict[str, Any] | None = None) -> Table:
    alice = await services.accounts.register("Alice", "alice-pw")
    bob = await services.accounts.register("Bob", "bob-pw1")
    carol = await services.accounts.register("Carol", "carol-pw")
    games = services.games
    info = await games.begin(alice.id, kind, options or {}, [SeatSpec("me"), SeatSpec("open")])
    await games.join(info.id, bob.id)
    snap = await games.get(info.id)
    by_seat = {0: alice, 1: bob}
    assert snap.info.to_act is not None
    mover = by_seat[snap.info.to_act]
    return Table(services, snap, mover, by_seat[1 - snap.info.to_act], carol)


@pytest.fixture
async def table(services: Services) -> Table:
    return await start_table(services)


def readable(message: str) -> None:
    """A message fit to show: some words, no control characters, not a wall of text."""
    assert message.isprintable() and 10 <= len(message) <= 300, message


async def test_a_move_in_someone_elses_game_is_refused(table: Table) -> None:
    with pytest.raises(NotYourTurnError, match="not playing in that game") as err:
        await table.services.games.submit(
            table.game_id, table.watcher.id, table.legal()[0], table.version
        )
    readable(str(err.value))
    await table.unchanged()


async def test_a_move_out_of_turn_is_refused(table: Table) -> None:
    with pytest.raises(NotYourTurnError, match="not your turn"):
        await table.services.games.submit(
            table.game_id, table.waiter.id, table.legal()[0], table.version
        )
    await table.unchanged()


async def test_a_spectator_watching_the_game_cannot_move(table: Table) -> None:
    games = table.services.games
    watched = await games.get(table.game_id, table.watcher.id)
    assert watched.my_seat is None
    with pytest.raises(NotYourTurnError):
        await games.submit(table.game_id, table.watcher.id, table.legal()[0], watched.info.version)
    with pytest.raises(NotYourTurnError):
        await games.resign(table.game_id, table.watcher.id, watched.info.version)
    await table.unchanged()


async def test_an_unparseable_move_says_how_to_write_one(table: Table) -> None:
    with pytest.raises(InvalidMoveError, match="from/to") as err:
        await table.services.games.submit(table.game_id, table.mover.id, "hello", table.version)
    readable(str(err.value))
    await table.unchanged()


async def test_an_illegal_move_names_the_reason(table: Table) -> None:
    with pytest.raises(IllegalMoveError) as err:
        await table.services.games.submit(table.game_id, table.mover.id, "24/1", table.version)
    assert "cannot land on 1" in str(err.value) or "cannot" in str(err.value)
    readable(str(err.value))
    await table.unchanged()


async def test_an_empty_move_asks_for_one(table: Table) -> None:
    for blank in ("", "   ", "\t"):
        with pytest.raises(InvalidMoveError, match="type a move"):
            await table.services.games.submit(table.game_id, table.mover.id, blank, table.version)
    await table.unchanged()


async def test_a_megabyte_of_move_text_is_refused_at_once(table: Table) -> None:
    with pytest.raises(InvalidMoveError, match="too long") as err:
        await table.services.games.submit(
            table.game_id, table.mover.id, "13/11 " * 200_000, table.version
        )
    readable(str(err.value))
    await table.unchanged()


async def test_sql_metacharacters_in_a_move_are_only_text(table: Table) -> None:
    with pytest.raises(InvalidMoveError):
        await table.services.games.submit(
            table.game_id, table.mover.id, "8/5'); DROP TABLE game_events;--", table.version
        )
    count = await table.services.db.run_sync(
        lambda c: c.execute(text("SELECT count(*) FROM game_events")).scalar_one()
    )
    assert count == table.snap.info.last_seq
    await table.unchanged()


async def test_control_characters_in_a_move_never_come_back_raw(table: Table) -> None:
    for junk in ("\x1b[2J\x1b[31m8/5", "8/5\x07\x00", "\x9b1;1H13/8"):
        with pytest.raises(InvalidMoveError) as err:
            await table.services.games.submit(table.game_id, table.mover.id, junk, table.version)
        readable(str(err.value))
    await table.unchanged()


async def test_a_move_with_a_stale_version_gets_the_game_again(table: Table) -> None:
    with pytest.raises(StaleVersionError) as err:
        await table.services.games.submit(
            table.game_id, table.mover.id, table.legal()[0], table.version - 1
        )
    assert err.value.snapshot.info.version == table.version
    assert "changed" in str(err.value)
    await table.unchanged()


async def test_a_move_with_a_version_from_the_future_is_stale(table: Table) -> None:
    with pytest.raises(StaleVersionError):
        await table.services.games.submit(
            table.game_id, table.mover.id, table.legal()[0], table.version + 10**9
        )
    await table.unchanged()


async def test_a_double_submit_at_the_same_moment_plays_the_move_once(table: Table) -> None:
    games = table.services.games
    move = table.legal()[0]
    results = await asyncio.gather(
        *(games.submit(table.game_id, table.mover.id, move, table.version) for _ in range(2)),
        return_exceptions=True,
    )
    won = [r for r in results if isinstance(r, GameSnapshot)]
    lost = [r for r in results if isinstance(r, Exception)]
    assert len(won) == 1 and len(lost) == 1
    assert isinstance(lost[0], (StaleVersionError, NotYourTurnError))
    events = await games.events(table.game_id, table.snap.info.last_seq)
    assert sum(e.kind == "move" for e in events) == 1
    assert await games.replay_check(table.game_id) is None


async def test_a_double_submit_after_the_move_landed_is_stale(table: Table) -> None:
    games = table.services.games
    move = table.legal()[0]
    after = await games.submit(table.game_id, table.mover.id, move, table.version)
    with pytest.raises(StaleVersionError) as err:
        await games.submit(table.game_id, table.mover.id, move, table.version)
    assert err.value.snapshot.info.version == after.info.version
    assert (await games.get(table.game_id)).info.version == after.info.version
    assert await games.replay_check(table.game_id) is None


async def test_a_move_after_the_expired_deadline_was_applied_is_refused(
    table: Table, clock: FakeClock
) -> None:
    games = table.services.games
    clock.advance(timedelta(hours=table.snap.info.deadline_hours))
    assert await games.sweep_deadlines() == 1
    lost = await games.get(table.game_id)
    assert lost.info.status == "finished"  # backgammon: the late player loses the match
    with pytest.raises((GameClosedError, StaleVersionError)) as err:
        await games.submit(table.game_id, table.mover.id, table.legal()[0], table.version)
    readable(str(err.value))
    assert (await games.get(table.game_id)).info.version == lost.info.version
    assert await games.sweep_deadlines() == 0
    events = await games.events(table.game_id)
    assert sum(e.payload.get("action") == "timeout" for e in events) == 1
    assert await games.replay_check(table.game_id) is None


async def test_a_move_made_after_the_deadline_but_before_the_sweep_stands(
    table: Table, clock: FakeClock
) -> None:
    games = table.services.games
    clock.advance(timedelta(hours=table.snap.info.deadline_hours, minutes=1))
    after = await games.submit(table.game_id, table.mover.id, table.legal()[0], table.version)
    assert await games.sweep_deadlines() == 0  # the move reset the deadline first
    assert (await games.get(table.game_id)).info.version == after.info.version
    assert await games.replay_check(table.game_id) is None


async def test_a_move_in_a_finished_game_is_refused(table: Table) -> None:
    games = table.services.games
    done = await games.resign(table.game_id, table.waiter.id, table.version)
    assert done.info.status == "finished"
    with pytest.raises(GameClosedError, match="over"):
        await games.submit(table.game_id, table.mover.id, table.legal()[0], done.info.version)
    assert (await games.get(table.game_id)).info.version == done.info.version
    assert await games.replay_check(table.game_id) is None


async def test_a_move_in_a_game_not_started_is_refused(services: Services) -> None:
    alice = await services.accounts.register("Alice", "alice-pw")
    info = await services.games.begin(
        alice.id, "backgammon", {}, [SeatSpec("me"), SeatSpec("open")]
    )
    with pytest.raises(GameClosedError, match="not started"):
        await services.games.submit(info.id, alice.id, "13/11", info.version)
    assert (await services.games.get(info.id)).info.version == info.version


@pytest.mark.parametrize("game_id", [0, -1, 10**12])
async def test_a_move_in_a_game_that_does_not_exist_is_refused(
    table: Table, game_id: int
) -> None:
    with pytest.raises(LobbyError, match="no game"):
        await table.services.games.submit(game_id, table.mover.id, "13/11", 1)
    await table.unchanged()


async def test_an_illegal_spectrangle_placement_names_the_rule(services: Services) -> None:
    t = await start_table(services, "spectrangle")
    games = services.games
    with pytest.raises(ValueError) as err:
        await games.submit(t.game_id, t.mover.id, "place nothing nowhere", t.version)
    readable(str(err.value))
    with pytest.raises((IllegalMoveError, InvalidMoveError)) as err2:
        await games.submit(t.game_id, t.mover.id, "99", t.version)
    readable(str(err2.value))
    await t.unchanged()
    legal = t.legal()[0]
    assert (await games.submit(t.game_id, t.mover.id, legal, t.version)).info.version > t.version


# --- the lobby: bad requests to begin and join ------------------------------------------------


async def game_count(services: Services) -> int:
    return int(
        await services.db.run_sync(lambda c: c.execute(text("SELECT count(*) FROM games")).scalar_one())
    )


@pytest.mark.parametrize(
    ("options", "hours", "reason"),
    [
        ({"match_length": "5'; DROP TABLE games;--"}, 24, "match_length"),
        ({"match_length": -3}, 24, "match_length"),
        ({"match_length": 10**9}, 24, "match_length"),
        ({"colour": "\x1b[31mred"}, 24, "unknown backgammon option"),
        ({}, 0, "deadline"),
        ({}, -24, "deadline"),
        ({}, 10**9, "deadline"),
    ],
)
async def test_a_game_with_bad_options_is_refused_and_nothing_is_created(
    services: Services, options: dict[str, Any], hours: int, reason: str
) -> None:
    alice = await services.accounts.register("Alice", "alice-pw")
    with pytest.raises(LobbyError, match=reason) as err:
        await services.games.begin(
            alice.id, "backgammon", options, [SeatSpec("me"), SeatSpec("open")], hours
        )
    readable(str(err.value))
    assert await game_count(services) == 0


async def test_a_seat_for_a_player_who_does_not_exist_is_refused(services: Services) -> None:
    alice = await services.accounts.register("Alice", "alice-pw")
    with pytest.raises(LobbyError, match="no player called") as err:
        await services.games.begin(
            alice.id, "backgammon", {}, [SeatSpec("me"), SeatSpec("user", "' OR 1=1 --")]
        )
    readable(str(err.value))
    assert await game_count(services) == 0


async def test_joining_a_full_game_or_twice_is_refused(table: Table) -> None:
    games = table.services.games
    with pytest.raises(LobbyError, match="not open"):
        await games.join(table.game_id, table.watcher.id)
    with pytest.raises(LobbyError):
        await games.join(table.game_id, table.mover.id)
    await table.unchanged()


async def test_an_unknown_game_kind_is_refused(services: Services) -> None:
    alice = await services.accounts.register("Alice", "alice-pw")
    with pytest.raises(LobbyError, match="no game called"):
        await services.games.begin(alice.id, "chess'; --", {}, [SeatSpec("me"), SeatSpec("open")])
    assert await game_count(services) == 0
