"""Queries the services run, on an open connection (SQLAlchemy Core).

Every function takes an ``AsyncConnection`` from ``Database.read()`` / ``write()`` /
``transact()`` and returns plain values or rows with attribute access; the services turn
them into their dataclasses. ``IntegrityError`` is re-exported so the services can catch
a lost uniqueness race without importing SQLAlchemy.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Table, and_, delete, func, insert, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection

from door.store.models import (
    BbsIdentityRow,
    GameEventRow,
    GameRow,
    RatingRow,
    SeatRow,
    SshKeyRow,
    UserRow,
)

__all__ = ["IntegrityError"]

users: Table = UserRow.__table__  # type: ignore[assignment]
ssh_keys: Table = SshKeyRow.__table__  # type: ignore[assignment]
bbs_identities: Table = BbsIdentityRow.__table__  # type: ignore[assignment]
games: Table = GameRow.__table__  # type: ignore[assignment]
seats: Table = SeatRow.__table__  # type: ignore[assignment]
game_events: Table = GameEventRow.__table__  # type: ignore[assignment]
ratings: Table = RatingRow.__table__  # type: ignore[assignment]

Row = Any


# --- users -----------------------------------------------------------------------------


async def user_row(conn: AsyncConnection, user_id: int) -> Row | None:
    return (await conn.execute(select(users).where(users.c.id == user_id))).first()


async def user_row_by_key(conn: AsyncConnection, key: str) -> Row | None:
    return (await conn.execute(select(users).where(users.c.name_key == key))).first()


async def user_names(conn: AsyncConnection, ids: Iterable[int]) -> dict[int, str]:
    wanted = set(ids)
    if not wanted:
        return {}
    rows = await conn.execute(select(users.c.id, users.c.name).where(users.c.id.in_(wanted)))
    return {r.id: r.name for r in rows}


async def insert_user(
    conn: AsyncConnection,
    name: str,
    key: str,
    password_hash: str | None,
    is_bot: bool,
    now: datetime,
    settings: dict[str, Any],
) -> int:
    result = await conn.execute(
        insert(users)
        .values(
            name=name,
            name_key=key,
            password_hash=password_hash,
            is_sysop=False,
            is_banned=False,
            is_bot=is_bot,
            settings=settings,
            created_at=now,
            last_login_at=None,
        )
        .returning(users.c.id)
    )
    return int(result.scalar_one())


async def update_user(conn: AsyncConnection, user_id: int, **values: Any) -> None:
    await conn.execute(update(users).where(users.c.id == user_id).values(**values))


# --- SSH keys and BBS identities -------------------------------------------------------------


async def key_owner(conn: AsyncConnection, fingerprint: str) -> int | None:
    result = await conn.execute(
        select(ssh_keys.c.user_id).where(ssh_keys.c.fingerprint == fingerprint)
    )
    value = result.scalar_one_or_none()
    return None if value is None else int(value)


async def insert_key(
    conn: AsyncConnection,
    user_id: int,
    fingerprint: str,
    key_type: str,
    data: str,
    comment: str,
    now: datetime,
) -> None:
    await conn.execute(
        insert(ssh_keys).values(
            user_id=user_id,
            fingerprint=fingerprint,
            key_type=key_type,
            key_data=data,
            comment=comment,
            created_at=now,
        )
    )


async def key_rows(conn: AsyncConnection, user_id: int) -> Sequence[Row]:
    result = await conn.execute(
        select(ssh_keys).where(ssh_keys.c.user_id == user_id).order_by(ssh_keys.c.id)
    )
    return result.all()


async def delete_key(conn: AsyncConnection, user_id: int, fingerprint: str) -> bool:
    result = await conn.execute(
        delete(ssh_keys).where(
            and_(ssh_keys.c.user_id == user_id, ssh_keys.c.fingerprint == fingerprint)
        )
    )
    return bool(result.rowcount)


async def bbs_identity_user(conn: AsyncConnection, tag: str, alias_key: str) -> int | None:
    result = await conn.execute(
        select(bbs_identities.c.user_id).where(
            and_(bbs_identities.c.tag == tag, bbs_identities.c.alias_key == alias_key)
        )
    )
    value = result.scalar_one_or_none()
    return None if value is None else int(value)


async def insert_bbs_identity(
    conn: AsyncConnection, tag: str, alias: str, alias_key: str, user_id: int, now: datetime
) -> None:
    await conn.execute(
        insert(bbs_identities).values(
            tag=tag, alias=alias, alias_key=alias_key, user_id=user_id, created_at=now
        )
    )


# --- games -------------------------------------------------------------------------------


async def insert_game(conn: AsyncConnection, **values: Any) -> int:
    result = await conn.execute(insert(games).values(**values).returning(games.c.id))
    return int(result.scalar_one())


async def game_row(conn: AsyncConnection, game_id: int) -> Row | None:
    return (await conn.execute(select(games).where(games.c.id == game_id))).first()


async def game_rows(conn: AsyncConnection, ids: Sequence[int]) -> list[Row]:
    if not ids:
        return []
    rows = (await conn.execute(select(games).where(games.c.id.in_(ids)))).all()
    by_id = {r.id: r for r in rows}
    return [by_id[i] for i in ids if i in by_id]


async def update_game_versioned(
    conn: AsyncConnection, game_id: int, expected_version: int, **values: Any
) -> bool:
    """The optimistic lock: update only if nobody else bumped ``version`` first."""
    result = await conn.execute(
        update(games)
        .where(and_(games.c.id == game_id, games.c.version == expected_version))
        .values(version=expected_version + 1, **values)
    )
    return result.rowcount == 1


async def insert_seats(conn: AsyncConnection, rows: list[dict[str, Any]]) -> None:
    await conn.execute(insert(seats), rows)


async def seat_rows(conn: AsyncConnection, game_id: int) -> list[Row]:
    result = await conn.execute(
        select(seats).where(seats.c.game_id == game_id).order_by(seats.c.seat)
    )
    return list(result.all())


async def seat_rows_for(conn: AsyncConnection, game_ids: Sequence[int]) -> dict[int, list[Row]]:
    out: dict[int, list[Row]] = {g: [] for g in game_ids}
    if not game_ids:
        return out
    result = await conn.execute(
        select(seats).where(seats.c.game_id.in_(game_ids)).order_by(seats.c.game_id, seats.c.seat)
    )
    for r in result:
        out[r.game_id].append(r)
    return out


async def update_seat(conn: AsyncConnection, game_id: int, seat: int, **values: Any) -> None:
    await conn.execute(
        update(seats).where(and_(seats.c.game_id == game_id, seats.c.seat == seat)).values(**values)
    )


async def mark_seen(conn: AsyncConnection, game_id: int, user_id: int, seq: int) -> int:
    result = await conn.execute(
        update(seats)
        .where(
            and_(
                seats.c.game_id == game_id,
                seats.c.user_id == user_id,
                seats.c.last_seen_seq < seq,
            )
        )
        .values(last_seen_seq=seq)
    )
    return int(result.rowcount)


async def insert_events(conn: AsyncConnection, rows: list[dict[str, Any]]) -> None:
    if rows:
        await conn.execute(insert(game_events), rows)


async def event_rows(conn: AsyncConnection, game_id: int, since_seq: int = 0) -> list[Row]:
    result = await conn.execute(
        select(game_events)
        .where(and_(game_events.c.game_id == game_id, game_events.c.seq > since_seq))
        .order_by(game_events.c.seq)
    )
    return list(result.all())


async def all_game_ids(conn: AsyncConnection) -> list[int]:
    return [int(r[0]) for r in await conn.execute(select(games.c.id).order_by(games.c.id))]


def _list_filter(which: str, user_id: int | None, kind: str | None) -> Any:
    conds: list[Any] = []
    mine = select(seats.c.game_id).where(seats.c.user_id == user_id)
    if which == "open":
        has_seat = select(seats.c.game_id).where(
            or_(
                seats.c.kind == "open",
                and_(seats.c.kind == "reserved", seats.c.user_id == user_id),
            )
        )
        conds.append(games.c.status == "open")
        conds.append(games.c.id.in_(has_seat))
        if user_id is not None:
            conds.append(
                games.c.id.not_in(
                    select(seats.c.game_id).where(
                        and_(seats.c.user_id == user_id, seats.c.kind == "user")
                    )
                )
            )
    elif which == "active":
        conds.append(games.c.status == "active")
    elif which == "mine":
        conds.append(games.c.status.in_(("open", "active")))
        conds.append(games.c.id.in_(mine.where(seats.c.kind == "user")))
    elif which == "waiting":
        conds.append(games.c.status == "active")
        conds.append(
            games.c.id.in_(
                select(seats.c.game_id).where(
                    and_(
                        seats.c.user_id == user_id,
                        seats.c.kind.in_(("user", "bot")),
                        seats.c.seat == games.c.to_act,
                        seats.c.game_id == games.c.id,
                    )
                )
            )
        )
    elif which == "finished":
        conds.append(games.c.status.in_(("finished", "abandoned")))
        if user_id is not None:
            conds.append(games.c.id.in_(mine))
    else:
        raise ValueError(f"unknown list {which!r}")
    if kind is not None:
        conds.append(games.c.kind == kind)
    return and_(*conds)


async def list_game_ids(
    conn: AsyncConnection,
    which: str,
    user_id: int | None,
    kind: str | None,
    offset: int,
    limit: int,
) -> tuple[list[int], int]:
    cond = _list_filter(which, user_id, kind)
    count = select(func.count()).select_from(games).where(cond)
    total = int((await conn.execute(count)).scalar_one())
    if which == "finished":
        order: list[Any] = [games.c.updated_at.desc(), games.c.id.desc()]
    elif which == "waiting":
        order = [games.c.deadline.asc(), games.c.id]
    else:
        order = [games.c.updated_at.desc(), games.c.id.desc()]
    result = await conn.execute(
        select(games.c.id).where(cond).order_by(*order).offset(offset).limit(limit)
    )
    return [int(r[0]) for r in result], total


async def overdue_games(conn: AsyncConnection, now: datetime, limit: int = 500) -> list[Row]:
    result = await conn.execute(
        select(games.c.id, games.c.version)
        .where(and_(games.c.status == "active", games.c.deadline <= now))
        .order_by(games.c.deadline)
        .limit(limit)
    )
    return list(result.all())


async def my_seat_rows(conn: AsyncConnection, user_id: int) -> list[Row]:
    """The user's seats with their game's status, to_act and last_seq."""
    result = await conn.execute(
        select(
            seats.c.game_id,
            seats.c.seat,
            seats.c.last_seen_seq,
            games.c.status,
            games.c.to_act,
            games.c.last_seq,
        )
        .join(games, games.c.id == seats.c.game_id)
        .where(and_(seats.c.user_id == user_id, seats.c.kind.in_(("user", "bot"))))
    )
    return list(result.all())


async def count_unseen_moves(
    conn: AsyncConnection, game_id: int, my_seat: int, since_seq: int
) -> tuple[int, int]:
    """(moves by other seats, all events) after ``since_seq``."""
    result = await conn.execute(
        select(game_events.c.kind, game_events.c.seat).where(
            and_(game_events.c.game_id == game_id, game_events.c.seq > since_seq)
        )
    )
    moves = total = 0
    for r in result:
        total += 1
        if r.kind == "move" and r.seat is not None and r.seat != my_seat:
            moves += 1
    return moves, total


async def set_snapshot(conn: AsyncConnection, game_id: int, snapshot: str) -> None:
    """Overwrite a snapshot without touching the version (tests of ``door check`` only)."""
    await conn.execute(update(games).where(games.c.id == game_id).values(snapshot=snapshot))


# --- ratings -------------------------------------------------------------------------------


async def rating_rows(conn: AsyncConnection, kind: str, user_ids: Sequence[int]) -> dict[int, Row]:
    if not user_ids:
        return {}
    result = await conn.execute(
        select(ratings).where(and_(ratings.c.kind == kind, ratings.c.user_id.in_(user_ids)))
    )
    return {r.user_id: r for r in result}


async def save_rating(
    conn: AsyncConnection,
    user_id: int,
    kind: str,
    rating: float,
    experience: int,
    wins: int,
    losses: int,
    exists: bool,
) -> None:
    values = {"rating": rating, "experience": experience, "wins": wins, "losses": losses}
    if exists:
        await conn.execute(
            update(ratings)
            .where(and_(ratings.c.user_id == user_id, ratings.c.kind == kind))
            .values(**values)
        )
    else:
        await conn.execute(insert(ratings).values(user_id=user_id, kind=kind, **values))


async def rank_rows(
    conn: AsyncConnection, kind: str, offset: int, limit: int, min_experience: int
) -> list[Row]:
    result = await conn.execute(
        select(ratings, users.c.name)
        .join(users, users.c.id == ratings.c.user_id)
        .where(and_(ratings.c.kind == kind, ratings.c.experience >= min_experience))
        .order_by(ratings.c.rating.desc(), ratings.c.experience.desc(), ratings.c.user_id)
        .offset(offset)
        .limit(limit)
    )
    return list(result.all())


async def rating_place(
    conn: AsyncConnection, kind: str, user_id: int, min_experience: int
) -> tuple[Row, int] | None:
    row = (
        await conn.execute(
            select(ratings, users.c.name)
            .join(users, users.c.id == ratings.c.user_id)
            .where(and_(ratings.c.kind == kind, ratings.c.user_id == user_id))
        )
    ).first()
    if row is None or row.experience < min_experience:
        return None
    better = (
        await conn.execute(
            select(func.count())
            .select_from(ratings)
            .where(
                and_(
                    ratings.c.kind == kind,
                    ratings.c.experience >= min_experience,
                    or_(
                        ratings.c.rating > row.rating,
                        and_(
                            ratings.c.rating == row.rating,
                            or_(
                                ratings.c.experience > row.experience,
                                and_(
                                    ratings.c.experience == row.experience,
                                    ratings.c.user_id < user_id,
                                ),
                            ),
                        ),
                    ),
                )
            )
        )
    ).scalar_one()
    return row, int(better) + 1
