"""Queries the services run, on an open connection (SQLAlchemy Core).

Every function takes an ``Connection`` from ``Database.read()`` / ``write()`` /
``transact()`` and returns plain values or rows with attribute access; the services turn
them into their dataclasses. ``IntegrityError`` is re-exported so the services can catch
a lost uniqueness race without importing SQLAlchemy.
"""

from __future__ import annotations

import functools
import json
import sqlite3
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Table, and_, bindparam, case, delete, func, insert, or_, select, update
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError, OperationalError

from door.store.db import RAW_ATTRIBUTE
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


def user_row(conn: Connection, user_id: int) -> Row | None:
    return (conn.execute(select(users).where(users.c.id == user_id))).first()


def user_row_by_key(conn: Connection, key: str) -> Row | None:
    return (conn.execute(select(users).where(users.c.name_key == key))).first()


def user_names(conn: Connection, ids: Iterable[int]) -> dict[int, str]:
    wanted = set(ids)
    if not wanted:
        return {}
    rows = conn.execute(select(users.c.id, users.c.name).where(users.c.id.in_(wanted)))
    return {r.id: r.name for r in rows}


def insert_user(
    conn: Connection,
    name: str,
    key: str,
    password_hash: str | None,
    is_bot: bool,
    now: datetime,
    settings: dict[str, Any],
) -> int:
    result = conn.execute(
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


def update_user(conn: Connection, user_id: int, **values: Any) -> None:
    conn.execute(update(users).where(users.c.id == user_id).values(**values))


# --- SSH keys and BBS identities -------------------------------------------------------------


def key_owner(conn: Connection, fingerprint: str) -> int | None:
    result = conn.execute(
        select(ssh_keys.c.user_id).where(ssh_keys.c.fingerprint == fingerprint)
    )
    value = result.scalar_one_or_none()
    return None if value is None else int(value)


def insert_key(
    conn: Connection,
    user_id: int,
    fingerprint: str,
    key_type: str,
    data: str,
    comment: str,
    now: datetime,
) -> None:
    conn.execute(
        insert(ssh_keys).values(
            user_id=user_id,
            fingerprint=fingerprint,
            key_type=key_type,
            key_data=data,
            comment=comment,
            created_at=now,
        )
    )


def key_rows(conn: Connection, user_id: int) -> Sequence[Row]:
    result = conn.execute(
        select(ssh_keys).where(ssh_keys.c.user_id == user_id).order_by(ssh_keys.c.id)
    )
    return result.all()


def delete_key(conn: Connection, user_id: int, fingerprint: str) -> bool:
    result = conn.execute(
        delete(ssh_keys).where(
            and_(ssh_keys.c.user_id == user_id, ssh_keys.c.fingerprint == fingerprint)
        )
    )
    return bool(result.rowcount)


def bbs_identity_user(conn: Connection, tag: str, alias_key: str) -> int | None:
    result = conn.execute(
        select(bbs_identities.c.user_id).where(
            and_(bbs_identities.c.tag == tag, bbs_identities.c.alias_key == alias_key)
        )
    )
    value = result.scalar_one_or_none()
    return None if value is None else int(value)


def insert_bbs_identity(
    conn: Connection, tag: str, alias: str, alias_key: str, user_id: int, now: datetime
) -> None:
    conn.execute(
        insert(bbs_identities).values(
            tag=tag, alias=alias, alias_key=alias_key, user_id=user_id, created_at=now
        )
    )


# --- games -------------------------------------------------------------------------------


def insert_game(conn: Connection, **values: Any) -> int:
    result = conn.execute(insert(games).values(**values).returning(games.c.id))
    return int(result.scalar_one())


# --- the hot path -----------------------------------------------------------------------
#
# One move is: load the game and its seats, versioned update, append events. On PostgreSQL
# these use statements built once and reused with bound parameters (building a statement
# and its cache key costs more than running it). On SQLite they go straight to the sqlite3
# connection under the SQLAlchemy one, inside the same transaction: SQLAlchemy's per-
# statement overhead is several times SQLite's own cost, and this path is what decides
# how many moves a second one server can commit. The values are stored exactly as
# SQLAlchemy stores them (JSON text; naive-UTC "YYYY-MM-DD HH:MM:SS.ffffff" times), so
# both paths read each other's rows; the service tests run on both backends.

_GAME_COLUMNS = (
    "id, kind, options, status, snapshot, version, to_act, deadline, deadline_hours, "
    "hints_allowed, created_by, created_at, updated_at, finished_at, summary, outcome, last_seq"
)
_GAME_SELECT = f"SELECT {_GAME_COLUMNS} FROM games WHERE id = ?"
_SEATS_SELECT = (
    "SELECT s.game_id, s.seat, s.kind, s.user_id, s.bot_level, s.timeouts, s.last_seen_seq, "
    "u.name AS user_name FROM seats AS s LEFT OUTER JOIN users AS u ON u.id = s.user_id "
    "WHERE s.game_id = ? ORDER BY s.seat"
)
_EVENT_INSERT = (
    "INSERT INTO game_events (game_id, seq, seat, kind, payload, created_at) "
    "VALUES (?, ?, ?, ?, ?, ?)"
)
_GAME_JSON = frozenset({"options", "outcome"})
_GAME_TIMES = frozenset({"deadline", "created_at", "updated_at", "finished_at"})
_GAME_BOOLS = frozenset({"hints_allowed"})


class RawRow:
    """A row read (or written) without SQLAlchemy, with a result row's attribute access.

    The values live in the instance ``__dict__``, so reading one is a plain attribute
    lookup (a ``__getattr__`` fallback costs a failed lookup and an exception each time,
    which added up to a tenth of a move's cost).
    """

    def __init__(self, values: Mapping[str, Any] | Iterable[tuple[str, Any]]) -> None:
        self.__dict__.update(values)

    @property
    def _mapping(self) -> dict[str, Any]:
        return self.__dict__

    def __getitem__(self, name: str) -> Any:
        return self.__dict__[name]

    def __repr__(self) -> str:
        return f"RawRow({self.__dict__!r})"


def _raw(conn: Connection) -> Any | None:
    """The sqlite3 connection under ``conn``, when the SQLite fast path applies."""
    # The event loop's own connection carries it (``Database._open_here``): every move's
    # statements come through here, and the dialect checks and the pool proxies behind
    # ``driver_connection`` cost more than a cached attribute.
    raw = getattr(conn, RAW_ATTRIBUTE, None)
    if raw is not None:
        return raw
    if conn.dialect.name != "sqlite" or conn.dialect.driver != "pysqlite":
        return None
    return conn.connection.driver_connection


class _Translated:
    """Raise sqlite3's errors as SQLAlchemy's, as the slow path would (a class rather
    than a generator-based context manager: this wraps every hot-path statement)."""

    __slots__ = ()

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: Any, exc: BaseException | None, tb: Any) -> None:
        if isinstance(exc, sqlite3.IntegrityError):
            raise IntegrityError("(sqlite fast path)", None, exc) from exc
        if isinstance(exc, sqlite3.OperationalError):
            raise OperationalError("(sqlite fast path)", None, exc) from exc


@functools.cache
def _translated() -> _Translated:
    return _Translated()


def _dt_to_sqlite(value: datetime | None) -> str | None:
    if value is None:
        return None
    if value.tzinfo is None:
        raise ValueError("naive datetime given to a UTC column")
    return _utc_text(value)


# A move writes the same instant several times (updated_at, each event's created_at) and
# reads back the times it wrote: converting each once saves a tenth of a move's Python.
@functools.lru_cache(maxsize=512)
def _utc_text(value: datetime) -> str:
    # the text SQLAlchemy's SQLite DATETIME writes: "YYYY-MM-DD HH:MM:SS.ffffff"
    if value.tzinfo is UTC:
        # already UTC (every clock's time is): the zone suffix "+00:00" follows the
        # fixed-width 26 characters (isoformat pads the year to four digits)
        return value.isoformat(" ", "microseconds")[:26]
    return value.astimezone(UTC).replace(tzinfo=None).isoformat(" ", "microseconds")


@functools.cache
def _json_dumps() -> Callable[[Any], str]:
    """``json.dumps`` with its default arguments, without building a new encoder on
    every call (which is most of what ``json.dumps`` costs for a small payload)."""
    from json import encoder as std

    make = getattr(std, "c_make_encoder", None)
    if make is None:
        return json.dumps
    ascii_text = std.encode_basestring_ascii
    encode = make(None, std.JSONEncoder().default, ascii_text, None, ": ", ", ", False, False, True)

    def dumps(value: Any) -> str:
        if isinstance(value, str):
            return ascii_text(value)
        return "".join(encode(value, 0))

    return dumps


@functools.lru_cache(maxsize=2048)
def _dt_from_text(value: str) -> datetime:
    return datetime.fromisoformat(value).replace(tzinfo=UTC)


def _dt_from_sqlite(value: str | None) -> datetime | None:
    if value is None:
        return None
    return _dt_from_text(value)


@functools.lru_cache(maxsize=1024)
def _known_json(text: str) -> tuple[str, Any]:
    """How to give ``text`` parsed again: ("same", value) for a value nobody can change
    (SQLAlchemy's JSON columns store None as ``null``), ("copy", value) for an object of
    plain values (a game's options), ("parse", None) for anything deeper."""
    value = json.loads(text)
    if value is None or isinstance(value, str | int | float | bool):
        return "same", value
    if isinstance(value, dict) and all(
        v is None or isinstance(v, str | int | float | bool) for v in value.values()
    ):
        return "copy", value
    return "parse", None


def _json_from_sqlite(text: str) -> Any:
    # Options and ``null`` repeat from game to game: a shallow copy of a flat object
    # parsed before is a fifth of the cost of parsing it again, and the caller still owns
    # what it gets.
    how, value = _known_json(text)
    if how == "same":
        return value
    if how == "copy":
        return dict(value)
    return json.loads(text)


def _column(name: str) -> str:
    if name not in games.c:
        raise ValueError(f"games has no column {name!r}")
    return name


@functools.lru_cache(maxsize=64)
def _versioned_update_sql(names: tuple[str, ...]) -> str:
    columns = ", ".join(f"{_column(k)} = ?" for k in (*names, "version"))
    return f"UPDATE games SET {columns} WHERE id = ? AND version = ?"


def _json_or_null(value: Any) -> str | None:
    return None if value is None else _json_dumps()(value)


def _bool_to_sqlite(value: Any) -> int:
    return int(bool(value))


@functools.cache
def _game_to_sqlite() -> dict[str, Callable[[Any], Any]]:
    """How a games column's value is stored on SQLite, for the columns that need it."""
    out: dict[str, Callable[[Any], Any]] = {}
    for name in _GAME_TIMES:
        out[name] = _dt_to_sqlite
    for name in _GAME_JSON:
        out[name] = _json_or_null
    for name in _GAME_BOOLS:
        out[name] = _bool_to_sqlite
    return out


def _game_from_raw(values: Sequence[Any]) -> RawRow:
    """A games row from the values of ``_GAME_COLUMNS``, in that order (every game list
    reads a page of these: one unpacking instead of per-column name lookups)."""
    (
        id_,
        kind,
        options,
        status,
        snapshot,
        version,
        to_act,
        deadline,
        deadline_hours,
        hints_allowed,
        created_by,
        created_at,
        updated_at,
        finished_at,
        summary,
        outcome,
        last_seq,
    ) = values
    return RawRow(
        {
            "id": id_,
            "kind": kind,
            "options": None if options is None else _json_from_sqlite(options),
            "status": status,
            "snapshot": snapshot,
            "version": version,
            "to_act": to_act,
            "deadline": _dt_from_sqlite(deadline),
            "deadline_hours": deadline_hours,
            "hints_allowed": bool(hints_allowed),
            "created_by": created_by,
            "created_at": _dt_from_sqlite(created_at),
            "updated_at": _dt_from_sqlite(updated_at),
            "finished_at": _dt_from_sqlite(finished_at),
            "summary": summary,
            "outcome": None if outcome is None else _json_from_sqlite(outcome),
            "last_seq": last_seq,
        }
    )


@functools.cache
def _game_by_id() -> Any:
    return select(games).where(games.c.id == bindparam("gid"))


@functools.cache
def _seats_of_game() -> Any:
    return _seats_named().where(seats.c.game_id == bindparam("gid")).order_by(seats.c.seat)


@functools.cache
def _versioned_update() -> Any:
    return update(games).where(
        and_(games.c.id == bindparam("w_id"), games.c.version == bindparam("w_version"))
    )


@functools.cache
def _insert_events() -> Any:
    return insert(game_events)


def game_row(conn: Connection, game_id: int) -> Row | None:
    raw = _raw(conn)
    if raw is not None:
        with _translated():
            cur = raw.execute(_GAME_SELECT, (game_id,))
            found = cur.fetchone()
        return None if found is None else _game_from_raw(found)
    return conn.execute(_game_by_id(), {"gid": game_id}).first()


def game_rows(conn: Connection, ids: Sequence[int]) -> list[Row]:
    if not ids:
        return []
    raw = _raw(conn)
    if raw is not None:
        # The game lists' hot path (every tab switch, every return to a menu).
        marks = ", ".join("?" * len(ids))
        with _translated():
            cur = raw.execute(
                f"SELECT {_GAME_COLUMNS} FROM games WHERE id IN ({marks})", tuple(ids)
            )
            found = cur.fetchall()
        read: list[Any] = [_game_from_raw(v) for v in found]
        by_raw = {r.id: r for r in read}
        return [by_raw[i] for i in ids if i in by_raw]
    rows = (conn.execute(select(games).where(games.c.id.in_(ids)))).all()
    by_id = {r.id: r for r in rows}
    return [by_id[i] for i in ids if i in by_id]


def update_game_versioned(
    conn: Connection, game_id: int, expected_version: int, **values: Any
) -> bool:
    """The optimistic lock: update only if nobody else bumped ``version`` first."""
    return save_game(conn, game_id, expected_version, values)


def save_game(
    conn: Connection, game_id: int, expected_version: int, values: Mapping[str, Any]
) -> bool:
    """``update_game_versioned`` with the new column values in a mapping (which is
    not kept or changed): sets them and ``version = expected_version + 1`` only if
    ``version`` is still ``expected_version``; False if it is not."""
    raw = _raw(conn)
    if raw is not None:
        if "version" in values:  # the lock sets it, as ever
            values = {k: v for k, v in values.items() if k != "version"}
        convert = _game_to_sqlite()
        sql = _versioned_update_sql(tuple(values))
        args = [v if (f := convert.get(k)) is None else f(v) for k, v in values.items()]
        args += (expected_version + 1, game_id, expected_version)
        with _translated():
            cur = raw.execute(sql, args)
        return bool(cur.rowcount == 1)
    params = {"w_id": game_id, "w_version": expected_version, "version": expected_version + 1}
    params.update(values)
    result = conn.execute(_versioned_update(), params)
    return result.rowcount == 1


def insert_seats(conn: Connection, rows: list[dict[str, Any]]) -> None:
    conn.execute(insert(seats), rows)


def _seats_named() -> Any:
    """Seats with the seated (or expected) user's name as ``user_name``."""
    return select(seats, users.c.name.label("user_name")).outerjoin(
        users, users.c.id == seats.c.user_id
    )


def seat_rows(conn: Connection, game_id: int) -> list[Row]:
    raw = _raw(conn)
    if raw is not None:
        with _translated():
            cur = raw.execute(_SEATS_SELECT, (game_id,))
            names = [d[0] for d in cur.description]
            return [RawRow(zip(names, r, strict=True)) for r in cur.fetchall()]
    return list(conn.execute(_seats_of_game(), {"gid": game_id}).all())


@functools.cache
def _game_with_seats_sql() -> tuple[str, int]:
    """One statement for a game row and its seats (the seat columns under the names
    ``seat_rows`` gives them, prefixed ``s_``), and how many game columns lead each row."""
    game_cols = [c.strip() for c in _GAME_COLUMNS.split(",")]
    sql = (
        "SELECT " + ", ".join(f"g.{c}" for c in game_cols) + ", "
        "s.game_id AS s_game_id, s.seat AS s_seat, s.kind AS s_kind, s.user_id AS s_user_id, "
        "s.bot_level AS s_bot_level, s.timeouts AS s_timeouts, "
        "s.last_seen_seq AS s_last_seen_seq, u.name AS s_user_name "
        "FROM games AS g LEFT OUTER JOIN seats AS s ON s.game_id = g.id "
        "LEFT OUTER JOIN users AS u ON u.id = s.user_id WHERE g.id = ? ORDER BY s.seat"
    )
    return sql, len(game_cols)


def game_with_seats(conn: Connection, game_id: int) -> tuple[Row | None, list[Row]]:
    """``(game_row, seat_rows)`` of one game; on SQLite in one statement (every action
    on a game starts here, and a statement costs more than the join)."""
    raw = _raw(conn)
    if raw is None:
        return game_row(conn, game_id), seat_rows(conn, game_id)
    sql, n = _game_with_seats_sql()
    with _translated():
        cur = raw.execute(sql, (game_id,))
        found = cur.fetchall()
    if not found:
        return None, []
    names = [d[0] for d in cur.description]
    game = _game_from_raw(found[0][:n])
    seat_names = [name[2:] for name in names[n:]]
    seats_: list[Row] = [
        RawRow(zip(seat_names, values[n:], strict=True))
        for values in found
        if values[n] is not None
    ]
    return game, seats_


def seat_rows_for(conn: Connection, game_ids: Sequence[int]) -> dict[int, list[Row]]:
    out: dict[int, list[Row]] = {g: [] for g in game_ids}
    if not game_ids:
        return out
    raw = _raw(conn)
    if raw is not None:
        marks = ", ".join("?" * len(game_ids))
        sql = _SEATS_SELECT.replace(
            "WHERE s.game_id = ? ORDER BY s.seat",
            f"WHERE s.game_id IN ({marks}) ORDER BY s.game_id, s.seat",
        )
        with _translated():
            cur = raw.execute(sql, tuple(game_ids))
            names = [d[0] for d in cur.description]
            for values in cur.fetchall():
                row: Any = RawRow(zip(names, values, strict=True))
                out[row.game_id].append(row)
        return out
    result = conn.execute(
        _seats_named()
        .where(seats.c.game_id.in_(game_ids))
        .order_by(seats.c.game_id, seats.c.seat)
    )
    for r in result:
        out[r.game_id].append(r)
    return out


def update_seat(conn: Connection, game_id: int, seat: int, **values: Any) -> None:
    conn.execute(
        update(seats).where(and_(seats.c.game_id == game_id, seats.c.seat == seat)).values(**values)
    )


def mark_seen(conn: Connection, game_id: int, user_id: int, seq: int) -> int:
    raw = _raw(conn)
    if raw is not None:
        # every look at a board marks it seen (the SQLAlchemy statement cost more than
        # the whole transaction around it)
        with _translated():
            cur = raw.execute(
                "UPDATE seats SET last_seen_seq = ? "
                "WHERE game_id = ? AND user_id = ? AND last_seen_seq < ?",
                (seq, game_id, user_id, seq),
            )
        return int(cur.rowcount)
    result = conn.execute(
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


def insert_events(conn: Connection, rows: list[dict[str, Any]]) -> None:
    if not rows:
        return
    raw = _raw(conn)
    if raw is not None:
        dumps = _json_dumps()
        args = [
            (
                r["game_id"],
                r["seq"],
                r["seat"],
                r["kind"],
                dumps(r["payload"]),
                _dt_to_sqlite(r["created_at"]),
            )
            for r in rows
        ]
        with _translated():
            raw.executemany(_EVENT_INSERT, args)
        return
    conn.execute(_insert_events(), rows)


def append_events(
    conn: Connection,
    game_id: int,
    first_seq: int,
    items: Sequence[tuple[int | None, str, dict[str, Any]]],
    now: datetime,
) -> None:
    """Insert ``(seat, kind, payload)`` events numbered from ``first_seq``, all made at
    ``now`` (the rows ``insert_events`` would write, without a dict per row)."""
    if not items:
        return
    raw = _raw(conn)
    if raw is not None:
        dumps = _json_dumps()
        when = _dt_to_sqlite(now)
        args = [
            (game_id, seq, seat, kind, dumps(payload), when)
            for seq, (seat, kind, payload) in enumerate(items, first_seq)
        ]
        with _translated():
            raw.executemany(_EVENT_INSERT, args)
        return
    rows = [
        {
            "game_id": game_id,
            "seq": seq,
            "seat": seat,
            "kind": kind,
            "payload": payload,
            "created_at": now,
        }
        for seq, (seat, kind, payload) in enumerate(items, first_seq)
    ]
    conn.execute(_insert_events(), rows)


def event_rows(conn: Connection, game_id: int, since_seq: int = 0) -> list[Row]:
    raw = _raw(conn)
    if raw is not None:
        # a board screen reads the whole log when it opens (replay, last move shown)
        with _translated():
            found = raw.execute(
                "SELECT game_id, seq, seat, kind, payload, created_at FROM game_events "
                "WHERE game_id = ? AND seq > ? ORDER BY seq",
                (game_id, since_seq),
            ).fetchall()
        return [_event_from_raw(values) for values in found]
    result = conn.execute(
        select(game_events)
        .where(and_(game_events.c.game_id == game_id, game_events.c.seq > since_seq))
        .order_by(game_events.c.seq)
    )
    return list(result.all())


def _event_from_raw(values: Sequence[Any]) -> RawRow:
    game_id, seq, seat, kind, payload, created_at = values
    return RawRow(
        {
            "game_id": game_id,
            "seq": seq,
            "seat": seat,
            "kind": kind,
            "payload": _json_from_sqlite(payload),
            "created_at": _dt_from_sqlite(created_at),
        }
    )


def all_game_ids(conn: Connection) -> list[int]:
    return [int(r[0]) for r in conn.execute(select(games.c.id).order_by(games.c.id))]


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


def list_game_ids(
    conn: Connection,
    which: str,
    user_id: int | None,
    kind: str | None,
    offset: int,
    limit: int,
) -> tuple[list[int], int]:
    raw = _raw(conn)
    if raw is not None:
        return _list_game_ids_raw(raw, which, user_id, kind, offset, limit)
    return _list_game_ids_core(conn, which, user_id, kind, offset, limit)


def _list_game_ids_core(
    conn: Connection,
    which: str,
    user_id: int | None,
    kind: str | None,
    offset: int,
    limit: int,
) -> tuple[list[int], int]:
    """``list_game_ids`` through SQLAlchemy (PostgreSQL; the reference for SQLite's)."""
    cond = _list_filter(which, user_id, kind)
    count = select(func.count()).select_from(games).where(cond)
    total = int((conn.execute(count)).scalar_one())
    if which == "finished":
        order: list[Any] = [games.c.updated_at.desc(), games.c.id.desc()]
    elif which == "waiting":
        order = [games.c.deadline.asc(), games.c.id]
    else:
        order = [games.c.updated_at.desc(), games.c.id.desc()]
    result = conn.execute(
        select(games.c.id).where(cond).order_by(*order).offset(offset).limit(limit)
    )
    return [int(r[0]) for r in result], total


def _list_game_ids_raw(
    raw: Any, which: str, user_id: int | None, kind: str | None, offset: int, limit: int
) -> tuple[list[int], int]:
    """``list_game_ids`` in plain SQL on SQLite: the same rows as ``_list_filter``
    (building and caching those SQLAlchemy statements cost more than running them).

    The statements are written for SQLite's planner, so that no call's cost grows with
    every game ever played: a user's own lists start from their seats (``+games.status``
    keeps the planner off the status index, which would visit every game of that
    status), the open list checks each open game's seats by primary key, and the other
    lists read ``ix_games_status_updated_at`` newest first and stop at the page's end.
    """
    conds: list[str] = []
    args: list[Any] = []
    source = "games"
    user = "s.user_id IS NULL" if user_id is None else "s.user_id = ?"
    user_args: list[Any] = [] if user_id is None else [user_id]
    if which == "open":
        conds.append("games.status = 'open'")
        conds.append(
            "EXISTS (SELECT 1 FROM seats AS s WHERE s.game_id = games.id AND "
            f"(s.kind = 'open' OR (s.kind = 'reserved' AND {user})))"
        )
        args += user_args
        if user_id is not None:
            conds.append(
                "NOT EXISTS (SELECT 1 FROM seats AS s WHERE s.game_id = games.id "
                "AND s.user_id = ? AND s.kind = 'user')"
            )
            args.append(user_id)
    elif which == "active":
        conds.append("games.status = 'active'")
    elif which == "mine":
        conds.append("+games.status IN ('open', 'active')")
        conds.append(
            f"games.id IN (SELECT s.game_id FROM seats AS s WHERE {user} AND s.kind = 'user')"
        )
        args += user_args
    elif which == "waiting":
        # the seat whose turn it is, of each of the user's seats: (game_id, seat) is the
        # seats' primary key, so the join yields each game at most once
        source = "seats AS s CROSS JOIN games ON games.id = s.game_id"
        conds.append(f"{user} AND s.kind IN ('user', 'bot')")
        args += user_args
        conds.append("games.status = 'active'")
        conds.append("games.to_act = s.seat")
    elif which == "finished":
        if user_id is not None:
            conds.append("+games.status IN ('finished', 'abandoned')")
            conds.append("games.id IN (SELECT s.game_id FROM seats AS s WHERE s.user_id = ?)")
            args.append(user_id)
        else:
            conds.append("games.status IN ('finished', 'abandoned')")
    else:
        raise ValueError(f"unknown list {which!r}")
    if kind is not None:
        conds.append("games.kind = ?")
        args.append(kind)
    where = " AND ".join(conds)
    if which == "waiting":
        order = "games.deadline ASC, games.id"
    else:
        order = "games.updated_at DESC, games.id DESC"
    with _translated():
        total = int(raw.execute(f"SELECT count(*) FROM {source} WHERE {where}", args).fetchone()[0])
        page = raw.execute(
            f"SELECT games.id FROM {source} WHERE {where} ORDER BY {order} LIMIT ? OFFSET ?",
            [*args, limit, offset],
        ).fetchall()
    return [int(r[0]) for r in page], total


def overdue_games(conn: Connection, now: datetime, limit: int = 500) -> list[Row]:
    result = conn.execute(
        select(games.c.id, games.c.version)
        .where(and_(games.c.status == "active", games.c.deadline <= now))
        .order_by(games.c.deadline)
        .limit(limit)
    )
    return list(result.all())


def my_seat_rows(conn: Connection, user_id: int) -> list[Row]:
    """The user's seats with their game's status, to_act and last_seq."""
    result = conn.execute(
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


def count_unseen_moves(
    conn: Connection, game_id: int, my_seat: int, since_seq: int
) -> tuple[int, int]:
    """(moves by other seats, all events) after ``since_seq``."""
    result = conn.execute(
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


_UNSEEN_SQLITE = (
    "SELECT s.game_id, s.seat, s.last_seen_seq, g.status, g.to_act, g.last_seq, "
    "CASE WHEN g.last_seq > s.last_seen_seq THEN (SELECT count(*) FROM game_events AS e "
    "WHERE e.game_id = s.game_id AND e.seq > s.last_seen_seq AND e.kind = 'move' "
    "AND e.seat IS NOT NULL AND e.seat != s.seat) ELSE 0 END AS moves, "
    "CASE WHEN g.last_seq > s.last_seen_seq THEN (SELECT count(*) FROM game_events AS e "
    "WHERE e.game_id = s.game_id AND e.seq > s.last_seen_seq) ELSE 0 END AS events "
    "FROM seats AS s JOIN games AS g ON g.id = s.game_id "
    "WHERE s.user_id = ? AND s.kind IN ('user', 'bot')"
)


@functools.cache
def _unseen_core() -> Any:
    unseen = and_(
        game_events.c.game_id == seats.c.game_id, game_events.c.seq > seats.c.last_seen_seq
    )
    moves = (
        select(func.count())
        .where(
            unseen,
            game_events.c.kind == "move",
            game_events.c.seat.is_not(None),
            game_events.c.seat != seats.c.seat,
        )
        .scalar_subquery()
    )
    events = select(func.count()).where(unseen).scalar_subquery()
    behind = games.c.last_seq > seats.c.last_seen_seq
    return (
        select(
            seats.c.game_id,
            seats.c.seat,
            seats.c.last_seen_seq,
            games.c.status,
            games.c.to_act,
            games.c.last_seq,
            case((behind, moves), else_=0).label("moves"),
            case((behind, events), else_=0).label("events"),
        )
        .join(games, games.c.id == seats.c.game_id)
        .where(and_(seats.c.user_id == bindparam("uid"), seats.c.kind.in_(("user", "bot"))))
    )


def unseen_by_seat(conn: Connection, user_id: int) -> list[Row]:
    """``my_seat_rows`` with, for each seat whose game moved on since it last looked
    (``last_seq > last_seen_seq``), ``count_unseen_moves`` as ``moves`` and ``events``
    (0 and 0 otherwise): what happened in all the user's games, in one statement."""
    raw = _raw(conn)
    if raw is not None:
        with _translated():
            cur = raw.execute(_UNSEEN_SQLITE, (user_id,))
            names = [d[0] for d in cur.description]
            return [RawRow(zip(names, values, strict=True)) for values in cur.fetchall()]
    return list(conn.execute(_unseen_core(), {"uid": user_id}).all())


def set_snapshot(conn: Connection, game_id: int, snapshot: str) -> None:
    """Overwrite a snapshot without touching the version (tests of ``door check`` only)."""
    conn.execute(update(games).where(games.c.id == game_id).values(snapshot=snapshot))


# --- ratings -------------------------------------------------------------------------------


def rating_rows(conn: Connection, kind: str, user_ids: Sequence[int]) -> dict[int, Row]:
    if not user_ids:
        return {}
    raw = _raw(conn)
    if raw is not None:
        # Read at the end of every game, inside the move's transaction (raw sqlite3 for
        # the same reason as the hot path above).
        marks = ", ".join("?" * len(user_ids))
        with _translated():
            cur = raw.execute(
                "SELECT user_id, kind, rating, experience, wins, losses FROM ratings "
                f"WHERE kind = ? AND user_id IN ({marks})",
                (kind, *user_ids),
            )
            names = [d[0] for d in cur.description]
            found: list[Any] = [RawRow(zip(names, v, strict=True)) for v in cur.fetchall()]
        return {r.user_id: r for r in found}
    result = conn.execute(
        select(ratings).where(and_(ratings.c.kind == kind, ratings.c.user_id.in_(user_ids)))
    )
    return {r.user_id: r for r in result}


def save_rating(
    conn: Connection,
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
        conn.execute(
            update(ratings)
            .where(and_(ratings.c.user_id == user_id, ratings.c.kind == kind))
            .values(**values)
        )
    else:
        conn.execute(insert(ratings).values(user_id=user_id, kind=kind, **values))


_RATING_COLUMNS = "r.user_id, r.kind, r.rating, r.experience, r.wins, r.losses, u.name"


def rank_rows(
    conn: Connection, kind: str, offset: int, limit: int, min_experience: int
) -> list[Row]:
    raw = _raw(conn)
    if raw is not None:
        with _translated():
            cur = raw.execute(
                f"SELECT {_RATING_COLUMNS} FROM ratings AS r JOIN users AS u ON u.id = r.user_id "
                "WHERE r.kind = ? AND r.experience >= ? "
                "ORDER BY r.rating DESC, r.experience DESC, r.user_id LIMIT ? OFFSET ?",
                (kind, min_experience, limit, offset),
            )
            names = [d[0] for d in cur.description]
            return [RawRow(zip(names, values, strict=True)) for values in cur.fetchall()]
    result = conn.execute(
        select(ratings, users.c.name)
        .join(users, users.c.id == ratings.c.user_id)
        .where(and_(ratings.c.kind == kind, ratings.c.experience >= min_experience))
        .order_by(ratings.c.rating.desc(), ratings.c.experience.desc(), ratings.c.user_id)
        .offset(offset)
        .limit(limit)
    )
    return list(result.all())


def rating_place(
    conn: Connection, kind: str, user_id: int, min_experience: int
) -> tuple[Row, int] | None:
    raw = _raw(conn)
    if raw is not None:
        return _rating_place_raw(raw, kind, user_id, min_experience)
    row = (
        conn.execute(
            select(ratings, users.c.name)
            .join(users, users.c.id == ratings.c.user_id)
            .where(and_(ratings.c.kind == kind, ratings.c.user_id == user_id))
        )
    ).first()
    if row is None or row.experience < min_experience:
        return None
    better = (
        conn.execute(
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


def _rating_place_raw(
    raw: Any, kind: str, user_id: int, min_experience: int
) -> tuple[Row, int] | None:
    """``rating_place`` in plain SQL on SQLite (the same row and place)."""
    with _translated():
        cur = raw.execute(
            f"SELECT {_RATING_COLUMNS} FROM ratings AS r JOIN users AS u ON u.id = r.user_id "
            "WHERE r.kind = ? AND r.user_id = ?",
            (kind, user_id),
        )
        names = [d[0] for d in cur.description]
        found = cur.fetchone()
        if found is None:
            return None
        row: Any = RawRow(zip(names, found, strict=True))
        if row.experience < min_experience:
            return None
        # the better-rated and the equally rated ahead, counted apart: each is one range
        # of ix_ratings_kind_rating (an OR of the two makes SQLite read every rating)
        better = raw.execute(
            "SELECT (SELECT count(*) FROM ratings WHERE kind = ?1 AND rating > ?3 "
            "AND experience >= ?2) + (SELECT count(*) FROM ratings WHERE kind = ?1 "
            "AND rating = ?3 AND experience >= ?2 AND (experience > ?4 OR "
            "(experience = ?4 AND user_id < ?5)))",
            (kind, min_experience, row.rating, row.experience, user_id),
        ).fetchone()[0]
    return row, int(better) + 1
