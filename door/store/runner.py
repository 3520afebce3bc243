"""How a written-once statement is run: on the driver itself, compiled once by SQLAlchemy.

Every statement of the repository is a :class:`Query`: a SQLAlchemy Core statement built
once from the ``Table`` objects (``door/store/queries.py``), with the function that turns
one of its result rows into a record. A :class:`Runner` runs queries inside one
transaction; there is one per backend, and both run the text :class:`Prepared` compiled
once per query shape with SQLAlchemy's own dialect (:class:`PreparedStatements`), with
the order of its parameters and the type processors SQLAlchemy itself would apply to each
parameter and result column (``ExpandedState.processors``,
``TypeEngine.result_processor``), so values are stored and read exactly as SQLAlchemy
stores and reads them:

* :class:`SqliteRunner` on the ``sqlite3`` connection. Measured on a move's statements (a
  game by id, its seats, the versioned UPDATE, two events' INSERT; one process,
  prebuilt statements, a busy machine): 33-79 µs each through SQLAlchemy's
  ``Connection.execute`` against 5-7 µs for the compiled text on the driver, when a
  whole move may cost about 300 µs (bench/commit_moves.py: ``ratio_vs_sqlite`` ≤ 5).
* :class:`PgRunner` on the asyncpg connection, from the transaction's greenlet: with
  asyncpg's prepared statements, bench/commit_moves.py ``--database-url`` went from
  about 700 to about 1,100 moves/s (one move at a time, with ``pool_pre_ping`` already
  gone), where SQLAlchemy's ``Connection.execute`` spent about 45 µs a statement in its
  own execution context before asyncpg saw it.

Both turn a uniqueness violation into :class:`ConflictError`, a lock or serialization
timeout into :class:`TransientError` and a full disk, an I/O error or a lost connection
into :class:`StorageError`, so nothing above sees a driver's exception.
"""

from __future__ import annotations

import operator
import re
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from sqlalchemy.engine import Dialect
from sqlalchemy.exc import OperationalError
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.expression import Executable
from sqlalchemy.util import await_

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

    def rows(self, query: Query[R], params: Params) -> list[R]:
        """Every row of the result, as records."""
        ...

    def execute(self, query: Query[Any], params: Params) -> int:
        """Run a statement that returns nothing; how many rows it changed."""
        ...

    def execute_many(self, query: Query[Any], params: Sequence[Params]) -> None:
        """Run a statement once for each parameter set."""
        ...

    def notify(self, channel: str, payload: str) -> None:
        """Tell the other processes ``payload`` on ``channel`` when the transaction
        commits (PostgreSQL's NOTIFY; nothing at all on a backend without one)."""
        ...


# --- PostgreSQL: the compiled text on the asyncpg connection --------------------------------


class PgDriver(Protocol):
    """What :class:`PgRunner` uses of an asyncpg ``Connection`` (asyncpg has no types)."""

    async def fetch(self, query: str, *args: object) -> list[Any]: ...

    async def execute(self, query: str, *args: object) -> str: ...

    async def executemany(self, command: str, args: Sequence[Sequence[object]]) -> None: ...


# a NOTIFY's channel is an identifier written into the statement: door's own names only
_CHANNEL_NAME = re.compile(r"[a-z_][a-z0-9_]{0,62}")
MAX_NOTIFY_PAYLOAD = 7900
"""PostgreSQL refuses NOTIFY payloads of 8000 bytes or more."""


def notify_sql(channel: str, payload: str) -> str:
    """``NOTIFY channel, 'payload'`` as literal text (it has no parameters: it is sent
    with ``COMMIT`` in one simple query). The payload is an escaped string constant
    (``E'…'``), whatever ``standard_conforming_strings`` says."""
    if not _CHANNEL_NAME.fullmatch(channel):
        raise ValueError(f"not a channel name: {channel!r}")
    if "\0" in payload:
        raise ValueError("a NOTIFY payload cannot hold NUL")
    if len(payload.encode("utf-8")) > MAX_NOTIFY_PAYLOAD:
        raise ValueError("payload too long for NOTIFY")
    quoted = payload.replace("\\", "\\\\").replace("'", "\\'")
    return f"NOTIFY {channel}, E'{quoted}'"


class PgRunner:
    """Queries on an asyncpg connection, from inside ``greenlet_spawn`` (each statement
    awaits the server through SQLAlchemy's ``await_``, the event loop serving everyone
    else meanwhile).

    Statements are compiled once for SQLAlchemy's asyncpg dialect (:class:`Prepared`:
    ``$n`` parameters with their casts, the type processors SQLAlchemy would apply) and
    sent with asyncpg's ``fetch``/``execute``, which keep each connection's prepared
    statements in asyncpg's own statement cache (``statement_cache_size``, 100 by
    default): the server parses and plans each statement once per connection. A NOTIFY
    (:meth:`notify`) is held until :meth:`commit_sql`, which sends it with ``COMMIT``.
    ``read_only``: a read without a transaction of its own (each statement its own
    snapshot, as READ COMMITTED gives anyway), so an UPDATE, INSERT or DELETE (which
    would commit by itself) is refused, as is a NOTIFY.
    """

    __slots__ = ("driver", "notices", "prepared", "read_only", "snapshot")
    notifies = True

    def __init__(
        self, driver: PgDriver, prepared: PreparedStatements, *, read_only: bool = False
    ) -> None:
        self.driver = driver
        self.prepared = prepared
        self.read_only = read_only
        self.notices: list[str] = []
        self.snapshot = False
        """A read made one snapshot (:meth:`begin_snapshot`): its transaction is open
        until the read ends (the database rolls it back)."""

    def _get(self, query: Query[Any], params: Params) -> Prepared:
        p = self.prepared.get(query, params)
        if self.read_only and not p.is_select:
            raise RuntimeError(f"{query.name} writes, in a read-only action")
        return p

    def rows(self, query: Query[R], params: Params) -> list[R]:
        make = query.make
        assert make is not None, query
        p = self._get(query, params)
        try:
            found = await_(self.driver.fetch(p.sql, *p.values(params)))
        except Exception as exc:
            raise _pg_translated(exc) from exc
        return _records(make, p.converted, found)

    def execute(self, query: Query[Any], params: Params) -> int:
        p = self._get(query, params)
        try:
            status = await_(self.driver.execute(p.sql, *p.values(params)))
        except Exception as exc:
            raise _pg_translated(exc) from exc
        # the command tag: "UPDATE 1", "DELETE 0", "INSERT 0 1"
        count = status.rpartition(" ")[2]
        return int(count) if count.isdigit() else 0

    def execute_many(self, query: Query[Any], params: Sequence[Params]) -> None:
        if not params:
            return
        p = self._get(query, params[0])
        try:
            await_(self.driver.executemany(p.sql, [p.values(one) for one in params]))
        except Exception as exc:
            raise _pg_translated(exc) from exc

    def begin_snapshot(self) -> None:
        """Make every later statement of this action see the database as it was at the
        first: a read opens a REPEATABLE READ, READ ONLY transaction (a read otherwise has
        none, see :class:`PgRunner`); a write sets its own transaction's level (before
        any other statement)."""
        sql = (
            "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"
            if self.read_only
            else "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ"
        )
        if self.snapshot:
            return
        try:
            await_(self.driver.execute(sql))
        except Exception as exc:
            raise _pg_translated(exc) from exc
        self.snapshot = True

    def notify(self, channel: str, payload: str) -> None:
        """NOTIFY ``channel`` with ``payload`` when this transaction commits."""
        if self.read_only:
            raise RuntimeError("a NOTIFY in a read-only action")
        self.notices.append(notify_sql(channel, payload))

    def commit_sql(self) -> str:
        """What ends the transaction: its NOTIFYs and ``COMMIT``, one simple query (one
        round trip)."""
        return "; ".join([*self.notices, "COMMIT"])


def _records(
    make: Callable[[Sequence[Any]], R],
    converted: Sequence[tuple[int, Processor]],
    found: Sequence[Any],
) -> list[R]:
    """``found``'s rows as records: each value of a column with a result processor
    (``converted``: (column, processor), the conversion SQLAlchemy would make) through
    it, then ``make``. Only those columns are visited: a game row has 23 columns and 8
    processors, and the game lists read pages of them on every switch."""
    if not converted:
        return [make(row) for row in found]
    out = []
    for row in found:
        values = list(row)
        for i, f in converted:
            v = values[i]
            if v is not None:
                values[i] = f(v)
        out.append(make(values))
    return out


def _pg_translated(exc: Exception) -> Exception:
    """An asyncpg error as door's own (asyncpg's classes carry the SQLSTATE)."""
    code = getattr(exc, "sqlstate", None)
    if isinstance(code, str) and code.startswith("23"):
        return ConflictError(str(exc))
    if is_transient(exc):
        return TransientError(str(exc))
    if is_storage_failure(exc):
        return StorageError(str(exc))
    return exc


# --- SQLite: the compiled text on the sqlite3 connection ----------------------------------


# Where one positional parameter's value comes from, and how it is converted:
# (the caller's parameter or "" for a value fixed in the statement, the element of an
# expanded (IN) list or -1 for a single value, the fixed value, the processor). Plain
# tuples: every statement of every move unpacks them.
_Argument = tuple[str, int, object, "Processor | None"]


@dataclass(frozen=True, slots=True)
class Prepared:
    """A statement compiled for one dialect (SQLite's, or asyncpg's): its SQL, its
    arguments, its result columns, and whether it is a ``SELECT``."""

    sql: str
    arguments: tuple[_Argument, ...]
    results: tuple[Processor | None, ...]
    is_select: bool
    converted: tuple[tuple[int, Processor], ...]
    """(column, processor) of each result column that has a processor (see ``_records``)."""
    fetch: Callable[[Params], tuple[object, ...]] | None
    """For a statement whose every argument is one of the caller's parameters (no fixed
    value, no element of a list): the values of all of them at once, in order (one
    ``operator.itemgetter`` call, not a Python loop over them; a versioned game write
    has 18 of them)."""
    bound: tuple[tuple[int, Processor], ...]
    """With ``fetch``: (position, processor) of each argument that has a processor."""

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
            try:
                results.append(impl.result_processor(dialect, None))
            except TypeError:
                # asyncpg's numeric types choose by the column's type code, known only
                # with a result; asyncpg itself returns a float for a float column
                results.append(None)
        is_select = bool(getattr(statement, "is_select", False))
        converted = tuple((i, f) for i, f in enumerate(results) if f is not None)
        fetch: Callable[[Params], tuple[object, ...]] | None = None
        bound: tuple[tuple[int, Processor], ...] = ()
        if arguments and all(name and index < 0 for name, index, _, _ in arguments):
            names = [name for name, _, _, _ in arguments]
            fetch = _fetcher(names)
            bound = tuple((i, f) for i, (_, _, _, f) in enumerate(arguments) if f is not None)
        return cls(
            state.statement, tuple(arguments), tuple(results), is_select, converted, fetch,
            bound,
        )  # fmt: skip

    def values(self, params: Params) -> list[object]:
        """The positional values for one call, converted as SQLAlchemy would."""
        fetch = self.fetch
        if fetch is not None:
            values = list(fetch(params))
            for i, f in self.bound:
                values[i] = f(values[i])
            return values
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


def _fetcher(names: Sequence[str]) -> Callable[[Params], tuple[object, ...]]:
    """The values of ``names`` from a mapping, as a tuple (``itemgetter`` of one name
    gives the bare value)."""
    get = operator.itemgetter(*names)
    if len(names) > 1:
        return get
    return lambda params: (get(params),)


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
        return _records(make, p.converted, found)

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

    def notify(self, channel: str, payload: str) -> None:
        """Nothing: SQLite has no NOTIFY (one process's hub is local)."""


def _sqlite_translated(exc: sqlite3.Error) -> Exception:
    if isinstance(exc, sqlite3.IntegrityError):
        return ConflictError(str(exc))
    if is_transient(exc):
        return TransientError(str(exc))
    if is_storage_failure(exc):
        return StorageError(str(exc))
    return OperationalError("(sqlite3)", None, exc)
