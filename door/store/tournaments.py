"""The tournaments' statements (issue 19), each written once, and their repository.

:class:`TournamentQueries` is built with the other queries (``Queries.tournaments``);
:class:`TournamentRepo` runs them on one open transaction (``Repository.tournaments()``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import and_, bindparam, func, insert, select, update

from door.store.models import (
    GameRow,
    TournamentEntryRow,
    TournamentGameRow,
    TournamentRow,
    UserRow,
    table_of,
)
from door.store.records import EntryRecord, TableRecord, TournamentRecord
from door.store.runner import Query, Runner

_T_COLUMNS = (
    "name", "kind", "format", "options", "size", "min_entrants", "min_rating",
    "bots_allowed", "status", "rounds_made", "winner_id", "template_id", "created_by",
    "created_at", "opens_at", "starts_at", "started_at", "finished_at", "note", "version",
)  # fmt: skip


def _tournament(v: Sequence[Any]) -> TournamentRecord:
    return TournamentRecord(
        v[0], v[1], v[2], v[3], dict(v[4] or {}), v[5], v[6], v[7], bool(v[8]), v[9], v[10],
        v[11], v[12], v[13], v[14], v[15], v[16], v[17], v[18], v[19] or "", v[20],
    )  # fmt: skip


def _entry(v: Sequence[Any]) -> EntryRecord:
    return EntryRecord(
        v[0], v[1], float(v[2]), v[3], bool(v[4]), bool(v[5]), v[6], v[7] or "", bool(v[8])
    )


def _table_row(v: Sequence[Any]) -> TableRecord:
    return TableRecord(
        v[0], v[1], v[2], tuple(int(x) for x in v[3]), v[4], v[5],
        None if v[6] is None else dict(v[6]),
    )  # fmt: skip


def _one_int(v: Sequence[Any]) -> int:
    return int(v[0])


class TournamentQueries:
    """Every tournament statement."""

    def __init__(self) -> None:
        t, e, g = table_of(TournamentRow), table_of(TournamentEntryRow), table_of(TournamentGameRow)
        games, users = table_of(GameRow), table_of(UserRow)
        p = bindparam
        self.insert = Query(
            "t_insert",
            insert(t).values({t.c[n]: p(n) for n in _T_COLUMNS}).returning(t.c.id),
            _one_int,
        )
        self.by_id = Query("t_by_id", select(t).where(t.c.id == p("id")), _tournament)
        # read to be rewritten: the row lock holds every other process's advance of this
        # tournament off until this transaction ends (SQLite: writes are one at a time)
        self.lock = Query(
            "t_lock", select(t).where(t.c.id == p("id")).with_for_update(), _tournament
        )
        self.due_ids = Query(
            "t_due_ids",
            select(t.c.id).where(t.c.status.in_(("open", "running"))).order_by(t.c.id),
            _one_int,
        )
        self.by_status = Query(
            "t_by_status",
            select(t)
            .where(t.c.status.in_(p("statuses", expanding=True)))
            .order_by(t.c.id.desc())
            .limit(p("limit")),
            _tournament,
        )
        self.all_ids = Query("t_all_ids", select(t.c.id).order_by(t.c.id), _one_int)
        self.save: Query[None] = Query(
            "t_save",
            update(t)
            .where(and_(t.c.id == p("id"), t.c.version == p("w_version")))
            .values({t.c[n]: p(n) for n in _T_COLUMNS}),
        )
        self.entries = Query(
            "t_entries",
            select(
                e.c.tournament_id, e.c.user_id, e.c.rating, e.c.entered_at, e.c.withdrawn,
                e.c.forfeited, e.c.position, users.c.name, users.c.is_bot,
            )
            .join(users, users.c.id == e.c.user_id)
            .where(e.c.tournament_id == p("id"))
            .order_by(e.c.entered_at, e.c.user_id),
            _entry,
        )  # fmt: skip
        self.insert_entry: Query[None] = Query(
            "t_insert_entry",
            insert(e).values({e.c[n]: p(n) for n in (
                "tournament_id", "user_id", "rating", "entered_at", "withdrawn", "forfeited",
                "position")}),
        )  # fmt: skip
        self.save_entry: Query[None] = Query(
            "t_save_entry",
            update(e)
            .where(and_(e.c.tournament_id == p("tournament_id"), e.c.user_id == p("user_id")))
            .values({e.c.withdrawn: p("withdrawn"), e.c.forfeited: p("forfeited"),
                     e.c.position: p("position")}),
        )  # fmt: skip
        self.insert_table: Query[None] = Query(
            "t_insert_table",
            insert(g).values({g.c[n]: p(n) for n in (
                "tournament_id", "round_no", "table_no", "seats", "game_id")}),
        )  # fmt: skip
        self.tables = Query(
            "t_tables",
            select(
                g.c.tournament_id, g.c.round_no, g.c.table_no, g.c.seats, g.c.game_id,
                games.c.status, games.c.outcome,
            )
            .outerjoin(games, games.c.id == g.c.game_id)
            .where(g.c.tournament_id == p("id"))
            .order_by(g.c.round_no, g.c.table_no),
            _table_row,
        )  # fmt: skip
        self.of_game = Query(
            "t_of_game",
            select(g.c.tournament_id).where(g.c.game_id == p("game_id")),
            _one_int,
        )
        self.marks = Query(
            "t_marks",
            select(g.c.game_id, t.c.name, g.c.round_no)
            .join(t, t.c.id == g.c.tournament_id)
            .where(g.c.game_id.in_(p("ids", expanding=True))),
            lambda v: (int(v[0]), str(v[1]), int(v[2])),
        )
        self.entered_by = Query(
            "t_entered_by",
            select(e.c.tournament_id)
            .join(t, t.c.id == e.c.tournament_id)
            .where(and_(e.c.user_id == p("user_id"), t.c.status.in_(("open", "running"))))
            .order_by(e.c.tournament_id),
            _one_int,
        )
        self.count_bots = Query(
            "t_count_users_like",
            select(func.count()).select_from(users).where(users.c.name_key.like(p("pattern"))),
            _one_int,
        )


class TournamentRepo:
    """Tournament reads and writes on one open transaction."""

    __slots__ = ("_q", "_run")

    def __init__(self, runner: Runner, queries: TournamentQueries) -> None:
        self._run = runner
        self._q = queries

    def insert(self, t: TournamentRecord) -> int:
        return self._run.rows(self._q.insert, _values(t))[0]

    def get(self, tournament_id: int) -> TournamentRecord | None:
        found = self._run.rows(self._q.by_id, {"id": tournament_id})
        return found[0] if found else None

    def lock(self, tournament_id: int) -> TournamentRecord | None:
        """:meth:`get`, the row locked until this transaction ends."""
        found = self._run.rows(self._q.lock, {"id": tournament_id})
        return found[0] if found else None

    def due_ids(self) -> list[int]:
        return self._run.rows(self._q.due_ids, {})

    def by_status(self, statuses: Sequence[str], limit: int = 100) -> list[TournamentRecord]:
        return self._run.rows(self._q.by_status, {"statuses": list(statuses), "limit": limit})

    def all_ids(self) -> list[int]:
        return self._run.rows(self._q.all_ids, {})

    def save(self, t: TournamentRecord, was_version: int) -> bool:
        """Write ``t`` over the row at ``was_version``; False if it changed meanwhile."""
        params = {**_values(t), "id": t.id, "w_version": was_version}
        return self._run.execute(self._q.save, params) == 1

    def entries(self, tournament_id: int) -> list[EntryRecord]:
        return self._run.rows(self._q.entries, {"id": tournament_id})

    def insert_entry(self, e: EntryRecord) -> None:
        self._run.execute(self._q.insert_entry, {
            "tournament_id": e.tournament_id, "user_id": e.user_id, "rating": e.rating,
            "entered_at": e.entered_at, "withdrawn": e.withdrawn, "forfeited": e.forfeited,
            "position": e.position,
        })  # fmt: skip

    def save_entry(self, e: EntryRecord) -> None:
        self._run.execute(self._q.save_entry, {
            "tournament_id": e.tournament_id, "user_id": e.user_id, "withdrawn": e.withdrawn,
            "forfeited": e.forfeited, "position": e.position,
        })  # fmt: skip

    def insert_table(self, tab: TableRecord) -> None:
        """A round's table; ``ConflictError`` if that table exists (another advance)."""
        self._run.execute(self._q.insert_table, {
            "tournament_id": tab.tournament_id, "round_no": tab.round_no,
            "table_no": tab.table_no, "seats": list(tab.seats), "game_id": tab.game_id,
        })  # fmt: skip

    def tables(self, tournament_id: int) -> list[TableRecord]:
        return self._run.rows(self._q.tables, {"id": tournament_id})

    def of_game(self, game_id: int) -> int | None:
        found = self._run.rows(self._q.of_game, {"game_id": game_id})
        return found[0] if found else None

    def marks(self, game_ids: Sequence[int]) -> dict[int, tuple[str, int]]:
        """Game id → (tournament name, round) for those of ``game_ids`` in a tournament."""
        if not game_ids:
            return {}
        rows = self._run.rows(self._q.marks, {"ids": list(game_ids)})
        return {gid: (name, rnd) for gid, name, rnd in rows}

    def entered_by(self, user_id: int) -> list[int]:
        """The open or running tournaments ``user_id`` has entered."""
        return self._run.rows(self._q.entered_by, {"user_id": user_id})


def _values(t: TournamentRecord) -> dict[str, object]:
    return {n: getattr(t, n) for n in _T_COLUMNS}
