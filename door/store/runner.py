"""How a written-once statement is run: on SQLite's own driver, or through SQLAlchemy.

Every statement of the repository is a :class:`Query`: a SQLAlchemy Core statement built
once from the ``Table`` objects (``door/store/queries.py``), with the function that turns
one of its result rows into a record. A :class:`Runner` runs queries inside one
transaction; there is one per backend:

* :class:`CoreRunner` (PostgreSQL) hands the statement to SQLAlchemy's ``Connection``.
* :class:`SqliteRunner` runs the same statement on the ``sqlite3`` connection itself:
  :class:`Prepared` compiles it once with SQLAlchemy's SQLite dialect and keeps the SQL
  text, the order of its parameters and the type processors SQLAlchemy itself would apply
  to each parameter and result column (``ExpandedState.processors``,
  ``TypeEngine.result_processor``), so values are stored and read exactly as SQLAlchemy
  stores and reads them. Measured on a move's statements (a game by id, its seats, the
  versioned UPDATE, two events' INSERT; one process, prebuilt statements, a busy
  machine): 33-79 µs each through SQLAlchemy's ``Connection.execute`` against 5-7 µs for
  the compiled text on the driver, when a whole move may cost about 300 µs
  (bench/commit_moves.py: ``ratio_vs_sqlite`` ≤ 5).

Both turn a uniqueness violation into :class:`ConflictError`, a lock or serialization
timeout into :class:`TransientError` and a full disk, an I/O error or a lost connection
into :class:`StorageError`, so nothing above sees a driver's exception.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from sqlalchemy.engine import Connection, Dialect
from sqlalchemy.exc import DBAPIError, IntegrityError, OperationalError
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.expression import Executable

R = TypeVar("R")
Params = Mapping[str, object]
Processor = Callable[[Any], Any]


class ConflictError(Exception):
    """A write broke a uniqueness rule (someone else inserted the same key first)."""


class TransientError(Exception):
    """The database was locked or could not serialize this transaction: try it again."""


class StorageError(Exception):
    """The database could not do the work for a reason that may pass: the disk (or the
    database's size limit) full, an I/O error, the connection to the server lost. Nothing
    was written; ``in_doubt`` when the connection was lost during ``COMMIT`` itself, so
    the server may have committed."""

    def __init__(self, message: str, *, in_doubt: bool = False) -> None:
        super().__init__(message)
        self.in_doubt = in_doubt


# SQLite's primary result codes for a storage failure that may pass: SQLITE_NOMEM,
# SQLITE_IOERR (every extended I/O code), SQLITE_FULL, SQLITE_CANTOPEN (e.g. no file
# descriptor left, or no room for the -shm file).
_SQLITE_STORAGE_CODES = frozenset({7, 10, 13, 14})
# PostgreSQL SQLSTATE classes and codes of the same kind: connection exceptions (08),
# insufficient resources (53: disk full, out of memory, too many connections), an
# operator intervention that ends sessions (57P01-57P03: shutdown, crash, starting up),
# system errors (58: I/O error).
_PG_STORAGE_CLASSES = ("08", "53", "58")
_PG_STORAGE_CODES = frozenset({"57P01", "57P02", "57P03"})


def is_storage_failure(exc: BaseException) -> bool:
    """The disk full, an I/O error, or the database server unreachable: the transaction
    did nothing and may succeed later (see :class:`StorageError`)."""
    orig = getattr(exc, "orig", None) or exc
    if isinstance(orig, StorageError):
        return True
    if isinstance(orig, sqlite3.Error):
        code = getattr(orig, "sqlite_errorcode", None)
        if isinstance(code, int):
            return (code & 0xFF) in _SQLITE_STORAGE_CODES
        text = str(orig).lower()
        return "disk is full" in text or "disk i/o error" in text
    if getattr(exc, "connection_invalidated", False):
        return True
    if isinstance(orig, OSError):  # refused, reset, unreachable, timed out
        return True
    code = getattr(orig, "sqlstate", None) or getattr(orig, "pgcode", None)
    if isinstance(code, str):
        return code[:2] in _PG_STORAGE_CLASSES or code in _PG_STORAGE_CODES
    cause = orig.__cause__
    if cause is not None and cause is not orig and isinstance(cause, OSError):
        return True
    return "connection is closed" in str(orig).lower() or (
        "connection was closed" in str(orig).lower()
    )


def is_transient(exc: BaseException) -> bool:
    """A lock timeout, a serialization failure or a deadlock: safe to retry the whole action."""
    orig = getattr(exc, "orig", exc)
    text = str(orig).lower()
    if "database is locked" in text or "database is busy" in text or "sqlite_busy" in text:
        return True
    code = getattr(orig, "sqlstate", None) or getattr(orig, "pgcode", None)
    return code in {"40001", "40P01"} or "deadlock detected" in text or (
        "could not serialize" in text
    )


class Query(Generic[R]):
    """One statement and how a row of its result becomes a record (``None`` for a
    statement that returns no rows)."""

    __slots__ = ("make", "name", "statement")

    def __init__(
        self, name: str, statement: Executable, make: Callable[[Sequence[Any]], R] | None = None
    ) -> None:
        self.name = name
        self.statement = statement
        self.make = make

    def __repr__(self) -> str:
        return f"Query({self.name!r})"


class Runner(Protocol):
    """Runs queries inside one open transaction."""

    notifies: bool
    """Whether the backend has NOTIFY (PostgreSQL: yes; SQLite: no)."""

    def rows(self, query: Query[R], params: Params) -> list[R]:
        """Every row of the result, as records."""
        ...

    def execute(self, query: Query[Any], params: Params) -> int:
        """Run a statement that returns nothing; how many rows it changed."""
        ...

    def execute_many(self, query: Query[Any], params: Sequence[Params]) -> None:
        """Run a statement once for each parameter set."""
        ...


# --- PostgreSQL (and any backend): through SQLAlchemy ----------------------------------------


class CoreRunner:
    """Queries on a SQLAlchemy ``Connection``."""

    __slots__ = ("conn",)
    notifies = True

    def __init__(self, conn: Connection) -> None:
        self.conn = conn

    def rows(self, query: Query[R], params: Params) -> list[R]:
        make = query.make
        assert make is not None, query
        try:
            result = self.conn.execute(query.statement, dict(params))
            return [make(row) for row in result]
        except DBAPIError as exc:
            raise _translated(exc) from exc

    def execute(self, query: Query[Any], params: Params) -> int:
        try:
            return int(self.conn.execute(query.statement, dict(params)).rowcount)
        except DBAPIError as exc:
            raise _translated(exc) from exc

    def execute_many(self, query: Query[Any], params: Sequence[Params]) -> None:
        if not params:
            return
        try:
            self.conn.execute(query.statement, [dict(p) for p in params])
        except DBAPIError as exc:
            raise _translated(exc) from exc


def _translated(exc: DBAPIError) -> Exception:
    if isinstance(exc, IntegrityError):
        return ConflictError(str(exc.orig))
    if is_transient(exc):
        return TransientError(str(exc.orig))
    if is_storage_failure(exc):
        return StorageError(str(exc.orig))
    return exc


# --- SQLite: the compiled text on the sqlite3 connection ----------------------------------


# Where one positional parameter's value comes from, and how it is converted:
# (the caller's parameter or "" for a value fixed in the statement, the element of an
# expanded (IN) list or -1 for a single value, the fixed value, the processor). Plain
# tuples: every statement of every move unpacks them.
_Argument = tuple[str, int, object, "Processor | None"]


@dataclass(frozen=True, slots=True)
class Prepared:
    """A statement compiled for SQLite: its SQL, its arguments and its result columns."""

    sql: str
    arguments: tuple[_Argument, ...]
    results: tuple[Processor | None, ...]

    @classmethod
    def compile(
        cls, statement: Executable, dialect: Dialect, expanded: Mapping[str, int]
    ) -> Prepared:
        """Compile ``statement``; ``expanded`` gives the length of each expanding
        (``IN``) parameter's list for this shape of call."""
        compiled = statement.compile(dialect=dialect)  # type: ignore[attr-defined]
        assert isinstance(compiled, SQLCompiler)
        # the parameters the caller gives (a literal in the statement, e.g. the values
        # of ``status.in_(("open", "active"))``, keeps its own value)
        wanted: dict[str, object] = {}
        for key, bind in compiled.binds.items():
            if bind.required or bind.callable is not None:
                wanted[key] = [None] * expanded.get(key, 0) if bind.expanding else None
        state = compiled.construct_expanded_state(wanted, escape_names=False)
        source = {
            part: (name, i)
            for name, parts in state.parameter_expansion.items()
            for i, part in enumerate(parts)
        }
        arguments: list[_Argument] = []
        for key in state.positiontup or ():
            # an expanded list's elements have theirs in the state; every other
            # parameter converts as its type does on this dialect
            processor = state.processors.get(key)
            if processor is None and key in compiled.binds:
                bound_type = compiled.binds[key].type
                processor = bound_type.dialect_impl(dialect).bind_processor(dialect)
            if key in source and source[key][0] in wanted:
                name, index = source[key]
                arguments.append((name, index, None, processor))
            elif key in wanted:
                arguments.append((key, -1, None, processor))
            else:
                arguments.append(("", -1, state.parameters[key], processor))
        results: list[Processor | None] = []
        for column in getattr(statement, "exported_columns", ()):
            impl = column.type.dialect_impl(dialect)
            results.append(impl.result_processor(dialect, None))
        return cls(state.statement, tuple(arguments), tuple(results))

    def values(self, params: Params) -> list[object]:
        """The positional values for one call, converted as SQLAlchemy would."""
        out: list[object] = []
        append = out.append
        for name, index, constant, processor in self.arguments:
            if name:
                value = params[name]
                if index >= 0:
                    value = value[index]  # type: ignore[index]
            else:
                value = constant
            append(value if processor is None else processor(value))
        return out


class PreparedStatements:
    """The compiled form of each query shape, made on first use and kept for the life of
    the database (built by :class:`door.store.db.Database`; the queries never change)."""

    def __init__(self, dialect: Dialect) -> None:
        self.dialect = dialect
        # a query without list parameters has one compiled form; one with them, one per
        # length of each list. Keyed by the query object itself: the queries of a
        # database live as long as it does.
        self._single: dict[Query[Any], Prepared] = {}
        self._shaped: dict[tuple[Query[Any], tuple[tuple[str, int], ...]], Prepared] = {}

    def get(self, query: Query[Any], params: Params) -> Prepared:
        found = self._single.get(query)
        if found is not None:
            return found
        shape = tuple((k, len(v)) for k, v in params.items() if isinstance(v, list | tuple))
        if shape:
            found = self._shaped.get((query, shape))
            if found is None:
                found = Prepared.compile(query.statement, self.dialect, dict(shape))
                self._shaped[query, shape] = found
            return found
        found = Prepared.compile(query.statement, self.dialect, {})
        self._single[query] = found
        return found


class SqliteRunner:
    """Queries on one of the sqlite3 connections (the event loop's or the database thread's)."""

    __slots__ = ("prepared", "raw")
    notifies = False

    def __init__(self, raw: sqlite3.Connection, prepared: PreparedStatements) -> None:
        self.raw = raw
        self.prepared = prepared

    def rows(self, query: Query[R], params: Params) -> list[R]:
        make = query.make
        assert make is not None, query
        p = self.prepared.get(query, params)
        try:
            found = self.raw.execute(p.sql, p.values(params)).fetchall()
        except sqlite3.Error as exc:
            raise _sqlite_translated(exc) from exc
        results = p.results
        if not any(results):
            return [make(row) for row in found]
        return [
            make([v if f is None or v is None else f(v) for f, v in zip(results, row, strict=True)])
            for row in found
        ]

    def execute(self, query: Query[Any], params: Params) -> int:
        p = self.prepared.get(query, params)
        try:
            return self.raw.execute(p.sql, p.values(params)).rowcount
        except sqlite3.Error as exc:
            raise _sqlite_translated(exc) from exc

    def execute_many(self, query: Query[Any], params: Sequence[Params]) -> None:
        if not params:
            return
        p = self.prepared.get(query, params[0])
        try:
            self.raw.executemany(p.sql, [p.values(one) for one in params])
        except sqlite3.Error as exc:
            raise _sqlite_translated(exc) from exc


def _sqlite_translated(exc: sqlite3.Error) -> Exception:
    if isinstance(exc, sqlite3.IntegrityError):
        return ConflictError(str(exc))
    if is_transient(exc):
        return TransientError(str(exc))
    if is_storage_failure(exc):
        return StorageError(str(exc))
    return OperationalError("(sqlite3)", None, exc)
