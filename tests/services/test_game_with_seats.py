"""``queries.game_with_seats`` (one statement on SQLite) reads what ``game_row`` and
``seat_rows`` read separately, on both backends."""

from __future__ import annotations

from typing import Any

from door.services.games import GameService, SeatSpec
from door.store import queries as q
from door.store.db import Database


def plain(row: Any) -> dict[str, Any]:
    return dict(row._mapping)


async def both_ways(db: Database, game_id: int) -> tuple[Any, Any]:
    def read(conn: Any) -> tuple[Any, Any]:
        game, seats = q.game_with_seats(conn, game_id)
        apart = (q.game_row(conn, game_id), q.seat_rows(conn, game_id))
        together = (game, seats)
        return together, apart

    return await db.run_read(read)


async def test_a_game_and_its_mixed_seats_read_the_same_in_one_statement(
    db: Database, games: GameService, alice: Any, bob: Any, carol: Any
) -> None:
    info = await games.begin(
        alice.id,
        "nim",
        {},
        [SeatSpec("me"), SeatSpec("open"), SeatSpec("user", "Carol"), SeatSpec("bot", "nim-bot")],
    )
    await games.join(info.id, bob.id)
    (game, seats), (game_apart, seats_apart) = await both_ways(db, info.id)
    assert plain(game) == plain(game_apart)
    assert [plain(s) for s in seats] == [plain(s) for s in seats_apart]
    assert [s.user_name for s in seats] == ["Alice", "Bob", "Carol", "nim-bot"]


async def test_a_missing_game_reads_as_none_and_no_seats(db: Database) -> None:
    (game, seats), (game_apart, seats_apart) = await both_ways(db, 987654)
    assert game is None and seats == []
    assert game_apart is None and seats_apart == []
